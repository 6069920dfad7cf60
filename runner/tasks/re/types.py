"""Relation-extraction value types. Standard library only.

An input is a sentence with two arguments, the *head* and the *tail* entity, each a character
range (end exclusive) with an entity type; a source may carry a gold relation. A prediction is one
relation label (``no_relation`` allowed) with an optional score.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable

NO_RELATION = "no_relation"


@dataclass(frozen=True)
class Argument:
    """One argument of a relation: ``text[start:end]`` with its entity ``type``."""

    start: int
    end: int
    type: str

    def text_in(self, text: str) -> str:
        return text[self.start:self.end]

    def overlaps(self, other: "Argument") -> bool:
        return self.start < other.end and other.start < self.end

    def same_range(self, other: "Argument") -> bool:
        return (self.start, self.end) == (other.start, other.end)

    def to_json(self, text: str | None = None) -> dict[str, Any]:
        d: dict[str, Any] = {"start": self.start, "end": self.end, "type": self.type}
        if text is not None:
            d["text"] = self.text_in(text)
        return d


@dataclass(frozen=True)
class REInput:
    """What a relation extractor is asked: the relation from ``head`` to ``tail`` in ``text``."""

    text: str
    head: Argument
    tail: Argument

    def key(self) -> str:
        """Identifies the input in prediction caches."""
        h, t = self.head, self.tail
        return f"{h.start}:{h.end}:{h.type}|{t.start}:{t.end}:{t.type}|{self.text}"

    def swapped(self) -> "REInput":
        return REInput(self.text, self.tail, self.head)

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "head": self.head.to_json(self.text),
                "tail": self.tail.to_json(self.text)}


@dataclass(frozen=True)
class RESource:
    """One source pair of the corpus. ``coref`` lists annotated mentions coreferent with the head
    and with the tail (``{"head": (Argument, ...), "tail": (...)}``), for MR-R4."""

    id: str
    text: str
    head: Argument
    tail: Argument
    gold: str | None = None
    origin: str = ""
    coref: dict[str, tuple[Argument, ...]] = field(default_factory=dict, compare=False)

    @property
    def input(self) -> REInput:
        return REInput(self.text, self.head, self.tail)


@dataclass(frozen=True)
class REPrediction:
    """The relation a system gave. ``raw_label`` is what it said before the suite's label map
    (e.g. a predicate of an open extractor); ``score`` its confidence when it gives one."""

    label: str
    score: float | None = None
    raw_label: str = ""

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"label": self.label}
        if self.raw_label and self.raw_label != self.label:
            d["raw_label"] = self.raw_label
        if self.score is not None:
            d["score"] = round(float(self.score), 4)
        return d


class InvalidPair(ValueError):
    """An input whose arguments cannot be a relation instance (message says why)."""


def validate_pair(text: str, head: Argument, tail: Argument,
                  entity_types: Iterable[str] | None = None) -> None:
    """Raise :class:`InvalidPair` when the pair is not a valid input: empty text, offsets outside
    the text or empty, an unknown entity type, head and tail the same or overlapping ranges."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidPair("the text is empty")
    known = set(entity_types) if entity_types is not None else None
    for role, arg in (("head", head), ("tail", tail)):
        if not (0 <= arg.start < arg.end <= len(text)):
            raise InvalidPair(f"{role} offsets {arg.start}..{arg.end} are outside the text "
                              f"({len(text)} characters) or empty")
        if not text[arg.start:arg.end].strip():
            raise InvalidPair(f"{role} {arg.start}..{arg.end} covers only white space")
        if (arg.start > 0 and text[arg.start - 1].isalnum() and text[arg.start].isalnum()) or (
                arg.end < len(text) and text[arg.end - 1].isalnum() and text[arg.end].isalnum()):
            raise InvalidPair(f"{role} {arg.start}..{arg.end} ({text[arg.start:arg.end]!r}) starts "
                              f"or ends inside a word ({_around(text, arg)!r}); are the offsets "
                              f"character offsets with an exclusive end?")
        if known is not None and arg.type not in known:
            from difflib import get_close_matches

            close = get_close_matches(arg.type, sorted(known), n=1)
            hint = f" — did you mean {close[0]!r}?" if close else ""
            raise InvalidPair(f"{role} type {arg.type!r} is not a known entity type{hint} "
                              f"(known: {', '.join(sorted(known))}; a suite can add types in "
                              f"re_tables.entity_types)")
    if head.same_range(tail):
        raise InvalidPair(f"head and tail are the same mention ({head.start}..{head.end} "
                          f"{text[head.start:head.end]!r})")
    if head.overlaps(tail):
        raise InvalidPair(f"head {head.start}..{head.end} and tail {tail.start}..{tail.end} "
                          f"overlap")


def _around(text: str, arg: Argument) -> str:
    return text[max(0, arg.start - 10):arg.end + 10]


def map_argument(edit: Any, arg: Argument) -> Argument | None:
    """The argument's range in an edit's target (``None`` when a replacement cut through it)."""
    image = edit.map_range(arg.start, arg.end)
    if image is None or image[1] <= image[0]:
        return None
    return replace(arg, start=image[0], end=image[1])
