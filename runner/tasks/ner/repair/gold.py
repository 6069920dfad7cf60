"""Evaluation against gold labels (TIN §4.4).

The follow-up's gold entities are the source's gold entities carried through the edit: a gold
entity the edit did not touch (or changed only in case) keeps its label at its image; a replaced
region whose new text is a gold entity of the source (an entity moved by a shuffle) gets that
entity's label; a gold entity replaced by other text is gone. When an edit cuts through a gold
entity the follow-up's gold is unknown (``None``) and only the source is judged.

Precision of testing = violations with a prediction error in s or s′ / violations judged.
Repair: each suspicious entity occurrence (counted once per sentence) is correct before when
N's type there equals the gold type (NULL when neither has a span exactly there), correct after
when R's does; TT/TF/FT/FF, Err2Cor = FT/(FT+FF), Cor2Err = TF/(TT+TF),
ErrorReduce = (FT−TF)/(FT+FF).
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from runner.tasks.ner.repair.locate import label_at
from runner.types import Edit
from runner.tasks.ner.types import Span


def project_gold(gold: Sequence[Span], edit: Edit) -> tuple[Span, ...] | None:
    source, target = edit.source, edit.target
    changed = edit.changed_source_ranges()
    by_text: dict[str, set[str]] = {}
    for g in gold:
        by_text.setdefault(g.text_in(source), set()).add(g.label)
    out: list[Span] = []
    for g in gold:
        touched = [(a, b) for a, b in changed if a < g.end and g.start < b]
        if not touched:
            image = edit.map_span(g)
            if image is None:
                return None
            out.append(image)
            continue
        if touched == [(g.start, g.end)]:
            continue        # replaced whole: its region is judged by what was put there (below)
        image = edit.map_span(g)
        if image is not None and image.text_in(target).lower() == g.text_in(source).lower():
            out.append(image)   # e.g. a sentence-initial word whose case changed
            continue
        return None         # the edit cut through a gold entity
    delta = 0
    for r in edit.replacements:
        start = r.start + delta
        delta += len(r.new) - (r.end - r.start)
        if source[r.start:r.end] == r.new or not r.new:
            continue
        labels = by_text.get(r.new)
        if labels and len(labels) == 1:
            span = Span(start, start + len(r.new), next(iter(labels)))
            if not any(s.overlaps(span) for s in out):
                out.append(span)
    return tuple(sorted(out))


def same_entities(a: Sequence[Span], b: Sequence[Span]) -> bool:
    return {(s.start, s.end, s.label) for s in a} == {(s.start, s.end, s.label) for s in b}


class GoldTally:
    """Running gold metrics. A suspicious entity occurrence is counted once per tally (the
    analyzer keeps one per batch and merges them; a sentence belongs to one batch)."""

    def __init__(self) -> None:
        self.violations = 0          # violations whose source has gold labels
        self.judged = 0              # ... of which the precision could be decided
        self.erroneous = 0
        self.follow_up_unknown = 0   # follow-up gold not projectable (only s judged)
        self.table: Counter[str] = Counter()
        self._seen: set[tuple[str, int, int]] = set()

    def add_violation(self, source_ok: bool, follow_up_ok: bool | None) -> bool | None:
        """Record one violation; returns whether it holds a prediction error (None: unknown)."""
        self.violations += 1
        if follow_up_ok is None:
            self.follow_up_unknown += 1
        if not source_ok or follow_up_ok is False:
            self.judged += 1
            self.erroneous += 1
            return True
        if follow_up_ok is None:
            return None
        self.judged += 1
        return False

    def add_entity(self, text: str, start: int, end: int, gold: Sequence[Span],
                   before: Sequence[Span], after: Sequence[Span]) -> str | None:
        key = (text, start, end)
        if key in self._seen:
            return None
        self._seen.add(key)
        want = label_at(gold, start, end)
        outcome = ("T" if label_at(before, start, end) == want else "F") + \
                  ("T" if label_at(after, start, end) == want else "F")
        self.table[outcome] += 1
        return outcome

    _COUNTS = ("violations", "judged", "erroneous", "follow_up_unknown")

    def merge(self, other: "GoldTally") -> None:
        for k in self._COUNTS:
            setattr(self, k, getattr(self, k) + getattr(other, k))
        self.table.update(other.table)

    def state(self) -> dict[str, Any]:
        return {**{k: getattr(self, k) for k in self._COUNTS}, "table": dict(self.table)}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "GoldTally":
        t = cls()
        for k in cls._COUNTS:
            setattr(t, k, int(state.get(k, 0)))
        t.table.update(state.get("table", {}))
        return t

    def to_json(self) -> dict[str, Any]:
        tt, tf, ft, ff = (self.table[k] for k in ("TT", "TF", "FT", "FF"))
        n_err, n_cor = ft + ff, tt + tf
        total = n_err + n_cor
        return {
            "violations": self.violations, "judged": self.judged, "erroneous": self.erroneous,
            "precision": self.erroneous / self.judged if self.judged else None,
            "follow_up_gold_unknown": self.follow_up_unknown,
            "entities": total,
            "TT": tt, "TF": tf, "FT": ft, "FF": ff, "NumError": n_err, "NumCorrect": n_cor,
            "Err2Cor": ft / n_err if n_err else None,
            "Cor2Err": tf / n_cor if n_cor else None,
            "ErrorReduce": (ft - tf) / n_err if n_err else None,
        }
