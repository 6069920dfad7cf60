"""The suite's ``report.fail_on`` thresholds: what makes a run exit 1.

A threshold holds a violation rate to a limit: overall, per relation, per group of
transformations, per check (one transformation, by its name: ``transformations: {typos: 0.1}``)
and, for bias, as a gap: ``bias: {max_gap: 0.05}`` fails when two comparable bias checks (the
same kind of swap: first names of one origin against another's, countries of low against high
income) differ by more than five points — bias is judged by the difference between groups, not
by either rate alone.
"""
from __future__ import annotations

from typing import Any


def evaluate_thresholds(fail_on: dict[str, Any], overall: dict[str, Any],
                        relations: dict[str, dict[str, Any]],
                        groups: dict[str, dict[str, Any]] | None = None, *,
                        attacks: dict[str, dict[str, Any]] | None = None,
                        summary: list[dict[str, Any]] | None = None,
                        transformations: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """``summary``: the run's rows (per transformation × relation), for the per-check and gap
    thresholds; ``transformations``: the suite's transformations as filled, which say which
    bias checks are comparable (same type and pool)."""
    checks = []
    if fail_on.get("max_violation_rate") is not None:
        checks.append(_check("overall", overall.get("violation_rate"), fail_on["max_violation_rate"]))
    for rel, limit in sorted(fail_on.get("relations", {}).items()):
        rate = relations.get(rel, {}).get("violation_rate")
        checks.append(_check(rel, rate, limit))
    # A group's rate: every violation of its transformations over everything they judged.
    for group, limit in sorted((fail_on.get("groups") or {}).items()):
        rate = (groups or {}).get(group, {}).get("violation_rate")
        checks.append(_check(f"group {group}", rate, limit))
    per_check = per_transformation_rates(summary or [])
    for name, limit in sorted((fail_on.get("transformations") or {}).items()):
        checks.append(_check(f"check {name}", per_check.get(name, {}).get("rate"), limit))
    bias = fail_on.get("bias") or {}
    if bias.get("max_gap") is not None:
        for label, members in bias_sets(bias, per_check, transformations or []):
            rates = {m: per_check[m]["rate"] for m in members
                     if per_check.get(m, {}).get("rate") is not None}
            gap = max(rates.values()) - min(rates.values()) if len(rates) >= 2 else None
            checks.append({**_check(f"bias gap {label}", gap, bias["max_gap"]),
                           "kind": "gap", "members": rates})
    if fail_on.get("max_attack_success_rate") is not None:
        for name, summary_ in sorted((attacks or {}).items()):
            checks.append(_check(f"attack {name}", summary_.get("success_rate"),
                                 fail_on["max_attack_success_rate"]))
    failed = [c for c in checks if not c["passed"]]
    return {"status": "fail" if failed else "pass", "checks": checks,
            "reasons": [_reason(c) for c in failed]}


def per_transformation_rates(summary: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per transformation (its suite name): violations over judged cases of all its relations."""
    out: dict[str, dict[str, Any]] = {}
    for row in summary:
        e = out.setdefault(row["transformation"], {"fail": 0, "pass": 0,
                                                   "group": row.get("group", "research"),
                                                   "type": row.get("type")})
        e["fail"] += row.get("fail", 0)
        e["pass"] += row.get("pass", 0)
    for e in out.values():
        judged = e["fail"] + e["pass"]
        e["rate"] = e["fail"] / judged if judged else None
    return out


def bias_sets(bias: dict[str, Any], per_check: dict[str, dict[str, Any]],
              transformations: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    """The sets of bias checks compared with each other: ``bias.compare`` (label → names) when
    the suite names them, else the bias-group checks of one type and one pool together."""
    if bias.get("compare"):
        return [(label, list(names)) for label, names in sorted(bias["compare"].items())]
    sets: dict[str, list[str]] = {}
    for t in transformations:
        name = t.get("name", t["type"])
        if per_check.get(name, {}).get("group") != "bias":
            continue
        label = t["type"] + (f" {t['pool']}" if t.get("pool") else "")
        sets.setdefault(label, []).append(name)
    return [(label, names) for label, names in sorted(sets.items()) if len(names) >= 2]


def _reason(c: dict[str, Any]) -> str:
    if c.get("kind") == "gap":
        lo, hi = min(c["members"], key=c["members"].get), max(c["members"], key=c["members"].get)
        return (f"{c['scope']}: {c['rate']:.1%} between {lo} ({c['members'][lo]:.1%}) and {hi} "
                f"({c['members'][hi]:.1%}) exceeds the largest gap allowed, {c['max']:.1%}")
    what = "success" if c["scope"].startswith("attack ") else "violation"
    return f"{c['scope']} {what} rate {c['rate']:.1%} exceeds the threshold {c['max']:.1%}"


def _check(scope: str, rate: float | None, limit: float) -> dict[str, Any]:
    # A relation that judged nothing cannot exceed a threshold.
    return {"scope": scope, "rate": rate, "max": limit, "passed": rate is None or rate <= limit}
