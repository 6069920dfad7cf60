"""Report outputs without a browser: results.json schema, JUnit XML (XSD + a JUnit parser),
Markdown escaping, the embedded JSON, SVG charts, `mtrun report` and `mtrun diff`."""
import json
import re
from pathlib import Path

import jsonschema
import pytest

from runner.cli import main
from runner.errors import ExitCode
from runner.report.markdown import md_text, render_markdown
from runner.report.outputs import FILES, RESULTS_SCHEMA_PATH, write_outputs
from runner.report.writers import script_json
from runner.report.display import visible_text
from synthetic import HOSTILE, synthetic_run

DATA = Path(__file__).resolve().parent / "data"
ALL = ["html", "json", "junit", "markdown"]


@pytest.fixture()
def run_dir(tmp_path):
    results, cases = synthetic_run(40, 20, description=HOSTILE)
    write_outputs(results, cases, tmp_path, ALL)
    return tmp_path


def test_every_format_is_written(run_dir):
    for name in FILES.values():
        assert (run_dir / name).stat().st_size > 0


def test_results_json_matches_its_schema(run_dir):
    schema = json.loads(RESULTS_SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    results = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(results)
    assert results["mtrun_results_version"] == schema["properties"]["mtrun_results_version"]["const"]
    assert len(results["cases"]) == 60


def test_results_schema_rejects_a_broken_file(run_dir, tmp_path, capsys):
    results = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    results["cases"][3]["verdict"]["outcome"] = "maybe"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(results), encoding="utf-8")
    assert main(["report", str(bad), "-o", str(tmp_path / "o")]) == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert "cases[3].verdict.outcome" in err and "Traceback" not in err


def test_junit_validates_against_the_xsd_and_parses(run_dir):
    import xmlschema
    from junitparser import Failure, JUnitXml

    xmlschema.XMLSchema(str(DATA / "junit.xsd")).validate(str(run_dir / "junit.xml"))
    results = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    xml = JUnitXml.fromfile(str(run_dir / "junit.xml"))
    suites = list(xml)
    assert len(suites) == 1 and suites[0].name == "synthetic"
    cases = {(c.classname, c.name): c for c in suites[0]}
    rows = {k: c for k, c in cases.items()
            if not k[0].endswith((".thresholds", ".groups", ".system"))}
    assert len(rows) == len(results["summary"])  # one per transformation × relation
    checks = results["thresholds"]["checks"]
    # and one per threshold: overall, MR2
    assert {k[1] for k in cases if k[0] == "synthetic.thresholds"} == {c["scope"] for c in checks}
    for row in results["summary"]:
        case = cases[(f"synthetic.{row['transformation']}", row["relation"])]
        # a row fails when a threshold covering it failed and its own rate is above that limit
        covering = [c for c in checks if c["scope"] in ("overall", row["relation"])]
        expected = any(not c["passed"] and row["violation_rate"] > c["max"] for c in covering)
        failures = [r for r in case.result if isinstance(r, Failure)]
        assert bool(failures) == expected
        if failures:
            assert f"{row['fail']} of {row['pass'] + row['fail']}" in failures[0].message
            # examples: sentences of real violations, as text
            assert "follow-up:" in failures[0].text and "source:" in failures[0].text
    assert suites[0].failures == sum(
        1 for c in cases.values() if any(isinstance(r, Failure) for r in c.result))
    assert suites[0].failures > 0 and results["verdict"]["status"] == "fail"
    assert suites[0].errors == 0


def test_junit_carries_hostile_text_as_text(tmp_path):
    import xml.etree.ElementTree as ET

    results, cases = synthetic_run(8, 0)
    cases[0]["source"]["text"] = HOSTILE + "\x00\x1b"  # XML 1.0 cannot carry these two
    write_outputs(results, cases, tmp_path, ["junit"])
    root = ET.parse(tmp_path / "junit.xml").getroot()
    failure = root.find("./testsuite/testcase/failure")
    # hidden characters as markers (runner/report/display.py): none is lost or replaced
    assert visible_text(HOSTILE) + "⟨U+0000⟩⟨U+001B⟩" in failure.text
    assert "⟨U+202E⟩Paris⟨U+202C⟩" in failure.text and "\u202e" not in failure.text
    raw = (tmp_path / "junit.xml").read_text(encoding="utf-8")
    assert "<script>" not in raw and "&lt;script&gt;" in raw


def test_junit_row_without_threshold_is_reported_not_failed(tmp_path):
    """No threshold set: the run exits 0 and says so; JUnit agrees (no failure, the rows
    skipped with the reason), as do the Markdown and the HTML badge."""
    import xml.etree.ElementTree as ET

    results, cases = synthetic_run(1, 30, fail_on={"max_violation_rate": None, "relations": {}})
    write_outputs(results, cases, tmp_path, ["junit", "markdown", "html"])
    root = ET.parse(tmp_path / "junit.xml").getroot()
    assert root.get("failures") == "0" and root.get("errors") == "0"
    skipped = [tc.find("skipped").get("message") for tc in root.iter("testcase")
               if tc.find("skipped") is not None]
    assert any("no threshold set" in m for m in skipped)
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["verdict"] == "NO THRESHOLD SET" and props["verdict.exit_code"] == "0"
    md = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "NO THRESHOLD SET" in md.splitlines()[0] and "PASS" not in md and "❌" not in md
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert 'data-status="no_threshold" data-exit-code="0">NO THRESHOLD SET<' in html


def test_markdown_escapes_untrusted_text():
    out = md_text('<img src=x onerror=alert(1)> [link](http://x) **b** | `c` @team & \u202e 🎉\nnew')
    assert "<" not in out and ">" not in out
    assert "\\[link\\]\\(http\\:" in out and "\\*\\*b\\*\\*" in out and "\\|" in out and "\\`c\\`" in out
    assert "@" not in out and "&#64;team" in out and "&amp;" in out
    assert "\n" not in out and "🎉" in out and "\u202e" not in out
    assert "`⟨U+202E⟩`" in out and "`⟨U+000A⟩`new" in out


def test_markdown_summary(run_dir):
    results = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    md = render_markdown(results, results["cases"])
    assert md.startswith("### mtrun · synthetic · ❌ FAIL")
    for row in results["summary"]:
        name = md_text(row["transformation"])
        assert (f"| {name} | {row['relation']} | {row['pass'] + row['fail']} | {row['fail']} |"
                in md)
    assert "<script" not in md and "&lt;script&gt;alert" in md
    # the only raw HTML is the <details> wrapper
    assert set(re.findall(r"</?([a-z]+)", md)) == {"details", "summary"}


def test_script_json_cannot_break_out_and_round_trips():
    data = {"t": "</script><script>alert(1)</script> & <!-- \u2028\u2029 \"'", "e": "🎉\u202e"}
    text = script_json(data)
    for bad in ("<", ">", "&", "\u2028", "\u2029"):
        assert bad not in text
    assert json.loads(text) == data


def test_html_report_is_self_contained_and_escaped(run_dir):
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert not re.search(r"<script[^>]*\ssrc=", html, re.I)
    assert not re.search(r"(src|href)=\"https?://", html)
    # the index (JSON) and the inline script; the triage rows (JSON) and their script
    assert len(re.findall(r"<script\b", html)) == 4
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; " in html
    # the first screen: verdict, rates against thresholds, charts
    assert '<table id="checks">' in html and html.count('<svg class="chart"') >= 3
    # hooks for the sections other parts of mtrun add
    template = (Path(__file__).resolve().parent.parent / "templates" / "report.html.j2").read_text()
    assert '{% include "partials/funnel.html.j2" ignore missing %}' in template
    # the task's own sections and its side-by-side view of a case come from the task
    assert "{% for partial in task.report_partials %}{% include partial %}{% endfor %}" in template
    assert "{% include task.case_template %}" in template


def test_charts_escape_labels():
    from runner.report.charts import count_chart, rate_chart

    svg = str(rate_chart([{"label": "<b>x</b>&", "rate": 0.5, "max": 0.3}], "t<"))
    assert "<b>" not in svg and "&lt;b&gt;x&lt;/b&gt;&amp;" in svg and 'class="row over"' in svg
    svg = str(count_chart([("a\"b", 3)], "c"))
    assert "a&quot;b" in svg


def test_report_command_rerenders_every_output(run_dir, tmp_path, capsys):
    out = tmp_path / "again"
    code = main(["report", str(run_dir / "results.json"), "-o", str(out)])
    assert code == ExitCode.VIOLATIONS  # the saved run is above its thresholds
    assert "FAIL" in capsys.readouterr().err
    for name in FILES.values():
        assert (out / name).exists()
    assert (out / "results.json").read_text(encoding="utf-8") == \
        (run_dir / "results.json").read_text(encoding="utf-8")
    assert (out / "junit.xml").read_text() == (run_dir / "junit.xml").read_text()
    assert (out / "summary.md").read_text() == (run_dir / "summary.md").read_text()
    assert (out / "report.html").read_text() == (run_dir / "report.html").read_text()
    # in place: the results file is the input, it is not rewritten
    before = (run_dir / "results.json").stat().st_mtime_ns
    (run_dir / "report.html").unlink()
    main(["report", str(run_dir / "results.json"), "--formats", "html", "-q"])
    assert (run_dir / "report.html").exists()
    assert (run_dir / "results.json").stat().st_mtime_ns == before


def test_report_command_user_errors(tmp_path, capsys):
    assert main(["report", str(tmp_path / "none.json")]) == ExitCode.USAGE_ERROR
    (tmp_path / "x.json").write_text("{not json", encoding="utf-8")
    assert main(["report", str(tmp_path / "x.json")]) == ExitCode.USAGE_ERROR
    (tmp_path / "y.json").write_text('{"mtrun_results_version": 99}', encoding="utf-8")
    assert main(["report", str(tmp_path / "y.json")]) == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert "no such results file" in err and "not valid JSON" in err and "version 99" in err
    assert "Traceback" not in err


def test_diff_finds_new_and_fixed_violations(tmp_path, capsys):
    results, cases = synthetic_run(6, 6)
    old_dir, new_dir = tmp_path / "old", tmp_path / "new"
    write_outputs(results, cases, old_dir, ["json"])
    flipped = json.loads(json.dumps(cases))
    # case 0 fixed, case 11 newly broken, case 5 dropped from the new run
    flipped[0]["verdict"] = {"outcome": "pass"}
    flipped[11]["verdict"] = {"outcome": "fail", "reason": "new", "differences": [
        {"text": HOSTILE, "source": "PERSON", "follow_up": None}]}
    del flipped[5]
    from synthetic import results_for
    write_outputs(results_for(flipped), flipped, new_dir, ["json"])
    code = main(["diff", str(old_dir / "results.json"), str(new_dir / "results.json"),
                 "-o", str(tmp_path / "d")])
    assert code == ExitCode.OK
    out = capsys.readouterr().out
    assert "1 new violation(s), 2 fixed, 4 still failing" in out
    assert "before pass" in out and "after not in the run" in out and "after pass" in out
    html = (tmp_path / "d" / "diff.html").read_text(encoding="utf-8")
    assert "New violations (1)" in html and "Fixed violations (2)" in html
    assert "<script" not in html and "&lt;script&gt;alert" in html
    old_rate = results["overall"]["violation_rate"]
    assert f"{old_rate:.1%}" in html and f"{old_rate:.1%}" in out
    md = (tmp_path / "d" / "diff.md").read_text(encoding="utf-8")
    assert "**1** new violation(s) · **2** fixed" in md
    assert "<script" not in md and "&lt;script&gt;alert" in md
    assert set(re.findall(r"</?([a-z]+)", md)) == {"details", "summary"}
    assert main(["diff", str(old_dir / "results.json"), str(new_dir / "results.json"),
                 "-o", str(tmp_path / "d"), "--fail-on-new"]) == ExitCode.VIOLATIONS
    assert main(["diff", str(old_dir / "results.json"), str(old_dir / "results.json"),
                 "-o", str(tmp_path / "d2"), "--fail-on-new"]) == ExitCode.OK


def test_section_hooks_render_partials(tmp_path, monkeypatch):
    """Other parts of mtrun add sections through partials: the funnel and the task's sections (NER:
    categories) get the results (`r`), the task's case partial (NER: with its repair partial)
    gets each violation (`v`, with `v.repair`)."""
    import shutil

    from runner.report import writers

    templates = tmp_path / "templates"
    shutil.copytree(writers.TEMPLATES_DIR, templates)
    (templates / "partials").mkdir(exist_ok=True)
    (templates / "partials" / "funnel.html.j2").write_text(
        '<p class="hook-funnel">{{ r.funnel.entity_shuffle.generated }}</p>', encoding="utf-8")
    (templates / "ner" / "categories.html.j2").write_text(
        '<p class="hook-cat">{{ r.categories | length }}</p>', encoding="utf-8")
    (templates / "ner" / "repair.html.j2").write_text(
        '{% if v.repair %}<p class="hook-repair">{{ v.repair.follow_up.text }}</p>{% endif %}',
        encoding="utf-8")
    monkeypatch.setattr(writers, "TEMPLATES_DIR", templates)
    results, cases = synthetic_run(5, 0)
    cases[2]["repair"] = {"source": {"text": "a"}, "follow_up": {"text": HOSTILE}}
    write_outputs(results, cases, tmp_path / "out", ["html"])
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert '<p class="hook-funnel">900</p>' in html and '<p class="hook-cat">4</p>' in html
    assert html.count('class="hook-repair"') == 1
    assert "&lt;script&gt;alert" in html.split('class="hook-repair"')[1][:200]


@pytest.mark.parametrize("ci, outcome", [("true", "1 error"), ("", "1 skipped")])
def test_browser_test_fails_in_ci_without_chromium(tmp_path, ci, outcome):
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(PATH=str(tmp_path), CI=ci, PYTHONPATH=str(root))  # no chromium on this PATH
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                           "tests/test_report_browser.py", "-k", "embedded_json"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert outcome in proc.stdout and "chromium is not installed" in proc.stdout, proc.stdout[-2000:]
    assert (proc.returncode != 0) == (ci == "true")
