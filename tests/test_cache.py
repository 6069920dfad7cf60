"""The persistent prediction cache: raw answers keyed by system fingerprint + text, shared across
label maps and processes, consistent after a SIGKILL, clear errors for a bad file."""
from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from runner.errors import MtrunError
from runner.tasks.ner.sut.base import NERSystem
from runner.sut.cache import PersistentCache

ROOT = Path(__file__).resolve().parent.parent


class Counting(NERSystem):
    """A deterministic system that records what it was asked: capitalised words are PER."""

    name = "counting"

    def __init__(self, **kw):
        super().__init__(**kw)
        self.asked: list[str] = []

    def describe(self):
        return {"backend": "counting", "version": 1}

    def _predict_raw(self, texts):
        self.asked += texts
        out = []
        for t in texts:
            spans, pos = [], 0
            for w in t.split():
                pos = t.index(w, pos)
                if w[:1].isupper():
                    spans.append((pos, pos + len(w.rstrip(".")), "PER", 0.5))
                pos += len(w)
            out.append(spans)
        return out


def test_raw_answers_are_shared_across_label_maps(tmp_path):
    store = PersistentCache(tmp_path / "p.sqlite")
    a = Counting(label_map={"PER": "PERSON"})
    a.store = store
    first = a.predict(["Ann met Bob.", "no one here", "Ann met Bob."])
    assert a.asked == ["Ann met Bob.", "no one here"]  # duplicates once
    b = Counting(label_map={"PER": "MISC"})  # another suite, another label map
    b.store = store
    second = b.predict(["Ann met Bob.", "Carl left."])
    assert b.asked == ["Carl left."]
    assert [s.label for s in second[0].spans] == ["MISC", "MISC"]
    assert [(s.start, s.end, s.score) for s in second[0].spans] == \
        [(s.start, s.end, s.score) for s in first[0].spans]
    assert b.stats()["cache"]["persistent_hits"] == 1
    assert b.stats()["cache"]["persistent_entries"] == 3
    assert a.fingerprint() != b.fingerprint() and a.raw_fingerprint() == b.raw_fingerprint()


def test_wal_mode_and_two_connections(tmp_path):
    path = tmp_path / "p.sqlite"
    one, two = PersistentCache(path), PersistentCache(path)
    assert one._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    one.put_many("fp", {"a": [(0, 1, "X", None)]})
    assert two.get_many("fp", ["a", "b"]) == {"a": [[0, 1, "X", None]]}
    two.put_many("fp", {"b": []})
    assert one.count("fp") == 2 and one.count("other") == 0


def test_a_bad_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(MtrunError, match="--no-cache"):
        PersistentCache(bad)
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    db.execute("INSERT INTO meta VALUES ('schema', '99')")
    db.commit()
    db.close()
    with pytest.raises(MtrunError, match="format 99"):
        PersistentCache(other)


@pytest.mark.slow
def test_a_killed_writer_leaves_a_consistent_file(tmp_path):
    path = tmp_path / "p.sqlite"
    writer = textwrap.dedent(f"""
        import itertools, sys
        from runner.sut.cache import PersistentCache
        c = PersistentCache({str(path)!r})
        for i in itertools.count():
            c.put_many("fp", {{f"text {{i}} {{j}}": [(0, 4, "X", 0.5)] for j in range(50)}})
            if i == 5:
                print("ready", flush=True)
    """)
    proc = subprocess.Popen([sys.executable, "-c", writer], cwd=ROOT, stdout=subprocess.PIPE,
                            text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    cache = PersistentCache(path)
    assert cache._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    n = cache.count("fp")
    assert n >= 300 and n % 50 == 0  # whole transactions only
