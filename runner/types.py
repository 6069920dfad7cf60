"""Value types every task shares. Standard library only: importing this is free.

Offsets are Python character offsets (code points) into a text, end exclusive. Every follow-up
remembers the :class:`Edit` that made it from its source where there is one, and the edit's
alignment maps any source range to the follow-up, so a task knows its expected answer (NER: the
source's entities where they now read) without searching strings again.

These types know no task: a source, an input and a prediction are whatever the task says
(:mod:`runner.tasks.base`); NER's are in :mod:`runner.tasks.ner.types`.
"""
from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import Any, Iterable, TypeVar

_Ranged = TypeVar("_Ranged")


def by_transformation(value: Any, transformation: str, fallback: Any) -> Any:
    """A per-transformation setting (``limits.max_follow_ups_per_source``, ``SynThreshold``): one
    value for all, or a mapping of transformation names with ``default`` for the rest
    (``fallback`` where the mapping has none)."""
    if isinstance(value, dict):
        return value.get(transformation, value.get("default", fallback))
    return value


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

    def map_range(self, start: int, end: int) -> tuple[int, int] | None:
        """The image of ``[start, end)`` in the target, or None when an edit cut through it."""
        new_start = self._map(start, is_end=False)
        new_end = self._map(end, is_end=True)
        if new_start is None or new_end is None or new_end < new_start:
            return None
        return new_start, new_end

    def map_span(self, span: _Ranged) -> _Ranged | None:
        """The image of anything with ``start`` and ``end`` (a dataclass: an entity, a mention,
        a relation argument) in the target, other fields kept; None when an edit cut through it."""
        image = self.map_range(span.start, span.end)  # type: ignore[attr-defined]
        if image is None:
            return None
        return dataclasses.replace(span, start=image[0], end=image[1])  # type: ignore[type-var]

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

    def replaced_pairs(self) -> list[tuple[tuple[int, int], tuple[int, int]]]:
        """(source range, follow-up range) of every replacement that changed text and has
        characters on both sides (an insertion or a deletion replaces nothing)."""
        out, delta = [], 0
        for r in self.replacements:
            ns = r.start + delta
            if self.source[r.start:r.end] != r.new and r.end > r.start and r.new:
                out.append(((r.start, r.end), (ns, ns + len(r.new))))
            delta += len(r.new) - (r.end - r.start)
        return out

    def to_json(self) -> list[dict[str, Any]]:
        return [{"start": r.start, "end": r.end, "new": r.new} for r in self.replacements]


@dataclass(frozen=True)
class FollowUp:
    """A transformed input made from a source: ``input`` is the task's input type (NER: the text),
    ``edit`` the character edit that made it from the source's text where there is one, ``meta``
    says how (for reports). ``others`` holds the further ``(source, prediction)`` pairs of a group
    that combines several sources of one batch (e.g. a composition of two relations); it is not
    written to results, the task records what it needs in ``meta``."""

    input: Any
    edit: Edit | None
    transformation: str
    meta: dict[str, Any] = field(default_factory=dict)
    others: tuple[tuple[Any, Any], ...] = field(default=(), compare=False, repr=False)

    @property
    def text(self) -> str:
        """The follow-up's text: the input itself when it is a string, else its ``text``."""
        return self.input if isinstance(self.input, str) else self.input.text

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
    # What differs, in the task's words (NER: per entity text, e.g. [{"text": "Paris",
    # "source": "LOCATION", "follow_up": None}])
    differences: tuple[dict[str, Any], ...] = ()
    # Categories a task's violation analysis gives a violation (NER: omission, over-labeling,
    # incorrect category, range error) and what they were judged against (NER: "gold", "repair"
    # or "predictions").
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
    """One metamorphic group: a source, one follow-up, both predictions, the expected answer the
    task derived for the follow-up, and one relation's verdict. The task writes it to JSON
    (:meth:`runner.tasks.base.Task.case_to_json`). ``repair`` and ``gold`` are filled by a task's
    violation analysis when it has one (NER: R(s), R(s′) and the gold evaluation)."""

    __test__ = False  # not a pytest class

    id: str
    source: Any
    follow_up: FollowUp
    relation: str
    source_prediction: Any
    follow_up_prediction: Any
    expected: Any
    verdict: Verdict
    repair: dict[str, Any] | None = None
    gold: dict[str, Any] | None = None

    def to_json(self, task: Any) -> dict[str, Any]:
        """The case as written to cases.jsonl, by its task (``Task.case_to_json``)."""
        return task.case_to_json(self)
