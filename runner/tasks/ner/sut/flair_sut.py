"""flair sequence taggers as the system under test: ``SequenceTagger.load`` by name
(``flair/ner-english`` = Flair-CoNLL, ``flair/ner-english-ontonotes`` = Flair-OntoNotes; the hub needs
network, or flair's cache folder ``FLAIR_CACHE_ROOT`` holding the model) or a saved ``.pt`` file.
Sentences are tokenized by flair (segtok); span offsets are Python character offsets.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Sequence

from runner.errors import ModelNotAvailable
from runner.tasks.ner.sut.base import NERSystem, RawSpan


class FlairNER(NERSystem):
    name = "flair"
    # Every entity carries its label's score: attacks rank words by it (importance span_scores).
    gives_span_scores = True

    def __init__(self, *, model: str, device: str = "cpu", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        try:
            import flair
            from flair.models import SequenceTagger
        except ImportError as exc:
            raise ModelNotAvailable(
                f"the flair system under test needs flair ({exc}): pip install -e \".[flair]\" "
                "(flair 0.15 requires transformers<5: install it in an environment of its "
                "own)") from None
        import torch

        flair.device = torch.device(device)
        try:
            self.tagger = SequenceTagger.load(model)
        except Exception as exc:  # noqa: BLE001 — hub errors, missing files, bad pickles
            raise ModelNotAvailable(
                f"flair cannot load the tagger {model!r}: {type(exc).__name__}: {exc}\n"
                "  hint: model hubs need network; otherwise point `model` at a tagger saved with "
                "`tagger.save('x.pt')`") from None
        self.model = model
        self.device = device
        self.version = flair.__version__
        self.tag_type = self.tagger.tag_type

    def describe(self) -> dict[str, Any]:
        d = {"backend": "flair", "version": self.version, "model": self.model,
             "tag_type": self.tag_type}
        if Path(self.model).is_file():
            digest = hashlib.sha256(Path(self.model).read_bytes()).hexdigest()[:16]
            d["model_sha256"] = digest
        return d

    def _predict_raw(self, texts: Sequence[str]) -> list[list[RawSpan]]:
        from flair.data import Sentence

        sentences = [Sentence(t) for t in texts]
        self.tagger.predict(sentences, mini_batch_size=self.batch_size)
        out = []
        for s in sentences:
            spans = []
            for span in s.get_spans(self.tag_type):
                label = span.get_label(self.tag_type)
                spans.append((span.start_position, span.end_position, label.value, label.score))
            out.append(spans)
        return out
