"""The repair panel's CRF referee (Stanford NER, another lineage than spaCy's pipelines)."""
from __future__ import annotations

import pytest

from runner.errors import ModelNotAvailable
from runner.tasks.ner.repair import crf_referee as crf_mod
from runner.tasks.ner.repair.mutants import Job
from runner.tasks.ner.repair.relabel import Params, Relabeler, panel_decision
from helpers import ruler_pipeline

P, L, O, N = "PERSON", "LOCATION", "ORGANIZATION", "NULL"


@pytest.mark.parametrize("spacy, crf, disputed, expected", [
    ([P, P, P, P], None, (O, P), (P, "referees")),             # no CRF: the panel as before
    ([P, P, P, P], [P, P], (O, P), (P, "referees")),
    ([P, P, P, P], [O, P], (O, P), (P, "referees")),           # the CRF split: no veto
    ([P, P, P, P], [L, L], (O, P), (P, "referees")),           # not a disputed category
    ([P, P, P, P], [O, O], (O, P), (None, "vetoed")),          # the other disputed category
    ([N, N, N, N], [O, O], (N, O), (None, "vetoed")),
    ([P, P, P, O], [P, P], (O, P), (P, "referees+crf")),       # all the spaCy readings but one
    ([P, P, O, O], [P, P], (O, P), (P, "referees+crf")),       # split: the CRF's type decides
    ([O, L, L, L], [P, P], (O, P), (P, "referees+crf")),       # ... even with no spaCy reading
    ([N, N, O, O], [N, N], (N, O), (None, "")),                # "no entity" needs all but one
    ([N, N, N, O], [N, N], (N, O), (N, "referees+crf")),
    ([P, P, P, O], [P, O], (O, P), (None, "")),                # the CRF split
    ([L, L, L, N], [L, L], (O, P), (None, "")),                # not disputed
    ([L, L, L, L], None, (O, P), (None, "")),
    ([L, L, L, N], [L, L], (), (L, "referees+crf")),           # nothing disputed: any reading
])
def test_panel_decision(spacy, crf, disputed, expected):
    assert panel_decision(spacy, crf, disputed) == expected


@pytest.mark.parametrize("spacy, alike, crf, disputed, expected", [
    ([L, L, L, N], [L, None], [L, L], (O, P), (L, "crf+referee")),    # a third type
    ([N, N, L, N], [N, None], [N, N], (O, P), (N, "crf+referee")),    # both sentences named it
    ([L, N, L, N], [None, None], [L, L], (O, P), (None, "")),         # no referee alike
    ([P, P, P, P], [P, P], [L, L], (O, P), (P, "referees")),          # the panel agrees first
    ([N, N, L, L], [N, L], [P, P], (O, P), (P, "referees+crf")),      # disputed: as before
])
def test_panel_decision_beyond_the_pair(spacy, alike, crf, disputed, expected):
    """``crf_beyond_pair``: the CRF's reading in both sentences, neither disputed category,
    decides with one spaCy referee reading it so in both sentences; off, it does not."""
    assert panel_decision(spacy, crf, disputed, alike=alike, beyond=True) == expected
    if expected[1] == "crf+referee":
        assert panel_decision(spacy, crf, disputed, alike=alike) == (None, "")   # the default


@pytest.mark.parametrize("spacy, crf, disputed, expected", [
    ([P, P, O, O], [P, P], (O, P), (None, "")),                # two dissent: no decision
    ([P, P, P, O], [P, P], (O, P), (P, "referees+crf")),       # all the spaCy readings but one
    ([P, P, P, P], [O, O], (O, P), (None, "vetoed")),
])
def test_panel_decision_without_splits(spacy, crf, disputed, expected):
    """``crf_decides_splits: false``: the earlier rule, the CRF confirms a near-unanimous panel."""
    assert panel_decision(spacy, crf, disputed, splits=False) == expected


class FakeCRF:
    """Reads a fixed type wherever a listed word stands."""
    name = "stanford-ner:fake"

    def __init__(self, types):
        self.types = types

    def read(self, texts):
        out = []
        for text in texts:
            out.append([(text.index(w), text.index(w) + len(w), t)
                        for w, t in self.types.items() if w in text])
        return out

    def describe(self):
        return {"model": self.name}


@pytest.fixture
def panel(tmp_path):
    a = ruler_pipeline(tmp_path / "a", [("Belgrano", "PERSON"), ("Salta", "ORG"),
                                        ("Jujuy", "GPE"), ("Tilcara", "GPE")])
    b = ruler_pipeline(tmp_path / "b", [("Belgrano", "PERSON"), ("Salta", "ORG"),
                                        ("Jujuy", "ORG"), ("Tilcara", "GPE"),
                                        ("Tilcara Fort", "ORG")])
    return a, b


def _job(s, f, word, disputed):
    return Job(s, s.index(word), s.index(word) + len(word), disputed,
               (f, f.index(word), f.index(word) + len(word)))


def test_the_crf_vetoes_the_panel_decides_its_splits_and_checks_the_name_lists(panel):
    s, f = "Belgrano met Salta in Jujuy and Vladivostok.", \
        "Did Belgrano meet Salta in Jujuy and Vladivostok?"
    vetoed = _job(s, f, "Belgrano", (O, P))          # spaCy: PERSON; the CRF: ORGANIZATION
    kept = _job(s, f, "Salta", (O, P))               # spaCy: ORGANIZATION; the CRF agrees
    tie = _job(s, f, "Jujuy", (L, O))                # spaCy split 2-2: the CRF's type decides
    listed = _job(s, f, "Vladivostok", (L, P))       # nobody's name; the lists: LOCATION
    relabeler = Relabeler(None, None, None, Params(referees=panel, gazetteer=True))
    relabeler.crf = FakeCRF({"Belgrano": O, "Salta": O, "Jujuy": L, "Vladivostok": O})
    out = relabeler.relabel([vetoed, kept, tie, listed])
    assert not out[vetoed].decided and out[vetoed].vetoed
    assert out[vetoed].abstained.startswith("vetoed: the referees read it")
    assert out[vetoed].readings["stanford-ner:fake"] == [O, O]
    assert out[kept].decided and out[kept].label == O and out[kept].basis == "referees"
    assert out[tie].decided and out[tie].label == L and out[tie].basis == "referees+crf"
    # the lists say LOCATION, the CRF reads an organisation (not disputed) in both sentences:
    # neither decides
    assert not out[listed].decided and "the name lists say LOCATION" in out[listed].abstained
    # three spaCy readings of four and the CRF in both sentences decide; two of four do not
    s2, f2 = "Troops left Tilcara.", "Troops left Tilcara Fort."
    three = Job(s2, 12, 19, (L, N), (f2, 12, 19))     # b reads "Tilcara Fort" in the follow-up
    relabeler.crf = FakeCRF({"Tilcara": L})
    out = relabeler.relabel([three])
    assert out[three].decided and out[three].label == L and out[three].basis == "referees+crf"
    assert out[three].readings[panel[1]] == [L, N]
    assert relabeler.describe()["referees"][-1] == {"model": "stanford-ner:fake"}
    assert "when it names a type" in relabeler.describe()["decision"]
    # a category neither sentence gave it: the CRF and spaCy pipeline a read LOCATION in both
    third = _job(s, f, "Jujuy", (P, N))
    beyond = Relabeler(None, None, None, Params(referees=panel, crf_beyond_pair=True))
    beyond.crf = FakeCRF({"Jujuy": L})
    out = beyond.relabel([third])
    assert out[third].decided and out[third].label == L and out[third].basis == "crf+referee"
    assert "neither disputed category" in beyond.describe()["decision"]
    relabeler.crf = FakeCRF({"Jujuy": L})                # the default: within the pair
    assert not relabeler.relabel([third])[third].decided
    assert "neither disputed category" not in relabeler.describe()["decision"]
    # the earlier rule (crf_decides_splits: false): a 2-2 split is left alone
    earlier = Relabeler(None, None, None, Params(referees=panel, crf_decides_splits=False))
    earlier.crf = FakeCRF({"Jujuy": L})
    assert not earlier.relabel([tie])[tie].decided
    assert "when it names a type" not in earlier.describe()["decision"]


def test_tokens_and_spans_follow_spacys_tokenizer():
    toks = crf_mod.tokens("Zürich\u00a0 (UN) office of Ban Ki-moon.")
    assert [t[0] for t in toks][:4] == ["Zürich", "(", "UN", ")"]
    assert all(" " not in w and "\u00a0" not in w for w, _, _ in toks)
    words = [w for w, _, _ in toks]
    labels = ["LOCATION", "O", "ORGANIZATION", "O", "O", "O"] + ["PERSON"] * (len(words) - 7) \
        + ["O"]
    found = crf_mod.spans(toks, labels)
    text = "Zürich\u00a0 (UN) office of Ban Ki-moon."
    assert [(text[a:b], t) for a, b, t in found] == [("Zürich", L), ("UN", O),
                                                     ("Ban Ki-moon", P)]
    assert crf_mod.spans(toks[:1], ["DATE"]) == []             # 7-class labels: none of three


def test_a_missing_model_file_says_what_to_install(tmp_path):
    with pytest.raises(ModelNotAvailable, match="stanford-ner.jar"):
        crf_mod.locate(str(tmp_path / "english.all.3class.distsim.crf.ser"))


def test_the_stanford_crf_reads_sentences_in_one_process():
    """The real model (cltl.triple-extraction's copy of Stanford NER 3.9.1; needs Java)."""
    referee = crf_mod.crf_referee("stanford")
    texts = ["Angela Merkel hosted the summit in Berlin with Microsoft.",
             "", "See, e.g., the report.  Reesman Bryan wrote it in Zürich."]
    found = referee.read(texts)
    assert [[(texts[0][a:b], t) for a, b, t in found[0]]] == [[
        ("Angela Merkel", P), ("Berlin", L), ("Microsoft", O)]]
    assert found[1] == []
    assert ("Zürich", L) in [(texts[2][a:b], t) for a, b, t in found[2]]
    assert crf_mod.reading(found[0], 0, 13) == P and crf_mod.reading(found[0], 0, 6) is None
    assert referee.read(texts[:1]) == found[:1]                # the same process answers again
    assert referee.describe()["licence"].startswith("GPL-2.0")


def test_mtrun_models_tells_whether_the_crf_is_at_hand(tmp_path):
    from runner.models.inventory import Need, check

    assert check(Need("repair", "referee NER", "crf", "stanford")).available
    missing = check(Need("repair", "referee NER", "crf", str(tmp_path / "x.crf.ser")))
    assert not missing.available and missing.where.startswith("missing: ")
