"""CREST's defaults on GAP's three parts and GUM's part e again, xrenner mended (``runner/tasks/coref/
xrenner_state.py``; the recorded runs had it as shipped), beside the recorded runs' reads.

A violation the recorded run had too (the same source and follow-up) keeps the marks read then;
the others are drawn into ``bench/reads/coref_mended.blind.json`` and read by two readers, the
second blind. A recorded violation the mended run lacks is listed with what that follow-up's case
is now (``pass``: the same follow-up, now given the source's clusters).

    python bench/coref_mended_reads.py draw GAP_RUN GAP_B_RUN GAP_C_RUN GUM_E_RUN [--seed 13]
        runs of bench/coref_xrenner_gap.yaml, _gap_b.yaml, _gap_c.yaml and _gum_e.yaml
        (``-o RUN``)
    python bench/coref_mended_reads.py
        the table, once bench/reads/coref_mended.first.json and .second.json hold the marks
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
READS = ROOT / "bench" / "reads"
sys.path.insert(0, str(ROOT / "bench"))

from coref_gum_b_reads import RULE, _run, blind_item  # noqa: E402
from two_runs import read_marks  # noqa: E402

STEM = "coref_mended"
# part: (the recorded reads' stem, the tag of the defaults' run there, the suite)
PARTS = {"gap": ("coref_gap", "now", "bench/coref_xrenner_gap.yaml"),
         "gap_b": ("coref_gap_b", "before", "bench/coref_xrenner_gap_b.yaml"),
         "gap_c": ("coref_gap_c", "before", "bench/coref_xrenner_gap_c.yaml"),
         "gum_e": ("coref_gum_e", "now", "bench/coref_xrenner_gum_e.yaml")}


def _recorded(part: str) -> tuple[dict, dict[tuple[str, str], str], dict[str, dict[str, bool]]]:
    """A part's recorded reads: its key, its items by (source, follow-up), both readers' marks."""
    stem = PARTS[part][0]
    key, marks = read_marks(stem)
    blind = json.loads((READS / f"{stem}.blind.json").read_text(encoding="utf-8"))
    return key, {(it["source"], it["follow_up"]): it["id"] for it in blind["items"]}, marks


def draw(runs: dict[str, Path], seed: int) -> None:
    counts, carried, gone, fresh = {}, {}, {}, []
    for part, run_dir in runs.items():
        run = _run(run_dir)
        key, items, _ = _recorded(part)
        tag = PARTS[part][1]
        cases = {(c["source"]["text"], c["follow_up"]["text"]): c
                 for c in map(json.loads, (run_dir / "cases.jsonl").open(encoding="utf-8"))}
        fails = {(c["source"]["text"], c["follow_up"]["text"]): c for c in run["fails"]}
        carried[part] = sorted(items[k] for k in fails if k in items)
        gone[part] = {i: cases[k]["verdict"]["outcome"] if k in cases else "not made"
                      for k, i in items.items() if tag in key["key"][i]["runs"] and k not in fails}
        fresh += [(part, c) for k, c in fails.items() if k not in items]
        counts[part] = {m: v for m, v in run.items() if m != "fails"}
    random.Random(seed).shuffle(fresh)
    blind, key = [], {}
    for n, (part, c) in enumerate(fresh, 1):
        item, key[f"m-{n:02d}"] = blind_item(c, f"m-{n:02d}")
        key[item["id"]]["part"] = part
        blind.append(item)
    (READS / f"{STEM}.blind.json").write_text(json.dumps(
        {"rule": RULE, "items": blind}, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    (READS / f"{STEM}.key.json").write_text(json.dumps(
        {"command": "python bench/coref_mended_reads.py draw " + " ".join(sys.argv[2:]),
         "runs": counts, "key": key, "carried": carried, "gone": gone}, indent=1) + "\n",
        encoding="utf-8")
    print(json.dumps(counts, indent=1))
    print(f"carried {sum(map(len, carried.values()))}, gone {sum(map(len, gone.values()))}, "
          f"drew {len(blind)} into {READS / f'{STEM}.blind.json'}")


def _row(what: str, follow_ups: int, n: int, r1: int, r2: int, n_src: int) -> str:
    return (f"| {what} | {follow_ups:,} | {n} | {100 * n / n_src:.1f} | {r1} / {r2} | "
            f"{100 * r1 / n:.0f} % / {100 * r2 / n:.0f} % | {100 * r1 / n_src:.1f} / "
            f"{100 * r2 / n_src:.1f} |")


def part_figures(part: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A part's CREST defaults as shipped (recorded) and mended: follow-ups, violations, real to
    the first and the second reader, passages."""
    mk, new = read_marks(STEM)
    key, _, marks = _recorded(part)
    tag = PARTS[part][1]
    old = [i for i, k in key["key"].items() if tag in k["runs"]]
    r_old = key["runs"][tag]
    shipped = (r_old["follow_ups"], len(old), sum(marks["first"][i] for i in old),
               sum(marks["second"][i] for i in old), r_old["sources"])
    ids = [i for i, k in mk["key"].items() if k["part"] == part]
    kept = mk["carried"][part]
    r_new = mk["runs"][part]
    mended = (r_new["follow_ups"], len(kept) + len(ids),
              sum(marks["first"][i] for i in kept) + sum(new["first"][i] for i in ids),
              sum(marks["second"][i] for i in kept) + sum(new["second"][i] for i in ids),
              r_new["sources"])
    assert mended[1] == r_new["violations"], (part, mended, r_new["violations"])
    return shipped, mended


def table() -> str:
    mk, new = read_marks(STEM)
    rows = ["| part, xrenner | follow-ups | violations | per 100 passages | real (first / "
            "second) | validity (first / second) | real per 100 passages (first / second) |",
            "|---|--:|--:|--:|--:|--:|--:|"]
    totals = {"shipped": [0] * 5, "mended": [0] * 5}
    gone_all, gone_real, errors_recorded = [], [0, 0], 0
    for part in PARTS:
        key, _, marks = _recorded(part)
        errors_recorded += key["runs"][PARTS[part][1]]["errors"]
        shipped, mended = part_figures(part)
        rows.append(_row(f"`{PARTS[part][0]}`, as shipped (recorded)", *shipped))
        rows.append(_row(f"`{PARTS[part][0]}`, mended", *mended))
        for name, vals in (("shipped", shipped), ("mended", mended)):
            totals[name] = [a + b for a, b in zip(totals[name], vals)]
        gone = mk["gone"][part]
        gone_all += list(gone.values())
        gone_real = [gone_real[0] + sum(marks["first"][i] for i in gone),
                     gone_real[1] + sum(marks["second"][i] for i in gone)]
    rows.append(_row("all four, as shipped", *totals["shipped"]))
    rows.append(_row("all four, mended", *totals["mended"]))
    fresh = len(mk["key"])
    agree = sum(new["first"][i] == new["second"][i] for i in mk["key"])
    return ("\n".join(rows) + f"\n\nThe same suites (`{'`, `'.join(p[2] for p in PARTS.values())}`)"
            f" re-run with the mends; a violation both runs have keeps the marks read then "
            f"({sum(map(len, mk['carried'].values()))}), the {fresh} others were read by two "
            f"readers, the second blind and given only the passages, the clusters and the rule "
            f"(`bench/reads/{STEM}.*`; agreement {agree}/{fresh}). {len(gone_all)} violations of "
            f"the recorded runs are not violations of the mended ones: "
            f"{gone_all.count('pass')} of them the same follow-up, now given its source's "
            f"clusters, {len(gone_all) - gone_all.count('pass')} not made or not judged; the "
            f"readers had marked {gone_real[0]} / {gone_real[1]} of them real. The mended system "
            f"could not answer {sum(r['errors'] for r in mk['runs'].values())} cases (recorded: "
            f"{errors_recorded}).")


def main() -> int:
    from two_runs import main as cli

    return cli(__doc__, lambda *runs, seed: draw(dict(zip(PARTS, runs)), seed), table,
               runs=tuple(PARTS))


if __name__ == "__main__":
    sys.exit(main())
