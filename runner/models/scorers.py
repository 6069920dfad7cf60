"""Naturalness scorers for the syntactic filter (TIN eq. 2, AEON's SynEval).

Every scorer maps texts to a number where *higher means more natural*, on the same scale for
every backend: the mean log-probability per token (natural log), so that
ε = score(s) − score(s′) is the drop in average log-likelihood (the log of the perplexity
ratio, per token) that the follow-up costs.

- ``causal_lm`` / ``lm``: a left-to-right LM (e.g. ``gpt2``, the embedded SmolLM2): mean
  log p(token | start, previous tokens); the log of 1/perplexity, as in AEON. It is the
  language-model layer's :class:`~runner.models.lm.CausalLM` (``lm`` with a masked LM's name
  scores by pseudo-log-likelihood, as ``pll``).
- ``pll``: a masked LM's pseudo-log-likelihood (every token masked in turn; all the masked copies
  go through the model in batches).
- ``wordfreq``: a unigram model from the ``wordfreq`` package's English word frequencies:
  mean log p(word). It knows nothing of word order, so it only catches rare or odd words
  (it is offline and needs no model).
"""
from __future__ import annotations

import math
import re
from typing import Any, Sequence

from runner.models.lm import CausalLM as CausalLMScorer  # noqa: F401  (the layer's causal LM)
from runner.models.loading import FALLBACKS
from runner.models.mlm import MaskedLM, _order_by_length


class PLLScorer:
    role = "scorer"
    kind = "pll"

    def __init__(self, mlm: MaskedLM) -> None:
        self.mlm = mlm
        self.name = mlm.name

    @property
    def forward_passes(self) -> int:
        return self.mlm.forward_passes

    def describe(self) -> dict[str, Any]:
        d = {**self.mlm.describe(), "role": self.role,
             "backend": f"pll:{self.mlm.model_class}"}
        why = FALLBACKS.get(("pll", self.name))
        if why:
            d["runtime_note"] = f"not in ONNX Runtime: {why}"
        return d

    def score(self, texts: Sequence[str]) -> list[float]:
        return self.mlm.pseudo_log_likelihood(texts)


_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|\d+", re.UNICODE)


class WordFreqScorer:
    """Unigram log-probability from ``wordfreq`` (English, 'best' wordlist). Words it has never
    seen get the frequency floor ``1e-9`` (rarer than any listed word)."""

    role = "scorer"
    kind = "wordfreq"
    forward_passes = 0

    def __init__(self, lang: str = "en", floor: float = 1e-9) -> None:
        try:
            import wordfreq
        except ImportError as e:
            from runner.errors import ModelNotAvailable

            raise ModelNotAvailable("the wordfreq scorer needs the wordfreq package: "
                                    "pip install wordfreq==3.1.1 (or 'mtrun[similar]')") from e
        self._freq = wordfreq.word_frequency
        self.lang, self.floor = lang, floor
        self.name = f"wordfreq:{lang}"

    def describe(self) -> dict[str, Any]:
        return {"role": self.role, "backend": "wordfreq-unigram", "name": self.name,
                "device": "cpu"}

    def score(self, texts: Sequence[str]) -> list[float]:
        out = []
        for t in texts:
            words = _WORD.findall(t)
            if not words:
                out.append(0.0)
                continue
            out.append(sum(math.log(max(self._freq(w, self.lang), self.floor)) for w in words)
                       / len(words))
        return out
