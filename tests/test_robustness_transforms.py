"""The everyday robustness and bias transformations on hand-made sentences: every entity of the
source is carried through the edit to its exact place in the follow-up, no entity's text changes
unless the transformation targets entities, and the same seed gives the same follow-ups."""
import random

import pytest

from runner.tasks.ner.relations import MR2SamePrediction
from runner.tasks.ner.transforms.abbreviations import Abbreviations, abbreviation_table
from runner.tasks.ner.transforms.case import Case, title
from runner.tasks.ner.transforms.contractions import Contractions
from runner.tasks.ner.transforms.entity_swap import EntitySwap, income_groups
from runner.tasks.ner.transforms.numbers import Numbers, ordinal_words, parse_words, to_words
from runner.tasks.ner.transforms.punctuation import Punctuation
from runner.tasks.ner.transforms.typos import KEYBOARD, Typos, homophones
from runner.tasks.ner.types import Prediction, Sentence, Span
from runner.text.names import first_names


def sentence(text, *entities):
    """A source and its prediction; entities as (text, label), found left to right."""
    spans, pos = [], 0
    for ent, label in entities:
        start = text.index(ent, pos)
        spans.append(Span(start, start + len(ent), label))
        pos = start + len(ent)
    return Sentence("s", text), Prediction(tuple(spans))


NEWS = sentence("The government said Angela Merkel will not meet 12 ministers from France and "
                "Germany because they are busy in Straße, their mission.",
                ("Angela Merkel", "PERSON"), ("France", "LOCATION"), ("Germany", "LOCATION"),
                ("Straße", "LOCATION"))


def images(follow_up, prediction):
    out = []
    for span in prediction.spans:
        image = follow_up.edit.map_span(span)
        assert image is not None, f"{span} has no image in {follow_up.text!r}"
        out.append(image.text_in(follow_up.text))
    return out


def entity_texts(source, prediction):
    return [s.text_in(source.text) for s in prediction.spans]


def generate(t, src=NEWS, seed=3):
    source, prediction = src
    return t.generate(source, prediction, random.Random(seed))


SURFACE = [Case(mode="upper", scope="context"), Case(mode="lower", scope="context"),
           Case(mode="title", scope="context"),
           Typos(kind="keyboard", rate=0.5), Typos(kind="ocr", rate=0.5),
           Typos(kind="speech", rate=1.0), Typos(kind="swap", rate=0.5),
           Punctuation(mode="strip", scope="end"), Punctuation(mode="strip", scope="all"),
           Punctuation(mode="add"), Contractions(mode="contract"), Numbers(mode="to_words"),
           Abbreviations(rate=1.0)]


@pytest.mark.parametrize("t", SURFACE, ids=lambda t: f"{t.name}-{t.params}")
def test_entities_untouched_and_carried_through(t):
    source, prediction = NEWS
    follow_ups = generate(t)
    assert follow_ups, "every one of these applies to the sentence"
    for f in follow_ups:
        assert f.text != source.text
        assert images(f, prediction) == entity_texts(source, prediction)


@pytest.mark.parametrize("t", SURFACE + [EntitySwap(pool="first_names", origin="nigerian"),
                                         EntitySwap(pool="countries", income="low")],
                         ids=lambda t: f"{t.name}-{t.params}")
def test_same_seed_same_follow_ups(t):
    a = [f.text for f in generate(t, seed=11)]
    b = [f.text for f in generate(t, seed=11)]
    assert a == b


def test_random_ones_differ_with_the_seed():
    t = Typos(kind="keyboard", rate=0.3)
    assert len({generate(t, seed=s)[0].text for s in range(8)}) > 1


# -- case ----------------------------------------------------------------------------------------

def test_case_whole_sentence_changes_entities_with_exact_offsets():
    source, prediction = NEWS
    [up] = generate(Case(mode="upper"))
    assert up.text == source.text.upper()
    # ß → SS makes the text longer: the entity after it is still found exactly
    assert images(up, prediction) == [e.upper() for e in entity_texts(source, prediction)]
    assert "STRASSE" in images(up, prediction)
    [low] = generate(Case(mode="lower"))
    assert images(low, prediction) == [e.lower() for e in entity_texts(source, prediction)]


def test_title_case_keeps_apostrophes_inside_words():
    assert title("they don't know o'neill") == "They Don't Know O'neill"
    source, prediction = sentence("the talks in paris don't end.", ("paris", "LOCATION"))
    [f] = generate(Case(mode="title"), (source, prediction))
    assert f.text == "The Talks In Paris Don't End."
    assert images(f, prediction) == ["Paris"]


def test_title_case_after_an_entity_s_apostrophe():
    src = sentence("canada's prices rose.", ("canada", "LOCATION"))
    [f] = generate(Case(mode="title"), src)
    assert f.text == "Canada's Prices Rose."
    [g] = generate(Case(mode="title", scope="context"), src)
    assert g.text == "canada's Prices Rose."


def test_case_context_only_leaves_an_all_lower_sentence_alone():
    src = sentence("angela merkel met", ("angela merkel", "PERSON"))
    assert generate(Case(mode="lower", scope="context"), src) == []


# -- typos ---------------------------------------------------------------------------------------

def test_keyboard_neighbours_are_real_neighbours():
    assert set(KEYBOARD["g"]) == set("fhtybv")
    assert set(KEYBOARD["q"]) == set("wa")


@pytest.mark.parametrize("kind", ["keyboard", "ocr", "swap"])
def test_typos_reach_entities_only_when_asked(kind):
    source, prediction = NEWS
    changed_entity = False
    for seed in range(30):
        for f in generate(Typos(kind=kind, rate=0.5, entities=True), seed=seed):
            got = images(f, prediction)  # still exact offsets
            changed_entity |= got != entity_texts(source, prediction)
    assert changed_entity


def test_typo_rate_per_word_and_at_least_one():
    source, prediction = NEWS
    few = generate(Typos(kind="keyboard", rate=0.01), seed=1)[0].meta["words"]
    many = generate(Typos(kind="keyboard", rate=1.0), seed=1)[0].meta["words"]
    assert len(few) == 1
    assert len(many) > 8


def test_speech_typos_are_homophones():
    assert "there" in homophones()["their"]
    [f] = generate(Typos(kind="speech", rate=1.0))
    for pair in f.meta["words"]:
        old, new = pair.split("→")
        assert new.lower() in homophones()[old.lower()]


# -- punctuation ---------------------------------------------------------------------------------

def test_punctuation_strip_and_add():
    source, prediction = sentence('He said: "Smith, of Acme Inc., won." in Paris.',
                                  ("Smith", "PERSON"), ("Acme Inc.", "ORGANIZATION"),
                                  ("Paris", "LOCATION"))
    [end] = generate(Punctuation(mode="strip", scope="end"), (source, prediction))
    assert end.text == 'He said: "Smith, of Acme Inc., won." in Paris'
    [every] = generate(Punctuation(mode="strip", scope="all"), (source, prediction))
    # the entity's own period stays
    assert every.text == "He said Smith of Acme Inc. won in Paris"
    assert images(every, prediction) == ["Smith", "Acme Inc.", "Paris"]
    [add] = generate(Punctuation(mode="add", marks=["!"]), (source, prediction))
    assert add.text == 'He said: "Smith, of Acme Inc., won." in Paris!'
    assert images(add, prediction) == ["Smith", "Acme Inc.", "Paris"]


def test_punctuation_never_cuts_an_entity_at_the_end():
    src = sentence("He moved to the U.S.", ("U.S.", "LOCATION"))
    assert generate(Punctuation(mode="strip"), src) == []


# -- contractions --------------------------------------------------------------------------------

def test_contract_and_expand():
    src = sentence("It is clear that they will not sign, and Do Not Track is a law.",
                   ("Do Not Track", "MISC"))
    [c] = generate(Contractions(mode="contract"), src)
    assert c.text == "It's clear that they won't sign, and Do Not Track is a law."
    assert images(c, src[1]) == ["Do Not Track"]
    src = sentence("It's clear they won't sign; it's been long, and Ada's plan is what I'd do.",
                   ("Ada", "PERSON"))
    [e] = generate(Contractions(mode="expand"), src)
    assert e.text == ("It is clear they will not sign; it has been long, and Ada's plan is what "
                      "I would do.")
    assert images(e, src[1]) == ["Ada"]


# -- numbers -------------------------------------------------------------------------------------

def test_number_words():
    assert to_words(1_250_042) == "one million two hundred fifty thousand forty-two"
    assert ordinal_words(21) == "twenty-first" and ordinal_words(40) == "fortieth"
    assert parse_words("two hundred and five".split()) == 205


def test_numbers_both_ways_outside_entities():
    src = sentence("In 2024, 12 firms and 3.5% of 1,500 voters backed the 21st Century Fund "
                   "and G7 talks in Paris.", ("21st Century Fund", "ORGANIZATION"),
                   ("Paris", "LOCATION"))
    [w] = generate(Numbers(mode="to_words"), src)
    assert w.text == ("In 2024, twelve firms and 3.5% of one thousand five hundred voters backed "
                      "the 21st Century Fund and G7 talks in Paris.")
    assert images(w, src[1]) == ["21st Century Fund", "Paris"]
    src = sentence("Twenty-five people and one of the two hundred and five guests met Nine Inch "
                   "Nails.", ("Nine Inch Nails", "ORGANIZATION"))
    [d] = generate(Numbers(mode="to_digits"), src)
    assert d.text == "25 people and one of the 205 guests met Nine Inch Nails."
    assert images(d, src[1]) == ["Nine Inch Nails"]


# -- abbreviations -------------------------------------------------------------------------------

def test_abbreviations_from_the_shipped_list():
    assert "govt" in abbreviation_table()["government"]
    assert "govt" not in abbreviation_table("texting").get("government", ())
    src = sentence("The Government of Canada and the government said in October.",
                   ("The Government of Canada", "ORGANIZATION"))
    [f] = generate(Abbreviations(style="formal"), src)
    assert f.text == "The Government of Canada and the govt said in Oct."
    assert images(f, src[1]) == ["The Government of Canada"]


# -- entity_swap ---------------------------------------------------------------------------------

SWAP = sentence("Senator Olaf Brandt met Sarah Okafor and Brandt in Lagos, Canada and the "
                "Netherlands; Chiamaka spoke.",
                ("Olaf Brandt", "PERSON"), ("Sarah Okafor", "PERSON"), ("Brandt", "PERSON"),
                ("Lagos", "LOCATION"), ("Canada", "LOCATION"), ("Netherlands", "LOCATION"),
                ("Chiamaka", "PERSON"))


def test_first_names_swapped_by_origin_keep_type_and_gender():
    source, prediction = SWAP
    nigerian = first_names()["nigerian"]
    for seed in range(10):
        [f] = generate(EntitySwap(pool="first_names", origin="nigerian"), SWAP, seed)
        got = images(f, prediction)
        first = got[0].split()[0]
        assert got[0].endswith(" Brandt") and first in nigerian["male"]  # Olaf is male
        assert got[1].endswith(" Okafor") and got[1].split()[0] in nigerian["female"]
        assert got[2] == "Brandt"             # a surname alone is not a first name
        assert got[3:6] == ["Lagos", "Canada", "Netherlands"]
        assert got[6] in nigerian["female"]   # a known first name alone is swapped
        assert f.text.startswith("Senator ")  # the title is outside the span and untouched


def test_swapped_in_names_are_neither_places_nor_common_words():
    every = {n for o in first_names().values() for g in o.values() for n in g}
    for bad in ("Mali", "Grace", "Will", "Florence", "Paris", "Mark", "Ngozi"):  # Ngozi: a city
        assert bad not in every


def test_title_inside_a_person_span_is_not_taken_for_a_first_name():
    src = sentence("Chancellor Brandt spoke.", ("Chancellor Brandt", "PERSON"))
    assert generate(EntitySwap(pool="first_names"), src) == []


def test_countries_by_income_group_and_cities_by_country():
    source, prediction = SWAP
    low = EntitySwap(pool="countries", income="low")
    [f] = generate(low, SWAP, 2)
    got = images(f, prediction)
    assert got[4] in low.replacements and got[4] != "Canada"
    assert got[5] == "Netherlands"  # after "the": not swapped
    assert got[3] == "Lagos"        # a city is not a country
    from runner.tasks.ner.transforms.entity_swap import countries
    assert all(income_groups()[countries()[c]] == "low" for c in low.replacements)
    cities = EntitySwap(pool="cities", country="IN", top=10)
    [g] = generate(cities, SWAP, 2)
    got = images(g, prediction)
    assert got[3] in cities.replacements and got[4] == "Canada"
    assert "Mumbai" in cities.replacements


def test_swap_expected_entities_pass_mr2_when_the_system_agrees():
    source, prediction = SWAP
    [f] = generate(EntitySwap(pool="countries", income="high"), SWAP, 5)
    expected = Prediction(tuple(f.edit.map_span(s) for s in prediction.spans))
    verdict = MR2SamePrediction().check(source_text=source.text, follow_up=f,
                                        source_prediction=prediction,
                                        follow_up_prediction=expected, expected=expected.spans)
    assert verdict.outcome.value == "pass"


def test_unknown_groups_fail_loudly():
    with pytest.raises(ValueError, match="unknown origin"):
        EntitySwap(pool="first_names", origin="martian")
    with pytest.raises(ValueError, match="no city"):
        EntitySwap(pool="cities", country="XX")


def test_no_false_alarm_from_joined_names_or_symbols_beside_entities():
    src = sentence("Stores in Glasgow, Cardiff and Belfast close, the firm said.",
                   ("Glasgow", "LOCATION"), ("Cardiff", "LOCATION"), ("Belfast", "LOCATION"))
    [f] = generate(Punctuation(mode="strip", scope="all"), src)
    assert f.text == "Stores in Glasgow, Cardiff and Belfast close the firm said"
    src = sentence("Canada and Mexico want to talk to Ada and to you.",
                   ("Canada", "LOCATION"), ("Mexico", "LOCATION"), ("Ada", "PERSON"))
    [f] = generate(Abbreviations(style="texting"), src)
    # "and" and "to" beside an entity stay words; the others are abbreviated
    assert f.text == "Canada and Mexico want 2 talk to Ada and 2 u."


def test_no_typo_in_the_word_between_two_entities():
    src = sentence("Prices at Aldi and Lidl rose.", ("Aldi", "ORGANIZATION"),
                   ("Lidl", "ORGANIZATION"))
    for seed in range(20):
        for f in generate(Typos(kind="ocr", rate=1.0), src, seed):
            assert " and " in f.text
