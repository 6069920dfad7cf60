"""Inline SVG charts for the HTML report: horizontal bars, drawn server-side so that the report needs
no script and no network to show them. Every label is escaped here (labels are untrusted text)."""
from __future__ import annotations

from html import escape
from typing import Any, Sequence

from markupsafe import Markup

ROW_H = 26
LABEL_W = 200
BAR_W = 230
VALUE_W = 175
WIDTH = LABEL_W + BAR_W + VALUE_W


def _e(text: Any) -> str:
    return escape(str(text), quote=True)


def _svg(title: str, height: int, body: list[str]) -> Markup:
    return Markup(
        f'<svg class="chart" role="img" aria-label="{_e(title)}" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" xmlns="http://www.w3.org/2000/svg">'
        f'<title>{_e(title)}</title>{"".join(body)}</svg>')


def _clip(label: str, n: int = 30) -> str:
    return label if len(label) <= n else label[:n - 1] + "…"


def rate_chart(rows: Sequence[dict[str, Any]], title: str) -> Markup:
    """One bar per row: ``{"label", "rate" (0..1 or None), "max" (threshold or None), "note"}``.
    The bar is red when the rate exceeds its threshold (``over``, when given, decides: a row held to
    an aggregate threshold is red only when that threshold failed), grey when nothing was judged;
    a dashed line marks the threshold."""
    height = ROW_H * len(rows) + 24
    body = [f'<line x1="{LABEL_W}" y1="0" x2="{LABEL_W}" y2="{height - 20}" class="axis"/>']
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        x = LABEL_W + tick * BAR_W
        body.append(f'<text x="{x:.0f}" y="{height - 6}" class="tick" text-anchor="middle">'
                    f'{tick:.0%}</text>')
    for i, row in enumerate(rows):
        y = i * ROW_H
        rate, limit = row.get("rate"), row.get("max")
        over = row["over"] if "over" in row else (
            rate is not None and limit is not None and rate > limit)
        cls = "none" if rate is None else ("over" if over else ("ok" if limit is not None else "plain"))
        w = 0 if rate is None else max(1.5, min(rate, 1.0) * BAR_W)
        value = "no judged case" if rate is None else f"{rate:.1%}"
        if limit is not None:
            value += f" ({row.get('limit_name', 'max')} {limit:.0%})"
        body.append(f'<g class="row {cls}"><title>{_e(row["label"])}: {_e(value)}'
                    f'{" — " + _e(row["note"]) if row.get("note") else ""}</title>'
                    f'<text x="{LABEL_W - 8}" y="{y + 17}" text-anchor="end" class="lbl">'
                    f'{_e(_clip(row["label"]))}</text>'
                    f'<rect x="{LABEL_W}" y="{y + 5}" width="{BAR_W}" height="16" class="track"/>'
                    f'<rect x="{LABEL_W}" y="{y + 5}" width="{w:.1f}" height="16" class="bar"/>')
        if limit is not None:
            x = LABEL_W + min(limit, 1.0) * BAR_W
            body.append(f'<line x1="{x:.1f}" y1="{y + 2}" x2="{x:.1f}" y2="{y + 24}" class="limit"/>')
        body.append(f'<text x="{LABEL_W + BAR_W + 8}" y="{y + 17}" class="val">{_e(value)}</text></g>')
    return _svg(title, height, body)


def count_chart(rows: Sequence[tuple[str, int]], title: str, total: int | None = None,
                cls: str = "plain") -> Markup:
    """One bar per (label, count), scaled to the largest count (or ``total``)."""
    top = max([total or 0] + [c for _, c in rows] + [1])
    height = ROW_H * len(rows) + 4
    body = [f'<line x1="{LABEL_W}" y1="0" x2="{LABEL_W}" y2="{height}" class="axis"/>']
    denom = total or sum(c for _, c in rows)
    for i, (label, count) in enumerate(rows):
        y = i * ROW_H
        w = (count / top) * BAR_W if count else 0
        share = f" ({count / denom:.0%})" if denom else ""
        body.append(f'<g class="row {cls}"><title>{_e(label)}: {count}{share}</title>'
                    f'<text x="{LABEL_W - 8}" y="{y + 17}" text-anchor="end" class="lbl">'
                    f'{_e(_clip(label))}</text>'
                    f'<rect x="{LABEL_W}" y="{y + 5}" width="{BAR_W}" height="16" class="track"/>'
                    f'<rect x="{LABEL_W}" y="{y + 5}" width="{max(w, 1.5 if count else 0):.1f}" '
                    f'height="16" class="bar"/>'
                    f'<text x="{LABEL_W + BAR_W + 8}" y="{y + 17}" class="val">{count}{share}</text></g>')
    return _svg(title, height, body)


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

    checks = checks_of(results)["checks"]

    label = getattr(task, "rate_label", None) or (
        lambda s: f"{s['transformation']} · {s['relation']}")

    def row(s: dict[str, Any]) -> dict[str, Any]:
        # the row is drawn against the threshold that covers it (overall, its relation's, its
        # group's) and red only when that threshold failed (runner/report/verdict.py)
        rs = row_status(results, s, checks)
        return {"label": label(s), "rate": s["violation_rate"],
                "max": rs["max"], "limit_name": rs["limit_name"], "over": rs["status"] == "fail",
                "note": f"{s['fail']} violations of {s['pass'] + s['fail']} judged; {rs['why']}"}

    rows = [row(s) for s in results.get("summary", [])]
    out: dict[str, Any] = {
        "rates": rate_chart(rows, "Violation rate per transformation and relation") if rows else None,
        "task": task.charts(results) if task is not None else [], "funnel": [],
    }
    for transformation, stages in funnel_rows(results.get("funnel") or {}):
        out["funnel"].append((transformation, count_chart(
            stages, f"Filter funnel of {transformation}", total=stages[0][1], cls="funnel")))
    return out
