"""The run's verdict (runner/report/verdict.py): the exit code, the HTML badge, junit.xml and
summary.md say the same thing; a system that could not answer is an error (exit 6), a suite
without thresholds says so; corpus ids, output folders and names are usage errors (exit 4)."""
from __future__ import annotations

import json
import re
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import CAPITALISED_TAGGER
from runner.cli import main
from runner.tally import group_counts
from runner.errors import ExitCode
from runner.report.thresholds import evaluate_thresholds

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ("Ann met Bob in the park.\nCarl and Dana went to the market.\n"
          "Eve and Finn went home.\nGil told Hal a story.\nIda saw Jon at noon.\n"
          "Kim and Lee ate lunch.\n")
# A scripted NER system. PATTERN (set per test): none, some (the sources listed in FAILING
# raise), all (every call raises); FLAKY drops the entities of some texts (violations).
SYSTEM = '''
import zlib
PATTERN = {pattern!r}
FAILING = {failing!r}
FLAKY = {flaky!r}
{tagger}

def predict(texts):
    out = []
    for text in texts:
        if PATTERN == "all" or any(text.startswith(f) for f in FAILING):
            raise ConnectionError("the service is down")
        if FLAKY and zlib.crc32(text.encode()) % FLAKY == 0:
            out.append([])
            continue
        out.append(tag_capitalised(text))
    return out
'''


def _suite(folder: Path, *, name: str = "verdict", sut: str | None = None,
           fail_on: dict | None = None, corpus: str = "corpus.txt") -> Path:
    path = folder / f"{name[:40]}.yaml"
    sut = sut or '{type: python, callable: "verdict_system:predict", label_map: {PER: PERSON}}'
    report = {"formats": ["json", "html", "junit", "markdown"]}
    if fail_on is not None:
        report["fail_on"] = fail_on
    path.write_text(textwrap.dedent(f"""\
        name: {name}
        task: ner
        sut: {sut}
        corpus: {{path: {corpus}}}
        transformations: [{{type: entity_shuffle}}]
        report: {json.dumps(report)}
        """), encoding="utf-8")
    return path


@pytest.fixture()
def folder(tmp_path):
    import sys

    (tmp_path / "corpus.txt").write_text(CORPUS, encoding="utf-8")
    yield tmp_path
    sys.modules.pop("verdict_system", None)


def _system(folder: Path, pattern: str = "none", failing: tuple = (), flaky: int = 0) -> None:
    import sys

    sys.modules.pop("verdict_system", None)
    (folder / "verdict_system.py").write_text(
        SYSTEM.format(pattern=pattern, failing=list(failing), flaky=flaky,
                      tagger=CAPITALISED_TAGGER), encoding="utf-8")


def outputs(out: Path) -> dict:
    """What each output says: the JUnit counts and verdict property, the Markdown heading, the
    HTML badge."""
    root = ET.parse(out / "junit.xml").getroot()
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    md = (out / "summary.md").read_text(encoding="utf-8")
    html = (out / "report.html").read_text(encoding="utf-8")
    badge = re.search(r'id="verdict" data-status="(\w+)" data-exit-code="(\d+)">([^<]+)<', html)
    assert badge, "no verdict badge in report.html"
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return {"failures": int(root.get("failures")), "errors": int(root.get("errors")),
            "junit_label": props["verdict"], "junit_code": int(props["verdict.exit_code"]),
            "md_heading": md.splitlines()[0], "md": md, "html_status": badge.group(1),
            "html_code": int(badge.group(2)), "html_label": badge.group(3), "html": html,
            "results": results}


LABEL = {ExitCode.SYSTEM_ERRORS: "ERROR", ExitCode.VIOLATIONS: "FAIL",
         ExitCode.NOTHING_TO_TEST: "NOTHING TESTED"}


def assert_agree(code: int, out: Path) -> dict:
    """Exit code, JUnit, Markdown and HTML tell one story."""
    o = outputs(out)
    assert o["junit_code"] == o["html_code"] == code
    assert o["junit_label"] == o["html_label"]
    assert o["md_heading"].endswith(o["html_label"])
    assert o["results"]["verdict"]["exit_code"] == code
    if code == ExitCode.SYSTEM_ERRORS:
        assert o["errors"] > 0 and o["html_label"] == "ERROR" and o["html_status"] == "error"
        assert "could not answer" in o["md"] and "could not answer" in o["html"]
    else:
        assert o["errors"] == 0
    if code == ExitCode.VIOLATIONS:
        assert o["failures"] > 0 and o["html_label"] == "FAIL" and "❌" in o["md"]
    if code == ExitCode.OK:
        assert o["failures"] == 0 and o["html_label"] in ("PASS", "NO THRESHOLD SET")
        assert "❌" not in o["md"] and "⛔" not in o["md"]
        if o["html_label"] == "NO THRESHOLD SET":
            assert "PASS" not in o["md"] and "exit 0" in o["md"]
    if code in LABEL:
        assert o["html_label"] == LABEL[code]
    return o


# -- a system that cannot answer ---------------------------------------------------------------

def test_a_system_that_fails_on_every_input_is_an_error(folder, capsys):
    _system(folder, "all")
    code = main([str(_suite(folder, fail_on={"max_violation_rate": 0.5})), "-o",
                 str(folder / "out")])
    err = capsys.readouterr().err
    assert code == ExitCode.SYSTEM_ERRORS == 6
    assert "could not answer 6 of 6 source(s)" in err and "Traceback" not in err
    o = assert_agree(code, folder / "out")
    assert "⛔ ERROR" in o["md_heading"]
    assert "could not answer 6 of 6 source" in o["html"]


def test_a_dead_http_endpoint_is_an_error(folder, capsys):
    sut = ("{type: http, url: 'http://127.0.0.1:1/ner', retry: {max_retries: 0, timeout: 2}, "
           "response: {documents: ''}}")
    code = main([str(_suite(folder, sut=sut)), "-o", str(folder / "out"), "--no-cache", "-q"])
    assert code == ExitCode.SYSTEM_ERRORS
    o = assert_agree(code, folder / "out")
    assert o["errors"] == 1


def test_one_failed_source_is_an_error_unless_the_suite_allows_it(folder, capsys):
    _system(folder, "some", failing=("Eve",))
    assert main([str(_suite(folder)), "-o", str(folder / "a"), "-q"]) == ExitCode.SYSTEM_ERRORS
    assert_agree(ExitCode.SYSTEM_ERRORS, folder / "a")
    code = main([str(_suite(folder, fail_on={"max_source_errors": 1})), "-o", str(folder / "b"),
                 "-q"])
    assert code == ExitCode.OK
    o = assert_agree(code, folder / "b")
    assert o["html_label"] == "NO THRESHOLD SET"
    assert "could not answer 1 source" in o["md"]  # still said, not judged an error


def test_no_threshold_is_said_everywhere_not_pass(folder, capsys):
    _system(folder, flaky=2)
    code = main([str(_suite(folder)), "-o", str(folder / "out")])
    err = capsys.readouterr().err
    assert code == ExitCode.OK and "NO THRESHOLD SET" in err
    o = assert_agree(code, folder / "out")
    assert o["results"]["overall"]["fail"] > 0  # violations, reported and not judged
    assert o["html_label"] == "NO THRESHOLD SET"


# -- every output agrees, whatever the thresholds and the system's failures --------------------

@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(pattern=st.sampled_from(["none", "some", "all"]),
       failing=st.lists(st.sampled_from(["Ann", "Carl", "Eve", "Gil", "Ida", "Kim"]),
                        max_size=3, unique=True),
       flaky=st.sampled_from([0, 2, 3, 5]),
       max_rate=st.one_of(st.none(), st.sampled_from([0.0, 0.2, 0.5, 1.0])),
       rel=st.one_of(st.none(), st.sampled_from([0.0, 0.3, 1.0])),
       max_sources=st.sampled_from([None, 0, 1, 3]))
def test_exit_code_badge_junit_and_markdown_agree_on_real_runs(
        tmp_path_factory, pattern, failing, flaky, max_rate, rel, max_sources):
    folder = tmp_path_factory.mktemp("run")
    (folder / "corpus.txt").write_text(CORPUS, encoding="utf-8")
    _system(folder, pattern, tuple(failing) if pattern == "some" else (), flaky)
    fail_on = {"max_violation_rate": max_rate, "relations": {} if rel is None else {"MR2": rel},
               "max_source_errors": max_sources}
    code = main([str(_suite(folder, fail_on=fail_on)), "-o", str(folder / "out"), "-q"])
    o = assert_agree(code, folder / "out")
    # the expected verdict, from the counts of results.json
    r = o["results"]
    failed_sources = 6 if pattern == "all" else (len(failing) if pattern == "some" else 0)
    judged = r["overall"]["pass"] + r["overall"]["fail"]
    if (max_sources is not None and failed_sources > max_sources) or judged == 0:
        assert code == ExitCode.SYSTEM_ERRORS
        return
    rates = [(r["overall"]["violation_rate"], max_rate), (r["relations"]["MR2"]["violation_rate"], rel)]
    if any(limit is not None and rate > limit for rate, limit in rates):
        assert code == ExitCode.VIOLATIONS
    else:
        assert code == ExitCode.OK
        assert o["html_label"] == ("NO THRESHOLD SET" if max_rate is None and rel is None
                                   else "PASS")


def _results(task: str, rows: list[dict], fail_on: dict, sources: int) -> dict:
    from synthetic import results_for

    r = results_for([], fail_on=fail_on)
    r["task"] = task
    r["suite"]["filled"]["task"] = task
    r["summary"] = rows
    keys = ("sources", "applicable_sources", "follow_ups", "cases", "pass", "fail", "skip", "error")

    def total(selected: list[dict]) -> dict:
        out = {k: sum(row[k] for row in selected) for k in keys}
        judged = out["pass"] + out["fail"]
        out["violations"] = out["fail"]
        out["violation_rate"] = out["fail"] / judged if judged else None
        return out

    r["overall"] = dict(total(rows), sources=sources)
    r["relations"] = {rel: total([row for row in rows if row["relation"] == rel])
                      for rel in sorted({row["relation"] for row in rows})}
    r["groups"] = group_counts(rows)
    r["thresholds"] = evaluate_thresholds(fail_on, r["overall"], r["relations"], r["groups"])
    r["run"]["sources_done"] = r["run"]["sources_total"] = sources
    return r


RELATIONS = {"ner": ["MR1", "MR2"], "re": ["R1", "S1"], "coref": ["blanc", "stable"]}


@st.composite
def drawn_runs(draw):
    task = draw(st.sampled_from(sorted(RELATIONS)))
    sources = draw(st.integers(1, 40))
    pattern = draw(st.sampled_from(["none", "some", "all", "dead"]))
    failed_sources = {"none": 0, "all": sources, "dead": sources,
                      "some": draw(st.integers(0, sources))}[pattern]
    rows = []
    for t in draw(st.lists(st.sampled_from(["swap", "typos", "upper", "names"]), min_size=1,
                           max_size=3, unique=True)):
        for rel in draw(st.lists(st.sampled_from(RELATIONS[task]), min_size=1, unique=True)):
            follow_ups = 0 if pattern == "dead" or failed_sources == sources else \
                draw(st.integers(0, 60))
            fu_errors = follow_ups if pattern == "all" else \
                (draw(st.integers(0, follow_ups)) if pattern == "some" else 0)
            fail = draw(st.integers(0, follow_ups - fu_errors))
            rows.append({"transformation": t, "relation": rel, "type": t,
                         "group": "robustness" if t in ("typos", "upper") else "research",
                         "sources": sources, "applicable_sources": min(sources, follow_ups),
                         "follow_ups": follow_ups, "cases": failed_sources + follow_ups,
                         "pass": follow_ups - fu_errors - fail, "fail": fail, "skip": 0,
                         "error": failed_sources + fu_errors, "violations": fail,
                         "violation_rate": fail / (follow_ups - fu_errors)
                         if follow_ups - fu_errors else None})
    rate = st.one_of(st.none(), st.sampled_from([0.0, 0.1, 0.3, 0.5, 1.0]))
    used = sorted({row["relation"] for row in rows})
    groups = sorted({row["group"] for row in rows})
    fail_on = {"max_violation_rate": draw(rate),
               "relations": {k: v for k, v in draw(st.dictionaries(st.sampled_from(used), rate))
                             .items() if v is not None},
               "groups": {k: v for k, v in draw(st.dictionaries(st.sampled_from(groups), rate))
                          .items() if v is not None},
               "max_source_errors": draw(st.sampled_from([None, 0, 2])),
               "max_error_rate": draw(st.sampled_from([None, 0.05, 0.5]))}
    return task, _results(task, rows, fail_on, sources), pattern


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(drawn_runs())
def test_exit_code_badge_junit_and_markdown_agree_for_every_task(tmp_path_factory, drawn):
    """`mtrun report` re-renders every output from a results.json and exits with its verdict:
    drawn thresholds, failure patterns (none, some, all, dead) and tasks."""
    task, results, pattern = drawn
    folder = tmp_path_factory.mktemp("report")
    (folder / "results.json").write_text(json.dumps(dict(results, cases=[])), encoding="utf-8")
    code = main(["report", str(folder / "results.json"), "-q", "-o", str(folder / "out"),
                 "--formats", "json,html,junit,markdown"])
    o = assert_agree(code, folder / "out")
    # the expected verdict, worked out here from the drawn counts
    fail_on, rows, ov = results["suite"]["filled"]["report"]["fail_on"], results["summary"], \
        results["overall"]
    src_errors = max(row["cases"] - row["follow_ups"] for row in rows)
    fu_cases = sum(row["follow_ups"] for row in rows)
    fu_errors = sum(row["error"] - (row["cases"] - row["follow_ups"]) for row in rows)
    too_many = ((fail_on["max_source_errors"] is not None
                 and src_errors > fail_on["max_source_errors"])
                or (fail_on["max_error_rate"] is not None and fu_cases
                    and fu_errors / fu_cases > fail_on["max_error_rate"])
                or (ov["error"] and not ov["pass"] + ov["fail"]))
    if pattern == "dead":
        assert too_many
    if too_many:
        assert code == ExitCode.SYSTEM_ERRORS
        return
    if ov["cases"] == 0:
        assert code == ExitCode.NOTHING_TO_TEST
        return
    scopes = [(ov["violation_rate"], fail_on["max_violation_rate"])]
    scopes += [(results["relations"][k]["violation_rate"], v)
               for k, v in fail_on["relations"].items()]
    scopes += [(results["groups"][k]["violation_rate"], v) for k, v in fail_on["groups"].items()]
    if any(rate is not None and limit is not None and rate > limit for rate, limit in scopes):
        assert code == ExitCode.VIOLATIONS
        # a failed threshold shows in at least one row, and no row fails under kept thresholds
        assert "| ❌ |" in o["md"]
    else:
        assert code == ExitCode.OK
        set_any = any(limit is not None for _, limit in scopes)
        assert o["html_label"] == ("PASS" if set_any else "NO THRESHOLD SET")
        assert 'class="row over"' not in o["html"]


# -- usage errors: exit 4, no traceback --------------------------------------------------------

def _no_traceback(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err, err
    return err


def test_duplicate_ids_in_a_ner_corpus(folder, capsys):
    _system(folder)
    (folder / "c.jsonl").write_text('{"id": "x", "text": "Ann met Bob."}\n'
                                    '{"id": "y", "text": "Carl met Dana."}\n'
                                    '{"id": "x", "text": "Eve met Finn."}\n', encoding="utf-8")
    suite = _suite(folder, corpus="c.jsonl")
    for command in (["validate", str(suite)], [str(suite), "-o", str(folder / "out")]):
        assert main(command) == ExitCode.USAGE_ERROR
        err = _no_traceback(capsys)
        assert "c.jsonl:3: id 'x' is used again" in err and "c.jsonl:1" in err


def test_duplicate_ids_in_a_re_corpus(tmp_path):
    from runner.errors import SuiteError
    from runner.tasks.re.corpus import RECorpusReader

    line = ('{{"id": "{id}", "text": "Ann works for Acme.", "head": {{"start": 0, "end": 3, '
            '"type": "PERSON"}}, "tail": {{"start": 14, "end": 18, "type": "ORGANIZATION"}}}}')
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(line.format(id=i) for i in ("a", "b", "a")) + "\n",
                    encoding="utf-8")
    with pytest.raises(SuiteError, match=r"pairs.jsonl:3: id 'a' is used again; .*pairs.jsonl:1"):
        RECorpusReader(path).count()
    path.write_text("\n".join(line.format(id=i) for i in ("a", "b")) + "\n", encoding="utf-8")
    assert RECorpusReader(path).count() == 2


@pytest.mark.parametrize("line, message", [
    ('{"text": "Ann met Bob.", "head": {"start": true, "end": 3, "type": "PERSON"}, '
     '"tail": {"start": 8, "end": 11, "type": "PERSON"}}', '"head" must be'),
    # an argument by its text only must occur once (a corpus written without offsets)
    ('{"text": "Ann met Bob and Ann.", "head": {"text": "Ann", "type": "PERSON"}, '
     '"tail": {"text": "Bob", "type": "PERSON"}}', "'Ann' occurs 2 times"),
    ('{"text": "Ann met Bob.", "head": {"start": 3, "end": 0, "type": "PERSON"}, '
     '"tail": {"start": 8, "end": 11, "type": "PERSON"}}', "the start must be before the end"),
    ('{"text": "Ann met Bob.", "text": "x", "head": {"start": 0, "end": 3, "type": "PERSON"}, '
     '"tail": {"start": 8, "end": 11, "type": "PERSON"}}', "the key 'text' appears twice"),
])
def test_re_corpus_errors(tmp_path, line, message):
    from runner.errors import SuiteError
    from runner.tasks.re.corpus import RECorpusReader

    path = tmp_path / "pairs.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(SuiteError, match=re.escape(message)):
        RECorpusReader(path).count()


def test_ner_span_start_after_end_says_so(folder, capsys):
    (folder / "c.jsonl").write_text(
        '{"text": "Ann met Bob.", "entities": [{"start": 3, "end": 0, "label": "PER"}]}\n',
        encoding="utf-8")
    assert main(["validate", str(_suite(folder, corpus="c.jsonl"))]) == ExitCode.USAGE_ERROR
    assert "the start must be before the end" in _no_traceback(capsys)


def test_validate_reads_the_corpus(folder, capsys):
    (folder / "c.jsonl").write_text("this is not JSON\n", encoding="utf-8")
    assert main(["validate", str(_suite(folder, corpus="c.jsonl"))]) == ExitCode.USAGE_ERROR
    assert "c.jsonl:1: invalid JSON" in _no_traceback(capsys)
    assert main(["validate", str(_suite(folder))]) == ExitCode.OK
    assert "6 source(s) in the corpus" in capsys.readouterr().out


def test_validate_warns_of_a_missing_model(folder, capsys):
    sut = "{type: spacy, model: /nonexistent/model_dir}"
    assert main(["validate", str(_suite(folder, sut=sut))]) == ExitCode.OK
    err = capsys.readouterr().err
    assert "warning" in err and "/nonexistent/model_dir" in err and "would exit 4" in err


def test_output_folder_problems_are_exit_4(folder, capsys):
    _system(folder)
    suite = _suite(folder)
    (folder / "a_file").write_text("x", encoding="utf-8")
    for out, why in ((folder / "a_file", "a file is there, not a folder"),
                     (folder / "a_file" / "sub", "is a file, not a folder"),
                     (folder / ("n" * 300), "name too long"),
                     (Path("/proc/mtrun-output"), "cannot be made")):
        assert main([str(suite), "-o", str(out), "-q"]) == ExitCode.USAGE_ERROR
        assert why in _no_traceback(capsys)
    results = folder / "ok"
    assert main([str(suite), "-o", str(results), "-q"]) == ExitCode.OK
    capsys.readouterr()
    for command in (["report", str(results / "results.json"), "-o", str(folder / "a_file")],
                    ["diff", str(results / "results.json"), str(results / "results.json"),
                     "-o", str(folder / "a_file" / "x")]):
        assert main(command) == ExitCode.USAGE_ERROR
        assert "a file" in _no_traceback(capsys)


def test_an_output_folder_that_cannot_be_written(folder, capsys, monkeypatch):
    """A folder we may not write into (as root every folder is writable: the check is the
    write itself, simulated by a refused temporary file)."""
    import tempfile

    _system(folder)

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "NamedTemporaryFile", refuse)
    assert main([str(_suite(folder)), "-o", str(folder / "out"), "-q"]) == ExitCode.USAGE_ERROR
    assert "cannot write into it: permission denied" in _no_traceback(capsys)


def test_a_suite_name_too_long_for_a_folder(folder, capsys):
    _system(folder)
    path = _suite(folder, name="s" * 256)
    assert main(["validate", str(path)]) == ExitCode.USAGE_ERROR
    assert "name" in _no_traceback(capsys)
    assert main([str(path)]) == ExitCode.USAGE_ERROR
    _no_traceback(capsys)


def test_every_shipped_suite_validates():
    """The shipped suites and their corpora (ids unique, every line readable)."""
    assert main(["validate", *sorted(str(p) for p in (ROOT / "suites").glob("*.yaml"))]) == 0


@pytest.mark.parametrize("status, extra, code, label", [
    ("interrupted", {}, ExitCode.INTERRUPTED, "INTERRUPTED"),
    ("failed: ClusterLost: execution: the Ray cluster has no live node", {"exit_code": 3},
     ExitCode.INTERNAL_ERROR, "RUN FAILED"),
])
def test_a_run_that_did_not_finish_says_so_everywhere(tmp_path, status, extra, code, label):
    """Partial results are shown, not judged: the outputs carry the code the run exited with."""
    from synthetic import synthetic_run

    results, cases = synthetic_run(30, 5)
    results["run"].update(status=status, **extra)
    (tmp_path / "results.json").write_text(json.dumps(dict(results, cases=cases)),
                                           encoding="utf-8")
    assert main(["report", str(tmp_path / "results.json"), "-o", str(tmp_path / "out"),
                 "-q"]) == code
    o = outputs(tmp_path / "out")
    assert o["html_label"] == o["junit_label"] == label
    assert o["html_code"] == o["junit_code"] == code
    assert o["md_heading"].endswith(label)


REMOTE = ("azure", "aws")   # need a service and its credentials


def _shipped_runnable() -> list:
    from runner.models.inventory import suite_needs
    from runner.suite import load_suite

    out = []
    for path in sorted((ROOT / "suites").glob("*.yaml")):
        suite = load_suite(path)
        missing = [n.name for n in suite_needs(suite.config, suite.task) if not n.available]
        why = ("a remote service" if suite.config["sut"]["type"] in REMOTE
               else f"missing here: {', '.join(missing)}" if missing else None)
        out.append(pytest.param(path, marks=pytest.mark.skip(reason=why) if why else (),
                                id=path.stem))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("path", _shipped_runnable())
def test_every_shipped_suite_exits_as_its_outputs_say(path, tmp_path, capsys):
    """Each shipped suite (its models here) on a few sources: the run's exit code is the one
    its HTML badge, JUnit and Markdown show (re-rendered in every format by `mtrun report`,
    which exits with the same code)."""
    out = tmp_path / "out"
    code = main([str(path), "--max-sources", "3", "-o", str(out), "-q", "--no-cache"])
    if code == ExitCode.USAGE_ERROR:
        err = capsys.readouterr().err
        # a model or extra `mtrun models` does not list (flair, an RE classifier)
        if "is not available here" in err or "pip install" in err:
            pytest.skip(err.strip().splitlines()[-1][:200])
        pytest.fail(err[-2000:])
    again = tmp_path / "again"
    assert main(["report", str(out / "results.json"), "-o", str(again), "-q",
                 "--formats", "json,html,junit,markdown"]) == code
    assert_agree(code, again)
