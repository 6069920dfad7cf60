"""Naturalness scorers for the syntactic filter (TIN eq. 2, AEON's SynEval).

Every scorer maps texts to a number where *higher means more natural*, on the same scale for
every backend: the mean log-probability per token (natural log), so that
ε = score(s) − score(s′) is the drop in average log-likelihood (the log of the perplexity
ratio, per token) that the follow-up costs.

- ``causal_lm``: a left-to-right LM (e.g. ``gpt2``): mean log p(token | previous tokens); the
  log of 1/perplexity, as in AEON.
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

from runner.models.loading import FALLBACKS
from runner.models.mlm import MaskedLM, _order_by_length


class CausalLMScorer:
    role = "scorer"
    kind = "causal_lm"

    def __init__(self, tokenizer: Any, model: Any, *, name: str, device: str, dtype: str,
                 where: str, batch_size: int = 32, max_length: int = 256) -> None:
        self.tokenizer, self.model, self.name = tokenizer, model, name
        self.device, self.dtype, self.where = device, dtype, where
        self.batch_size, self.max_length = batch_size, max_length
        self.forward_passes = 0
        t = tokenizer
        # The first real token is predicted from a start symbol (GPT-2 uses its eos for that).
        self.start_id = next(i for i in (t.bos_token_id, t.eos_token_id, t.cls_token_id, 0)
                             if i is not None)

    def describe(self) -> dict[str, Any]:
        return {"role": self.role, "backend": f"causal_lm:{type(self.model).__name__}",
                "name": self.name, "device": self.device, "dtype": self.dtype,
                "source": self.where, "batch_size": self.batch_size}

    def score(self, texts: Sequence[str]) -> list[float]:
        import torch

        rows = [[self.start_id] + self.tokenizer(t, add_special_tokens=False, truncation=True,
                                                 max_length=self.max_length - 1)["input_ids"]
                for t in texts]
        out = [0.0] * len(texts)
        for chunk in _order_by_length([len(r) for r in rows], self.batch_size):
            width = max(len(rows[i]) for i in chunk)
            ids = torch.zeros((len(chunk), width), dtype=torch.long)
            att = torch.zeros((len(chunk), width), dtype=torch.long)
            for j, i in enumerate(chunk):
                ids[j, :len(rows[i])] = torch.tensor(rows[i])
                att[j, :len(rows[i])] = 1
            ids, att = ids.to(self.device), att.to(self.device)
            with torch.inference_mode():
                logits = self.model(input_ids=ids, attention_mask=att).logits.float()
            self.forward_passes += 1
            logp = logits[:, :-1].log_softmax(-1).gather(2, ids[:, 1:, None])[..., 0]
            m = att[:, 1:].float()
            per_text = ((logp * m).sum(1) / m.sum(1).clamp(min=1)).tolist()
            for j, i in enumerate(chunk):
                out[i] = per_text[j]
        return out


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
