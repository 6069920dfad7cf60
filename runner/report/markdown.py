"""A Markdown summary for pull-request comments (GitHub-flavoured).

Every untrusted value (sentences, entity texts, ids, names) goes through :func:`md_text`, which
makes it inert: HTML-significant characters become entities (a comment cannot inject markup),
Markdown punctuation is backslash-escaped (no links, images, emphasis or table breaks), ``@`` cannot
mention anyone and line breaks cannot start a new block. Hidden characters (controls, line breaks,
bidirectional and zero-width characters: runner/report/display.py) are shown as ``⟨U+XXXX⟩`` in an
inline code span.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from runner.report.display import marker, runs
from runner.report.verdict import row_status, verdict_of
from runner.report.triage import is_false_alarm
from runner.report.writers import CaseSource, cases_of

EXAMPLES = 5
MARKS = {"interrupted": "⏸️", "failed": "⛔", "error": "⛔", "nothing": "⚪", "fail": "❌",
         "pass": "✅", "no_threshold": "⚪"}
# a row's result: a covering threshold failed / all held / none covers it / nothing judged
ROW_MARKS = {"fail": "❌", "pass": "✅", "none": "no threshold", "unjudged": "–"}
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "@": "&#64;"}
_MD_PUNCT = re.compile(r"([\\`*_{}\[\]()#+\-.!|~=:$^])")


def md_text(value: Any, limit: int | None = 300) -> str:
    text = str(value)
    if limit and len(text) > limit:
        text = text[:limit - 1] + "…"
    # line breaks are hidden characters too: shown as markers, they cannot start a new block
    return "".join(f"`{''.join(marker(c) for c in part)}`" if hidden else _md_plain(part)
                   for hidden, part in runs(text))


def _md_plain(text: str) -> str:
    text = "".join(_HTML.get(ch, ch) for ch in text)
    # escape Markdown punctuation, but not the ';' '#' that belong to the entities made above
    parts = re.split(r"(&(?:amp|lt|gt|quot|#39|#64);)", text)
    return "".join(p if i % 2 else _MD_PUNCT.sub(r"\\\1", p) for i, p in enumerate(parts))


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{v:.1%}"


def render_markdown(results: dict[str, Any], cases: CaseSource,
                    html_name: str | None = "report.html") -> str:
    v = verdict_of(results)
    th = {"checks": v["checks"]}
    o = results["overall"]
    status = f"{MARKS[v['status']]} {v['label']}"
    run = results["run"]
    sut = results.get("components", {}).get("sut", {})
    lines = [f"### mtrun · {md_text(results['suite']['name'])} · {status}", ""]
    if run.get("status") != "completed":
        lines += [f"> **run {md_text(run.get('status'))}** after {run.get('sources_done')} source(s)", ""]
    lines += [f"System under test: `{md_text(sut.get('type', ''), 80).replace('`', '')}` "
              f"{md_text(sut.get('model') or '')} · seed {run.get('seed')} · "
              f"{run.get('sources_done')} sources · {o['follow_ups']} follow-ups · "
              f"**{o['fail']}** violations of {o['pass'] + o['fail']} judged "
              f"(**{_pct(o['violation_rate'])}**)"
              + (f" · {o['violations_per_100_sources']:.1f} per 100 sources"
                 if o.get("violations_per_100_sources") is not None else ""), ""]
    lines += [f"**{md_text(v['headline'])}**", ""]
    for reason in v["reasons"]:
        lines.append(f"- {MARKS[v['status']]} {md_text(reason)}")
    if v["reasons"]:
        lines.append("")
    if o.get("error"):
        e = v["errors"]
        lines += [f"The system could not answer {e['sources']} source(s) and {e['follow_ups']} of "
                  f"{e['follow_up_cases']} follow-up case(s) ({o['error']} test case(s) not "
                  "judged: error).", ""]
    grouped = any(row.get("group", "research") != "research" for row in results.get("summary", []))
    lines += [("| group " if grouped else "") + "| transformation | relation | judged | violations | "
              "rate | limit | result |", ("|---" if grouped else "") + "|---|---|--:|--:|--:|--:|---|"]
    for row in results.get("summary", []):
        rs = row_status(results, row, v["checks"])
        rate = row["violation_rate"]
        result = ROW_MARKS[rs["status"]]
        lines.append((f"| {md_text(row.get('group', 'research'))} " if grouped else "") +
                     f"| {md_text(row['transformation'])} | {md_text(row['relation'])} | "
                     f"{row['pass'] + row['fail']} | {row['fail']} | {_pct(rate)} | "
                     f"{_pct(rs['max']) if rs['max'] is not None else '—'} | {result} |")
    groups = results.get("groups") or {}
    if grouped and groups:
        lines += ["", "| group | transformations | judged | violations | rate |",
                  "|---|---|--:|--:|--:|"]
        for group, g in groups.items():
            lines.append(f"| {md_text(group)} | {md_text(', '.join(g['transformations']))} | "
                         f"{g['pass'] + g['fail']} | {g['fail']} | {_pct(g['violation_rate'])} |")
    from runner.tasks import task_of_results

    lines += task_of_results(results).markdown_lines(results)
    checks = th.get("checks", [])
    if checks:
        lines += ["", "| threshold | rate | max | result |", "|---|--:|--:|---|"]
        for c in checks:
            lines.append(f"| {md_text(c['scope'])} | {_pct(c['rate'])} | {_pct(c['max'])} | "
                         f"{'✅ pass' if c['passed'] else '❌ fail'} |")
    examples, error_reasons = [], []
    for case in cases_of(cases):
        if case["verdict"]["outcome"] == "error" and len(error_reasons) < EXAMPLES:
            reason = case["verdict"].get("reason", "")
            if reason not in error_reasons:
                error_reasons.append(reason)
        if case["verdict"]["outcome"] == "fail" and not is_false_alarm(case) \
                and len(examples) < EXAMPLES:
            examples.append(case)
        if len(examples) >= EXAMPLES and (len(error_reasons) >= EXAMPLES or not o.get("error")):
            break
    if error_reasons:
        lines += ["", f"<details><summary>Why the system could not answer (first "
                      f"{len(error_reasons)} reason(s))</summary>", ""]
        lines += [f"- {md_text(reason)}" for reason in error_reasons]
        lines += ["", "</details>"]
    if examples:
        lines += ["", f"<details><summary>First {len(examples)} of {o['fail']} violations</summary>",
                  ""]
        from runner.tasks import task_of_results

        task = task_of_results(results)
        for c in examples:
            diffs = md_text(task.difference_text(c))
            lines += [f"- **{md_text(c['transformation'])} · {md_text(c['relation'])}** "
                      f"{md_text(c['id'], 120)}",
                      f"  - source: {md_text(c['source']['text'])}",
                      f"  - follow\\-up: {md_text(c['follow_up']['text'])}"]
            if diffs:
                lines.append(f"  - differences: {diffs}")
        lines += ["", "</details>"]
    if html_name:
        lines += ["", f"Full report: `{html_name}` · every case: `results.json`"]
    return "\n".join(lines) + "\n"


def write_markdown(results: dict[str, Any], cases: CaseSource, out_path: Path) -> Path:
    text = render_markdown(results, cases)
    tmp = out_path.with_name(out_path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, out_path)
    return out_path
