"""Reading the CRF referee's repairs: the entity occurrences of the measuring sets whose repair
the CRF changed (``crf_referee: stanford`` against the spaCy panel alone, the same violations),
drawn at random and given to readers who see the sentence, the entity and the two labels in a
random order — not which label is whose, nor the gold.

Usage:
  python bench/repair_crf_reads.py draw [--n 40] ROLE:SUITE.yaml:RUN_DIR ...
      writes bench/reads/repair_crf.blind.json (what a reader sees) and .key.json
  python bench/repair_crf_reads.py tally
      reads bench/reads/repair_crf.first.json and .second.json ({"reader", "marks": [{"id",
      "right": "A" | "B" | "neither", "reason"}]}) and prints, per reader, how often the CRF's
      label, the panel's or neither is right, beside the gold's verdict, and the readers'
      agreement.

Only ``measured`` sets are drawn from (the rule was frozen before they were repaired).
``--referee embedded`` (before the subcommand) reads mtrun's own CRF instead, into
``bench/reads/repair_crf_embedded.*``. Four more read a change rather than a referee
(``CHANGES``): ``--referee splits``, the occurrences whose repair the rule on the spaCy
referees' splits changed (``crf_decides_splits: true`` against ``false``, with the embedded CRF;
``bench/repair_crf_splits.py``), into ``bench/reads/repair_crf_splits.*``; ``--referee
retrained``, those the retrained CRF changed against the earlier model
(``bench/repair_crf_retrained.py``), into ``bench/reads/repair_crf_retrained.*``; ``--referee
beyond``, those ``crf_beyond_pair: true`` changed against the default
(``bench/repair_crf_beyond.py``), into ``bench/reads/repair_crf_beyond.*``. In the key,
"crf" is then the change's label and "panel" the earlier one's. ``--referee relabels`` reads
the default repair's own relabels: every occurrence whose label the repair changed, its label
against the system's, into ``bench/reads/repair_crf_relabels.*``. ``--part NAME`` (before the
subcommand too) keeps a second reading of the same change apart, in ``…_NAME.*`` (for a set
built after the first was drawn).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from repair_crf import arms, referee  # noqa: E402
from repair_crf_splits import ARMS as SPLITS  # noqa: E402
import repair_crf_beyond  # noqa: E402
import repair_crf_retrained  # noqa: E402
from repair_eval import replay  # noqa: E402
from speed import commit  # noqa: E402

READS = ROOT / "bench" / "reads"
NULL = "NULL"
#: the referee read (``--referee``) and the files its reads go to
SPEC, PREFIX, PART = "stanford", "repair_crf", ""
#: reads of a change rather than of a referee: --referee NAME → (its two arms, what the tally
#: calls the new label and the earlier one)
CHANGES = {"splits": (lambda: SPLITS, "the rule", "the earlier rule"),
           "retrained": (repair_crf_retrained.arms, "the retrained CRF", "the earlier CRF"),
           "beyond": (lambda: repair_crf_beyond.ARMS, "beyond the pair", "the default"),
           # the default repair's own relabels: its label against the system's
           "relabels": (lambda: {"rule": {}}, "the repair", "the system")}
RULE = ("Each item is one occurrence of a name-like string in a sentence. Say which label is "
        "right for exactly that string in that sentence, as a careful annotator of names would: "
        "PERSON (a person, real or fictional), LOCATION (a place: country, city, region, "
        "river, mountain, building or facility), ORGANIZATION (a company, institution, team, "
        "party, band, agency, ...), or NULL (not a name of these three kinds, or not a whole "
        "name: the string is only part of a longer name, or runs past it). Answer A, B, or "
        "neither (when neither label is right).")


def replayed(suite_path: str, run_dir: str, arms: dict) -> dict[str, list]:
    """Each arm's repaired test cases of RUN_DIR (arm → the ``repair`` settings it changes)."""
    from runner.building import build_sut
    from runner.suite import load_suite
    from runner.tasks.ner.repair.analyzer import ViolationAnalyzer

    suite = load_suite(suite_path)
    cfg = suite.config
    cfg["repair"]["enabled"] = True
    sut = build_sut(suite)
    out: dict[str, list] = {}
    for arm, settings in arms.items():
        cfg["repair"].update(settings)
        replay(suite, Path(run_dir), ViolationAnalyzer.from_config(cfg, sut, lambda *_: None),
               sut, keep=out.setdefault(arm, []))
    return out


def sides(case) -> list[tuple[str, str, object]]:
    """The case's sentences with gold, as (side, text, gold spans): the source's, and the
    follow-up's where the gold could be carried through the edit."""
    from runner.tasks.ner.types import spans_from_json

    gold_f = case.gold.get("follow_up") if case.gold else None
    out = [("source", case.source.text, case.source.gold)]
    if gold_f is not None:
        out.append(("follow_up", case.follow_up.text, spans_from_json(gold_f)))
    return [side for side in out if side[2] is not None]


def gold_at(gold, start: int, end: int) -> str:
    """The gold's type of exactly ``start:end``, NULL for none."""
    from runner.tasks.ner.repair.locate import label_at

    return label_at(gold, start, end) or NULL


def occurrences(suite_path: str, run_dir: str) -> dict:
    """(text, start, end) → the entity, the system's label, each arm's repair, and the gold."""
    out: dict = {}
    chosen = CHANGES[SPEC][0]() if SPEC in CHANGES else arms(SPEC)
    for arm, cases in replayed(suite_path, run_dir, chosen).items():
        for c in cases:
            for side, text, gold in sides(c):
                for e in (c.repair or {}).get(side, {}).get("entities", []):
                    row = out.setdefault((text, e["start"], e["end"]), {
                        "entity": e["text"], "system": e["before"],
                        "gold": gold_at(gold, e["start"], e["end"])})
                    row[arm] = e["after"]
                    if "without" not in chosen:          # one arm: against the system's label
                        row.setdefault("without", row["system"])
    return out


def draw(args) -> None:
    rng = random.Random(15)
    pool = []
    for item in args.sets:
        role, suite_path, run_dir = item.split(":", 2)
        if role != "measured":
            continue
        for (text, a, b), row in occurrences(suite_path, run_dir).items():
            if row.get("rule") != row.get("without"):
                pool.append({"set": Path(suite_path).stem, "text": text, "start": a, "end": b,
                             **row})
    pool.sort(key=lambda r: (r["set"], r["text"], r["start"]))
    picked = rng.sample(pool, min(args.n, len(pool)))
    blind, key = [], []
    for i, r in enumerate(picked, 1):
        crf_first = rng.random() < 0.5
        a, b = (r["rule"], r["without"]) if crf_first else (r["without"], r["rule"])
        iid = f"rc-{i:02d}"
        blind.append({"id": iid, "sentence": r["text"], "entity": r["entity"],
                      "offsets": [r["start"], r["end"]], "A": a, "B": b})
        key.append({"id": iid, "crf": "A" if crf_first else "B", **r})
    READS.mkdir(exist_ok=True)
    words = " ".join(f"measured:{i.split(':', 2)[1]}:RUN" for i in args.sets
                     if i.startswith("measured:"))
    (READS / f"{PREFIX}.blind.json").write_text(json.dumps(
        {"rule": RULE, "items": blind}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    flag = ("" if SPEC == "stanford" else f"--referee {SPEC} ") + (f"--part {PART} " if PART
                                                                   else "")
    (READS / f"{PREFIX}.key.json").write_text(json.dumps(
        {"command": f"python bench/repair_crf_reads.py {flag}draw --n {args.n} {words}",
         "commit": commit(), "pool": len(pool), "key": key}, indent=1, ensure_ascii=False)
        + "\n", encoding="utf-8")
    print(f"{len(pool)} occurrences changed; {len(picked)} drawn")


def tally() -> str:
    key = {k["id"]: k for k in json.loads((READS / f"{PREFIX}.key.json").read_text())["key"]}
    lines, verdicts = [], {}
    name = PREFIX.removeprefix("repair_crf_")
    change = CHANGES.get(name) or CHANGES.get(name.rsplit("_", 1)[0])
    new, old = change[1:] if change else ("CRF", "panel")
    gold = Counter("crf" if k["gold"] == k["rule"] else "panel" if k["gold"] == k["without"]
                   else "neither" for k in key.values())
    lines.append(f"gold: {new} right {gold['crf']}, {old} right {gold['panel']}, "
                 f"neither {gold['neither']} of {len(key)}")
    for who in ("first", "second"):
        path = READS / f"{PREFIX}.{who}.json"
        if not path.exists():
            continue
        marks = {m["id"]: m["right"] for m in json.loads(path.read_text())["marks"]}
        v = {i: ("neither" if m == "neither" else "crf" if m == key[i]["crf"] else "panel")
             for i, m in marks.items()}
        verdicts[who] = v
        c = Counter(v.values())
        agree = sum(1 for i in v if gold_of(key[i]) == v[i])
        lines.append(f"{who} reader: {new} right {c['crf']}, {old} right {c['panel']}, "
                     f"neither {c['neither']} of {len(v)}; agrees with the gold on {agree}")
    if len(verdicts) == 2:
        both = set(verdicts["first"]) & set(verdicts["second"])
        same = sum(verdicts["first"][i] == verdicts["second"][i] for i in both)
        lines.append(f"the readers agree on {same} of {len(both)}")
    return "\n".join(lines)


def gold_of(k: dict) -> str:
    return "crf" if k["gold"] == k["rule"] else "panel" if k["gold"] == k["without"] else "neither"


def main(argv: list[str] | None = None) -> int:
    global SPEC, PREFIX, PART
    argv, SPEC = referee(list(sys.argv[1:] if argv is None else argv))
    if "--part" in argv:
        i = argv.index("--part")
        PART, argv = argv[i + 1], argv[:i] + argv[i + 2:]
    PREFIX = ("repair_crf" if SPEC == "stanford" else f"repair_crf_{SPEC}") + (
        f"_{PART}" if PART else "")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("draw")
    d.add_argument("--n", type=int, default=40)
    d.add_argument("sets", nargs="+", metavar="ROLE:SUITE:RUN_DIR")
    sub.add_parser("tally")
    args = ap.parse_args(argv)
    if args.cmd == "draw":
        draw(args)
    else:
        print(tally())
    return 0


if __name__ == "__main__":
    sys.exit(main())
