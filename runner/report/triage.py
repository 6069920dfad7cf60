"""Triage of violations: a reader's marks ("confirmed" / "false alarm") read back into a run.

A violation is a disagreement between the system's answers on a source and its follow-up. When
the gold labels carry through the edit, one of the two answers is always wrong, so the share of
violations with a prediction error (TIN's *precision of testing*) is 100 % by construction: it
cannot show the false alarms a reader meets — a follow-up that is not natural English, or that
moved a name the system had mistyped into a slot where it means something else. What a QA lead
can quote is **validity** = confirmed / (confirmed + false alarms), from marks made by reading.

The HTML report lets a reader mark each violation and export the marks (a JSON file, format
below). A suite names that file (``report.triage``) or ``mtrun SUITE --triage FILE`` does; the
next run then

- leaves violations marked false alarm out of every violation rate and count (summary rows,
  relations, overall, thresholds; the rows get ``false_alarms``) and lists them in their own
  section, annotated ``case["triage"] = {"mark": "false_alarm", ...}``;
- keeps confirmed violations in the table (annotated ``{"mark": "confirmed"}``);
- flags marks whose case is not in the run (``stale``) or no longer fails (``resolved``);
- reports validity per transformation and overall (results.json ``triage``).

A mark is matched to a case by source text, transformation, follow-up text and relation (as
``mtrun diff`` matches cases), so it survives a change of case ids; a mark without the texts is
matched by its ``id``.

File format (version 1)::

    {"mtrun_triage": 1, "suite": "ner_spacy",
     "marks": [{"id": "...", "transformation": "entity_shuffle", "relation": "MR2",
                "source": "...", "follow_up": "...", "mark": "false_alarm", "note": "..."}]}

YAML with the same structure is accepted too (``.yaml``/``.yml``).
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from runner.errors import SuiteError

MARKS = ("confirmed", "false_alarm")
TRIAGE_VERSION = 1
Key = tuple[str, str, str, str]


def case_key(case: dict[str, Any]) -> Key:
    return (case["source"]["text"], case["transformation"], case["follow_up"]["text"],
            case["relation"])


def load_triage(path: str | Path) -> list[dict[str, Any]]:
    """The marks of a triage file; a file that cannot be read or does not have the format
    above is a SuiteError naming the file, the line (when known) and what was expected."""
    path = Path(path)
    where = {"file": str(path)}
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SuiteError(f"cannot read the triage file: {exc.strerror}", **where) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SuiteError(f"the triage file is not UTF-8 text (byte {exc.start})", **where) from None
    lines: dict[int, int] = {}
    if path.suffix.lower() in (".yaml", ".yml"):
        data = _load_yaml(text, where, lines)
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SuiteError(f"not valid JSON: {exc.msg} (column {exc.colno}); expected a "
                             "triage file exported from an mtrun report", line=exc.lineno,
                             **where) from None
        _json_mark_lines(text, lines)
    if not isinstance(data, dict) or not isinstance(data.get("marks"), list):
        raise SuiteError("expected an object with a \"marks\" list (a triage file exported "
                         "from an mtrun report)", **where)
    version = data.get("mtrun_triage", TRIAGE_VERSION)
    if version != TRIAGE_VERSION:
        raise SuiteError(f"triage format version {version!r} is not supported (supported: "
                         f"{TRIAGE_VERSION})", **where)
    marks = []
    for k, m in enumerate(data["marks"]):
        at = {**where, "line": lines.get(k)}
        if not isinstance(m, dict):
            raise SuiteError(f"marks[{k}] must be an object, got {json.dumps(m)[:60]}", **at)
        if m.get("mark") not in MARKS:
            raise SuiteError(f"marks[{k}].mark must be one of {', '.join(MARKS)}, got "
                             f"{json.dumps(m.get('mark'))[:60]}", **at)
        for field in ("id", "source", "follow_up", "transformation", "relation", "note"):
            if field in m and not isinstance(m[field], str):
                raise SuiteError(f"marks[{k}].{field} must be a string", **at)
        has_texts = all(isinstance(m.get(f), str) for f in
                        ("source", "follow_up", "transformation", "relation"))
        if not has_texts and not m.get("id"):
            raise SuiteError(f"marks[{k}] names no case: give its id, or its source, "
                             "follow_up, transformation and relation", **at)
        marks.append(dict(m))
    return marks


def _load_yaml(text: str, where: dict[str, Any], lines: dict[int, int]) -> Any:
    import yaml

    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise SuiteError(f"not valid YAML: {getattr(exc, 'problem', None) or exc}",
                         line=mark.line + 1 if mark else None, **where) from None
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if key.value == "marks" and isinstance(value, yaml.SequenceNode):
                for k, item in enumerate(value.value):
                    lines[k] = item.start_mark.line + 1
    return data


def _json_mark_lines(text: str, lines: dict[int, int]) -> None:
    """Line of each mark in an exported file (one mark a line): for error messages only."""
    k = 0
    for n, line in enumerate(text.splitlines(), 1):
        if '"mark"' in line:
            lines[k] = n
            k += 1


class Triage:
    """Marks matched against a run's cases. ``annotate`` adds ``case["triage"]``; ``adjust``
    takes marked false alarms out of the counts and adds ``results["triage"]``."""

    def __init__(self, marks: list[dict[str, Any]], path: str | Path) -> None:
        self.path = str(path)
        self.marks = marks
        self.by_key: dict[Key, int] = {}
        self.by_id: dict[str, int] = {}
        for n, m in enumerate(marks):   # a later mark of the same case wins
            if all(isinstance(m.get(f), str) for f in
                   ("source", "follow_up", "transformation", "relation")):
                self.by_key[(m["source"], m["transformation"], m["follow_up"], m["relation"])] = n
            elif m.get("id"):
                self.by_id[m["id"]] = n

    def mark_of(self, case: dict[str, Any]) -> int | None:
        n = self.by_key.get(case_key(case))
        return self.by_id.get(case.get("id", "")) if n is None else n

    def annotate(self, case: dict[str, Any]) -> dict[str, Any]:
        n = self.mark_of(case)
        if n is not None and case["verdict"]["outcome"] == "fail":
            m = self.marks[n]
            case = dict(case, triage={"mark": m["mark"], **({"note": m["note"]}
                                                             if m.get("note") else {})})
        return case

    def wrap(self, cases: Callable[[], Iterable[dict[str, Any]]]
             ) -> Callable[[], Iterator[dict[str, Any]]]:
        return lambda: (self.annotate(c) for c in cases())

    def adjust(self, results: dict[str, Any], cases: Iterable[dict[str, Any]]) -> dict[str, Any]:
        """``results`` with false alarms out of every count, and its ``triage`` block."""
        false_alarms: Counter[tuple[str, str]] = Counter()
        confirmed: Counter[tuple[str, str]] = Counter()
        seen: dict[int, str] = {}
        fa_categories: Counter[str] = Counter()
        for case in cases:
            n = self.mark_of(case)
            if n is None:
                continue
            outcome = case["verdict"]["outcome"]
            seen[n] = outcome
            if outcome != "fail":
                continue
            key = (case["transformation"], case["relation"])
            if self.marks[n]["mark"] == "false_alarm":
                false_alarms[key] += 1
                fa_categories.update(case["verdict"].get("categories") or [])
            else:
                confirmed[key] += 1
        out = dict(results)
        out["summary"] = [_less(row, false_alarms[(row["transformation"], row["relation"])])
                          for row in results["summary"]]
        by_relation: Counter[str] = Counter()
        for (_, rel), n in false_alarms.items():
            by_relation[rel] += n
        out["relations"] = {rel: _less(row, by_relation[rel])
                            for rel, row in results.get("relations", {}).items()}
        out["overall"] = _less(results["overall"], sum(false_alarms.values()))
        if results.get("categories"):   # the error categories of the violations still counted
            out["categories"] = {k: v - fa_categories.get(k, 0)
                                 for k, v in results["categories"].items()}
        from runner.report.thresholds import evaluate_thresholds

        from runner.tally import group_counts

        if results.get("groups") is not None:   # a group's rate loses its false alarms too
            out["groups"] = group_counts(out["summary"])
        attacks = (results.get("attacks") or {}).get("summary")
        out["thresholds"] = evaluate_thresholds(results["suite"]["filled"]["report"]["fail_on"],
                                                out["overall"], out["relations"],
                                                out.get("groups"), attacks=attacks,
                                                summary=out["summary"],
                                                transformations=results["suite"]["filled"].get(
                                                    "transformations"))
        per_t: dict[str, dict[str, Any]] = defaultdict(lambda: {"confirmed": 0, "false_alarms": 0})
        for (t, _), n in confirmed.items():
            per_t[t]["confirmed"] += n
        for (t, _), n in false_alarms.items():
            per_t[t]["false_alarms"] += n
        for row in results["summary"]:
            entry = per_t[row["transformation"]]
            entry["violations"] = entry.get("violations", 0) + row["fail"]
        for entry in per_t.values():
            entry["unmarked"] = (entry.get("violations", 0) - entry["confirmed"]
                                 - entry["false_alarms"])
            entry["validity"] = _validity(entry["confirmed"], entry["false_alarms"])
        c, fa = sum(confirmed.values()), sum(false_alarms.values())
        stale = [_brief(m) for n, m in enumerate(self.marks) if n not in seen]
        resolved = [dict(_brief(m), outcome=seen[n]) for n, m in enumerate(self.marks)
                    if n in seen and seen[n] != "fail"]
        out["triage"] = {
            "file": self.path, "marks": len(self.marks), "confirmed": c, "false_alarms": fa,
            "validity": _validity(c, fa),
            "unmarked": results["overall"]["fail"] - c - fa,
            "per_transformation": dict(per_t),
            "stale": stale, "resolved": resolved,
        }
        return out


def _validity(confirmed: int, false_alarms: int) -> float | None:
    return confirmed / (confirmed + false_alarms) if confirmed + false_alarms else None


def _less(row: dict[str, Any], false_alarms: int) -> dict[str, Any]:
    """A count row with ``false_alarms`` violations taken out of ``fail`` and the rate."""
    row = dict(row)
    row["fail"] -= false_alarms
    if "violations" in row:
        row["violations"] = row["fail"]
    row["false_alarms"] = false_alarms
    judged = row["pass"] + row["fail"]
    row["violation_rate"] = row["fail"] / judged if judged else None
    return row


def _brief(m: dict[str, Any]) -> dict[str, Any]:
    return {k: m[k] for k in ("id", "transformation", "relation", "source", "follow_up", "mark",
                              "note") if k in m}


def is_false_alarm(case: dict[str, Any]) -> bool:
    return (case.get("triage") or {}).get("mark") == "false_alarm"


def console_lines(results: dict[str, Any]) -> list[str]:
    t = results.get("triage")
    if not t:
        return []
    v = "–" if t["validity"] is None else f"{t['validity']:.1%}"
    lines = [f"triage ({t['file']}): {t['confirmed']} confirmed, {t['false_alarms']} false "
             f"alarm(s) left out of the rates, {t['unmarked']} violation(s) not marked; "
             f"validity {v}"]
    if t["stale"] or t["resolved"]:
        lines.append(f"triage: {len(t['stale'])} mark(s) match no case of this run, "
                     f"{len(t['resolved'])} mark(s) match a case that no longer fails")
    return lines
