"""The default suite's shape on an accelerator: bert-base-shaped models everywhere a model runs.

Usage:
    python bench/gpu_suite.py [--device cuda] [-n 350] [--fp16] [--rounds 2] [--batch-size 64]

Builds, with random weights (no download), a bert-base-shaped (12 layers, hidden 768, vocabulary
28,996 as bert-base-cased) masked LM, encoder and token classifier (CoNLL labels), and runs a
suite with them: token_mlm and phrase_np take the masked LM's candidates, the semantic filter
uses the encoder, the syntactic filter the masked LM's pseudo-log-likelihood, the system under
test is the token classifier (``hf``), repair uses the masked LM and the encoder (the paper's
setting), on the first N sentences of suites/data/news.txt. The run is a whole ``mtrun`` process;
``nvidia-smi`` is sampled every 100 ms while it runs. Prints follow-ups tested per second over
the processing time (after start-up), the GPU's busy share over that time, and the stage
breakdown. Random weights make odd candidates, but the work per follow-up is the real one.

On a machine without a GPU, ``--device cpu -n 20`` checks that the script works.
"""
from __future__ import annotations

import argparse
import inspect
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runner.timing import stage_table  # noqa: E402

LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG", "B-MISC", "I-MISC"]
VOCAB_SIZE = 28996


def build_models(root: Path) -> dict[str, Path]:
    import torch
    from transformers import (BertConfig, BertForMaskedLM, BertForTokenClassification,
                              BertModel, BertTokenizerFast)

    from tests.tiny_models import write_vocab

    vocab_dir = root / "vocab"
    vocab = write_vocab(vocab_dir, cased=True)
    words = vocab.read_text(encoding="utf-8").split("\n")[:-1]
    # the news corpus's own words, so that sentences are not all [UNK]
    for line in (ROOT / "suites/data/news.txt").read_text(encoding="utf-8").split():
        w = line.strip(".,;:!?\"'()")
        if w and w not in words and len(words) < VOCAB_SIZE:
            words.append(w)
    words += [f"##w{i}" for i in range(VOCAB_SIZE - len(words))]
    vocab.write_text("\n".join(words) + "\n", encoding="utf-8")
    key = "vocab" if "vocab" in inspect.signature(BertTokenizerFast.__init__).parameters \
        else "vocab_file"
    tok = BertTokenizerFast(**{key: str(vocab)}, do_lower_case=False)
    out = {}
    for name, cls, extra in (
            ("mlm", BertForMaskedLM, {}),
            ("encoder", BertModel, {}),
            ("tagger", BertForTokenClassification,
             {"id2label": dict(enumerate(LABELS)),
              "label2id": {label: i for i, label in enumerate(LABELS)}})):
        torch.manual_seed(0)
        folder = root / name
        cls(BertConfig(vocab_size=VOCAB_SIZE, **extra)).save_pretrained(folder)
        tok.save_pretrained(folder)
        out[name] = folder
    return out


def write_suite(root: Path, models: dict[str, Path], n: int, batch_size: int, fp16: bool) -> Path:
    import yaml

    corpus = root / "news.txt"
    lines = [x for x in (ROOT / "suites/data/news.txt").read_text(encoding="utf-8").splitlines()
             if x.strip()][:n]
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    mlm, enc, tagger = (str(models[k]) for k in ("mlm", "encoder", "tagger"))
    suite = {
        "name": "gpu_bench", "task": "ner", "seed": 13,
        "sut": {"type": "hf", "model": tagger, "batch_size": batch_size},
        "corpus": {"path": str(corpus)},
        "transformations": [
            {"type": "token_mlm", "source": "masked_lm", "masked_lm": mlm, "top_k": 10,
             "batch_size": batch_size, "fp16": fp16},
            {"type": "phrase_np", "source": "masked_lm", "masked_lm": mlm, "top_k": 5,
             "batch_size": batch_size, "fp16": fp16},
            {"type": "structural_question"},
            {"type": "entity_shuffle", "follow_ups": 2}],
        "relations": [{"type": "MR1", "applies_to": ["token_mlm", "phrase_np"]},
                      {"type": "MR2", "applies_to": ["structural_question", "entity_shuffle"]}],
        "filters": [
            {"type": "semantic", "encoder": enc, "SThreshold": 0.65, "batch_size": batch_size,
             "fp16": fp16},
            {"type": "syntactic", "scorer": "pll", "model": mlm, "batch_size": batch_size * 4,
             "SynThreshold": {"default": 0.01}, "fp16": fp16,
             "applies_to": ["token_mlm", "phrase_np"]}],
        "repair": {"enabled": True, "candidates": "masked_lm", "masked_lm": mlm, "encoder": enc},
        "report": {"formats": ["json"]},
        "limits": {"batch_size": 64, "max_follow_ups_per_source": 10},
    }
    path = root / "gpu_bench.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False), encoding="utf-8")
    return path


class GpuSampler:
    """``nvidia-smi`` utilisation samples (percent busy), with their times."""

    def __init__(self, period_ms: int = 100) -> None:
        self.samples: list[tuple[float, float]] = []
        self.proc = None
        if shutil.which("nvidia-smi"):
            self.proc = subprocess.Popen(
                ["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits",
                 f"-lms={period_ms}"], stdout=subprocess.PIPE, text=True)
            self.thread = threading.Thread(target=self._read, daemon=True)
            self.thread.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            try:
                self.samples.append((time.perf_counter(), float(line.split(",")[0])))
            except ValueError:
                pass

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait()

    def busy(self, start: float, end: float) -> float | None:
        window = [u for t, u in self.samples if start <= t <= end]
        return sum(window) / len(window) if window else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("-n", type=int, default=350, help="sources (news sentences)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=64, help="model batch size")
    ap.add_argument("--fp16", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mtrun-gpu-") as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        models = build_models(root)
        suite = write_suite(root, models, args.n, args.batch_size, args.fp16)
        print(f"built bert-base-shaped models in {time.perf_counter() - t0:.1f} s", flush=True)
        for k in range(args.rounds):
            out = root / f"run{k}"
            sampler = GpuSampler()
            started = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "runner", str(suite), "--no-cache",
                                   "-q", "--device", args.device, "--out", str(out)],
                                  cwd=ROOT, capture_output=True, text=True)
            ended = time.perf_counter()
            sampler.stop()
            if proc.returncode not in (0, 1):
                raise SystemExit(f"mtrun exited {proc.returncode}:\n{proc.stderr[-3000:]}")
            results = json.loads((out / "results.json").read_text(encoding="utf-8"))
            stages = results["run"].get("stages", {})
            startup = stages.get("start-up", 0.0)
            processing = (ended - started) - startup - stages.get("report", 0.0)
            tested = results["overall"]["follow_ups"]
            busy = sampler.busy(started + startup, ended)
            print(f"round {k + 1} on {results['run'].get('device')}"
                  f"{' fp16' if args.fp16 else ''}: {ended - started:.1f} s wall, start-up "
                  f"{startup:.1f} s, {tested} follow-ups tested in {processing:.1f} s of "
                  f"processing = {tested / max(processing, 1e-9):.1f}/s; GPU busy "
                  + (f"{busy:.0f}% of processing" if busy is not None else "n/a (no nvidia-smi)"),
                  flush=True)
            if k == args.rounds - 1:
                print()
                print(stage_table(stages, wall=ended - started))


if __name__ == "__main__":
    main()
