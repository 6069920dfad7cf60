"""What a run counts: cases per (transformation, relation) and per transformation, the groups of
transformations, and the filter funnel (what each filter dropped). Counts of a batch are merged
into the run's, dumped into each progress mark and restored from it by ``--resume``."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from runner.types import Outcome


@dataclass
class Counts:
    sources: int = 0        # sources seen by the transformation
    applicable: int = 0     # sources that gave at least one follow-up
    follow_ups: int = 0
    outcomes: dict[str, int] = field(default_factory=lambda: {o.value: 0 for o in Outcome})

    def to_json(self, relation: str | None = None) -> dict[str, Any]:
        judged = self.outcomes["pass"] + self.outcomes["fail"]
        return {"sources": self.sources, "applicable_sources": self.applicable,
                "follow_ups": self.follow_ups, "cases": sum(self.outcomes.values()),
                **self.outcomes, "violations": self.outcomes["fail"],
                "violation_rate": (self.outcomes["fail"] / judged) if judged else None}


def group_counts(summary: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per group of transformations (research, robustness, bias): the counts of its rows and
    which transformations it holds (results.json ``groups``)."""
    out: dict[str, dict[str, Any]] = {}
    for row in summary:
        g = out.setdefault(row.get("group", "research"),
                           {"transformations": [], "follow_ups": 0, "cases": 0, "pass": 0,
                            "fail": 0, "skip": 0, "error": 0})
        if row["transformation"] not in g["transformations"]:
            g["transformations"].append(row["transformation"])
            g["follow_ups"] += row["follow_ups"]
        for k in ("cases", "pass", "fail", "skip", "error"):
            g[k] += row[k]
    for g in out.values():
        judged = g["pass"] + g["fail"]
        g["violations"] = g["fail"]
        g["violation_rate"] = g["fail"] / judged if judged else None
    return out


def funnel_entry() -> dict[str, Any]:
    return {"generated": 0, "dropped_by": {}, "over_limit": 0, "tested": 0, "violations": 0}


def prepend_own_checks(entry: dict[str, Any], part: dict[str, Any]) -> None:
    """A transformation's own funnel (``take_funnel()``: ``candidates`` made, ``dropped_by`` its
    checks, ``not_tried`` once its per-source limit was reached) goes before the filters':
    generated = its candidates, its checks first among the drops, the untried over the limit."""
    entry["generated"] = max(entry["generated"], int(part.get("candidates", 0)))
    entry["dropped_by"] = {**part.get("dropped_by", {}), **entry["dropped_by"]}
    entry["over_limit"] += int(part.get("not_tried", 0))
    if "seconds" in part:
        entry["seconds"] = round(entry.get("seconds", 0.0) + float(part["seconds"]), 3)


def merge_funnel(into: dict[str, dict[str, Any]], part: dict[str, dict[str, Any]]) -> None:
    for t, c in part.items():
        total = into.setdefault(t, funnel_entry())
        for k in ("generated", "over_limit", "tested", "violations"):
            total[k] += c[k]
        for f, n in c["dropped_by"].items():
            total["dropped_by"][f] = total["dropped_by"].get(f, 0) + n
        if "seconds" in c:
            total["seconds"] = round(total.get("seconds", 0.0) + c["seconds"], 3)


def merge_counts(into: dict, part: dict) -> None:
    for key, c in part.items():
        t = into[key]
        t.sources += c.sources
        t.applicable += c.applicable
        t.follow_ups += c.follow_ups
        for k, v in c.outcomes.items():
            t.outcomes[k] += v


def dump_counts(counts: dict) -> list[list[Any]]:
    return [[list(k) if isinstance(k, tuple) else k, c.sources, c.applicable, c.follow_ups,
             c.outcomes] for k, c in counts.items()]


def restore_counts(into: dict, dumped: list[list[Any]]) -> None:
    for key, sources, applicable, follow_ups, outcomes in dumped:
        c = into[tuple(key) if isinstance(key, list) else key]
        c.sources, c.applicable, c.follow_ups = sources, applicable, follow_ups
        c.outcomes.update(outcomes)
