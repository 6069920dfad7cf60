"""What every transformation is, for any task: a source (+ the system's prediction on it) in,
follow-ups out.

A transformation works per source (:meth:`Transformation.generate`) or, when a follow-up needs
more than one source (e.g. a composition of two relation-extraction pairs), per batch of sources
(:meth:`Transformation.generate_batch`). Either way each source comes with its own generator
(``rng``) derived from the run's seed, the source and the transformation, so a per-source
transformation makes the same follow-ups whatever the batch size.
"""
from __future__ import annotations

import random
from typing import Any, ClassVar, NamedTuple, Sequence

from runner.types import FollowUp


class BatchItem(NamedTuple):
    """One source of a batch as a transformation sees it."""

    source: Any          # the task's source type (has ``id``, ``text``, ``origin``)
    prediction: Any      # the system under test's prediction about it
    rng: random.Random   # this (source, transformation)'s own generator
    doc: Any = None      # the shared parse of ``source.text`` when ``needs_parse``


class Transformation:
    """Subclasses set ``name`` and implement :meth:`_generate`; returning ``[]`` means
    "does not apply to this source" (CheckList's ``None``). A transformation that combines
    sources overrides :meth:`generate_batch` instead."""

    name: ClassVar[str]
    #: needs the shared spaCy parse of the source (the engine parses sources in batches)
    needs_parse: ClassVar[bool] = False

    def __init__(self, **params: Any) -> None:
        self.params = params

    def describe(self) -> dict[str, Any]:
        # ``name`` may be the suite's own name for this instance; the type is the class's.
        kind = type(self).name
        return {"type": kind, **({"name": self.name} if self.name != kind else {}), **self.params}

    def generate_batch(self, items: Sequence[BatchItem]) -> list[list[FollowUp]]:
        """The follow-ups of every source of a batch, one list per item, in order. A follow-up
        made from several sources is listed under the one it is judged against (its ``source``)
        and carries the others in ``FollowUp.others``. Default: :meth:`generate` per source."""
        return [self.generate(i.source, i.prediction, i.rng, i.doc) for i in items]

    def generate(self, source: Any, prediction: Any, rng: random.Random,
                 doc: Any = None) -> list[FollowUp]:
        follow_ups = self._generate(source, prediction, rng, doc)
        # A follow-up identical to its source tests nothing.
        return [f for f in follow_ups if f.text != source.text]

    def _generate(self, source: Any, prediction: Any, rng: random.Random,
                  doc: Any) -> list[FollowUp]:
        raise NotImplementedError


class PlannedTransformation(Transformation):
    """A transformation made in two steps per source: :meth:`_plan` proposes candidate
    sentences, :meth:`_finish` turns them into follow-ups once they are analysed (re-tagged, for
    a word replaced in place). A batch is planned whole first, so that :meth:`_prepare` sees
    every candidate sentence of the batch at once (one tagging pass, not one per source)."""

    def generate_batch(self, items: Sequence[BatchItem]) -> list[list[FollowUp]]:
        self._before_plans(items)
        plans = [self._plan(i.source, i.prediction, i.doc) for i in items]
        self._prepare([t for plan in plans if plan for t in plan[1]])
        return [[f for f in self._finish(i.source, i.doc, plan) if f.text != i.source.text]
                if plan else [] for i, plan in zip(items, plans)]

    def _generate(self, source: Any, prediction: Any, rng: random.Random,
                  doc: Any) -> list[FollowUp]:
        plan = self._plan(source, prediction, doc)
        return self._finish(source, doc, plan) if plan else []

    def _before_plans(self, items: Sequence[BatchItem]) -> None:
        """Work for a whole batch ahead of :meth:`_plan` (one model pass, not one per source)."""

    def _prepare(self, texts: Sequence[str]) -> None:
        """Analyse the candidate sentences of a whole batch ahead of :meth:`_finish`."""

    def _plan(self, source: Any, prediction: Any,
              doc: Any) -> tuple[list[tuple], list[str]] | None:
        """(proposals, the candidate sentences they make), or None when there is none."""
        raise NotImplementedError

    def _finish(self, source: Any, doc: Any, plan: tuple[list[tuple], list[str]]
                ) -> list[FollowUp]:
        """The follow-ups of a plan (its candidate sentences are analysed by now)."""
        raise NotImplementedError
