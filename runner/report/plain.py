"""The report in words a reader without the papers follows: the plain title of every check and
relation and what a violation of it means (from the registrations, ``extra["title"]`` and
``extra["violation"]``, so a new transformation brings its own), and the one-line change a
follow-up made to its source ("Olaf → OLAF", "moved 'Berlin' ↔ 'Paris'"). Plain data, no markup:
the templates escape it."""
from __future__ import annotations

import difflib
import re
from typing import Any

_WORD = re.compile(r"\S+")
SHOWN_CHANGES = 3   # word changes spelt out in a row's change line; the rest are counted
SIDE_CHARS = 40     # longest old or new text quoted in a change line


def names(results: dict[str, Any], task: Any) -> dict[str, dict[str, dict[str, str]]]:
    """``{"transformations": {name: {...}}, "relations": {name: {...}}, "attacks": {...}}``,
    each ``{"name", "type", "title", "violation"}``: the suite's names (a transformation may be
    renamed, ``uppercase_keep_type`` of type ``case``) with their registration's plain words."""
    try:
        regs = task.registries()
    except Exception:  # noqa: BLE001 — a task without registries: names only
        regs = {}

    def entry(registry: Any, type_: str) -> dict[str, Any]:
        try:
            e = registry.get(type_) if registry is not None else None
        except Exception:  # noqa: BLE001 — an unknown type (an old run): no plain words
            e = None
        if e is None:
            return {}
        return {"title": e.extra.get("title", ""), "violation": e.extra.get("violation", ""),
                "description": e.description}

    out: dict[str, dict[str, dict[str, str]]] = {"transformations": {}, "relations": {},
                                                  "attacks": {}}
    filled = (results.get("suite") or {}).get("filled") or {}
    for t in filled.get("transformations") or []:
        name = t.get("name", t.get("type", ""))
        e = entry(regs.get("transformations"), t.get("type", name))
        out["transformations"][name] = {"name": name, "type": t.get("type", name),
                                        "title": e.get("title", ""),
                                        "violation": e.get("violation", "")}
    for row in results.get("summary") or []:
        name = row["transformation"]
        if name not in out["transformations"]:
            e = entry(regs.get("transformations"), row.get("type", name))
            out["transformations"][name] = {"name": name, "type": row.get("type", name),
                                            "title": e.get("title", ""),
                                            "violation": row.get("violation") or e.get("violation", "")}
        rel = row["relation"]
        if rel not in out["relations"]:
            e = entry(regs.get("relations"), rel)
            out["relations"][rel] = {"name": rel, "type": rel, "title": e.get("title", ""),
                                     "violation": e.get("violation") or e.get("description", "")}
    attacks = regs.get("attacks")   # a task's stages' components (NER: the attacks)
    for a in filled.get("attacks") or []:
        name = a.get("name", a.get("type", ""))
        e = entry(attacks, a.get("type", name))
        out["attacks"][name] = {"name": name, "type": a.get("type", name),
                                "title": e.get("title", ""), "violation": e.get("violation", "")}
    return out


def label(item: dict[str, str] | None, name: str) -> str:
    """What a table cell or chart shows for a check: its plain title, else its name."""
    return (item or {}).get("title") or name


def _quote(text: str) -> str:
    text = text.strip()
    if len(text) > SIDE_CHARS:
        text = text[:SIDE_CHARS - 1] + "…"
    return text


_PUNCT = "\"'.,;:!?()[]«»“”‘’"


def _trim(old: str, new: str) -> tuple[str, str]:
    """The two sides without the punctuation they share at either end ("Chicago." →
    "Illinois." reads Chicago → Illinois)."""
    while old and new and old[-1] == new[-1] and old[-1] in _PUNCT:
        old, new = old[:-1], new[:-1]
    while old and new and old[0] == new[0] and old[0] in _PUNCT:
        old, new = old[1:], new[1:]
    return old, new


def change_line(case: dict[str, Any]) -> str:
    """One line saying what the follow-up's edit did to the source: word changes ``old → new``
    (the first few, the rest counted), two names that changed places as ``moved 'A' ↔ 'B'``, a
    statement made a question as ``question: …``; a follow-up with the same text (relation
    extraction asks about another pair) as the pair asked about."""
    src, fol = case["source"]["text"], case["follow_up"]["text"]
    if src == fol:
        f = case["follow_up"]
        head, tail = f.get("head"), f.get("tail")
        if isinstance(head, dict) and isinstance(tail, dict):
            expected = (f.get("meta") or {}).get("expected_relation")
            return (f"pair: {_quote(head.get('text', ''))} → {_quote(tail.get('text', ''))}"
                    + (f" (expected {expected})" if expected else ""))
        return "same text"
    if fol.rstrip().endswith("?") and not src.rstrip().endswith("?"):
        words = fol.split()
        return "question: " + " ".join(words[:3]) + (" …?" if len(words) > 3 else "")
    edits = [(src[r["start"]:r["end"]], r["new"]) for r in case["follow_up"].get("edit") or []
             if src[r["start"]:r["end"]] != r["new"]]
    olds = [o.strip() for o, _ in edits]
    if len(edits) == 2 and edits[0][0].strip() == edits[1][1].strip() \
            and edits[1][0].strip() == edits[0][1].strip():
        return f"moved '{_quote(olds[0])}' ↔ '{_quote(olds[1])}'"
    a, b = _WORD.findall(src), _WORD.findall(fol)
    changes = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        if op == "replace" and i2 - i1 == j2 - j1 and i2 - i1 > 1 and all(
                x.lower() == y.lower() for x, y in zip(a[i1:i2], b[j1:j2])):
            # a change of letter case: word by word
            changes += [f"{_quote(x)} → {_quote(y)}" for x, y in zip(a[i1:i2], b[j1:j2]) if x != y]
            continue
        old, new = _trim(" ".join(a[i1:i2]), " ".join(b[j1:j2]))
        changes.append(f"+ '{_quote(new)}'" if not old else
                       f"− '{_quote(old)}'" if not new else f"{_quote(old)} → {_quote(new)}")
    if not changes:
        return "spacing changed"
    more = len(changes) - SHOWN_CHANGES
    return "; ".join(changes[:SHOWN_CHANGES]) + (f" (+{more} more)" if more > 0 else "")


def group_sources(views: list[dict[str, Any]]) -> None:
    """Mark the rows that share a source: each row gets ``source_count`` (violations of its
    source among the rows) and ``source_first`` (the row number, from 1, where the source is
    shown; the same row for the first of them)."""
    first: dict[str, int] = {}
    count: dict[str, int] = {}
    for i, v in enumerate(views, 1):
        key = v["source_text"]
        first.setdefault(key, i)
        count[key] = count.get(key, 0) + 1
    for i, v in enumerate(views, 1):
        v["source_first"] = first[v["source_text"]]
        v["source_count"] = count[v["source_text"]]
        v["row"] = i


def _value(v: Any, limit: int = 60) -> str:
    if isinstance(v, dict):
        text = (", ".join(f"{k}: {_value(x, 20)}" for k, x in v.items()) if len(v) <= 4
                else f"{len(v)} entries")
    elif isinstance(v, (list, tuple)):
        text = (", ".join(_value(x, 24) for x in v) if len(v) <= 6 and all(
            not isinstance(x, (dict, list)) for x in v) else f"{len(v)} items")
    elif isinstance(v, bool):
        text = "yes" if v else "no"
    else:
        text = str(v)
    return text if len(text) <= limit else text[:limit - 1] + "…"


_NOT_SETTINGS = {"type", "name", "models", "applies_to", "backend"}


def settings(component: dict[str, Any] | None) -> list[tuple[str, str]]:
    """A component's settings as (key, readable value), the empty ones left out."""
    return [(k, _value(v)) for k, v in (component or {}).items()
            if k not in _NOT_SETTINGS and v not in (None, "", [], {})]


def run_rows(results: dict[str, Any], plain: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's "What was run" table: one row per part of the run, each with items of
    ``{"name", "title", "settings": [(key, value)]}`` (or plain ``text``)."""
    comp = results.get("components") or {}
    filled = (results.get("suite") or {}).get("filled") or {}
    run = results.get("run") or {}
    sut = comp.get("sut") or {}
    rows: list[dict[str, Any]] = [
        {"head": "System under test", "items": [{"name": sut.get("type", ""),
                                                "title": sut.get("model") or "",
                                                "settings": settings(sut)}]}]
    corpus = filled.get("corpus") or {}
    if corpus:
        done, total = run.get("sources_done"), run.get("sources_total")
        rows.append({"head": "Corpus", "items": [{
            "name": corpus.get("path", ""), "title": "",
            "settings": [("format", str(corpus.get("format", "")))] + (
                [("sources tested", f"{done}" + (f" of {total}" if total and total != done else ""))]
                if done is not None else [])}]})
    if comp.get("parser"):
        rows.append({"head": "Parser (for transformations)",
                     "items": [{"name": comp["parser"].get("type", ""),
                                "title": comp["parser"].get("model") or "",
                                "settings": settings(comp["parser"])}]})
    transformations = []
    for spec, desc in zip(filled.get("transformations") or [], comp.get("transformations") or []):
        name = spec.get("name", spec.get("type", ""))
        p = plain["transformations"].get(name) or {}
        judged = [r["relation"] for r in results.get("summary") or [] if r["transformation"] == name]
        transformations.append({"name": name, "title": p.get("title", ""),
                                "settings": ([("judged by", ", ".join(judged))] if judged else [])
                                + settings(desc)})
    if transformations:
        rows.append({"head": "Transformations", "items": transformations})
    relations = []
    for rel in comp.get("relations") or []:
        p = plain["relations"].get(rel.get("type", "")) or {}
        relations.append({"name": rel.get("type", ""), "title": p.get("title", ""),
                          "settings": settings(rel)})
    if relations:
        rows.append({"head": "Relations", "items": relations})
    if comp.get("filters"):
        rows.append({"head": "Filters", "items": [
            {"name": f.get("type", ""), "title": "",
             "settings": ([("applies to", ", ".join(f["applies_to"]))] if f.get("applies_to")
                          else [("applies to", "every transformation")]) + settings(f)}
            for f in comp["filters"]]})
    if comp.get("attacks"):
        rows.append({"head": "Attacks", "items": [
            {"name": a.get("type", ""),
             "title": (plain["attacks"].get(a.get("name", a.get("type", ""))) or {}).get("title", ""),
             "settings": settings(a)} for a in comp["attacks"]]})
    if comp.get("models"):
        rows.append({"head": "Models", "items": [
            {"name": m.get("name", ""), "title": m.get("role", ""),
             "settings": [(k, _value(m[k])) for k in ("backend", "device", "source") if m.get(k)]}
            for m in comp["models"]]})
    rep = filled.get("repair") or {}
    if rep.get("enabled"):
        rows.append({"head": "Repair", "items": [{"name": rep.get("candidates", ""),
                                                  "title": "candidates",
                                                  "settings": settings(rep)}]})
    rows.append({"head": "Run", "items": [{"name": "", "title": "", "settings": [
        (k, _value(v)) for k, v in (("status", run.get("status")), ("seed", run.get("seed")),
                                    ("device", run.get("device")), ("started", run.get("started")),
                                    ("finished", run.get("finished")),
                                    ("duration", f"{run.get('duration_s', 0):.1f} s"))
        if v is not None]}]})
    return rows
