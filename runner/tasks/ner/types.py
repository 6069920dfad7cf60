"""NER's value types: a labelled character span, a sentence (the source), a prediction.

Offsets are Python character offsets (code points) into a sentence's text, end exclusive.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence


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


def spans_from_json(items: Sequence[dict[str, Any]]) -> tuple[Span, ...]:
    return tuple(Span(int(i["start"]), int(i["end"]), str(i["label"]), str(i.get("raw_label", "")))
                 for i in items)
