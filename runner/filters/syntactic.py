"""`syntactic` filter (TIN §3.3.2, eq. 2): ε = score(s) − score(s′), the drop in naturalness the
follow-up costs; the follow-up is dropped when ε > ``SynThreshold`` (one number, or one per
transformation type with ``default`` for the rest; paper: 0.02 structural / 0.01 others for
Flair-CoNLL, 0 for the other systems).

The score is the mean log-probability per token of a language model (AEON's SynEval uses the
perplexity of a pretrained LM): ``causal_lm`` (e.g. gpt2), ``lm`` (the language-model layer,
default the embedded SmolLM2-135M), ``pll`` (a masked LM's
pseudo-log-likelihood) or ``wordfreq`` (unigram word frequencies, order-blind) — see
:mod:`runner.models.scorers`. Sources are scored once however many follow-ups they have.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from runner.filters.base import Filter
from runner.types import FollowUp, by_transformation

DEFAULT_SCORER_MODEL = {"causal_lm": "gpt2", "lm": "smollm2", "pll": "bert-base-cased",
                        "wordfreq": "en"}


class SyntacticFilter(Filter):
    name = "syntactic"
    # Scores with its own language model (or word frequencies) only: may run on another thread
    # while the engine uses spaCy.
    thread_safe = True
    # a language model's score per follow-up: the dearest judgement of a suite
    costly = True

    def __init__(self, *, SynThreshold: float | Mapping[str, float] = 0.0,
                 scorer: str = "causal_lm", model: str | None = None,
                 applies_to: Sequence[str] | None = None, batch_size: int = 32,
                 fp16: bool = False, device: str = "auto", scorer_obj: Any = None) -> None:
        model = model or DEFAULT_SCORER_MODEL.get(scorer)
        super().__init__(applies_to=applies_to, SynThreshold=SynThreshold, scorer=scorer,
                         model=model, batch_size=batch_size, fp16=fp16)
        self.synthreshold = (dict(SynThreshold) if isinstance(SynThreshold, Mapping)
                             else SynThreshold)
        if scorer_obj is None:
            from runner.models import get_scorer

            scorer_obj = get_scorer(scorer, model, device=device, fp16=fp16, batch_size=batch_size)
        self.scorer = scorer_obj
        self._cache: dict[str, float] = {}

    def threshold(self, transformation: str) -> float:
        return float(by_transformation(self.synthreshold, transformation, 0.0))

    def models(self) -> list[dict[str, Any]]:
        # (a language model shared with a candidate source says what it does here)
        return [{**self.scorer.describe(), "role": "scorer"}]

    def _score_texts(self, texts: Sequence[str]) -> dict[str, float]:
        todo = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if todo:
            self._cache.update(zip(todo, self.scorer.score(todo)))
        out = {t: self._cache[t] for t in texts}
        if len(self._cache) > 20000:   # sources repeat within a batch, not across the corpus
            self._cache.clear()
        return out

    def scores(self, pairs: Sequence[tuple[str, FollowUp]]) -> list[float | None]:
        s = self._score_texts([p[0] for p in pairs] + [p[1].text for p in pairs])
        return [s[src] - s[f.text] for src, f in pairs]

    def keep(self, score: float | None, transformation: str) -> bool:
        return score is None or score <= self.threshold(transformation)
