"""WordNet 3.0 for NLTK, offline, from Debian's ``wordnet-base`` package.

NLTK reads WordNet from ``$NLTK_DATA/corpora/wordnet/`` (the database files plus a ``lexnames``
file). Debian's ``wordnet-base`` installs the same 3.0 database in ``/usr/share/wordnet`` but
without ``lexnames``; on first use the files are copied into a user cache folder
(``$MTRUN_CACHE`` or ``~/.cache/mtrun``) together with a generated ``lexnames`` (the 45 lexicographer
file names of WordNet 3.0, in their fixed order), and NLTK reads them from there. An existing
NLTK WordNet (``nltk.download('wordnet')``) is used as it is.

Start-up: NLTK's reader parses the index and exception files on every construction (several
seconds) and, for its multilingual functions, maps WordNet 3.0 onto itself by reading
``index.sense`` twice. mtrun uses no multilingual function, so that mapping is skipped, and the
parsed indexes are kept in a ``marshal`` file under the cache folder keyed by the data files'
sizes and modification times and the NLTK version: later runs load them in a fraction of a second.
The lemma index is held packed (:class:`PackedLemmaIndex`), some 35 MB less than NLTK's own.

``python -m runner.models.wordnet`` does the copy and builds the index cache ahead of time.
"""
from __future__ import annotations

import functools
import hashlib
import marshal
import os
import shutil
import struct
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from runner.errors import ModelNotAvailable

DEBIAN_DIR = Path("/usr/share/wordnet")
# WordNet 3.0 lexicographer files: number, name, syntactic category (1 n, 2 v, 3 a, 4 r).
LEXNAMES = (
    ["adj.all", "adj.pert", "adv.all"]
    + ["noun." + n for n in ("Tops act animal artifact attribute body cognition communication "
                              "event feeling food group location motive object person phenomenon "
                              "plant possession process quantity relation shape state substance "
                              "time").split()]
    + ["verb." + n for n in ("body change cognition communication competition consumption "
                              "contact creation emotion motion perception possession social "
                              "stative weather").split()]
    + ["adj.ppl"]
)
_CATEGORY = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}
_FILES = [f"{kind}.{pos}" for kind in ("data", "index") for pos in ("noun", "verb", "adj", "adv")] \
    + [f"{pos}.exc" for pos in ("noun", "verb", "adj", "adv")]


def lexnames_text() -> str:
    return "".join(f"{i:02d}\t{name}\t{_CATEGORY[name.split('.')[0]]}\n"
                   for i, name in enumerate(LEXNAMES))


def cache_root() -> Path:
    return Path(os.environ.get("MTRUN_CACHE") or Path.home() / ".cache" / "mtrun")


def prepare(debian_dir: Path = DEBIAN_DIR, root: Path | None = None) -> Path:
    """Copy Debian's WordNet into ``<root>/nltk_data/corpora/wordnet`` (once); returns
    the ``nltk_data`` folder."""
    data = (root or cache_root()) / "nltk_data"
    target = data / "corpora" / "wordnet"
    if (target / "lexnames").is_file() and all((target / f).is_file() for f in _FILES):
        return data
    missing = [f for f in _FILES if not (debian_dir / f).is_file()]
    if missing:
        raise ModelNotAvailable(
            f"WordNet 3.0 is not installed: {debian_dir} lacks {', '.join(missing[:3])}. Install "
            f"it with `apt-get install wordnet-base wordnet-sense-index` (Debian/Ubuntu), or "
            f"`python -c \"import nltk; nltk.download('wordnet')\"` where the network allows")
    tmp = target.with_name("wordnet.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for f in _FILES + ["index.sense", "cntlist.rev"]:
        if (debian_dir / f).is_file():
            shutil.copyfile(debian_dir / f, tmp / f)
    (tmp / "lexnames").write_text(lexnames_text(), encoding="ascii")
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)
    return data


INDEX_CACHE_VERSION = 2


def _index_cache_path(root: Path) -> Path:
    """Where the parsed indexes of the WordNet at ``root`` are kept: keyed by every data file's
    size and modification time, the NLTK and Python versions, so a changed file, a new NLTK (whose
    structures may differ) or another interpreter never reads a stale cache."""
    from runner.imports import import_nltk

    nltk = import_nltk()

    h = hashlib.sha256(f"{INDEX_CACHE_VERSION}|{nltk.__version__}|{marshal.version}|"
                       f"{root.resolve()}".encode())
    for f in sorted(_FILES):
        st = (root / f).stat()
        h.update(f"|{f}:{st.st_size}:{st.st_mtime_ns}".encode())
    return cache_root() / "wordnet-index" / f"{h.hexdigest()[:24]}.marshal"


class PackedLemmaIndex(Mapping):
    """NLTK's lemma index (lemma → {part of speech: [synset offsets]}, some 147,000 lemmas) in
    about a sixth of the memory of NLTK's dict of dicts of lists (some 35 MB less): each lemma's
    entry is one bytes string — per part of speech its letter, the number of offsets and the
    offsets as 4-byte integers — unpacked into the dict NLTK reads when it is asked for.
    Read-only; an unknown lemma gives an empty dict, as NLTK's defaultdict did (without adding
    the lemma)."""

    __slots__ = ("_data",)

    def __init__(self, data: dict[str, bytes]) -> None:
        self._data = data

    @classmethod
    def pack(cls, index: Mapping[str, Mapping[str, Any]]) -> "PackedLemmaIndex":
        data = {}
        for lemma, by_pos in index.items():
            parts = [struct.pack(f"<BH{len(offsets)}I", ord(pos), len(offsets), *offsets)
                     for pos, offsets in by_pos.items()]
            data[lemma] = b"".join(parts)
        return cls(data)

    def __getitem__(self, lemma: str) -> dict[str, list[int]]:
        raw = self._data.get(lemma)
        out: dict[str, list[int]] = {}
        if raw is None:
            return out
        i = 0
        while i < len(raw):
            pos, n = _HEAD.unpack_from(raw, i)
            out[chr(pos)] = list(struct.unpack_from(f"<{n}I", raw, i + _HEAD.size))
            i += _HEAD.size + 4 * n
        return out

    def __contains__(self, lemma: object) -> bool:
        return lemma in self._data

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


_HEAD = struct.Struct("<BH")


def _cached_reader_class() -> type:
    from runner.imports import import_nltk

    import_nltk()
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class CachedWordNetReader(WordNetCorpusReader):
        """NLTK's reader with its start-up work cached (see the module's docstring). Every
        lookup is NLTK's own; only where the three in-memory indexes come from changes."""

        def _scan_satellites(self) -> None:
            # The first of the three index loads __init__ makes: try the cache for all of them.
            self._index_cache = _index_cache_path(Path(str(self.root)))
            try:
                sat, lemmas, exceptions = marshal.loads(self._index_cache.read_bytes())
            except (OSError, ValueError, EOFError, TypeError):
                self._from_cache = False
                super()._scan_satellites()
                return
            self._from_cache = True
            self.satellite_offsets = sat
            self._lemma_pos_offset_map = PackedLemmaIndex(lemmas)
            self._exception_map = exceptions

        def _load_lemma_pos_offset_map(self) -> None:
            if not self._from_cache:
                super()._load_lemma_pos_offset_map()

        def _load_exception_map(self) -> None:
            if self._from_cache:
                return
            super()._load_exception_map()
            self._lemma_pos_offset_map = PackedLemmaIndex.pack(self._lemma_pos_offset_map)
            self._write_index_cache()

        def _write_index_cache(self) -> None:
            data = marshal.dumps((self.satellite_offsets, self._lemma_pos_offset_map._data,
                                  self._exception_map))
            try:
                self._index_cache.parent.mkdir(parents=True, exist_ok=True)
                tmp = self._index_cache.with_suffix(f".tmp{os.getpid()}")
                tmp.write_bytes(data)
                tmp.replace(self._index_cache)  # atomic: a reader never sees half a file
            except OSError:
                pass  # a read-only cache folder costs start-up time, nothing else

        def map_wn(self, version: str = "wordnet") -> None:
            # Only the multilingual (OMW) functions use this map; mtrun calls none of them.
            return None

    return CachedWordNetReader


@functools.lru_cache(maxsize=1)
def load_wordnet() -> Any:
    """NLTK's WordNet reader: an installed NLTK WordNet, else Debian's copied into the cache."""
    from runner.imports import import_nltk

    try:
        nltk = import_nltk()  # without scikit-learn and SciPy, which WordNet does not use
    except ImportError as e:
        raise ModelNotAvailable("WordNet needs nltk: pip install nltk==3.10.4 "
                                "(or pip install 'mtrun[similar]')") from e
    import warnings

    try:
        path = str(nltk.data.find("corpora/wordnet"))
    except LookupError:
        data = prepare()
        # NLTK only reads corpora from folders on its data path.
        if str(data) not in nltk.data.path:
            nltk.data.path.append(str(data))
        path = str(data / "corpora" / "wordnet")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available": not used
        return _cached_reader_class()(path, None)


def describe() -> dict[str, Any]:
    wn = load_wordnet()
    return {"role": "candidates", "backend": "wordnet", "name": f"WordNet {wn.get_version()}",
            "device": "cpu"}


if __name__ == "__main__":
    print(prepare())
    print("WordNet", load_wordnet().get_version())
