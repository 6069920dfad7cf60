"""``mtrun diff old/results.json new/results.json``: two runs compared (e.g. two model versions on
the same suite). Rates side by side per transformation × relation, per relation and overall; the
violations that are new and the ones that are fixed.

A test case is the same case in both runs when its source text, transformation, follow-up text and
relation are the same (ids may differ between corpora or versions). A violation is *new* when the
case fails in the new run and did not fail in the old one (it passed, or was not generated, or was
skipped); it is *fixed* when it failed in the old run and does not fail in the new one.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from runner.report.display import visible_text

Key = tuple[str, ...]


def case_key(case: dict[str, Any], task: Any = None) -> Key:
    """What makes a case the same case in two runs: the task says (default: source text,
    transformation, follow-up text, relation)."""
    if task is None:
        from runner.tasks import get_task, DEFAULT_TASK

        task = get_task(DEFAULT_TASK)
    return task.case_key(case)


def _outcomes(results: dict[str, Any], task: Any) -> dict[Key, dict[str, Any]]:
    out: dict[Key, dict[str, Any]] = {}
    for case in results.get("cases", []):
        key = task.case_key(case)
        # the same group twice in one run (duplicate source sentences): a failure wins
        if key not in out or case["verdict"]["outcome"] == "fail":
            out[key] = case
    return out


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


def compare(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    from runner.errors import MtrunError
    from runner.tasks import task_of_results

    task = task_of_results(new)
    if task_of_results(old).name != task.name:
        raise MtrunError(f"cannot compare a {task_of_results(old).name} run with a {task.name} run")
    old_rows = {(r["transformation"], r["relation"]): r for r in old.get("summary", [])}
    new_rows = {(r["transformation"], r["relation"]): r for r in new.get("summary", [])}
    keys = list(old_rows) + [k for k in new_rows if k not in old_rows]
    rows = []
    for k in keys:
        a, b = old_rows.get(k), new_rows.get(k)
        ra = a["violation_rate"] if a else None
        rb = b["violation_rate"] if b else None
        rows.append({"transformation": k[0], "relation": k[1],
                     "old": _row(a), "new": _row(b), "delta": _delta(ra, rb)})
    rels = sorted(set(old.get("relations", {})) | set(new.get("relations", {})))
    relations = [{"relation": rel, "old": _row(old.get("relations", {}).get(rel)),
                  "new": _row(new.get("relations", {}).get(rel)),
                  "delta": _delta((old.get("relations", {}).get(rel) or {}).get("violation_rate"),
                                  (new.get("relations", {}).get(rel) or {}).get("violation_rate"))}
                 for rel in rels]
    overall = {"old": _row(old["overall"]), "new": _row(new["overall"]),
               "delta": _delta(old["overall"]["violation_rate"], new["overall"]["violation_rate"])}
    a_cases, b_cases = _outcomes(old, task), _outcomes(new, task)
    new_violations, fixed = [], []
    for key, case in b_cases.items():
        if case["verdict"]["outcome"] == "fail":
            before = a_cases.get(key)
            if before is None or before["verdict"]["outcome"] != "fail":
                new_violations.append({"case": case, "before": _state(before)})
    for key, case in a_cases.items():
        if case["verdict"]["outcome"] == "fail":
            after = b_cases.get(key)
            if after is None or after["verdict"]["outcome"] != "fail":
                fixed.append({"case": case, "after": _state(after), "now": after})
    still = sum(1 for k, c in b_cases.items() if c["verdict"]["outcome"] == "fail"
                and k in a_cases and a_cases[k]["verdict"]["outcome"] == "fail")
    return {
        "task": task,
        "old": _run_info(old), "new": _run_info(new),
        "rows": rows, "relations": relations, "overall": overall,
        "new_violations": new_violations, "fixed": fixed, "still_failing": still,
        "matched": len(set(a_cases) & set(b_cases)),
        "only_old": len(set(a_cases) - set(b_cases)), "only_new": len(set(b_cases) - set(a_cases)),
        **task.compare_runs(old, new),
    }


def _state(case: dict[str, Any] | None) -> str:
    return "not in the run" if case is None else case["verdict"]["outcome"]


def _row(r: dict[str, Any] | None) -> dict[str, Any] | None:
    if not r:
        return None
    return {"judged": r["pass"] + r["fail"], "fail": r["fail"], "rate": r["violation_rate"]}


def _run_info(results: dict[str, Any]) -> dict[str, Any]:
    sut = results.get("components", {}).get("sut", {})
    return {"suite": results["suite"]["name"], "path": results.get("_path", ""),
            "sut": f"{sut.get('type', '')} {sut.get('model') or sut.get('pipeline') or ''}".strip(),
            "started": results["run"].get("started", ""), "status": results["run"].get("status"),
            "thresholds": results["thresholds"].get("status")}


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{v:.1%}"


def _pp(v: float | None) -> str:
    return "–" if v is None else f"{v * 100:+.1f} pp"


def console_diff(d: dict[str, Any], examples: int = 10) -> str:
    from tabulate import tabulate

    def cells(x: dict[str, Any] | None) -> list[Any]:
        return ["–", "–"] if x is None else [f"{x['fail']}/{x['judged']}", _pct(x["rate"])]

    table = [[r["transformation"], r["relation"], *cells(r["old"]), *cells(r["new"]), _pp(r["delta"])]
             for r in d["rows"]]
    table += [["all", rel["relation"], *cells(rel["old"]), *cells(rel["new"]), _pp(rel["delta"])]
              for rel in d["relations"]]
    table.append(["all", "all", *cells(d["overall"]["old"]), *cells(d["overall"]["new"]),
                  _pp(d["overall"]["delta"])])
    out = [f"old: {d['old']['suite']} · {d['old']['sut']} · {d['old']['started']}",
           f"new: {d['new']['suite']} · {d['new']['sut']} · {d['new']['started']}", "",
           tabulate(table, headers=["transformation", "relation", "old viol.", "old rate",
                                    "new viol.", "new rate", "change"], tablefmt="simple"), "",
           f"{len(d['new_violations'])} new violation(s), {len(d['fixed'])} fixed, "
           f"{d['still_failing']} still failing; {d['matched']} cases in both runs, "
           f"{d['only_old']} only in the old one, {d['only_new']} only in the new one"]
    out += d["task"].diff_lines(d, markdown=False)
    for title, items, state in (("new violations", d["new_violations"], "before"),
                                ("fixed", d["fixed"], "after")):
        if items:
            out += ["", f"{title} (first {min(examples, len(items))} of {len(items)}):"]
            for item in items[:examples]:
                c = item["case"]
                difference = d["task"].difference_text(c)
                out.append(f"  {c['transformation']} · {c['relation']} · {state} {item[state]}: "
                           f"{_oneline(c['follow_up']['text'])}"
                           + (f" — {_oneline(difference, 160)}" if difference else ""))
    # suite names, systems and sentences are untrusted: hidden characters shown as markers
    return visible_text("\n".join(out), keep="\n")


def _oneline(text: str, n: int = 120) -> str:
    # cut the raw text, then show its hidden characters: a marker is never cut in half
    text = text if len(text) <= n else text[:n - 1] + "…"
    return " ".join(visible_text(text).split())


def write_diff_html(d: dict[str, Any], out_path: Path, limit: int = 2000) -> Path:
    from runner.report.writers import _environment

    env = _environment()
    env.filters["pp"] = _pp
    view = d["task"].case_view
    views = {
        "new": [dict(view(i["case"]), state=i["before"]) for i in d["new_violations"][:limit]],
        "fixed": [dict(view(i["case"]), state=i["after"],
                       now=view(i["now"]) if i["now"] else None)
                  for i in d["fixed"][:limit]],
    }
    html = env.get_template("diff.html.j2").render(d=d, views=views, limit=limit, task=d["task"])
    tmp = out_path.with_name(out_path.name + ".tmp")
    tmp.write_text(html, encoding="utf-8")
    os.replace(tmp, out_path)
    return out_path


def markdown_diff(d: dict[str, Any], examples: int = 10) -> str:
    """The comparison as Markdown for a pull-request comment (untrusted text escaped)."""
    from runner.report.markdown import md_text

    def cells(x: dict[str, Any] | None) -> str:
        return "– | –" if x is None else f"{x['fail']}/{x['judged']} | {_pct(x['rate'])}"

    lines = [f"### mtrun diff · {md_text(d['old']['suite'])}"
             + (f" → {md_text(d['new']['suite'])}" if d["new"]["suite"] != d["old"]["suite"] else ""),
             "", f"old: {md_text(d['old']['sut'])} · {md_text(d['old']['started'])}  ",
             f"new: {md_text(d['new']['sut'])} · {md_text(d['new']['started'])}", "",
             f"**{len(d['new_violations'])}** new violation(s) · **{len(d['fixed'])}** fixed · "
             f"{d['still_failing']} still failing", "",
             "| transformation | relation | old violations | old rate | new violations | new rate | change |",
             "|---|---|--:|--:|--:|--:|--:|"]
    for r in d["rows"]:
        lines.append(f"| {md_text(r['transformation'])} | {md_text(r['relation'])} | "
                     f"{cells(r['old'])} | {cells(r['new'])} | {_pp(r['delta'])} |")
    lines.append(f"| **all** | **all** | {cells(d['overall']['old'])} | {cells(d['overall']['new'])} "
                 f"| {_pp(d['overall']['delta'])} |")
    lines += d["task"].diff_lines(d, markdown=True)
    for title, items, state in (("New violations", d["new_violations"], "before"),
                                ("Fixed", d["fixed"], "after")):
        if items:
            lines += ["", f"<details><summary>{title}: first {min(examples, len(items))} of "
                          f"{len(items)}</summary>", ""]
            for item in items[:examples]:
                c = item["case"]
                difference = d["task"].difference_text(c)
                lines.append(f"- {md_text(c['transformation'])} · {md_text(c['relation'])} "
                             f"({state}: {md_text(item[state])}): {md_text(c['follow_up']['text'])}"
                             + (f" — {md_text(difference)}" if difference else ""))
            lines += ["", "</details>"]
    return "\n".join(lines) + "\n"
