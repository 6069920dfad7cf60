"""The repair's rule on the article (``repair.add_with_article: false``, the default): a relabel
does not add a name whose span begins with "the" where the system predicted no entity of exactly
that span. Measured against gold on finished runs: each run's violations repaired twice, with the
rule (``add_with_article: false``) and without it (``add_with_article: true``), as the engine
repairs them (``bench/repair_eval.py``).

Usage: python bench/repair_article.py [--save bench/results/repair_article.json [--keep]]
           ROLE:SUITE.yaml:RUN_DIR ...

ROLE names how the set was used: ``chosen`` (the rule was read off its repairs) or ``measured``
(built after the rule was chosen). Prints per set and pooled over each role: TT/TF/FT/FF,
ErrorReduce and Cor2Err with the rule and without it, and how many relabels the rule held
back. ``--save`` writes the record the documentation's ``repair-article`` block is made of;
with ``--keep`` the sets that record already holds stay as they were measured (their runs need
not be at hand) and the sets named are added to them (a set measured again replaces its row).

The rule was read off the default suite's repairs on ten gold sets (CrossNER music, AI, science,
politics, literature; PUD measure; re3d; Wikigold b; EWT measure; Re-DocRED test sentences),
then frozen; ``suites/data/redocred_ner_b.jsonl`` (Re-DocRED dev sentences,
``bench/ner_spacy_redocred_b.yaml``) was built after, to measure it, and later still the
Re-DocRED test sentences of parts c, d and e (``bench/ner_spacy_redocred_c.yaml``, ``_d.yaml``,
``_e.yaml``; part e added with ``--keep``).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from repair_eval import replay  # noqa: E402
from speed import commit, machine  # noqa: E402
from runner.suite import load_suite  # noqa: E402
from runner.building import build_sut  # noqa: E402
from runner.tasks.ner.repair.analyzer import ViolationAnalyzer  # noqa: E402

KEYS = ("TT", "TF", "FT", "FF")


def rates(t: dict) -> dict:
    err, cor = t["FT"] + t["FF"], t["TT"] + t["TF"]
    return {"ErrorReduce": (t["FT"] - t["TF"]) / err if err else None,
            "Cor2Err": t["TF"] / cor if cor else None}


#: the two repairs of each run: the rule's settings and the settings without it
ARMS = {"rule": {"add_with_article": False}, "without": {"add_with_article": True}}
HEADER = ("| set | role | TT / TF / FT / FF with the rule | ErrorReduce without → with | "
          "Cor2Err without → with |")


def repair_twice(suite_path: str, run_dir: str, arms: dict = ARMS) -> dict:
    suite = load_suite(suite_path)
    cfg = suite.config
    cfg["repair"]["enabled"] = True
    sut = build_sut(suite)
    out = {}
    for name, settings in arms.items():
        cfg["repair"].update(settings)
        analyzer = ViolationAnalyzer.from_config(cfg, sut, lambda *_: None)
        g = replay(suite, Path(run_dir), analyzer, sut)["gold"]
        out[name] = {k: g[k] for k in KEYS}
    return out


def pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f} %"


def line(name: str, role: str, r: dict) -> str:
    a, b = r["rule"], r["without"]
    ra, rb = rates(a), rates(b)
    return (f"| {name} | {role} | {a['TT']} / {a['TF']} / {a['FT']} / {a['FF']} | "
            f"{pct(rb['ErrorReduce'])} → {pct(ra['ErrorReduce'])} | "
            f"{pct(rb['Cor2Err'])} → {pct(ra['Cor2Err'])} |")


def table(record: dict, header: str = HEADER) -> str:
    rows = [header, "|---|---|--:|--:|--:|"]
    for s in record["sets"]:
        rows.append(line(f"`{Path(s['run_suite']).stem}`", s["role"], s))
    for role, pooled in record["pooled"].items():
        rows.append(line(f"pooled, {role}", role, pooled))
    return "\n".join(rows)


def kept_groups(earlier: dict, left: set) -> list[dict]:
    """The sets of an earlier record that stay (``left``), each group with the date, commit and
    machine of the run that measured it: the groups that record kept (one dict in older
    records), then the sets it measured itself."""
    groups = earlier.get("kept") or []
    groups = [groups] if isinstance(groups, dict) else list(groups)
    held = {x for g in groups for x in g["sets"]}
    groups.append({"sets": [s["run_suite"] for s in earlier["sets"]
                            if s["run_suite"] not in held],
                   "date": earlier["date"], "commit": earlier["commit"],
                   "machine": earlier["machine"]})
    groups = [{**g, "sets": [x for x in g["sets"] if x in left]} for g in groups]
    return [g for g in groups if g["sets"]]


def main(argv: list[str] | None = None, doc: str = __doc__, script: str = "repair_article.py",
         arms: dict = ARMS, header: str = HEADER) -> int:
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("sets", nargs="+", metavar="ROLE:SUITE:RUN_DIR")
    ap.add_argument("--save", default=None)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args(argv)
    if args.keep and not args.save:
        ap.error("--keep adds to the record --save names")
    started = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
               "commit": commit()}
    sets, kept = [], {}
    if args.keep:
        earlier = json.loads(Path(args.save).read_text(encoding="utf-8"))
        named = {item.split(":", 2)[1] for item in args.sets}
        sets = [s for s in earlier["sets"] if s["run_suite"] not in named]
        kept = {"kept": kept_groups(earlier, {s["run_suite"] for s in sets})}
    for item in args.sets:
        role, suite_path, run_dir = item.split(":", 2)
        if role not in ("chosen", "measured"):
            ap.error(f"{item}: ROLE must be chosen or measured")
        r = repair_twice(suite_path, run_dir, arms)
        sets.append({"role": role, "run_suite": suite_path, **r})
        print(line(Path(suite_path).stem, role, r), flush=True)
    pooled: dict[str, dict[str, Counter]] = {}
    for s in sets:
        for name in ("rule", "without"):
            pooled.setdefault(s["role"], {"rule": Counter(), "without": Counter()})[
                name].update(s[name])
    words = (["--save", args.save] if args.save else []) + [
        f"{s['role']}:{s['run_suite']}:RUN" for s in sets]
    record = {"command": f"python bench/{script} " + " ".join(words),
        **started, **kept, "sets": sets,
        "pooled": {role: {k: dict(v) for k, v in p.items()} for role, p in pooled.items()}}
    print(table(record, header))
    if args.save:
        Path(args.save).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
