"""The attacks' one door to the system under test: batched, cached, counted.

Every step of an attack sends all its candidate texts in one call; the call goes through the
system's prediction cache (texts asked before are not sent again) and every text asked is counted
against the entity being attacked (``queries``), whether the cache answered it or not — the
paper's query count measures the attack, the cache statistics measure the cost.

Three kinds of answer, chosen once per run (``importance`` in results.json says which):

- ``logits``: the system gives every label's score per word (``hf``: the token classifier's raw
  logits, aggregated per word as its labels are; ``spacy``: the probability of each reading of
  each token over the entity recogniser's beam search). Breaking BERT's importance (eq. 1) uses
  them.
- ``span_scores``: the system gives one score per predicted entity (flair; an ``http`` endpoint
  with a ``response.score`` path). A word inside an entity scores its label with the entity's score;
  every other label scores 0.
- ``labels``: labels only (Azure, AWS, or any system without scores; spaCy when asked). The importance is
  black-box (see :mod:`runner.tasks.ner.attacks.context`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from runner.tasks.ner.attacks.words import OUTSIDE, Word, bio_labels
from runner.sut.base import SUTFailure
from runner.tasks.ner.types import Prediction

IMPORTANCE_KINDS = ("logits", "span_scores", "labels")

WordScores = list[tuple[int, int, dict[str, float]]]  # (start, end, {BIO label: score})


@dataclass(frozen=True)
class View:
    """What the system said about one text: its prediction and, when it gives them, label
    scores per word."""

    text: str
    prediction: Prediction
    word_scores: WordScores | None = None
    span_scores: bool = False

    def labels(self, ws: Sequence[Word]) -> list[str]:
        return bio_labels(self.prediction.spans, ws)

    def scores(self, ws: Sequence[Word]) -> list[dict[str, float]] | None:
        """Label → score for each word, or None for a label-only system."""
        if self.span_scores:
            out = []
            for (s, e), label in zip(ws, self.labels(ws)):
                score = 0.0
                for sp in self.prediction.spans:
                    if sp.start < e and s < sp.end:
                        score = float(sp.score) if sp.score is not None else 0.0
                        break
                out.append({label: score} if label != OUTSIDE else {})
            return out
        if self.word_scores is None:
            return None
        out = []
        for s, e in ws:
            # The system's word that starts inside ours (tokenisations may differ at punctuation).
            hit = next((sc for a, b, sc in self.word_scores if s <= a < e), None)
            if hit is None:
                hit = next((sc for a, b, sc in self.word_scores if a < e and s < b), {})
            out.append(hit)
        return out


def choose_importance(sut: Any, wanted: str) -> str:
    """``auto`` → the richest answer the system gives."""
    has_logits = callable(getattr(sut, "predict_scores", None))
    has_span_scores = bool(getattr(sut, "gives_span_scores", False))
    if wanted == "auto":
        return "logits" if has_logits else "span_scores" if has_span_scores else "labels"
    if wanted == "logits" and not has_logits:
        from runner.errors import MtrunError

        raise MtrunError(f"attacks.importance: logits asked for, but the {sut.name} system gives "
                         "no label scores per word (hf does); use auto or labels")
    if wanted == "span_scores" and not has_span_scores:
        from runner.errors import MtrunError

        raise MtrunError(f"attacks.importance: span_scores asked for, but the {sut.name} system "
                         "gives no entity scores (an http system with response.score does)")
    return wanted


class Oracle:
    def __init__(self, sut: Any, importance: str) -> None:
        self.sut = sut
        self.importance = importance
        self.queries = 0   # texts asked, this entity (reset by the attack)
        self.calls = 0     # batched calls made by attacks

    def ask(self, texts: Sequence[str]) -> list["View | SUTFailure"]:
        if not texts:
            return []
        self.queries += len(texts)
        self.calls += 1
        if self.importance == "logits":
            answers = self.sut.predict_scores(list(texts))
            return [a if isinstance(a, SUTFailure) else View(t, a[0], a[1])
                    for t, a in zip(texts, answers)]
        preds = self.sut.predict_outcomes(list(texts))
        span = self.importance == "span_scores"
        return [p if isinstance(p, SUTFailure) else View(t, p, None, span)
                for t, p in zip(texts, preds)]
