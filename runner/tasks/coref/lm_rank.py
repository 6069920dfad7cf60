"""What CREST's candidates must pass besides the two syntactic checks: a language model's ranking
in context (:class:`LMRanker`), the gender rule (:class:`GenderRule`) and the replacement's
similarity in context (:class:`ContextSimilarity`).

*Ranking.* WordNet lists every sense of a word, and a synonym of a sense the sentence does not
mean, or a rare one, reads as another word ("towards the end" → "towards the finis"). Each
candidate is scored in its context by a causal LM (the language-model layer's ``rescore``):
log P(w′) − log P(w) over a window — the sentence up to the replaced word, the word and the next
``right_words`` words — i.e. the change in the window's log-probability (natural log; the words
before the edit cancel out, so it is the drop over the edit and the words right after it). A
word's candidates are ranked by that score; the best ``per_token`` with a score of at least
``min_score`` go on to the syntactic checks, the others are dropped. Before that, a cheap cut:
one pass over the left context gives each candidate's first token's log-probability, and a
candidate whose first token is more than ``min_score − first_slack`` below the original's is
dropped without a window pass (on hand-judged pairs every follow-up scored ≥ −4 had its first
token within 4.5 nats).

*Gender.* Replacing a noun by one of another gender ("her mother" → "her father", "the
actress" → "the actor") lets a pronoun of the other gender refer to it, so the coreference may
legitimately change. A candidate is refused when the word's gender and its replacement's differ
and the passage has a third-person pronoun with a gender (he, him, his, himself, she, …). A
noun's gender is read from WordNet: its person senses whose hypernyms reach "male person" or
"female person", or whose definition's first gendered word is one (mother: "a woman who has
given birth"; brother: "a male with the same parents") — the senses seen in its tagged corpus
only (else the first), named people left out; adjectives from a short list.

*Similarity in context.* A synonym of a sense the passage does not mean reads as another word
("the question in this case" → "example" in a court argument, "a contributing core" → "kernel").
A text encoder's states for a word depend on its sentence: the cosine of the replaced word's
vector in the source sentence (mean of its sub-tokens' last states) and the new word's in the
follow-up's sentence is high for a replacement that reads as the same thing there and low for
one of another sense (the check of lexical-substitution work, e.g. Zhou et al. 2019, "BERT-based
Lexical Substitution"). Candidates below ``min_similarity`` are dropped.
"""
from __future__ import annotations

import functools
import re
from typing import Any, Sequence

GENDERED_PRONOUNS = frozenset({"he", "him", "his", "himself", "she", "her", "hers", "herself"})
_GLOSS_WORD = re.compile(r"[a-z]+")
_MALE = frozenset({"male", "man", "men", "boy", "boys", "brother", "son", "father", "husband",
                   "king", "gentleman", "nobleman", "prince", "monk", "masculine"})
_FEMALE = frozenset({"female", "woman", "women", "girl", "girls", "sister", "daughter", "mother",
                     "wife", "queen", "lady", "noblewoman", "princess", "nun", "feminine"})
_ADJECTIVES = {"male": "m", "masculine": "m", "manly": "m", "paternal": "m", "fatherly": "m",
               "boyish": "m", "female": "f", "feminine": "f", "womanly": "f", "maternal": "f",
               "motherly": "f", "girlish": "f"}


class GenderRule:
    """Refuses a replacement that changes a word's gender where a gendered pronoun could then
    refer to it (see the module's documentation)."""

    def __init__(self, wn: Any) -> None:
        self.wn = wn
        person = wn.synset("person.n.01")
        self._person = person
        self._male = {wn.synset("male.n.02"), wn.synset("man.n.01")}
        self._female = {wn.synset("female.n.02"), wn.synset("woman.n.01")}

    @staticmethod
    def applies(doc: Any) -> bool:
        """The passage has a third-person pronoun with a gender."""
        return any(t.lower_ in GENDERED_PRONOUNS for t in doc)

    @functools.lru_cache(maxsize=20000)
    def gender(self, word: str, pos: str = "NOUN") -> frozenset[str]:
        """``{"m"}``, ``{"f"}``, both (a word with senses of either) or none."""
        word = word.lower()
        if pos == "ADJ":
            return frozenset(_ADJECTIVES.get(word, ""))
        if pos != "NOUN":
            return frozenset()
        lemma = self.wn.morphy(word, "n") or word
        out: set[str] = set()
        synsets = self.wn.synsets(lemma, "n")
        # the senses seen in WordNet's tagged corpus (else the first): not queen as "fagot"
        seen = [syn for syn in synsets
                if any(lem.name().lower() == lemma and lem.count() for lem in syn.lemmas())]
        for syn in seen or synsets[:1]:
            if syn.instance_hypernyms():        # a named person (King: Billie Jean King)
                continue
            above = set(syn.closure(lambda s: s.hypernyms()))
            if self._person not in above and syn != self._person:
                continue
            if above & self._male or syn in self._male:
                out.add("m")
            if above & self._female or syn in self._female:
                out.add("f")
            for w in _GLOSS_WORD.findall(syn.definition().split(";")[0].lower()):
                if w in _MALE or w in _FEMALE:
                    out.add("m" if w in _MALE else "f")
                    break
        return frozenset(out)

    def refuses(self, doc: Any, token: int, new: str) -> bool:
        """Whether replacing ``doc[token]`` by ``new`` changes the word's gender (call only where
        :meth:`applies`)."""
        tok = doc[token]
        return self.gender(tok.text, tok.pos_) != self.gender(new, tok.pos_)


class LMRanker:
    """A causal LM's ranking of a word's candidates in context (see the module's
    documentation). ``lm``: the language-model layer (:func:`runner.models.get_lm`)."""

    def __init__(self, lm: Any, *, name: str = "", min_score: float = -4.0, per_token: int = 2,
                 left_words: int = 10, right_words: int = 3,
                 first_slack: float | None = 3.0, proposed: int | None = None) -> None:
        self.lm = lm
        self.name = name or getattr(lm, "name", "lm")
        self.min_score = min_score
        self.per_token = per_token
        self.left_words = left_words
        self.right_words = right_words
        self.first_slack = first_slack
        self.proposed = proposed

    def describe(self) -> dict[str, Any]:
        return {**self.lm.describe(), "role": "candidate ranking", "min_score": self.min_score,
                "per_token": self.per_token, "left_words": self.left_words,
                "right_words": self.right_words, "first_slack": self.first_slack,
                **({"proposed": self.proposed} if self.proposed else {})}

    def among_proposed(self, doc: Any, by_token: dict[int, list[Any]]) -> dict[int, list[Any]]:
        """With ``proposed`` N: the candidates the LM itself proposes for the slot, among its N
        likeliest words after the left context (one-token words; one pass per window): a
        WordNet synonym the LM would not write there — another sense, another register ("then a
        minor" → "kid"), an odd collocation ("prompting them to wed" → "inciting") — is
        dropped before any window is scored."""
        if not self.proposed or not by_token:
            return by_token
        tokens = list(by_token)
        tops = self.lm.propose_left([self.window(doc, i) for i in tokens], self.proposed)
        out = {}
        for i, top in zip(tokens, tops):
            proposed = {w.lower() for w, _ in top}
            out[i] = [c for c in by_token[i] if c.new.lower() in proposed]
        return out

    def window(self, doc: Any, token: int) -> tuple[str, int, int]:
        """``(text, start, end)``: the token's sentence from ``left_words`` words before it to
        ``right_words`` words after it, and the token's place in that text."""
        tok = doc[token]
        sent = tok.sent
        after = [t for t in doc[token + 1:sent.end] if not t.is_punct and not t.is_space]
        last = (tok if self.right_words == 0 else after[self.right_words - 1]
                if len(after) >= self.right_words else doc[sent.end - 1])
        before = [t for t in doc[sent.start:token] if not t.is_punct and not t.is_space]
        first = (before[-self.left_words] if len(before) > self.left_words else doc[sent.start])
        begin, stop = first.idx, last.idx + len(last.text)
        return doc.text[begin:stop], tok.idx - begin, tok.idx + len(tok.text) - begin

    def score(self, doc: Any, tokens: Sequence[int],
              words: Sequence[Sequence[str]]) -> list[dict[str, float]]:
        """Per token, each word's score (log-probability change of the window), one LM call."""
        ranked = self.lm.rescore([self.window(doc, i) for i in tokens], words)
        return [{w.lower(): s for w, s in r} for r in ranked]

    def shortlist(self, doc: Any, by_token: dict[int, list[Any]]) -> dict[int, list[Any]]:
        """The candidates worth a window pass: those whose first token, after the left context,
        is at most ``min_score − first_slack`` less likely than the original's (one pass per
        word, none per candidate; an LM without ``first_token_scores`` keeps them all)."""
        if not hasattr(self.lm, "first_token_scores") or self.first_slack is None:
            return by_token
        tokens = list(by_token)
        firsts = self.lm.first_token_scores([self.window(doc, i) for i in tokens],
                                            [[c.new for c in by_token[i]] for i in tokens])
        cut = self.min_score - self.first_slack
        return {i: [c for c in by_token[i] if f.get(c.new, 0.0) >= cut]
                for i, f in zip(tokens, firsts)}

    def select(self, doc: Any, by_token: dict[int, list[Any]]) -> tuple[list[Any], int]:
        """The candidates kept (per token best first, at most ``per_token``, score ≥
        ``min_score``; each scored one gets ``lm_score``) in token order, and how many were
        dropped."""
        short = {i: cs for i, cs in self.shortlist(
            doc, self.among_proposed(doc, by_token)).items() if cs}
        tokens = list(short)
        scores = self.score(doc, tokens, [[c.new for c in short[i]] for i in tokens])
        kept: list[Any] = []
        dropped = sum(len(cs) for cs in by_token.values()) - sum(len(cs) for cs in short.values())
        for i, got in zip(tokens, scores):
            cands = short[i]
            for c in cands:
                c.lm_score = got.get(c.new.lower(), float("-inf"))
            best = sorted(cands, key=lambda c: -c.lm_score)
            ok = [c for c in best if c.lm_score >= self.min_score][:self.per_token]
            kept += ok
            dropped += len(cands) - len(ok)
        return kept, dropped


class ContextSimilarity:
    """Drops a candidate whose vector in its follow-up's sentence is far from the replaced word's
    in the source's (see the module's documentation). ``encoder``: a text encoder
    (:func:`runner.models.get_encoder`)."""

    def __init__(self, encoder: Any, *, name: str = "", min_similarity: float = 0.5) -> None:
        self.encoder = encoder
        self.name = name or encoder.describe().get("name", "encoder")
        self.min_similarity = min_similarity

    def describe(self) -> dict[str, Any]:
        return {**self.encoder.describe(), "role": "similarity in context",
                "min_similarity": self.min_similarity}

    @staticmethod
    def pair(doc: Any, c: Any) -> tuple[tuple[str, int, int], tuple[str, int, int]]:
        """(the source sentence with the word's span, the follow-up's sentence with the new
        word's span)."""
        sent = doc[c.token].sent
        text, at = sent.text, c.start - sent.start_char
        new = text[:at] + c.new + text[at + len(c.original):]
        return (text, at, at + len(c.original)), (new, at, at + len(c.new))

    def keep(self, doc: Any, candidates: Sequence[Any]) -> tuple[list[Any], int]:
        """The candidates at or above ``min_similarity`` (each gets ``similarity``; one that
        cannot be embedded, past the encoder's length, is dropped), and how many were not."""
        if not candidates:
            return [], 0
        sims = self.encoder.span_similarity([self.pair(doc, c) for c in candidates])
        kept = []
        for c, sim in zip(candidates, sims):
            c.similarity = sim
            if sim >= self.min_similarity:        # NaN (no vector) compares False
                kept.append(c)
        return kept, len(candidates) - len(kept)
