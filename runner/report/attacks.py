"""The attacks' part of every output: rows for the HTML section, the console lines, the Markdown
table and the JUnit test cases, all read from results.json's ``attacks`` (absent: nothing)."""
from __future__ import annotations

from typing import Any

from runner.text.changes import segments

IMPORTANCE_TEXT = {
    "logits": "logits (the system's label scores per word, Breaking BERT eq. 1)",
    "span_scores": "entity scores returned by the system (one score per predicted entity)",
    "labels": "black-box (labels only): the share of the entity's words a deletion mislabels, "
              "ties broken by distance to the entity",
    None: "–",
}


def attack_limit(results: dict[str, Any]) -> float | None:
    fail_on = results["suite"]["filled"]["report"].get("fail_on", {}) or {}
    return fail_on.get("max_attack_success_rate")


def attack_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per attack, then one per entity type under it."""
    attacks = results.get("attacks") or {}
    limit = attack_limit(results)
    rows = []
    for name, s in (attacks.get("summary") or {}).items():
        status = ("none" if limit is None else
                  "pass" if s["success_rate"] is None or s["success_rate"] <= limit else "fail")
        rows.append({"attack": name, "type": "all", **s, "limit": limit, "status": status})
        for t, ts in s.get("per_type", {}).items():
            rows.append({"attack": name, "type": t, **ts, "limit": None, "status": ""})
    return rows


def importance_used(results: dict[str, Any]) -> list[tuple[str, str]]:
    out = []
    for c in (results.get("attacks") or {}).get("components", []):
        if "importance_used" in c:
            out.append((c["type"], IMPORTANCE_TEXT.get(c["importance_used"],
                                                       c["importance_used"])))
    return out


def attack_view(rec: dict[str, Any]) -> dict[str, Any]:
    ent = rec["entity"]
    src_changed = [(c["start"], c["end"]) for c in rec.get("changes", [])]
    tgt_changed, delta = [], 0
    for r in sorted(rec.get("edit", []), key=lambda r: r["start"]):
        ns = r["start"] + delta
        tgt_changed.append((ns, ns + len(r["new"])))
        delta += len(r["new"]) - (r["end"] - r["start"])
    before = [{"word": w, "before": b, "after": a} for w, b, a in
              zip(rec.get("words", []), rec.get("labels_before", []),
                  rec.get("labels_after", []) + [""] * len(rec.get("words", [])))]
    if rec["attack"] == "entity":
        new = rec["changes"][0]["new"] if rec.get("changes") else ""
        before = [{"word": ent["text"], "before": " ".join(rec.get("labels_before", [])),
                   "after": f"{new}: " + " ".join(rec.get("labels_after", []))}]
    return {
        "id": rec["id"], "origin": rec.get("origin", ""), "attack": rec["attack"],
        "outcome": rec["outcome"], "entity": ent, "similarity": rec.get("similarity"),
        "queries": rec.get("queries"), "perturbed": rec.get("perturbed"),
        "source": segments(rec["text"], rec.get("prediction_before", []), src_changed),
        "adversarial": segments(rec["adversarial"], rec.get("prediction_after", []),
                                tgt_changed),
        "changes": rec.get("changes", []), "labels": before,
        "target": segments(rec["text"], [ent], []),
    }


def attack_views(results: dict[str, Any], limit: int) -> tuple[list[dict[str, Any]], int]:
    """The successful and partly successful attacks, side by side (first ``limit``)."""
    recs = [r for r in (results.get("attacks") or {}).get("records", [])
            if r["outcome"] in ("success", "partial")]
    return [attack_view(r) for r in recs[:limit]], len(recs)


def console_lines(results: dict[str, Any]) -> list[str]:
    attacks = results.get("attacks")
    if not attacks:
        return []
    out = []
    for name, s in attacks.get("summary", {}).items():
        pct = (lambda v: "–" if v is None else f"{v:.1%}")
        out.append(f"attack {name}: {s['attacked']} entities, success {pct(s['success_rate'])}, "
                   f"partial {pct(s['partial_rate'])}, words perturbed "
                   f"{'–' if s['words_perturbed_pct'] is None else str(s['words_perturbed_pct']) + '%'}"
                   f", median similarity {s['median_similarity'] if s['median_similarity'] is not None else '–'}"
                   f", {s['queries_per_entity']} queries per entity")
    for c in attacks.get("components", []):
        if "importance_used" in c:
            kind = c["importance_used"]
            out.append(f"attack {c['type']}: word importance from {kind}"
                       + (" (black-box: the system gives labels only)" if kind == "labels" else ""))
    return out
