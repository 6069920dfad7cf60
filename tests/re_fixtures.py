"""Helpers of the relation-extraction tests: inputs from mention strings, a system whose answers
are scripted, a tiny random BERT relation classifier built in memory."""
from __future__ import annotations

import random
from typing import Any, Mapping, Sequence

from runner.tasks.re.sut.base import RESystem
from runner.tasks.re.transforms import BatchItem
from runner.tasks.re.types import NO_RELATION, Argument, REInput, RESource


def arg(text: str, mention: str, typ: str, nth: int = 1) -> Argument:
    pos = -1
    for _ in range(nth):
        pos = text.index(mention, pos + 1)
    return Argument(pos, pos + len(mention), typ)


def source(text: str, head: str, htype: str, tail: str, ttype: str, *, sid: str = "s1",
           gold: str | None = None, coref: dict | None = None) -> RESource:
    return RESource(sid, text, arg(text, head, htype), arg(text, tail, ttype), gold,
                    origin=f"test:{sid}", coref=coref or {})


def pair(inp: REInput) -> tuple[str, str]:
    return inp.head.text_in(inp.text), inp.tail.text_in(inp.text)


class ScriptedRE(RESystem):
    """Answers from a dict: (head text, tail text) → label, or (text, head, tail) → label for one
    sentence; anything else is no_relation."""

    name = "scripted"

    def __init__(self, answers: Mapping[Any, str], **kw: Any) -> None:
        super().__init__(**kw)
        self.answers = dict(answers)
        self.asked: list[REInput] = []

    def describe(self) -> dict[str, Any]:
        return {"backend": "scripted"}

    def _answer(self, inputs: Sequence[REInput]) -> list[Any]:
        self.asked.extend(inputs)
        out = []
        for i in inputs:
            h, t = pair(i)
            label = self.answers.get((i.text, h, t), self.answers.get((h, t), NO_RELATION))
            if label == "!crash":
                out.append(RuntimeError(f"cannot read {h!r}"))
            else:
                out.append([label, 1.0])
        return out


def items(sources: Sequence[RESource], system: RESystem) -> list[BatchItem]:
    preds = system.predict_outcomes([s.input for s in sources])
    return [BatchItem(s, p, random.Random(k)) for k, (s, p) in enumerate(zip(sources, preds))]


TINY_LABELS = ["no_relation", "per:spouse", "per:children", "per:parents"]
TINY_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[E1]", "[/E1]", "[E2]", "[/E2]",
              "anna", "keller", "married", "tom", "brandt", "in", "2009", ".", "lena", "adopted",
              "and", "she", "he", ","]


def tiny_bert_classifier(tmp_path: Any, bias: Sequence[float] | None = None) -> tuple[Any, Any]:
    """A random 2-layer BERT sequence classifier with the entity-marker tokens in its vocabulary
    (as a model fine-tuned with them has); ``bias`` fixes the classifier's answer."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    (tmp_path / "vocab.txt").write_text("\n".join(TINY_VOCAB) + "\n", encoding="utf-8")
    tok = BertTokenizerFast(str(tmp_path / "vocab.txt"), do_lower_case=True,
                            additional_special_tokens=["[E1]", "[/E1]", "[E2]", "[/E2]"])
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(TINY_VOCAB), hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64,
                        id2label=dict(enumerate(TINY_LABELS)),
                        label2id={v: k for k, v in enumerate(TINY_LABELS)})
    model = BertForSequenceClassification(config).eval()
    if bias is not None:
        with torch.no_grad():
            model.classifier.weight.zero_()
            model.classifier.bias.copy_(torch.tensor(list(bias)))
    return tok, model
