from runner.tasks.ner.relations import MR1SharedEntities, MR2SamePrediction
from runner.types import FollowUp, Outcome, Replacement
from runner.tasks.ner.types import Prediction, Span


def _check(rel, src, reps, src_spans, fol_spans):
    f = FollowUp.from_replacements(src, reps, "t")
    sp = Prediction(tuple(src_spans))
    expected = tuple(i for i in map(f.edit.map_span, sp.spans) if i)
    return f, rel.check(source_text=src, follow_up=f, source_prediction=sp,
                        follow_up_prediction=Prediction(tuple(fol_spans)), expected=expected)


def test_mr2_passes_on_a_case_change_made_by_the_edit():
    src = "The Beatles were a band."
    reps = [Replacement(0, 0, "Were "), Replacement(0, 3, "the"), Replacement(12, 17, ""),
            Replacement(23, 24, "?")]
    f, v = _check(MR2SamePrediction(), src, reps, [Span(0, 11, "ORGANIZATION")],
                  [Span(5, 16, "ORGANIZATION")])
    assert f.text == "Were the Beatles a band?"
    assert v.outcome is Outcome.PASS


def test_mr2_fails_on_changed_type_and_reports_the_difference():
    src = "Ann met Bob."
    reps = [Replacement(0, 3, "Bob"), Replacement(8, 11, "Ann")]
    _, v = _check(MR2SamePrediction(), src, reps, [Span(0, 3, "PERSON"), Span(8, 11, "PERSON")],
                  [Span(0, 3, "PERSON"), Span(8, 11, "LOCATION")])
    assert v.outcome is Outcome.FAIL
    assert {"text": "Ann", "source": "PERSON", "follow_up": "LOCATION"} in v.differences


def test_mr2_counts_multiplicity():
    src = "Ann and Ann met."
    _, v = _check(MR2SamePrediction(), src, [Replacement(15, 16, "?")],
                  [Span(0, 3, "PERSON"), Span(8, 11, "PERSON")], [Span(0, 3, "PERSON")])
    assert v.outcome is Outcome.FAIL


def test_mr1_ignores_an_entity_present_in_only_one_sentence():
    # "London" was replaced by "Chicago": neither is in both sentences, so only Ann is compared.
    src = "Ann flew to London."
    reps = [Replacement(12, 18, "Chicago")]
    _, v = _check(MR1SharedEntities(), src, reps, [Span(0, 3, "PERSON"), Span(12, 18, "LOCATION")],
                  [Span(0, 3, "PERSON"), Span(12, 19, "ORGANIZATION")])
    assert v.outcome is Outcome.PASS


def test_mr1_missing_prediction_is_null():
    src = "Ann flew to London."
    _, v = _check(MR1SharedEntities(), src, [Replacement(4, 8, "went")],
                  [Span(0, 3, "PERSON"), Span(12, 18, "LOCATION")], [Span(0, 3, "PERSON")])
    assert v.outcome is Outcome.FAIL
    assert v.differences == ({"text": "London", "source": "LOCATION", "follow_up": None},)


def test_mr1_skips_when_no_entity_is_shared():
    _, v = _check(MR1SharedEntities(), "It rained.", [Replacement(3, 9, "poured")], [], [])
    assert v.outcome is Outcome.SKIP


def test_article_ignore_is_the_default_and_compare_keeps_the_article():
    """'the United States' in one sentence and 'United States' in the other: one name by
    default (article: ignore), a violation as the paper compares (compare); a changed type
    still fails."""
    src = "It was established by the United States government."
    reps = [Replacement(7, 18, "created")]
    g = src.index("the United States")
    with_article, without = Span(g, g + 17, "LOCATION"), Span(g + 4, g + 17, "LOCATION")
    shifted = lambda s, label="LOCATION": Span(s.start - 4, s.end - 4, label)  # noqa: E731
    for rel in (MR1SharedEntities, MR2SamePrediction):
        _, v = _check(rel(article="compare"), src, reps, [with_article], [shifted(without)])
        assert v.outcome is Outcome.FAIL
        _, v = _check(rel(), src, reps, [with_article], [shifted(without)])
        assert v.outcome is Outcome.PASS
        _, v = _check(rel(), src, reps, [with_article], [shifted(without, "ORGANIZATION")])
        assert v.outcome is Outcome.FAIL
    assert MR1SharedEntities().describe() == {"type": "MR1", "article": "ignore"}
