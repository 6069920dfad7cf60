"""A tiny second task, for the tests only: sentence polarity classification (a label per text, no
span anywhere). It proves the engine, the suite machinery, the report, JUnit, Markdown and diff
run on a task that is not NER.

- input: the text; prediction: a label (``POS``/``NEG`` after the label map);
- ``scripted`` system: NEG when a negative word occurs, POS otherwise, with a planted bug (the
  word "indeed" makes everything POS) unless ``fixed: true``; the text "CRASH" cannot be answered;
- ``add_indeed`` (per source): " indeed" inserted before the final full stop; relation
  ``same_label``: the label does not change;
- ``concat_next`` (batch level): the source followed by the next source of the batch; relation
  ``agree_if_same``: when both sources have the same label the concatenation has it too, else the
  relation does not apply (skip).
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from runner.errors import SuiteError
from runner.registry import Registry
from runner.sut.base import SystemUnderTest
from runner.params import python_sut_params
from runner.sut.python_sut import build_python_system
from runner.sut.remote import SUTCallError
from runner.tasks.base import Task
from runner.transforms.base import BatchItem, Transformation
from runner.types import Edit, FollowUp, Outcome, Replacement, Verdict

NEGATIVE = {"not", "never", "bad", "awful"}


@dataclass(frozen=True)
class Review:
    id: str
    text: str
    origin: str


class ReviewCorpus:
    def __init__(self, path: Path) -> None:
        self.path = path

    def __iter__(self) -> Iterator[Review]:
        for n, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                yield Review(f"{self.path.stem}:{n}", line.strip(), f"{self.path.name}:{n}")

    def count(self) -> int:
        n = sum(1 for _ in self)
        if not n:
            raise SuiteError("the corpus has no review", file=str(self.path))
        return n


class LabelSystem(SystemUnderTest):
    """A raw answer is the system's label; the suite's label map gives the common one."""

    def _convert(self, raw: Any) -> str:
        label = self.label_map.get(raw, raw if self.keep_unmapped else None)
        if label is None:
            self.dropped_labels[raw] += 1
            return "NONE"
        return label

    def _check_raw(self, item: Any, raw: Any) -> None:
        if not isinstance(raw, str):
            raise RuntimeError(f"{self.name}: a label is a string, got {raw!r}")


class ScriptedClassifier(LabelSystem):
    name = "scripted"

    def __init__(self, *, fixed: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fixed = fixed

    def describe(self) -> dict[str, Any]:
        return {"model": "scripted-polarity", "fixed": self.fixed}

    def _predict_raw(self, texts: Sequence[str]) -> list[Any]:
        out: list[Any] = []
        for text in texts:
            words = {w.strip(".,!?").lower() for w in text.split()}
            if "CRASH" in text:
                out.append(SUTCallError("the classifier cannot read this text"))
            elif "indeed" in words and not self.fixed:  # the planted bug
                out.append("positive")
            else:
                out.append("negative" if words & NEGATIVE else "positive")
        return out


class AddIndeed(Transformation):
    name = "add_indeed"

    def _generate(self, source: Review, prediction: str, rng: random.Random,
                  doc: Any) -> list[FollowUp]:
        if not source.text.endswith("."):
            return []
        end = len(source.text) - 1
        return [FollowUp.from_replacements(source.text, [Replacement(end, end, " indeed")],
                                           self.name, case="inserted")]


class ConcatNext(Transformation):
    """A follow-up made of two sources of the batch: it is judged against the first and carries
    the second in ``others``."""

    name = "concat_next"

    def generate_batch(self, items: Sequence[BatchItem]) -> list[list[FollowUp]]:
        out: list[list[FollowUp]] = []
        for k, item in enumerate(items):
            if k + 1 >= len(items):
                out.append([])
                continue
            other = items[k + 1]
            edit = Edit(item.source.text, (Replacement(len(item.source.text),
                                                       len(item.source.text),
                                                       " " + other.source.text),))
            out.append([FollowUp(edit.target, edit, self.name, {"with": other.source.id},
                                 others=((other.source, other.prediction),))])
        return out


class SameLabel:
    name = "same_label"

    def __init__(self, **params: Any) -> None:
        self.params = params

    def describe(self) -> dict[str, Any]:
        return {"type": self.name}

    def check(self, *, source, source_prediction, follow_up, follow_up_prediction, expected):
        if follow_up_prediction == expected:
            return Verdict(Outcome.PASS)
        return Verdict(Outcome.FAIL, f"{expected} → {follow_up_prediction}",
                       ({"source": expected, "follow_up": follow_up_prediction},))


class AgreeIfSame(SameLabel):
    name = "agree_if_same"

    def check(self, *, source, source_prediction, follow_up, follow_up_prediction, expected):
        (_, other_prediction), = follow_up.others
        if other_prediction != source_prediction:
            return Verdict(Outcome.SKIP, "the two sources have different labels")
        return super().check(source=source, source_prediction=source_prediction,
                             follow_up=follow_up, follow_up_prediction=follow_up_prediction,
                             expected=expected)


def _factory(cls):
    return lambda **kwargs: cls(**kwargs)


SUTS = Registry("sut")
SUTS.add("scripted", _factory(ScriptedClassifier), description="Keyword polarity with a bug.",
         params={"fixed": {"type": "boolean", "default": False},
                 "batch_size": {"type": "integer", "minimum": 1, "default": 4},
                 "label_map": {"type": "object", "default": {"positive": "POS",
                                                             "negative": "NEG"}},
                 "keep_unmapped": {"type": "boolean", "default": False}})
SUTS.add("python", build_python_system, description="A function: texts in, labels out.",
         required=("callable",),
         params={**python_sut_params(),
                 "label_map": {"type": "object", "default": {"positive": "POS",
                                                             "negative": "NEG"}},
                 "keep_unmapped": {"type": "boolean", "default": False}}, task=True)
TRANSFORMATIONS = Registry("transformation")
TRANSFORMATIONS.add("add_indeed", _factory(AddIndeed), description="Insert 'indeed'.",
                    params={}, relation="same_label", max_per_source=lambda p: 1)
TRANSFORMATIONS.add("concat_next", _factory(ConcatNext), description="Source + next source.",
                    params={}, relation="agree_if_same", max_per_source=lambda p: 1)
RELATIONS = Registry("relation")
RELATIONS.add("same_label", _factory(SameLabel), description="The label stays.", params={})
RELATIONS.add("agree_if_same", _factory(AgreeIfSame), description="Same labels agree.",
              params={})
FILTERS = Registry("filter")


class PolarityTask(Task):
    name = "toy"
    description = "sentence polarity (tests only)"
    corpus_extensions = {".txt": "text"}
    types_column = "Labels"

    def registries(self) -> dict[str, Registry]:
        return {"sut": SUTS, "transformations": TRANSFORMATIONS, "relations": RELATIONS,
                "filters": FILTERS}

    def corpus_schema(self) -> dict[str, Any]:
        return {"type": "object", "additionalProperties": False, "required": ["path"],
                "properties": {"path": {"type": "string", "minLength": 1},
                               "format": {"enum": ["auto", "text"], "default": "auto"}}}

    def system_base(self) -> type:
        return LabelSystem

    def corpus(self, suite: Any) -> ReviewCorpus:
        return ReviewCorpus(suite.corpus_path)

    def empty_prediction(self) -> str:
        return "NONE"

    def expected(self, source: Review, prediction: str, follow_up: FollowUp) -> str:
        return prediction

    def prediction_from_json(self, data: Any, item: Any) -> str:
        if not isinstance(data, str):
            raise ValueError(f"a label is a string, got {data!r}")
        return data

    def difference_text(self, case: dict[str, Any]) -> str:
        return (f"label {case['source']['prediction']} → {case['follow_up']['prediction']}"
                if case["verdict"]["outcome"] == "fail" else case["verdict"].get("reason", ""))

    def case_view(self, case: dict[str, Any]) -> dict[str, Any]:
        view = super().case_view(case)
        view["types"] = sorted({case["source"]["prediction"], case["follow_up"]["prediction"]})
        return view
