"""The per-MR table of an RE run: groups the MR applied to (judged), inert passes (no_relation on
both sides), violations, and — from a triage file of read violations — how many were read and
how many are real errors of the system.

Usage: python bench/re_mr_table.py RUN_DIR/results.json [TRIAGE.json]

Prints a Markdown table (docs/pages/re.md quotes it). A triage mark is matched to a
violation by its ``id``.
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

MRS = ("MR-R1", "MR-R2", "MR-R3", "MR-R4", "MR-S1", "MR-S2", "MR-C1", "MR-C2")


def table(results: dict, marks: list[dict]) -> str:
    mr_of = {c["id"]: c["follow_up"]["meta"].get("mr") for c in results["cases"]}
    fails = {c["id"] for c in results["cases"] if c["verdict"]["outcome"] == "fail"}
    read, real = Counter(), Counter()
    for m in marks:
        if m["id"] not in fails:
            raise SystemExit(f"triage mark {m['id']} is not a violation of this run")
        read[mr_of[m["id"]]] += 1
        real[mr_of[m["id"]]] += m["mark"] == "confirmed"
    passes = results.get("re_passes") or {}
    rows = ["| MR | applied (groups) | inert passes | violations | rate | rate without inert "
            "| read | real |", "|---|---|---|---|---|---|---|---|"]
    tot = Counter()
    for mr in MRS:
        p = passes.get(mr, {})
        judged, fail, inert = p.get("judged", 0), p.get("fail", 0), p.get("inert", 0)
        tot.update(judged=judged, fail=fail, inert=inert, read=read[mr], real=real[mr])
        rate = f"{fail / judged:.1%}" if judged else "–"
        active = f"{fail / (judged - inert):.1%}" if judged - inert else "–"
        rows.append(f"| {mr} | {judged} | {inert} | {fail} | {rate} | {active} | {read[mr]} | "
                    f"{real[mr]} |")
    j, f, i = tot["judged"], tot["fail"], tot["inert"]
    rows.append(f"| all | {j} | {i} | {f} | {f / j:.1%} | {f / (j - i):.1%} | {tot['read']} | "
                f"{tot['real']}" + (f" ({tot['real'] / tot['read']:.0%})" if tot["read"] else "")
                + " |")
    return "\n".join(rows)


def main() -> int:
    results = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    marks = []
    if len(sys.argv) > 2:
        marks = json.loads(Path(sys.argv[2]).read_text(encoding="utf-8"))["marks"]
    print(table(results, marks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
