"""Contextual embeddings of character spans (TIN's BERT_Embedding, eq. 1).

The embedding of a word or phrase in its sentence is the mean of the encoder's last hidden
states over the sub-tokens that cover its characters, found with the fast tokenizer's offset
mapping. Spans are embedded in batches (sorted by length, padded, attention-masked).
"""
from __future__ import annotations

from typing import Any, Sequence

from runner.models.loading import LoadedModel, map_chunks, pad_arrays, pad_batch
from runner.models.mlm import _order_by_length
from runner.models.runtime import OnnxModel

SpanInput = tuple[str, int, int]     # (text, char_start, char_end)


def cosine(a: Any, b: Any) -> Any:
    """Row-wise cosine similarity of two (n, d) arrays (or two vectors) → (n,) array / float."""
    import numpy as np

    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    num = (a * b).sum(-1)
    den = np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _bucket(length: int, max_length: int) -> int:
    """The padded width of a row of ``length`` tokens in a fixed-shape pass."""
    width = 8
    while width < length:
        width *= 2
    return max(length, min(width, max_length))


class TextEncoder(LoadedModel):
    role = "encoder"

    def embed_spans(self, spans: Sequence[SpanInput], *, batch_size: int | None = None,
                    fixed_shapes: bool = False) -> Any:
        """``(n, hidden)`` float32 numpy array; a row is NaN when no sub-token covers the span
        (empty span, or the span lies past ``max_length`` tokens). The same text is encoded
        once however many of its spans are asked for. ``batch_size`` overrides the model's.

        ``fixed_shapes``: each text's vector does not depend on what else is asked with it.
        Batch shapes move the last bits of a vector (the matrix products block differently),
        so texts are padded to a length bucket (a power of two, at least 8) and passed in
        chunks of exactly ``batch_size`` rows (a short chunk is filled with copies of its first
        row): every pass of a bucket has one shape, and a row's arithmetic is the same whatever
        else shares its pass."""
        import numpy as np

        texts = list(dict.fromkeys(t for t, _, _ in spans))
        index = {t: i for i, t in enumerate(texts)}
        input_ids, offset_mapping = self._tokenize(texts)
        out = np.full((len(spans), self.hidden_size), np.nan, dtype=np.float32)
        wanted: dict[int, list[int]] = {}
        for n, (t, _, _) in enumerate(spans):
            wanted.setdefault(index[t], []).append(n)
        size = batch_size or self.batch_size
        lengths = [len(x) for x in input_ids]

        def forward(chunk: list[int]) -> Any:
            rows = [input_ids[i] for i in chunk]
            width = None
            if fixed_shapes:
                rows += [rows[0]] * (size - len(rows))
                width = _bucket(max(len(r) for r in rows), self.max_length)
            return self._hidden(rows, width)

        if fixed_shapes:
            buckets: dict[int, list[int]] = {}
            for i, n in enumerate(lengths):
                buckets.setdefault(_bucket(n, self.max_length), []).append(i)
            chunks = [b[k:k + size] for _, b in sorted(buckets.items())
                      for k in range(0, len(b), size)]
        else:
            chunks = _order_by_length(lengths, size)
        for chunk, h in zip(chunks, self._map(forward, chunks)):
            self.count_pass()
            for j, i in enumerate(chunk):
                offsets = offset_mapping[i]
                for n in wanted[i]:
                    _, cs, ce = spans[n]
                    cover = [p for p, (s, e) in enumerate(offsets)
                             if e > s and s < ce and e > cs] if ce > cs else []
                    if cover:
                        out[n] = self._mean(h, j, cover)
        return out

    # -- what a runtime provides (torch here; runner.models.runtime.OnnxTextEncoder) -------
    @property
    def hidden_size(self) -> int:
        return self.model.config.hidden_size

    def _tokenize(self, texts: list[str]) -> tuple[list[list[int]], list[list[tuple[int, int]]]]:
        enc = self.tokenizer(texts, truncation=True, max_length=self.max_length,
                             return_offsets_mapping=True)
        return enc["input_ids"], enc["offset_mapping"]

    def _hidden(self, rows: list[list[int]], width: int | None) -> Any:
        """One pass: the last hidden states of ``rows`` (right-padded to ``width``)."""
        import torch

        ids, att = pad_batch(rows, self.tokenizer.pad_token_id, self.device, width=width)
        with torch.inference_mode():
            return self.model(input_ids=ids, attention_mask=att).last_hidden_state.float().cpu()

    def _map(self, fn: Any, chunks: list[list[int]]) -> list[Any]:
        return map_chunks(fn, chunks, self.device)

    @staticmethod
    def _mean(h: Any, j: int, cover: list[int]) -> Any:
        return h[j, cover].mean(0).numpy()

    def span_similarity(self, pairs: Sequence[tuple[SpanInput, SpanInput]]) -> list[float]:
        """Cosine of each (original span, replacement span) pair, all embedded in one batch."""
        if not pairs:
            return []
        vecs = self.embed_spans([p[0] for p in pairs] + [p[1] for p in pairs])
        return [float(x) for x in cosine(vecs[:len(pairs)], vecs[len(pairs):])]


class OnnxTextEncoder(OnnxModel, TextEncoder):
    """The encoder's passes in ONNX Runtime, from a checked copy of the model
    (:mod:`runner.models.runtime`): the same spans, batches and padding as on torch."""

    @property
    def hidden_size(self) -> int:
        return int(self.copy.meta["hidden_size"])

    def _tokenize(self, texts: list[str]) -> tuple[list[list[int]], list[list[tuple[int, int]]]]:
        return self._tokens.encode(texts)

    def _hidden(self, rows: list[list[int]], width: int | None) -> Any:
        ids, att = pad_arrays(rows, self._pad, width)
        return self.copy.run(input_ids=ids, attention_mask=att)

    @staticmethod
    def _mean(h: Any, j: int, cover: list[int]) -> Any:
        return h[j, cover].mean(0)
