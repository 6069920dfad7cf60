import math

import numpy as np
import pytest

from runner.filters.semantic import SemanticFilter, replaced_ranges
from runner.filters.syntactic import SyntacticFilter
from runner.models.encoder import cosine
from runner.tasks.ner.relations import MR1SharedEntities
from runner.types import FollowUp, Outcome, Replacement
from runner.tasks.ner.types import Prediction, Span

SRC = "He is a good student."


def _follow(new: str, text: str = SRC, word: str = "good") -> FollowUp:
    i = text.index(word)
    return FollowUp.from_replacements(text, [Replacement(i, i + len(word), new)], "token_mlm")


class VectorsByWord:
    """An encoder whose span embedding is a fixed vector per word, so cosines are known exactly;
    it goes through the filter's real path (span_similarity → cosine of embed_spans rows)."""

    def __init__(self, vectors):
        self.vectors = vectors
        self.calls = 0

    def embed_spans(self, spans):
        self.calls += 1
        return np.array([self.vectors[t[a:b]] for t, a, b in spans], dtype=np.float64)

    def span_similarity(self, pairs):
        v = self.embed_spans([p[0] for p in pairs] + [p[1] for p in pairs])
        return [float(x) for x in cosine(v[:len(pairs)], v[len(pairs):])]

    def describe(self):
        return {"role": "encoder", "backend": "fixed", "name": "fixed", "device": "cpu"}


VECTORS = {"good": [1.0, 0.0], "fine": [0.64, math.sqrt(1 - 0.64 ** 2)], "nice": [0.9, 0.1],
           "bad": [-1.0, 0.2]}


@pytest.mark.parametrize("threshold, kept", [(0.65, False), (0.60, True)])
def test_semantic_cosine_064_dropped_at_065_kept_at_060(threshold, kept):
    enc = VectorsByWord(VECTORS)
    flt = SemanticFilter(SThreshold=threshold, encoder_obj=enc)
    (score,) = flt.scores([(SRC, _follow("fine"))])
    assert score == pytest.approx(0.64)
    assert flt.keep(score, "token_mlm") is kept


def test_semantic_scores_a_batch_in_one_call_and_skips_what_it_cannot_judge():
    enc = VectorsByWord(VECTORS)
    flt = SemanticFilter(encoder_obj=enc)
    insertion = FollowUp.from_replacements(SRC, [Replacement(0, 0, "Yes, ")], "token_mlm")
    scores = flt.scores([(SRC, _follow("nice")), (SRC, _follow("bad")), (SRC, insertion)])
    assert enc.calls == 1
    assert scores[0] > 0.65 and scores[1] < 0 and scores[2] is None
    assert [flt.keep(s, "token_mlm") for s in scores] == [True, False, True]
    assert flt.applies("token_mlm") and flt.applies("phrase_np")
    assert not flt.applies("entity_shuffle")          # paper: token- and phrase-level only
    assert SemanticFilter(encoder_obj=enc, applies_to=["entity_shuffle"]).applies("entity_shuffle")


def test_replaced_ranges_map_source_to_follow_up():
    f = FollowUp.from_replacements("a big red car", [Replacement(2, 5, "huge"),
                                                     Replacement(6, 9, "blue")], "t")
    assert f.text == "a huge blue car"
    assert replaced_ranges(f) == [((2, 5), (2, 6)), ((6, 9), (7, 11))]


class ScoreByText:
    def __init__(self, table):
        self.table, self.asked = table, []

    def score(self, texts):
        self.asked.append(list(texts))
        return [self.table[t] for t in texts]

    def describe(self):
        return {"role": "scorer", "backend": "fixed", "name": "fixed", "device": "cpu"}


def test_syntactic_epsilon_and_per_transformation_thresholds():
    a, b = _follow("fine"), _follow("nice")
    q = FollowUp.from_replacements(SRC, [Replacement(20, 21, "?")], "structural_question")
    table = {SRC: -2.000, a.text: -2.015, b.text: -1.9, q.text: -2.015}
    scorer = ScoreByText(table)
    flt = SyntacticFilter(SynThreshold={"default": 0.01, "structural_question": 0.02},
                          scorer_obj=scorer)
    eps = flt.scores([(SRC, a), (SRC, b), (SRC, q)])
    assert eps == pytest.approx([0.015, -0.1, 0.015])
    assert scorer.asked == [[SRC, a.text, b.text, q.text]]      # the source scored once
    # ε = 0.015 > 0.01 drops the token-level follow-up, ≤ 0.02 keeps the structural one
    assert [flt.keep(e, f.transformation) for e, f in zip(eps, (a, b, q))] == [False, True, True]
    strict = SyntacticFilter(SynThreshold=0, scorer_obj=ScoreByText(table))
    assert strict.keep(0.0, "x") and not strict.keep(1e-6, "x")


def test_syntactic_with_a_real_causal_lm(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from runner import models
    from tests import tiny_models

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    models.clear()
    folder = tiny_models.save_gpt2(tmp_path / "gpt2")
    flt = SyntacticFilter(scorer="causal_lm", model=str(folder), device="cpu")
    f = _follow("nice", "the cat sat on the good mat .")
    (eps,) = flt.scores([("the cat sat on the good mat .", f)])
    s = flt.scorer.score(["the cat sat on the good mat .", f.text])
    assert eps == pytest.approx(s[0] - s[1])
    assert flt.models()[0]["backend"] == "causal_lm:GPT2LMHeadModel"
    models.clear()


def test_mr1_ignores_an_entity_present_in_only_one_sentence():
    src = "Jordan visited the old bank in Paris."
    f = FollowUp.from_replacements(src, [Replacement(19, 27, "river bank")], "phrase_np")
    assert f.text == "Jordan visited the river bank in Paris."
    rel = MR1SharedEntities()
    src_pred = Prediction((Span(0, 6, "PERSON"), Span(31, 36, "LOCATION")))
    # The follow-up also labels "river bank" (only in the follow-up): not compared.
    fu_pred = Prediction((Span(0, 6, "PERSON"), Span(19, 29, "LOCATION"),
                          Span(33, 38, "LOCATION")))
    v = rel.check(source_text=src, follow_up=f, source_prediction=src_pred,
                  follow_up_prediction=fu_pred, expected=())
    assert v.outcome is Outcome.PASS
    # …but a shared entity whose type changes is a violation.
    fu_bad = Prediction((Span(0, 6, "LOCATION"), Span(33, 38, "LOCATION")))
    v = rel.check(source_text=src, follow_up=f, source_prediction=src_pred,
                  follow_up_prediction=fu_bad, expected=())
    assert v.outcome is Outcome.FAIL
    assert v.differences == ({"text": "Jordan", "source": "PERSON", "follow_up": "LOCATION"},)
