"""MR-R1 with and without the language model's fit (``lm: smollm2``), side by side, and the
violations drawn from both to be read blind.

    python bench/re_r1_lm.py draw OFF_RUN ON_RUN [--n 20] [--seed 13]
        runs of bench/re_r1_off.yaml and bench/re_r1_on.yaml (Re-DocRED dev documents 250-499,
        which nothing was tuned on); writes bench/reads/re_r1.blind.json (the drawn violations
        of both, shuffled together, no run named) and bench/reads/re_r1.key.json (which run
        each came from, and both runs' counts)
    python bench/re_r1_lm.py
        the table, once bench/reads/re_r1.first.json and .second.json hold the two readers'
        marks ({"marks": [{"id", "real": true|false}]}); also what the docs block prints
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
READS = ROOT / "bench" / "reads"
TUNED_MAX_DROP = 3.0   # lm_max_drop's default (runner/tasks/re/catalog.py), chosen on the tune reads
sys.path.insert(0, str(ROOT / "bench"))

from re_draw_violations import replacement_item  # noqa: E402
from two_runs import read_marks, write_draw  # noqa: E402

RULE = ("real = the system's answer is wrong on the source or on the follow-up, and "
        "the follow-up is a fair, natural sentence in which the relation between HEAD "
        "and TAIL is the source's; false = the follow-up changed what the sentence "
        "says of the pair (a replacement that does not fit its slot, a sentence that "
        "no longer reads) or both answers are right")


def _run(run: Path) -> dict:
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    row = next(r for r in results["summary"] if r["transformation"] ==
               "same_type_entity")
    cases = [json.loads(line) for line in (run / "cases.jsonl").open(encoding="utf-8")]
    fails = [c for c in cases if c["verdict"]["outcome"] == "fail"]
    return {"suite": results["suite"]["name"], "sources": row["sources"],
            "follow_ups": row["follow_ups"], "violations": row["violations"],
            "per_100_sources": row["violations_per_100_sources"],
            "seconds": results["run"]["duration_s"],
            "candidates_seconds": results["run"]["stages"].get("candidates: same_type_entity"),
            # the LM's drop in fit of every follow-up and of every violation (None: no LM)
            "drops": [c["follow_up"]["meta"].get("lm_fit_drop") for c in cases],
            "fail_drops": [c["follow_up"]["meta"].get("lm_fit_drop") for c in fails],
            "fails": fails}


def draw(off: Path, on: Path, n: int, seed: int) -> None:
    runs = {"off": _run(off), "on": _run(on)}
    rng = random.Random(seed)
    items, key = [], {}
    for name, r in runs.items():
        for c in rng.sample(r["fails"], min(n, len(r["fails"]))):
            items.append((name, c))
    rng.shuffle(items)
    blind = []
    for k, (name, c) in enumerate(items, 1):
        item_id = f"r1-{k:02d}"
        key[item_id] = {"run": name, "case": c["id"],
                        "lm_fit_drop": c["follow_up"]["meta"].get("lm_fit_drop")}
        blind.append(replacement_item(item_id, c))
    write_draw("re_r1", RULE, blind, runs, key)


def table() -> str:
    key, marks = read_marks("re_r1")
    rows = ["| MR-R1 | follow-ups | violations | per 100 sources | read | real (first / "
            "second) | validity (first / second) | real per 100 sources (first / second) | "
            "agreement |", "|---|--:|--:|--:|--:|--:|--:|--:|--:|"]
    limit = TUNED_MAX_DROP
    for name, what, cap in (("off", "drawn at random among those that fit (no LM)", None),
                            ("on", "ranked by the LM's fit (`lm: smollm2`, `lm_max_drop: null`)",
                             None),
                            ("on", f"ranked by the LM's fit, at most {limit:g} nats below the "
                                   f"original's (`lm_max_drop: {limit:g}`, the default with "
                                   f"`lm`)", limit)):
        r = key["runs"][name]
        kept = (lambda d: d is None or d <= cap) if cap is not None else (lambda d: True)
        n_src = r["sources"]
        follow_ups = sum(1 for d in r["drops"] if kept(d))
        violations = sum(1 for d in r["fail_drops"] if kept(d))
        per_100 = 100 * violations / n_src
        ids = [i for i, k in key["key"].items() if k["run"] == name and kept(k["lm_fit_drop"])]
        real = {rd: sum(marks[rd][i] for i in ids) for rd in marks}
        agree = sum(marks["first"][i] == marks["second"][i] for i in ids)
        val = {rd: real[rd] / len(ids) for rd in real}
        per = {rd: per_100 * val[rd] for rd in val}
        rows.append(f"| {what} | {follow_ups:,} | {violations:,} | "
                    f"{per_100:.1f} | {len(ids)} | {real['first']} / "
                    f"{real['second']} | {100 * val['first']:.0f} % / {100 * val['second']:.0f} % "
                    f"| {per['first']:.1f} / {per['second']:.1f} | {agree}/{len(ids)} |")
    tune = json.loads((READS / "re_r1_tune.first.json").read_text(encoding="utf-8"))["marks"]
    t_real = [m["lm_fit_drop"] for m in tune if m["real"]]
    t_false = [m["lm_fit_drop"] for m in tune if not m["real"]]
    rows.append("")
    rows.append(f"The limit was chosen on the tuning part (`bench/re_r1_on_tune.yaml`, Re-DocRED's "
                f"dev documents 0–249; `bench/reads/re_r1_tune.first.json`): of {len(tune)} "
                f"violations read there, the {len(t_real)} real ones had drops of at most "
                f"{max(t_real):.1f} nats, and {sum(d > limit for d in t_false)} of the "
                f"{len(t_false)} false alarms more than {limit:g}. The third row applies it to "
                f"the second run's follow-ups (with one follow-up per argument, the same as "
                f"running with it: the best-fitting replacement is kept or none).")
    src = key["runs"]["on"]["sources"]
    off, on = key["runs"]["off"], key["runs"]["on"]
    return ("\n".join(rows) + f"\n\nOn {src:,} pairs of Re-DocRED's dev documents 250–499 "
            f"(`bench/re_r1_off.yaml`, `bench/re_r1_on.yaml`); the violations drawn from both "
            f"runs, shuffled together, read by two readers, the second blind "
            f"(`bench/reads/re_r1.*`; drawn with `{key['command']}`). Real per 100 sources: "
            f"violations per 100 sources × the share read real. The runs took {off['seconds']:.0f} s "
            f"and {on['seconds']:.0f} s on two CPU cores, {off['candidates_seconds']:.0f} s and "
            f"{on['candidates_seconds']:.0f} s of them making R1's follow-ups." + _device())


def _device() -> str:
    """The LM's fits on a GPU (bench/re_r1_fit_device.py's record), if one was measured."""
    path = ROOT / "bench" / "results" / "re_r1_fit_h200.json"
    if not path.exists():
        return ""
    rec = json.loads(path.read_text(encoding="utf-8"))
    g = rec["rows"][0]
    return (f" On an {rec['device']} the same fits take a fraction of a second: "
            f"{g['fits']:,} fits ({g['vs_cpu']['pairs']:,} arguments, each with its "
            f"replacement) in {g['seconds']:.2f} s, "
            f"against {rec['cpu']['first_s']:.0f} s on the two CPU cores; bfloat16 on CUDA and on "
            f"the CPU differ by {g['vs_cpu']['mean_abs']:.2f} nats a fit on average and put "
            f"{g['vs_cpu']['limit_side_changes']} of {g['vs_cpu']['pairs']} replacements on the "
            f"other side of the limit (`{rec['command']}`, {rec['date']}, commit "
            f"`{rec['commit']}`).")


def main() -> int:
    from two_runs import main as cli

    return cli(__doc__, draw, table, runs=('off', 'on'), n=20)


if __name__ == "__main__":
    sys.exit(main())
