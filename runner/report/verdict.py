"""The run's verdict: the one decision that the exit code, the HTML badge, junit.xml, summary.md and
the console all show.

A verdict is read from the results alone (counts, the filled suite, the run's status), so ``mtrun report`` on a saved
results.json gives the same verdict as the run that wrote it. In order of precedence:

``interrupted`` (exit 2), ``failed`` (exit 3, or the exit code of the error that stopped it)
    The run did not finish; its partial results are shown, not judged.
``error`` (exit 6)
    The system under test could not answer: more sources than ``report.fail_on.max_source_errors``
    (default 0: any) or a share of follow-up cases above ``report.fail_on.max_error_rate`` (default
    5 %), or, whatever the limits, no case was judged because of errors. Violation rates over what was answered mean little then, so this comes before them.
``nothing`` (exit 5)
    No test case was made (no transformation applied) and no attack ran.
``fail`` (exit 1)
    A threshold of ``report.fail_on`` is exceeded (overall, a relation, a group, an attack).
``pass`` (exit 0)
    Every threshold set is kept.
``no_threshold`` (exit 0)
    The suite sets no threshold: violations are reported, not judged.

The thresholds are aggregates (the overall rate, a relation's, a group's): a transformation ×
relation row is not judged on its own rate. A row is marked failed when a threshold that covers it
failed and the row's own rate is above that threshold's limit (an aggregate above a limit always has
such a row: it is a weighted mean of its rows); a row whose covering thresholds all hold is passed,
even when its own rate is above the limit; a row no threshold covers has no result.
"""
from __future__ import annotations

from typing import Any

from runner.errors import ExitCode
from runner.report.thresholds import evaluate_thresholds

DEFAULT_MAX_ERROR_RATE = 0.05
DEFAULT_MAX_SOURCE_ERRORS = 0

LABELS = {"interrupted": "INTERRUPTED", "failed": "RUN FAILED", "error": "ERROR",
          "nothing": "NOTHING TESTED", "fail": "FAIL", "pass": "PASS",
          "no_threshold": "NO THRESHOLD SET"}
EXIT_CODES = {"interrupted": ExitCode.INTERRUPTED, "failed": ExitCode.INTERNAL_ERROR,
              "error": ExitCode.SYSTEM_ERRORS, "nothing": ExitCode.NOTHING_TO_TEST,
              "fail": ExitCode.VIOLATIONS, "pass": ExitCode.OK, "no_threshold": ExitCode.OK}
NO_THRESHOLD_TEXT = ("no threshold set (report.fail_on): violations are reported, not judged; "
                     "exit 0")


def fail_on_of(results: dict[str, Any]) -> dict[str, Any]:
    return results["suite"]["filled"]["report"].get("fail_on") or {}


def thresholds_set(fail_on: dict[str, Any]) -> bool:
    """Whether the suite holds any rate to a limit (the error limits do not count: they have
    defaults and judge the system's availability, not its answers)."""
    return (fail_on.get("max_violation_rate") is not None
            or any(v is not None for v in (fail_on.get("relations") or {}).values())
            or any(v is not None for v in (fail_on.get("groups") or {}).values())
            or any(v is not None for v in (fail_on.get("transformations") or {}).values())
            or (fail_on.get("bias") or {}).get("max_gap") is not None
            or fail_on.get("max_attack_success_rate") is not None)


def system_errors(results: dict[str, Any]) -> dict[str, Any]:
    """How often the system could not answer. A source it could not answer gives one ``error``
    case in every transformation × relation row and no follow-up, so a row's cases are its
    follow-ups plus those sources: ``cases - follow_ups`` is the number of failed sources, the rest
    of its errors are follow-ups the system could not answer."""
    rows = results.get("summary") or []
    fail_on = fail_on_of(results)
    o = results["overall"]
    source_errors = max([max(r["cases"] - r["follow_ups"], 0) for r in rows] or [0])
    follow_up_cases = sum(r["follow_ups"] for r in rows)
    follow_up_errors = sum(max(r["error"] - max(r["cases"] - r["follow_ups"], 0), 0)
                           for r in rows)
    max_rate = fail_on.get("max_error_rate", DEFAULT_MAX_ERROR_RATE)
    max_sources = fail_on.get("max_source_errors", DEFAULT_MAX_SOURCE_ERRORS)
    rate = follow_up_errors / follow_up_cases if follow_up_cases else None
    reasons = []
    if max_sources is not None and source_errors > max_sources:
        reasons.append(f"the system could not answer {source_errors} of "
                       f"{results['run'].get('sources_done', source_errors)} source(s) (allowed: "
                       f"{max_sources}, report.fail_on.max_source_errors)")
    if max_rate is not None and rate is not None and rate > max_rate:
        reasons.append(f"the system could not answer {follow_up_errors} of {follow_up_cases} "
                       f"follow-up case(s) ({rate:.1%}; allowed: {max_rate:.1%}, "
                       "report.fail_on.max_error_rate)")
    if not reasons and o.get("error") and not o.get("pass") and not o.get("fail"):
        # whatever the limits: a run in which the system answered nothing judged nothing
        reasons.append(f"the system could not answer any question: {o['error']} test case(s), "
                       "none judged")
    return {"sources": source_errors, "follow_ups": follow_up_errors,
            "follow_up_cases": follow_up_cases, "follow_up_rate": rate,
            "max_source_errors": max_sources, "max_error_rate": max_rate, "reasons": reasons}


def checks_of(results: dict[str, Any]) -> dict[str, Any]:
    """The thresholds evaluated on the results' counts (as the engine and triage do)."""
    attacks = (results.get("attacks") or {}).get("summary")
    return evaluate_thresholds(fail_on_of(results), results["overall"],
                               results.get("relations") or {}, results.get("groups") or {},
                               attacks=attacks, summary=results.get("summary") or [],
                               transformations=results["suite"]["filled"].get("transformations"))


def nothing_tested(results: dict[str, Any]) -> bool:
    return (results["overall"]["cases"] == 0
            and not (results.get("attacks") or {}).get("records"))


def verdict(results: dict[str, Any]) -> dict[str, Any]:
    """The run's verdict (see the module's docstring), JSON-ready."""
    errors = system_errors(results)
    th = checks_of(results)
    run = results.get("run") or {}
    run_status = str(run.get("status") or "completed")
    done = f"{run.get('sources_done', 0)} of {run.get('sources_total') or '?'} source(s)"
    code: int | None = None
    if run_status == "interrupted":
        # stopped by Ctrl-C or SIGTERM: what was decided is shown, and judged by no one
        status, reasons = "interrupted", [f"interrupted after {done}; the partial results are "
                                          "written and `--resume` continues the run"]
    elif run_status.startswith("failed"):
        status, reasons = "failed", [f"the run stopped after {done}: "
                                     f"{run_status.partition(':')[2].strip() or run_status}"]
        code = int(run.get("exit_code") or ExitCode.INTERNAL_ERROR)
    elif errors["reasons"]:
        status, reasons = "error", list(errors["reasons"])
    elif nothing_tested(results):
        status, reasons = "nothing", ["nothing to test: no transformation applied to any source "
                                      f"sentence ({results['run'].get('sources_done', 0)} read)"]
    elif th["status"] == "fail":
        status, reasons = "fail", list(th["reasons"])
    elif thresholds_set(fail_on_of(results)):
        status, reasons = "pass", []
    else:
        status, reasons = "no_threshold", []
    code = int(EXIT_CODES[status]) if code is None else code
    headline = {"interrupted": "the run was interrupted",
                "failed": "the run could not finish",
                "error": "the system under test could not answer",
                "nothing": "nothing to test",
                "fail": "violations above the suite's thresholds",
                "pass": "every threshold kept",
                "no_threshold": "violations are reported, not judged; report.fail_on "
                                "sets thresholds"}[status]
    return {"status": status, "label": LABELS[status], "exit_code": code,
            "headline": f"{LABELS[status]}: {headline} (exit {int(code)})",
            "reasons": reasons, "errors": {k: v for k, v in errors.items() if k != "reasons"},
            "checks": th["checks"]}


def covering_checks(results: dict[str, Any], row: dict[str, Any],
                    checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The thresholds a transformation × relation row counts toward: overall, its relation's,
    its group's."""
    scopes = {"overall", row["relation"], f"group {row.get('group', 'research')}",
              f"check {row['transformation']}"}
    return [c for c in checks if c["scope"] in scopes
            or (c.get("kind") == "gap" and row["transformation"] in c.get("members", {}))]


def row_status(results: dict[str, Any], row: dict[str, Any],
               checks: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A summary row's result: ``fail`` (a covering threshold failed and the row is above its
    limit), ``pass``, ``none`` (no threshold covers it) or ``unjudged`` (no judged case); with
    the limit shown next to it and a sentence saying why."""
    if checks is None:
        checks = checks_of(results)["checks"]
    cover = covering_checks(results, row, checks)
    rate = row["violation_rate"]
    # A bias gap is failed by the check of the group that fares worst, not by a rate limit.
    for c in [c for c in cover if c.get("kind") == "gap"]:
        members = c["members"]
        if not c["passed"] and members and row["transformation"] == max(members, key=members.get):
            return {"status": "fail", "max": None, "limit_name": "bias gap",
                    "why": f"{c['scope']} {c['rate']:.1%} exceeds {c['max']:.1%}; this check "
                           f"fares worst"}
    cover = [c for c in cover if c.get("kind") != "gap"]
    if not cover:
        return {"status": "none" if rate is not None else "unjudged", "max": None,
                "why": "no threshold set", "limit_name": ""}
    tightest = min(cover, key=lambda c: c["max"])
    if rate is None:
        return {"status": "unjudged", "max": tightest["max"], "why": "no judged case",
                "limit_name": _limit_name(tightest)}
    for c in cover:
        if not c["passed"] and rate > c["max"]:
            return {"status": "fail", "max": c["max"], "limit_name": _limit_name(c),
                    "why": f"{c['scope']} rate {c['rate']:.1%} exceeds {c['max']:.1%}; this row "
                           f"{rate:.1%}"}
    over = [c for c in cover if rate > c["max"]]
    why = ", ".join(f"{c['scope']} {_pct(c['rate'])} within {c['max']:.1%}" for c in cover)
    if over:
        why += "; this row alone is above the limit, the threshold is on the aggregate"
    return {"status": "pass", "max": tightest["max"], "limit_name": _limit_name(tightest),
            "why": why}


def _limit_name(check: dict[str, Any]) -> str:
    scope = check["scope"]
    return "overall max" if scope == "overall" else f"{scope.removeprefix('group ')} max"


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{v:.1%}"


def verdict_of(results: dict[str, Any]) -> dict[str, Any]:
    """The verdict ``write_outputs`` decided for these results, else decided now."""
    return results.get("verdict") or verdict(results)
