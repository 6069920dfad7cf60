"""Core value types shared by every stage. Standard library only: importing this is free.

Offsets are Python character offsets (code points) into a sentence's text, end exclusive.
Every follow-up remembers the :class:`Edit` that made it from its source, and the edit's
alignment maps any source span to the follow-up, so expected entities are known without
searching strings again.
"""
from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence


@dataclass(frozen=True, order=True)
class Span:
    """A labelled character range. ``label`` is the suite's common type after the label map;
    ``raw_label`` keeps what the system said (e.g. OntoNotes ``GPE``)."""

    start: int
    end: int
    label: str
    raw_label: str = field(default="", compare=False)
    score: float | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not (0 <= self.start <= self.end):
            raise ValueError(f"bad span offsets {self.start}..{self.end}")

    def text_in(self, text: str) -> str:
        return text[self.start:self.end]

    def overlaps(self, other: "Span") -> bool:
        return self.start < other.end and other.start < self.end

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"start": self.start, "end": self.end, "label": self.label}
        if self.raw_label and self.raw_label != self.label:
            d["raw_label"] = self.raw_label
        if self.score is not None:
            d["score"] = round(self.score, 4)
        return d


@dataclass(frozen=True)
class Sentence:
    """One source input. ``origin`` says where it came from (``file:line``) for messages."""

    id: str
    text: str
    gold: tuple[Span, ...] | None = None
    origin: str = ""


@dataclass(frozen=True)
class Prediction:
    """What a system under test said about one text, in the suite's common types."""

    spans: tuple[Span, ...]

    def entities(self, text: str) -> Counter[tuple[str, str]]:
        """The multiset of (entity text, type) that MR2 compares."""
        return Counter((s.text_in(text), s.label) for s in self.spans)

    def to_json(self) -> list[dict[str, Any]]:
        return [s.to_json() for s in self.spans]


@dataclass(frozen=True, order=True)
class Replacement:
    """Replace ``text[start:end]`` with ``new``. ``start == end`` is an insertion."""

    start: int
    end: int
    new: str

    @property
    def is_insertion(self) -> bool:
        return self.start == self.end


class AlignmentError(ValueError):
    pass


@dataclass(frozen=True)
class Edit:
    """A set of non-overlapping replacements applied to a source text at once.

    The alignment is exact for every offset outside a replaced region, maps the boundaries of a
    replaced region to the boundaries of its replacement, and maps offsets inside a replacement of
    equal length (e.g. a case change) one to one. Text inserted exactly at a span's boundary stays
    outside the span. Offsets strictly inside a replacement of another length have no image.
    """

    source: str
    replacements: tuple[Replacement, ...]

    def __post_init__(self) -> None:
        reps = tuple(sorted(self.replacements, key=lambda r: (r.start, r.end)))
        object.__setattr__(self, "replacements", reps)
        prev_end = 0
        for r in reps:
            if r.start < prev_end or r.end > len(self.source) or r.start < 0:
                raise AlignmentError(f"overlapping or out-of-range replacement {r}")
            prev_end = r.end

    @property
    def target(self) -> str:
        out, pos = [], 0
        for r in self.replacements:
            out.append(self.source[pos:r.start])
            out.append(r.new)
            pos = r.end
        out.append(self.source[pos:])
        return "".join(out)

    def _map(self, offset: int, *, is_end: bool) -> int | None:
        delta = 0
        for r in self.replacements:
            growth = len(r.new) - (r.end - r.start)
            if r.is_insertion:
                # Text inserted at a span's start goes before the span; at its end, after it.
                if r.start < offset or (r.start == offset and not is_end):
                    delta += growth
                    continue
                break
            if r.end <= offset:      # wholly before (a boundary maps to the replacement's end)
                delta += growth
                continue
            if r.start >= offset:    # wholly after (a boundary maps to the replacement's start)
                break
            # strictly inside a replaced region: one to one for a same-length change (case)
            return offset + delta if growth == 0 else None
        return offset + delta

    def map_span(self, span: Span) -> Span | None:
        """The span's image in the target, or None when an edit cut through it."""
        start = self._map(span.start, is_end=False)
        end = self._map(span.end, is_end=True)
        if start is None or end is None or end < start:
            return None
        return Span(start, end, span.label, span.raw_label, span.score)

    def changed_source_ranges(self) -> list[tuple[int, int]]:
        return [(r.start, r.end) for r in self.replacements if self.source[r.start:r.end] != r.new]

    def changed_target_ranges(self) -> list[tuple[int, int]]:
        out, delta = [], 0
        for r in self.replacements:
            ns = r.start + delta
            if self.source[r.start:r.end] != r.new:
                out.append((ns, ns + len(r.new)))
            delta += len(r.new) - (r.end - r.start)
        return out

    def to_json(self) -> list[dict[str, Any]]:
        return [{"start": r.start, "end": r.end, "new": r.new} for r in self.replacements]


@dataclass(frozen=True)
class FollowUp:
    """A transformed input made from a source. ``meta`` says how (for reports)."""

    text: str
    edit: Edit
    transformation: str
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_replacements(cls, source: str, replacements: Iterable[Replacement], transformation: str,
                          **meta: Any) -> "FollowUp":
        edit = Edit(source, tuple(replacements))
        return cls(edit.target, edit, transformation, meta)


class Outcome(str, enum.Enum):
    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"     # the relation does not apply to this group
    ERROR = "error"   # the system could not be queried: neither pass nor fail


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    reason: str = ""
    # Entity-level differences, e.g. [{"text": "Paris", "source": "LOCATION", "follow_up": None}]
    differences: tuple[dict[str, Any], ...] = ()
    # Error categories of a violation (omission, over-labeling, incorrect category, range error)
    # and what they were judged against ("gold", "repair" or "predictions").
    categories: tuple[str, ...] = ()
    categories_basis: str = ""

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"outcome": self.outcome.value}
        if self.reason:
            d["reason"] = self.reason
        if self.differences:
            d["differences"] = list(self.differences)
        if self.categories_basis:
            d["categories"] = list(self.categories)
            d["categories_basis"] = self.categories_basis
        return d


@dataclass(frozen=True)
class TestCase:
    """One metamorphic group: a source, one follow-up, both predictions, and one relation's verdict."""

    __test__ = False  # not a pytest class

    id: str
    source: Sentence
    follow_up: FollowUp
    relation: str
    source_prediction: Prediction
    follow_up_prediction: Prediction
    expected: tuple[Span, ...]
    verdict: Verdict
    repair: dict[str, Any] | None = None     # R(s), R(s′) and the scores that decided them
    gold: dict[str, Any] | None = None       # gold evaluation of the violation

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": self.id,
            "source_id": self.source.id,
            "origin": self.source.origin,
            "transformation": self.follow_up.transformation,
            "relation": self.relation,
            "source": {"text": self.source.text, "entities": self.source_prediction.to_json()},
            "follow_up": {
                "text": self.follow_up.text,
                "entities": self.follow_up_prediction.to_json(),
                "expected": [s.to_json() for s in self.expected],
                "edit": self.follow_up.edit.to_json(),
                "meta": self.follow_up.meta,
            },
            "verdict": self.verdict.to_json(),
        }
        if self.source.gold is not None:
            d["source"]["gold"] = [s.to_json() for s in self.source.gold]
        if self.repair is not None:
            d["repair"] = self.repair
        if self.gold is not None:
            d["gold"] = self.gold
        return d


def spans_from_json(items: Sequence[dict[str, Any]]) -> tuple[Span, ...]:
    return tuple(Span(int(i["start"]), int(i["end"]), str(i["label"]), str(i.get("raw_label", "")))
                 for i in items)
