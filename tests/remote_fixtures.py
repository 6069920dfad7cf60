"""Corpus and suites shared by the tests of remote systems under test."""
from __future__ import annotations

import json
from pathlib import Path

SENTENCES = [
    "Angela Merkel met Emmanuel Macron in Paris.",
    "Joe Biden called Ann Smith from Berlin.",
    "Ann Smith and Bob Jones work for Siemens in Tokyo.",
    "🎉 Zoë Müller thanked Angela Merkel in New York.",
    "Google and Siemens signed a deal with the United Nations.",
    "Bob Jones visited Paris and Berlin with Joe Biden.",
    "It rained all day in Paris.",
    "Emmanuel Macron [[FAIL]] and Ann Smith never answer.",
    "Angela Merkel [[DOCERR]] and Bob Jones are rejected by the service.",
    "Tokyo and Berlin are far from Paris, said Zoë Müller to Joe Biden.",
]


def long_sentence() -> str:
    """Longer than Azure's 5,120 characters (and AWS's 5,000 bytes): never sent, marked error."""
    return "Angela Merkel met Emmanuel Macron. " + "word " * 1100


def write_suite(folder: Path, sut: str, *, n_repeat: int = 1, extra: str = "",
                with_long: bool = True, batch_size: int = 4) -> Path:
    lines = SENTENCES * n_repeat
    if n_repeat > 1:  # distinct texts: the same sentence with a number
        lines = [f"{s[:-1]} ({i})." for i, s in enumerate(lines)]
    if with_long:
        lines = lines + [long_sentence()]
    (folder / "corpus.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    suite = folder / "suite.yaml"
    suite.write_text(
        f"name: remote\ntask: ner\nseed: 5\nsut:\n{sut}\ncorpus: {{path: corpus.txt}}\n"
        "transformations:\n  - type: entity_shuffle\n    follow_ups: 2\n"
        f"limits: {{max_sentence_chars: 6000, batch_size: {batch_size}}}\n{extra}",
        encoding="utf-8")
    return suite


def load_results(out: Path) -> dict:
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


def every_file_text(*roots: Path) -> str:
    """All bytes under the given files/folders, decoded leniently (for secret checks). Objects
    left for the garbage collector (a run's SQLite cache connection) are collected first, so a
    connection closing mid-walk cannot remove its -shm/-wal file under the reader: their content
    is then folded into the database file, which is read."""
    import gc

    gc.collect()
    chunks = []
    for root in roots:
        paths = [root] if root.is_file() else [p for p in root.rglob("*") if p.is_file()]
        for p in paths:
            try:
                chunks.append(p.read_bytes().decode("utf-8", "replace"))
            except FileNotFoundError:
                continue  # removed since the listing: nothing left in it to leak
    return "\n".join(chunks)
