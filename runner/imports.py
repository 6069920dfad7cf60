"""Importing the model libraries without the optional libraries they would import for nothing.

Two libraries mtrun needs import heavy optional dependencies when those are installed:

- spaCy's machine-learning library, thinc, imports PyTorch (``thinc.compat`` tries ``import
  torch`` to offer its optional PyTorch layers). For a CNN pipeline such as the embedded
  en_core_web_sm that is 2–6 s of a run's start-up and ~180 MB of memory spent on a library no
  component calls. :func:`import_spacy` imports spaCy with ``torch`` hidden when the pipeline
  about to be loaded names no PyTorch or transformer architecture in its ``config.cfg`` and
  PyTorch is not already imported; thinc then records "no PyTorch", exactly as where PyTorch is
  not installed. Should a pipeline that does need PyTorch be loaded later in the same process (a
  transformer pipeline after a small one), :func:`enable_thinc_torch` re-runs thinc's detection
  and hands the result to every thinc module that copied it, before that pipeline is loaded.
- NLTK's package imports every NLTK module, and with them scikit-learn and SciPy where installed
  (for its scikit-learn classifier wrapper, a transition parser, Fisher's exact test, …), 1–3 s.
  mtrun uses NLTK's WordNet reader only, which reads neither: :func:`import_nltk` imports NLTK
  with both hidden; NLTK's optional features that need them then say so when called.

A hidden library is importable again as soon as the import is over (the sentence encoder, masked
LMs and Hugging Face systems import PyTorch when they load).
"""
from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Iterator

#: the names thinc.compat sets from its PyTorch detection (copied by other thinc modules)
_TORCH_NAMES = ("torch", "has_torch", "has_torch_cuda_gpu", "has_torch_gpu", "has_torch_mps",
                "has_torch_mps_gpu", "has_torch_amp", "torch_version", "has_gpu")
#: what in a pipeline's config.cfg means PyTorch: spacy-transformers, spacy-curated-transformers,
#: thinc's PyTorch wrappers
_NEEDS_TORCH = re.compile(r"torch|transformer", re.IGNORECASE)

#: set when spaCy (and so thinc) was imported with ``torch`` hidden
thinc_without_torch = False


def _config_path(model: str) -> Path | None:
    """The config.cfg spaCy would read for ``model`` (a pipeline folder or an installed package),
    found without importing anything; None when it cannot be found."""
    path = Path(model)
    try:
        if (path / "config.cfg").is_file():
            return path / "config.cfg"
    except OSError:
        return None
    if not model.isidentifier():
        return None
    try:
        spec = importlib.util.find_spec(model)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        root = Path(folder)
        # a pipeline package keeps its data in a versioned folder beside __init__.py
        for candidate in [root / "config.cfg", *sorted(root.glob("*/config.cfg"))]:
            if candidate.is_file():
                return candidate
    return None


def pipeline_needs_torch(model: str) -> bool:
    """Whether loading the spaCy pipeline ``model`` may need PyTorch: its config names a PyTorch
    or transformer architecture, or its config cannot be found (then assume it does)."""
    config = _config_path(model)
    if config is None:
        return True
    try:
        text = config.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True
    return bool(_NEEDS_TORCH.search(text))


class _HiddenFinder:
    """A meta path finder that makes some top-level packages look uninstalled, to one thread
    only: the engine's loader thread may import PyTorch or SciPy for a model while this thread
    imports spaCy or NLTK without them."""

    def __init__(self) -> None:
        self.hidden: dict[int, set[str]] = {}

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> None:
        names = self.hidden.get(threading.get_ident())
        if names and fullname.partition(".")[0] in names:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None


_FINDER = _HiddenFinder()
sys.meta_path.insert(0, _FINDER)  # type: ignore[arg-type]


@contextmanager
def hiding(*names: str) -> Iterator[tuple[str, ...]]:
    """While in the block, ``import NAME`` (and of its submodules) in this thread raises
    ImportError for each name not already imported, as if it were not installed (other threads
    import it as usual); yields the names hidden."""
    hidden = tuple(n for n in names if n not in sys.modules)
    me = threading.get_ident()
    before = _FINDER.hidden.get(me)
    _FINDER.hidden[me] = (before or set()) | set(hidden)
    try:
        yield hidden
    finally:
        if before is None:
            del _FINDER.hidden[me]
        else:
            _FINDER.hidden[me] = before


def import_nltk() -> ModuleType:
    """``import nltk`` without scikit-learn and SciPy (see the module's docstring)."""
    if "nltk" in sys.modules:
        return sys.modules["nltk"]
    with hiding("sklearn", "scipy"):
        import nltk
    return nltk


def import_spacy(model: str | None = None) -> ModuleType:
    """``import spacy``, with PyTorch hidden from thinc when ``model`` (the pipeline about to be
    loaded) does not need it; when spaCy is already imported without PyTorch and ``model`` needs
    it, thinc's PyTorch support is switched on first."""
    global thinc_without_torch
    if "spacy" in sys.modules:
        if thinc_without_torch and model is not None and pipeline_needs_torch(model):
            enable_thinc_torch()
        return sys.modules["spacy"]
    hide = (model is not None and "torch" not in sys.modules
            and "thinc" not in sys.modules and not pipeline_needs_torch(model))
    if not hide:
        import spacy

        return spacy
    with hiding("torch"):
        import spacy
    import thinc.compat

    thinc_without_torch = not thinc.compat.has_torch
    return spacy


def enable_thinc_torch() -> bool:
    """Re-run thinc's PyTorch detection (now importing torch) and give the result to every loaded
    thinc module that copied the old one. True when thinc now has PyTorch."""
    global thinc_without_torch
    compat = sys.modules.get("thinc.compat")
    if compat is None or compat.has_torch:
        thinc_without_torch = False
        return compat is not None
    old = {name: getattr(compat, name) for name in _TORCH_NAMES if hasattr(compat, name)}
    importlib.reload(compat)
    if not compat.has_torch:  # PyTorch is not installed after all: nothing changes
        return False
    for module_name, module in list(sys.modules.items()):
        if module is None or module is compat or not (
                module_name == "thinc" or module_name.startswith("thinc.")):
            continue
        namespace = vars(module)
        for name, value in old.items():
            if name in namespace and namespace[name] is value:
                setattr(module, name, getattr(compat, name))
    thinc_without_torch = False
    return True
