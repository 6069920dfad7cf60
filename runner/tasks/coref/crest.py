"""CREST follow-up generation (Algorithms 1 and 3) and selection (Algorithm 2).

1. *CR-related tokens*: the tokens of every mention, plus every token linked to a mention token
   by an ``nsubj`` or ``amod`` dependency (either direction; ``nsubj:pass`` counts as ``nsubj``).
   The links are read from the Universal Dependencies analysis (:mod:`.ud`), as the paper's
   CoreNLP parse gives them: in "it is tasty" the predicate *tasty* is the head of ``nsubj``
   *it* (spaCy's own scheme would link *it* to the copula instead). The mentions are those the
   system predicted on the source, plus the gold mentions when the corpus has them (the paper's
   Algorithm 1 takes the golden coreference).
2. *Candidates* for every other content word (noun, verb, adjective, adverb; no punctuation,
   auxiliary, name or number): WordNet synonyms and antonyms of its lemma in its part of speech,
   from its common senses (or the one of them its sentence means, ``senses: context``),
   inflected to its Penn tag, and — when a masked LM is configured — the LM's predictions for the
   masked token with probability ≥ ``mlm_min_probability`` (0.1, as the paper). A candidate that
   changes a noun's gender next to a he/she pronoun is refused, and with a ranking LM a word's
   candidates are ranked in context and only its best go on (:mod:`.lm_rank`).
3. *Replace and check*: the token is replaced (capitalisation kept), the follow-up re-parsed,
   and kept only if the token at that place keeps its constituent label (preterminal and the
   phrase above it, :mod:`.constituency`).
4. *Selection*: dropped when any mention's depth in the phrase structure changes.

The paper tries positions left to right and stops at M follow-ups, which spends M on the first
few words; here every (position, candidate) pair of a source is shuffled with the source's
seeded generator and tried in that order until M follow-ups pass both checks, so follow-ups
spread over the sentence and the same seed gives the same follow-ups. (The paper's Algorithm 3
has its stopping test inverted — ``if len(newXs) ≤ M then return`` — it means ≥ M.)
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Sequence

from runner.tasks.coref.constituency import PhraseTree
from runner.tasks.coref.types import CorefPrediction, Mention
from runner.types import Edit, FollowUp, Replacement

TRANSFORMATION = "crest"
CONTENT_POS = ("NOUN", "VERB", "ADJ", "ADV")
LINK_RELATIONS = ("nsubj", "amod")


def cr_related_tokens(doc: Any, mentions: Sequence[Mention]) -> set[int]:
    """Indices (spaCy token indices of ``doc``) of the CR-related tokens."""
    from runner.tasks.coref.ud import convert

    ud = convert(doc)
    by_char = {t.idx: t.i for t in doc}
    spacy_index = [by_char[u.start] for u in ud]
    # UD heads are ids within a sentence; turn them into indices of ``ud``.
    first_of_sentence: dict[int, int] = {}
    for k, u in enumerate(ud):
        first_of_sentence.setdefault(u.sentence, k)
    head_of = [first_of_sentence[u.sentence] + u.head - 1 if u.head else None for u in ud]

    in_mention = [any(m.start < u.end and u.start < m.end for m in mentions) for u in ud]
    related = {k for k, flag in enumerate(in_mention) if flag}
    for k, u in enumerate(ud):
        h = head_of[k]
        if h is None or u.deprel.split(":")[0] not in LINK_RELATIONS:
            continue
        if in_mention[k]:
            related.add(h)       # the head a mention is the subject of / an adjective of
        if in_mention[h]:
            related.add(k)       # the subject / adjective of a mention
    # Whitespace tokens are not in the UD analysis; map the rest back to spaCy's indices.
    return {spacy_index[k] for k in related}


@dataclass
class Candidate:
    token: int                 # spaCy token index in the source
    start: int
    end: int
    original: str
    new: str
    source: str                # wordnet:synonym, wordnet:antonym, masked_lm:NAME
    lm_score: float | None = None   # the ranking LM's score in context (lm_rank), when one ran
    similarity: float | None = None  # the cosine in context (lm_rank.ContextSimilarity), if run


@dataclass
class CrestResult:
    follow_ups: list[FollowUp]
    counts: dict[str, int] = field(default_factory=dict)
    related: set[int] = field(default_factory=set)


class CandidateFinder:
    """WordNet synonyms + antonyms (+ masked-LM fill-ins ≥ a probability) for content words.
    Both come from the word's common senses only, or, with a ``sense_encoder``, from the one of
    them its sentence means (:meth:`runner.text.candidates.WordNetCandidates._in_context`); with
    ``own_sense``, a synonym only where that sense is a common one of the synonym's own too
    (:meth:`~runner.text.candidates.WordNetCandidates.reads_as`)."""

    def __init__(self, *, wordnet: bool = True, synonyms_per_token: int = 10,
                 masked_lm: Any = None, masked_lm_name: str = "", mlm_min_probability: float = 0.1,
                 mlm_top_k: int = 10, sense_encoder: Any = None, own_sense: bool = False,
                 antonyms: bool = True, light_verbs: bool = False, lm_source: Any = None,
                 lm_candidates: int = 0) -> None:
        self.wn_source = None
        if wordnet:
            from runner.text.candidates import WordNetCandidates

            self.wn_source = WordNetCandidates(sense_encoder=sense_encoder, sense_window="sentence",
                                               own_sense=own_sense)
        self.synonyms_per_token = synonyms_per_token
        self.antonyms = antonyms
        # the light verbs (have, get, make, do) neither replaced nor proposed by WordNet
        self.light_verbs = light_verbs
        self.mlm = masked_lm
        self.mlm_name = masked_lm_name
        self.mlm_min_probability = mlm_min_probability
        self.mlm_top_k = mlm_top_k
        # a causal LM's own words for the slot (``lm_candidates`` a token; the LM layer's
        # ``LMCandidates``: one-token words from the left context, lower case, of the word's part
        # of speech in WordNet, no stop word for a content word), judged in context afterwards
        self.lm_source = lm_source
        self.lm_candidates = lm_candidates

    def describe(self) -> list[dict[str, Any]]:
        out = []
        if self.wn_source is not None:
            wn, *encoder = self.wn_source.models()
            use = "synonyms and antonyms" if self.antonyms else "synonyms"
            if self.light_verbs:
                use += " (not of or by the light verbs have, get, make, do)"
            out += [{**wn, "use": use}, *encoder]
        if self.mlm is not None:
            out.append({**self.mlm.describe(), "min_probability": self.mlm_min_probability})
        if self.lm_source is not None and self.lm_candidates:
            out.append({**self.lm_source.describe(), "per_token": self.lm_candidates})
        return out

    def _antonyms(self, tok: Any, word: tuple[str, str] | None,
                  keep: frozenset[str] | None) -> list[str]:
        """The antonyms of the word's lemma in the senses that give its synonyms."""
        if word is None:
            return []
        names: list[str] = []
        for syn in self.wn_source.senses(word, keep):
            for lem in syn.lemmas():
                if lem.name().lower() != word[0]:
                    continue
                for ant in lem.antonyms():
                    name = ant.name()
                    if "_" in name or "-" in name or name in names:
                        continue
                    names.append(name)
        out = []
        inflect = self.wn_source._inflect
        for name in names:
            forms = inflect(name, tok.tag_) if tok.tag_ not in ("VB", "JJ", "NN") else (name,)
            if forms:
                out.append(forms[0])
        return out

    def find(self, doc: Any, tokens: Sequence[int]) -> list[Candidate]:
        from runner.text.candidates import match_case

        out: list[Candidate] = []
        seen: set[tuple[int, str]] = set()

        def add(i: int, word: str, source: str) -> None:
            tok = doc[i]
            if not word.isalpha() or word.lower() == tok.text.lower():
                return
            new = match_case(word, tok.text)
            if (i, new) in seen:
                return
            seen.add((i, new))
            out.append(Candidate(i, tok.idx, tok.idx + len(tok.text), tok.text, new, source))

        light = frozenset()
        if self.light_verbs:
            from runner.text.light_verbs import light_verb_forms

            light = light_verb_forms()
        if self.wn_source is not None:
            from runner.text.light_verbs import LIGHT_VERBS

            wn_tokens = list(tokens)      # the masked LM (below) still fills every token
            if self.light_verbs:
                wn_tokens = [i for i in wn_tokens if not (
                    doc[i].pos_ == "VERB" and doc[i].lemma_.lower() in LIGHT_VERBS)]
            looked = self.wn_source.looked_up(doc, wn_tokens)
            syns = self.wn_source.synonyms(doc, wn_tokens, looked, self.synonyms_per_token)
            for i, cands, (word, keep) in zip(wn_tokens, syns, looked):
                for new, _ in cands:
                    if not (doc[i].pos_ == "VERB" and new.lower() in light):
                        add(i, new, "wordnet:synonym")
                for new in (self._antonyms(doc[i], word, keep) if self.antonyms else ()):
                    add(i, new, "wordnet:antonym")
        if self.mlm is not None and tokens:
            text = doc.text
            masked = [text[:doc[i].idx] + self.mlm.mask_token + text[doc[i].idx + len(doc[i].text):]
                      for i in tokens]
            ranked = self.mlm.top_k_probabilities(masked, self.mlm_top_k,
                                                  min_probability=self.mlm_min_probability)
            for i, cands in zip(tokens, ranked):
                for word, _ in cands:
                    add(i, word, f"masked_lm:{self.mlm_name}")
        if self.lm_source is not None and self.lm_candidates and tokens:
            proposed = self.lm_source.candidates(doc, list(tokens), self.lm_candidates)
            for i, cands in zip(tokens, proposed):
                for word, _ in cands:
                    if not (doc[i].pos_ == "VERB" and word.lower() in light):
                        add(i, word, self.lm_source.name)
        return out


class Crest:
    """Makes the follow-ups of sources. ``parse(texts) -> spaCy docs`` (the run's shared,
    caching parser); ``constituency.trees(texts, docs)`` gives phrase trees. ``ranker``: an
    :class:`~runner.tasks.coref.lm_rank.LMRanker` (a word's candidates ranked in context, the
    best kept), ``gender``: a :class:`~runner.tasks.coref.lm_rank.GenderRule`, ``similarity``:
    a :class:`~runner.tasks.coref.lm_rank.ContextSimilarity`; all optional."""

    def __init__(self, *, parse: Any, constituency: Any, finder: CandidateFinder,
                 max_follow_ups: int = 20, check_batch: int = 32, ranker: Any = None,
                 gender: Any = None, rank_batch: int = 6, similarity: Any = None) -> None:
        self.parse = parse
        self.constituency = constituency
        self.finder = finder
        self.max_follow_ups = max_follow_ups
        self.check_batch = check_batch
        self.ranker = ranker
        self.gender = gender
        self.rank_batch = rank_batch
        self.similarity = similarity

    def describe(self) -> dict[str, Any]:
        return {"type": TRANSFORMATION, "max_follow_ups": self.max_follow_ups,
                "constituency": self.constituency.describe(), "candidates": self.finder.describe()}

    def replaceable(self, doc: Any, related: set[int]) -> list[int]:
        return [t.i for t in doc if t.i not in related and t.pos_ in CONTENT_POS
                and not t.is_punct and not t.is_space and t.is_alpha]

    def _chunks(self, doc: Any, candidates: list[Candidate], rng: random.Random,
                counts: dict[str, int]) -> Any:
        """The candidates to check, a chunk at a time, in the seeded order. Without a ranker:
        every (position, candidate) pair shuffled. With one: the positions shuffled and, a few
        positions at a time, each position's candidates ranked in context, its best kept."""
        if self.ranker is None:
            order = list(range(len(candidates)))
            rng.shuffle(order)
            for pos in range(0, len(order), self.check_batch):
                yield [candidates[k] for k in order[pos:pos + self.check_batch]]
            return
        by_token: dict[int, list[Candidate]] = {}
        for c in candidates:
            by_token.setdefault(c.token, []).append(c)
        positions = list(by_token)
        rng.shuffle(positions)
        for pos in range(0, len(positions), self.rank_batch):
            chunk = positions[pos:pos + self.rank_batch]
            kept, dropped = self.ranker.select(doc, {i: by_token[i] for i in chunk})
            counts["lm_dropped"] += dropped
            order = {i: n for n, i in enumerate(chunk)}
            yield sorted(kept, key=lambda c: order[c.token])

    def generate(self, text: str, prediction: CorefPrediction, rng: random.Random, *,
                 gold: CorefPrediction | None = None, doc: Any = None,
                 tree: PhraseTree | None = None) -> CrestResult:
        doc = doc if doc is not None else self.parse([text])[0]
        tree = tree if tree is not None else self.constituency.trees([text], [doc])[0]
        mentions = list(prediction.mentions) + (list(gold.mentions) if gold is not None else [])
        mentions = sorted(set(mentions))
        related = cr_related_tokens(doc, mentions)
        tokens = self.replaceable(doc, related)
        candidates = self.finder.find(doc, tokens)
        counts = {"candidates": len(candidates), "parsed": 0, "constituent_kept": 0,
                  "depth_kept": 0, "gender": 0, "lm_dropped": 0, "similarity": 0}
        if self.gender is not None and candidates and self.gender.applies(doc):
            candidates = [c for c in candidates if not self.gender.refuses(doc, c.token, c.new)]
            counts["gender"] = counts["candidates"] - len(candidates)
        kept: list[FollowUp] = []
        # Parse (and rank) only as many as may be needed, a chunk at a time.
        for chunk in self._chunks(doc, candidates, rng, counts):
            if self.similarity is not None:
                chunk, dropped = self.similarity.keep(doc, chunk)
                counts["similarity"] += dropped
            fus = []
            for c in chunk:
                edit = Edit(text, (Replacement(c.start, c.end, c.new),))
                meta = {"source": c.source, "token": c.original, "replacement": c.new}
                if c.lm_score is not None:
                    meta["lm_score"] = round(c.lm_score, 3)
                if c.similarity is not None:
                    meta["context_similarity"] = round(c.similarity, 3)
                fus.append(FollowUp(edit.target, edit, TRANSFORMATION, meta))
            docs = self.parse([f.text for f in fus])
            trees = self.constituency.trees([f.text for f in fus], docs)
            for c, fu, fu_tree in zip(chunk, fus, trees):
                if len(kept) >= self.max_follow_ups:
                    break
                counts["parsed"] += 1
                label = tree.token_label(c.start, c.end)
                new_label = fu_tree.token_label(c.start, c.start + len(c.new))
                if label is None or label != new_label:
                    continue
                counts["constituent_kept"] += 1
                if not same_depths(tree, fu_tree, fu, mentions):
                    continue
                counts["depth_kept"] += 1
                fu.meta["constituent"] = "/".join(label)
                kept.append(fu)
            if len(kept) >= self.max_follow_ups:
                break
        counts["over_limit"] = (counts["candidates"] - counts["gender"] - counts["lm_dropped"]
                                - counts["similarity"] - counts["parsed"])
        return CrestResult(kept, counts, related)


def same_depths(tree: PhraseTree, fu_tree: PhraseTree, fu: FollowUp,
                mentions: Sequence[Mention]) -> bool:
    """Algorithm 2: every mention keeps its depth (a mention the edit cut has no image and
    makes the follow-up unusable too)."""
    for m in mentions:
        image = fu.edit.map_range(m.start, m.end)
        if image is None:
            return False
        if tree.mention_depth(m.start, m.end) != fu_tree.mention_depth(*image):
            return False
    return True
