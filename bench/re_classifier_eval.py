"""Accuracy and F1 of the embedded relation classifier (mtrun/re-minilm-redocred) on its held-out
data: every sentence-level pair of Re-DocRED's dev documents 0–249
(``bench/data/redocred_heldout.jsonl.gz``, made by ``bench/make_redocred_re.py``; the classifier
is trained on the test documents). Run through the ``hf`` system under test, as a suite runs it.

Usage: python bench/re_classifier_eval.py [--model FOLDER] [--json OUT] [--free-types]

Printed: accuracy over all pairs, micro precision / recall / F1 over the relations (no_relation
left out, as TACRED's scorer does), on the pairs of five relations (per:spouse, per:children,
per:parents, per:employee_of, org:parents; with and without their inverse and related labels
org:subsidiaries and org:top_members/employees) the share for which it finds a relation and the
share for which it finds the right one, and per relation: gold count, predicted, correct, F1.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runner.tasks.re.train import NAME, read_pairs  # noqa: E402
from runner.tasks.re.types import NO_RELATION  # noqa: E402

HELDOUT = ROOT / "bench/data/redocred_heldout.jsonl.gz"
FIVE = ("per:spouse", "per:children", "per:parents", "per:employee_of", "org:parents")
RELATED = FIVE + ("org:subsidiaries", "org:top_members/employees")


def found_right(gold: list[str], pred: list[str], labels: tuple[str, ...]) -> dict:
    """On the pairs whose gold relation is one of ``labels``: how many, the share given a
    relation (any), the share given the right one."""
    rows = [(g, p) for g, p in zip(gold, pred) if g in labels]
    n = len(rows)
    return {"pairs": n, "found": round(sum(p != NO_RELATION for _, p in rows) / n, 4) if n else 0.0,
            "right": round(sum(g == p for g, p in rows) / n, 4) if n else 0.0}


def scores(gold: list[str], pred: list[str]) -> dict:
    correct = sum(g == p for g, p in zip(gold, pred))
    tp = sum(g == p != NO_RELATION for g, p in zip(gold, pred))
    n_pred = sum(p != NO_RELATION for p in pred)
    n_gold = sum(g != NO_RELATION for g in gold)
    prec = tp / n_pred if n_pred else 0.0
    rec = tp / n_gold if n_gold else 0.0
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    per = {}
    for lab in sorted(set(gold) | set(pred)):
        if lab == NO_RELATION:
            continue
        g, p = sum(x == lab for x in gold), sum(x == lab for x in pred)
        c = sum(x == y == lab for x, y in zip(gold, pred))
        per[lab] = {"gold": g, "predicted": p, "correct": c,
                    "f1": round(2 * c / (g + p), 3) if g + p else 0.0}
    return {"pairs": len(gold), "accuracy": round(correct / len(gold), 4),
            "majority": round(sum(g == NO_RELATION for g in gold) / len(gold), 4),
            "precision": round(prec, 4), "recall": round(rec, 4), "f1": round(f1, 4),
            "five": found_right(gold, pred, FIVE), "five_related": found_right(gold, pred, RELATED),
            "per_relation": per}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=NAME)
    ap.add_argument("--data", default=str(HELDOUT))
    ap.add_argument("--json", default=None)
    ap.add_argument("--free-types", action="store_true",
                    help="answer free of the model's argument types (argument_types: false)")
    args = ap.parse_args()
    from runner.tasks.re.sut.hf import HuggingFaceRE

    pairs = read_pairs(args.data)
    sut = HuggingFaceRE(model=args.model, batch_size=64, argument_types=not args.free_types)
    t0 = time.time()
    preds = sut.predict_outcomes([i for i, _ in pairs])
    secs = time.time() - t0
    pred = [p.label if hasattr(p, "label") else "" for p in preds]
    res = scores([lab for _, lab in pairs], pred)
    res["seconds"] = round(secs, 1)
    print(f"{res['pairs']} held-out pairs ({sum(l != NO_RELATION for _, l in pairs)} with a "
          f"relation), {secs:.0f} s")
    print(f"accuracy {res['accuracy']:.1%} (all no_relation: {res['majority']:.1%}); relations: "
          f"precision {res['precision']:.1%}, recall {res['recall']:.1%}, F1 {res['f1']:.1%}")
    for key, what in (("five", "the five relations"),
                      ("five_related", "the five with org:subsidiaries, org:top_members/employees")):
        r = res[key]
        print(f"{what} ({r['pairs']} pairs): a relation found {r['found']:.1%}, the right one "
              f"{r['right']:.1%}")
    print("| relation | gold | predicted | correct | F1 |\n|---|---|---|---|---|")
    for lab, r in sorted(res["per_relation"].items(), key=lambda x: -x[1]["gold"]):
        print(f"| {lab} | {r['gold']} | {r['predicted']} | {r['correct']} | {r['f1']:.2f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
