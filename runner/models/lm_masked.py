"""The masked kind of the language-model layer (:mod:`runner.models.lm`): a masked LM behind the
same interface as the causal one."""
from __future__ import annotations

from typing import Any, Sequence

from runner.models.lm_parts import Proposal, Slot


class MaskedLMProposer:
    """A masked LM behind the layer's interface: fill-in as in TIN, pseudo-log-likelihood as the
    naturalness score. Shares the :class:`~runner.models.mlm.MaskedLM` of its name."""

    role = "lm"
    kind = "masked"

    def __init__(self, mlm: Any) -> None:
        self.mlm = mlm
        self.name = mlm.name
        self.device = mlm.device

    @property
    def forward_passes(self) -> int:
        return self.mlm.forward_passes

    def describe(self) -> dict[str, Any]:
        return {**self.mlm.describe(), "role": self.role, "kind": self.kind,
                "backend": f"masked_lm:{self.mlm.model_class}"}

    def _masked(self, slot: Slot) -> str:
        text, start, end = slot
        return text[:start] + self.mlm.mask_token + text[end:]

    def propose(self, slots: Sequence[Slot], k: int, **_: Any) -> list[list[Proposal]]:
        """The masked LM's top words for one mask in place of the slot (raw logits), pieces,
        special tokens, non-words and the original left out."""
        ranked = self.mlm.top_k([self._masked(s) for s in slots], 2 * k + 1,
                                include_subwords=False)
        out = []
        for (text, start, end), cands in zip(slots, ranked):
            orig = text[start:end].strip().lower()
            out.append([(w, v) for w, v, _ in cands if w.isalpha() and w.lower() != orig][:k])
        return out

    def rescore(self, slots: Sequence[Slot], words: Sequence[Sequence[str]]
                ) -> list[list[Proposal]]:
        """Replacements scored by the change in pseudo-log-likelihood (summed over tokens)."""
        texts, asks = [], []
        for n, ((text, start, end), cands) in enumerate(zip(slots, words)):
            seen = {text[start:end].strip().lower()}
            for w in cands:
                if w.lower() not in seen:
                    seen.add(w.lower())
                    asks.append((n, w, len(texts)))
                    texts.append(text[:start] + w + text[end:])
        allt = list(dict.fromkeys(texts + [s[0] for s in slots]))
        mean = dict(zip(allt, self.mlm.pseudo_log_likelihood(allt)))
        special = set(self.mlm.special_ids)
        length = {t: sum(1 for i in ids if i not in special)
                  for t, ids in zip(allt, self.mlm._encode_texts(allt))}
        out: list[list[Proposal]] = [[] for _ in slots]
        for n, w, i in asks:
            t, s = texts[i], slots[n][0]
            out[n].append((w, mean[t] * length[t] - mean[s] * length[s]))
        return [sorted(r, key=lambda x: -x[1]) for r in out]

    def score(self, texts: Sequence[str]) -> list[float]:
        return self.mlm.pseudo_log_likelihood(texts)
