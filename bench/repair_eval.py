"""Repair (TIN §3.5) measured against gold labels on the violations of a finished run, without
running the transformations and filters again.

Usage: python bench/repair_eval.py SUITE.yaml RUN_DIR [repair.KEY=VALUE ...]

Reads RUN_DIR/cases.jsonl (a run of SUITE on a gold-labelled corpus), rebuilds its violations,
and repairs them as the engine does — the corpus read batch by batch (``limits.batch_size``),
the candidate pool growing as sources are read — with the suite's ``repair`` section, changed by
the KEY=VALUE overrides (e.g. ``repair.candidates=corpus repair.PThreshold=1.0``). Prints
TT/TF/FT/FF, Err2Cor, Cor2Err and ErrorReduce (TIN Table 6), and per suspicious entity what
changed when ``-v`` is given.
"""
from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runner.building import build_sut  # noqa: E402
from runner.engine import Engine  # noqa: E402
from runner.tasks.ner.repair.analyzer import ViolationAnalyzer  # noqa: E402
from runner.suite import load_suite  # noqa: E402
from runner.tasks.ner.types import Prediction, spans_from_json  # noqa: E402
from runner.types import Edit, FollowUp, Outcome, Replacement, TestCase, Verdict  # noqa: E402


def _value(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return text


def main(argv: list[str]) -> None:
    verbose = "-v" in argv
    argv = [a for a in argv if a != "-v"]
    suite = load_suite(argv[0])
    run_dir = Path(argv[1])
    cfg = suite.config
    for item in argv[2:]:
        key, _, value = item.partition("=")
        section, _, name = key.partition(".")
        cfg[section][name] = _value(value)
    cfg["repair"]["enabled"] = True
    sut = build_sut(suite)
    analyzer = ViolationAnalyzer.from_config(cfg, sut, print)
    rep = replay(suite, run_dir, analyzer, sut, verbose)
    g = rep["gold"]
    print(json.dumps({k: rep[k] for k in ("backend", "repairs", "suspicious_entities",
                                          "entities_relabelled", "mutants_queried")}))
    if rep.get("basis"):
        print("decided by: " + ", ".join(f"{k} {n}" for k, n in sorted(rep["basis"].items())))
    print(f"violations {g['violations']}, precision of testing {g['precision']}")
    print(f"TT {g['TT']} TF {g['TF']} FT {g['FT']} FF {g['FF']} | Err2Cor {g['Err2Cor']} "
          f"Cor2Err {g['Cor2Err']} ErrorReduce {g['ErrorReduce']}")


def replay(suite, run_dir: Path, analyzer: ViolationAnalyzer, sut, verbose: bool = False,
           keep: list | None = None) -> dict:
    """Repair the violations of RUN_DIR with ``analyzer`` (fresh totals); returns its results'
    ``repair`` section, with ``basis``: how many relabels each kind of evidence decided. The
    repaired test cases are appended to ``keep`` when given."""
    from runner.tasks.ner.repair.analyzer import Stats

    analyzer.done, analyzer.pending = Stats(), Stats()
    cfg = suite.config
    decided_by: dict[str, int] = defaultdict(int)
    engine = Engine(suite, run_dir / "_unused")
    sources = list(engine.corpus())
    by_source: dict[str, list[dict]] = defaultdict(list)
    with (run_dir / "cases.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            case = json.loads(line)
            if case["verdict"]["outcome"] == "fail":
                by_source[case["source_id"]].append(case)
    n = cfg["limits"]["batch_size"] or 32      # null: the engine sizes batches itself
    for k in range(0, len(sources), n):
        batch = sources[k:k + n]
        analyzer.observe(batch, sut.predict([s.text for s in batch]))
        cases = []
        for s in batch:
            for c in by_source.get(s.id, []):
                edit = Edit(s.text, tuple(Replacement(r["start"], r["end"], r["new"])
                                          for r in c["follow_up"]["edit"]))
                follow_up = FollowUp(edit.target, edit, c["transformation"], c["follow_up"]["meta"])
                cases.append(TestCase(
                    c["id"], s, follow_up, c["relation"],
                    Prediction(spans_from_json(c["source"]["entities"])),
                    Prediction(spans_from_json(c["follow_up"]["entities"])),
                    spans_from_json(c["follow_up"].get("expected", [])),
                    Verdict(Outcome.FAIL, c["verdict"].get("reason", ""))))
        for c in analyzer.process(cases):
            if keep is not None:
                keep.append(c)
            for side in ("source", "follow_up"):
                for e in (c.repair or {}).get(side, {}).get("entities", []):
                    if e.get("basis") and e["before"] != e["after"]:
                        decided_by[e["basis"]] += 1
            if verbose and c.gold and c.gold.get("repair_outcomes"):
                for side in ("source", "follow_up"):
                    for e in c.repair[side]["entities"]:
                        print(f"  {c.gold['repair_outcomes']} {side}: {e['text']!r} "
                              f"{e['before']} → {e['after']} scores {e['scores']} "
                              f"kept {e['candidates']['kept']}/{e['candidates']['proposed']} dropped {e['candidates']['dropped']}"
                              + (f" name list {e['gazetteer']}" if e.get("gazetteer") else ""))
        analyzer.checkpoint()
    rep = analyzer.results()["repair"]
    rep["basis"] = dict(decided_by)
    return rep


if __name__ == "__main__":
    main(sys.argv[1:])
