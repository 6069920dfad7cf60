"""Writers of a run's outputs: results.json (streamed cases), report.html, the console summary."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Union

from markupsafe import Markup

from runner.report.triage import is_false_alarm

TEMPLATES_DIR = Path(__file__).resolve().parent.parent.parent / "templates"

# Where a writer reads the cases from: cases.jsonl, a function returning them, or a list.
CaseSource = Union[Path, Callable[[], Iterable[dict[str, Any]]], Iterable[dict[str, Any]]]


def iter_cases(cases_path: Path) -> Iterator[dict[str, Any]]:
    if not cases_path.exists():
        return
    with cases_path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def write_results_json(results: dict[str, Any], cases: "CaseSource", out_path: Path) -> Path:
    """results.json = the run's results with every test case, streamed from cases.jsonl (the file
    is never held in memory whole) or from another case source. Written to a temporary file, then
    renamed: a reader never sees half a file."""
    head = json.dumps({k: v for k, v in results.items() if k != "cases"},
                      ensure_ascii=False, indent=1, default=str)
    if isinstance(cases, Path):
        lines: Iterable[str] = (line.strip() for line in
                                (cases.open(encoding="utf-8") if cases.exists() else ()))
    else:
        lines = (json.dumps(c, ensure_ascii=False) for c in cases_of(cases))
    tmp = out_path.with_suffix(".json.tmp")
    with tmp.open("w", encoding="utf-8") as out:
        out.write(head[:-1].rstrip() + ',\n "cases": [')
        first = True
        for line in lines:
            if line:
                out.write("\n  " if first else ",\n  ")
                out.write(line)
                first = False
        out.write("\n ]\n}\n")
    os.replace(tmp, out_path)
    return out_path


# -- HTML --------------------------------------------------------------------------------------

def script_json(data: Any) -> str:
    """JSON that is safe inside ``<script type="application/json">``: no character of it can end
    the element or start markup (``<``, ``>``, ``&`` escaped) and no line separator breaks a
    script that evaluates it (U+2028, U+2029 escaped). Invisible and bidirectional control
    characters are escaped too, so none of them stands raw in the page's source (they reach the
    page only through the display rule). ``JSON.parse`` gives back the same data."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
    text = (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _json_escape(ch) for ch in text)


def _json_escape(ch: str) -> str:
    """``\\uXXXX`` (a surrogate pair beyond the Basic Multilingual Plane), as JSON reads it."""
    code = ord(ch)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _bytecode_cache() -> Any:
    """Compiled templates kept in the user cache folder ($MTRUN_CACHE or ~/.cache/mtrun), as
    Python keeps compiled modules: a report otherwise compiles its dozen templates on every run
    (~0.1 s, a few per cent of a short run). Jinja recompiles a template whose source changed (it
    stores the source's checksum); the folder is keyed by the Jinja version and by this file,
    which sets the options templates are compiled with. None where the folder cannot be made; a
    damaged file or a failed write only costs the compilation."""
    import hashlib

    import jinja2
    from jinja2 import FileSystemBytecodeCache

    from runner.models.wordnet import cache_root

    key = hashlib.sha256(jinja2.__version__.encode() + Path(__file__).read_bytes()).hexdigest()
    folder = cache_root() / "templates" / key[:16]
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None

    class Cache(FileSystemBytecodeCache):
        def load_bytecode(self, bucket: Any) -> None:
            try:
                super().load_bytecode(bucket)
            except Exception:  # noqa: BLE001 — a damaged file (cut short): compile instead
                bucket.reset()

        def dump_bytecode(self, bucket: Any) -> None:
            try:
                super().dump_bytecode(bucket)
            except OSError:
                pass

    return Cache(str(folder))


def _environment():
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    from jinja2 import pass_eval_context
    from jinja2.filters import do_join

    from runner.report.display import is_plain, visible_html, visible_text

    # Every value a template prints goes through `finalize`: hidden characters become plain
    # ⟨U+XXXX⟩ markers, safe in any context (an attribute, an <option>). Where sentences are
    # displayed the templates ask for `| shown`: the same markers as styled, titled spans.
    # Markup (the embedded JSON, the charts) is printed as it is.
    def finalize(value: Any) -> Any:
        if value.__class__ is str and not is_plain(value):  # not Markup, a str subclass
            return visible_text(value)
        return value

    env = Environment(loader=FileSystemLoader(str(TEMPLATES_DIR)),
                      autoescape=select_autoescape(["html", "j2"], default=True),
                      trim_blocks=True, lstrip_blocks=True, finalize=finalize,
                      bytecode_cache=_bytecode_cache())
    env.filters["pct"] = lambda v: "–" if v is None else f"{v:.1%}"
    env.filters["script_json"] = lambda v: Markup(script_json(v))
    env.filters["shown"] = lambda v: visible_html("" if v is None else v)

    @pass_eval_context
    def join(ctx: Any, items: Iterable[Any], d: str = "", attribute: Any = None) -> str:
        # `join` returns markup, which finalize leaves alone: its items are made visible first
        if attribute is None:
            items = [finalize(i) for i in items]
        return do_join(ctx, items, d, attribute)

    env.filters["join"] = join
    # a name_like_this (or org:city_of_x) may break after _ . · / :, never inside a word
    env.filters["wbr"] = lambda v: Markup("<wbr>").join(
        visible_html(p) for p in re.split(r"(?<=[_.·/:])", "" if v is None else str(v)))
    return env


def _write_text(text: str, out_path: Path) -> Path:
    tmp = out_path.with_name(out_path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, out_path)
    return out_path


def cases_of(source: "CaseSource") -> Iterator[dict[str, Any]]:
    """Cases from a cases.jsonl path, a callable returning an iterator, or a list."""
    if isinstance(source, Path):
        return iter_cases(source)
    if callable(source):
        return iter(source())
    return iter(source)


def relation_checks(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The first screen's rows: overall, then each relation, with its threshold (if any)."""
    fail_on = results["suite"]["filled"]["report"].get("fail_on", {}) or {}
    rows = [{"scope": "overall", "rate": results["overall"]["violation_rate"],
             "max": fail_on.get("max_violation_rate"), "fail": results["overall"]["fail"],
             "judged": results["overall"]["pass"] + results["overall"]["fail"]}]
    for rel, c in results.get("relations", {}).items():
        rows.append({"scope": rel, "rate": c["violation_rate"],
                     "max": (fail_on.get("relations") or {}).get(rel),
                     "fail": c["fail"], "judged": c["pass"] + c["fail"]})
    for group, c in (results.get("groups") or {}).items():
        limit = (fail_on.get("groups") or {}).get(group)
        if limit is None and set(results["groups"]) == {"research"}:
            continue  # a suite of the research methods only: nothing to add to the rows above
        rows.append({"scope": f"group {group}", "rate": c["violation_rate"], "max": limit,
                     "fail": c["fail"], "judged": c["pass"] + c["fail"]})
    # per check (one transformation) and the bias gaps, as the thresholds judged them
    from runner.report.thresholds import per_transformation_rates
    from runner.report.verdict import verdict_of

    per_check = per_transformation_rates(results.get("summary") or [])
    for c in verdict_of(results)["checks"]:
        if c["scope"].startswith("check "):
            e = per_check.get(c["scope"].removeprefix("check "), {})
            rows.append({"scope": c["scope"], "rate": c["rate"], "max": c["max"],
                         "fail": e.get("fail", 0), "judged": e.get("fail", 0) + e.get("pass", 0)})
        elif c.get("kind") == "gap":
            rows.append({"scope": c["scope"], "rate": c["rate"], "max": c["max"],
                         "fail": "–", "judged": f"{len(c['members'])} checks"})
    from runner.tasks import task_of_results

    rows += task_of_results(results).threshold_rows(results)
    for row in rows:
        row["status"] = ("none" if row["max"] is None else
                         "pass" if row["rate"] is None or row["rate"] <= row["max"] else "fail")
    return rows


def write_html(results: dict[str, Any], cases: "CaseSource", out_path: Path) -> Path:
    from runner.report.charts import charts
    from runner.report.plain import change_line, group_sources, names, run_rows
    from runner.report.verdict import verdict_of
    from runner.tasks import task_of_results

    task = task_of_results(results)
    env = _environment()
    limit = results["suite"]["filled"]["report"]["max_violations_shown"]
    violations, n_violations, labels, categories = [], 0, set(), set()
    errors, false_alarms = [], []
    for case in cases_of(cases):
        if case["verdict"]["outcome"] == "error" and len(errors) < limit:
            errors.append({"id": case["id"], "reason": case["verdict"].get("reason", ""),
                           "text": case["follow_up"]["text"]})
        if case["verdict"]["outcome"] != "fail":
            continue
        if is_false_alarm(case):   # marked in triage: listed apart, out of every rate
            if len(false_alarms) < limit:
                false_alarms.append(task.case_view(case))
            continue
        n_violations += 1
        if len(violations) < limit:
            view = task.case_view(case)
            view["change"] = change_line(case)
            violations.append(view)
            labels.update(view["types"])
            categories.update(view["categories"])
    # the violations of one source together (in the order their sources first appear), the
    # source shown once with its count
    order: dict[str, int] = {}
    for v in violations:
        order.setdefault(v["source_text"], len(order))
    violations.sort(key=lambda v: order[v["source_text"]])
    group_sources(violations)
    plain = names(results, task)

    def shown_name(kind: str, name: str) -> str:
        # what the table cell reads (its plain title, then its name): the sort key too
        title = (plain[kind].get(name) or {}).get("title")
        return f"{title} {name}" if title else name

    transformations = sorted({v["transformation"] for v in violations},
                             key=lambda n: shown_name("transformations", n))
    relations = sorted({v["relation"] for v in violations},
                       key=lambda n: shown_name("relations", n))
    # What the page's script filters and sorts on, one entry per table row (same order).
    index = {
        "transformations": transformations, "relations": relations,
        "shown": {"t": [shown_name("transformations", n) for n in transformations],
                  "r": [shown_name("relations", n) for n in relations]},
        "categories": sorted(categories), "types": sorted(labels),
        "rows": [[v["id"], transformations.index(v["transformation"]),
                  relations.index(v["relation"]), v["categories"], v["types"],
                  len(v["differences"])] for v in violations],
        "overall": results["overall"], "thresholds": results["thresholds"],
    }
    # What the triage controls need per case (mark, the texts a mark is matched by): the shown
    # violations, then the false alarms, in page order.
    triage_rows = [[v["id"], v["transformation"], v["relation"], v["source_text"],
                    v["follow_up_text"], (v.get("triage") or {}).get("mark", "")]
                   for v in violations + false_alarms]
    html = env.get_template("report.html.j2").render(
        false_alarms=false_alarms, triage_rows=triage_rows, **task.report_context(results, limit),
        r=results, violations=violations, n_violations=n_violations, shown_limit=limit,
        labels=sorted(labels), checks=relation_checks(results), charts=charts(results, task),
        task=task, verdict=verdict_of(results), plain=plain,
        run_rows=run_rows(results, plain),
        index=index, filters={"transformation": transformations, "relation": relations,
                              "category": sorted(categories), "type": sorted(labels)},
        errors=errors)
    return _write_text(html, out_path)


# -- console -----------------------------------------------------------------------------------

def yield_line(results: dict[str, Any]) -> str:
    """Violations per 100 sources, overall and per transformation (summed over its relations):
    what a check finds on a corpus, beside its rate among the cases it judged."""
    per: dict[str, float] = {}
    for r in results["summary"]:
        if r.get("violations_per_100_sources") is not None:
            per[r["transformation"]] = per.get(r["transformation"], 0.0) + r["violations_per_100_sources"]
    parts = ", ".join(f"{t} {v:.1f}" for t, v in per.items())
    return (f"violations per 100 sources: {results['overall']['violations_per_100_sources']:.1f}"
            + (f" ({parts})" if len(per) > 1 else ""))


def console_summary(results: dict[str, Any]) -> str:
    from tabulate import tabulate

    def pct(v: float | None) -> str:
        return "–" if v is None else f"{v:.1%}"

    # The group column appears when the suite has more than the research methods.
    grouped = any(r.get("group", "research") != "research" for r in results["summary"])
    rows = [([r.get("group", "research")] if grouped else []) +
            [r["transformation"], r["relation"], r["sources"], r["applicable_sources"],
             r["follow_ups"], r["pass"], r["fail"], r["skip"] + r["error"],
             pct(r["violation_rate"])]
            for r in results["summary"]]
    o = results["overall"]
    rows.append(([""] if grouped else []) +
                ["all", "", o["sources"], "", o["follow_ups"], o["pass"], o["fail"],
                 o["skip"] + o["error"], pct(o["violation_rate"])])
    table = tabulate(rows, headers=(["group"] if grouped else []) +
                     ["transformation", "relation", "sources", "applicable", "follow-ups", "pass",
                      "violations", "skip/error", "rate"], tablefmt="simple")
    if not results["summary"] and results.get("attacks"):
        table = ""  # an attack-only suite: no metamorphic row to show
    lines = [table] if table else []
    if table and o.get("violations_per_100_sources") is not None:
        lines.append(yield_line(results))
    if grouped:
        lines.append("groups: " + ", ".join(
            f"{g} {pct(c['violation_rate'])} ({c['fail']} of {c['pass'] + c['fail']})"
            for g, c in (results.get("groups") or {}).items()))
    from runner.tasks import task_of_results

    from runner.report.display import visible_text
    from runner.report.triage import console_lines as triage_lines

    return visible_text("\n".join([*lines, *task_of_results(results).console_lines(results),
                                   *triage_lines(results)]), keep="\n")
