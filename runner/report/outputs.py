"""Every output of a run, written from the run's results and its cases: the same code serves
``mtrun SUITE.yaml`` (cases streamed from cases.jsonl) and ``mtrun report results.json`` (cases
from the saved results)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from runner.errors import MtrunError
from runner.report.paths import make_output_dir
from runner.report.writers import CaseSource

# report.formats → file name in the output folder
FILES = {"json": "results.json", "html": "report.html", "junit": "junit.xml",
         "markdown": "summary.md"}
SUPPORTED_RESULTS_VERSIONS = (1,)
CASES_CHECKED = 200
RESULTS_SCHEMA_PATH = Path(__file__).resolve().parent.parent.parent / "schema" / "results.schema.json"


def write_outputs(results: dict[str, Any], cases: CaseSource, out_dir: Path,
                  formats: list[str], *, skip: tuple[Path, ...] = ()) -> list[Path]:
    from runner.report.junit import write_junit
    from runner.report.markdown import write_markdown
    from runner.report.writers import write_html, write_results_json

    from runner.report.verdict import verdict

    writers = {"json": write_results_json, "html": write_html, "junit": write_junit,
               "markdown": write_markdown}
    # One verdict, decided once, that every output shows (and results.json keeps)
    results["verdict"] = verdict(results)
    make_output_dir(out_dir)
    written = []
    for fmt in [f for f in FILES if f in formats]:  # results.json first
        path = out_dir / FILES[fmt]
        if any(path.resolve() == s.resolve() for s in skip):
            continue
        written.append(writers[fmt](results, cases, path))
    return written


def load_results(path: str | Path) -> dict[str, Any]:
    """A saved results.json, checked enough to re-render it: a user error (not a traceback) when it
    is missing, not JSON, from an unknown version or without its cases."""
    path = Path(path)
    if not path.is_file():
        raise MtrunError(f"{path}: no such results file")
    try:
        with path.open(encoding="utf-8") as handle:
            results = json.load(handle)
    except UnicodeDecodeError as exc:
        raise MtrunError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise MtrunError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise MtrunError(f"{path}: not a results file: JSON nested too deeply to read") from None
    except ValueError as exc:  # e.g. a number of more than 4,300 digits
        raise MtrunError(f"{path}: not valid JSON: {str(exc).split(';')[0]}") from None
    if not isinstance(results, dict) or "mtrun_results_version" not in results:
        raise MtrunError(f"{path}: not an mtrun results file (no mtrun_results_version key)")
    version = results["mtrun_results_version"]
    if version not in SUPPORTED_RESULTS_VERSIONS:
        raise MtrunError(f"{path}: results version {version!r} is not supported by this mtrun "
                         f"(supported: {', '.join(map(str, SUPPORTED_RESULTS_VERSIONS))})")
    problem = results_problem(results)
    if problem:
        raise MtrunError(f"{path}: not a valid results file: {problem} "
                         f"(format: {RESULTS_SCHEMA_PATH.name})")
    return results


def results_problem(results: dict[str, Any]) -> str | None:
    """The first difference between ``results`` and schema/results.schema.json, or None."""
    import jsonschema

    schema = json.loads(RESULTS_SCHEMA_PATH.read_text(encoding="utf-8"))
    # Everything but the cases, then a sample of the cases: checking 100,000 cases one by one would
    # cost more than re-rendering them.
    cases = results.get("cases")
    head = dict(results, cases=[]) if isinstance(cases, list) else results
    sample = cases[:CASES_CHECKED] if isinstance(cases, list) else []
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(dict(head, cases=sample)))
    if error is None:
        return None
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return f"{where.lstrip('.') or 'top level'}: {error.message[:300]}"
