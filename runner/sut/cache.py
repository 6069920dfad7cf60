"""The persistent prediction cache: one SQLite file (standard library) shared by runs and suites.

Rows are keyed by (system fingerprint, input key) and hold the system's *raw* answer as JSON (for
NER: character spans with the system's own labels, before the suite's label map; the input key is
the text, or what the task says identifies an input, e.g. text + head + tail for relation
extraction), so a re-run, a resumed run or a second
suite with another label map never pays twice for the same call. The fingerprint is a hash of the
system's description (backend, model, endpoint, API version, parameters): it never contains a
secret, and the cache holds no credential.

The database runs in WAL mode and every chunk of answers is committed in one transaction as soon
as it arrives: a process killed at any moment leaves a consistent file that keeps every answer
already committed.
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from runner.errors import MtrunError

SCHEMA_VERSION = "1"
_CHUNK = 500  # SQLite host parameters per query stay well below its limit

RawAnswer = Any  # what the system said about one input, as JSON (NER: [start, end, label, score])


class CacheError(MtrunError):
    """The cache file cannot be opened or is not an mtrun prediction cache."""


class PersistentCache:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), timeout=30, isolation_level=None,
                                       check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS predictions (fingerprint TEXT NOT NULL, "
                "text TEXT NOT NULL, spans TEXT NOT NULL, created REAL NOT NULL, "
                "PRIMARY KEY (fingerprint, text)) WITHOUT ROWID")
            row = self._db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is None:
                self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)",
                                 (SCHEMA_VERSION,))
            elif row[0] != SCHEMA_VERSION:
                raise CacheError(f"prediction cache {self.path} has format {row[0]}, this mtrun "
                                 f"writes format {SCHEMA_VERSION}; delete the file or point "
                                 "cache.path elsewhere")
        except sqlite3.DatabaseError as exc:
            raise CacheError(f"cannot use the prediction cache {self.path}: {exc}; delete the "
                             "file, point cache.path elsewhere, or run with --no-cache") from None
        except OSError as exc:
            raise CacheError(f"cannot create the prediction cache {self.path}: {exc}") from None
        self.hits = 0      # texts answered from the file
        self.writes = 0    # texts written to the file by this process

    def get_many(self, fingerprint: str, texts: Sequence[str]) -> dict[str, RawAnswer]:
        found: dict[str, RawAnswer] = {}
        with self._lock:
            for i in range(0, len(texts), _CHUNK):
                part = list(texts[i:i + _CHUNK])
                marks = ",".join("?" * len(part))
                rows = self._db.execute(
                    f"SELECT text, spans FROM predictions WHERE fingerprint = ? AND text IN ({marks})",
                    [fingerprint, *part]).fetchall()
                for text, spans in rows:
                    found[text] = json.loads(spans)
        self.hits += len(found)
        return found

    def put_many(self, fingerprint: str, answers: Mapping[str, RawAnswer]) -> None:
        if not answers:
            return
        now = time.time()
        rows = [(fingerprint, text, json.dumps(answer, ensure_ascii=False), now)
                for text, answer in answers.items()]
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany("INSERT OR REPLACE INTO predictions VALUES (?, ?, ?, ?)", rows)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        self.writes += len(rows)

    def count(self, fingerprint: str | None = None) -> int:
        with self._lock:
            if fingerprint is None:
                return self._db.execute("SELECT COUNT(*) FROM predictions").fetchone()[0]
            return self._db.execute("SELECT COUNT(*) FROM predictions WHERE fingerprint = ?",
                                    (fingerprint,)).fetchone()[0]

    def contains(self, fingerprint: str, texts: Iterable[str]) -> int:
        """How many of ``texts`` are cached (counts nothing as a hit)."""
        texts = list(dict.fromkeys(texts))
        n = 0
        with self._lock:
            for i in range(0, len(texts), _CHUNK):
                part = texts[i:i + _CHUNK]
                marks = ",".join("?" * len(part))
                n += self._db.execute(
                    f"SELECT COUNT(*) FROM predictions WHERE fingerprint = ? AND text IN ({marks})",
                    [fingerprint, *part]).fetchone()[0]
        return n

    def stats(self, fingerprint: str) -> dict[str, Any]:
        return {"path": str(self.path), "persistent_entries": self.count(fingerprint),
                "persistent_writes": self.writes}

    def close(self) -> None:
        with self._lock:
            self._db.close()
