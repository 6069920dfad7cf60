"""The validity tables of docs/pages/validity.md, from the committed triage files.

Each ``bench/validity_*.triage.json`` holds the verdicts of violations read by hand (``confirmed``:
a real error of the system; ``false_alarm``: the follow-up broke the relation, not the system)
and says in ``read_by_hand`` what was read and when. This script counts them per transformation;
validity = confirmed / (confirmed + false alarms). The counts are those of the marks as they were
made: a set read before a later change of the checks keeps the marks of that reading.

    python bench/validity_tables.py            # print the tables
    python bench/validity_tables.py --write    # write them into docs/pages/validity.md

The page's block (``<!-- figures: validity-tables -->``) is one of those bench/docs_figures.py
writes; ``--write`` here runs its ``--write``.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "pages" / "validity.md"


def _pct(confirmed: int, false: int) -> str:
    judged = confirmed + false
    return "–" if not judged else f"{confirmed / judged:.1%}"


def tables() -> str:
    rows = ["| triage file | suite | transformation | read | real | false alarms | validity |",
            "|---|---|---|--:|--:|--:|--:|"]
    notes = []
    for path in sorted((ROOT / "bench").glob("validity_*.triage.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        counts: Counter = Counter()
        for mark in data.get("marks", []):
            counts[(mark.get("transformation") or mark.get("mr") or "?", mark["mark"])] += 1
        names = sorted({t for t, _ in counts})
        total_c = total_f = 0
        for t in names:
            c, f = counts[(t, "confirmed")], counts[(t, "false_alarm")]
            total_c, total_f = total_c + c, total_f + f
            rows.append(f"| `{path.name}` | `{data.get('suite', '')}` | {t} | {c + f} | {c} | {f} "
                        f"| {_pct(c, f)} |")
        rows.append(f"| `{path.name}` | `{data.get('suite', '')}` | **all** | "
                    f"{total_c + total_f} | {total_c} | {total_f} | {_pct(total_c, total_f)} |")
        if data.get("read_by_hand"):
            notes.append(f"- `{path.name}`: " + " ".join(str(data["read_by_hand"]).split()))
    return "\n".join(rows) + "\n\nWhat each file's marks are:\n\n" + "\n".join(notes) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args(argv)
    if args.write:
        sys.path.insert(0, str(ROOT / "bench"))
        import docs_figures
        for path in docs_figures.write():
            print(f"wrote {path}")
    else:
        print(tables())
    return 0


if __name__ == "__main__":
    sys.exit(main())
