"""stanza and flair as systems under test, each on a tiny NER model trained offline here and
loaded through the adapter's real loading code. stanza: made-up word vectors, 40 training steps.
flair: one-hot embeddings, 60 steps; where flair cannot be installed (flair 0.15 requires
transformers<5) the test is skipped with that reason."""
from __future__ import annotations

import json
import random

import pytest

from runner.cli import main
from runner.errors import ExitCode, ModelNotAvailable

PERSONS = ["Ann", "Bob", "Carl", "Dora"]
PLACES = ["Paris", "Berlin", "Tokyo"]


@pytest.fixture(scope="module")
def tiny_stanza(tmp_path_factory):
    pytest.importorskip("stanza", reason="stanza is not installed: pip install -e \".[stanza]\"")
    from stanza.models import ner_tagger
    from stanza.models.common.pretrain import Pretrain

    out = tmp_path_factory.mktemp("stanza")
    rng = random.Random(0)
    sents = []
    for _ in range(60):
        p1, p2 = rng.sample(PERSONS, 2)
        toks = [(p1, "S-PER"), ("met", "O"), (p2, "S-PER"), ("in", "O"),
                (rng.choice(PLACES), "S-LOC"), (".", "O")]
        sents.append([{"text": t, "ner": n} for t, n in toks])
    (out / "train.json").write_text(json.dumps(sents), encoding="utf-8")
    words = sorted({w["text"] for s in sents for w in s})
    with open(out / "vectors.txt", "w", encoding="utf-8") as f:
        f.write(f"{len(words)} 8\n")
        for w in words:
            f.write(w + " " + " ".join(f"{rng.uniform(-1, 1):.3f}" for _ in range(8)) + "\n")
    Pretrain(str(out / "pretrain.pt"), str(out / "vectors.txt")).load()
    ner_tagger.main(["--mode", "train", "--train_file", str(out / "train.json"),
                     "--eval_file", str(out / "train.json"),
                     "--wordvec_pretrain_file", str(out / "pretrain.pt"), "--save_dir", str(out),
                     "--save_name", "ner.pt", "--shorthand", "en_tiny", "--max_steps", "40",
                     "--eval_interval", "20", "--hidden_dim", "16", "--char_hidden_dim", "8",
                     "--word_emb_dim", "8", "--char_emb_dim", "8", "--batch_size", "8",
                     "--lr", "0.5", "--seed", "1"])
    # a resources folder with no downloaded model: the NER model is given by path
    resources = out / "resources"
    resources.mkdir()
    (resources / "resources.json").write_text(json.dumps(
        {"en": {"lang_name": "English", "default_processors": {}, "packages": {},
                "tokenize": {}, "ner": {}}}), encoding="utf-8")
    return out


@pytest.mark.slow
def test_stanza_tiny_model_predicts_character_spans(tiny_stanza):
    from runner.tasks.ner.catalog import SUTS

    sut = SUTS.get("stanza").factory(
        model_dir=str(tiny_stanza / "resources"), ner_model=str(tiny_stanza / "ner.pt"),
        ner_pretrain=str(tiny_stanza / "pretrain.pt"), tokenizer="spacy",
        label_map={"PER": "PERSON", "LOC": "LOCATION"}, batch_size=8)
    texts = ["Ann met Bob in Paris.", "Zoë said: Carl met Dora in Tokyo.", "Nothing here ."]
    preds = sut.predict(texts)
    found = [{(t[s.start:s.end], s.label) for s in p.spans} for t, p in zip(texts, preds)]
    assert {("Ann", "PERSON"), ("Bob", "PERSON"), ("Paris", "LOCATION")} <= found[0]
    assert {("Carl", "PERSON"), ("Tokyo", "LOCATION")} <= found[1]
    assert sut.describe()["backend"] == "stanza" and sut.describe()["model_sha256"]
    assert sut.calls == 1  # one batched call for the three texts


@pytest.mark.slow
def test_stanza_suite_runs_end_to_end(tiny_stanza, tmp_path):
    (tmp_path / "corpus.txt").write_text(
        "Ann met Bob in Paris.\nCarl met Dora in Berlin.\nDora met Ann in Tokyo.\n",
        encoding="utf-8")
    (tmp_path / "s.yaml").write_text(
        "name: st\ntask: ner\nsut:\n  type: stanza\n"
        f"  model_dir: {tiny_stanza / 'resources'}\n  ner_model: {tiny_stanza / 'ner.pt'}\n"
        f"  ner_pretrain: {tiny_stanza / 'pretrain.pt'}\n  tokenizer: spacy\n"
        "device: cpu\ncorpus: {path: corpus.txt}\ntransformations:\n  - type: entity_shuffle\n",
        encoding="utf-8")
    code = main([str(tmp_path / "s.yaml"), "-o", str(tmp_path / "out"), "-q"])
    assert code in (ExitCode.OK, ExitCode.VIOLATIONS)
    r = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert r["components"]["sut"]["backend"] == "stanza"
    assert r["overall"]["cases"] >= 3
    assert "cache" not in r["suite"]["filled"] or "persistent_hits" not in r["stats"]["sut"]["cache"]


def test_stanza_without_models_names_the_folder(tmp_path):
    pytest.importorskip("stanza", reason="stanza is not installed: pip install -e \".[stanza]\"")
    from runner.tasks.ner.sut.stanza_sut import StanzaNER

    with pytest.raises(ModelNotAvailable, match=r"no models in .*nowhere.*stanza.download"):
        StanzaNER(model_dir=str(tmp_path / "nowhere"), label_map={})


def _flair_unavailable() -> str | None:
    try:
        import flair  # noqa: F401
        from flair.models import SequenceTagger  # noqa: F401
    except ImportError as exc:
        from importlib import metadata

        try:
            tf = metadata.version("transformers")
        except metadata.PackageNotFoundError:
            tf = "not installed"
        return (f"flair cannot be imported here ({exc}); flair 0.15.1, the latest release, "
                f"requires transformers<5.0 while this environment holds transformers {tf}, so "
                "installing it would replace transformers (install mtrun[flair] in an "
                "environment of its own)")
    return None


@pytest.mark.slow
def test_flair_tiny_tagger(tmp_path):
    reason = _flair_unavailable()
    if reason:
        pytest.skip(reason)
    import itertools

    import flair
    import torch
    from flair.data import Corpus, Sentence
    from flair.datasets import FlairDatapointDataset
    from flair.embeddings import OneHotEmbeddings
    from flair.models import SequenceTagger

    flair.set_seed(1)
    train = []
    for p1, p2 in itertools.permutations(PERSONS, 2):
        s = Sentence(f"{p1} met {p2} .")
        s[0:1].add_label("ner", "PER")  # spans, as flair NER corpora label them
        s[2:3].add_label("ner", "PER")
        train.append(s)
    data = FlairDatapointDataset(train)
    corpus = Corpus(data, data, data)
    tagger = SequenceTagger(hidden_size=8, tag_type="ner", use_crf=False,
                            embeddings=OneHotEmbeddings.from_corpus(corpus, min_freq=1,
                                                                   embedding_length=8),
                            tag_dictionary=corpus.make_label_dictionary("ner", add_unk=False))
    optimizer = torch.optim.Adam(tagger.parameters(), lr=0.05)
    for _ in range(60):
        for s in train:
            s.clear_embeddings()
        optimizer.zero_grad()
        loss, n = tagger.forward_loss(train)
        (loss / n).backward()
        optimizer.step()
    path = tmp_path / "tiny.pt"
    tagger.save(path)

    from runner.tasks.ner.sut.flair_sut import FlairNER

    sut = FlairNER(model=str(path), label_map={"PER": "PERSON"})
    texts = ["Dora met Ann .", "  Bob met Carl ."]
    preds = sut.predict(texts)
    assert [[(t[s.start:s.end], s.label) for s in p.spans] for t, p in zip(texts, preds)] == [
        [("Dora", "PERSON"), ("Ann", "PERSON")], [("Bob", "PERSON"), ("Carl", "PERSON")]]
    assert sut.describe()["backend"] == "flair" and sut.describe()["model_sha256"]
    # and as a suite, end to end: shuffling the two persons is tested
    (tmp_path / "c.txt").write_text("Ann met Bob .\nCarl met Dora .\n", encoding="utf-8")
    (tmp_path / "s.yaml").write_text(
        f"name: fl\ntask: ner\nsut: {{type: flair, model: {path}, label_map: {{PER: PERSON}}}}\n"
        "device: cpu\ncorpus: {path: c.txt}\ntransformations:\n  - type: entity_shuffle\n",
        encoding="utf-8")
    assert main([str(tmp_path / "s.yaml"), "-o", str(tmp_path / "out"), "-q"]) == ExitCode.OK
    r = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert r["components"]["sut"]["backend"] == "flair" and r["overall"]["pass"] == 2


def test_flair_missing_is_a_clear_error(tmp_path, capsys):
    if _flair_unavailable() is None:
        pytest.skip("flair is installed here: the missing-library message is not reachable")
    (tmp_path / "c.txt").write_text("Ann met Bob.\n", encoding="utf-8")
    (tmp_path / "s.yaml").write_text(
        "name: f\ntask: ner\nsut: {type: flair, model: flair/ner-english}\ndevice: cpu\n"
        "corpus: {path: c.txt}\ntransformations:\n  - type: entity_shuffle\n", encoding="utf-8")
    assert main([str(tmp_path / "s.yaml"), "-o", str(tmp_path / "o"), "-q"]) == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert "pip install -e \".[flair]\"" in err and "Traceback" not in err
