"""Where a run's time goes: wall-clock seconds per stage (start-up, system calls, parsing, each
transformation's candidates, each filter, relations, analysis, report), kept by the engine in
``results.json`` (``run.stages``) and printed by ``mtrun --timings``.

Stages may nest (``start-up: models`` is part of ``start-up``) and, in the local engine, the
model-based filters of one batch run on a second thread while the next batch is transformed, so
stage times may add up to more than the wall time: the shares are read per line, not summed.
"""
from __future__ import annotations

import os
import threading
import time
from collections import defaultdict
from contextlib import contextmanager
from typing import Iterator


def process_age() -> float:
    """Seconds since this process started (Linux: from /proc; elsewhere: since this module was
    imported, which happens early in ``mtrun``)."""
    try:
        with open("/proc/self/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        started = int(fields[19]) / ticks       # field 22 of stat(5): starttime, after boot
        with open("/proc/uptime", encoding="ascii") as handle:
            uptime = float(handle.read().split()[0])
        return max(0.0, uptime - started)
    except (OSError, ValueError, IndexError):
        return time.perf_counter() - _IMPORTED


_IMPORTED = time.perf_counter()


class Stages:
    """Accumulated seconds and entries per stage name, in first-seen order."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()       # stages are timed on more than one thread

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - start)

    def add(self, name: str, seconds: float) -> None:
        with self._lock:
            self.seconds[name] += seconds
            self.calls[name] += 1

    def merge(self, other: dict[str, float]) -> None:
        for name, seconds in other.items():
            self.add(name, seconds)

    def to_json(self) -> dict[str, float]:
        return {name: round(s, 3) for name, s in self.seconds.items()}


def stage_table(stages: dict[str, float], wall: float | None = None) -> str:
    """A plain-text table of the stages, longest first, with each one's share of ``wall``."""
    rows = sorted(stages.items(), key=lambda kv: -kv[1])
    width = max([len(n) for n, _ in rows] + [5])
    lines = [f"{'stage':<{width}}  {'seconds':>8}" + ("  share" if wall else "")]
    for name, s in rows:
        share = f"  {100 * s / wall:4.0f}%" if wall else ""
        lines.append(f"{name:<{width}}  {s:8.2f}{share}")
    if wall:
        lines.append(f"{'wall (whole process)':<{width}}  {wall:8.2f}")
    return "\n".join(lines)
