"""Suspicious-entity location (TIN §3.5.1).

An entity string e is suspicious when it occurs in both sentences and N(s, e) ≠ N(s′, e), where
N(x, e) is the type the system gave the occurrence of e in x, or NULL (``None``) when no predicted
span covers exactly that occurrence. The entity strings are those either prediction labels.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from runner.tasks.ner.repair.categories import occurrences
from runner.tasks.ner.types import Span


@dataclass(frozen=True)
class Occurrence:
    start: int
    end: int
    label: str | None      # N(x, e); None = NULL


@dataclass(frozen=True)
class Suspicious:
    text: str
    source: Occurrence
    follow_up: Occurrence


def label_at(spans: Sequence[Span], start: int, end: int) -> str | None:
    for s in spans:
        if s.start == start and s.end == end:
            return s.label
    return None


def _occurrence(entity: str, text: str, spans: Sequence[Span]) -> Occurrence | None:
    found = occurrences(entity, text)
    if not found:
        return None
    # The occurrence the system labelled, if any (an entity may occur twice, labelled once).
    for start, end in found:
        label = label_at(spans, start, end)
        if label is not None:
            return Occurrence(start, end, label)
    return Occurrence(found[0][0], found[0][1], None)


def locate(source_text: str, source_spans: Sequence[Span], follow_up_text: str,
           follow_up_spans: Sequence[Span]) -> list[Suspicious]:
    entities = sorted({s.text_in(source_text) for s in source_spans}
                      | {s.text_in(follow_up_text) for s in follow_up_spans})
    seen: set[str] = set()
    out = []
    for e in entities:
        key = e[:1].lower() + e[1:]       # "The X" and "the X" are one entity
        if key in seen:
            continue
        seen.add(key)
        a = _occurrence(e, source_text, source_spans)
        b = _occurrence(e, follow_up_text, follow_up_spans)
        if a is None or b is None or a.label == b.label:
            continue
        out.append(Suspicious(e, a, b))
    return out
