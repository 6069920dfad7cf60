"""The transformers system under test, on a tiny random BERT saved to a folder (no network)."""
import json
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from runner.cli import main  # noqa: E402
from runner.errors import ExitCode, ModelNotAvailable  # noqa: E402
from runner.tasks.ner.sut.hf import HuggingFaceNER, decode_words, parse_label  # noqa: E402

LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG", "B-MISC", "I-MISC"]
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
         "angela", "merkel", "met", "emmanuel", "mac", "##ron", "olaf", "sch", "##ol", "##z",
         "in", "paris", "and", "berlin", "google", "london", "visited", "the", "a", "with",
         ".", ",", "!", "?"]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    from transformers import BertConfig, BertForTokenClassification, BertTokenizerFast

    root = tmp_path_factory.mktemp("hf")
    vocab_dir, out = root / "vocab", root / "tiny-bert-ner"
    vocab_dir.mkdir()
    (vocab_dir / "vocab.txt").write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    tokenizer = BertTokenizerFast.from_pretrained(str(vocab_dir))
    config = BertConfig(vocab_size=len(VOCAB), hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64, max_position_embeddings=128,
                        id2label=dict(enumerate(LABELS)),
                        label2id={label: i for i, label in enumerate(LABELS)})
    torch.manual_seed(0)
    BertForTokenClassification(config).save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    return out


@pytest.fixture(scope="module")
def sut(model_dir):
    return HuggingFaceNER(model=str(model_dir))


def _probs(**by_label):
    """A probability row over LABELS: the given ones, the rest sharing what is left."""
    row = [0.0] * len(LABELS)
    for name, p in by_label.items():
        row[LABELS.index(name.replace("_", "-"))] = p
    rest = (1.0 - sum(row)) / max(1, row.count(0.0))
    return [p if p else max(rest, 1e-9) for p in row]


# Per token id: the label distribution a scripted model gives it, whatever the context.
SCRIPT = {
    "angela": _probs(B_PER=0.9), "merkel": _probs(I_PER=0.8), "emmanuel": _probs(B_PER=0.7),
    "mac": _probs(I_PER=0.6), "##ron": _probs(O=0.9),
    "olaf": _probs(B_PER=0.95),
    # one word, three sub-tokens: first → PER, max → ORG, average → LOC
    "sch": _probs(B_PER=0.5, B_LOC=0.4, B_ORG=0.1 - 1e-6),
    "##ol": _probs(B_ORG=0.99, B_LOC=0.01 - 1e-6),
    "##z": _probs(B_LOC=0.9, B_ORG=0.1 - 1e-6),
    "paris": _probs(B_LOC=0.85), "berlin": _probs(B_LOC=0.75), "london": _probs(B_LOC=0.8),
    "google": _probs(B_ORG=0.9),
}


def _script(monkeypatch, system):
    """Replace the model's forward by a per-token lookup of SCRIPT (O for everything else)."""
    vocab = system.tokenizer.get_vocab()
    table = torch.log(torch.tensor([_probs(O=0.97)] * len(VOCAB)))
    for token, row in SCRIPT.items():
        table[vocab[token]] = torch.log(torch.tensor(row))
    calls = []

    def forward(input_ids=None, attention_mask=None, token_type_ids=None, **_):
        calls.append(tuple(input_ids.shape))
        return SimpleNamespace(logits=table[input_ids])

    monkeypatch.setattr(system.model, "forward", forward)
    return calls


def _raw(system, text):
    return system._predict_raw([text])[0]


def test_loads_from_a_folder_and_describes_itself(sut, model_dir, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_not_a_real_secret_123")
    info = sut.describe()
    assert info["backend"] == "transformers"
    assert info["model"] == str(model_dir)
    assert info["transformers"] == transformers.__version__
    assert info["labels"] == LABELS
    assert info["device"] == "cpu" and info["dtype"] == "float32"
    assert info["max_length"] == 128  # the tokenizer sets no limit: the model's positions do
    assert "hf_not_a_real_secret_123" not in json.dumps(info)
    assert not any("token" in k.lower() for k in info)
    assert sut.tokenizer.is_fast and not sut.model.training


def test_fp16_is_ignored_on_cpu(model_dir):
    system = HuggingFaceNER(model=str(model_dir), fp16=True, device="cpu")
    assert system.describe()["dtype"] == "float32" and "note" in system.describe()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_fp16_on_cuda(model_dir):
    texts = ["Angela Merkel met Emmanuel Macron in Paris.", "Olaf Scholz visited London."]
    gpu = HuggingFaceNER(model=str(model_dir), device="cuda", fp16=True)
    assert gpu.describe()["dtype"] == "float16" and gpu.describe()["device"].startswith("cuda")
    for text, spans in zip(texts, gpu._predict_raw(texts)):
        assert all(0 <= s < e <= len(text) and 0 <= p <= 1 for s, e, _, p in spans)


def test_bio_decoding_gives_exact_character_spans(sut, monkeypatch):
    _script(monkeypatch, sut)
    text = "Angela Merkel met Emmanuel Macron, in  Berlin and Google!"
    got = _raw(sut, text)
    assert [(text[s:e], label) for s, e, label, _ in got] == [
        ("Angela Merkel", "PER"), ("Emmanuel Macron", "PER"), ("Berlin", "LOC"),
        ("Google", "ORG")]
    # span score: mean over its words of the chosen label's probability
    scores = [score for *_, score in got]
    assert scores[0] == pytest.approx((0.9 + 0.8) / 2, abs=1e-5)
    assert scores[1] == pytest.approx((0.7 + 0.6) / 2, abs=1e-5)  # "Macron": its first sub-token
    assert scores[2] == pytest.approx(0.75, abs=1e-5)


def test_a_begin_label_starts_a_new_entity(sut, monkeypatch):
    _script(monkeypatch, sut)
    text = "Angela Merkel Olaf met Paris London"
    got = [(text[s:e], label) for s, e, label, _ in _raw(sut, text)]
    assert got == [("Angela Merkel", "PER"), ("Olaf", "PER"), ("Paris", "LOC"),
                   ("London", "LOC")]


@pytest.mark.parametrize("how, label, prob", [
    ("first", "PER", 0.5), ("max", "ORG", 0.99), ("average", "LOC", (0.4 + 0.01 + 0.9) / 3)])
def test_aggregations_over_a_multi_sub_token_word(model_dir, monkeypatch, how, label, prob):
    system = HuggingFaceNER(model=str(model_dir), aggregation=how)
    _script(monkeypatch, system)
    text = "Scholz visited Paris."
    enc = system.tokenizer(text, add_special_tokens=False)
    assert system.tokenizer.convert_ids_to_tokens(enc["input_ids"])[:3] == ["sch", "##ol", "##z"]
    got = _raw(system, text)
    assert [(text[s:e], lab) for s, e, lab, _ in got] == [("Scholz", label), ("Paris", "LOC")]
    assert got[0][3] == pytest.approx(prob, abs=1e-5)


def test_label_map_to_common_types(model_dir, monkeypatch):
    system = HuggingFaceNER(model=str(model_dir))  # default: CoNLL → common
    _script(monkeypatch, system)
    text = "Angela Merkel visited Google in Paris."
    (pred,) = system.predict([text])
    assert [(s.text_in(text), s.label, s.raw_label) for s in pred.spans] == [
        ("Angela Merkel", "PERSON", "PER"), ("Google", "ORGANIZATION", "ORG"),
        ("Paris", "LOCATION", "LOC")]
    only_people = HuggingFaceNER(model=str(model_dir), label_map={"PER": "PERSON"})
    _script(monkeypatch, only_people)
    (pred,) = only_people.predict([text])
    assert [s.label for s in pred.spans] == ["PERSON"]
    assert only_people.stats()["dropped_labels"] == {"ORG": 1, "LOC": 1}


def test_batch_size_does_not_change_predictions(model_dir):
    texts = ["Angela Merkel met Emmanuel Macron in Paris.", "Google", "",
             "Olaf Scholz visited London and Berlin with a mac.",
             "the the the Paris , Berlin ! ? zzz unknownword", "   Paris   "] * 2 + [
             "Merkel and Macron visited the Berlin Google in London."]
    one = HuggingFaceNER(model=str(model_dir), batch_size=1)
    many = HuggingFaceNER(model=str(model_dir), batch_size=16)
    runs = [[one._predict_raw([t])[0] for t in texts], many._predict_raw(texts)]
    assert any(runs[0])
    for a, b in zip(*runs):
        assert [x[:3] for x in a] == [x[:3] for x in b]
        assert [x[3] for x in a] == pytest.approx([x[3] for x in b], abs=1e-4)
    # and through predict(), which batches by batch_size itself
    small = HuggingFaceNER(model=str(model_dir), batch_size=1).predict(texts)
    big = HuggingFaceNER(model=str(model_dir), batch_size=16).predict(texts)
    assert small == big


def test_long_text_is_windowed_not_truncated(model_dir, monkeypatch):
    words = ["Angela Merkel met Emmanuel Macron in Paris and Berlin with Google ."] * 30
    text = " ".join(words) + " Finally Olaf Scholz visited London"
    whole = HuggingFaceNER(model=str(model_dir), max_length=128)
    windowed = HuggingFaceNER(model=str(model_dir), max_length=16)
    assert len(whole.tokenizer(text, add_special_tokens=False)["input_ids"]) > 128
    _script(monkeypatch, whole)
    calls = _script(monkeypatch, windowed)
    got = _raw(windowed, text)
    assert max(width for _, width in calls) <= 16
    assert windowed.stats()["long_texts_windowed"] == 1 and windowed.stats()["windows"] > 10
    # the end of the text is labelled too
    assert [(text[s:e], lab) for s, e, lab, _ in got[-3:]] == [
        ("Olaf", "PER"), ("Scholz", "PER"), ("London", "LOC")]
    assert len([g for g in got if text[g[0]:g[1]] == "Angela Merkel"]) == 30
    # a context-free script gives the same spans however the text is cut
    whole.max_length = whole.content_length = 10_000
    assert [g[:3] for g in got] == [g[:3] for g in _raw(whole, text)]


def test_long_text_on_the_real_model_stays_within_its_positions(model_dir):
    system = HuggingFaceNER(model=str(model_dir))  # max_length 512 → 128 positions here
    text = " ".join(["Olaf Scholz visited London and Berlin with Google ."] * 40)
    (spans,) = system._predict_raw([text])
    assert all(0 <= s < e <= len(text) for s, e, *_ in spans)
    assert system.stats()["long_texts_windowed"] == 1


def test_windows_cover_every_token_and_avoid_cutting_words(sut):
    size = sut.content_length
    word_ids = [i // 3 for i in range(1000)]  # every word three sub-tokens
    wins = sut._windows(1000, word_ids)
    assert wins[0][0] == 0 and wins[-1][1] == 1000
    for (s0, e0), (s1, e1) in zip(wins, wins[1:]):
        assert s0 < s1 <= e0 and e1 - s1 <= size
        assert word_ids[s1] != word_ids[s1 - 1]  # starts at a word's first sub-token
    assert sut._windows(5, word_ids) == [(0, 5)]


def test_decoding_schemes():
    w = lambda *labels: [(i * 2, i * 2 + 1, lab, 0.5) for i, lab in enumerate(labels)]  # noqa: E731
    spans = lambda *labels: [(s, e, t) for s, e, t, _ in decode_words(w(*labels))]  # noqa: E731
    assert spans("B-PER", "I-PER", "O", "I-LOC", "I-LOC", "B-LOC") == [
        (0, 3, "PER"), (6, 9, "LOC"), (10, 11, "LOC")]                    # IOB2 and IOB1
    assert spans("S-PER", "B-ORG", "I-ORG", "E-ORG", "E-ORG", "U-LOC", "L-LOC") == [
        (0, 1, "PER"), (2, 7, "ORG"), (8, 9, "ORG"), (10, 11, "LOC"), (12, 13, "LOC")]  # BIOES
    assert spans("PER", "PER", "O", "LOC", "ORG") == [(0, 3, "PER"), (6, 7, "LOC"), (8, 9, "ORG")]
    assert spans("B-PER", "I-LOC") == [(0, 1, "PER"), (2, 3, "LOC")]
    assert parse_label("B-WORK_OF_ART") == ("B", "WORK_OF_ART")
    assert parse_label("O") == (None, None) and parse_label("MISC") == ("I", "MISC")


def test_missing_folder_is_model_not_available(tmp_path):
    with pytest.raises(ModelNotAvailable) as exc:
        HuggingFaceNER(model=str(tmp_path / "no-such-model"))
    message = str(exc.value)
    assert "no-such-model" in message and "save_pretrained" in message
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelNotAvailable, match="no config.json"):
        HuggingFaceNER(model=str(tmp_path / "empty"))


def test_hub_name_without_network_is_model_not_available(monkeypatch, tmp_path):
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "cache"))
    with pytest.raises(ModelNotAvailable) as exc:
        HuggingFaceNER(model="mtrun-tests/no-such-ner-model")
    message = str(exc.value)
    assert "mtrun-tests/no-such-ner-model" in message
    assert "save_pretrained" in message and "model:" in message
    assert exc.value.exit_code == ExitCode.USAGE_ERROR


def _suite(tmp_path, model):
    (tmp_path / "corpus.txt").write_text(
        "Angela Merkel met Emmanuel Macron and Olaf Scholz in Paris and Berlin.\n"
        "Google and Microsoft compete in London and Paris.\n", encoding="utf-8")
    path = tmp_path / "s.yaml"
    path.write_text(f"name: hf\ntask: ner\nsut: {{type: hf, model: {json.dumps(str(model))}}}\n"
                    "corpus: {path: corpus.txt}\ntransformations:\n  - type: entity_shuffle\n",
                    encoding="utf-8")
    return path


def test_suite_runs_end_to_end_with_a_folder_model(tmp_path, model_dir):
    code = main([str(_suite(tmp_path, model_dir)), "-o", str(tmp_path / "out"), "-q"])
    assert code in (ExitCode.OK, ExitCode.VIOLATIONS, ExitCode.NOTHING_TO_TEST)
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    sut_info = results["components"]["sut"]
    assert sut_info["type"] == "hf" and sut_info["backend"] == "transformers"
    assert sut_info["model"] == str(model_dir) and sut_info["labels"] == LABELS


def test_a_model_folder_is_found_beside_the_suite(tmp_path, model_dir, monkeypatch):
    import shutil

    suite_dir = tmp_path / "suites"
    suite_dir.mkdir()
    shutil.copytree(model_dir, suite_dir / "models" / "ner")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)      # the path is read from the suite's folder, not from here
    code = main([str(_suite(suite_dir, "models/ner")), "-o", str(tmp_path / "out"), "-q"])
    assert code in (ExitCode.OK, ExitCode.VIOLATIONS, ExitCode.NOTHING_TO_TEST)
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert results["components"]["sut"]["model"] == str((suite_dir / "models" / "ner").resolve())


def test_suite_with_a_missing_model_exits_4(tmp_path, capsys):
    code = main([str(_suite(tmp_path, tmp_path / "nowhere")), "-o", str(tmp_path / "out"), "-q"])
    assert code == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert "nowhere" in err and "save_pretrained" in err and "Traceback" not in err
