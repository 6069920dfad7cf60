"""Tuning of ``repair.candidates: lm`` on finished runs: the referee panel (today's default) and
every LM variant named below, each repaired on the same violations; the LM's mutants and their
naturalness are computed once per set and shared by the variants (the source caches them).

Usage: python bench/repair_lm_tune.py SUITE.yaml RUN_DIR [VARIANT ...]

A variant is ``rule[,key=value...]`` over the repair section (e.g.
``referees_then_vote,PThreshold=10,vote_labels=disputed``); ``referees`` is the panel alone.
Prints one line per variant: ErrorReduce, Cor2Err, Err2Cor, TT/TF/FT/FF, relabels per evidence,
and seconds.

Measured 2026-11-26 (issue 30, item 1) on runs made at commit d8c5502 with
``python -m runner SUITE -o /tmp/rep/SET -q --no-cache`` (suites: bench/ner_spacy_crossner_music,
_ai, _science (tuning); bench/ner_spacy_crossner (politics), _literature, suites/ner_spacy_heldout
(PUD measure), bench/ner_spacy_re3d, _wikigold_b, _ewt_measure (measuring)). The rule was chosen
on the tuning sets with a 28-variant grid (rules × PThreshold 2, 5.5 × min_votes/min_share 1/0,
2/0.7, 3/0.8, 3/0.99; alpha 1) and frozen before the measuring sets were repaired with it:
``python bench/repair_lm_tune.py SUITE RUN_DIR referees
vote_with_referee,top_k=3,context_words=2,PThreshold=2,min_votes=3,min_share=0.99``
(per suspicious entity occurrence; the last column counts the relabels the vote decided):

| set | role | referees (default): ErrorReduce / Cor2Err / Err2Cor | lm rule: ErrorReduce / Cor2Err / Err2Cor | relabels by the vote |
|---|---|--:|--:|--:|
| CrossNER music | tuning | 17.1 / 10.7 / 23.5 % | 22.4 / 10.7 / 28.8 % | 15 |
| CrossNER AI | tuning | 20.0 / 6.0 / 24.2 % | 20.0 / 6.0 / 24.2 % | 5 |
| CrossNER science | tuning | 26.2 / 12.8 / 35.4 % | 26.2 / 12.8 / 35.4 % | 3 |
| CrossNER politics | measuring | 35.1 / 11.6 / 43.2 % | 36.7 / 13.3 / 45.9 % | 21 |
| CrossNER literature | measuring | 43.0 / 7.9 / 48.8 % | 46.3 / 7.9 / 52.1 % | 6 |
| PUD measure (`suites/ner_spacy_heldout.yaml`) | measuring | 31.6 / 9.2 / 37.5 % | 34.6 / 9.2 / 40.4 % | 5 |
| re3d | measuring | 24.7 / 12.5 / 33.3 % | 27.2 / 12.5 / 35.8 % | 3 |
| Wikigold b | measuring | 10.2 / 12.1 / 16.3 % | 11.0 / 13.7 / 17.9 % | 9 |
| EWT measure | measuring | 21.2 / 13.9 / 30.8 % | 25.0 / 16.7 / 36.5 % | 5 |
| six measuring sets pooled | | 27.0 / 11.0 / 34.1 % | 29.1 / 12.0 / 36.8 % | 49 |

On the measuring sets the rule fixes 24 more entity occurrences than the panel (FT 305 → 329) and
breaks 6 more (TF 63 → 69): ErrorReduce rises on every set (+0.8 to +3.8 points), Cor2Err stays
on literature, PUD and re3d and rises by 1.6 to 2.8 points on politics, Wikigold b and EWT. It
meets the bar (ErrorReduce ≥ 25 %, Cor2Err ≤ 10 %) on the two sets where the panel already does
(literature, PUD) and on no other, so the default suites keep `candidates: referees`. Cost: the
LM's passes over the mutants (101–380 a set): 60–250 s a repair of a set's violations on two
shared CPU cores, against 7–16 s for the panel alone. Runs of 2026-11-26 (commit of this page's
change), on 2 cores of an AMD EPYC with other work running.

A seventh measuring set, built after the rule was frozen (`suites/data/redocred_ner.jsonl`, 400
Wikipedia sentences; the run of ``bench/ner_spacy_redocred_lm.yaml``, the default suite, at commit
904d369): referees 20.9 / 11.1 / 28.4 % (TT 128, TF 16, FT 61, FF 154); lm rule 21.4 / 13.2 /
30.2 % (9 relabels by the vote; 335 mutants, 60 s). Neither meets the bar there.
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
from runner.building import build_sut  # noqa: E402
from runner.tasks.ner.repair.analyzer import ViolationAnalyzer  # noqa: E402
from runner.tasks.ner.repair.relabel import Params  # noqa: E402


def _pct(v):
    return "   –  " if v is None else f"{100 * v:5.1f}%"


def main(argv: list[str]) -> None:
    suite = load_suite(argv[0])
    run_dir = Path(argv[1])
    variants = argv[2:] or ["referees", "referees_then_vote"]
    cfg = suite.config
    sut = build_sut(suite)
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
