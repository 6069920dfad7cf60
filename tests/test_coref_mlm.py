"""Masked-LM fill-ins with probabilities (CREST keeps predictions of probability ≥ 0.1), on a
tiny random BERT built in the test."""
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from runner import models  # noqa: E402
from tests import tiny_models  # noqa: E402


@pytest.fixture(scope="module")
def mlm(tmp_path_factory):
    folder = tiny_models.save_bert_mlm(tmp_path_factory.mktemp("mlm"))
    models.clear()
    yield models.get_masked_lm(str(folder), device="cpu", batch_size=2)
    models.clear()


def test_probabilities_are_the_softmax_over_the_vocabulary(mlm):
    items = ["the cat [MASK] on the mat .", "he [MASK] a book .", "[MASK] ran ."]
    got = mlm.top_k_probabilities(items, 5)
    for text, cands in zip(items, got):
        ids = mlm.tokenizer(text, return_tensors="pt")["input_ids"]
        pos = int((ids[0] == mlm.mask_token_id).nonzero()[0])
        with torch.inference_mode():
            probs = mlm.model(input_ids=ids).logits[0, pos].softmax(-1)
        for word, p in cands:
            assert p == pytest.approx(float(probs[mlm.tokenizer.convert_tokens_to_ids(word)]),
                                      rel=1e-4)
        assert [p for _, p in cands] == sorted((p for _, p in cands), reverse=True)
        assert all(not w.startswith("[") for w, _ in cands)     # no special token proposed


def test_min_probability_keeps_only_likely_fill_ins(mlm):
    everything = mlm.top_k_probabilities(["he [MASK] a book ."], 50)[0]
    threshold = everything[2][1]
    kept = mlm.top_k_probabilities(["he [MASK] a book ."], 50, min_probability=threshold)[0]
    assert kept == [c for c in everything if c[1] >= threshold]
