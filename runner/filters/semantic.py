"""`semantic` filter (TIN §3.3.1, eq. 1): the contextual embedding of the replaced word or phrase
in the source and of its replacement in the follow-up must have cosine ≥ ``SThreshold``.

The embedding is the mean of the encoder's last hidden states over the sub-tokens covering the
span (:meth:`runner.models.encoder.TextEncoder.embed_spans`). The paper's encoder is BERT; any
Hugging Face encoder or folder can be named. All the follow-ups of a batch are embedded together.
"""
from __future__ import annotations

from typing import Any, Sequence

from runner.filters.base import Filter
from runner.types import FollowUp


def replaced_ranges(follow_up: FollowUp) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(source range, follow-up range) of every replacement that changed text and has characters
    on both sides (an insertion or a deletion has no counterpart to compare)."""
    return follow_up.edit.replaced_pairs()


class SemanticFilter(Filter):
    name = "semantic"
    # Scores with its own encoder only: may run on another thread while the engine uses spaCy.
    thread_safe = True
    # The paper applies it to the token- and phrase-level replacements only.
    default_applies_to = ("token_mlm", "phrase_np")

    def __init__(self, *, SThreshold: float = 0.65, encoder: str = "bert-base-cased",
                 applies_to: Sequence[str] | None = None, batch_size: int = 32,
                 fp16: bool = False, device: str = "auto", encoder_obj: Any = None) -> None:
        super().__init__(applies_to=applies_to, SThreshold=SThreshold, encoder=encoder,
                         batch_size=batch_size, fp16=fp16)
        self.threshold = SThreshold
        if encoder_obj is None:
            from runner.models import get_encoder

            encoder_obj = get_encoder(encoder, device=device, fp16=fp16, batch_size=batch_size)
        self.encoder = encoder_obj

    def models(self) -> list[dict[str, Any]]:
        return [self.encoder.describe()]

    def scores(self, pairs: Sequence[tuple[str, FollowUp]]) -> list[float | None]:
        spans, owners = [], []
        for n, (source, follow_up) in enumerate(pairs):
            for (a, b), (c, d) in replaced_ranges(follow_up):
                spans.append(((source, a, b), (follow_up.text, c, d)))
                owners.append(n)
        sims = self.encoder.span_similarity(spans)
        out: list[float | None] = [None] * len(pairs)
        for n, s in zip(owners, sims):
            if s != s:      # NaN: a span beyond the encoder's max_length; cannot judge
                continue
            # Several replacements in one follow-up: the least similar one decides.
            out[n] = s if out[n] is None else min(out[n], s)
        return out

    def keep(self, score: float | None, transformation: str) -> bool:
        return score is None or score >= self.threshold
