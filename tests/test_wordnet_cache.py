"""The WordNet reader's start-up cache: the second load reads the parsed indexes from the cache
and answers every lookup exactly as NLTK's own reader does; a changed data file is never read
through a stale cache."""
from __future__ import annotations

import os
import shutil

import pytest

from runner.errors import ModelNotAvailable
from runner.models import wordnet


@pytest.fixture
def fresh_wordnet(tmp_path, monkeypatch):
    """A private copy of WordNet and a private cache folder, so the test sees a cold start."""
    monkeypatch.setenv("MTRUN_CACHE", str(tmp_path / "cache"))
    pytest.importorskip("nltk")
    try:
        data = wordnet.prepare(root=tmp_path / "cache")
    except ModelNotAvailable as e:
        pytest.skip(f"WordNet not installed here: {e}")
    import nltk

    # NLTK reads corpora only from folders on its data path
    monkeypatch.setattr(nltk.data, "path", nltk.data.path + [str(data), str(tmp_path / "ro")])
    wordnet.load_wordnet.cache_clear()
    yield data / "corpora" / "wordnet"
    wordnet.load_wordnet.cache_clear()


def _reader(root):
    return wordnet._cached_reader_class()(str(root), None)


def _answers(wn):
    words = [("say", "v"), ("bigger", None), ("geese", None), ("angry", "a"), ("court", "n"),
             ("quickly", "r"), ("ran", "v")]
    out = []
    for w, pos in words:
        for s in wn.synsets(w, pos):
            out.append((w, s.name(), tuple(s.lemma_names()),
                        tuple(x for lem in s.lemmas() for x in lem.frame_strings()),
                        tuple(a.name() for lem in s.lemmas() for a in lem.antonyms())))
    return out + [wn.morphy("geese"), wn.morphy("ran", "v")]


def test_second_load_comes_from_the_cache_and_answers_the_same(fresh_wordnet):
    from nltk.corpus.reader.wordnet import WordNetCorpusReader
    import warnings

    first = _reader(fresh_wordnet)
    assert first._from_cache is False
    second = _reader(fresh_wordnet)
    assert second._from_cache is True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = WordNetCorpusReader(str(fresh_wordnet), None)
    assert _answers(second) == _answers(plain) == _answers(first)
    assert second.satellite_offsets == plain.satellite_offsets
    assert dict(second._lemma_pos_offset_map) == dict(plain._lemma_pos_offset_map)


def test_a_changed_data_file_is_not_read_through_the_old_cache(fresh_wordnet):
    _reader(fresh_wordnet)
    before = wordnet._index_cache_path(fresh_wordnet)
    assert before.is_file()
    exc = fresh_wordnet / "noun.exc"
    st = exc.stat()
    os.utime(exc, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert wordnet._index_cache_path(fresh_wordnet) != before
    assert _reader(fresh_wordnet)._from_cache is False


def test_a_corrupt_cache_file_is_rebuilt(fresh_wordnet):
    _reader(fresh_wordnet)
    path = wordnet._index_cache_path(fresh_wordnet)
    path.write_bytes(b"\x00not marshal")
    wn = _reader(fresh_wordnet)
    assert wn._from_cache is False and wn.synsets("court", "n")
    assert _reader(fresh_wordnet)._from_cache is True


def test_a_read_only_cache_folder_still_loads(fresh_wordnet, tmp_path, monkeypatch):
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only folders")
    ro = tmp_path / "ro"
    shutil.copytree(fresh_wordnet, ro / "wordnet")
    os.chmod(ro, 0o555)
    monkeypatch.setenv("MTRUN_CACHE", str(ro))
    assert _reader(ro / "wordnet").synsets("court", "n")


def test_the_packed_lemma_index_reads_as_nltks_dict_of_lists():
    plain = {"run": {"n": [1, 2, 3], "v": [14_000_000, 5]}, "bigger": {"a": [7]}, "x": {}}
    packed = wordnet.PackedLemmaIndex.pack(plain)
    assert {k: packed[k] for k in packed} == plain
    assert len(packed) == 3 and "run" in packed and "walk" not in packed
    assert packed["walk"] == {} and "walk" not in packed       # NLTK's defaultdict, without adding
    assert packed["run"].get("v", []) == [14_000_000, 5]
    with pytest.raises(KeyError):
        packed["run"]["r"]                                        # NLTK turns this into its error
    import marshal

    again = wordnet.PackedLemmaIndex(marshal.loads(marshal.dumps(packed._data)))
    assert {k: again[k] for k in again} == plain
