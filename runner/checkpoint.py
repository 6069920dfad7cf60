"""What a run leaves in its output folder as it goes, and what ``--resume`` reads back.

``cases.jsonl`` gets a batch's cases in one write, each stage's records file (NER's attacks:
``attacks.jsonl``) its records, then ``progress.jsonl`` one mark per batch recorded whole: the
byte length of every file and the counts so far. A run cut short by a kill is continued after
its last mark; what was written after it is cut off and that batch runs again.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Iterator

CASES_FILE = "cases.jsonl"
PROGRESS_FILE = "progress.jsonl"  # one line per recorded batch: what --resume continues from


def resume_key(cfg: dict[str, Any], corpus_path: Path) -> str:
    """What must not change between a run and its --resume: the suite as filled (except where
    the reports go, the source limit, the cache and how a remote system is called) and the
    corpus's bytes."""
    cfg = {k: v for k, v in cfg.items()
           if k not in ("report", "cache", "description", "execution")}
    cfg["limits"] = {k: v for k, v in cfg["limits"].items() if k != "max_sources"}
    cfg["sut"] = {k: v for k, v in cfg["sut"].items() if k not in ("retry", "concurrency")}
    digest = hashlib.sha256(json.dumps(cfg, sort_keys=True, default=str).encode())
    with corpus_path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def load_progress(out_dir: Path, key: str) -> dict[str, Any]:
    """The last batch recorded whole in ``out_dir``; refuses a folder made by another suite,
    seed or corpus (its cases could not be continued into the same results)."""
    from runner.errors import MtrunError

    path = Path(out_dir) / PROGRESS_FILE
    if not path.exists():
        raise MtrunError(f"--resume: nothing to resume in {out_dir} (no {PROGRESS_FILE}); run "
                         "without --resume to start")
    lines, good_bytes = [], 0
    for raw in path.read_bytes().splitlines(keepends=True):
        try:
            if not raw.endswith(b"\n"):
                raise ValueError("no line end")
            lines.append(json.loads(raw))
        except ValueError:
            break  # a line cut short by a kill: everything after it is not recorded
        good_bytes += len(raw)
    if not lines or lines[0].get("kind") != "start":
        raise MtrunError(f"--resume: {path} is not an mtrun progress file")
    if lines[0].get("key") != key:
        raise MtrunError(f"--resume: the run in {out_dir} was made with another suite "
                         "configuration, seed or corpus; resume it with the same ones, or run "
                         "without --resume (or with another -o folder) to start again")
    batches = [ln for ln in lines if ln.get("kind") == "batch"]
    resumes = [ln["at"] for ln in lines if ln.get("kind") == "resume"]
    state = batches[-1] if batches else {"sources_done": 0, "cases_bytes": 0, "counts": [],
                                         "per_transformation": []}
    state["resumed_at"] = resumes
    state["progress_bytes"] = good_bytes
    return state


def batch_analyses(progress_path: Path) -> Iterator[dict[str, Any]]:
    """The violation analysis's checkpoint of every batch recorded in a progress file, in order
    (what a task's analyzer takes back on ``--resume``: the last one's totals, and whatever each
    batch added)."""
    with Path(progress_path).open(encoding="utf-8") as handle:
        for line in handle:
            mark = json.loads(line)
            if mark.get("kind") == "batch" and "analysis" in mark:
                yield mark["analysis"]


def last_analysis(progress_path: Path) -> dict[str, Any] | None:
    """The analysis checkpoint of the last batch recorded whole, or None."""
    last = None
    for last in batch_analyses(progress_path):
        pass
    return last
