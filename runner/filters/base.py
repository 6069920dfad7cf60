"""What every filter is: many (source text, follow-up) pairs in, one score each, a keep decision.

Scores are computed for all the follow-ups of a batch of sources at once (the models run in
batches); ``keep`` then compares each score with the filter's threshold. A score of ``None`` means
the filter cannot judge that follow-up (e.g. no word was replaced); such a follow-up is kept.
"""
from __future__ import annotations

from typing import Any, ClassVar, Sequence

from runner.types import FollowUp


class Filter:
    name: ClassVar[str]
    #: transformations judged when the suite gives no applies_to (None: every transformation)
    default_applies_to: ClassVar[tuple[str, ...] | None] = None
    #: scores() uses nothing the engine shares (no spaCy pipeline, no system under test), so
    #: it may run on a second thread while the engine transforms the next batch
    thread_safe: ClassVar[bool] = False
    #: each judgement is dear (a language model's pass): the engine runs the filter where it
    #: judges only what the per-source limits may still test (Engine._split)
    costly: ClassVar[bool] = False

    def __init__(self, *, applies_to: Sequence[str] | None = None, **params: Any) -> None:
        self.applies_to = self.judged(applies_to)
        self.params = {"applies_to": list(self.applies_to) if self.applies_to else None, **params}

    @classmethod
    def judged(cls, applies_to: Sequence[str] | None) -> tuple[str, ...] | None:
        """The transformations a filter of this class judges (None: every one)."""
        return tuple(applies_to) if applies_to is not None else cls.default_applies_to

    def applies(self, transformation: str) -> bool:
        return self.applies_to is None or transformation in self.applies_to

    @classmethod
    def known_before_built(cls, params: dict[str, Any]) -> dict[str, Any]:
        """What the engine may ask of a filter of this class with these parameters while its
        models are still loading on a background thread: ``name``, ``thread_safe``, ``costly``,
        ``applies``."""
        judged = cls.judged(params.get("applies_to"))
        return {"name": cls.name, "thread_safe": cls.thread_safe, "costly": cls.costly,
                "applies": lambda transformation: judged is None or transformation in judged}

    def describe(self) -> dict[str, Any]:
        return {"type": self.name, **self.params, "models": self.models()}

    def models(self) -> list[dict[str, Any]]:
        """``describe()`` of the models this filter uses (results.json ``components.models``)."""
        return []

    def scores(self, pairs: Sequence[tuple[str, FollowUp]]) -> list[float | None]:
        raise NotImplementedError

    def keep(self, score: float | None, transformation: str) -> bool:
        raise NotImplementedError
