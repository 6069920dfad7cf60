"""ONNX Runtime copies of the encoder and of the pseudo-log-likelihood scorer, for CPU runs.

On a CPU the forward passes of the semantic filter's encoder and of the syntactic filter's
masked LM run in ONNX Runtime when it is installed (``pip install onnxruntime onnx``, part of the
``similar`` and ``repair`` extras), from a copy exported once per model and kept under the user
cache folder (``$MTRUN_CACHE`` or ``~/.cache/mtrun``, in ``onnx/``; ``$MTRUN_ONNX_CACHE`` names
another folder):

- a run whose copies are cached imports neither torch nor transformers (together some 2.5 s of
  start-up, most of it holding the interpreter lock the first batch needs) and loads a copy in
  a fraction of a second, with the tokenizer (``tokenizers``) saved beside it;
- a pass is one call into the runtime, which releases the interpreter lock for the whole pass;
  torch's eager passes hold it between operators, so the engine's other thread (spaCy, the
  candidates, the repair) waits on them less.

The copy is exported from the model as transformers loads it (torch's ONNX exporter), then
checked before it is kept: on probe sentences (padded and unpadded batches) its outputs must
agree with torch's to 1e-4 of their scale, and the saved tokenizer must give the ids and
offsets the transformers tokenizer gives. The two runtimes' arithmetic differs in the last bits
(about 1e-5 here), so a score lying that close to a threshold can fall the other way; the
default suite's cases and filter funnel are the same with either. Which runtime ran is in
every run's ``components.models`` (``runtime``); a copy that cannot be made (no ``onnx``
package, an export or check that fails) leaves the model on torch, with the reason there and in
the run's log.

``MTRUN_RUNTIME``: ``auto`` (default: ONNX Runtime on a CPU when installed), ``torch`` (never)
or ``onnx`` (an error when it cannot be used). GPUs always run torch. The key of a copy is the
model folder's files (names, sizes, modification times), the versions of torch, transformers
and onnxruntime, and this module's ``RECIPE``: any change exports again.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
import threading
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Sequence

from runner.errors import ModelNotAvailable
from runner.models.loading import FALLBACKS, LoadedModel, map_chunks, pad_arrays

RECIPE = 1
ENV = "MTRUN_RUNTIME"
CHOICES = ("auto", "torch", "onnx")
KINDS = {"encoder": ("AutoModel", "encoder"), "pll": ("AutoModelForMaskedLM", "masked-LM")}

# Probe sentences of the check: different lengths (so a batch is padded), punctuation, digits,
# accents and a character outside the vocabulary.
PROBES = (
    "The White House said on Tuesday that it would not comment.",
    "Mali",
    "Angela Merkel met Emmanuel Macron in Paris, and they discussed the budget for 2024.",
    "Zoë's café — open since 1998 — serves crème brûlée ☕ to 3,000 guests a day.",
    "Did the United Nations approve the plan?",
)

_notify: list[Callable[[str], None]] = []
_lock = threading.Lock()


class ExportFailed(Exception):
    """The ONNX copy could not be made or did not pass its check."""


def set_notify(fn: Callable[[str], None] | None) -> None:
    """Where notices go (the engine's log): an export under way, a model left on torch."""
    _notify[:] = [fn] if fn else []


def notify(msg: str) -> None:
    for fn in _notify:
        fn(msg)


def choice() -> str:
    value = os.environ.get(ENV, "").strip().lower() or "auto"
    if value not in CHOICES:
        raise ModelNotAvailable(f"{ENV}={value!r} is not one of {', '.join(CHOICES)}")
    return value


def use_onnx(device: str) -> bool:
    """Whether a model on ``device`` should run in ONNX Runtime."""
    wanted = choice()
    if wanted == "torch" or not str(device).startswith("cpu"):
        return False
    if importlib.util.find_spec("onnxruntime") is None:
        if wanted == "onnx":
            raise ModelNotAvailable(f"{ENV}=onnx needs onnxruntime: pip install onnxruntime onnx")
        return False
    return True


def cache_root() -> Path:
    """``$MTRUN_ONNX_CACHE``, or ``onnx`` in the user cache folder."""
    if os.environ.get("MTRUN_ONNX_CACHE"):
        return Path(os.environ["MTRUN_ONNX_CACHE"])
    from runner.models.wordnet import cache_root as root

    return root() / "onnx"


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def copy_key(kind: str, folder: Path) -> str:
    """What a cached copy must match: the model folder's files, the versions, the recipe."""
    files = []
    for p in sorted(folder.iterdir()):
        if p.is_file():
            st = p.stat()
            files.append((p.name, st.st_size, st.st_mtime_ns))
    spec = {"recipe": RECIPE, "kind": kind, "folder": str(folder.resolve()), "files": files,
            "versions": {d: _version(d) for d in ("torch", "transformers", "onnxruntime")}}
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:32]


def copy_folder(kind: str, folder: Path) -> Path:
    """Where the copy of the model in ``folder`` is (or would be) kept."""
    return cache_root() / f"{kind}-{copy_key(kind, folder)}"


def _session(path: Path) -> Any:
    """An ONNX Runtime session on the CPU with one thread a pass: the engine runs passes side by
    side (runner.models.loading.map_chunks)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def model_folder(name: str) -> Path | None:
    """The local folder a model name resolves to (a folder, an embedded copy, the Hugging Face
    cache), or None (only the hub has it: it runs on torch)."""
    from runner.models.loading import locate

    src = locate(name, allow_hub=False)
    if src is None:
        return None
    if src.where in ("folder", "embedded"):
        return Path(src.path)
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    hit = try_to_load_from_cache(name, "config.json")
    return Path(hit).parent if isinstance(hit, str) else None


class Tokens:
    """The fast tokenizer transformers uses (``tokenizers``), set as transformers sets it for
    ``tokenizer(texts, truncation=True, max_length=...)``: truncation longest-first with no
    stride on the saved side, no padding, special tokens added."""

    def __init__(self, tokenizer_json: str, max_length: int, truncation_side: str = "right") -> None:
        from tokenizers import Tokenizer

        self._tok = Tokenizer.from_str(tokenizer_json)
        self._tok.no_padding()
        self._tok.enable_truncation(max_length, stride=0, strategy="longest_first",
                                    direction=truncation_side)

    def encode(self, texts: Sequence[str]) -> tuple[list[list[int]], list[list[tuple[int, int]]]]:
        encs = self._tok.encode_batch(list(texts), add_special_tokens=True)
        return [e.ids for e in encs], [e.offsets for e in encs]


class Copy:
    """A checked ONNX copy of a model: the runtime session, its tokenizer and what the export
    recorded (``meta``: the model's class, hidden size, special ids, the check's error)."""

    def __init__(self, folder: Path) -> None:
        import onnxruntime as ort

        self.folder = folder
        self.meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        self.tokenizer_json = (folder / "tokenizer.json").read_text(encoding="utf-8")
        self.session = _session(folder / "model.onnx")
        self.version = ort.__version__

    def run(self, **feeds: Any) -> Any:
        return self.session.run(None, feeds)[0]

    def tokens(self, max_length: int) -> Tokens:
        return Tokens(self.tokenizer_json, max_length, self.meta.get("truncation_side", "right"))


class OnnxModel(LoadedModel):
    """What the ONNX Runtime wrappers (encoder, masked LM) share: a :class:`Copy` on the CPU,
    its tokenizer at this wrapper's ``max_length``, passes side by side on threads."""

    def __init__(self, copy: Copy, *, name: str, where: str, batch_size: int = 32,
                 max_length: int = 256) -> None:
        super().__init__(None, None, name=name, device="cpu", dtype="float32", where=where,
                         batch_size=batch_size, max_length=max_length)
        self.copy = copy
        self._tokens = copy.tokens(max_length)
        self._pad = copy.meta["pad_token_id"] or 0

    @property
    def model_class(self) -> str:
        return self.copy.meta["model_class"]

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "backend": f"onnxruntime:{self.model_class}",
                "runtime": f"onnxruntime {self.copy.version}"}

    def _map(self, fn: Any, chunks: list[list[int]]) -> list[Any]:
        return map_chunks(fn, chunks, "cpu", torch_passes=False)


_copies: dict[tuple[str, str], Copy] = {}


def forget() -> None:
    """Drop the loaded copies and the reasons recorded (``runner.models.clear``)."""
    with _lock:
        _copies.clear()
        FALLBACKS.clear()


def load_copy(kind: str, name: str) -> Copy:
    """The checked ONNX copy of model ``name`` (``kind``: ``encoder`` or ``pll``), exported on
    first use. Raises :class:`ExportFailed` (the model then runs on torch)."""
    with _lock:
        if (kind, name) in _copies:
            return _copies[(kind, name)]
        folder = model_folder(name)
        if folder is None:
            raise ExportFailed("the model is not in a local folder (only the hub has it)")
        target = copy_folder(kind, folder)
        made = False
        if not (target / "meta.json").is_file():
            notify(f"making an ONNX Runtime copy of the {KINDS[kind][1]} model {name} "
                   f"(once; kept in {target.parent})")
            target, made = _export_to(kind, name, folder, target), True
        try:
            copy = Copy(target)
        except Exception as e:
            # A damaged cache entry (a disk filled while it was written, a file edited): it is
            # made again, once.
            shutil.rmtree(target, ignore_errors=True)
            if made:
                raise ExportFailed(f"the copy could not be loaded ({e})") from e
            notify(f"the cached ONNX Runtime copy of {name} could not be loaded ({e}); "
                   f"making it again")
            target = _export_to(kind, name, folder, target)
            try:
                copy = Copy(target)
            except Exception as again:
                raise ExportFailed(f"the copy could not be loaded ({again})") from again
        _copies[(kind, name)] = copy
        _mark_used(target)
        if made:
            _prune(cache_root())
        return copy


KEEP = 8    # copies kept in the cache, the most recently used (a model in a temporary folder
            # gets a new copy each run: benchmarks, tests)


def _mark_used(folder: Path) -> None:
    try:
        os.utime(folder / "meta.json")
    except OSError:
        pass


def _prune(root: Path, keep: int = KEEP) -> None:
    """Remove the copies of models whose folder is gone (a temporary folder), then all but the
    ``keep`` most recently used."""
    try:
        copies = [p for p in root.iterdir() if (p / "meta.json").is_file()]
        copies.sort(key=lambda p: (p / "meta.json").stat().st_mtime_ns, reverse=True)
    except OSError:
        return
    kept = []
    for copy in copies:
        try:
            folder = json.loads((copy / "meta.json").read_text(encoding="utf-8")).get("folder")
        except (OSError, ValueError):
            folder = None
        if folder and not Path(folder).is_dir():
            shutil.rmtree(copy, ignore_errors=True)
        else:
            kept.append(copy)
    for old in kept[keep:]:
        shutil.rmtree(old, ignore_errors=True)


def _export_to(kind: str, name: str, folder: Path, target: Path) -> Path:
    """Export into a fresh folder beside ``target`` and move it into place (another process
    doing the same at the same time leaves one of the two). Where the cache cannot be written,
    the copy lives in a temporary folder for this process only."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    except OSError:
        import atexit

        work = Path(tempfile.mkdtemp(prefix="mtrun-onnx-"))
        atexit.register(shutil.rmtree, work, True)
        notify(f"cannot write {target.parent}: the ONNX Runtime copy of {name} is made for "
               f"this run only")
        _export(kind, name, folder, work)
        return work
    try:
        _export(kind, name, folder, work)
        try:
            os.replace(work, target)
        except OSError:
            if not (target / "meta.json").is_file():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


def _quiet_exporter() -> None:
    """The exporter's own warnings (tracing a model's Python branches, its deprecation notices,
    the advanced indexing of the LM head's positions, which are never negative) say nothing to
    a user: the copy is checked against torch instead. The filters are added process-wide, not
    in ``catch_warnings``, which is not thread-safe; adding one twice keeps one."""
    import logging
    import warnings

    import torch

    logging.getLogger("torch.onnx").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
    for message in (r".*legacy TorchScript-based ONNX export", r"Exporting aten::index operator",
                    r"The feature will be removed", r"`isinstance\(treespec, LeafSpec\)`",
                    r"# The axis name"):
        warnings.filterwarnings("ignore", message=message)


def _export(kind: str, name: str, folder: Path, out: Path) -> None:
    if importlib.util.find_spec("onnx") is None:
        raise ExportFailed("exporting a copy needs the onnx package: pip install onnx")
    import numpy as np
    import torch

    from runner.models.loading import load_pretrained

    auto_class, role = KINDS[kind]
    tokenizer, model, _ = load_pretrained(name, role, auto_class)
    model = model.float().eval()
    if kind == "encoder":
        module: torch.nn.Module = _EncoderGraph(model)
        inputs = ["input_ids", "attention_mask"]
    else:
        head = getattr(model, "cls", None) or getattr(model, "lm_head", None)
        base = getattr(model, "base_model", None)
        if head is None or base is None or base is model:
            raise ExportFailed(f"{type(model).__name__} has no separate LM head to export")
        module = _MaskedLMGraph(base, head)
        inputs = ["input_ids", "attention_mask", "positions"]
    module.eval()
    truncation_side = getattr(tokenizer, "truncation_side", "right") or "right"
    backend = tokenizer.backend_tokenizer.to_str()
    tokens = Tokens(backend, 512, truncation_side)
    probe_ids, probe_offsets = tokens.encode(PROBES)
    reference = tokenizer(list(PROBES), truncation=True, max_length=512,
                          return_offsets_mapping=True)
    if probe_ids != reference["input_ids"] or \
            [list(map(tuple, o)) for o in probe_offsets] != \
            [list(map(tuple, o)) for o in reference["offset_mapping"]]:
        raise ExportFailed("the saved tokenizer does not reproduce the transformers tokenizer")

    def feeds(rows: list[list[int]]) -> dict[str, Any]:
        ids, att = pad_arrays(rows, tokenizer.pad_token_id)
        out = {"input_ids": ids, "attention_mask": att}
        if kind == "pll":
            out["positions"] = np.array([len(r) // 2 for r in rows], dtype=np.int64)
        return out

    example = feeds([probe_ids[2], probe_ids[0], probe_ids[1]])     # padded rows
    _quiet_exporter()
    axes = {n: {0: "batch", 1: "tokens"} for n in ("input_ids", "attention_mask")}
    axes["positions"] = {0: "batch"}
    axes["output"] = {0: "batch", 1: "tokens"} if kind == "encoder" else {0: "batch"}
    # torch's TorchScript-based exporter: its graph of these BERT models runs 10-15 % faster in
    # ONNX Runtime than the torch.export-based one's (0.78 against 0.89 s for 640 MiniLM
    # sentences); it is deprecated, so the other is used where it is gone.
    try:
        with torch.no_grad():
            try:
                torch.onnx.export(module, tuple(torch.from_numpy(example[n]) for n in inputs),
                                  str(out / "model.onnx"), input_names=inputs,
                                  output_names=["output"],
                                  dynamic_axes={n: axes[n] for n in inputs + ["output"]},
                                  opset_version=17, dynamo=False)
            except TypeError:       # no `dynamo` argument, or no TorchScript-based exporter
                dims = {"batch": torch.export.Dim("batch"), "tokens": torch.export.Dim("tokens")}
                shapes = tuple({k: dims[v] for k, v in axes[n].items()} for n in inputs)
                torch.onnx.export(module, tuple(torch.from_numpy(example[n]) for n in inputs),
                                  input_names=inputs, output_names=["output"],
                                  dynamic_shapes=shapes, dynamo=True,
                                  verbose=False).save(str(out / "model.onnx"))
        session = _session(out / "model.onnx")
    except ExportFailed:
        raise
    except Exception as e:      # the exporter or the runtime cannot take this model
        first = (str(e).strip().splitlines() or [type(e).__name__])[0][:300]
        raise ExportFailed(f"{type(e).__name__}: {first}") from e
    # The check: batches of other shapes than the example's, padded and not.
    worst = 0.0
    for rows in ([probe_ids[1]], [probe_ids[0]], probe_ids, [probe_ids[3], probe_ids[4]]):
        f = feeds(rows)
        got = session.run(None, {n: f[n] for n in inputs})[0]
        with torch.no_grad():
            want = module(*(torch.from_numpy(f[n]) for n in inputs)).float().numpy()
        if got.shape != want.shape:
            raise ExportFailed(f"the copy's output has shape {got.shape}, torch's {want.shape}")
        att = f["attention_mask"].astype(bool)
        diff = np.abs(got - want)[att] if kind == "encoder" else np.abs(got - want)
        scale = max(1.0, float(np.abs(want).max()))
        worst = max(worst, float(diff.max()) / scale)
    if not worst <= 1e-4:
        raise ExportFailed(f"the copy's outputs differ from torch's by {worst:.2e} of their scale")
    del session
    special = sorted(set(tokenizer.all_special_ids))
    meta = {"kind": kind, "recipe": RECIPE, "name": name,
            "folder": str(folder),
            "model_class": type(model).__name__,
            "hidden_size": int(model.config.hidden_size),
            "pad_token_id": tokenizer.pad_token_id, "mask_token_id": tokenizer.mask_token_id,
            "special_ids": special, "truncation_side": truncation_side,
            "exported_with": {"torch": torch.__version__,
                              "transformers": _version("transformers")},
            "check_error": worst}
    (out / "tokenizer.json").write_text(backend, encoding="utf-8")
    (out / "meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")


def _EncoderGraph(model: Any) -> Any:
    import torch

    class EncoderGraph(torch.nn.Module):
        """input_ids, attention_mask → last hidden states (batch, tokens, hidden)."""

        def __init__(self, m: Any) -> None:
            super().__init__()
            self.m = m

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            return self.m(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    return EncoderGraph(model)


def _MaskedLMGraph(base: Any, head: Any) -> Any:
    import torch

    class MaskedLMGraph(torch.nn.Module):
        """input_ids, attention_mask, positions → the LM head's logits at one position per row
        (batch, vocab): the head runs on those positions only, as in MaskedLM._forward."""

        def __init__(self, b: Any, h: Any) -> None:
            super().__init__()
            self.base, self.head = b, h

        def forward(self, input_ids: Any, attention_mask: Any, positions: Any) -> Any:
            hidden = self.base(input_ids=input_ids, attention_mask=attention_mask)[0]
            return self.head(hidden[torch.arange(hidden.shape[0]), positions])

    return MaskedLMGraph(base, head)
