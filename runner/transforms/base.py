"""What every transformation is: a source (+ the system's prediction on it) in, follow-ups out."""
from __future__ import annotations

import random
from typing import Any, ClassVar

from runner.types import FollowUp, Prediction, Sentence


class Transformation:
    """Subclasses set ``name`` and implement :meth:`_generate`; returning ``[]`` means
    "does not apply to this source" (CheckList's ``None``)."""

    name: ClassVar[str]
    #: needs the shared spaCy parse of the source (the engine parses sources in batches)
    needs_parse: ClassVar[bool] = False

    def __init__(self, **params: Any) -> None:
        self.params = params

    def describe(self) -> dict[str, Any]:
        # ``name`` may be the suite's own name for this instance; the type is the class's.
        kind = type(self).name
        return {"type": kind, **({"name": self.name} if self.name != kind else {}), **self.params}

    def generate(self, source: Sentence, prediction: Prediction, rng: random.Random,
                 doc: Any = None) -> list[FollowUp]:
        follow_ups = self._generate(source, prediction, rng, doc)
        # A follow-up identical to its source tests nothing.
        return [f for f in follow_ups if f.text != source.text]

    def _generate(self, source: Sentence, prediction: Prediction, rng: random.Random,
                  doc: Any) -> list[FollowUp]:
        raise NotImplementedError
