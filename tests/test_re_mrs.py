"""The eight RE metamorphic relations, checked by hand: for each, a source where it applies (the
follow-up's text, head, tail and expected relation written out) and one where it does not, on a
system whose answers are scripted; then the oracles' verdicts on the follow-ups' answers."""
from __future__ import annotations

import random

import pytest

from runner.tasks.re.relations import ORACLES
from runner.tasks.re.tables import RelationTables
from runner.tasks.re.same_type import SameTypeEntity
from runner.tasks.re.transforms import (AntisymmetricSwap, CoarserEntity, CoreferentMention,
                                        CoRelatedEntity, EntityPool, SharedHeadComposition,
                                        SharedTailComposition, SymmetricSwap, replace_argument)
from runner.tasks.re.types import REPrediction
from runner.types import Outcome
from tests.re_fixtures import ScriptedRE, items, pair, source

RNG = random.Random(0)


def gen(transformation, src, label):
    return transformation.generate(src, REPrediction(label), random.Random(1))


def judge(follow_up, source_label, follow_up_label, src=None):
    oracle = ORACLES[{"MR-R2": "coarser", "MR-S2": "inverse", "MR-C1": "composed",
                      "MR-C2": "composed"}.get(follow_up.meta["mr"], "identical")]()
    return oracle.check(source=src, source_prediction=REPrediction(source_label),
                        follow_up=follow_up, follow_up_prediction=REPrediction(follow_up_label))


# -- MR-R1 ---------------------------------------------------------------------------------------
def test_r1_same_type_replacement_applies():
    src = source("French filmmaker Claude Aubert dies at 80.", "Claude Aubert", "PERSON",
                 "French", "NATIONALITY")
    pool = EntityPool({"NATIONALITY": ["American", "French"]})
    [f] = SameTypeEntity(pool=pool, arguments=["tail"]).generate(
        src, REPrediction("per:origin"), RNG)
    assert f.text == "American filmmaker Claude Aubert dies at 80."
    assert pair(f.input) == ("Claude Aubert", "American")
    assert f.input.tail.type == "NATIONALITY"
    assert f.meta["expected_relation"] == "per:origin"
    assert f.edit.source == src.text and f.edit.target == f.text
    assert judge(f, "per:origin", "per:origin").outcome is Outcome.PASS
    v = judge(f, "per:origin", "no_relation")
    assert v.outcome is Outcome.FAIL and "expected per:origin" in v.reason


def test_r1_replaces_every_occurrence_and_maps_the_other_argument():
    src = source("Keller said Keller Group hired Tom Brandt.", "Keller Group", "ORGANIZATION",
                 "Tom Brandt", "PERSON")
    pool = EntityPool({"PERSON": ["Paul Wei"]})
    [f] = SameTypeEntity(pool=pool, arguments=["tail"]).generate(src, REPrediction("x"), RNG)
    assert f.text == "Keller said Keller Group hired Paul Wei."
    assert pair(f.input) == ("Keller Group", "Paul Wei")


def test_r1_replacement_is_written_in_the_mention_s_script():
    src = source("Prior to joining, Khalidi worked at the BBC.", "Khalidi", "PERSON",
                 "BBC", "ORGANIZATION")
    pool = EntityPool({"PERSON": ["अर्जुन", "Александр", "Yılmaz"]})
    r1 = SameTypeEntity(pool=pool, arguments=["head"], follow_ups=5)
    assert [f.meta["replacement"] for f in r1.generate(src, REPrediction("x"), RNG)] == ["Yılmaz"]
    src = source("Александр worked at the BBC.", "Александр", "PERSON", "BBC", "ORGANIZATION")
    assert [f.meta["replacement"] for f in r1.generate(src, REPrediction("x"), RNG)] == []


def test_r1_keeps_a_family_s_surname():
    src = source("The twin brothers Jonathan Scott and Drew Scott renovate houses.",
                 "Jonathan Scott", "PERSON", "Drew Scott", "PERSON")
    pool = EntityPool({"PERSON": ["Ahmet Kaya", "Peter Paul Rubens"]})
    got = SameTypeEntity(pool=pool, arguments=["head"], follow_ups=5).generate(
        src, REPrediction("per:siblings"), RNG)
    assert sorted(f.meta["replacement"] for f in got) == ["Ahmet Scott", "Peter Paul Scott"]
    assert all(f.meta["fit"] == "a person of the Scott family" for f in got)
    # a capitalised particle is no given name: "Francesco De Sanctis" is not made "Francesco De
    # Scott"
    with_particle = EntityPool({"PERSON": ["Ahmet Kaya", "Francesco De Sanctis"]})
    got = SameTypeEntity(pool=with_particle, arguments=["head"], follow_ups=5).generate(
        src, REPrediction("per:siblings"), RNG)
    assert [f.meta["replacement"] for f in got] == ["Ahmet Scott"]
    off = SameTypeEntity(pool=pool, arguments=["head"], follow_ups=5, keep_family_name=False)
    assert sorted(f.meta["replacement"] for f in off.generate(
        src, REPrediction("per:siblings"), RNG)) == ["Ahmet Kaya", "Peter Paul Rubens"]
    # a mention with a particle keeps no family name: "Robert De Niro" is replaced whole
    niro = source("Robert De Niro and Drena De Niro were married.", "Robert De Niro", "PERSON",
                  "Drena De Niro", "PERSON")
    got = SameTypeEntity(pool=pool, arguments=["head"], follow_ups=5).generate(
        niro, REPrediction("per:spouse"), RNG)
    assert sorted(f.meta["replacement"] for f in got) == ["Ahmet Kaya", "Peter Paul Rubens"]
    # no other name ends in the surname: the whole name is replaced as before
    src = source("Jonathan Scott met Drew Barrymore.", "Jonathan Scott", "PERSON",
                 "Drew Barrymore", "PERSON")
    got = SameTypeEntity(pool=pool, arguments=["head"], follow_ups=5).generate(
        src, REPrediction("x"), RNG)
    assert sorted(f.meta["replacement"] for f in got) == ["Ahmet Kaya", "Peter Paul Rubens"]


def test_r1_a_city_the_sentence_places_stays_in_that_place():
    pool = EntityPool({"CITY": ["Ankara", "Chanhassen", "Berlin", "Rockford"]})
    r1 = SameTypeEntity(pool=pool, arguments=["tail"], follow_ups=5)
    src = source("Ahmet Kaya was a folk singer from Malatya, Turkey.", "Ahmet Kaya", "PERSON",
                 "Malatya", "CITY")
    assert [f.meta["replacement"] for f in r1.generate(src, REPrediction("x"), RNG)] == ["Ankara"]
    src = source("Rob James was born in Springfield, Illinois.", "Rob James", "PERSON",
                 "Springfield", "CITY")
    assert [f.meta["replacement"] for f in r1.generate(src, REPrediction("x"), RNG)] == ["Rockford"]
    # a province the offline gazetteer does not know: not replaced; unplaced: any city
    src = source("Rob James is from Winnipeg, Manitoba.", "Rob James", "PERSON", "Winnipeg", "CITY")
    assert r1.generate(src, REPrediction("x"), RNG) == []
    src = source("Rob James is from Winnipeg.", "Rob James", "PERSON", "Winnipeg", "CITY")
    assert len(r1.generate(src, REPrediction("x"), RNG)) == 4
    off = SameTypeEntity(pool=pool, arguments=["tail"], follow_ups=5, qualified_cities=False)
    src = source("Rob James is from Winnipeg, Manitoba.", "Rob James", "PERSON", "Winnipeg", "CITY")
    assert len(off.generate(src, REPrediction("x"), RNG)) == 4


def test_r1_not_applicable_without_candidate_or_for_a_pronoun():
    src = source("She married Tom Brandt.", "She", "PERSON", "Tom Brandt", "PERSON")
    r1 = SameTypeEntity(pool=EntityPool({"PERSON": ["Tom Brandt"]}))
    assert r1.generate(src, REPrediction("per:spouse"), RNG) == []   # "She" kept, no other name


def test_r1_with_an_lm_keeps_the_replacements_that_fit_the_sentence_best(monkeypatch):
    """lm_sample drawn, ranked by the LM's fit (the module's context_fit, scripted here: a
    woman's name fits "her husband" better), the best follow_ups kept with their drop."""
    from runner.tasks.re import lm_fit

    text = "Anna Berg and her husband Tom Brandt moved to Paris."
    src = source(text, "Anna Berg", "PERSON", "Tom Brandt", "PERSON")
    women = {"Laura Chen": -1.0, "Maria Rossi": -2.0, "Eva Lind": -4.0}
    calls = []

    def fit(lm, items):
        calls.append(items)
        return [0.0 if t[s:e] == "Anna Berg" else women.get(t[s:e], -9.0) for t, s, e in items]

    monkeypatch.setattr(lm_fit, "context_fit", fit)
    pool = EntityPool({"PERSON": ["Laura Chen", "Maria Rossi", "Eva Lind", "Sara Holm"]})
    r1 = SameTypeEntity(pool=pool, arguments=["head"], follow_ups=2, lm_sample=8,
                        fit=False, lm_model=object())
    ups = gen(r1, src, "per:spouse")
    assert [u.meta["replacement"] for u in ups] == ["Laura Chen", "Maria Rossi"]
    assert [u.meta["lm_fit_drop"] for u in ups] == [1.0, 2.0]
    assert len(calls) == 1 and calls[0][0] == (text, 0, 9) and len(calls[0]) == 5
    # no replacement fits more than lm_max_drop (3 nats by default) worse than the original
    three = SameTypeEntity(pool=pool, arguments=["head"], follow_ups=3, fit=False,
                           lm_model=object())
    assert [u.meta["replacement"] for u in gen(three, src, "per:spouse")] == ["Laura Chen",
                                                                              "Maria Rossi"]
    loose = SameTypeEntity(pool=pool, arguments=["head"], follow_ups=3, fit=False,
                           lm_max_drop=None, lm_model=object())
    assert len(gen(loose, src, "per:spouse")) == 3
    # without an LM: drawn at random, no drop recorded
    plain = gen(SameTypeEntity(pool=pool, arguments=["head"], follow_ups=2, fit=False),
                src, "per:spouse")
    assert len(plain) == 2 and all("lm_fit_drop" not in u.meta for u in plain)


def test_context_fit_adds_the_names_lift_and_the_words_after_it(tmp_path):
    """On a tiny random Llama: the fit is Σ log p of the name's tokens in the sentence, less
    Σ log p of the name alone, plus Σ log p of the tokens after it (checked against the LM's
    own sentence scores)."""
    from runner import models
    from runner.tasks.re.lm_fit import _token_log_probs, context_fit
    from tests.test_lm import _save_llama

    folder = _save_llama(tmp_path / "llama")
    lm = models.get_lm(str(folder), device="cpu", batch_size=4)
    text = "the cat sat on the mat"
    start, end = 4, 7
    [got] = context_fit(lm, [(text, start, end)])
    whole, _ = lm.log_probs([text])[0]
    enc = lm.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    before = sum(1 for a, b in enc["offset_mapping"] if b <= start)    # the tokens of "the "
    [lps] = _token_log_probs(lm, [[lm.start_id] + enc["input_ids"]])
    assert abs(sum(lps) - whole) < 1e-4
    alone = lm.log_probs([text[start:end]])[0][0]
    assert abs(got - (sum(lps[before:]) - alone)) < 1e-4
    models.clear()


# -- MR-R2 ---------------------------------------------------------------------------------------
class FakeGazetteer:
    from runner.tasks.re.gazetteer import CityInfo, Place

    def lookup(self, name):
        if name == "San Francisco":
            return self.CityInfo("San Francisco", self.Place("the United States", "COUNTRY"),
                                 self.Place("California", "STATE_OR_PROVINCE"))
        return None

    def state_country(self, name):
        return None


def test_r2_city_to_state_and_country_moves_the_relation():
    src = source("Richard Lowe was born in San Francisco.", "Richard Lowe", "PERSON",
                 "San Francisco", "CITY")
    fs = CoarserEntity(places=FakeGazetteer()).generate(src, REPrediction("per:city_of_birth"),
                                                          RNG)
    by_type = {f.input.tail.type: f for f in fs}
    assert by_type["COUNTRY"].text == "Richard Lowe was born in the United States."
    assert pair(by_type["COUNTRY"].input) == ("Richard Lowe", "the United States")
    assert by_type["COUNTRY"].meta["expected_relation"] == "per:country_of_birth"
    assert by_type["STATE_OR_PROVINCE"].text == "Richard Lowe was born in California."
    assert by_type["STATE_OR_PROVINCE"].meta["expected_relation"] == "per:stateorprovince_of_birth"
    assert judge(by_type["COUNTRY"], "per:city_of_birth",
                 "per:country_of_birth").outcome is Outcome.PASS
    assert judge(by_type["COUNTRY"], "per:city_of_birth",
                 "per:city_of_birth").outcome is Outcome.FAIL


def test_r2_not_applicable():
    src = source("Richard Lowe was born in San Francisco.", "Richard Lowe", "PERSON",
                 "San Francisco", "CITY")
    r2 = CoarserEntity(places=FakeGazetteer())
    assert r2.generate(src, REPrediction("per:employee_of"), RNG) == []   # not in the table
    other = source("Richard Lowe was born in Smallville.", "Richard Lowe", "PERSON",
                   "Smallville", "CITY")
    assert r2.generate(other, REPrediction("per:city_of_birth"), RNG) == []  # unknown city


def test_r2_skips_a_city_whose_state_the_text_names():
    # the gazetteer's Springfield is the most populous one (Missouri); the text says Illinois
    src = source("Richard Lowe was born in San Francisco, Illinois.", "Richard Lowe", "PERSON",
                 "San Francisco", "CITY")
    r2 = CoarserEntity(places=FakeGazetteer())
    assert r2.generate(src, REPrediction("per:city_of_birth"), RNG) == []


def test_r2_capitalises_an_article_at_the_start():
    src = source("San Francisco is where Richard Lowe was born.", "Richard Lowe", "PERSON",
                 "San Francisco", "CITY")
    fs = CoarserEntity(places=FakeGazetteer()).generate(src, REPrediction("per:city_of_birth"),
                                                          RNG)
    country = [f for f in fs if f.input.tail.type == "COUNTRY"][0]
    assert country.text == "The United States is where Richard Lowe was born."
    assert pair(country.input) == ("Richard Lowe", "The United States")


@pytest.mark.slow
def test_r2_with_the_real_gazetteer():
    src = source("Lena Park was born in Denver in 1971.", "Lena Park", "PERSON", "Denver", "CITY")
    fs = CoarserEntity().generate(src, REPrediction("per:city_of_birth"), RNG)
    assert sorted(f.text for f in fs) == ["Lena Park was born in Colorado in 1971.",
                                          "Lena Park was born in the United States in 1971."]


# -- MR-R3 ---------------------------------------------------------------------------------------
def test_r3_number_becomes_duration():
    src = source("Jupp Hollander, 46, works in the lab.", "Jupp Hollander", "PERSON", "46",
                 "NUMBER")
    [f] = CoRelatedEntity().generate(src, REPrediction("per:age"), RNG)
    assert f.text == "Jupp Hollander, 46 years old, works in the lab."
    assert pair(f.input) == ("Jupp Hollander", "46 years old")
    assert f.input.tail.type == "DURATION"
    assert f.meta["expected_relation"] == "per:age"
    assert judge(f, "per:age", "no_relation").outcome is Outcome.FAIL


def test_r3_type_only_change_keeps_the_text():
    src = source("US actress Joan Mercer died.", "Joan Mercer", "PERSON", "US", "NATIONALITY")
    [f] = CoRelatedEntity().generate(src, REPrediction("per:origin"), RNG)
    assert f.text == src.text and f.edit.replacements == ()
    assert f.input.tail.type == "COUNTRY" and pair(f.input) == ("Joan Mercer", "US")


def test_r3_not_applicable():
    src = source("Jupp Hollander, forty-six, works in the lab.", "Jupp Hollander", "PERSON",
                 "forty-six", "NUMBER")
    assert CoRelatedEntity().generate(src, REPrediction("per:age"), RNG) == []
    loc = source("Ada Byrne lives in Lowfield.", "Ada Byrne", "PERSON", "Lowfield", "LOCATION")
    # LOCATION → CITY only for mentions the corpus also has as a CITY
    assert CoRelatedEntity().generate(loc, REPrediction("per:cities_of_residence"), RNG) == []
    pool = EntityPool({"CITY": ["Lowfield"]})
    [f] = CoRelatedEntity(pool=pool).generate(loc, REPrediction("per:cities_of_residence"), RNG)
    assert f.input.tail.type == "CITY"


# -- MR-R4 ---------------------------------------------------------------------------------------
def test_r4_annotated_coreferent_becomes_the_tail():
    text = "John is a father, he loves his child Mary."
    src = source(text, "Mary", "PERSON", "he", "PERSON",
                 coref={"tail": (source(text, "John", "PERSON", "Mary", "PERSON").head,)})
    [f] = CoreferentMention(use_rules=False).generate(src, REPrediction("per:parents"), RNG)
    assert f.text == text and pair(f.input) == ("Mary", "John")
    assert f.meta["expected_relation"] == "per:parents" and f.meta["resolver"] == "annotation"
    assert judge(f, "per:parents", "no_relation").outcome is Outcome.FAIL


class FakeEnt:
    def __init__(self, text, mention):
        self.start_char = text.index(mention)
        self.end_char = self.start_char + len(mention)
        self.label_ = "PERSON"


class FakeTok:
    def __init__(self, text, idx):
        self.idx, self.text = idx, text
        self.lower_ = text.lower()


class FakeDoc:
    def __init__(self, text, people):
        self.ents = [FakeEnt(text, p) for p in people]
        import re

        self._toks = [FakeTok(m.group(), m.start()) for m in re.finditer(r"\w+|[^\w\s]", text)]

    def __iter__(self):
        return iter(self._toks)


def test_r4_rule_pronoun_to_name_and_name_to_pronoun():
    text = "John is a father, he loves his child Mary."
    nlp = lambda t: FakeDoc(t, ["John", "Mary"])  # noqa: E731
    src = source(text, "Mary", "PERSON", "he", "PERSON")
    [f] = CoreferentMention(nlp=nlp).generate(src, REPrediction("per:parents"), RNG)
    assert pair(f.input) == ("Mary", "John") and f.meta["resolver"] == "rule"
    back = source(text, "Mary", "PERSON", "John", "PERSON")
    [g] = CoreferentMention(nlp=nlp, arguments=["tail"]).generate(
        back, REPrediction("per:parents"), RNG)
    assert pair(g.input) == ("Mary", "he")


def test_r4_not_applicable_when_two_people_precede_the_pronoun():
    text = "John met Paul, and he loves his child Mary."
    nlp = lambda t: FakeDoc(t, ["John", "Paul", "Mary"])  # noqa: E731
    src = source(text, "Mary", "PERSON", "he", "PERSON")
    assert CoreferentMention(nlp=nlp).generate(src, REPrediction("per:parents"), RNG) == []


def test_r4_rule_does_not_merge_two_people_of_one_family():
    text = "Ruth Adler divorced Simon Adler in 1994, two years after she adopted Noah."
    nlp = lambda t: FakeDoc(t, ["Ruth Adler", "Simon Adler", "Noah"])  # noqa: E731
    src = source(text, "Noah", "PERSON", "she", "PERSON")
    assert CoreferentMention(nlp=nlp).generate(src, REPrediction("per:parents"), RNG) == []
    named = source(text, "Simon Adler", "PERSON", "Noah", "PERSON")
    assert CoreferentMention(nlp=nlp, arguments=["head"]).generate(
        named, REPrediction("no_relation"), RNG) == []
    one = "Keller said that she would stay, Anna Keller told the board."
    nlp = lambda t: FakeDoc(t, ["Keller", "Anna Keller"])  # noqa: E731
    src = source(one, "she", "PERSON", "board", "ORGANIZATION")
    [f] = CoreferentMention(nlp=nlp).generate(src, REPrediction("x"), RNG)
    assert pair(f.input) == ("Keller", "board")


# -- MR-S1 / MR-S2 -------------------------------------------------------------------------------
def test_s1_symmetric_swap():
    src = source("Lily Hart is Mary Hart's sister.", "Lily Hart", "PERSON", "Mary Hart", "PERSON")
    [f] = gen(SymmetricSwap(), src, "per:siblings")
    assert pair(f.input) == ("Mary Hart", "Lily Hart") and f.text == src.text
    assert f.meta["expected_relation"] == "per:siblings"
    assert judge(f, "per:siblings", "per:siblings").outcome is Outcome.PASS
    assert judge(f, "per:siblings", "per:parents").outcome is Outcome.FAIL
    assert gen(SymmetricSwap(), src, "per:children") == []          # not symmetric
    assert gen(SymmetricSwap(), src, "no_relation") == []


def test_s2_inverse_labels():
    src = source("John Hart is Mary Hart's father.", "John Hart", "PERSON", "Mary Hart", "PERSON")
    cases = {"per:children": "per:parents", "per:parents": "per:children",
             "org:subsidiaries": "org:parents", "org:parents": "org:subsidiaries",
             "org:member_of": "org:members", "org:top_members/employees": "per:employee_of"}
    orgs = source("Acme Corp owns Initech Inc.", "Acme Corp", "ORGANIZATION", "Initech Inc.",
                  "ORGANIZATION")
    boss = source("Acme Corp hired Mary Hart as chief.", "Acme Corp", "ORGANIZATION",
                  "Mary Hart", "PERSON")
    for label, inverse in cases.items():
        s = src if label.startswith("per:") else boss if "top_members" in label else orgs
        [f] = gen(AntisymmetricSwap(), s, label)
        assert pair(f.input) == pair(s.input)[::-1]
        assert f.meta["expected_relation"] == inverse
        if inverse.startswith("org:"):   # a swapped PERSON pair cannot hold an org: relation
            assert gen(AntisymmetricSwap(), src, label) == []
    [f] = gen(AntisymmetricSwap(), src, "per:children")
    assert judge(f, "per:children", "per:parents").outcome is Outcome.PASS
    v = judge(f, "per:children", "per:siblings")
    assert v.outcome is Outcome.FAIL and "inverse of per:children" in v.reason
    assert gen(AntisymmetricSwap(), src, "per:spouse") == []        # symmetric: S1's business
    assert gen(AntisymmetricSwap(), src, "per:employee_of") == []   # no inverse in the table


def test_s2_suite_table_overrides_the_default():
    tables = RelationTables.from_config({"inverse": {"per:title": "no_relation"}})
    src = source("Ann Lee is the mayor.", "Ann Lee", "PERSON", "mayor", "TITLE")
    [f] = gen(AntisymmetricSwap(tables=tables), src, "per:title")
    assert f.meta["expected_relation"] == "no_relation"
    assert gen(AntisymmetricSwap(tables=tables), src, "per:children") == []   # replaced table
    merged = RelationTables.from_config({"extends": True, "inverse": {"per:title": "x"}})
    assert merged.inverse["per:children"] == "per:parents" and merged.inverse["per:title"] == "x"


# -- MR-C1 / MR-C2 -------------------------------------------------------------------------------
PETERSON = "Peterson leaves behind his wife, Kelly, and their daughter Celine."


def test_c1_shared_head_composition():
    s1 = source(PETERSON, "Peterson", "PERSON", "Kelly", "PERSON", sid="a")
    s2 = source(PETERSON, "Peterson", "PERSON", "Celine", "PERSON", sid="b")
    system = ScriptedRE({("Peterson", "Kelly"): "per:spouse",
                         ("Peterson", "Celine"): "per:children"})
    out = SharedHeadComposition().generate_batch(items([s1, s2], system))
    assert out[0] == []                       # listed under the second source
    [f] = out[1]
    assert pair(f.input) == ("Kelly", "Celine") and f.text == PETERSON
    assert f.meta["expected_relation"] == "per:children"
    assert f.meta["first_source"] == "a" and f.others[0][0] is s1
    [p] = system.predict([f.input])
    assert p.label == "no_relation"
    v = judge(f, "per:children", p.label)
    assert v.outcome is Outcome.FAIL and "composed with per:spouse" in v.reason
    assert judge(f, "per:children", "per:children").outcome is Outcome.PASS


def test_c1_not_applicable():
    s1 = source(PETERSON, "Peterson", "PERSON", "Kelly", "PERSON", sid="a")
    s2 = source(PETERSON, "Peterson", "PERSON", "Celine", "PERSON", sid="b")
    # first relation not symmetric
    system = ScriptedRE({("Peterson", "Kelly"): "per:children",
                         ("Peterson", "Celine"): "per:children"})
    assert SharedHeadComposition().generate_batch(items([s1, s2], system)) == [[], []]
    # symmetric, but spouse does not compose with employee_of
    system = ScriptedRE({("Peterson", "Kelly"): "per:spouse",
                         ("Peterson", "Celine"): "per:employee_of"})
    assert SharedHeadComposition().generate_batch(items([s1, s2], system)) == [[], []]
    # no shared head
    s3 = source(PETERSON, "Kelly", "PERSON", "Celine", "PERSON", sid="c")
    system = ScriptedRE({("Peterson", "Kelly"): "per:spouse", ("Kelly", "Celine"): "per:children"})
    assert SharedHeadComposition().generate_batch(items([s1, s3], system)) == [[], []]


def test_c2_shared_tail_composition():
    text = ("Liu Mingkang, chairman of the China Banking Regulatory Commission (CBRC), "
            "hosted a meeting.")
    s1 = source(text, "CBRC", "ORGANIZATION", "China Banking Regulatory Commission",
                "ORGANIZATION", sid="a")
    s2 = source(text, "Liu Mingkang", "PERSON", "China Banking Regulatory Commission",
                "ORGANIZATION", sid="b")
    system = ScriptedRE({("CBRC", "China Banking Regulatory Commission"): "org:alternate_names",
                         ("Liu Mingkang", "China Banking Regulatory Commission"):
                             "per:employee_of"})
    out = SharedTailComposition().generate_batch(items([s1, s2], system))
    [f] = out[1]
    assert pair(f.input) == ("Liu Mingkang", "CBRC")
    assert f.meta["expected_relation"] == "per:employee_of" and f.meta["mr"] == "MR-C2"
    assert judge(f, "per:employee_of", "per:employee_of").outcome is Outcome.PASS
    # different sentences never combine
    other = source(text.replace("hosted", "chaired"), "Liu Mingkang", "PERSON",
                   "China Banking Regulatory Commission", "ORGANIZATION", sid="c")
    assert SharedTailComposition().generate_batch(items([s1, other], system)) == [[], []]


# -- oracles and helpers -------------------------------------------------------------------------
def test_an_oracle_skips_follow_ups_of_another_mr():
    src = source("Lily Hart is Mary Hart's sister.", "Lily Hart", "PERSON", "Mary Hart", "PERSON")
    [f] = gen(SymmetricSwap(), src, "per:siblings")
    v = ORACLES["inverse"]().check(source=src, source_prediction=REPrediction("per:siblings"),
                                   follow_up=f, follow_up_prediction=REPrediction("per:siblings"))
    assert v.outcome is Outcome.SKIP


def test_replace_argument_drops_a_doubled_article():
    src = source("She moved to the Springfield area.", "She", "PERSON", "Springfield", "CITY")
    inp, edit = replace_argument(src, "tail", "the United States", "COUNTRY")
    assert inp.text == "She moved to the United States area."
    assert pair(inp) == ("She", "United States")


def test_scripted_system_failure_is_an_error_not_a_crash():
    system = ScriptedRE({("Peterson", "Kelly"): "!crash"})
    s1 = source(PETERSON, "Peterson", "PERSON", "Kelly", "PERSON")
    [p] = system.predict_outcomes([s1.input])
    assert "cannot read" in p.reason


def test_swaps_and_compositions_need_a_pair_that_can_hold_the_relation():
    from runner.tasks.re.transforms import subject_fits

    assert subject_fits("per:spouse", "PERSON") and not subject_fits("per:spouse", "DATE")
    assert not subject_fits("org:alternate_names", "ORGANIZATION", "COUNTRY")
    assert subject_fits("anything", "PER")              # not TACRED's types: not checked
    src = source("Anna Keller (born 1990) sang.", "Anna Keller", "PERSON", "1990", "DATE")
    assert gen(AntisymmetricSwap(), src, "per:parents") == []     # (1990, Anna Keller) per:children
    assert gen(SymmetricSwap(), src, "per:spouse") == []


def test_r1_extra_occurrences_inside_a_longer_name_stay():
    src = source("Finnegan was born in Chicago and studied at Loyola University Chicago.",
                 "Finnegan", "PERSON", "Chicago", "CITY")
    pool = EntityPool({"CITY": ["Boston"]})
    [f] = SameTypeEntity(pool=pool, arguments=["tail"]).generate(src, REPrediction("x"), RNG)
    assert f.text == "Finnegan was born in Boston and studied at Loyola University Chicago."


def test_r2_skips_a_place_already_named():
    src = source("Ulrich was born in Vienna, Austria.", "Ulrich", "PERSON", "Vienna", "CITY")
    assert gen(CoarserEntity(), src, "per:city_of_birth") == []


@pytest.mark.parametrize("text, mention, again", [
    ("Lewis of Luxembourg (or Louis II de Luxembourg; died 1443) was a cardinal.",
     "Louis II de Luxembourg", "Luxembourg"),
    ("University College London Hospitals NHS Foundation Trust (UCLH) runs six hospitals.",
     "University College London Hospitals NHS Foundation Trust", "UCLH"),
    ("University College London Hospitals NHS Foundation Trust (UCLH) runs six hospitals.",
     "UCLH", "University College London Hospitals NHS Foundation Trust"),
    ("Piłsudski's daughter, Jadwiga Piłsudska, attended.", "Piłsudski", "Piłsudska"),
    ("Sappy Records also hosts the Sappy Records Music Festival in Sackville.",
     "Sappy Records", "Sappy Records"),
    ("L'École des officiers de la gendarmerie nationale, the French Gendarmerie nationale "
     "Officers School, was created in 1901.", "French Gendarmerie nationale Officers School",
     "Gendarmerie nationale"),
    # not named again: another record label, a word many names share, a place inside a name
    ("Load was released by Elektra Records and by Vertigo Records.", "Elektra Records", ""),
    ("He studied at the University of Oslo and the University of Bergen.", "University of Oslo",
     ""),
    ("Finnegan was born in Chicago and studied at Loyola University Chicago.", "Chicago", ""),
])
def test_named_again_finds_another_name_of_the_argument(text, mention, again):
    from runner.tasks.re.fit import named_again
    from runner.tasks.re.types import Argument

    start = text.index(mention) if mention != "Sappy Records" else 0
    assert named_again(text, Argument(start, start + len(mention), "X")) == again


def test_r1_leaves_an_argument_named_again_and_replaces_repeats_of_it():
    pool = EntityPool({"PERSON": ["Paul Wei"], "ORGANIZATION": ["Acme Records"]})
    alias = source("Muhammaed Yasir Ahmed Taher, also known as Yasir al-Simli, was held.",
                   "Muhammaed Yasir Ahmed Taher", "PERSON", "Yasir al-Simli", "PERSON")
    r1 = SameTypeEntity(pool=pool, fit=False)
    assert gen(r1, alias, "per:alternate_names") == []
    assert len(gen(SameTypeEntity(pool=pool, fit=False, skip_named_again=False), alias,
                   "per:alternate_names")) == 2
    # the same name again is replaced with it ("Keller ... Keller"), so it does not count
    repeat = source("Tom Brandt joined Keller Group; Tom Brandt left.", "Tom Brandt", "PERSON",
                    "Keller Group", "ORGANIZATION")
    [f] = SameTypeEntity(pool=pool, fit=False, arguments=["head"]).generate(
        repeat, REPrediction("per:employee_of"), RNG)
    assert f.text == "Paul Wei joined Keller Group; Paul Wei left."


def test_a_persons_shared_name_counts_only_as_an_alias():
    from runner.tasks.re.fit import named_again
    from runner.tasks.re.types import Argument

    family = "He had four children, Beatrice Roche, Lilianne Roche and Marcel Roche."
    start = family.index("Lilianne Roche")
    arg = Argument(start, start + len("Lilianne Roche"), "PERSON")
    assert named_again(family, arg) == "Roche"                  # any entity: the same word again
    assert named_again(family, arg, person=True) == ""          # a person: a sibling's surname
    alias = "His brother, Muhammaed Yasir Ahmed Taher, also known as Yasir al-Simli, was held."
    start = alias.index("Muhammaed")
    arg = Argument(start, start + len("Muhammaed Yasir Ahmed Taher"), "PERSON")
    assert named_again(alias, arg, person=True) == "Yasir"


def test_born_is_an_alias_marker_only_with_as():
    from runner.tasks.re.fit import named_again
    from runner.tasks.re.types import Argument

    text = "Mumba was born in Dublin to Peter Mumba; his sister, Samantha Mumba, sings."
    start = text.index("Peter Mumba")
    assert named_again(text, Argument(start, start + 11, "PERSON"), person=True) == ""
    text = "Raymond Hermantier was a French actor, born in Lyon as Raymond Maroutian."
    start = text.index("Raymond Maroutian")
    assert named_again(text, Argument(start, start + 17, "PERSON"), person=True) == "Raymond"
