"""Repair with ``candidates: lm`` (context mutants from a causal LM) on a tiny random Llama built
here and a scripted system: mutants change only words around the entity, the vote, the
combination with the referee panel and the name lists, and the evidence recorded."""
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from runner import models  # noqa: E402
from runner.tasks.ner.repair.categories import occurrences  # noqa: E402
from runner.tasks.ner.repair.mutants import Job, LMContextCandidates, Mutant  # noqa: E402
from runner.tasks.ner.repair.relabel import Params, Relabeler, repaired  # noqa: E402
from runner.tasks.ner.types import Prediction, Span  # noqa: E402
from tests.test_lm import _save_llama  # noqa: E402
from helpers import ruler_pipeline  # noqa: E402

S = "yesterday the quiet council of Belgrano approved a large new budget for the old city ."
E = S.index("Belgrano")
JOB = Job(S, E, E + 8, ("ORGANIZATION", "PERSON"))


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    folder = _save_llama(tmp_path_factory.mktemp("llama"))
    models.clear()
    yield models.get_lm(str(folder), device="cpu")
    models.clear()


class WordSUT:
    """Labels "Belgrano" by the first cue word found in the sentence (else ``default``)."""

    def __init__(self, cues, default="ORGANIZATION"):
        self.cues = cues
        self.default = default
        self.calls = []

    def predict(self, texts):
        self.calls.append(list(texts))
        out = []
        for t in texts:
            label = next((lab for w, lab in self.cues.items() if f" {w} " in f" {t} "),
                         self.default)
            out.append(Prediction(tuple(Span(a, b, label) for a, b in occurrences("Belgrano", t)
                                        if label)))
        return out


class FixedSource:
    """Context mutants given by hand (p: perplexity rise in percent)."""

    name = "lm"

    def __init__(self, made):
        self.made = made

    def describe(self):
        return {"candidates": "lm"}

    def mutants(self, jobs):
        return [self.made.get(j, []) for j in jobs]


def _mutant(job, old, new, rise):
    a = job.text.index(old)
    shift = len(new) - len(old) if a < job.start else 0
    return Mutant(job, job.text[:a] + new + job.text[a + len(old):], job.start + shift,
                  job.end + shift, rise, False, old, new)


def test_slots_are_the_nearest_content_words_outside_the_entity():
    src = LMContextCandidates(lm=None, top_k=3, words=4)
    slots = [S[a:b] for a, b in src.slots(JOB)]
    # nearest first (word distance), either side; "of", "the", "a" are stop words (never slots)
    assert slots == ["approved", "council", "quiet", "large"]
    assert all(b <= E or a >= E + 8 for a, b in src.slots(JOB))
    # capitalised words (other names) are never replaced
    job = Job("Smith met Belgrano in Paris today", 10, 18)
    assert [job.text[a:b] for a, b in LMContextCandidates(None, 3, 4).slots(job)] == \
        ["met", "today"]


def test_mutants_keep_the_entity_and_change_one_context_word(tiny_lm):
    src = LMContextCandidates(tiny_lm, top_k=3, words=3)
    [made] = src.mutants([JOB])
    assert made
    slots = {S[a:b] for a, b in src.slots(JOB)}
    for m in made:
        assert m.text[m.start:m.end] == "Belgrano"                # the entity is untouched
        assert m.replaced in slots and m.by != m.replaced and m.by.islower()
        assert m.text.replace(m.by, m.replaced, 1) == S or \
            m.text[::-1].replace(m.by[::-1], m.replaced[::-1], 1)[::-1] == S
        # p is the perplexity rise in percent from the mean log-probability per token
        import math

        eps = tiny_lm.score([S])[0] - tiny_lm.score([m.text])[0]
        assert m.p == pytest.approx(100 * (math.exp(eps) - 1), abs=1e-3)
    passes = tiny_lm.forward_passes
    assert src.mutants([JOB]) == [made] and tiny_lm.forward_passes == passes   # asked again: cached


def test_the_vote_counts_labels_of_natural_mutants_in_one_system_call():
    made = {JOB: [_mutant(JOB, "council", "family", 2.0),      # → PERSON
                  _mutant(JOB, "quiet", "old", 1.0),           # → PERSON
                  _mutant(JOB, "budget", "plan", 3.0),         # → ORGANIZATION (the default)
                  _mutant(JOB, "approved", "ate", 50.0)]}      # too unnatural: dropped
    sut = WordSUT({"family": "PERSON", "old": "PERSON"})
    # "old" is also in "the old city" of every mutant: only the first cue counts, so script:
    sut = WordSUT({"family": "PERSON", "quiet old": "PERSON"})
    made[JOB][1] = _mutant(JOB, "quiet", "quiet old", 1.0)
    relabeler = Relabeler(FixedSource(made), None, sut,
                          Params(PThreshold=5.5, lm_rule="vote", alpha=0.2))
    [r] = relabeler.relabel([JOB]).values()
    assert len(sut.calls) == 1 and len(sut.calls[0]) == 3           # one call, survivors only
    assert r.dropped["p"] == 1 and r.kept == 3 and r.votes == 3
    assert r.decided and r.label == "PERSON" and r.basis == "vote" and r.vote == "PERSON"
    # F = exp(−ε) per vote: 1/(1 + rise/100)
    assert r.scores["PERSON"] == pytest.approx(1 / 1.02 + 1 / 1.01)
    assert r.scores["ORGANIZATION"] == pytest.approx(1 / 1.03)
    js = r.to_json()
    assert js["basis"] == "vote" and js["vote"] == "PERSON" and js["label"] == "PERSON"
    assert js["examples"][0]["by"] == "family" and js["examples"][0]["sim"] == 0.0
    final, notes = repaired((Span(E, E + 8, "ORGANIZATION"),), [r])
    assert final[0].label == "PERSON" and notes[0]["basis"] == "vote"


_ruler = ruler_pipeline


def test_rules_combine_vote_referees_and_name_lists(tmp_path):
    pytest.importorskip("spacy")
    a = _ruler(tmp_path / "a", [("Belgrano", "PERSON")])
    b = _ruler(tmp_path / "b", [("Belgrano", "ORG")])
    split = (_ruler(tmp_path / "a", [("Belgrano", "PERSON")]),
             _ruler(tmp_path / "b2", [("Belgrano", "ORG")]))
    agree = (a, _ruler(tmp_path / "c", [("Belgrano", "PERSON")]))
    f = "did the quiet council of Belgrano approve a large new budget for the old city ?"
    job = Job(S, E, E + 8, ("ORGANIZATION", "PERSON"), (f, f.index("Belgrano"),
                                                         f.index("Belgrano") + 8))
    made = {job: [_mutant(job, "council", "family", 0.0)]}
    sut = WordSUT({"family": "ORGANIZATION"}, default="PERSON")      # the vote: ORGANIZATION

    def run(rule, panel, gazetteer=False):
        rel = Relabeler(FixedSource(made), None, sut,
                        Params(lm_rule=rule, referees=panel, gazetteer=gazetteer))
        return rel.relabel([job])[job]

    # the panel agrees (PERSON) → it decides, whatever the vote
    r = run("referees_then_vote", agree)
    assert r.decided and r.label == "PERSON" and r.basis == "referees" and r.vote == "ORGANIZATION"
    # the panel is split → the vote decides
    r = run("referees_then_vote", split)
    assert r.decided and r.label == "ORGANIZATION" and r.basis == "vote"
    # vote_with_referee: one referee (b: ORG) reads it as the vote does
    r = run("vote_with_referee", split)
    assert r.decided and r.label == "ORGANIZATION" and r.basis == "vote+referee"
    # ... none does: the system's label stays
    sut.cues = {"family": "LOCATION"}
    r = run("vote_with_referee", split)
    assert not r.decided and "not confirmed" in r.abstained and r.vote == "LOCATION"
    # referees_or_vote_agree: a referee reads PERSON, the other disputed category → abstain
    sut.cues = {"family": "ORGANIZATION"}
    r = run("referees_or_vote_agree", split)
    assert not r.decided
    assert "basis" not in r.to_json() and r.to_json()["vote"] == "ORGANIZATION"


def test_name_lists_decide_before_the_vote(monkeypatch):
    from runner.tasks.ner.repair import gazetteer

    monkeypatch.setattr(gazetteer, "name_type", lambda name: "LOCATION")
    made = {JOB: [_mutant(JOB, "council", "family", 0.0)]}
    rel = Relabeler(FixedSource(made), None, WordSUT({}, default="PERSON"),
                    Params(lm_rule="vote", gazetteer=True))
    r = rel.relabel([JOB])[JOB]
    assert r.label == "LOCATION" and r.basis == "gazetteer" and r.vote == "PERSON"
    assert r.p_score == 1000.0


def test_analyzer_builds_the_lm_source_from_the_repair_section(tiny_lm, monkeypatch):
    from runner.tasks.ner.repair.analyzer import ViolationAnalyzer

    def refuse(*a, **k):
        raise AssertionError("candidates lm needs no masked LM or encoder")
    monkeypatch.setattr(models, "get_encoder", refuse)
    monkeypatch.setattr(models, "get_masked_lm", refuse)
    monkeypatch.setattr(models, "get_lm", lambda name, **k: tiny_lm)
    cfg = {"device": "cpu", "repair": {
        "enabled": True, "candidates": "lm", "lm": "tiny", "context_words": 2, "lm_rule": "vote",
        "referees": ["x"], "gazetteer": False, "top_k": 2, "PThreshold": 1e9, "SThreshold": 0.45,
        "k": 2.5, "alpha": 0.2, "lambda": 0.5, "min_votes": 1, "min_share": 0,
        "vote_labels": "any", "referee": None, "masked_lm": "x", "encoder": "x",
        "corpus_score": "masked_lm"}}
    an = ViolationAnalyzer.from_config(cfg, sut=WordSUT({}, default="PERSON"))
    assert an.backend == "lm:tiny:vote" and an.relabeler.panel == {}
    out = an.relabeler.relabel([JOB])[JOB]
    assert out.decided and out.label == "PERSON" and out.basis == "vote"
    assert 0 < out.kept <= 4 and an.relabeler.mutants_queried == out.kept
    assert an.params["candidates"] == "lm" and "referees" not in an.params


def test_one_vote_per_entity_shared_by_both_sentences_of_the_violation():
    f = "did the quiet council of Belgrano approve a large new budget for the old city ?"
    fb = f.index("Belgrano")
    src = Job(S, E, E + 8, ("ORGANIZATION", "PERSON"), (f, fb, fb + 8))
    fol = Job(f, fb, fb + 8, ("ORGANIZATION", "PERSON"), (S, E, E + 8))

    class Asked(FixedSource):
        def mutants(self, jobs):
            self.asked = list(jobs)
            return super().mutants(jobs)

    source = Asked({src: [_mutant(src, "council", "family", 0.0)]})
    sut = WordSUT({"family": "PERSON"})
    out = Relabeler(source, None, sut, Params(lm_rule="vote")).relabel([src, fol])
    assert source.asked == [src]                      # mutants of the first sentence only
    assert len(sut.calls) == 1 and len(sut.calls[0]) == 1
    for job in (src, fol):
        assert out[job].label == "PERSON" and out[job].basis == "vote" and out[job].votes == 1
