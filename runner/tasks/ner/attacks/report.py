"""The attacks' part of every output: rows for the HTML section, the console lines, the Markdown
table and the JUnit test cases, all read from results.json's ``attacks`` (absent: nothing)."""
from __future__ import annotations

from typing import Any

from runner.text.changes import segments

IMPORTANCE_TEXT = {
    "logits": "the system's label scores per word (Breaking BERT eq. 1; hf: its logits, spaCy: "
              "its beam search's probabilities)",
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
        skipped = f" ({s['skipped']} skipped: sub-type unknown)" if s.get("skipped") else ""
        out.append(f"attack {name}: {s['attacked']} entities{skipped}, success "
                   f"{pct(s['success_rate'])}, "
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


# -- the attacks' part of each output (the NER task's hooks: runner.tasks.base.Task) ----------

def html_context(results: dict[str, Any], limit: int) -> dict[str, Any]:
    """What templates/ner/attacks.html.j2 reads: the rows, the first ``limit`` successes side by
    side, how word importance was estimated and the reference the attacks were judged against."""
    views, n_views = attack_views(results, limit)
    records = (results.get("attacks") or {}).get("records") or []
    return {"attack_rows": attack_rows(results), "attack_views": views,
            "n_attack_views": n_views, "attack_importance": importance_used(results),
            "attack_reference": records[0]["reference"] if records else ""}


def threshold_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per attack for the first screen's threshold table."""
    rows = []
    for name, a in ((results.get("attacks") or {}).get("summary") or {}).items():
        rows.append({"scope": f"attack {name} (success)", "rate": a["success_rate"],
                     "max": attack_limit(results), "fail": a["success"],
                     "judged": a["attacked"]})
    return rows


def markdown_lines(results: dict[str, Any]) -> list[str]:
    """summary.md's table of attacks."""
    from runner.report.markdown import _pct, md_text

    lines: list[str] = []
    rows = [r for r in attack_rows(results) if r["type"] == "all"]
    if rows:
        lines += ["", "| attack | entities | success | partial | words perturbed | "
                      "median similarity | queries per entity | limit | result |",
                  "|---|--:|--:|--:|--:|--:|--:|--:|---|"]
        for r in rows:
            result = {"pass": "✅", "fail": "❌", "none": "no threshold"}.get(r["status"], "–")
            wp = "–" if r["words_perturbed_pct"] is None else f"{r['words_perturbed_pct']}%"
            ms = "–" if r["median_similarity"] is None else r["median_similarity"]
            lines.append(f"| {md_text(r['attack'])} | {r['attacked']} | {_pct(r['success_rate'])} "
                         f"| {_pct(r['partial_rate'])} | {wp} | {ms} | "
                         f"{r['queries_per_entity']} | {_pct(r['limit'])} | {result} |")
        for name, text in importance_used(results):
            lines.append(f"\n{md_text(name)} word importance: {md_text(text)}")
    return lines


def junit_cases(results: dict[str, Any], suite: Any, suite_name: str) -> tuple[int, int, int]:
    """One JUnit test case per attack, failed when its success rate exceeds
    ``report.fail_on.max_attack_success_rate``; without that threshold it is skipped (reported,
    not judged: the run's verdict, runner/report/verdict.py). Returns the tests, failures and
    skipped added."""
    import xml.etree.ElementTree as ET

    from runner.report.junit import EXAMPLES_PER_CASE, xml_text

    n_tests = n_fail = n_skip = 0
    fail_on = results["suite"]["filled"]["report"].get("fail_on", {}) or {}
    records = (results.get("attacks") or {}).get("records") or []
    for row in [r for r in attack_rows(results) if r["type"] == "all"]:
        n_tests += 1
        name = row["attack"]
        threshold = fail_on.get("max_attack_success_rate")
        why = "report.fail_on.max_attack_success_rate" if threshold is not None else \
            "no threshold set"
        limit = 1.0 if threshold is None else float(threshold)
        tc = ET.SubElement(suite, "testcase", classname=xml_text(f"{suite_name}.attacks"),
                           name=xml_text(name), time="0.000")
        rate = row["success_rate"]
        if rate is None or threshold is None:
            n_skip += 1
            ET.SubElement(tc, "skipped", message="no entity attacked" if rate is None else
                          xml_text(f"no threshold set (report.fail_on.max_attack_success_rate): "
                                   f"success rate {rate:.1%} reported, not judged"))
        elif rate > limit:
            n_fail += 1
            message = (f"attack {name}: success rate {rate:.1%} ({row['success']} of "
                       f"{row['attacked']} entities) exceeds {limit:.1%} ({why})")
            failure = ET.SubElement(tc, "failure", message=xml_text(message),
                                    type="AdversarialAttackSuccess")
            shown = [r for r in records if r["attack"] == name
                     and r["outcome"] == "success"][:EXAMPLES_PER_CASE]
            failure.text = xml_text(message + "\n\n" + "\n\n".join(
                f"{r['id']}\n  original:    {r['text']}\n  adversarial: {r['adversarial']}\n"
                f"  {r['entity']['text']!r}: {' '.join(r['labels_before'])} → "
                f"{' '.join(r['labels_after'])}" for r in shown) + "\n")
        out = ET.SubElement(tc, "system-out")
        out.text = xml_text(f"attacked {row['attacked']}, success {row['success']}, partial "
                            f"{row['partial']}, queries per entity {row['queries_per_entity']}, "
                            f"limit {'none' if threshold is None else f'{limit:.1%}'} ({why})")
    return n_tests, n_fail, n_skip


# -- the attacks in ``mtrun diff`` --------------------------------------------------------------

def _attack_records(results: dict[str, Any]) -> dict[tuple, dict[str, Any]]:
    """Attack records by (sentence, attack, entity span and type): the same attacked entity in
    both runs."""
    return {(r["text"], r["attack"], r["entity"]["start"], r["entity"]["end"],
             r["entity"]["label"]): r
            for r in (results.get("attacks") or {}).get("records", [])}


def compare_attacks(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Success rates per attack side by side; entities the new run fools and the old did not
    (*new successes*), and the reverse (*resisted*)."""
    from runner.report.diff import _delta

    sa = (old.get("attacks") or {}).get("summary", {})
    sb = (new.get("attacks") or {}).get("summary", {})
    rows = []
    for name in list(sa) + [n for n in sb if n not in sa]:
        a, b = sa.get(name), sb.get(name)
        rows.append({"attack": name,
                     "old": a and {"success": a["success"], "attacked": a["attacked"],
                                   "rate": a["success_rate"]},
                     "new": b and {"success": b["success"], "attacked": b["attacked"],
                                   "rate": b["success_rate"]},
                     "delta": _delta(a and a["success_rate"], b and b["success_rate"])})
    ra, rb = _attack_records(old), _attack_records(new)
    new_succ = [r for k, r in rb.items() if r["outcome"] == "success"
                and (k not in ra or ra[k]["outcome"] != "success")]
    resisted = [r for k, r in ra.items() if r["outcome"] == "success"
                and k in rb and rb[k]["outcome"] != "success"]
    return {"rows": rows, "new_successes": new_succ, "resisted": resisted}


def diff_lines(d: dict[str, Any], *, markdown: bool) -> list[str]:
    """The attacks' table of ``mtrun diff`` (console or Markdown) from ``d["attacks"]``."""
    from runner.report.diff import _pct, _pp
    from runner.report.markdown import md_text

    at = d.get("attacks")
    if not at:
        return []
    tail = (f"{len(at['new_successes'])} entity(ies) fooled only in the new run, "
            f"{len(at['resisted'])} fooled only in the old one")
    if not markdown:
        from tabulate import tabulate

        def acells(x: dict[str, Any] | None) -> list[Any]:
            return ["–", "–"] if x is None else [f"{x['success']}/{x['attacked']}",
                                                 _pct(x["rate"])]

        return ["", tabulate([[r["attack"], *acells(r["old"]), *acells(r["new"]), _pp(r["delta"])]
                              for r in at["rows"]],
                             headers=["attack", "old successes", "old rate", "new successes",
                                      "new rate", "change"], tablefmt="simple"), tail]

    def acell(x: dict[str, Any] | None) -> str:
        return "– | –" if x is None else f"{x['success']}/{x['attacked']} | {_pct(x['rate'])}"

    return ["", "| attack | old successes | old rate | new successes | new rate | change |",
            "|---|--:|--:|--:|--:|--:|",
            *[f"| {md_text(r['attack'])} | {acell(r['old'])} | {acell(r['new'])} | "
              f"{_pp(r['delta'])} |" for r in at["rows"]], "", tail]
