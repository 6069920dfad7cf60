"""What the xrenner mends change (runner/tasks/coref/xrenner_state.py), on every coreference
corpus the project ships: xrenner as shipped and mended each read every passage twice in one
process, in file order and then in a shuffled order (``random.Random(1)``).

Usage: python bench/xrenner_mends.py [--save bench/results/xrenner_mends.json]
Prints, per corpus: passages; xrenner's crashes, as shipped and mended; passages whose answer
changed with the order of reading; passages answered alike by both where the shipped one did not
crash (its first, file-order reading).
"""
from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
RECORD = ROOT / "bench" / "results" / "xrenner_mends.json"
CORPORA = ("coref_news", "coref_gum", "coref_gum_b", "coref_gum_c", "coref_gum_d", "coref_gum_e",
           "coref_gap", "coref_gap_b", "coref_gap_c")


def _read(xr, docs, order) -> dict[int, object]:
    out = {}
    for i in order:
        try:
            out[i] = xr.analyze(docs[i])
        except Exception as exc:  # noqa: BLE001 — xrenner's own crash is what is counted
            out[i] = f"{type(exc).__name__}: {exc}"
    return out


def measure(mends: bool) -> dict[str, dict]:
    from runner.tasks.coref.systems import XrennerCoref

    xr = XrennerCoref(mends=mends)
    out = {}
    for name in CORPORA:
        texts = [json.loads(line)["text"]
                 for line in (ROOT / "suites" / "data" / f"{name}.jsonl").open(encoding="utf-8")]
        docs = xr._parse(texts)
        order = list(range(len(docs)))
        first = _read(xr, docs, order)
        random.Random(1).shuffle(order)
        second = _read(xr, docs, order)
        out[name] = {"answers": [first[i] for i in range(len(docs))],
                     "order_dependent": sum(first[i] != second[i] for i in first)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--save", type=Path)
    args = ap.parse_args(argv)
    from speed import commit, machine

    host = machine()                       # the load average before the run
    started = time.time()
    # the mends are process-wide: each reading in a process of its own
    runs = {}
    for mends in (False, True):
        code = (f"import json, sys; sys.path.insert(0, {str(ROOT / 'bench')!r}); "
                f"import xrenner_mends as m; print(json.dumps(m.measure({mends})))")
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                              text=True, check=True)
        runs[mends] = json.loads(done.stdout.strip().splitlines()[-1])
    rows = []
    for name in CORPORA:
        shipped, mended = runs[False][name], runs[True][name]
        crashed = [isinstance(a, str) for a in shipped["answers"]]
        rows.append({
            "corpus": name, "passages": len(crashed),
            "crashes_shipped": sum(crashed),
            "crashes_mended": sum(isinstance(a, str) for a in mended["answers"]),
            "order_dependent_shipped": shipped["order_dependent"],
            "order_dependent_mended": mended["order_dependent"],
            "same_where_shipped_answered": sum(
                a == b for a, b, c in zip(shipped["answers"], mended["answers"], crashed) if not c),
            "answered_by_shipped": crashed.count(False)})
        print(" ".join(f"{k}={v}" for k, v in rows[-1].items()))
    if args.save:
        record = {"command": "python bench/xrenner_mends.py --save " + str(args.save),
                  "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                  "machine": host, "commit": commit(), "seconds": round(time.time() - started),
                  "rows": rows}
        args.save.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return 0


def table() -> str:
    """The docs block: the record as a table."""
    rec = json.loads(RECORD.read_text(encoding="utf-8"))
    from docs_figures import _measured

    lines = ["| corpus | passages | xrenner crashed: shipped → mended | answer changed with the "
             "order of reading: shipped → mended | same answer where the shipped one answered |",
             "|---|--:|--:|--:|--:|"]
    for r in rec["rows"]:
        lines.append(f"| `{r['corpus']}` | {r['passages']} | {r['crashes_shipped']} → "
                     f"{r['crashes_mended']} | {r['order_dependent_shipped']} → "
                     f"{r['order_dependent_mended']} | {r['same_where_shipped_answered']} of "
                     f"{r['answered_by_shipped']} |")
    total = {k: sum(r[k] for r in rec["rows"]) for k in rec["rows"][0] if k != "corpus"}
    lines.append(f"| all | {total['passages']} | {total['crashes_shipped']} → "
                 f"{total['crashes_mended']} | {total['order_dependent_shipped']} → "
                 f"{total['order_dependent_mended']} | {total['same_where_shipped_answered']} of "
                 f"{total['answered_by_shipped']} |")
    return ("\n".join(lines) + f"\n\nEach passage read twice in one process, in file order and "
            f"shuffled; a crash that is not xrenner's `max()` (a `ZeroDivisionError` in its "
            f"cardinality rules) stays. {rec['seconds']} s in all. " + _measured(rec))


if __name__ == "__main__":
    raise SystemExit(main())
