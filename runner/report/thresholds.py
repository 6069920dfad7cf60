"""The suite's ``report.fail_on`` thresholds: what makes a run exit 1."""
from __future__ import annotations

from typing import Any


def evaluate_thresholds(fail_on: dict[str, Any], overall: dict[str, Any],
                        relations: dict[str, dict[str, Any]],
                        groups: dict[str, dict[str, Any]] | None = None, *,
                        attacks: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
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
    if fail_on.get("max_attack_success_rate") is not None:
        for name, summary in sorted((attacks or {}).items()):
            checks.append(_check(f"attack {name}", summary.get("success_rate"),
                                 fail_on["max_attack_success_rate"]))
    failed = [c for c in checks if not c["passed"]]
    return {
        "status": "fail" if failed else "pass",
        "checks": checks,
        "reasons": [f"{c['scope']} {'success' if c['scope'].startswith('attack ') else 'violation'}"
                    f" rate {c['rate']:.1%} exceeds the threshold {c['max']:.1%}"
                    for c in failed],
    }


def _check(scope: str, rate: float | None, limit: float) -> dict[str, Any]:
    # A relation that judged nothing cannot exceed a threshold.
    return {"scope": scope, "rate": rate, "max": limit, "passed": rate is None or rate <= limit}
