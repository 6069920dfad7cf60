"""Replays the `parse_check` filter over the judged cases of a finished run made without it, to
see which violations it would have dropped — without running the suite again.

Usage: python bench/parse_check_replay.py RUN_DIR OUT_DIR

Writes OUT_DIR/cases.jsonl (the run's cases the check keeps: what a run with `parse_check` first
would judge, except follow-ups that were over ``max_follow_ups_per_source`` in the first run and
would come in where the check made room — for token_mlm and phrase_np only; so the violations
counted here are a lower bound) and OUT_DIR/violations.jsonl (the violations kept, one a line,
with the fields a reader judges: id, transformation, source, follow_up, differences). Prints
violations per transformation before and after, and per 100 sources.
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runner.tasks.ner.checks.filter import ParseCheckFilter  # noqa: E402
from runner.types import Edit, FollowUp, Replacement  # noqa: E402


def main(run_dir: str, out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cases = [json.loads(line) for line in (Path(run_dir) / "cases.jsonl").open(encoding="utf-8")]
    judged = [c for c in cases if c["verdict"]["outcome"] in ("pass", "fail")]
    pairs = []
    for c in judged:
        edit = Edit(c["source"]["text"], tuple(Replacement(r["start"], r["end"], r["new"])
                                               for r in c["follow_up"]["edit"]))
        pairs.append((c["source"]["text"], FollowUp(edit.target, edit, c["transformation"], {})))
    check = ParseCheckFilter()
    scores = check.scores(pairs)
    before, after, dropped = Counter(), Counter(), Counter()
    kept_ids = set()
    for c, (_, f), score in zip(judged, pairs, scores):
        t = c["transformation"]
        if check.keep(score, t):
            kept_ids.add(c["id"])
            after[(t, c["verdict"]["outcome"])] += 1
        else:
            dropped[(t, c["verdict"]["outcome"])] += 1
            c["follow_up"].setdefault("meta", {})["parse_check"] = f.meta.get("parse_check")
        before[(t, c["verdict"]["outcome"])] += 1
    sources = len({c["source_id"] for c in cases})
    with (out / "cases.jsonl").open("w", encoding="utf-8") as handle:
        for c in cases:
            if c["verdict"]["outcome"] not in ("pass", "fail") or c["id"] in kept_ids:
                handle.write(json.dumps(c, ensure_ascii=False) + "\n")
    with (out / "violations.jsonl").open("w", encoding="utf-8") as handle:
        for c in judged:
            if c["id"] in kept_ids and c["verdict"]["outcome"] == "fail":
                handle.write(json.dumps({
                    "id": c["id"], "transformation": c["transformation"],
                    "source": c["source"]["text"], "follow_up": c["follow_up"]["text"],
                    "differences": c["verdict"].get("differences", []),
                    "gold_error": (c.get("gold") or {}).get("error")}, ensure_ascii=False) + "\n")
    print(f"sources {sources}")
    for t in sorted({t for t, _ in before}):
        b, a = before[(t, "fail")], after[(t, "fail")]
        print(f"{t:20} violations {b:3} → {a:3} (dropped {dropped[(t, 'fail')]}); passes "
              f"{before[(t, 'pass')]} → {after[(t, 'pass')]}")
    b = sum(n for (t, o), n in before.items() if o == "fail")
    a = sum(n for (t, o), n in after.items() if o == "fail")
    print(f"all violations {b} → {a}; per 100 sources {100 * b / sources:.1f} → "
          f"{100 * a / sources:.1f} (fall {1 - a / b:.1%})")


if __name__ == "__main__":
    main(*sys.argv[1:3])
