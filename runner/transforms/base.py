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
        return {"type": self.name, **self.params}

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
