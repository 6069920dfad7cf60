"""A masked language model with batched top-K fill-in and pseudo-log-likelihood.

Every method takes many inputs and runs them in as few forward passes as possible: inputs are
sorted by length, cut into chunks of ``batch_size``, padded with an attention mask, and results
are put back in the caller's order. ``forward_passes`` counts the passes (the benchmark reports
it per source).
"""
from __future__ import annotations

from typing import Any, Sequence, Union

from runner.models.loading import LoadedModel, map_chunks, pad_arrays, pad_batch
from runner.models.runtime import OnnxModel

# One masked input: a text containing the mask token exactly once, or (words, index) meaning
# "these words, with words[index] masked".
MaskedInput = Union[str, tuple[Sequence[str], int]]
Candidate = tuple[str, float, bool]      # (token text, raw logit, is a sub-word piece)


def _order_by_length(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    return [order[i:i + batch_size] for i in range(0, len(order), batch_size)]


class MaskedLM(LoadedModel):
    role = "masked_lm"

    def __init__(self, tokenizer: Any, model: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, model, **kwargs)
        if tokenizer.mask_token is None:
            raise ValueError(f"model '{self.name}' has no mask token")
        self.mask_token: str = tokenizer.mask_token
        self.mask_token_id: int = tokenizer.mask_token_id
        vocab = tokenizer.get_vocab()
        # Sub-word convention of the vocabulary: WordPiece marks continuations with "##";
        # byte-level BPE (GPT-2/RoBERTa) and SentencePiece mark word *starts* ("Ġ", "▁").
        if any(t.startswith("##") for t in vocab):
            self.scheme = "wordpiece"
        elif any(t.startswith("\u0120") for t in vocab):
            self.scheme = "bpe"
        elif any(t.startswith("\u2581") for t in vocab):
            self.scheme = "sentencepiece"
        else:
            self.scheme = "word"
        self.special_ids = sorted(set(tokenizer.all_special_ids))
        head = getattr(model, "cls", None) or getattr(model, "lm_head", None)
        base = getattr(model, "base_model", None)
        self._head = head if head is not None and base is not None and base is not model else None
        # Lower-cased vocabularies (uncased BERT) lose the case; callers restore it.
        self.lowercase = bool(getattr(tokenizer, "do_lower_case", False)
                              or tokenizer.init_kwargs.get("do_lower_case", False))

    # -- vocabulary helpers ----------------------------------------------------------------
    def is_subword(self, token: str) -> bool:
        """A piece that continues a word (cannot stand as a word after a space)."""
        if self.scheme == "wordpiece":
            return token.startswith("##")
        if self.scheme == "bpe":
            return not token.startswith("\u0120")
        if self.scheme == "sentencepiece":
            return not token.startswith("\u2581")
        return False

    def clean(self, token: str) -> str:
        if self.scheme == "wordpiece":
            return token[2:] if token.startswith("##") else token
        if self.scheme in ("bpe", "sentencepiece"):
            return token.lstrip("\u0120\u2581")
        return token

    def word_pieces(self, word: str) -> list[str]:
        return self.tokenizer.tokenize(word)

    # -- batching --------------------------------------------------------------------------
    def _encode(self, items: Sequence[MaskedInput]) -> list[list[int]]:
        out = []
        for item in items:
            if isinstance(item, str):
                ids = self.tokenizer(item, truncation=True, max_length=self.max_length)["input_ids"]
            else:
                words, index = item
                words = list(words)
                words[index] = self.mask_token
                ids = self.tokenizer(words, is_split_into_words=True, truncation=True,
                                     max_length=self.max_length)["input_ids"]
            out.append(ids)
        return out

    def _forward(self, rows: list[list[int]], positions: list[int]) -> Any:
        """One forward pass over ``rows`` (token id lists); returns the logits at one position
        per row, shape (batch, vocab). Where the model has a separate LM head (BERT's ``cls``,
        RoBERTa's ``lm_head``) only those positions go through it: the vocabulary projection is
        most of a small model's cost, and the other positions' logits are never used."""
        import torch

        ids, att = pad_batch(rows, self.tokenizer.pad_token_id, self.device)
        index = (torch.arange(len(rows), device=self.device),
                 torch.tensor(positions, device=self.device))
        with torch.inference_mode():
            if self._head is not None:
                hidden = self.model.base_model(input_ids=ids, attention_mask=att)[0]
                logits = self._head(hidden[index])
            else:
                logits = self.model(input_ids=ids, attention_mask=att).logits[index]
        self.count_pass()
        return logits

    def _banned(self, vocab_size: int, include_subwords: bool, device: Any) -> Any:
        """Vocabulary mask of what is never proposed (special tokens; pieces when asked),
        built once per setting."""
        import torch

        key = (vocab_size, include_subwords, str(device))
        cache = self.__dict__.setdefault("_banned_cache", {})
        if key not in cache:
            banned = torch.zeros(vocab_size, dtype=torch.bool)
            banned[[i for i in self.special_ids if i < vocab_size]] = True
            if not include_subwords:
                for tok, i in self.tokenizer.get_vocab().items():
                    if i < vocab_size and self.is_subword(tok):
                        banned[i] = True
            cache[key] = banned.to(device)
        return cache[key]

    def _mask_positions(self, encoded: Sequence[Sequence[int]]) -> list[int]:
        """Where the one mask token of each encoded input is."""
        out = []
        for n, ids in enumerate(encoded):
            where = [i for i, t in enumerate(ids) if t == self.mask_token_id]
            if len(where) != 1:
                raise ValueError(f"input {n} must contain the mask token {self.mask_token!r} "
                                 f"exactly once (found {len(where)}; truncated or not masked?)")
            out.append(where[0])
        return out

    # -- public API ------------------------------------------------------------------------
    def top_k(self, items: Sequence[MaskedInput], k: int, *,
              include_subwords: bool = True) -> list[list[Candidate]]:
        """For each input (one mask each), the ``k`` best tokens for the mask as
        ``(token, raw logit, is_subword)``, best first. Special tokens are never proposed;
        ``include_subwords=False`` leaves continuation pieces out before taking the top ``k``."""
        encoded = self._encode(items)
        mask_pos = self._mask_positions(encoded)
        results: list[list[Candidate]] = [[] for _ in items]
        for chunk in _order_by_length([len(e) for e in encoded], self.batch_size):
            rows = self._forward([encoded[i] for i in chunk], [mask_pos[i] for i in chunk])
            vocab_size = rows.shape[-1]
            banned = self._banned(vocab_size, include_subwords, rows.device)
            rows = rows.float().masked_fill(banned, float("-inf"))
            values, indices = rows.topk(min(k, vocab_size), dim=-1)
            for j, n in enumerate(chunk):
                toks = self.tokenizer.convert_ids_to_tokens(indices[j].tolist())
                results[n] = [(self.clean(t), float(v), self.is_subword(t))
                              for t, v in zip(toks, values[j].tolist()) if v != float("-inf")]
        return results

    def top_k_probabilities(self, items: Sequence[MaskedInput], k: int, *, min_probability: float = 0.0,
                            include_subwords: bool = False) -> list[list[tuple[str, float]]]:
        """Like :meth:`top_k`, but each candidate with its probability (softmax over the whole
        vocabulary, special tokens included in the normaliser), keeping those ≥
        ``min_probability``. CREST keeps masked-LM predictions of probability ≥ 0.1."""
        import torch

        encoded = self._encode(items)
        mask_pos = self._mask_positions(encoded)
        results: list[list[tuple[str, float]]] = [[] for _ in items]
        for chunk in _order_by_length([len(e) for e in encoded], self.batch_size):
            logits = self._forward([encoded[i] for i in chunk], [mask_pos[i] for i in chunk])
            probs = torch.softmax(logits.float(), dim=-1)
            banned = self._banned(probs.shape[-1], include_subwords, probs.device)
            probs = probs.masked_fill(banned, 0.0)
            values, indices = probs.topk(min(k, probs.shape[-1]), dim=-1)
            for j, n in enumerate(chunk):
                toks = self.tokenizer.convert_ids_to_tokens(indices[j].tolist())
                results[n] = [(self.clean(t), float(v)) for t, v in zip(toks, values[j].tolist())
                              if v >= min_probability and v > 0.0]
        return results

    def pseudo_log_likelihood(self, texts: Sequence[str]) -> list[float]:
        """Mean log-probability of each text's tokens, each predicted with only itself masked
        (Salazar et al. 2020). All masked copies of all texts go through the model together, in
        chunks of ``batch_size``: one pass per chunk, not one per token."""
        return _pseudo_log_likelihood(self, texts)

    def _encode_texts(self, texts: Sequence[str]) -> list[list[int]]:
        return [self.tokenizer(t, truncation=True, max_length=self.max_length)["input_ids"]
                for t in texts]

    def _log_probs(self, rows: list[list[int]], positions: list[int], gold: list[int]) -> list[float]:
        """log p(gold token) at one masked position per row (one pass)."""
        import torch

        logits = self._forward(rows, positions)
        gold_ids = torch.tensor(gold, device=logits.device)
        logp = logits.float().log_softmax(-1)
        return logp.gather(1, gold_ids[:, None])[:, 0].tolist()

    def _map(self, fn: Any, chunks: list[list[int]]) -> list[Any]:
        return map_chunks(fn, chunks, self.device)


def _pseudo_log_likelihood(model: Any, texts: Sequence[str]) -> list[float]:
    """:meth:`MaskedLM.pseudo_log_likelihood` for any runtime providing ``_encode_texts``,
    ``_log_probs``, ``_map``, ``special_ids``, ``mask_token_id`` and ``batch_size``."""
    encoded = model._encode_texts(texts)
    special = set(model.special_ids)
    variants: list[tuple[int, int, int]] = []   # (text index, position, original id)
    for n, ids in enumerate(encoded):
        variants += [(n, p, t) for p, t in enumerate(ids) if t not in special]
    totals = [0.0] * len(texts)
    counts = [0] * len(texts)
    lengths = [len(encoded[n]) for n, _, _ in variants]

    def score(chunk: list[int]) -> list[float]:
        rows = []
        for v in chunk:
            n, p, _ = variants[v]
            r = list(encoded[n])
            r[p] = model.mask_token_id
            rows.append(r)
        return model._log_probs(rows, [variants[v][1] for v in chunk],
                                [variants[v][2] for v in chunk])

    chunks = _order_by_length(lengths, model.batch_size)
    for chunk, picked in zip(chunks, model._map(score, chunks)):
        for v, lp in zip(chunk, picked):
            totals[variants[v][0]] += lp
            counts[variants[v][0]] += 1
    return [t / c if c else 0.0 for t, c in zip(totals, counts)]


class OnnxMaskedLM(OnnxModel):
    """A masked LM's pseudo-log-likelihood with its passes in ONNX Runtime, from a checked copy
    of the model and its LM head (:mod:`runner.models.runtime`): the same masked copies,
    batches and padding as :meth:`MaskedLM.pseudo_log_likelihood` (the only use it serves)."""

    role = "masked_lm"

    def __init__(self, copy: Any, **kwargs: Any) -> None:
        super().__init__(copy, **kwargs)
        self.mask_token_id = copy.meta["mask_token_id"]
        self.special_ids = list(copy.meta["special_ids"])

    def pseudo_log_likelihood(self, texts: Sequence[str]) -> list[float]:
        return _pseudo_log_likelihood(self, texts)

    def _encode_texts(self, texts: Sequence[str]) -> list[list[int]]:
        return self._tokens.encode(texts)[0]

    def _log_probs(self, rows: list[list[int]], positions: list[int], gold: list[int]) -> list[float]:
        import numpy as np

        ids, att = pad_arrays(rows, self._pad)
        logits = self.copy.run(input_ids=ids, attention_mask=att,
                               positions=np.asarray(positions, dtype=np.int64))
        self.count_pass()
        top = logits.max(-1, keepdims=True)
        shifted = logits - top
        logz = np.log(np.exp(shifted).sum(-1))
        return (shifted[np.arange(len(rows)), gold] - logz).tolist()
