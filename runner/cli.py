"""Command line: argument parsing and exit codes only. Heavy imports happen after parsing."""
from __future__ import annotations

import argparse
import os
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Iterator, Sequence

from runner import __version__
from runner.errors import ExitCode, MtrunError

COMMANDS = ("run", "validate", "list", "schema", "report", "diff", "models", "init")

USAGE = """mtrun SUITE.yaml [options]        run a suite (same as `mtrun run SUITE.yaml`)
       mtrun init --task ner|re|coref    write a commented starter suite and a sample corpus
       mtrun validate SUITE.yaml [...]   check suites without running them
       mtrun list                        the component types a suite can use
       mtrun schema [--write]            print (or write) schema/suite.schema.json
       mtrun report RESULTS [-o DIR]     re-render every output from a saved results.json
       mtrun diff OLD NEW [-o DIR]       compare two runs' results.json
       mtrun models [SUITE.yaml ...]     the models each suite would load, and if they are here"""

EXIT_CODES = """exit codes: 0 every threshold kept (or none set) · 1 violations above the thresholds ·
2 interrupted · 3 internal error · 4 usage, suite, corpus or path error · 5 nothing to test ·
6 the system under test could not answer (report.fail_on.max_error_rate, max_source_errors)"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mtrun", usage=USAGE, epilog=EXIT_CODES,
        description="Metamorphic testing of NLP systems without labelled data.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"mtrun {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser("run", help="run a suite", epilog=EXIT_CODES)
    run.add_argument("suite", help="the suite's YAML file")
    run.add_argument("-o", "--out", help="output folder (default: the suite's report.dir, "
                                         "else reports/<name>)")
    run.add_argument("--max-sources", type=_positive, help="test at most N source sentences")
    run.add_argument("--seed", type=int, help="override the suite's seed")
    run.add_argument("--device", help="override the suite's device (auto, cpu, cuda, cuda:N)")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress bar or summary")
    run.add_argument("--resume", action="store_true",
                     help="continue the interrupted run in the output folder (same suite, seed "
                          "and corpus) without repeating finished cases")
    run.add_argument("--no-cache", action="store_true",
                     help="do not read or write the persistent prediction cache")
    run.add_argument("--workers", type=_positive,
                     help="process batches on N Ray workers (execution.engine ray)")
    run.add_argument("--ray-address", metavar="ADDR",
                     help="the Ray cluster to use: auto, ray://HEAD:10001 or HOST:PORT "
                          "(execution.engine ray; default: start a local Ray)")
    run.add_argument("--triage", metavar="FILE",
                     help="triage file exported from a report (overrides report.triage): "
                          "violations marked false alarm leave the rates")
    run.add_argument("--timings", action="store_true",
                     help="print where the time went (seconds per stage) at the end")
    run.add_argument("--dry-run", action="store_true",
                     help="print how many calls and characters the run would send, send none")

    val = sub.add_parser("validate", help="check suites and their corpora without running them "
                                          "(a missing model is a warning)")
    val.add_argument("suites", nargs="+")
    sub.add_parser("list", help="list the component types")
    mod = sub.add_parser("models", help="the models each suite would load and whether they are "
                                        "available here (exit 4 when one is missing)")
    mod.add_argument("suites", nargs="*", help="suite files (default: suites/*.yaml)")
    ini = sub.add_parser(
        "init", help="write a commented starter suite and a small sample corpus that run offline",
        description="Write FOLDER/<task>_<system>.yaml (every key commented) and its corpus "
                    "FOLDER/data/<task>_sample.*; existing files are not overwritten (exit 4) "
                    "unless --force.")
    ini.add_argument("--task", required=True, choices=("ner", "re", "coref"),
                     help="what the suite tests: ner (entities), re (relations), coref "
                          "(coreference)")
    ini.add_argument("--system", metavar="SYSTEM",
                     help="the system under test (default: the offline one: ner spacy, re "
                          "textacy, coref xrenner); a starter exists for those, the task's "
                          "other systems (`mtrun list`) are named with what to change")
    ini.add_argument("-o", "--out", default=".", metavar="FOLDER",
                     help="where to write (default: the current folder)")
    ini.add_argument("--force", action="store_true", help="overwrite existing files")
    sch = sub.add_parser("schema", help="print the suite JSON Schema")
    sch.add_argument("--write", action="store_true", help="write schema/suite.schema.json")
    rep = sub.add_parser("report", help="re-render every output from a saved results.json",
                         epilog=EXIT_CODES)
    rep.add_argument("results", help="a results.json written by a run")
    rep.add_argument("-o", "--out", help="output folder (default: the folder of results.json)")
    rep.add_argument("--formats", help="comma-separated formats (default: the suite's "
                                       "report.formats): html, json, junit, markdown")
    rep.add_argument("-q", "--quiet", action="store_true", help="no summary")
    dif = sub.add_parser("diff", help="compare two runs' results.json", epilog=EXIT_CODES)
    dif.add_argument("old", help="results.json of the earlier run")
    dif.add_argument("new", help="results.json of the later run")
    dif.add_argument("-o", "--out", help="folder for diff.html (default: the new run's folder)")
    dif.add_argument("--examples", type=int, default=10,
                     help="violations listed per section on the console (default 10)")
    dif.add_argument("--fail-on-new", action="store_true",
                     help="exit 1 when the new run has violations the old one did not")
    return p


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be ≥ 1")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    if argv is not None:
        return _main(list(argv))
    # Run as the program (`mtrun`, `python -m runner`): the process ends after this. Its objects
    # (a spaCy pipeline, parsed documents, the cases) are left to the interpreter's exit, whose
    # garbage collections would walk them all once more (~0.25 s of a short run on two cores).
    # Frozen, they are skipped: what reference counting frees is still freed and atexit handlers
    # still run; what only a collection would free goes back with the process's memory (every
    # file and the prediction cache are closed by the code that opened them).
    try:
        return _main(sys.argv[1:])
    finally:
        import gc

        gc.freeze()


def _main(argv: list[str]) -> int:
    if argv and argv[0] not in COMMANDS and not argv[0].startswith("-"):
        argv.insert(0, "run")  # `mtrun suites/x.yaml` is `mtrun run suites/x.yaml`
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: 0 for --help, 2 for a usage error → our 4
        return ExitCode.OK if exc.code == 0 else ExitCode.USAGE_ERROR
    if args.command is None:
        parser.print_help()
        return ExitCode.USAGE_ERROR
    try:
        return int({"run": _run, "validate": _validate, "list": _list,
                    "schema": _schema, "report": _report, "diff": _diff,
                    "models": _models, "init": _init}[args.command](args))
    except MtrunError as exc:
        _error(exc)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        print("\nmtrun: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except Exception:  # noqa: BLE001 — the one place that turns a bug into exit 3
        traceback.print_exc()
        print(f"mtrun: internal error (mtrun {__version__}); please report it with the "
              "traceback above", file=sys.stderr)
        return ExitCode.INTERNAL_ERROR


def _error(exc: BaseException) -> None:
    """An error message on stderr. It may quote the suite or corpus (a key, a file name): hidden
    characters are shown as markers, as in every report (runner/report/display.py)."""
    from runner.report.display import visible_text

    print(f"mtrun: error: {visible_text(str(exc), keep=chr(10))}", file=sys.stderr)


def _each_suite(paths: Sequence[str], failed: list[str]) -> Iterator[tuple[str, Any]]:
    """Load each suite in turn; a suite with an error is reported, added to ``failed`` and
    skipped, so one bad suite does not hide the verdict on the others."""
    from runner.suite import load_suite

    for path in paths:
        try:
            suite = load_suite(path)
        except MtrunError as exc:
            _error(exc)
            failed.append(path)
            continue
        yield path, suite


def _validate(args: argparse.Namespace) -> int:
    """Each suite, its whole corpus (read by the reader a run uses, so every corpus a run refuses
    is refused here) and its models. A missing model is a warning, not an error: the suite and
    corpus are right, and a check in CI often runs where the models are not installed; the run
    (and ``mtrun models``) exit 4 for it."""
    from runner.models.inventory import suite_needs

    failed: list[str] = []
    for path, suite in _each_suite(args.suites, failed):
        try:
            sources = suite.task.corpus(suite).count()
        except MtrunError as exc:
            _error(exc)
            failed.append(path)
            continue
        print(f"{path}: ok — {suite.name}: {suite.config['sut']['type']} system, "
              f"{len(suite.config['transformations'])} transformation(s), "
              f"{len(suite.config['relations'])} relation(s), {sources} source(s) in the corpus")
        for n in suite_needs(suite.config, suite.task):
            if not n.available:
                print(f"mtrun: warning: {path}: {n.role} {n.name} ({n.component}) is not "
                      f"available here: a run would exit 4 ({n.where})", file=sys.stderr)
    return ExitCode.USAGE_ERROR if failed else ExitCode.OK


def _list(args: argparse.Namespace) -> int:
    from runner.tasks import all_tasks

    for n, task in enumerate(all_tasks()):
        print(f"{'' if n == 0 else chr(10)}task: {task.name} — {task.description}")
        for section, registry in task.registries().items():
            print(f"  {section}:")
            for entry in registry.entries():
                params = ", ".join(entry.params) or "no parameters"
                status = "" if entry.factory else "  [accepted by the schema, not built yet]"
                group = f"  [group: {entry.extra['group']}]" if entry.extra.get("group") else ""
                print(f"    {entry.name:<22} {entry.description}{status}{group}\n"
                      f"    {'':<22} ({params})")
        for section in task.sections():
            print(f"  section {section}: see the suite schema")
    return ExitCode.OK


def _models(args: argparse.Namespace) -> int:
    from runner.models.inventory import suite_needs

    paths = args.suites or sorted(str(p) for p in Path("suites").glob("*.yaml"))
    if not paths:
        print("mtrun: error: no suite given and no suites/*.yaml here", file=sys.stderr)
        return ExitCode.USAGE_ERROR
    failed: list[str] = []
    missing = False
    for path, suite in _each_suite(paths, failed):
        print(f"{path} ({suite.name}):")
        for n in suite_needs(suite.config, suite.task):
            mark = "ok     " if n.available else "MISSING"
            print(f"  {mark} {n.role:<10} {n.name:<42} {n.component}\n          {n.where}")
            missing = missing or not n.available
    if not args.suites:                    # the shared language model, whether a suite uses it
        from runner.models.inventory import Need, check

        n = check(Need("runner.models.lm", "lm", "lm", "smollm2"))
        print(f"language-model layer (source: lm, scorer: lm):\n  "
              f"{'ok     ' if n.available else 'missing'} {n.role:<10} {n.name:<42}\n"
              f"          {n.where}")
    return ExitCode.USAGE_ERROR if failed or missing else ExitCode.OK


def _init(args: argparse.Namespace) -> int:
    from runner.init import default_system, systems_of, write_starter

    suite_path, corpus_path = write_starter(args.task, args.out, system=args.system,
                                            force=args.force)
    system = args.system or default_system(args.task)
    others = [s for s in systems_of(args.task) if s != system]
    print(f"wrote {suite_path}\nwrote {corpus_path}\nnext: mtrun validate {suite_path}\n"
          f"      mtrun {suite_path}\nto test another {args.task} system, change `sut:` "
          f"({', '.join(others)}; `mtrun list` shows their keys)")
    return ExitCode.OK


def _schema(args: argparse.Namespace) -> int:
    from runner.schema import SCHEMA_PATH, render

    if args.write:
        SCHEMA_PATH.write_text(render(), encoding="utf-8")
        print(f"wrote {SCHEMA_PATH}")
    else:
        sys.stdout.write(render())
    return ExitCode.OK


def _few_malloc_arenas() -> None:
    """glibc gives every thread that allocates its own memory arena; the model passes and the
    loader run on threads, and their arenas kept ~130 MB more resident than a single-threaded
    run. Two arenas hold it to the single-threaded figure (``MALLOC_ARENA_MAX`` overrides)."""
    if os.environ.get("MALLOC_ARENA_MAX") or not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt(-8, 2)      # M_ARENA_MAX
    except (OSError, AttributeError):
        pass


def _run(args: argparse.Namespace) -> int:
    from runner.suite import load_suite

    _few_malloc_arenas()

    suite = load_suite(args.suite)
    if args.max_sources:
        suite.config["limits"]["max_sources"] = args.max_sources
    if args.seed is not None:
        suite.config["seed"] = args.seed
    if args.device:
        import re

        from runner.schema import DEVICE_PATTERN
        if not re.match(DEVICE_PATTERN, args.device):
            raise MtrunError(f"--device: expected auto, cpu, cuda or cuda:N, got {args.device!r}")
        suite.config["device"] = args.device

    if args.workers is not None or args.ray_address is not None:
        from runner.execution import apply_overrides

        apply_overrides(suite.config, workers=args.workers, address=args.ray_address)

    triage = None
    triage_path = args.triage or suite.config["report"].get("triage")
    if triage_path:
        from runner.report.triage import Triage, load_triage

        # read before any model loads: a file that does not parse is an exit-4 error now
        triage = Triage(load_triage(triage_path), triage_path)
        suite.config["report"]["triage"] = str(Path(triage_path).resolve())

    if args.dry_run:
        from runner.plan import dry_run

        print(dry_run(suite, use_cache=not args.no_cache)[0])
        return ExitCode.OK

    from runner.checkpoint import CASES_FILE
    from runner.execution import make_engine
    from runner.report.outputs import write_outputs
    from runner.report.writers import console_summary

    from runner.report.paths import make_output_dir

    # checked (and made) before any model loads: a path that cannot be a folder is exit 4 now
    out_dir = make_output_dir(suite.report_dir(args.out),
                              what="-o" if args.out else "report folder")
    show = not args.quiet
    progress = Progress(enabled=show and sys.stderr.isatty())
    from runner.report.display import visible_text

    log = ((lambda msg: print(f"mtrun: {visible_text(msg, keep=chr(10))}", file=sys.stderr))
           if show else (lambda msg: None))
    engine = make_engine(suite, out_dir, progress=progress.update, log=log, resume=args.resume,
                         use_cache=not args.no_cache)
    progress.detail = getattr(engine, "progress_detail", None)
    # Ctrl-C or SIGTERM (a CI timeout, `kill`): finish the batch in progress, then write the
    # partial results. A second signal stops at once.
    def on_signal(signum: int, frame: object) -> None:
        if engine.stop_requested:
            raise KeyboardInterrupt
        engine.stop_requested = True
        print("\nmtrun: stopping after the current batch (again to stop now)", file=sys.stderr)

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    interrupted = False
    crash: BaseException | None = None
    try:
        log(f"suite {suite.name}: corpus {suite.corpus_path}")
        engine.run()
    except KeyboardInterrupt:
        interrupted = True
    except Exception as exc:  # noqa: BLE001 — write what was decided, then report the error
        crash = exc
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        progress.close()
    if engine.sources_done == 0:  # nothing decided yet: nothing worth a report
        if interrupted:
            raise KeyboardInterrupt
        if crash is not None:
            raise crash
    if crash is not None:
        engine.status = f"failed: {type(crash).__name__}: {crash}"

    results = engine.results()
    if crash is not None:   # the verdict of every output: the code this run exits with
        results["run"]["exit_code"] = int(getattr(crash, "exit_code", ExitCode.INTERNAL_ERROR))
    formats = suite.config["report"]["formats"]
    cases: Any = out_dir / CASES_FILE
    if triage is not None:
        from runner.report.writers import iter_cases

        cases_path = cases
        results = triage.adjust(results, iter_cases(cases_path))
        cases = triage.wrap(lambda: iter_cases(cases_path))
    report_started = time.perf_counter()
    written = write_outputs(results, cases, out_dir, formats)
    engine.stages.add("report", time.perf_counter() - report_started)
    store = getattr(engine, "store", None)
    if store is not None:  # the persistent prediction cache: closed now, not left to the exit
        store.close()
    if show:
        print(console_summary(results))
        if results["overall"]["error"]:
            print(f"{results['overall']['error']} test case(s) could not be judged (error): the "
                  "system could not be queried; see the report's Errors section")
        cache = results["stats"]["sut"]["cache"]
        if "persistent_hits" in cache:
            print(f"prediction cache {cache['path']}: {cache['persistent_hits']} text(s) answered "
                  f"without a call, {results['stats']['sut']['texts_sent']} sent")
        for path in written:
            print(f"wrote {path}")
    if args.timings:
        from runner.timing import process_age, stage_table

        print(stage_table(engine.stages.to_json(), wall=process_age()), file=sys.stderr)
    if crash is not None:
        print(f"mtrun: the run stopped after {engine.sources_done} source(s); the results decided "
              "so far are saved", file=sys.stderr)
        raise crash
    if interrupted:
        print(f"mtrun: interrupted after {engine.sources_done} source(s); the partial results "
              "above are saved", file=sys.stderr)
        return ExitCode.INTERRUPTED
    return _exit_with_verdict(results)


def _exit_with_verdict(results: dict) -> int:
    """The exit code of the run's verdict (runner/report/verdict.py: the one every output shows),
    with its headline and reasons on stderr."""
    from runner.report.verdict import verdict

    v = results.get("verdict") or verdict(results)
    if v["status"] in ("interrupted", "failed"):   # said by the run already
        return v["exit_code"]
    if v["status"] == "nothing":
        print(f"mtrun: {v['reasons'][0]}", file=sys.stderr)
        return v["exit_code"]
    print(f"mtrun: {v['headline']}", file=sys.stderr)
    if v["status"] in ("error", "fail"):
        for reason in v["reasons"]:
            print(f"mtrun: {v['label']}: {reason}", file=sys.stderr)
    return v["exit_code"]


def _report(args: argparse.Namespace) -> int:
    from runner.report.outputs import FILES, load_results, write_outputs
    from runner.report.writers import console_summary

    source = Path(args.results)
    results = load_results(source)
    from runner.report.paths import make_output_dir

    out_dir = make_output_dir(Path(args.out) if args.out else source.parent,
                              what="-o" if args.out else "output folder")
    if args.formats:
        formats = [f.strip() for f in args.formats.split(",") if f.strip()]
        unknown = [f for f in formats if f not in FILES]
        if unknown:
            raise MtrunError(f"--formats: unknown format {', '.join(map(repr, unknown))}; "
                             f"available: {', '.join(FILES)}")
    else:
        formats = list(results["suite"]["filled"]["report"]["formats"])
    cases = results.pop("cases")
    # the input itself is not rewritten when the output folder is its own
    written = write_outputs(results, cases, out_dir, formats, skip=(source,))
    if not args.quiet:
        print(console_summary(results))
        for path in written:
            print(f"wrote {path}")
    return _exit_with_verdict(results)


def _diff(args: argparse.Namespace) -> int:
    from runner.report.diff import compare, console_diff, markdown_diff, write_diff_html
    from runner.report.outputs import load_results

    old, new = load_results(args.old), load_results(args.new)
    old["_path"], new["_path"] = args.old, args.new
    d = compare(old, new)
    print(console_diff(d, examples=max(args.examples, 0)))
    from runner.report.paths import make_output_dir

    out_dir = make_output_dir(Path(args.out) if args.out else Path(args.new).parent,
                              what="-o" if args.out else "output folder")
    print(f"wrote {write_diff_html(d, out_dir / 'diff.html')}")
    md = out_dir / "diff.md"
    md.write_text(markdown_diff(d, examples=max(args.examples, 0)), encoding="utf-8")
    print(f"wrote {md}")
    if args.fail_on_new and d["new_violations"]:
        print(f"mtrun: FAIL: {len(d['new_violations'])} new violation(s)", file=sys.stderr)
        return ExitCode.VIOLATIONS
    return ExitCode.OK


class Progress:
    """A one-line progress bar on stderr (only on a terminal)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.start = time.time()
        self.last = 0.0
        self.detail: Any = None     # what the execution engine adds (workers, recent rate)

    def update(self, done: int, total: int | None) -> None:
        if not self.enabled:
            return
        now = time.time()
        if now - self.last < 0.1 and done != total:
            return
        self.last = now
        rate = done / max(now - self.start, 1e-9)
        if total:
            width = 30
            filled = int(width * done / total)
            eta = (total - done) / rate if rate else 0
            line = (f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} sources "
                    f"{rate:.1f}/s eta {eta:.0f}s ")
        else:
            line = f"\r{done} sources {rate:.1f}/s "
        if self.detail is not None:
            line += f"· {self.detail()} "
        sys.stderr.write(line)
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


if __name__ == "__main__":
    raise SystemExit(main())
