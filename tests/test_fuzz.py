"""Property-based fuzzing of what users hand to mtrun: the shipped suites mutated (keys deleted,
duplicated, renamed, retyped; random scalars, nesting and Unicode; broken YAML text) and corpora
made of random bytes, random Unicode lines, huge lines, BOMs, CRLF and NUL bytes, in every format.

For every example: success, or the project's own error (exit 4) with a message naming the file —
never another exception, never a traceback. Examples run in-process through the real entry points
(``main(["validate", ...])``, ``load_suite``, ``CorpusReader``) with a watchdog and a memory cap
on each; a few run the command line in a subprocess under a 1 GiB address-space limit for the real
exit code. Derandomized: CI sees the same examples on every run."""
from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import signal
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
import yaml

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from runner.cli import main  # noqa: E402
from runner.tasks.ner.corpus import CorpusReader  # noqa: E402
from runner.errors import ExitCode, MtrunError  # noqa: E402
from runner.suite import load_suite  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SUITES = sorted((ROOT / "suites").glob("*.yaml"))
SUITE_TEXTS = {p.name: p.read_text(encoding="utf-8") for p in SUITES}

WATCHDOG_S = 30            # per example; a hang fails the example instead of the whole CI job
MAX_PEAK_BYTES = 256 << 20  # Python allocations per in-process example
COMMON = dict(deadline=None, derandomize=True, database=None, print_blob=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much, HealthCheck.large_base_example])

# examples run, per kind (printed at the end of the module, for the record)
COUNTS: dict[str, dict[str, int]] = {}


def _count(kind: str, outcome: str) -> None:
    COUNTS.setdefault(kind, {}).setdefault(outcome, 0)
    COUNTS[kind][outcome] += 1


@pytest.fixture(scope="module", autouse=True)
def _report_counts():
    yield
    for kind, outcomes in sorted(COUNTS.items()):
        print(f"\nfuzz {kind}: {sum(outcomes.values())} examples "
              f"({', '.join(f'{k} {v}' for k, v in sorted(outcomes.items()))})")


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """A folder with the shipped corpora next to where mutated suites are written."""
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "data").symlink_to(ROOT / "suites" / "data")
    return folder


@contextlib.contextmanager
def bounded(kind: str):
    """Fail the example if it runs past the watchdog or allocates more than the cap."""
    def alarm(signum, frame):
        raise AssertionError(f"{kind}: example ran longer than {WATCHDOG_S} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(WATCHDOG_S)
    tracemalloc.start()
    try:
        yield
        peak = tracemalloc.get_traced_memory()[1]
        assert peak < MAX_PEAK_BYTES, f"{kind}: {peak / 1e6:.0f} MB allocated"
    finally:
        tracemalloc.stop()
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# -- mutating a suite ----------------------------------------------------------------------------

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-10**6, max_value=10**6),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30),
    st.sampled_from(["", "0", "null", "~", "yes", "no", "2001-13-45", "!!int", "*a", "&a", "<<",
                     "../../etc/passwd", "x" * 5000, "\u202e", "\x00", "\ud800", "🎉", "cuda:99",
                     "spacy", "entity_shuffle", "MR1", "data/news.txt", "data"]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)),
    max_leaves=12)
# values a path key may be given: too long for the file system, with a NUL, a device, a folder
PATH_VALUES = st.sampled_from(["x" * 300 + ".txt", "a\x00b.txt", "y" * 5000, "/dev/null", "/dev/zero",
                               "data", "data/", "data/news.txt", "data/news_gold.jsonl",
                               "data/missing.conll", "/" * 5000, "../" * 200 + "etc", "~/.ssh",
                               "data/news.txt\n", "data/\u202enews.txt", "", "."])
PATH_KEYS = [("corpus", "path"), ("corpus", "format"), ("report", "dir"), ("cache", "path"),
             ("transformations", 0, "sense2vec"), ("transformations", 0, "source"),
             ("sut", "model"), ("parser", "model")]
KEYS = st.one_of(st.text(max_size=16), st.sampled_from(
    ["name", "task", "sut", "type", "model", "corpus", "path", "format", "transformations",
     "relations", "applies_to", "filters", "report", "fail_on", "limits", "repair", "<<",
     "SynThreshold", "label_map", "sense2vec", "source", "max_sentence_chars"]))


def _paths(node, at=()):
    yield at
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, at + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, at + (i,))


def _get(node, at):
    for part in at:
        node = node[part]
    return node


def _set(root, at, value):
    if not at:
        return value
    _get(root, at[:-1])[at[-1]] = value
    return root


def mutate_tree(data, draw):
    """One structural change somewhere in the suite."""
    paths = list(_paths(data))[1:] or [()]
    at = draw(st.sampled_from(paths))
    # hypothesis leans to the first choices of a list: the operations that reach furthest first
    op = draw(st.sampled_from(["path", "retype", "delete", "nest", "unicode", "rename", "add",
                               "duplicate", "path"]))
    if op == "path" and isinstance(data, dict):
        at = draw(st.sampled_from(PATH_KEYS))
        node = data
        for part in at[:-1]:
            if isinstance(part, int):
                if not (isinstance(node, list) and node):
                    return data, "path (no such section)"
            elif not isinstance(node, dict):
                return data, "path (no such section)"
            else:
                node = node.setdefault(part, {})
                continue
            node = node[part]
        if isinstance(node, dict):
            node[at[-1]] = draw(st.one_of(PATH_VALUES, PATH_VALUES, PATH_VALUES, SCALARS))
        return data, op
    target = _get(data, at)
    if op == "delete" and at:
        parent = _get(data, at[:-1])
        del parent[at[-1]]
        return data, op
    if op == "retype":
        return _set(data, at, draw(VALUES)), op
    if op == "nest":
        for _ in range(draw(st.integers(1, 6))):
            target = draw(st.sampled_from([[target], {"x": target}, {draw(KEYS): target}]))
        return _set(data, at, target), op
    if op == "unicode" and isinstance(target, str):
        return _set(data, at, draw(st.text(min_size=0, max_size=40))), op
    if op == "rename" and at and isinstance(_get(data, at[:-1]), dict):
        parent = _get(data, at[:-1])
        parent[draw(KEYS)] = parent.pop(at[-1])
        return data, op
    if op == "add" and isinstance(target, dict):
        target[draw(KEYS)] = draw(VALUES)
        return data, op
    if op == "duplicate" and isinstance(target, list) and target:
        target.append(json.loads(json.dumps(target[0], default=str)))
        return data, op
    return _set(data, at, draw(VALUES)), "retype"


TEXT_SNIPPETS = ["2001-13-45", "!!int ", "!!bool ", "!!timestamp ", "!!float ", "[" * 400, "\x00", "\ufeff", "\r\n", "\t", ":", "- ", "&a ", "*a", "*nowhere", "<<: *a\n",
                 "!!python/object:os.system ", "!!binary ", "{", "[", "]", "}", "'", '"', "%YAML 1.1\n",
                 "---\n", "...\n", "? ", "\u202e", "\udcff", "\x85", "\u2028", " " * 200, "#",
                 "a: &a [" + ",".join(["x"] * 50) + "]\nb: [" + ",".join(["*a"] * 300) + "]\n"]


def mutate_text(text, draw):
    """One change to the YAML text itself: duplicated lines (duplicate keys), cut lines, inserted
    syntax, random Unicode or bytes-as-characters."""
    lines = text.splitlines(keepends=True) or [""]
    op = draw(st.sampled_from(["dup_line", "drop_line", "insert", "unicode", "cut", "indent"]))
    i = draw(st.integers(0, len(lines) - 1))
    if op == "dup_line":
        lines.insert(i, lines[i])
    elif op == "drop_line":
        del lines[i]
    elif op == "indent":
        lines[i] = draw(st.sampled_from([" ", "  ", "\t", "    "])) + lines[i]
    else:
        line = lines[i]
        j = draw(st.integers(0, len(line)))
        if op == "insert":
            piece = draw(st.sampled_from(TEXT_SNIPPETS))
        elif op == "unicode":
            piece = draw(st.text(max_size=10))
        else:
            piece, line = "", line[:j]
        lines[i] = line[:j] + piece + line[j:]
    return "".join(lines), op


@st.composite
def mutated_suites(draw):
    """A shipped suite with one change (most reach the cross-checks behind the schema), several
    changes, changes to the text, or both."""
    name = draw(st.sampled_from(sorted(SUITE_TEXTS)))
    text = SUITE_TEXTS[name]
    mode = draw(st.sampled_from(["one", "one", "tree", "text", "both"]))
    ops = []
    if mode != "text":
        data = yaml.safe_load(text)
        for _ in range(1 if mode == "one" else draw(st.integers(1, 4))):
            data, op = mutate_tree(data, draw)
            ops.append(op)
        text = yaml.safe_dump(data, allow_unicode=draw(st.booleans()), sort_keys=False)
    if mode in ("text", "both"):
        for _ in range(draw(st.integers(1, 3))):
            text, op = mutate_text(text, draw)
            ops.append(op)
    return name, text, ops


def _write_suite(folder: Path, text: str) -> Path:
    path = folder / "suite.yaml"
    try:
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
    except UnicodeEncodeError:
        path.write_bytes(text.encode("utf-8", "replace"))
    return path


def _check_cli(code: int, err: str, path: Path, kind: str) -> None:
    assert "Traceback" not in err, err
    assert code in (ExitCode.OK, ExitCode.USAGE_ERROR), (code, err)
    if code == ExitCode.USAGE_ERROR:
        assert err.startswith("mtrun: error: ") and str(path) in err, err
    _count(kind, "ok" if code == ExitCode.OK else "exit 4")


@settings(max_examples=260, **COMMON)
@given(mutated_suites())
def test_mutated_suites_validate_or_exit_4(work, example):
    name, text, ops = example
    path = _write_suite(work, text)
    err = io.StringIO()
    with bounded("suites"), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["validate", str(path)])
    _check_cli(code, err.getvalue(), path, "suites (mtrun validate, in-process)")


@settings(max_examples=120, **COMMON)
@given(mutated_suites())
def test_mutated_suites_load_or_raise_the_project_error(work, example):
    """load_suite itself: only MtrunError may leave it (an internal error would be exit 3)."""
    name, text, ops = example
    path = _write_suite(work, text)
    with bounded("load_suite"):
        try:
            suite = load_suite(path)
        except MtrunError as exc:
            assert str(path) in str(exc) or "MTRUN_" in str(exc), str(exc)
            _count("suites (load_suite)", "error")
            return
    assert suite.config["name"]
    _count("suites (load_suite)", "ok")


# -- corpora -------------------------------------------------------------------------------------

LINE_PIECES = st.sampled_from(["\ufeff", "\r\n", "\r", "\n", "\x00", "\t", "\u202e", "\u200b",
                               "\u2028", "\x85", " ", "O", "B-PER", "I-LOC", "B-", "-DOCSTART-",
                               '{"text": "Paris"}', '{"text": ', "[" * 80, "]", "\\ud800",
                               '"entities": [{"start": 0, "end": 5, "label": "LOC"}]', "Paris",
                               "é", "🎉"])


def _conll_from_gold() -> bytes:
    """The gold sample as CoNLL (token, BIO tag), for mutating a well-formed CoNLL file."""
    out = []
    for line in (ROOT / "suites" / "data" / "news_gold.jsonl").read_text(encoding="utf-8").splitlines()[:12]:
        obj = json.loads(line)
        pos = 0
        for token in obj["text"].split(" "):
            start = obj["text"].index(token, pos)
            pos = start + len(token)
            tag = "O"
            for e in obj["entities"]:
                if e["start"] <= start < e["end"]:
                    tag = ("B-" if start == e["start"] else "I-") + e["label"]
            out.append(f"{token} {tag}")
        out.append("")
    return ("\n".join(out) + "\n").encode()


SHIPPED = {"text": (ROOT / "suites" / "data" / "news.txt").read_bytes()[:3000],
           "jsonl": (ROOT / "suites" / "data" / "news_gold.jsonl").read_bytes()[:3000],
           "conll": _conll_from_gold()}
BYTE_PIECES = [b"\x00", b"\xef\xbb\xbf", b"\r\n", b"\r", b"\n", b"\n\n", b"\xff", b"\xc3",
               b"\xe2\x80\xae", b"\xe2\x80\x8b", b"\t", b" ", b"{", b"}", b"[", b"]", b'"', b"\\",
               b"\\ud800", b"B-", b"I-PER", b"O", b"-DOCSTART- O\n", b"x" * 70_000, b"[" * 200]


@st.composite
def shipped_corpus(draw, fmt):
    """A shipped corpus with a few byte-level edits: pieces inserted, bytes deleted or replaced,
    line endings turned to CRLF."""
    data = bytearray(SHIPPED[fmt])
    for _ in range(draw(st.integers(1, 6))):
        i = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["insert", "delete", "byte", "crlf"]))
        if op == "insert":
            data[i:i] = draw(st.sampled_from(BYTE_PIECES))
        elif op == "delete":
            del data[i:i + draw(st.integers(1, 40))]
        elif op == "byte":
            data[i:i + 1] = bytes([draw(st.integers(0, 255))])
        else:
            data = bytearray(bytes(data).replace(b"\n", b"\r\n"))
    return "shipped", bytes(data)


@st.composite
def corpus_bytes(draw, fmt="text"):
    kind = draw(st.sampled_from(["bytes", "unicode_lines", "huge_line", "pieces", "json_lines",
                                 "shipped", "shipped"]))
    if kind == "shipped":
        return draw(shipped_corpus(fmt))
    if kind == "bytes":
        data = draw(st.binary(max_size=400))
    elif kind == "unicode_lines":
        lines = draw(st.lists(st.text(max_size=60), max_size=12))
        sep = draw(st.sampled_from(["\n", "\r\n", "\r", "\x00\n"]))
        data = sep.join(lines).encode("utf-8", "surrogatepass")
    elif kind == "huge_line":
        size = draw(st.sampled_from([5_000, 70_000, 400_000]))
        data = (draw(st.sampled_from(["x", "é", "[", '{"text": "', "\x00"])) * size).encode()
        if draw(st.booleans()):
            data = b"Paris is nice.\n" + data
    elif kind == "pieces":
        data = "".join(draw(st.lists(LINE_PIECES, max_size=40))).encode("utf-8", "surrogatepass")
    else:
        objs = draw(st.lists(st.dictionaries(
            st.sampled_from(["text", "id", "entities", "x"]),
            st.one_of(VALUES, st.lists(st.fixed_dictionaries(
                {"start": st.integers(-3, 30), "end": st.integers(-3, 30),
                 "label": st.one_of(st.text(max_size=5), st.integers())}), max_size=3))),
            max_size=6))
        data = "\n".join(json.dumps(o, ensure_ascii=draw(st.booleans()), default=str)
                         for o in objs).encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    return kind, data


@settings(max_examples=300, **COMMON)
@given(st.data(), st.sampled_from(["text", "jsonl", "conll"]), st.sampled_from([50, 5000]))
def test_random_corpora_read_or_exit_4(work, data, fmt, max_chars):
    kind, data = data.draw(corpus_bytes(fmt))
    path = work / f"corpus.{fmt}"
    path.write_bytes(data)
    with bounded("corpus"):
        try:
            n = CorpusReader(path, fmt, max_sentence_chars=max_chars).count()
        except MtrunError as exc:
            assert str(exc).startswith(f"{path}"), str(exc)
            assert exc.exit_code == ExitCode.USAGE_ERROR
            _count(f"corpora ({fmt})", f"{kind}: error")
            return
    assert n > 0
    _count(f"corpora ({fmt})", f"{kind}: read")


VALIDATE_SUITE = ("name: fuzz\ntask: ner\nsut: {type: http, url: 'http://127.0.0.1:9/ner', "
                  "response: {documents: ''}}\ncorpus: {path: corpus.%s, format: %s}\n"
                  "limits: {max_sentence_chars: %d}\ntransformations:\n  - type: entity_shuffle\n")


@settings(max_examples=150, **COMMON)
@given(st.data(), st.sampled_from(["text", "jsonl", "conll"]), st.sampled_from([50, 5000]))
def test_validate_refuses_every_corpus_the_run_refuses(work, data, fmt, max_chars):
    """``mtrun validate`` reads the corpus with the reader a run uses: it exits 4 with the same
    message for every hostile corpus the reader refuses, and accepts every other."""
    kind, data = data.draw(corpus_bytes(fmt))
    (work / f"corpus.{fmt}").write_bytes(data)
    path = work / "validate.yaml"
    path.write_text(VALIDATE_SUITE % (fmt, fmt, max_chars), encoding="utf-8")
    with bounded("validate"):
        try:
            CorpusReader(work / f"corpus.{fmt}", fmt, max_sentence_chars=max_chars).count()
            refused = None
        except MtrunError as exc:
            refused = str(exc)
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(["validate", str(path)])
    assert "Traceback" not in err.getvalue()
    if refused is None:
        assert code == ExitCode.OK, err.getvalue()
        _count(f"validate ({fmt})", f"{kind}: ok")
    else:
        assert code == ExitCode.USAGE_ERROR, refused
        assert refused.splitlines()[0] in err.getvalue()
        _count(f"validate ({fmt})", f"{kind}: refused")


# -- the real command line, in a subprocess ---------------------------------------------------------

def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def _mtrun(*args):
    return subprocess.run([sys.executable, "-m", "runner", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, preexec_fn=_limit_memory,
                          env={**os.environ, "MTRUN_CACHE": os.environ.get("MTRUN_CACHE", "")})


@settings(max_examples=8, **COMMON)
@given(mutated_suites())
def test_mutated_suites_in_a_subprocess(work, example):
    name, text, ops = example
    path = _write_suite(work, text)
    proc = _mtrun("validate", path)
    _check_cli(proc.returncode, proc.stderr, path, "suites (subprocess, 1 GiB)")


HTTP_SUITE = ("name: fuzz\ntask: ner\nsut: {type: http, url: 'http://127.0.0.1:9/ner', "
              "response: {documents: ''}}\ncorpus: {path: corpus.%s}\n"
              "transformations:\n  - type: entity_shuffle\n")


@settings(max_examples=8, **COMMON)
@given(st.data(), st.sampled_from(["txt", "jsonl", "conll"]))
def test_random_corpora_in_a_subprocess(work, data, ext):
    """A dry run reads the whole corpus and sends nothing (the http system is never called)."""
    kind, data = data.draw(corpus_bytes({"txt": "text"}.get(ext, ext)))
    (work / f"corpus.{ext}").write_bytes(data)
    path = work / "http.yaml"
    path.write_text(HTTP_SUITE % ext, encoding="utf-8")
    proc = _mtrun(path, "--dry-run", "--no-cache")
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (ExitCode.OK, ExitCode.USAGE_ERROR), proc.stderr
    if proc.returncode == ExitCode.USAGE_ERROR:
        assert f"corpus.{ext}" in proc.stderr, proc.stderr
    _count("corpora (subprocess dry run, 1 GiB)", "ok" if proc.returncode == 0 else "exit 4")
