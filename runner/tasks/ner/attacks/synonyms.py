"""Synonyms for the entity-context attack and the similarities that filter them.

Breaking BERT (§3.1.2, steps 2–3) takes up to 50 neighbours of a word in counter-fitted
Paragram-SL999 vectors with word similarity ≥ 0.5, keeps those with the word's POS tag, and drops
sentences whose Universal Sentence Encoder similarity to the original is below a threshold.
Offline here: candidates come from the suite's source (WordNet 3.0 by default; a masked LM,
spaCy static vectors, or a counter-fitted vectors file when the suite names one), the word and
sentence similarities from the embedded MiniLM encoder (USE is not available offline), and the
POS check re-tags the candidate sentence with spaCy (Penn tags) instead of NLTK.

Word similarity is MiniLM's cosine between the word in its sentence and the candidate in the
same sentence (``word_similarity: context``, TIN's eq. 1 embedding) or between the two words
encoded alone (``word``); bench/attack_word_similarity.py measured both against hand judgements
and the default is the better one (README).
"""
from __future__ import annotations

from typing import Any, Sequence

from runner.text.candidates import match_case

WORD_SIMILARITY = ("context", "word")


class Similarity:
    """Sentence and word similarity from one encoder, every call batched."""

    def __init__(self, encoder: Any, word_mode: str = "context") -> None:
        if word_mode not in WORD_SIMILARITY:
            raise ValueError(f"word_similarity must be one of {', '.join(WORD_SIMILARITY)}")
        self.encoder = encoder
        self.word_mode = word_mode
        self._sentence_cache: dict[str, Any] = {}

    def describe(self) -> dict[str, Any]:
        return self.encoder.describe()

    def _sentence_vectors(self, texts: Sequence[str]) -> list[Any]:
        todo = [t for t in dict.fromkeys(texts) if t not in self._sentence_cache]
        if todo:
            vecs = self.encoder.embed_spans([(t, 0, len(t)) for t in todo])
            for t, v in zip(todo, vecs):
                self._sentence_cache[t] = v
            if len(self._sentence_cache) > 50_000:
                self._sentence_cache.clear()
                for t, v in zip(todo, vecs):
                    self._sentence_cache[t] = v
        return [self._sentence_cache[t] for t in texts]

    def sentences(self, original: str, texts: Sequence[str]) -> list[float]:
        """Cosine of each text's sentence embedding (mean of the encoder's last hidden states)
        with the original's."""
        import numpy as np

        from runner.models.encoder import cosine

        if not texts:
            return []
        vecs = self._sentence_vectors([original, *texts])
        sims = cosine(np.stack(vecs[1:]), np.stack([vecs[0]] * len(texts)))
        return [float(x) if x == x else 0.0 for x in sims]

    def words(self, pairs: Sequence[tuple[str, int, int, str]]) -> list[float]:
        """(sentence, start, end, candidate) → similarity of the word at [start, end) and the
        candidate put in its place."""
        if not pairs:
            return []
        if self.word_mode == "word":
            orig = [(t[s:e], 0, e - s) for t, s, e, _ in pairs]
            new = [(c, 0, len(c)) for *_, c in pairs]
        else:
            orig = [(t, s, e) for t, s, e, _ in pairs]
            new = [(t[:s] + c + t[e:], s, s + len(c)) for t, s, e, c in pairs]
        sims = self.encoder.span_similarity(list(zip(orig, new)))
        return [x if x == x else 0.0 for x in sims]


class SynonymFinder:
    """Up to ``max_candidates`` replacements per word of a parsed sentence, kept when their word
    similarity reaches ``min_word_similarity`` and the re-tagged sentence gives them the word's
    Penn tag. One candidate call, one encoder batch and one ``nlp.pipe`` per sentence."""

    def __init__(self, source: Any, similarity: Similarity, tagger: Any, *,
                 max_candidates: int = 50, min_word_similarity: float = 0.5) -> None:
        self.source = source
        self.similarity = similarity
        self.tagger = tagger
        self.max_candidates = max_candidates
        self.min_word_similarity = min_word_similarity
        self._disable = [p for p in ("parser", "ner", "lemmatizer", "senter")
                         if p in tagger.pipe_names]

    def find(self, doc: Any, tokens: Sequence[int]) -> dict[int, list[tuple[str, float]]]:
        """token index → [(replacement, word similarity)], most similar first."""
        if not tokens:
            return {}
        ranked = self.source.candidates(doc, list(tokens), self.max_candidates)
        text = doc.text
        proposals: list[tuple[int, str]] = []
        for i, cands in zip(tokens, ranked):
            tok = doc[i]
            seen = {tok.text.lower()}
            for word, _ in cands:
                new = match_case(word, tok.text)
                if not new.isalpha() or new.lower() in seen:
                    continue
                seen.add(new.lower())
                proposals.append((i, new))
        if not proposals:
            return {}
        sims = self.similarity.words([(text, doc[i].idx, doc[i].idx + len(doc[i].text), new)
                                      for i, new in proposals])
        kept = [(i, new, s) for (i, new), s in zip(proposals, sims)
                if s >= self.min_word_similarity]
        texts = [text[:doc[i].idx] + new + text[doc[i].idx + len(doc[i].text):]
                 for i, new, _ in kept]
        out: dict[int, list[tuple[str, float]]] = {}
        for (i, new, s), new_doc in zip(kept, self.tagger.pipe(texts, disable=self._disable)):
            tok = doc[i]
            span = new_doc.char_span(tok.idx, tok.idx + len(new))
            if span is None or len(span) != 1 or span[0].tag_ != tok.tag_:
                continue
            out.setdefault(i, []).append((new, float(s)))
        for i in out:
            out[i].sort(key=lambda x: -x[1])
        return out
