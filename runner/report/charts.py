"""Inline SVG charts for the HTML report: horizontal bars, drawn server-side so that the report needs
no script and no network to show them. Every label is escaped here (labels are untrusted text)."""
from __future__ import annotations

import re
from html import escape
from typing import Any, Sequence

from markupsafe import Markup

ROW_H = 26
LINE_H = 14         # a label's lines (a long label wraps onto several, never cut)
BAR_W = 230
CHAR_W = 7.0        # width of one character of the 12 px chart font, generously
MAX_LABEL_W = 300   # a label wider than this wraps
MIN_LABEL_W = 120


def _e(text: Any) -> str:
    return escape(str(text), quote=True)


def _svg(title: str, width: int, height: int, body: list[str]) -> Markup:
    return Markup(
        f'<svg class="chart" role="img" aria-label="{_e(title)}" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">'
        f'<title>{_e(title)}</title>{"".join(body)}</svg>')


def _text_w(text: str) -> float:
    return len(text) * CHAR_W


def _wrap(label: str, width: float) -> list[tuple[str, int]]:
    """The label's lines as (text, which of its own lines it comes from), each at most ``width``
    wide where a space allows: wrapped between words, never cut."""
    lines: list[tuple[str, int]] = []
    for k, part in enumerate(str(label).split("\n")):
        line = ""
        for word in part.split(" "):
            if line and _text_w(line + " " + word) > width:
                lines.append((line, k))
                line = word
            else:
                line = f"{line} {word}" if line else word
        lines.append((line, k))
    return lines


def _layout(labels: Sequence[str], values: Sequence[str]
            ) -> tuple[float, float, list[list[tuple[str, int]]]]:
    """Label column width, value column width, and each label's lines."""
    longest = max([_text_w(line) for lab in labels for line in str(lab).split("\n")] + [0])
    label_w = max(MIN_LABEL_W, min(MAX_LABEL_W, longest + 16))
    value_w = max([_text_w(v) for v in values] + [40]) + 16
    return label_w, value_w, [_wrap(lab, label_w - 16) for lab in labels]


def _label(x: float, y_mid: float, lines: list[tuple[str, int]]) -> str:
    """A label's lines right-aligned at ``x``, centred on ``y_mid``; the lines of its second
    part are the muted detail (the name under a plain title)."""
    top = y_mid - (len(lines) - 1) * LINE_H / 2 + 4
    muted = ' class="tick"'
    spans = "".join(f'<tspan x="{x:.0f}" y="{top + i * LINE_H:.0f}"{muted if part else ""}>'
                    f'{_e(line)}</tspan>' for i, (line, part) in enumerate(lines))
    return f'<text text-anchor="end" class="lbl">{spans}</text>'


def _plain(lines: list[tuple[str, int]]) -> str:
    return " · ".join(line for line, _ in lines)


def _row_h(lines: list[tuple[str, int]]) -> int:
    return max(ROW_H, LINE_H * len(lines) + 10)


def rate_chart(rows: Sequence[dict[str, Any]], title: str) -> Markup:
    """One bar per row: ``{"label", "rate" (0..1 or None), "max" (threshold or None), "note"}``.
    The bar is red when the rate exceeds its threshold (``over``, when given, decides: a row held to
    an aggregate threshold is red only when that threshold failed), grey when nothing was judged;
    a dashed line marks the threshold. A label's ``\\n`` starts a muted second line; the chart is
    as wide as its longest label and value need (labels wrap, nothing is cut)."""
    values = []
    for row in rows:
        rate, limit = row.get("rate"), row.get("max")
        value = "no judged case" if rate is None else f"{rate:.1%}"
        if limit is not None:
            value += f" ({row.get('limit_name', 'max')} {limit:.0%})"
        values.append(value)
    label_w, value_w, lines = _layout([r["label"] for r in rows], values)
    heights = [_row_h(ls) for ls in lines]
    height = sum(heights) + 24
    width = int(label_w + BAR_W + value_w)
    body = [f'<line x1="{label_w:.0f}" y1="0" x2="{label_w:.0f}" y2="{height - 20}" class="axis"/>']
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        x = label_w + tick * BAR_W
        body.append(f'<text x="{x:.0f}" y="{height - 6}" class="tick" text-anchor="middle">'
                    f'{tick:.0%}</text>')
    y = 0
    for row, value, ls, h in zip(rows, values, lines, heights):
        rate, limit = row.get("rate"), row.get("max")
        over = row["over"] if "over" in row else (
            rate is not None and limit is not None and rate > limit)
        cls = "none" if rate is None else ("over" if over else ("ok" if limit is not None else "plain"))
        w = 0 if rate is None else max(1.5, min(rate, 1.0) * BAR_W)
        mid = y + h / 2
        body.append(f'<g class="row {cls}"><title>{_e(_plain(ls))}: {_e(value)}'
                    f'{" — " + _e(row["note"]) if row.get("note") else ""}</title>'
                    f'{_label(label_w - 8, mid, ls)}'
                    f'<rect x="{label_w:.0f}" y="{mid - 8:.0f}" width="{BAR_W}" height="16" class="track"/>'
                    f'<rect x="{label_w:.0f}" y="{mid - 8:.0f}" width="{w:.1f}" height="16" class="bar"/>')
        if limit is not None:
            x = label_w + min(limit, 1.0) * BAR_W
            body.append(f'<line x1="{x:.1f}" y1="{mid - 11:.0f}" x2="{x:.1f}" y2="{mid + 11:.0f}" '
                        f'class="limit"/>')
        body.append(f'<text x="{label_w + BAR_W + 8:.0f}" y="{mid + 4:.0f}" class="val">'
                    f'{_e(value)}</text></g>')
        y += h
    return _svg(title, width, height, body)


def count_chart(rows: Sequence[tuple[str, int]], title: str, total: int | None = None,
                cls: str = "plain") -> Markup:
    """One bar per (label, count), scaled to the largest count (or ``total``)."""
    top = max([total or 0] + [c for _, c in rows] + [1])
    denom = total or sum(c for _, c in rows)
    values = [f"{count}" + (f" ({count / denom:.0%})" if denom else "") for _, count in rows]
    label_w, value_w, lines = _layout([label for label, _ in rows], values)
    heights = [_row_h(ls) for ls in lines]
    height = sum(heights) + 4
    width = int(label_w + BAR_W + value_w)
    body = [f'<line x1="{label_w:.0f}" y1="0" x2="{label_w:.0f}" y2="{height}" class="axis"/>']
    y = 0
    for (label, count), value, ls, h in zip(rows, values, lines, heights):
        w = (count / top) * BAR_W if count else 0
        mid = y + h / 2
        body.append(f'<g class="row {cls}"><title>{_e(label)}: {_e(value)}</title>'
                    f'{_label(label_w - 8, mid, ls)}'
                    f'<rect x="{label_w:.0f}" y="{mid - 8:.0f}" width="{BAR_W}" height="16" class="track"/>'
                    f'<rect x="{label_w:.0f}" y="{mid - 8:.0f}" width="{max(w, 1.5 if count else 0):.1f}" '
                    f'height="16" class="bar"/>'
                    f'<text x="{label_w + BAR_W + 8:.0f}" y="{mid + 4:.0f}" class="val">{_e(value)}</text></g>')
        y += h
    return _svg(title, width, height, body)


def funnel_rows(funnel: dict[str, Any]) -> list[tuple[str, list[tuple[str, int]]]]:
    """``r.funnel`` → per transformation the counts left after each stage: generated, after each
    filter, tested, violations."""
    out = []
    for transformation, f in funnel.items():
        left = int(f.get("generated", 0))
        stages = [("generated", left)]
        for flt, dropped in (f.get("dropped_by") or {}).items():
            left -= int(dropped)
            stages.append((f"after {flt} filter (−{int(dropped)})", max(left, 0)))
        stages.append(("tested", int(f.get("tested", 0))))
        stages.append(("violations", int(f.get("violations", 0))))
        out.append((transformation, stages))
    return out


def charts(results: dict[str, Any], task: Any = None) -> dict[str, Any]:
    """Every chart of the first screen, as markup (None when there is nothing to draw); the
    task's own charts (NER: error categories) in ``task``, as (title, chart) pairs."""
    from runner.report.verdict import checks_of, row_status

    from runner.report.plain import names

    checks = checks_of(results)["checks"]
    plain = names(results, task) if task is not None else {"transformations": {}}

    label = getattr(task, "rate_label", None) or (
        lambda s: f"{s['transformation']} · {s['relation']}")

    def row(s: dict[str, Any]) -> dict[str, Any]:
        # the row is drawn against the threshold that covers it (overall, its relation's, its
        # group's) and red only when that threshold failed (runner/report/verdict.py)
        rs = row_status(results, s, checks)
        # the check's plain title, then its name as the task writes it (RE: the MR first)
        title = (plain["transformations"].get(s["transformation"]) or {}).get("title")
        name = label(s)
        return {"label": f"{title}\n{name}" if title else name, "rate": s["violation_rate"],
                "max": rs["max"], "limit_name": rs["limit_name"], "over": rs["status"] == "fail",
                "note": f"{s['fail']} violations of {s['pass'] + s['fail']} judged; {rs['why']}"}

    rows = [row(s) for s in results.get("summary", [])]
    out: dict[str, Any] = {
        "rates": rate_chart(rows, "Violation rate per transformation and relation") if rows else None,
        "task": task.charts(results) if task is not None else [], "funnel": [],
    }
    # a chart too wide for half the page takes the whole width (its labels are never cut)
    width = re.search(r'width="(\d+)"', str(out["rates"])) if out["rates"] else None
    out["rates_wide"] = bool(width and int(width.group(1)) > 700)
    for transformation, stages in funnel_rows(results.get("funnel") or {}):
        out["funnel"].append((transformation, count_chart(
            stages, f"Filter funnel of {transformation}", total=stages[0][1], cls="funnel")))
    return out
