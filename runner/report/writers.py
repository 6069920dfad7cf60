"""Writers of a run's outputs: results.json (streamed cases), report.html, the console summary."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator

TEMPLATES_DIR = Path(__file__).resolve().parent.parent.parent / "templates"


def iter_cases(cases_path: Path) -> Iterator[dict[str, Any]]:
    if not cases_path.exists():
        return
    with cases_path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def write_results_json(results: dict[str, Any], cases_path: Path, out_path: Path) -> Path:
    """results.json = the run's results with every test case, streamed from cases.jsonl (the file
    is never held in memory whole). Written to a temporary file, then renamed: a reader never sees
    half a file."""
    head = json.dumps(results, ensure_ascii=False, indent=1, default=str)
    tmp = out_path.with_suffix(".json.tmp")
    with tmp.open("w", encoding="utf-8") as out:
        out.write(head[:-1].rstrip() + ',\n "cases": [')
        first = True
        for line in (cases_path.open(encoding="utf-8") if cases_path.exists() else ()):
            line = line.strip()
            if line:
                out.write("\n  " if first else ",\n  ")
                out.write(line)
                first = False
        out.write("\n ]\n}\n")
    os.replace(tmp, out_path)
    return out_path


# -- HTML --------------------------------------------------------------------------------------

def segments(text: str, spans: list[dict[str, Any]], changed: list[tuple[int, int]]) -> list[dict]:
    """The sentence as pieces for the template: runs of plain text and entities, each split into
    parts marked ``changed`` where the edit touched the text. No markup here: the template
    escapes every piece."""
    kept, pos = [], 0
    for s in sorted(spans, key=lambda s: (s["start"], -s["end"])):
        if s["start"] >= pos:
            kept.append(s)
            pos = s["end"]
    out, pos = [], 0
    for s in kept:
        if s["start"] > pos:
            out.append({"label": None, "parts": _parts(text, pos, s["start"], changed)})
        out.append({"label": s["label"], "raw_label": s.get("raw_label", ""),
                    "parts": _parts(text, s["start"], s["end"], changed)})
        pos = s["end"]
    if pos < len(text):
        out.append({"label": None, "parts": _parts(text, pos, len(text), changed)})
    return out


def _parts(text: str, a: int, b: int, changed: list[tuple[int, int]]) -> list[dict[str, Any]]:
    cuts = {a, b}
    for c0, c1 in changed:
        cuts.update(x for x in (c0, c1) if a < x < b)
    points = sorted(cuts)
    parts = []
    for x, y in zip(points, points[1:]):
        hit = any(c0 < y and x < c1 for c0, c1 in changed if c1 > c0)
        if parts and parts[-1]["changed"] == hit:
            parts[-1]["text"] += text[x:y]
        else:
            parts.append({"text": text[x:y], "changed": hit})
    return parts


def _changed_ranges(case: dict[str, Any]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    src, tgt, delta = [], [], 0
    source = case["source"]["text"]
    for r in case["follow_up"]["edit"]:
        start, end, new = r["start"], r["end"], r["new"]
        if source[start:end] != new:
            if end > start:
                src.append((start, end))
            if new:
                tgt.append((start + delta, start + delta + len(new)))
        delta += len(new) - (end - start)
    return src, tgt


def violation_view(case: dict[str, Any]) -> dict[str, Any]:
    src_changed, tgt_changed = _changed_ranges(case)
    return {
        "id": case["id"], "origin": case.get("origin", ""),
        "transformation": case["transformation"], "relation": case["relation"],
        "reason": case["verdict"].get("reason", ""),
        "differences": case["verdict"].get("differences", []),
        "source": segments(case["source"]["text"], case["source"]["entities"], src_changed),
        "follow_up": segments(case["follow_up"]["text"], case["follow_up"]["entities"], tgt_changed),
        "meta": case["follow_up"].get("meta", {}),
        "categories": case["verdict"].get("categories", []),
        "categories_basis": case["verdict"].get("categories_basis", ""),
        "repair": case.get("repair"),
        "gold": case.get("gold"),
    }


def write_html(results: dict[str, Any], cases_path: Path, out_path: Path) -> Path:
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(loader=FileSystemLoader(str(TEMPLATES_DIR)),
                      autoescape=select_autoescape(["html", "j2"], default=True),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["pct"] = lambda v: "–" if v is None else f"{v:.1%}"
    limit = results["suite"]["filled"]["report"]["max_violations_shown"]
    violations, n_violations, labels = [], 0, set()
    errors = []
    for case in iter_cases(cases_path):
        if case["verdict"]["outcome"] == "error" and len(errors) < limit:
            errors.append({"id": case["id"], "reason": case["verdict"].get("reason", ""),
                           "text": case["follow_up"]["text"]})
        if case["verdict"]["outcome"] != "fail":
            continue
        n_violations += 1
        if len(violations) < limit:
            view = violation_view(case)
            violations.append(view)
            for side in ("source", "follow_up"):
                labels.update(seg["label"] for seg in view[side] if seg["label"])
    html = env.get_template("report.html.j2").render(
        r=results, violations=violations, n_violations=n_violations, shown_limit=limit,
        labels=sorted(labels), errors=errors)
    tmp = out_path.with_suffix(".html.tmp")
    tmp.write_text(html, encoding="utf-8")
    os.replace(tmp, out_path)
    return out_path


# -- console -----------------------------------------------------------------------------------

def console_summary(results: dict[str, Any]) -> str:
    from tabulate import tabulate

    rows = [[r["transformation"], r["relation"], r["sources"], r["applicable_sources"],
             r["follow_ups"], r["pass"], r["fail"], r["skip"] + r["error"],
             "–" if r["violation_rate"] is None else f"{r['violation_rate']:.1%}"]
            for r in results["summary"]]
    o = results["overall"]
    rows.append(["all", "", o["sources"], "", o["follow_ups"], o["pass"], o["fail"],
                 o["skip"] + o["error"],
                 "–" if o["violation_rate"] is None else f"{o['violation_rate']:.1%}"])
    table = tabulate(rows, headers=["transformation", "relation", "sources", "applicable",
                                    "follow-ups", "pass", "violations", "skip/error", "rate"],
                     tablefmt="simple")
    from runner.repair.summary import console_lines

    return "\n".join([table, *console_lines(results)])
