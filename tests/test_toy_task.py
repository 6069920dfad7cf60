"""A task without spans (tests/toy_task.py: sentence polarity) runs through the same engine,
suite validation, reports, JUnit, Markdown and diff as NER."""
import json
import textwrap
import xml.etree.ElementTree as ET

import pytest

import runner.tasks as tasks
from runner.cli import ExitCode, main

CORPUS = """\
The film was good.
The plot was not good.
The cast was great.
The ending was awful.
It was never boring.
CRASH the reader.
The music was fine.
"""


@pytest.fixture(autouse=True)
def toy_task(monkeypatch):
    monkeypatch.setitem(tasks.TASKS, "toy", "tests.toy_task:PolarityTask")
    yield
    tasks._LOADED.pop("toy", None)


def _suite(tmp_path, body="", name="toy_run", sut="{type: scripted}"):
    (tmp_path / "reviews.txt").write_text(CORPUS, encoding="utf-8")
    path = tmp_path / f"{name}.yaml"
    path.write_text(textwrap.dedent(f"""\
        name: {name}
        task: toy
        sut: {sut}
        corpus: {{path: reviews.txt}}
        transformations: [{{type: add_indeed}}, {{type: concat_next}}]
        limits: {{batch_size: 3}}
        """) + body, encoding="utf-8")
    return path


def _run(tmp_path, suite, out):
    code = main([str(suite), "-o", str(tmp_path / out), "-q"])
    return code, json.loads((tmp_path / out / "results.json").read_text(encoding="utf-8"))


def test_toy_task_runs_end_to_end(tmp_path):
    code, results = _run(tmp_path, _suite(tmp_path), "out")
    # one source the system cannot read: above the default error limit (any source), exit 6
    assert code == ExitCode.SYSTEM_ERRORS
    assert results["task"] == "toy"
    by = {(c["transformation"], c["source"]["text"]): c for c in results["cases"]}
    # the planted bug: "indeed" makes a negative review positive
    bad = by[("add_indeed", "The plot was not good.")]
    assert bad["verdict"]["outcome"] == "fail"
    assert bad["follow_up"]["text"] == "The plot was not good indeed."
    assert bad["source"]["prediction"] == "NEG" and bad["follow_up"]["prediction"] == "POS"
    assert by[("add_indeed", "The film was good.")]["verdict"]["outcome"] == "pass"
    # a source the system cannot read: error cases, the run goes on
    assert {c["verdict"]["outcome"] for c in results["cases"]
            if c["source"]["text"] == "CRASH the reader."} == {"error"}
    # batch-level follow-ups combine two sources of the same batch (batch_size 3): the last
    # source of a batch (or the last one answered) has no partner; different labels → the
    # relation does not apply
    concat = [c for c in results["cases"] if c["transformation"] == "concat_next"
              and c["verdict"]["outcome"] != "error"]
    assert {c["source"]["text"]: c["follow_up"]["meta"]["with"] for c in concat} == {
        "The film was good.": "reviews:2", "The plot was not good.": "reviews:3",
        "The ending was awful.": "reviews:5"}
    assert by[("concat_next", "The film was good.")]["verdict"]["outcome"] == "skip"
    row = {(r["transformation"], r["relation"]): r for r in results["summary"]}
    assert row[("add_indeed", "same_label")]["fail"] == 3
    assert row[("add_indeed", "same_label")]["error"] == 1

    out = tmp_path / "out"
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "The plot was not good" in html and "entities" not in html.lower().split("<body")[1]
    junit = ET.parse(out / "junit.xml").getroot()
    # no threshold: the row is not failed, its violations are shown in its output
    assert junit.find(".//testcase[@classname='toy_run.add_indeed']/failure") is None
    shown = junit.find(".//testcase[@classname='toy_run.add_indeed']/system-out")
    assert "label NEG → POS" in shown.text
    assert junit.find(".//testcase[@classname='toy_run.system']/error") is not None
    md = (out / "summary.md").read_text(encoding="utf-8")
    assert "label NEG → POS" in md

    # re-rendered from the saved results, without the task's code running anything
    assert main(["report", str(out / "results.json"), "-o", str(tmp_path / "again"),
                 "-q"]) == ExitCode.SYSTEM_ERRORS
    assert (tmp_path / "again" / "report.html").read_text(encoding="utf-8").count("<tr id=") == 3


def test_toy_task_diff_and_resume(tmp_path, capsys):
    _, before = _run(tmp_path, _suite(tmp_path), "old")
    _, after = _run(tmp_path, _suite(tmp_path, sut="{type: scripted, fixed: true}"), "new")
    capsys.readouterr()
    assert main(["diff", str(tmp_path / "old" / "results.json"),
                 str(tmp_path / "new" / "results.json")]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "0 new violation(s), 3 fixed" in out
    assert "label NEG → POS" in out
    assert "The plot was not good" in (tmp_path / "new" / "diff.html").read_text(encoding="utf-8")

    # --resume of a finished run repeats nothing and gives the same cases
    assert main([str(_suite(tmp_path)), "-o", str(tmp_path / "old"), "-q",
                 "--resume"]) == ExitCode.SYSTEM_ERRORS  # the source the system cannot read
    again = json.loads((tmp_path / "old" / "results.json").read_text(encoding="utf-8"))
    assert again["cases"] == before["cases"]


def test_dry_run_counts_toy_inputs(tmp_path, capsys):
    assert main([str(_suite(tmp_path)), "--dry-run"]) == ExitCode.OK
    assert "sources:    7 sentence(s)" in capsys.readouterr().out


def test_a_toy_suite_rejects_ner_keys_and_components(tmp_path, capsys):
    suite = _suite(tmp_path, body="repair: {enabled: true}\n")
    text = suite.read_text(encoding="utf-8").replace("{type: concat_next}",
                                                     "{type: entity_shuffle}")
    suite.write_text(text, encoding="utf-8")
    assert main(["validate", str(suite)]) == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert ("transformations[1].type: unknown transformation type 'entity_shuffle' (a component "
            "of task: ner suites); available: add_indeed, concat_next") in err
    assert "repair: unknown key (a key of task: ner suites) (allowed here:" in err


def test_a_ner_suite_rejects_toy_components(tmp_path, capsys):
    (tmp_path / "c.txt").write_text("Ann met Bob.\n", encoding="utf-8")
    suite = tmp_path / "s.yaml"
    suite.write_text("name: s\ntask: ner\nsut: {type: spacy}\ncorpus: {path: c.txt}\n"
                     "transformations: [{type: add_indeed}]\n", encoding="utf-8")
    assert main(["validate", str(suite)]) == ExitCode.USAGE_ERROR
    assert "unknown transformation type 'add_indeed' (a component of task: toy suites)" in \
        capsys.readouterr().err


def test_list_and_schema_group_components_per_task(capsys):
    assert main(["list"]) == ExitCode.OK
    out = capsys.readouterr().out
    assert out.index("task: ner") < out.index("entity_shuffle") < out.index("task: toy") \
        < out.index("add_indeed")
    from runner.schema import build_schema

    schema = build_schema()
    branches = {b["if"]["properties"]["task"]["const"]: b["then"] for b in schema["allOf"]}
    assert "repair" in branches["ner"]["properties"] and "repair" not in branches["toy"]["properties"]
    assert branches["toy"]["properties"]["transformations"]["items"]["properties"]["type"]["enum"] \
        == ["add_indeed", "concat_next"]
