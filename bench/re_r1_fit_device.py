"""MR-R1's LM fit (:mod:`runner.tasks.re.lm_fit`) on a device, against the CPU's values.

    python bench/re_r1_fit_device.py items RUN_DIR        # the fits to make: every source
        argument and its replacement of a run of bench/re_r1_on.yaml (its first 400 cases) →
        bench/data/re_r1_fit_items.json.gz, with the CPU's fits (this machine)
    python bench/re_r1_fit_device.py run --device cuda [--model PATH] [--save OUT.json]
        the same fits on the device, twice (the second with every name's own score known, as
        in a run after its first batches), with CUDA graphs and without (MTRUN_CUDA_GRAPHS=0
        for the second model load), and how far they are from the CPU's: the mean and largest
        difference of a fit, and on how many of the pairs the drop's side of R1's limit
        (lm_max_drop, 3 nats) changes
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ITEMS = ROOT / "bench" / "data" / "re_r1_fit_items.json.gz"
LIMIT = 3.0


def _timed(lm, items):
    from runner.tasks.re import lm_fit

    lm_fit._ALONE.clear()
    t0 = time.perf_counter()
    fits = lm_fit.context_fit(lm, items)
    t1 = time.perf_counter()
    lm_fit.context_fit(lm, items)       # every name's own score now known: only the sentences
    names_known = time.perf_counter() - t1
    lm_fit._ALONE.clear()
    return fits, round(t1 - t0, 3), round(names_known, 3)


def items(run: Path) -> None:
    from runner.models import get_lm

    cases = [json.loads(line) for line in (run / "cases.jsonl").open(encoding="utf-8")][:400]
    out = []
    for c in cases:
        src, meta = c["source"], c["follow_up"]["meta"]
        arg, text, new = src[meta["argument"]], c["source"]["text"], meta["replacement"]
        out.append((text, arg["start"], arg["end"]))
        out.append((text[:arg["start"]] + new + text[arg["end"]:], arg["start"],
                    arg["start"] + len(new)))
    lm = get_lm("smollm2", device="cpu", fp16=True)
    fits, first, known = _timed(lm, out)
    data = {"command": "python bench/re_r1_fit_device.py items " + " ".join(sys.argv[2:]),
            "items": out, "cpu": {"fits": fits, "first_s": first, "names_known_s": known,
                                  "machine": f"{os.cpu_count()} cores, {platform.processor()}"}}
    with gzip.open(ITEMS, "wt", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False)
    print(f"{len(out)} fits, {first} s on the CPU ({known} s with the names known) → {ITEMS}")


def run(args: argparse.Namespace) -> None:
    import torch

    from runner import models

    with gzip.open(ITEMS, "rt", encoding="utf-8") as f:
        data = json.load(f)
    work = [tuple(x) for x in data["items"]]
    cpu = data["cpu"]["fits"]
    rows = []
    for graphs in ("1", "0"):
        os.environ["MTRUN_CUDA_GRAPHS"] = graphs
        models.clear()
        lm = models.get_lm(args.model, device=args.device, fp16=True)
        _timed(lm, work)                                    # warm-up (and the capture)
        fits, first, known = _timed(lm, work)
        d = [abs(a - b) for a, b in zip(fits, cpu)]
        flips = sum((fits[i] - fits[i + 1] <= LIMIT) != (cpu[i] - cpu[i + 1] <= LIMIT)
                    for i in range(0, len(fits), 2))
        rows.append({"cuda_graphs": lm.describe().get("cuda_graphs", "off"), "fits": len(fits),
                     "seconds": first, "names_known_seconds": known,
                     "vs_cpu": {"mean_abs": round(sum(d) / len(d), 4), "max_abs": round(max(d), 4),
                                "pairs": len(fits) // 2, "limit_side_changes": flips}})
        print(json.dumps(rows[-1]), flush=True)
    rec = {"command": "python bench/re_r1_fit_device.py run " + " ".join(sys.argv[2:]),
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "device": torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu",
           "torch": torch.__version__, "items": data["command"],
           "machine": {"device": torch.cuda.get_device_name()
                       if args.device.startswith("cuda") else "cpu",
                       "cpu_cores": os.cpu_count(), "python": platform.python_version(),
                       "torch": torch.__version__},
           "cpu": {k: v for k, v in data["cpu"].items() if k != "fits"}, "rows": rows}
    if args.save:
        Path(args.save).write_text(json.dumps(rec, indent=1) + "\n", encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    i = sub.add_parser("items")
    i.add_argument("run", type=Path)
    r = sub.add_parser("run")
    r.add_argument("--device", default="cuda")
    r.add_argument("--model", default="smollm2")
    r.add_argument("--save")
    args = ap.parse_args()
    if args.cmd == "items":
        items(args.run)
    else:
        run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
