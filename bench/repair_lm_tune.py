"""Tuning of ``repair.candidates: lm`` on finished runs: the referee panel (today's default) and
every LM variant named below, each repaired on the same violations; the LM's mutants and their
naturalness are computed once per set and shared by the variants (the source caches them).

Usage: python bench/repair_lm_tune.py SUITE.yaml RUN_DIR [VARIANT ...]

A variant is ``rule[,key=value...]`` over the repair section (e.g.
``referees_then_vote,PThreshold=10,vote_labels=disputed``); ``referees`` is the panel alone.
Prints one line per variant: ErrorReduce, Cor2Err, Err2Cor, TT/TF/FT/FF, relabels per evidence,
and seconds.
"""
from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from repair_eval import _value, replay  # noqa: E402
from runner.suite import load_suite  # noqa: E402
from runner.tasks.ner.catalog import SUTS  # noqa: E402
from runner.tasks.ner.repair.analyzer import ViolationAnalyzer  # noqa: E402
from runner.tasks.ner.repair.relabel import Params  # noqa: E402


def _pct(v):
    return "   –  " if v is None else f"{100 * v:5.1f}%"


def main(argv: list[str]) -> None:
    suite = load_suite(argv[0])
    run_dir = Path(argv[1])
    variants = argv[2:] or ["referees", "referees_then_vote"]
    cfg = suite.config
    sut_cfg = dict(cfg["sut"])
    sut = SUTS.get(sut_cfg.pop("type")).factory(**sut_cfg)
    base = dict(cfg["repair"], enabled=True)
    lm_an = None
    for variant in variants:
        rule, *pairs = variant.split(",")
        rc = dict(base)
        for p in pairs:
            k, _, v = p.partition("=")
            rc[k] = _value(v)
        t0 = time.time()
        if rule == "referees":
            rc["candidates"] = "referees"
            an = ViolationAnalyzer.from_config({**cfg, "repair": rc}, sut)
        else:
            rc.update(candidates="lm", lm_rule=rule)
            if lm_an is None:
                lm_an = ViolationAnalyzer.from_config(
                    {**cfg, "repair": dict(rc, lm_rule="referees_then_vote")}, sut)
            an = lm_an
            an.relabeler.params = dataclasses.replace(Params.from_config(rc),
                                                      referees=tuple(an.relabeler.panel))
            an.relabeler.source.words = int(rc.get("context_words", 2))
            an.relabeler.source.top_k = int(rc["top_k"])
        rep = replay(suite, run_dir, an, sut)
        g = rep["gold"]
        print(f"{variant:60s} ER {_pct(g['ErrorReduce'])} C2E {_pct(g['Cor2Err'])} "
              f"E2C {_pct(g['Err2Cor'])} TT {g['TT']} TF {g['TF']} FT {g['FT']} FF {g['FF']} "
              f"by {dict(sorted(rep['basis'].items()))} mutants {rep['mutants_queried']} "
              f"{time.time() - t0:.0f}s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
