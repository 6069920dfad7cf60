"""Breaking BERT's metrics (§3.1.1) from attack records, per attack and per entity type.

- ``success_rate``: entities with every word mislabelled / entities attacked;
- ``partial_rate``: entities with at least half, not all, of their words mislabelled;
- ``any_wrong_rate``: at least one word mislabelled (the authors' code's criterion for the
  entity attack);
- ``missed`` / ``type_error``: of the successes, those whose words all read O, and the others;
- ``words_perturbed_pct``: mean, over successful context attacks, of the words replaced as a share
  of the sentence's out-of-mention words;
- ``median_similarity``: median sentence similarity of the successful adversarial sentences;
- ``queries_per_entity``: mean texts asked of the system per attacked entity (cache hits count:
  they measure the attack, the cache statistics measure the cost);
- ``skipped``: entities not attacked (the entity attack with a gazetteer of fine types, when an
  entity's sub-type is unknown); they are not in ``attacked`` nor in any rate.

With a gazetteer of fine types the entity attack's summary also has ``per_pool`` (``fine``: the
entity's own sub-type; ``coarse``: its type) and ``per_subtype`` (with ``unknown``), and
``subtype_from`` counts what told the sub-types (gazetteer, wordnet, clue; null: unknown).
"""
from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any, Iterable


def _block(all_records: list[dict[str, Any]]) -> dict[str, Any]:
    records = [r for r in all_records if r["outcome"] != "skipped"]
    n = len(records)
    succ = [r for r in records if r["outcome"] == "success"]
    part = [r for r in records if r["outcome"] == "partial"]
    anyw = [r for r in records if r.get("wrong", 0) > 0]
    missed = [r for r in succ if all(lab == "O" for lab in r.get("labels_after", []))]
    pct = [r["words_perturbed_pct"] for r in succ if r.get("words_perturbed_pct") is not None]
    sims = [r["similarity"] for r in succ if r.get("similarity") is not None]
    queries = [r["queries"] for r in records]
    rate = (lambda k: k / n if n else None)
    return {
        "attacked": n, "success": len(succ), "partial": len(part), "any_wrong": len(anyw),
        "success_rate": rate(len(succ)), "partial_rate": rate(len(part)),
        "any_wrong_rate": rate(len(anyw)),
        "missed": len(missed), "type_error": len(succ) - len(missed),
        "words_perturbed_pct": round(statistics.fmean(pct), 2) if pct else None,
        "median_similarity": round(statistics.median(sims), 4) if sims else None,
        "queries_per_entity": round(statistics.fmean(queries), 2) if queries else None,
        "median_queries": statistics.median(queries) if queries else None,
        "no_candidate": sum(1 for r in records if r.get("note", "").startswith("no ")),
        "skipped": len(all_records) - n,
    }


def summarise(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    by_attack: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_attack[r["attack"]].append(r)
    out = {}
    for attack, recs in sorted(by_attack.items()):
        by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in recs:
            by_type[r["entity"]["label"]].append(r)
        out[attack] = {**_block(recs),
                       "per_type": {t: _block(v) for t, v in sorted(by_type.items())}}
        if any(r.get("subtype_from") for r in recs):
            out[attack].update(_fine(recs))
    return out


def _fine(recs: list[dict[str, Any]]) -> dict[str, Any]:
    by_pool: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_sub: dict[str, list[dict[str, Any]]] = defaultdict(list)
    told: dict[str, int] = defaultdict(int)
    for r in recs:
        if r.get("pool_level"):
            by_pool[r["pool_level"]].append(r)
        label = r["entity"]["label"]
        by_sub[f"{label}:{r.get('subtype') or 'unknown'}"].append(r)
        told[r.get("subtype_from") or "unknown"] += 1
    return {"per_pool": {k: _block(v) for k, v in sorted(by_pool.items())},
            "per_subtype": {k: _block(v) for k, v in sorted(by_sub.items())},
            "subtype_from": dict(sorted(told.items()))}
