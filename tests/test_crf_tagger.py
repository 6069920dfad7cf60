"""The repair panel's embedded CRF referee (runner/tasks/ner/repair/crf_tagger.py) and the script
that trains it (bench/train_crf_referee.py)."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from runner.errors import ModelNotAvailable
from runner.tasks.ner.repair import crf_tagger

ROOT = Path(__file__).resolve().parent.parent
needs_crfsuite = pytest.mark.skipif(importlib.util.find_spec("pycrfsuite") is None,
                                    reason="python-crfsuite is not installed")


def _script():
    sys.path.insert(0, str(ROOT / "bench"))
    import train_crf_referee

    return train_crf_referee


def test_spans_read_bio_and_stray_inside_tags():
    tags = ["B-PER", "I-PER", "O", "I-LOC", "B-LOC", "I-ORG", "B-MISC"]
    assert crf_tagger.spans(tags) == [(0, 2, "PER"), (3, 4, "LOC"), (4, 5, "LOC"),
                                      (5, 6, "ORG"), (6, 7, "MISC")]
    assert crf_tagger.spans([]) == []


def test_features_see_shape_and_neighbours():
    f = crf_tagger.features(["Mr", "McDonald", "left", "."])
    assert "w=mcdonald" in f[1] and "shape=XxXxx" in f[1] and "cap" in f[1]
    assert "-1:w=mr" in f[1] and "1:w=left" in f[1] and "-2:edge" in f[1]
    assert "cap_first" in f[0] and "cap" not in f[2]


def test_training_readers_turn_every_scheme_into_bio(tmp_path):
    t = _script()
    assert t._bio(["I-PER", "I-PER", "B-PER", "O", "I-LOC"]) == \
        ["B-PER", "I-PER", "B-PER", "O", "B-LOC"]
    assert t.io_to_bio(["ORG", "ORG", "O", "PER"]) == ["B-ORG", "I-ORG", "O", "B-PER"]
    uner = tmp_path / "x.iob2"
    uner.write_text("# text = Al Zaman in Qaim\n1\tAl\tB-ORG\t-\ta\n2\tZaman\tI-ORG\t-\ta\n"
                    "3\tin\tB-O\t-\ta\n4\tQaim\tI-LOC\t-\ta\n\n", encoding="utf-8")
    assert list(t.read_uner(uner)) == [(["Al", "Zaman", "in", "Qaim"],
                                        ["B-ORG", "I-ORG", "O", "B-LOC"])]
    conll = tmp_path / "x.conll"
    conll.write_text("-DOCSTART- -X- O O\n\nACME NNP - I-ORG\nBank NNP - I-ORG\nsaid VBD - O\n"
                     "\n@bob\tB-person\nhi\tO\nMs\tB-corporation\n", encoding="utf-8")
    assert list(t.read_conll(conll)) == [(["ACME", "Bank", "said"], ["B-ORG", "I-ORG", "O"]),
                                         (["@bob", "hi", "Ms"], ["B-PER", "O", "B-ORG"])]


def test_the_overlap_guard_sees_eight_word_runs():
    t = _script()
    guard = t.windows("one two three four five six seven eight".split())
    assert t.windows("Yes , One two three four five six seven eight !".split()) & guard
    assert not (t.windows("one two three four five six seven nine".split()) & guard)


@needs_crfsuite
def test_a_model_trained_here_tags_what_it_learnt_and_serves_from_its_folder(tmp_path):
    data = [("John Smith went to Paris .".split(), ["B-PER", "I-PER", "O", "O", "B-LOC", "O"]),
            ("Acme Corp hired Mary .".split(), ["B-ORG", "I-ORG", "O", "B-PER", "O"])] * 20
    model = tmp_path / "crf_referee.crfsuite"
    assert crf_tagger.train(data, model, {"max_iterations": 50}) == 40
    import pycrfsuite

    tagger = pycrfsuite.Tagger()
    tagger.open(str(model))
    assert tagger.tag(crf_tagger.features("Mary went to Paris .".split())) == \
        ["B-PER", "O", "O", "B-LOC", "O"]
    # crf_referee: embedded:FOLDER serves a model with its card from that folder
    import hashlib

    from runner.tasks.ner.repair.crf_referee import crf_referee

    (tmp_path / "crf_referee.json").write_text(json.dumps({
        "sha256": hashlib.sha256(model.read_bytes()).hexdigest(), "sources": [],
        "corpus": {"name": "toy"}, "licence": "CC0"}), encoding="utf-8")
    crf = crf_referee(f"embedded:{tmp_path}")
    assert crf.name == "mtrun-crf:toy" and crf.describe()["licence"] == "CC0"
    text = "Mary went to Paris ."
    assert crf.read([text]) == [[(0, 4, "PERSON"), (13, 18, "LOCATION")]]
    # stored gzip-compressed, as the shipped model is, it reads the same
    import gzip
    import shutil

    packed = tmp_path / "packed"
    packed.mkdir()
    shutil.copy(tmp_path / "crf_referee.json", packed)
    (packed / "crf_referee.crfsuite.gz").write_bytes(gzip.compress(model.read_bytes()))
    again = crf_referee(f"embedded:{packed}")
    assert again.describe()["file"] == "crf_referee.crfsuite.gz"
    assert again.read([text]) == crf.read([text])


def test_a_model_that_does_not_match_its_card_is_refused(tmp_path):
    spec = f"embedded:{tmp_path}"
    if importlib.util.find_spec("pycrfsuite") is None:
        with pytest.raises(ModelNotAvailable, match="python-crfsuite"):
            crf_tagger.check(spec)
        return
    with pytest.raises(ModelNotAvailable, match="crf_referee.crfsuite is missing"):
        crf_tagger.check(spec)
    model, card = tmp_path / "crf_referee.crfsuite", tmp_path / "crf_referee.json"
    model.write_bytes(b"not the model")
    card.write_text(json.dumps({"sha256": "0" * 64, "sources": []}), encoding="utf-8")
    crf_tagger.card.cache_clear()
    try:
        with pytest.raises(ModelNotAvailable, match="does not match its card"):
            crf_tagger.check(spec)
        model.unlink()
        with pytest.raises(ModelNotAvailable, match="is missing"):
            crf_tagger.check(spec)
        model.write_bytes(b"not the model")
        card.write_text("{not json", encoding="utf-8")
        crf_tagger.card.cache_clear()
        with pytest.raises(ModelNotAvailable, match="not a model card"):
            crf_tagger.check(spec)
    finally:
        crf_tagger.card.cache_clear()


@needs_crfsuite
@pytest.mark.slow
def test_the_shipped_referee_reads_character_offsets():
    from runner.tasks.ner.repair.crf_referee import crf_referee, reading

    crf = crf_referee("embedded")
    assert crf is crf_referee("embedded") and crf.name.startswith("mtrun-crf:")
    assert crf.describe()["licence"].startswith("CC BY-SA 4.0")
    text = "Barack Obama flew from Chicago to London with executives of Microsoft."
    found = crf.read([text, ""])
    assert found[1] == []
    for a, b, typ in found[0]:
        assert text[a:b].strip() == text[a:b] and typ in {"PERSON", "LOCATION", "ORGANIZATION"}
    assert reading(found[0], 0, 12) == "PERSON"
    assert reading(found[0], text.index("London"), text.index("London") + 6) == "LOCATION"
