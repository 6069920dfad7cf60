"""WordNet 3.0 for NLTK, offline, from Debian's ``wordnet-base`` package.

NLTK reads WordNet from ``$NLTK_DATA/corpora/wordnet/`` (the database files plus a ``lexnames``
file). Debian's ``wordnet-base`` installs the same 3.0 database in ``/usr/share/wordnet`` but
without ``lexnames``; on first use the files are copied into a user cache folder
(``$MTRUN_CACHE`` or ``~/.cache/mtrun``) together with a generated ``lexnames`` (the 45 lexicographer
file names of WordNet 3.0, in their fixed order), and NLTK reads them from there. An existing
NLTK WordNet (``nltk.download('wordnet')``) is used as it is.

``python -m runner.models.wordnet`` does the copy ahead of time and prints where it went.
"""
from __future__ import annotations

import functools
import os
import shutil
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


@functools.lru_cache(maxsize=1)
def load_wordnet() -> Any:
    """NLTK's WordNet reader: an installed NLTK WordNet, else Debian's copied into the cache."""
    try:
        import nltk
        from nltk.corpus.reader.wordnet import WordNetCorpusReader
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
        return WordNetCorpusReader(path, None)


def describe() -> dict[str, Any]:
    wn = load_wordnet()
    return {"role": "candidates", "backend": "wordnet", "name": f"WordNet {wn.get_version()}",
            "device": "cpu"}


if __name__ == "__main__":
    print(prepare())
    print("WordNet", load_wordnet().get_version())
