"""Relation extraction end to end: the offline default suite through the CLI (results, JUnit,
Markdown, HTML, diff), a hub model offline (exit 4), a bad corpus (exit 4 before any model), a
system crashing on one input (an error case, the run goes on)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from runner.cli import main
from runner.errors import ExitCode

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def re_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("re_run")
    proc = subprocess.run([sys.executable, "-m", "runner", str(ROOT / "suites" / "re_textacy.yaml"),
                           "--max-sources", "60", "-o", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    return proc, out


def test_default_re_suite_runs_offline(re_run):
    import jsonschema
    import xmlschema

    from runner.report.outputs import RESULTS_SCHEMA_PATH

    proc, out = re_run
    assert proc.returncode in (ExitCode.OK, ExitCode.VIOLATIONS), proc.stderr
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["task"] == "re"
    schema = json.loads(RESULTS_SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(results)
    xmlschema.XMLSchema(str(ROOT / "tests" / "data" / "junit.xsd")).validate(str(out / "junit.xml"))
    rows = {r["transformation"]: r for r in results["summary"]}
    assert set(rows) == {"same_type_entity", "coarser_entity", "co_related_entity",
                         "coreferent_mention", "symmetric_swap", "antisymmetric_swap",
                         "shared_head_composition", "shared_tail_composition"}
    for name in ("same_type_entity", "coarser_entity", "coreferent_mention", "symmetric_swap",
                 "antisymmetric_swap", "shared_head_composition"):
        assert rows[name]["follow_ups"] > 0, name
    assert "textacy" in json.dumps(results["components"]["sut"])
    fails = [c for c in results["cases"] if c["verdict"]["outcome"] == "fail"]
    assert fails
    for c in fails:
        f = c["follow_up"]
        assert f["relation"]["label"] != f["expected"]
        assert f["text"][f["head"]["start"]:f["head"]["end"]] == f["head"]["text"]
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "Violation rate per metamorphic relation" in html and 'class="ent re-head"' in html
    assert (out / "summary.md").read_text(encoding="utf-8").startswith("### mtrun · re\\_textacy")


def test_re_run_diffs_with_itself(re_run, tmp_path, capsys):
    _, out = re_run
    rc = main(["diff", str(out / "results.json"), str(out / "results.json"), "-o", str(tmp_path),
               "--fail-on-new"])
    assert rc == ExitCode.OK
    assert (tmp_path / "diff.html").is_file() and (tmp_path / "diff.md").is_file()


def test_hub_suite_offline_exits_4_with_the_clear_message(tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    suite = str(ROOT / "suites" / "re_tacred_hf.yaml")
    proc = subprocess.run([sys.executable, "-m", "runner", suite, "-o", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=600, env=env)
    assert proc.returncode == ExitCode.USAGE_ERROR, proc.stderr
    assert "studio-ousia/luke-large-finetuned-tacred' is not available here" in proc.stderr
    assert "save_pretrained" in proc.stderr and "Traceback" not in proc.stderr


def _suite(tmp_path: Path, corpus: str, sut: str = "type: textacy") -> Path:
    (tmp_path / "pairs.jsonl").write_text(corpus, encoding="utf-8")
    path = tmp_path / "suite.yaml"
    path.write_text(f"name: t\ntask: re\nsut: {{{sut}}}\ncorpus: {{path: pairs.jsonl}}\n"
                    "transformations:\n  - type: symmetric_swap\n  - type: antisymmetric_swap\n",
                    encoding="utf-8")
    return path


def test_bad_corpus_exits_4_naming_file_and_line(tmp_path, capsys):
    good = json.dumps({"text": "Anna Keller married Tom Brandt.",
                       "head": {"start": 0, "end": 11, "type": "PERSON"},
                       "tail": {"start": 20, "end": 30, "type": "PERSON"}})
    bad = good.replace('"start": 20, "end": 30', '"start": 0, "end": 11')
    rc = main([str(_suite(tmp_path, good + "\n" + bad + "\n")), "-o", str(tmp_path / "out")])
    assert rc == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert "pairs.jsonl:2: head and tail are the same mention" in err
    assert "loading system under test" not in err       # before any model loads


def test_a_system_crashing_on_one_input_is_an_error_case(tmp_path, monkeypatch):
    from runner.tasks.re.sut.textacy_sut import TextacyRE

    original = TextacyRE._answer

    def crashing(self, inputs):
        if any("Brandt" in i.text and i.head.text_in(i.text) == "Tom Brandt" for i in inputs):
            raise RuntimeError("the parser fell over")
        return original(self, inputs)

    monkeypatch.setattr(TextacyRE, "_answer", crashing)
    line = lambda h, t: json.dumps({  # noqa: E731
        "text": "Anna Keller married Tom Brandt.",
        "head": {"start": h[0], "end": h[1], "type": "PERSON"},
        "tail": {"start": t[0], "end": t[1], "type": "PERSON"}})
    corpus = line((0, 11), (20, 30)) + "\n" + line((20, 30), (0, 11)) + "\n"
    out = tmp_path / "out"
    rc = main([str(_suite(tmp_path, corpus)), "-o", str(out), "-q"])
    assert rc == ExitCode.SYSTEM_ERRORS  # a source the system could not answer
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    outcomes = [c["verdict"]["outcome"] for c in results["cases"]]
    assert "error" in outcomes
    assert any("the parser fell over" in c["verdict"].get("reason", "") for c in results["cases"])


def test_re_run_resumes_to_the_same_cases(tmp_path):
    from runner.suite import load_suite
    from tests.runs import stop_after_first_batch_then_resume

    lines = (ROOT / "suites" / "data" / "re_sample.jsonl").read_text(encoding="utf-8").splitlines()
    (tmp_path / "pairs.jsonl").write_text("\n".join(lines[:16]) + "\n", encoding="utf-8")
    (tmp_path / "s.yaml").write_text(
        "name: r\ntask: re\nsut: {type: textacy}\ncorpus: {path: pairs.jsonl}\n"
        "transformations:\n  - type: same_type_entity\n  - type: symmetric_swap\n"
        "  - type: antisymmetric_swap\n  - type: shared_head_composition\n"
        "limits: {batch_size: 8}\n", encoding="utf-8")
    suite = load_suite(tmp_path / "s.yaml")

    def cases(out):
        lines = (out / "cases.jsonl").read_text(encoding="utf-8").splitlines()
        return [json.loads(x) for x in lines]

    whole, first, resumed = stop_after_first_batch_then_resume(suite, tmp_path)
    assert first.sources_done == 8
    assert cases(tmp_path / "cut") == cases(tmp_path / "whole")
    assert resumed["summary"] == whole["summary"]
