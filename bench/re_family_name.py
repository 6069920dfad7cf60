"""MR-R1 with and without ``keep_family_name`` on Re-DocRED's dev documents 250-499, where the rule
was not chosen (it was written after reading bench/reads/re_named_again.*, documents 0-249): the
violations on arguments of a family the sentence names, from both runs, read blind.

    python bench/re_family_name.py draw OFF_RUN ON_RUN [--n 20] [--seed 13]
        runs of bench/re_r1_family_off.yaml (OFF) and bench/re_r1_family.yaml (ON); draws up to N
        violations of each run on a person whose surname the sentence gives another person too
        (runner.tasks.re.fit.family_surname), shuffled together, into
        bench/reads/re_family_name.blind.json (no run named) and .key.json
    python bench/re_family_name.py
        the table, once bench/reads/re_family_name.first.json and .second.json hold the two
        readers' marks; what the docs block prints
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STEM = "re_family_name"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from re_draw_violations import replacement_item  # noqa: E402
from re_named_again import RULE  # noqa: E402
from two_runs import group_rows, read_marks, write_draw  # noqa: E402


def _family(case: dict) -> str | None:
    from runner.tasks.re.fit import family_surname
    from runner.tasks.re.types import Argument

    src = case["source"]
    a = src[case["follow_up"]["meta"]["argument"]]
    if a["type"] != "PERSON":
        return None
    return family_surname(src["text"], Argument(start=a["start"], end=a["end"], type=a["type"]))


def _run(run: Path) -> dict:
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    row = next(r for r in results["summary"] if r["transformation"] == "same_type_entity")
    cases = [json.loads(line) for line in (run / "cases.jsonl").open(encoding="utf-8")]
    family = [c for c in cases if _family(c)]
    return {"suite": results["suite"]["name"], "sources": row["sources"],
            "follow_ups": row["follow_ups"], "violations": row["violations"],
            "family_follow_ups": len(family),
            "fails": [c for c in family if c["verdict"]["outcome"] == "fail"]}


def draw(off: Path, on: Path, n: int, seed: int) -> None:
    runs = {"off": _run(off), "on": _run(on)}
    rng = random.Random(seed)
    picked = []
    for group in ("off", "on"):
        fails = runs[group]["fails"]
        runs[group]["family_violations"] = len(fails)
        picked += [(group, c) for c in rng.sample(fails, min(n, len(fails)))]
    rng.shuffle(picked)
    blind, key = [], {}
    for k, (group, c) in enumerate(picked, 1):
        item_id = f"fa-{k:02d}"
        key[item_id] = {"group": group, "case": c["id"]}
        blind.append(replacement_item(item_id, c))
    write_draw(STEM, RULE, blind, runs, key)


def table() -> str:
    key, marks = read_marks(STEM)
    off, on = key["runs"]["off"], key["runs"]["on"]
    rows, share = group_rows(key, marks, "MR-R1 violations on a family's members", (
        ("off", "without `keep_family_name` (the whole name replaced)", off["family_violations"]),
        ("on", "with `keep_family_name` (the default: the surname kept)",
         on["family_violations"])))
    n_src = on["sources"]
    est = {g: {rd: key["runs"][g]["family_violations"] * share[g][rd] for rd in marks}
           for g in ("off", "on")}
    return ("\n".join(rows) + f"\n\nOn {n_src:,} pairs of Re-DocRED's dev documents 250–499 "
            f"(`bench/re_r1_family_off.yaml`, `bench/re_r1_family.yaml`: MR-R1 alone), where the "
            f"rule was not chosen; `{key['command']}`. Follow-ups on a family's members: "
            f"{off['family_follow_ups']} without the rule, {on['family_follow_ups']} with it. "
            f"Real violations there per 100 sources: {100 * est['off']['first'] / n_src:.2f} / "
            f"{100 * est['off']['second'] / n_src:.2f} without, "
            f"{100 * est['on']['first'] / n_src:.2f} / {100 * est['on']['second'] / n_src:.2f} "
            f"with (first / second reader). All of R1: {off['violations']} violations without "
            f"the rule, {on['violations']} with it.")


if __name__ == "__main__":
    from two_runs import main as cli

    sys.exit(cli(__doc__, draw, table, runs=("off", "on"), n=20))
