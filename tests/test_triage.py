"""Triage files: read back into a run, false alarms out of the rates and in their own section,
validity per transformation, stale marks flagged, bad files an exit-4 error."""
import json
from pathlib import Path

import pytest

from runner.cli import main
from runner.errors import ExitCode, SuiteError
from runner.report.outputs import write_outputs
from runner.report.triage import Triage, case_key, load_triage
from synthetic import synthetic_run

ROOT = Path(__file__).resolve().parent.parent


def _mark(case, mark, **extra):
    s, t, f, r = case_key(case)
    return {"id": case["id"], "transformation": t, "relation": r, "source": s, "follow_up": f,
            "mark": mark, **extra}


def _write(tmp_path, marks, name="triage.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"mtrun_triage": 1, "suite": "synthetic", "marks": marks}),
                    encoding="utf-8")
    return path


@pytest.fixture()
def run():
    # 6 violations and 6 passes over three rows (entity_shuffle MR2 / MR1, structural_question MR2)
    return synthetic_run(6, 6, fail_on={"max_violation_rate": 0.0})


def test_false_alarms_leave_the_rates_and_validity_is_reported(run, tmp_path):
    results, cases = run
    fails = [c for c in cases if c["verdict"]["outcome"] == "fail"]
    passing = next(c for c in cases if c["verdict"]["outcome"] == "pass")
    fa = fails[1]
    marks = [_mark(fa, "false_alarm", note="not natural"), _mark(fails[3], "confirmed"),
             _mark(fails[0], "confirmed"), _mark(passing, "false_alarm"),
             {"id": "gone/entity_shuffle/0/MR2", "source": "An old sentence.", "follow_up": "x",
              "transformation": "entity_shuffle", "relation": "MR2", "mark": "confirmed"}]
    triage = Triage(load_triage(_write(tmp_path, marks)), "triage.json")
    adjusted = triage.adjust(results, cases)
    t = adjusted["triage"]
    assert (t["confirmed"], t["false_alarms"], t["marks"]) == (2, 1, 5)
    assert t["validity"] == pytest.approx(2 / 3)
    assert t["unmarked"] == 6 - 3
    assert [m["source"] for m in t["stale"]] == ["An old sentence."]
    assert [m["outcome"] for m in t["resolved"]] == ["pass"]
    row_t = fa["transformation"]
    assert t["per_transformation"][row_t]["false_alarms"] == 1
    # the false alarm is out of fail and of the rate, everywhere
    assert adjusted["overall"]["fail"] == results["overall"]["fail"] - 1
    assert adjusted["overall"]["false_alarms"] == 1
    [category] = fa["verdict"]["categories"]
    assert adjusted["categories"][category] == results["categories"][category] - 1
    judged = adjusted["overall"]["pass"] + adjusted["overall"]["fail"]
    assert adjusted["overall"]["violation_rate"] == pytest.approx(adjusted["overall"]["fail"] / judged)
    key = (fa["transformation"], fa["relation"])
    before = {(r["transformation"], r["relation"]): r for r in results["summary"]}[key]
    after = {(r["transformation"], r["relation"]): r for r in adjusted["summary"]}[key]
    assert after["fail"] == before["fail"] - 1 and after["false_alarms"] == 1
    assert adjusted["relations"][fa["relation"]]["fail"] == \
        results["relations"][fa["relation"]]["fail"] - 1
    # cases are annotated on the way to the writers
    annotated = list(triage.wrap(lambda: iter(cases))())
    by_id = {c["id"]: c for c in annotated}
    assert by_id[fa["id"]]["triage"] == {"mark": "false_alarm", "note": "not natural"}
    assert by_id[fails[3]["id"]]["triage"] == {"mark": "confirmed"}
    assert "triage" not in by_id[passing["id"]]   # a mark on a passing case annotates nothing

    out = tmp_path / "out"
    write_outputs(adjusted, triage.wrap(lambda: iter(cases)), out, ["html", "json", "junit", "markdown"])
    html = (out / "report.html").read_text(encoding="utf-8")
    table = html.split('id="vbody"')[1].split("</tbody>")[0]
    section = html.split('id="false-alarms"')[1]
    assert f'id="{fa["id"]}"' not in table and f'id="{fa["id"]}"' in section
    assert f'id="{fails[3]["id"]}"' in table and "tmark" in table
    assert "Validity (triage)" in html and "66.7%" in html
    assert "no such case in this run" in html and "no longer a violation" in html
    assert "100 % by construction" in html
    junit = (out / "junit.xml").read_text(encoding="utf-8")
    assert fa["id"] not in junit and fails[3]["id"] in junit
    saved = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert saved["triage"]["false_alarms"] == 1
    from runner.report.outputs import results_problem

    assert results_problem(saved) is None


def test_a_mark_without_texts_matches_by_id(run, tmp_path):
    results, cases = run
    fail = next(c for c in cases if c["verdict"]["outcome"] == "fail")
    triage = Triage(load_triage(_write(tmp_path, [{"id": fail["id"], "mark": "false_alarm"}])), "t")
    assert triage.adjust(results, cases)["triage"]["false_alarms"] == 1


def test_yaml_triage_files_are_read(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("marks:\n  - id: a/entity_shuffle/0/MR2\n    mark: confirmed\n", encoding="utf-8")
    assert load_triage(path)[0]["mark"] == "confirmed"
    path.write_text("marks:\n  - id: a\n    mark: maybe\n", encoding="utf-8")
    with pytest.raises(SuiteError, match=r"t\.yaml:2: marks\[0\]\.mark must be one of"):
        load_triage(path)


@pytest.mark.parametrize("content, message", [
    ('{"marks": [\n  {"id": "a", "mark": "confirmed"},\n  {"id": "b" "mark": 1}\n]}',
     r"triage\.json:3: not valid JSON"),
    ('[1, 2]', r"expected an object with a \"marks\" list"),
    ('{"marks": [\n  {"id": "a", "mark": "wrong"}\n]}', r"triage\.json:2: marks\[0\]\.mark must be one of"),
    ('{"marks": [{"mark": "confirmed"}]}', r"marks\[0\] names no case"),
    ('{"mtrun_triage": 7, "marks": []}', r"version 7 is not supported"),
])
def test_bad_triage_files_are_located(tmp_path, content, message):
    path = tmp_path / "triage.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SuiteError, match=message):
        load_triage(path)


def test_a_triage_file_that_does_not_parse_is_exit_4_before_any_model(tmp_path, capsys):
    bad = tmp_path / "triage.json"
    bad.write_text('{"marks": [\n  {"id": "a", "mark": "confirmed"\n', encoding="utf-8")
    code = main([str(ROOT / "suites" / "ner_spacy.yaml"), "--triage", str(bad), "-o",
                 str(tmp_path / "out"), "-q"])
    err = capsys.readouterr().err
    assert code == ExitCode.USAGE_ERROR
    assert f"{bad}:" in err and "not valid JSON" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_the_suite_names_the_triage_file(tmp_path, capsys):
    (tmp_path / "corpus.txt").write_text("Angela Merkel met Emmanuel Macron.\n", encoding="utf-8")
    suite = tmp_path / "s.yaml"
    suite.write_text("name: t\ntask: ner\nsut: {type: spacy}\ncorpus: {path: corpus.txt}\n"
                     "transformations:\n  - type: entity_shuffle\nreport: {triage: marks.json}\n",
                     encoding="utf-8")
    assert main(["validate", str(suite)]) == ExitCode.USAGE_ERROR
    assert "report.triage: triage file not found" in capsys.readouterr().err
    (tmp_path / "marks.json").write_text('{"marks": [{"id": "x", "mark": "nope"}]}', encoding="utf-8")
    assert main(["validate", str(suite)]) == ExitCode.USAGE_ERROR
    assert "marks.json:1: marks[0].mark must be one of" in capsys.readouterr().err
    (tmp_path / "marks.json").write_text('{"marks": []}', encoding="utf-8")
    assert main(["validate", str(suite)]) == ExitCode.OK
