"""The typed hand-offs between the steps of a batch (:mod:`runner.engine`): each step returns a
small frozen record of what it made, so what a step may touch, and which steps overlap on two
threads, is visible in the signatures.

    generate → Generated → filter → Filtered → ask → Asked → judge → Judged → decide → Decided
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, NamedTuple

from runner.tally import Counts
from runner.types import FollowUp, TestCase

Funnel = dict[str, dict[str, Any]]


class Made(NamedTuple):
    """One transformation's follow-ups of one source (filters drop from ``follow_ups``)."""
    source: Any
    prediction: Any
    transformation: Any
    follow_ups: list[FollowUp]


@dataclass(frozen=True)
class Tally:
    """A batch's counts: per (transformation, relation) and per transformation."""
    counts: dict[tuple[str, str], Counts]
    per_transformation: dict[str, Counts]

    @classmethod
    def empty(cls) -> "Tally":
        return cls(defaultdict(Counts), defaultdict(Counts))


@dataclass(frozen=True)
class Generated:
    """After *generate*: the sources' answers, the follow-ups, the error cases of sources the
    system could not answer, and the funnel so far (each transformation's own checks apart)."""
    predictions: list[Any]
    made: list[Made]
    error_cases: list[TestCase]
    funnel: Funnel
    own_checks: dict[str, dict[str, Any]]
    tally: Tally


@dataclass(frozen=True)
class Filtered:
    """After *filter*: the follow-ups the model-based filters kept."""
    generated: Generated
    made: list[Made]


@dataclass(frozen=True)
class Asked:
    """After *ask*: each follow-up tested (source, its prediction, follow-up, index) with the
    system's answer for it."""
    generated: Generated
    groups: list[tuple[Any, Any, FollowUp, int]]
    answers: list[Any]
    funnel: Funnel


@dataclass(frozen=True)
class Judged:
    """After *judge*: the batch's cases and counts (what depends on the batch alone)."""
    cases: list[TestCase]
    tally: Tally
    predictions: list[Any]
    funnel: Funnel


@dataclass(frozen=True)
class Decided:
    """A batch ready to record: its cases after the task's analysis, and each stage's records."""
    batch: list[Any]
    cases: list[TestCase]
    tally: Tally
    funnel: Funnel
    stage_records: dict[str, list[dict[str, Any]]]
