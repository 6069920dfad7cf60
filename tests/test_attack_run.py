"""Attacks in a run: the suite section, the engine stage, --resume, and every output."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from runner.errors import SuiteError  # noqa: E402
from runner.suite import load_suite  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _write(tmp_path: Path, body: str, corpus: str | None = None) -> Path:
    (tmp_path / "c.txt").write_text(corpus or "Anna met Bob in Paris.\n", encoding="utf-8")
    path = tmp_path / "s.yaml"
    path.write_text("name: s\ntask: ner\nsut: {type: spacy}\ncorpus: {path: c.txt}\n" + body,
                    encoding="utf-8")
    return path


def test_a_suite_needs_transformations_or_attacks(tmp_path):
    with pytest.raises(SuiteError, match="at least one transformation"):
        load_suite(_write(tmp_path, "transformations: []\n"))
    suite = load_suite(_write(tmp_path, "transformations: []\nattacks: [{type: entity}]\n"))
    assert suite.config["attacks"][0]["max_candidates"] == 50
    assert suite.config["relations"] == []


def test_the_context_attack_takes_candidates_from_the_lm(tmp_path):
    suite = load_suite(_write(tmp_path, "transformations: []\nattacks: [{type: entity_context, "
                                        "candidates: lm}]\n"))
    attack = suite.config["attacks"][0]
    assert (attack["candidates"], attack["lm"], attack["lm_wordnet"]) == ("lm", "smollm2", "none")


def test_attack_suite_errors_name_file_and_line(tmp_path):
    with pytest.raises(SuiteError) as e:
        load_suite(_write(tmp_path, "transformations: []\nattacks:\n  - type: entity_contxt\n"))
    assert "s.yaml:7" in str(e.value) and "did you mean 'entity_context'" in str(e.value)
    with pytest.raises(SuiteError, match="listed twice"):
        load_suite(_write(tmp_path, "transformations: []\nattacks: [{type: entity}, "
                                    "{type: entity}]\n"))
    with pytest.raises(SuiteError, match="file not found"):
        load_suite(_write(tmp_path, "transformations: []\nattacks: [{type: entity, "
                                    "pool_file: nowhere.tsv}]\n"))
    with pytest.raises(SuiteError, match="no `attacks:`"):
        load_suite(_write(tmp_path, "transformations: [{type: entity_shuffle}]\nreport: "
                                    "{fail_on: {max_attack_success_rate: 0.5}}\n"))


def test_pool_file_is_read_and_checked(tmp_path):
    from runner.tasks.ner.attacks.stage import read_pool_file
    from runner.errors import MtrunError

    good = tmp_path / "pool.tsv"
    good.write_text("# gazetteer\nPERSON\tAda Lovelace\nLOCATION\tKyoto\n", encoding="utf-8")
    assert read_pool_file(good) == {"PERSON": ["Ada Lovelace"], "LOCATION": ["Kyoto"]}
    bad = tmp_path / "bad.tsv"
    bad.write_text("PERSON Ada\n", encoding="utf-8")
    with pytest.raises(MtrunError, match="bad.tsv:1: expected TYPE<TAB>entity"):
        read_pool_file(bad)


def test_counter_fitted_vectors_file_gives_nearest_words(tmp_path):
    from runner.text.candidates import TextVectorCandidates

    path = tmp_path / "vectors.txt"
    path.write_text("bought 1 0 0\npurchased 0.9 0.1 0\nobtained 0.8 0.3 0\ncat 0 0 1\n",
                    encoding="utf-8")
    source = TextVectorCandidates(str(path))

    class Tok:
        text = "bought"

    assert [w for w, _ in source.candidates([Tok()], [0], 2)[0]] == ["purchased", "obtained"]


SYNTHETIC_RECORD = {
    "id": "s:1/entity_context/0", "source_id": "s:1", "origin": "c.txt:1",
    "attack": "entity_context", "reference": "prediction", "importance": "labels",
    "text": "Anna <b>met</b> Bob in Paris.",
    "entity": {"start": 0, "end": 4, "label": "PERSON", "text": "Anna"},
    "words": ["Anna"], "labels_before": ["B-PERSON"], "labels_after": ["O"],
    "prediction_before": [{"start": 0, "end": 4, "label": "PERSON"}],
    "prediction_after": [], "outcome": "success", "wrong": 1,
    "adversarial": "Anna <b>saw</b> Bob in Paris.", "edit": [{"start": 8, "end": 11, "new": "saw"}],
    "changes": [{"start": 8, "end": 11, "original": "met", "new": "saw",
                 "word_similarity": 0.7}],
    "similarity": 0.93, "perturbed": 1, "out_of_mention_words": 3, "words_perturbed_pct": 33.33,
    "queries": 7, "calls": 2, "note": "",
}


def _results_with_attack(fail_on: dict) -> dict:
    from synthetic import synthetic_run

    from runner.tasks.ner.attacks.metrics import summarise
    from runner.report.thresholds import evaluate_thresholds

    results, cases = synthetic_run(2, 2, fail_on=fail_on)
    summary = summarise([SYNTHETIC_RECORD])
    results["attacks"] = {"components": [{"type": "entity_context", "importance_used": "labels"}],
                          "summary": summary, "calls": 2, "records": [SYNTHETIC_RECORD]}
    results["thresholds"] = evaluate_thresholds(fail_on, results["overall"], results["relations"],
                                                attacks=summary)
    return results, cases


def test_outputs_show_attacks_escaped(tmp_path):
    from runner.report.outputs import load_results, write_outputs

    results, cases = _results_with_attack({"max_attack_success_rate": 0.5})
    assert results["thresholds"]["status"] == "fail"
    written = write_outputs(results, cases, tmp_path, ["json", "html", "junit", "markdown"])
    assert len(written) == 4
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "Adversarial attacks" in html and "<b>saw</b>" not in html
    assert "&lt;b&gt;" in html and '<span class="chg">saw</span>' in html
    assert "black-box" in html
    junit = (tmp_path / "junit.xml").read_text(encoding="utf-8")
    assert 'classname="s.attacks"' not in junit  # the synthetic suite is named "synthetic"
    assert 'classname="synthetic.attacks" name="entity_context"' in junit
    assert "AdversarialAttackSuccess" in junit
    md = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "| entity\\_context | 1 | 100.0% |" in md and "❌" in md
    # results.json keeps the records and passes its schema
    again = load_results(tmp_path / "results.json")
    assert again["attacks"]["records"][0]["adversarial"] == SYNTHETIC_RECORD["adversarial"]


def test_diff_compares_attack_success(tmp_path):
    from runner.report.diff import compare, console_diff, markdown_diff

    old, _ = _results_with_attack({})
    new, _ = _results_with_attack({})
    resisted = dict(SYNTHETIC_RECORD, outcome="failed", wrong=0, labels_after=["B-PERSON"])
    from runner.tasks.ner.attacks.metrics import summarise

    new["attacks"] = dict(new["attacks"], records=[resisted], summary=summarise([resisted]))
    d = compare(dict(old, cases=[]), dict(new, cases=[]))
    assert d["attacks"]["rows"][0]["delta"] == -1.0
    assert len(d["attacks"]["resisted"]) == 1 and not d["attacks"]["new_successes"]
    assert "fooled only in the old one" in console_diff(d)
    assert "| entity\\_context | 1/1 | 100.0% | 0/1 | 0.0% |" in markdown_diff(d)


@pytest.mark.slow
def test_attack_run_survives_resume_and_reports(tmp_path):
    """spaCy + both attacks on four sentences, two per batch: stopped after the first batch and
    resumed, the records equal an uninterrupted run's — none lost, none twice."""
    from runs import stop_after_first_batch_then_resume

    corpus = ("Chancellor Olaf Brandt met President Élise Moreau in Berlin.\n"
              "The European Commission has opened an investigation into state aid.\n"
              "Prime Minister Karen Whitfield will visit Canada and Mexico next month.\n"
              "Voters in Scotland rejected the proposal by a narrow margin.\n")
    suite = load_suite(_write(tmp_path, "transformations: []\nattacks:\n"
                              "  - {type: entity_context, max_entities_per_source: 1}\n"
                              "  - {type: entity, max_candidates: 5, max_entities_per_source: 1}\n"
                              "limits: {batch_size: 2}\n", corpus))
    whole, first, resumed = stop_after_first_batch_then_resume(suite, tmp_path)
    assert first.sources_done == 2
    ids = [r["id"] for r in resumed["attacks"]["records"]]
    assert len(ids) == len(set(ids))
    strip = (lambda recs: [{k: v for k, v in r.items()} for r in recs])
    assert strip(resumed["attacks"]["records"]) == strip(whole["attacks"]["records"])
    assert resumed["attacks"]["summary"] == whole["attacks"]["summary"]
    kinds = {r["attack"] for r in whole["attacks"]["records"]}
    assert kinds == {"entity_context", "entity"}
    ctx = next(c for c in whole["components"]["attacks"] if c["type"] == "entity_context")
    assert ctx["importance_used"] == "logits" and ctx["word_scores"] == "beam probabilities"
    for r in whole["attacks"]["records"]:
        assert r["queries"] >= 0 and r["outcome"] in ("success", "partial", "failed")
        assert r["reference"] == "prediction"


@pytest.mark.slow
def test_attack_suite_runs_from_the_command_line(tmp_path):
    from runner.cli import main

    code = main(["suites/attack_spacy.yaml" if Path("suites/attack_spacy.yaml").exists()
                 else str(ROOT / "suites" / "attack_spacy.yaml"),
                 "-o", str(tmp_path / "out"), "--max-sources", "3", "-q"])
    assert code in (0, 1)
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert results["attacks"]["records"]
    assert {r["reference"] for r in results["attacks"]["records"]} == {"gold"}


def test_attacks_are_refused_on_the_ray_engine(tmp_path):
    """The Ray workers run the metamorphic part only: an attack suite on them is a clear error,
    never a run that silently skips its attacks."""
    from runner.errors import MtrunError
    from runner.execution import make_engine
    from runner.suite import load_suite

    suite = load_suite(ROOT / "suites" / "attack_spacy.yaml")
    suite.config["execution"] = {"engine": "ray", "workers": 2}
    with pytest.raises(MtrunError, match="does not run `attacks:`"):
        make_engine(suite, tmp_path)
