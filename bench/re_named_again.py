"""MR-R1 with and without ``skip_named_again`` on Re-DocRED's dev documents 0-249, where the rule
was not chosen (it was written after reading bench/reads/re_r1.*, documents 250-499), and the
violations it removes read blind beside those it keeps.

    python bench/re_named_again.py draw OFF_RUN ON_RUN [--n 20] [--seed 13]
        runs of bench/re_r1_tune_named_off.yaml (OFF) and bench/re_r1_tune_named.yaml (ON);
        draws N violations of the OFF run whose replaced argument the sentence names again (those
        the rule removes) and N of the ON run, shuffled together, into
        bench/reads/re_named_again.blind.json (no run named) and .key.json (which is which,
        both runs' counts)
    python bench/re_named_again.py
        the table, once bench/reads/re_named_again.first.json and .second.json hold the two
        readers' marks ({"marks": [{"id", "real": true|false}]}); what the docs block prints
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
READS = ROOT / "bench" / "reads"
STEM = "re_named_again"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from re_draw_violations import replacement_item  # noqa: E402
from two_runs import group_rows, read_marks, write_draw  # noqa: E402

RULE = ("real = the system's answer is wrong on the source or on the follow-up, and "
        "the follow-up is a fair, natural sentence in which the relation between HEAD "
        "and TAIL is the source's; false = the follow-up changed what the sentence "
        "says of the pair (a replacement that does not fit its slot or contradicts "
        "another word of the sentence, a sentence that no longer reads) or both answers "
        "are right")


def _named_again(case: dict) -> str:
    """What MR-R1's ``skip_named_again`` finds for the case's replaced argument."""
    from runner.tasks.re.same_type import named_again
    from runner.tasks.re.types import Argument, RESource

    src = case["source"]
    args = {r: Argument(start=src[r]["start"], end=src[r]["end"], type=src[r]["type"])
            for r in ("head", "tail")}
    return named_again(RESource(id="", text=src["text"], **args),
                       case["follow_up"]["meta"]["argument"])


def _run(run: Path) -> dict:
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    row = next(r for r in results["summary"] if r["transformation"] == "same_type_entity")
    cases = [json.loads(line) for line in (run / "cases.jsonl").open(encoding="utf-8")]
    return {"suite": results["suite"]["name"], "sources": row["sources"],
            "follow_ups": row["follow_ups"], "violations": row["violations"],
            "seconds": results["run"]["duration_s"],
            "fails": [c for c in cases if c["verdict"]["outcome"] == "fail"]}


def draw(off: Path, on: Path, n: int, seed: int) -> None:
    runs = {"off": _run(off), "on": _run(on)}
    removed = [c for c in runs["off"]["fails"] if _named_again(c)]
    runs["off"]["named_again_violations"] = len(removed)
    rng = random.Random(seed)
    picked = ([("removed", c) for c in rng.sample(removed, min(n, len(removed)))]
              + [("kept", c) for c in rng.sample(runs["on"]["fails"],
                                                 min(n, len(runs["on"]["fails"])))])
    rng.shuffle(picked)
    blind, key = [], {}
    for k, (group, c) in enumerate(picked, 1):
        item_id = f"na-{k:02d}"
        key[item_id] = {"group": group, "case": c["id"],
                        "named_again": _named_again(c) if group == "removed" else ""}
        blind.append(replacement_item(item_id, c))
    write_draw(STEM, RULE, blind, runs, key)


def table() -> str:
    key, marks = read_marks(STEM)
    off, on = key["runs"]["off"], key["runs"]["on"]
    n_src = on["sources"]
    rows, share = group_rows(key, marks, "MR-R1 violations", (
        ("removed", "the sentence names the replaced argument again (left by "
                    "`skip_named_again`)", off["named_again_violations"]),
        ("kept", "with `skip_named_again` (the default)", on["violations"])))
    # the run without the rule: its named-again violations at the removed group's share, the
    # others at the kept group's (they are of the same kind)
    rest = off["violations"] - off["named_again_violations"]
    est = {rd: (off["named_again_violations"] * share["removed"][rd]
                + rest * share["kept"][rd]) for rd in marks}
    kept = {rd: on["violations"] * share["kept"][rd] for rd in marks}
    return ("\n".join(rows) + f"\n\nOn {n_src:,} pairs of Re-DocRED's dev documents 0–249 "
            f"(`bench/re_r1_tune_named_off.yaml`, `bench/re_r1_tune_named.yaml`: MR-R1 alone), "
            f"where the rule was not chosen at first; one refinement came from reading them "
            f"(a first draw had the four children of one family, 'Beatrice Roche, Lilianne Roche, "
            f"…', counted as names of one person: a person's shared word now counts only beside "
            f"an alias marker, 'also known as', 'or', 'born … as'), so the removed group here is "
            f"drawn again after it, marks of pairs read before carried. The two groups' "
            f"violations drawn at random, shuffled "
            f"together, read by two readers, the second blind (`bench/reads/{STEM}.*`; "
            f"`{key['command']}`). Without the rule: {off['follow_ups']:,} follow-ups, "
            f"{off['violations']} violations, an estimated "
            f"{100 * est['first'] / off['violations']:.0f} % / "
            f"{100 * est['second'] / off['violations']:.0f} % real, "
            f"{100 * est['first'] / n_src:.1f} / {100 * est['second'] / n_src:.1f} real per 100 "
            f"sources; with it: {on['follow_ups']:,} follow-ups, {on['violations']} violations, "
            f"{100 * share['kept']['first']:.0f} % / {100 * share['kept']['second']:.0f} % real, "
            f"{100 * kept['first'] / n_src:.1f} / {100 * kept['second'] / n_src:.1f} real per 100 "
            f"sources (first / second reader).")


def main() -> int:
    from two_runs import main as cli

    return cli(__doc__, draw, table, runs=('off', 'on'), n=20)


if __name__ == "__main__":
    sys.exit(main())
