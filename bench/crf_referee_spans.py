"""How well a CRF referee of the repair panel reads gold names: entity-level F1 over PER, ORG and
LOC, and the share of the gold names it finds with exactly their extent that it types as the
gold does (what the panel's rule reads: the referee's type of exactly the suspicious span).

Usage: python bench/crf_referee_spans.py [--save bench/results/crf_referee_spans.json]
           [--referee embedded --referee stanford ...] GOLD.jsonl ...

A referee ``embedded@COMMIT`` is the model the repository shipped at that commit.

GOLD: suites/data NER sets. The embedded model's features were chosen on tuning sets
(``wikigold_b``, ``crossner_politics``, ``pud_measure``) by these figures, before any repair was
replayed with it.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from speed import commit, machine  # noqa: E402

TYPES = {"PER": "PERSON", "LOC": "LOCATION", "ORG": "ORGANIZATION"}


def measure(rows: list[dict], found: list[list[tuple[int, int, str]]]) -> dict:
    tp = fp = fn = same = other = 0
    for row, spans in zip(rows, found):
        gold = {(e["start"], e["end"]): TYPES[e["label"]] for e in row["entities"]
                if e["label"] in TYPES}
        got = {(a, b): t for a, b, t in spans}
        for where, typ in gold.items():
            if where in got:
                same += got[where] == typ
                other += got[where] != typ
        g, p = set(gold.items()), set(got.items())
        tp, fp, fn = tp + len(g & p), fp + len(p - g), fn + len(g - p)
    prec, rec = tp / max(1, tp + fp), tp / max(1, tp + fn)
    return {"gold": tp + fn, "f1": round(2 * prec * rec / max(1e-9, prec + rec), 4),
            "precision": round(prec, 4), "recall": round(rec, 4), "exact_spans": same + other,
            "typed_as_gold": same}


RECORD = ROOT / "bench" / "results" / "crf_referee_spans.json"


def table(record: dict | None = None) -> str:
    """The record's table (by default the saved one's, with how it was measured)."""
    saved = record is None
    record = record or json.loads(RECORD.read_text(encoding="utf-8"))
    out = ["| gold set | referee | F1 | names found with their extent | of those, typed as the "
           "gold |", "|---|---|--:|--:|--:|"]
    for r in record["rows"]:
        out.append(f"| `{r['set']}` | {r['referee']} | {100 * r['f1']:.1f} | "
                   f"{r['exact_spans']} / {r['gold']} | "
                   f"{100 * r['typed_as_gold'] / max(1, r['exact_spans']):.1f} % |")
    if saved:
        out.append(f"\nMeasured with `{record['command']}` on {record['date']}, at commit "
                   f"`{record['commit']}`.")
    return "\n".join(out)


def served(spec: str) -> str:
    """``embedded@COMMIT``: the model the repository shipped at that commit (taken from git);
    any other spec as it is."""
    if spec.startswith("embedded@"):
        from repair_crf_retrained import earlier

        return f"embedded:{earlier(spec.partition('@')[2])}"
    return spec


def main(argv: list[str] | None = None) -> int:
    from runner.tasks.ner.repair.crf_referee import crf_referee

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="+", type=Path)
    ap.add_argument("--referee", action="append", default=None)
    ap.add_argument("--save", default=None)
    args = ap.parse_args(argv)
    specs = args.referee or ["embedded", "stanford"]
    record = {"command": "python bench/crf_referee_spans.py "
                         + (f"--save {args.save} " if args.save else "")
                         + " ".join(f"--referee {s}" for s in specs) + " "
                         + " ".join(str(p) for p in args.sets),
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "machine": machine(), "commit": commit(), "rows": []}
    for path in args.sets:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                if line.strip()]
        for spec in specs:
            found = crf_referee(served(spec)).read([r["text"] for r in rows])
            record["rows"].append({"set": path.stem, "referee": spec,
                                   **measure(rows, found)})
    print(table(record))
    if args.save:
        Path(args.save).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
