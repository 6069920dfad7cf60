"""Two fits of MR-R1, each with and without on Re-DocRED's dev documents 250-499, where neither
was chosen (both were written after reading bench/reads/re_named_again.*, documents 0-249): the
violations on the arguments the rule concerns, from both runs, read blind.

- ``--part family``: ``keep_family_name`` — a person whose surname the sentence gives another
  person too (runner.tasks.re.fit.family_surname); runs of bench/re_r1_family_off.yaml (OFF) and
  bench/re_r1_family.yaml (ON, the defaults); reads bench/reads/re_family_name.*
- ``--part cities``: ``qualified_cities`` — a city the sentence places (", Turkey");
  runs of bench/re_r1_cities_off.yaml (OFF) and bench/re_r1_family.yaml (ON, the defaults);
  reads bench/reads/re_qualified_cities.*

    python bench/re_r1_fits.py draw OFF_RUN ON_RUN [--part family|cities] [--n 20] [--seed 13]
        up to N violations of each run on such arguments, shuffled together, into
        bench/reads/<stem>.blind.json (no run named) and .key.json
    python bench/re_r1_fits.py [--part family|cities]
        the table, once the two readers' marks are there; what the docs block prints
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PARTS = {
    "family": {"stem": "re_family_name", "what": "on a family's members",
               "off": "without `keep_family_name` (the whole name replaced)",
               "on": "with `keep_family_name` (the default: the surname kept)",
               "off_suite": "bench/re_r1_family_off.yaml"},
    "cities": {"stem": "re_qualified_cities", "what": "on a city the sentence places",
               "off": "without `qualified_cities` (any city)",
               "on": "with `qualified_cities` (the default: a city of that place, else none)",
               "off_suite": "bench/re_r1_cities_off.yaml"},
}
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from re_draw_violations import replacement_item  # noqa: E402
from re_named_again import RULE  # noqa: E402
from two_runs import group_rows, read_marks, write_draw  # noqa: E402


def _concerned(case: dict, part: str) -> bool:
    """Whether the rule of ``part`` concerns the case's replaced argument."""
    from runner.tasks.re.fit import family_surname
    from runner.tasks.re.places import qualified
    from runner.tasks.re.types import Argument

    src = case["source"]
    a = src[case["follow_up"]["meta"]["argument"]]
    arg = Argument(start=a["start"], end=a["end"], type=a["type"])
    if part == "family":
        return a["type"] == "PERSON" and bool(family_surname(src["text"], arg))
    return a["type"] == "CITY" and qualified(src["text"], arg)


def _run(run: Path, part: str) -> dict:
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    row = next(r for r in results["summary"] if r["transformation"] == "same_type_entity")
    cases = [json.loads(line) for line in (run / "cases.jsonl").open(encoding="utf-8")]
    family = [c for c in cases if _concerned(c, part)]
    return {"suite": results["suite"]["name"], "sources": row["sources"],
            "follow_ups": row["follow_ups"], "violations": row["violations"],
            "family_follow_ups": len(family),
            "fails": [c for c in family if c["verdict"]["outcome"] == "fail"]}


def draw(off: Path, on: Path, n: int, seed: int, part: str = "family") -> None:
    runs = {"off": _run(off, part), "on": _run(on, part)}
    rng = random.Random(seed)
    picked = []
    for group in ("off", "on"):
        fails = runs[group]["fails"]
        runs[group]["family_violations"] = len(fails)
        picked += [(group, c) for c in rng.sample(fails, min(n, len(fails)))]
    rng.shuffle(picked)
    blind, key = [], {}
    for k, (group, c) in enumerate(picked, 1):
        item_id = f"{part[:2]}-{k:02d}"
        key[item_id] = {"group": group, "case": c["id"]}
        blind.append(replacement_item(item_id, c))
    write_draw(PARTS[part]["stem"], RULE, blind, runs, key)


def table(part: str = "family") -> str:
    p = PARTS[part]
    key, marks = read_marks(p["stem"])
    off, on = key["runs"]["off"], key["runs"]["on"]
    if not key["key"]:
        return (f"On {on['sources']:,} pairs of Re-DocRED's dev documents 250–499 "
                f"(`{p['off_suite']}`, `bench/re_r1_family.yaml`: MR-R1 alone), where the rule "
                f"was not chosen, no violation falls {p['what']} in either run "
                f"({off['family_follow_ups']} such follow-ups without the rule, "
                f"{on['family_follow_ups']} with it; `{key['command']}`): nothing to read. All "
                f"of R1: {off['violations']} violations without the rule, {on['violations']} "
                f"with it.")
    rows, share = group_rows(key, marks, f"MR-R1 violations {p['what']}", (
        ("off", p["off"], off["family_violations"]), ("on", p["on"], on["family_violations"])))
    n_src = on["sources"]
    est = {g: {rd: key["runs"][g]["family_violations"] * share[g][rd] for rd in marks}
           for g in ("off", "on")}
    return ("\n".join(rows) + f"\n\nOn {n_src:,} pairs of Re-DocRED's dev documents 250–499 "
            f"(`{p['off_suite']}`, `bench/re_r1_family.yaml`: MR-R1 alone), where the "
            f"rule was not chosen; `{key['command']}`. Follow-ups {p['what']}: "
            f"{off['family_follow_ups']} without the rule, {on['family_follow_ups']} with it. "
            f"Real violations there per 100 sources: {100 * est['off']['first'] / n_src:.2f} / "
            f"{100 * est['off']['second'] / n_src:.2f} without, "
            f"{100 * est['on']['first'] / n_src:.2f} / {100 * est['on']['second'] / n_src:.2f} "
            f"with (first / second reader). All of R1: {off['violations']} violations without "
            f"the rule, {on['violations']} with it.")


if __name__ == "__main__":
    from two_runs import main as cli

    sys.exit(cli(__doc__, draw, table, runs=("off", "on"), n=20, parts=tuple(PARTS)))
