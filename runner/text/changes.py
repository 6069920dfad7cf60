"""What an edit changed, as a report shows it: the character ranges a follow-up's edit touched
and a sentence cut into pieces (plain text, entities, changed parts). Shared by every task's case
view, the attacks' view and the report shell; plain data, no markup (templates escape it)."""
from __future__ import annotations

from typing import Any


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


def changed_ranges(case: dict[str, Any]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The character ranges the follow-up's edit changed: in the source, in the follow-up."""
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
