"""Validity of a finished run's violations against a triage file, without running it again.

Usage: python bench/validity_report.py RUN_DIR TRIAGE_FILE [--unread OUT.jsonl]

Reads RUN_DIR/results.json and RUN_DIR/cases.jsonl, matches the marks as a run with
``--triage`` does (runner/report/triage.py), and prints per transformation the violations, the
confirmed ones, the false alarms, the unmarked ones, validity = confirmed / (confirmed + false
alarms), and the violations per 100 sources; when every transformation with violations has
marks, also the validity of all violations estimated per transformation and weighted by its
violations (for marks that read some transformations whole and sample others). With
``--unread``, writes the violations no mark matches (one a line, with the fields a reader
judges) to read and mark them.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runner.report.triage import Triage, load_triage  # noqa: E402


def main(argv: list[str]) -> None:
    run_dir, triage_file = Path(argv[0]), argv[1]
    unread_out = argv[argv.index("--unread") + 1] if "--unread" in argv else None
    results = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    cases = [json.loads(line) for line in (run_dir / "cases.jsonl").open(encoding="utf-8")]
    triage = Triage(load_triage(triage_file), triage_file)
    out = triage.adjust(results, cases)["triage"]
    sources = results["run"]["sources_done"]   # sources tested, with a follow-up or not
    print(f"{'transformation':20} {'violations':>10} {'confirmed':>9} {'false':>6} "
          f"{'unmarked':>8} {'validity':>8}")
    total = 0
    for t, e in sorted(out["per_transformation"].items()):
        v = "–" if e["validity"] is None else f"{e['validity']:.1%}"
        total += e.get("violations", 0)
        print(f"{t:20} {e.get('violations', 0):10} {e['confirmed']:9} {e['false_alarms']:6} "
              f"{e['unmarked']:8} {v:>8}")
    v = "–" if out["validity"] is None else f"{out['validity']:.1%}"
    print(f"{'all':20} {total:10} {out['confirmed']:9} {out['false_alarms']:6} "
          f"{out['unmarked']:8} {v:>8}")
    per = out["per_transformation"]
    if total and all(e["validity"] is not None for e in per.values() if e.get("violations")):
        # the marks may sample each transformation's violations at another rate (all shuffles,
        # some questions): each transformation's validity weighted by its violations estimates
        # the share of all violations that are real
        est = sum(e["validity"] * e.get("violations", 0) for e in per.values()
                  if e.get("violations")) / total
        print(f"validity of all {total} violations, estimated per transformation and weighted "
              f"by its violations: {est:.1%}")
    print(f"sources {sources}; violations per 100 sources {100 * total / sources:.1f} "
          f"(confirmed {100 * out['confirmed'] / sources:.1f})")
    print(f"marks matching no case of the run: {len(out['stale'])}; matching a case that "
          f"passes: {len(out['resolved'])}")
    if unread_out:
        with open(unread_out, "w", encoding="utf-8") as handle:
            for c in cases:
                if c["verdict"]["outcome"] == "fail" and triage.mark_of(c) is None:
                    handle.write(json.dumps({
                        "id": c["id"], "transformation": c["transformation"],
                        "relation": c["relation"], "source": c["source"]["text"],
                        "follow_up": c["follow_up"]["text"],
                        "differences": c["verdict"].get("differences", [])},
                        ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
