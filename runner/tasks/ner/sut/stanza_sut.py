"""stanza NER pipelines as the system under test, loaded from a local model folder (no download).

``model_dir`` is a stanza resources folder (``resources.json`` plus ``LANG/...`` models) such as
``stanza.download('en', model_dir=DIR, processors='tokenize,ner')`` writes where there is network;
``ner_model``/``ner_pretrain`` point at a NER model and its word vectors directly (e.g. one trained
with ``python -m stanza.models.ner_tagger``); ``tokenizer: spacy`` tokenizes with spaCy instead of a
stanza tokenizer model. Entity offsets are Python character offsets.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Sequence

from runner.errors import ModelNotAvailable
from runner.tasks.ner.sut.base import NERSystem, RawSpan


class StanzaNER(NERSystem):
    name = "stanza"

    def __init__(self, *, lang: str = "en", model_dir: str | None = None,
                 package: str | None = None, ner_model: str | None = None,
                 ner_pretrain: str | None = None, tokenizer: str = "stanza", device: str = "cpu",
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        from runner.models.stanza_pipeline import load_stanza

        for label, path in (("ner_model", ner_model), ("ner_pretrain", ner_pretrain)):
            if path and not Path(path).is_file():
                raise ModelNotAvailable(f"stanza: sut.{label} {path} is not a file")
        self.lang, self.package, self.tokenizer = lang, package, tokenizer
        self.ner_model, self.ner_pretrain = ner_model, ner_pretrain
        processors: dict[str, str] = {"tokenize": "spacy" if tokenizer == "spacy"
                                      else (package or "default"), "ner": package or "default"}
        options: dict[str, Any] = {}
        if ner_model:
            options["ner_model_path"] = ner_model
            # a model given by path brings no character language model along
            options["ner_charlm_forward_file"] = options["ner_charlm_backward_file"] = None
        if ner_pretrain:
            options["ner_pretrain_path"] = ner_pretrain
        self.device = device
        self.nlp, self.model_dir, self.version = load_stanza(
            lang=lang, model_dir=model_dir, processors=processors, what="NER pipeline",
            setting="sut.model_dir", device=device, **options)

    def describe(self) -> dict[str, Any]:
        d: dict[str, Any] = {"backend": "stanza", "version": self.version, "lang": self.lang,
                             "package": self.package, "tokenizer": self.tokenizer,
                             "model": str(self.ner_model or self.model_dir)}
        if self.ner_model:  # the file's content, so a retrained model is not mistaken for it
            d["model_sha256"] = _sha256(self.ner_model)
        return d

    def _predict_raw(self, texts: Sequence[str]) -> list[list[RawSpan]]:
        docs = self.nlp.bulk_process(list(texts))
        return [[(e.start_char, e.end_char, e.type, None) for e in doc.ents] for doc in docs]


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]
