"""RE inputs: validation, the JSON-lines and TACRED readers (offsets, brackets, located errors),
and the systems under test on a tiny random BERT classifier (entity markers at the right
offsets, batched predictions, id2label) and on textacy."""
from __future__ import annotations

import json

import pytest

from runner.errors import ModelNotAvailable, SuiteError
from runner.tasks.re.corpus import RECorpusReader
from runner.tasks.re.sut.markers import STYLES, mark, marker_templates
from runner.tasks.re.tables import TACRED_ENTITY_TYPES, TACRED_RELATIONS
from runner.tasks.re.types import Argument, InvalidPair, REInput, validate_pair
from tests.re_fixtures import TINY_LABELS, pair, source, tiny_bert_classifier

TEXT = "Anna Keller married Tom Brandt in 2009."


def reader(path, **kw):
    return RECorpusReader(path, entity_types=TACRED_ENTITY_TYPES, relations=TACRED_RELATIONS, **kw)


def line(**over):
    obj = {"id": "p1", "text": TEXT, "head": {"start": 0, "end": 11, "type": "PERSON"},
           "tail": {"start": 20, "end": 30, "type": "PERSON"}, "relation": "per:spouse"}
    obj.update(over)
    return json.dumps(obj)


def test_validation_messages():
    ok_h, ok_t = Argument(0, 11, "PERSON"), Argument(20, 30, "PERSON")
    validate_pair(TEXT, ok_h, ok_t, TACRED_ENTITY_TYPES)
    bad = [("", ok_h, ok_t, "empty"),
           (TEXT, Argument(0, 99, "PERSON"), ok_t, "outside the text"),
           (TEXT, ok_h, Argument(0, 11, "PERSON"), "same mention"),
           (TEXT, ok_h, Argument(5, 11, "PERSON"), "overlap"),
           (TEXT, ok_h, Argument(20, 30, "PERSONN"), "did you mean 'PERSON'")]
    for text, h, t, msg in bad:
        with pytest.raises(InvalidPair, match=msg):
            validate_pair(text, h, t, TACRED_ENTITY_TYPES)


def test_jsonl_reader(tmp_path):
    p = tmp_path / "c.jsonl"
    p.write_text(line() + "\n\n" + line(id="p2", coref={"head": [{"start": 5, "end": 11}]}) + "\n")
    a, b = list(reader(p))
    assert pair(a.input) == ("Anna Keller", "Tom Brandt") and a.gold == "per:spouse"
    assert a.origin == "c.jsonl:1" and b.origin == "c.jsonl:3"
    assert b.coref["head"][0].text_in(TEXT) == "Keller" and b.coref["head"][0].type == "PERSON"


@pytest.mark.parametrize("bad, message", [
    ("{not json", "invalid JSON"),
    (line(head={"start": 0, "end": 99, "type": "PERSON"}), "outside the text"),
    (line(tail={"start": 0, "end": 11, "type": "PERSON"}), "same mention"),
    (line(tail={"start": 5, "end": 11, "type": "PERSON"}), "overlap"),
    (line(head={"start": 0, "end": 11, "type": "PERSN"}), "not a known entity type"),
    (line(text=""), "non-empty"),
    (line(tail={"start": 21, "end": 30, "type": "PERSON"}), "inside a word"),
    (line(relation="per:spuse"), "did you mean 'per:spouse'"),
    (line(head={"start": 0, "end": 11, "type": "PERSON", "text": "Anna"}), "does not match"),
    (line(tail=None), '"tail" must be'),
])
def test_jsonl_reader_errors_name_file_and_line(tmp_path, bad, message):
    p = tmp_path / "c.jsonl"
    p.write_text(line() + "\n" + bad + "\n")
    with pytest.raises(SuiteError, match=message) as e:
        reader(p).count()
    assert str(e.value).startswith(f"{p}:2: ")


TACRED_ITEM = {"id": "e7798fb926b9403cfcd2", "relation": "per:title",
               "token": ["At", "the", "same", "time", ",", "Chief", "Financial", "Officer",
                         "Douglas", "Flint", "-LRB-", "HSBC", "-RRB-", "will", "become",
                         "chairman", "."],
               "subj_start": 8, "subj_end": 9, "obj_start": 5, "obj_end": 7,
               "subj_type": "PERSON", "obj_type": "TITLE"}


def test_tacred_reader_converts_token_offsets(tmp_path):
    p = tmp_path / "dev.json"
    second = dict(TACRED_ITEM, id="x2", subj_start=11, subj_end=11, subj_type="ORGANIZATION",
                  obj_start=8, obj_end=9, obj_type="PERSON", relation="org:top_members/employees")
    p.write_text(json.dumps([TACRED_ITEM, second], indent=1))
    a, b = list(reader(p))
    assert a.text == ("At the same time , Chief Financial Officer Douglas Flint ( HSBC ) will "
                      "become chairman .")
    assert pair(a.input) == ("Douglas Flint", "Chief Financial Officer")
    assert a.head.type == "PERSON" and a.tail.type == "TITLE" and a.gold == "per:title"
    assert a.id == "e7798fb926b9403cfcd2"
    assert pair(b.input) == ("HSBC", "Douglas Flint")
    assert b.origin.startswith("dev.json:") and b.origin != a.origin


@pytest.mark.parametrize("change, message", [
    ({"subj_end": 40}, "subj_end = 40 is not a token index"),
    ({"obj_start": 8, "obj_end": 9}, "same mention"),
    ({"subj_type": "PERSONA"}, "not a known entity type"),
    ({"token": []}, "non-empty list"),
    ({"subj_start": 9, "subj_end": 8}, "is after"),
])
def test_tacred_reader_errors_name_the_item(tmp_path, change, message):
    p = tmp_path / "train.json"
    bad = {**TACRED_ITEM, **change}
    p.write_text(json.dumps([TACRED_ITEM, bad], indent=1))
    with pytest.raises(SuiteError, match=message) as e:
        reader(p).count()
    assert "item 1:" in str(e.value) and str(e.value).startswith(f"{p}:")
    missing = {k: v for k, v in TACRED_ITEM.items() if k != "obj_type"}
    p.write_text(json.dumps([missing]))
    with pytest.raises(SuiteError, match="item 0: TACRED item without obj_type"):
        reader(p).count()


def test_tacred_reader_broken_json(tmp_path):
    p = tmp_path / "t.json"
    p.write_text(json.dumps([TACRED_ITEM])[:-30])
    with pytest.raises(SuiteError, match="invalid JSON|not closed"):
        reader(p).count()


def test_shipped_sample_corpus_is_valid():
    from pathlib import Path

    sources = list(reader(Path(__file__).parent.parent / "suites" / "data" / "re_sample.jsonl"))
    assert len(sources) >= 100
    assert sum(bool(s.coref) for s in sources) >= 5
    assert sum(s.tail.type == "NUMBER" for s in sources) >= 5


# -- entity markers and the hf classifier ---------------------------------------------------------
def test_marker_styles():
    inp = REInput(TEXT, Argument(0, 11, "PERSON"), Argument(20, 30, "PERSON"))
    text, (h, t) = mark(inp, marker_templates("entity_markers"))
    assert text == "[E1] Anna Keller [/E1] married [E2] Tom Brandt [/E2] in 2009."
    assert text[h:].startswith("[E1]") and text[t:].startswith("[E2]")
    text, _ = mark(inp.swapped(), marker_templates("typed_markers"))
    assert text == ("<O:PERSON> Anna Keller </O:PERSON> married <S:PERSON> Tom Brandt "
                    "</S:PERSON> in 2009.")
    org = REInput("Helix Labs hired Ann Lee.", Argument(0, 10, "ORGANIZATION"),
                  Argument(17, 24, "PERSON"))
    text, _ = mark(org, marker_templates("typed_markers_punct"))
    assert text == "@ * organization * Helix Labs @ hired # ^ person ^ Ann Lee #."
    assert mark(org, marker_templates("punct_markers"))[0] == "@ Helix Labs @ hired # Ann Lee #."
    assert set(STYLES) == {"entity_markers", "typed_markers", "typed_markers_punct",
                           "punct_markers"}
    with pytest.raises(ValueError, match="unknown marker style"):
        marker_templates("bracket")


def test_hf_classifier_markers_batches_and_labels(tmp_path):
    import torch

    from runner.tasks.re.sut.hf import HuggingFaceRE

    tok, model = tiny_bert_classifier(tmp_path)
    system = HuggingFaceRE(model="tiny", marker_style="entity_markers", loaded=(tok, model),
                           batch_size=3)
    a = source("Anna Keller married Tom Brandt in 2009.", "Anna Keller", "PERSON",
               "Tom Brandt", "PERSON").input
    b = source("Anna Keller adopted Lena.", "Lena", "PERSON", "Anna Keller", "PERSON").input
    inputs = [a, b, a.swapped(), b.swapped(), a]
    # markers are single tokens around exactly the argument's words
    ids = tok(system.marked([a]))["input_ids"][0]
    words = tok.convert_ids_to_tokens(ids)
    assert words[1:5] == ["[E1]", "anna", "keller", "[/E1]"]
    assert words[6:10] == ["[E2]", "tom", "brandt", "[/E2]"]
    batched = system.predict(inputs)
    one_by_one = [system.__class__(model="tiny", marker_style="entity_markers",
                                   loaded=(tok, model)).predict([i])[0] for i in inputs]
    assert [p.label for p in batched] == [p.label for p in one_by_one]
    assert all(p.label in TINY_LABELS for p in batched)
    for x, y in zip(batched, one_by_one):
        assert x.score == pytest.approx(y.score, abs=1e-5)
    assert system.stats()["texts_sent"] == 4        # the repeated input came from the cache
    # the label is the model's id2label name, through the suite's label map
    tok, model = tiny_bert_classifier(tmp_path, bias=[0, 0, 9, 0])
    fixed = HuggingFaceRE(model="tiny", marker_style="entity_markers", loaded=(tok, model),
                          label_map={"per:children": "per:parents"})
    [p] = fixed.predict([a])
    assert p.label == "per:parents" and p.raw_label == "per:children" and p.score > 0.9
    # an input that does not fit is an error, never a truncated guess
    short = HuggingFaceRE(model="tiny", marker_style="entity_markers", loaded=(tok, model),
                          max_length=12)
    fit, long = short.predict_outcomes([b, a])
    assert fit.label == "per:children"
    assert "more than max_length 12" in long.reason
    assert isinstance(torch.__version__, str)


def test_hub_models_fail_offline_with_the_clear_message(monkeypatch):
    from runner.tasks.re.sut.hf import HuggingFaceRE, LukeRE

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelNotAvailable, match="is not available here.*HF_HUB_OFFLINE"):
        HuggingFaceRE(model="someone/bert-base-tacred-not-cached")
    with pytest.raises(ModelNotAvailable, match="LukeForEntityPairClassification"):
        LukeRE(model="studio-ousia/luke-large-finetuned-tacred")


# -- textacy ------------------------------------------------------------------------------------
@pytest.mark.slow
def test_textacy_reads_triples_as_relations():
    from runner.tasks.re.sut.textacy_sut import TextacyRE

    system = TextacyRE()
    s = "Anna Keller married Tom Brandt and adopted Lena."
    cases = [(source(s, "Anna Keller", "PERSON", "Tom Brandt", "PERSON"), "per:spouse"),
             (source(s, "Tom Brandt", "PERSON", "Anna Keller", "PERSON"), "per:spouse"),
             (source(s, "Anna Keller", "PERSON", "Lena", "PERSON"), "per:children"),
             (source(s, "Lena", "PERSON", "Anna Keller", "PERSON"), "per:parents"),
             (source(s, "Tom Brandt", "PERSON", "Lena", "PERSON"), "no_relation"),
             (source("Brightwater was founded by Jonas Weber.", "Brightwater", "ORGANIZATION",
                     "Jonas Weber", "PERSON"), "org:founded_by"),
             (source("Lena Park was born in Denver.", "Lena Park", "PERSON", "Denver", "CITY"),
              "per:city_of_birth"),
             (source("Lena Park was born in Colorado.", "Lena Park", "PERSON", "Colorado",
                     "STATE_OR_PROVINCE"), "per:stateorprovince_of_birth"),
             (source("Maria Ortiz did not marry Paul Dunn.", "Maria Ortiz", "PERSON",
                     "Paul Dunn", "PERSON"), "no_relation")]
    preds = system.predict([c.input for c, _ in cases])
    assert [p.label for p in preds] == [want for _, want in cases]
    assert preds[1].raw_label == "svo:marry(tail, head)"
    assert preds[-1].raw_label == "svo:not marry(head, tail)"
    pure = TextacyRE(prepositional_objects=False)
    [p] = pure.predict([cases[6][0].input])
    assert p.label == "no_relation"        # textacy's SVO alone has no prepositional objects
