"""The NER relations' ``article: ignore`` (not in the paper; the default) against ``compare``
(the paper's exact strings), on finished runs: which violations ``ignore`` turns into passes,
what two readers say of them, and how often the system is wrong on their sources.

    python bench/ner_relation_article.py drawn PART:STEM:BEFORE_RUN:NOW_RUN ...
        on draws already read (STEM in bench/reads: ``ner_redocred``, ``ner_redocred_b``; BEFORE
        and NOW the runs it was drawn from, ``bench/ner_redocred_reads.py``; PART: ``chosen``
        if the rule was read off it, else ``measured``): per run, violations under each setting
        and the readers' marks of the drawn violations ``ignore`` removes
    python bench/ner_relation_article.py draw RUN ...
        every violation ``ignore`` removes in the runs, into
        bench/reads/ner_article_removed.blind.json (shuffled, seed 13) and .key.json
    python bench/ner_relation_article.py
        the readers' tally of that draw, once .first.json and .second.json hold their marks
    python bench/ner_relation_article.py base-rate RUN ... [--chosen NAME] [--save PATH]
        per run of a gold set: the system wrong by the gold on a random source, on a
        violation's source, and on the source of a violation ``ignore`` removes

Every MR1/MR2 case of a run is checked again with both settings from its recorded predictions
(the recorded verdict must be reproduced under ``compare``).

Where it came from: on ``suites/data/redocred_ner_b.jsonl`` most false alarms of the default
suite were a name written with the article in one sentence and without it in the other. Where it
was not read off (the first draw of ``suites/data/redocred_ner.jsonl`` and the default suite's
runs on fifteen other gold sets) the readers counted about half of the violations it removes
real, each for another name the system got wrong on the source; the gold finds those sources
wrong no more often than sources drawn at random from the same runs (``base-rate``), while the
other violations' sources are wrong far more often: such a violation points at nothing, so
``ignore`` became the default.
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

from ner_redocred_reads import RELATION, RULE, _entities  # noqa: E402
from two_runs import READS, read_marks  # noqa: E402
from runner.tasks.ner.relations import MR1SharedEntities, MR2SamePrediction  # noqa: E402
from runner.tasks.ner.types import Prediction, spans_from_json  # noqa: E402
from runner.text.articles import without_the  # noqa: E402
from runner.types import Edit, FollowUp, Outcome, Replacement  # noqa: E402

RUNS = ("before", "now")


def _relations(article: str) -> dict:
    return {"MR1": MR1SharedEntities(article=article),
            "MR2": MR2SamePrediction(article=article)}


def removed(run: Path) -> tuple[int, dict[str, dict]]:
    """(violations under ``compare``, those that pass under ``ignore``: id → case, in the run's
    order)."""
    strict, lenient = _relations("compare"), _relations("ignore")
    fails, gone = 0, {}
    for line in (run / "cases.jsonl").open(encoding="utf-8"):
        c = json.loads(line)
        if c["relation"] not in strict or c["verdict"]["outcome"] not in ("pass", "fail"):
            continue
        src, fu = c["source"], c["follow_up"]
        edit = Edit(src["text"], tuple(Replacement(r["start"], r["end"], r["new"])
                                       for r in fu["edit"]))
        follow_up = FollowUp(edit.target, edit, c["transformation"], fu["meta"])
        args = dict(source_text=src["text"], follow_up=follow_up,
                    source_prediction=Prediction(spans_from_json(src["entities"])),
                    follow_up_prediction=Prediction(spans_from_json(fu["entities"])),
                    expected=spans_from_json(fu.get("expected", [])))
        was = strict[c["relation"]].check(**args).outcome
        if (was is Outcome.FAIL) != (c["verdict"]["outcome"] == "fail"):
            raise SystemExit(f"{run}: {c['id']}: the recorded verdict is not reproduced")
        if was is Outcome.FAIL:
            fails += 1
            if lenient[c["relation"]].check(**args).outcome is not Outcome.FAIL:
                gone[c["id"]] = c
    return fails, gone


def measure(part: str, stem: str, runs: dict[str, Path]) -> dict:
    key, marks = read_marks(stem)
    out = {"part": part, "stem": stem, "runs": {}}
    for which, path in runs.items():
        fails, gone = removed(path)
        drawn = [i for i, k in key["key"].items() if which in k["runs"]]
        # a drawn item names the case of the first run that has it (before, then now)
        hit = [i for i in drawn if key["key"][i]["case"] in gone]
        out["runs"][which] = {
            "violations": fails, "removed": len(gone), "drawn": len(drawn),
            "drawn_removed": len(hit),
            "real": {r: sum(marks[r][i] for i in drawn) for r in marks},
            "removed_real": {r: sum(marks[r][i] for i in hit) for r in marks},
            "sources": key["runs"][which]["sources"]}
    return out


def _row(part: str, which: str, r: dict) -> str:
    n, m = r["drawn"], r["drawn"] - r["drawn_removed"]
    cells = []
    for reader in ("first", "second"):
        before = r["real"][reader] / n
        after = (r["real"][reader] - r["removed_real"][reader]) / m if m else 0.0
        per100 = lambda v, share: 100 * v * share / r["sources"]  # noqa: E731
        cells.append((before, after, per100(r["violations"], before),
                      per100(r["violations"] - r["removed"], after)))
    f, s = cells
    return (f"| {part} | {which} | {r['violations']} → {r['violations'] - r['removed']} | "
            f"{r['drawn_removed']} of {n} | {r['removed_real']['first']} / "
            f"{r['removed_real']['second']} | {100 * f[0]:.0f} → {100 * f[1]:.0f} % / "
            f"{100 * s[0]:.0f} → {100 * s[1]:.0f} % | {f[2]:.1f} → {f[3]:.1f} / "
            f"{s[2]:.1f} → {s[3]:.1f} |")


def table(record: dict) -> str:
    rows = ["| draw | suite | violations, compare → ignore | drawn violations removed | "
            "of them real (first / second) | validity (first / second) | real per 100 sources "
            "(first / second) |", "|---|---|--:|--:|--:|--:|--:|"]
    for d in record["draws"]:
        for which in RUNS:
            rows.append(_row(f"`{d['stem']}` ({d['part']})", which, d["runs"][which]))
    return "\n".join(rows)


def draw(runs: list[Path], seed: int = 13) -> None:
    """The violations ``ignore`` removes in ``runs``, shuffled, for two readers."""
    import random

    rows = []
    for run in runs:
        for c in removed(run)[1].values():
            src, fu = c["source"], c["follow_up"]
            rows.append(({"transformation": c["transformation"], "source": src["text"],
                          "follow_up": fu["text"],
                          "source_entities": _entities(src["text"], src["entities"]),
                          "follow_up_entities": _entities(fu["text"], fu["entities"]),
                          "expected_follow_up_entities": _entities(fu["text"],
                                                                   fu.get("expected", [])),
                          "relation": RELATION[c["relation"]]}, (run.name, c["id"])))
    random.Random(seed).shuffle(rows)
    items, key = [], {}
    for k, (item, (run, case)) in enumerate(rows, 1):
        items.append({"id": f"ar-{k:03d}", **item})
        key[f"ar-{k:03d}"] = {"set": run, "case": case}
    stem = READS / "ner_article_removed"
    stem.with_suffix(".blind.json").write_text(json.dumps(
        {"rule": RULE, "items": items}, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    stem.with_suffix(".key.json").write_text(json.dumps(
        {"command": "python bench/ner_relation_article.py draw " + " ".join(
            r.name for r in runs), "key": key}, indent=1) + "\n", encoding="utf-8")
    print(f"drew {len(items)} violations into {stem}.blind.json")


def _wrong_by_gold(src: dict) -> bool:
    """The system's answer on a source differs from the gold's: the (name, type) sets differ,
    names compared without a leading "the" (so the article alone never makes a source
    wrong), types as the suite maps them."""
    seen = lambda spans: {(without_the(src["text"][s["start"]:s["end"]]), s["label"])  # noqa: E731
                          for s in spans}
    return seen(src["entities"]) != seen(src["gold"])


def base_rate(runs: list[Path], chosen: tuple[str, ...] = ()) -> dict:
    """Per run of a gold set: how often the system is wrong (by the gold) on a random source,
    on the source of a violation, and on the source of a violation ``ignore`` removes; and how
    many of the removed ones a draw of as many random sources of that run would find wrong.
    ``chosen``: the names of the runs the rule was read off (kept out of the second total)."""
    rows = []
    for run in runs:
        wrong: dict[str, bool] = {}
        fails: list[bool] = []
        for line in (run / "cases.jsonl").open(encoding="utf-8"):
            c = json.loads(line)
            if "gold" not in c["source"]:
                raise SystemExit(f"{run}: a source without gold labels ({c['id']})")
            wrong[c["source_id"]] = _wrong_by_gold(c["source"])
            if c["verdict"]["outcome"] == "fail":
                fails.append(wrong[c["source_id"]])
        gone = [wrong[c["source_id"]] for c in removed(run)[1].values()]
        rate = sum(wrong.values()) / len(wrong)
        rows.append({"run": run.name, "chosen": run.name in chosen,
                     "sources": len(wrong), "sources_wrong": sum(wrong.values()),
                     "violations": len(fails), "violations_wrong": sum(fails),
                     "removed": len(gone), "removed_wrong": sum(gone),
                     "removed_expected_wrong": round(rate * len(gone), 3)})
    from speed import commit, machine

    return {"command": "python bench/ner_relation_article.py base-rate " + " ".join(
        str(r) for r in runs) + "".join(f" --chosen {c}" for c in chosen),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
        "commit": commit(), "rows": rows}


def base_rate_table(record: dict) -> str:
    rows = ["| run | sources | wrong on a source | violations | wrong on a violation's source "
            "| removed by `ignore` | wrong on a removed one's source | as many random sources |",
            "|---|--:|--:|--:|--:|--:|--:|--:|"]
    pct = lambda n, d: f"{100 * n / d:.0f} %" if d else "–"  # noqa: E731

    def row(name: str, rs: list[dict]) -> str:
        t = {k: sum(r[k] for r in rs) for k in rs[0] if k not in ("run", "chosen")}
        return (f"| {name} | {t['sources']} | {pct(t['sources_wrong'], t['sources'])} "
                f"| {t['violations']} | {pct(t['violations_wrong'], t['violations'])} "
                f"| {t['removed']} | {pct(t['removed_wrong'], t['removed'])} "
                f"| {pct(t['removed_expected_wrong'], t['removed'])} |")

    rows += [row(r["run"] + (" (chosen)" if r["chosen"] else ""), [r]) for r in record["rows"]]
    rows.append(row("**all**", record["rows"]))
    if any(r["chosen"] for r in record["rows"]):
        rows.append(row("**all but chosen**", [r for r in record["rows"] if not r["chosen"]]))
    return "\n".join(rows)


def tally() -> str:
    key, marks = read_marks("ner_article_removed")
    ids = list(key["key"])
    r1, r2 = (sum(marks[r][i] for i in ids) for r in ("first", "second"))
    agree = sum(marks["first"][i] == marks["second"][i] for i in ids)
    runs = len({k["set"] for k in key["key"].values()})
    return (f"{len(ids)} violations removed by article: ignore in {runs} runs: real {r1} / {r2} "
            f"(first / second reader), false {len(ids) - r1} / {len(ids) - r2}; agreement "
            f"{agree}/{len(ids)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd")
    d = sub.add_parser("drawn")
    d.add_argument("draws", nargs="+", metavar="PART:STEM:BEFORE_RUN:NOW_RUN")
    r = sub.add_parser("draw")
    r.add_argument("runs", nargs="+", type=Path)
    b = sub.add_parser("base-rate")
    b.add_argument("runs", nargs="+", type=Path)
    b.add_argument("--chosen", action="append", default=[],
                   help="the name of a run the rule was read off (repeat)")
    b.add_argument("--save", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "draw":
        draw(args.runs)
        return 0
    if args.cmd == "base-rate":
        record = base_rate(args.runs, tuple(args.chosen))
        if args.save:
            record["command"] += f" --save {args.save}"
            args.save.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        print(base_rate_table(record))
        return 0
    if args.cmd != "drawn":
        print(tally())
        return 0
    draws = []
    for item in args.draws:
        part, stem, before, now = item.split(":", 3)
        draws.append(measure(part, stem, {"before": Path(before), "now": Path(now)}))
    print(table({"draws": draws}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
