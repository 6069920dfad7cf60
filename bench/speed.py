"""How fast a suite runs, and where the time goes.

Usage:
    python bench/speed.py [SUITE.yaml] [--rounds N] [--same-as OLD_RUN_DIR] [--max-sources N]
                          [--mtrun-args "..."]

Runs ``mtrun SUITE --no-cache --timings`` (default suite: suites/ner_spacy.yaml) N times as a
whole process, the way a user runs it, and prints for each round: wall time, peak resident
memory, start-up (process start to the first batch), follow-ups tested per second and
candidates generated per second, then the per-stage breakdown of the fastest round (from
``results.json`` ``run.stages``; stages may nest, so shares are read per line). With
``--same-as`` it checks that the run's cases and filter funnel equal those of an earlier run (the
funnel up to which filter a drop is charged to; a speed change must not change what is tested).
Timings are for reading, not for asserting.

With ``--save PATH`` (e.g. ``bench/results/speed_ner_spacy.json``) it also writes what it measured
as JSON: the command, the date, the machine (CPU, cores, load average before the first round), the
commit, every round's figures and the fastest round's summary of ``results.json`` (rows, groups,
overall, funnel, categories, repair). The documentation's speed figures are written from such
files by ``bench/docs_figures.py``.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runner.timing import stage_table  # noqa: E402


def run_once(suite: str, out: Path, extra: list[str]) -> dict:
    cmd = [sys.executable, "-m", "runner", suite, "--no-cache", "-q", "--out", str(out), *extra]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):           # 1: the suite's thresholds failed; still a run
        raise SystemExit(f"mtrun exited {proc.returncode}:\n{err[-3000:]}")
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    funnel = results.get("funnel") or {}
    return {"wall": wall, "rss_mb": usage.ru_maxrss / 1024, "cpu": usage.ru_utime + usage.ru_stime,
            "stages": results["run"].get("stages", {}),
            "tested": results["overall"]["follow_ups"],
            "generated": sum(f.get("generated", 0) for f in funnel.values()),
            "violations": results["overall"]["fail"], "out": out,
            "summary": {k: results[k] for k in SUMMARY_KEYS if k in results}}


SUMMARY_KEYS = ("summary", "relations", "groups", "overall", "stats", "funnel", "categories", "repair",
                "gold")


def machine() -> dict:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": model or platform.processor(), "cores": os.cpu_count(),
            "load_average_before": [round(x, 2) for x in os.getloadavg()],
            "python": platform.python_version(), "system": platform.platform()}


# What decides a run's results: the code, its templates, the suites and their data.
MEASURED = ("runner", "templates", "suites", "pyproject.toml")


def commit() -> str:
    """HEAD, with "+changes" when the code that was measured differs from it."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--", *MEASURED], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    return head + ("+changes" if dirty else "")


def case_keys(run_dir: Path) -> tuple[list, dict]:
    cases = []
    with (run_dir / "cases.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            c = json.loads(line)
            follow_up = c.get("follow_up") or {}
            cases.append((c["id"], follow_up.get("text", ""), c["verdict"]["outcome"]))
    results = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    return sorted(cases), results.get("funnel") or {}


def _totals(funnel: dict) -> dict:
    """A funnel without which filter each drop is charged to: filters judge each follow-up on
    their own, so reordering them moves drops between filters and changes nothing else."""
    return {t: {**{k: v for k, v in e.items() if k != "dropped_by"},
                "dropped": sum((e.get("dropped_by") or {}).values())}
            for t, e in funnel.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("suite", nargs="?", default="suites/ner_spacy.yaml")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--same-as", metavar="RUN_DIR",
                    help="an earlier run's folder: check that the cases and funnel are the same")
    ap.add_argument("--max-sources", type=int, help="mtrun --max-sources")
    ap.add_argument("--mtrun-args", default="", help="more options for mtrun, one string")
    ap.add_argument("--save", metavar="PATH", help="write what was measured as JSON to PATH")
    args = ap.parse_args()
    started = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
               "commit": commit()}
    extra = shlex.split(args.mtrun_args)
    if args.max_sources:
        extra += ["--max-sources", str(args.max_sources)]
    rows = []
    with tempfile.TemporaryDirectory(prefix="mtrun-speed-") as tmp:
        for k in range(args.rounds):
            r = run_once(args.suite, Path(tmp) / f"round{k}", extra)
            rows.append(r)
            print(f"round {k + 1}: {r['wall']:.1f} s wall, {r['cpu']:.1f} s CPU, "
                  f"peak RSS {r['rss_mb']:.0f} MB, start-up {r['stages'].get('start-up', 0):.1f} s, "
                  f"{r['tested']} follow-ups tested ({r['tested'] / r['wall']:.1f}/s), "
                  f"{r['generated']} candidates ({r['generated'] / r['wall']:.0f}/s), "
                  f"{r['violations']} violations", flush=True)
        best = min(rows, key=lambda r: r["wall"])
        print()
        print(stage_table(best["stages"], wall=best["wall"]))
        if args.save:
            command = "python bench/speed.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
            keep = ("wall", "cpu", "rss_mb", "tested", "generated", "violations")
            record = {"command": command, **started, "suite": args.suite,
                      "rounds": [{**{k: r[k] for k in keep},
                                  "start_up": r["stages"].get("start-up")} for r in rows],
                      "stages": best["stages"], "summary": best["summary"]}
            Path(args.save).parent.mkdir(parents=True, exist_ok=True)
            Path(args.save).write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n",
                                       encoding="utf-8")
            print(f"wrote {args.save}")
        if args.same_as:
            old = case_keys(Path(args.same_as))
            new = case_keys(best["out"])
            same_cases = old[0] == new[0]
            same_funnel = _totals(old[1]) == _totals(new[1])
            charged = "" if old[1] == new[1] else (
                " (the same follow-ups dropped, charged to other filters: the suite's filter "
                "order changed)" if same_funnel else "")
            print(f"\nsame cases as {args.same_as}: {same_cases} ({len(new[0])} cases); "
                  f"same funnel: {same_funnel}{charged}")
            if not (same_cases and same_funnel):
                raise SystemExit(1)


if __name__ == "__main__":
    main()
