"""What the engine calls after each batch's verdicts in a coreference run: issue types for every
violation (:func:`runner.tasks.coref.oracle.classify`) and, where the corpus has gold clusters,
whether the violation is a real error of the system (the source's or the follow-up's
prediction differs from its gold): the *precision* of testing, as TIN and CREST report it."""
from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any, Sequence

from runner.tasks.coref.oracle import ISSUE_TYPES, classify, gold_check
from runner.types import Outcome, TestCase


class Tally:
    def __init__(self) -> None:
        self.issue_types: Counter[str] = Counter()
        self.basis: Counter[str] = Counter()
        self.gold_violations = 0        # violations whose source has gold clusters
        self.real = 0                   # ... of which the source or follow-up prediction is wrong
        self.source_wrong = 0
        self.follow_up_wrong = 0

    _INTS = ("gold_violations", "real", "source_wrong", "follow_up_wrong")

    def merge(self, other: "Tally") -> None:
        self.issue_types.update(other.issue_types)
        self.basis.update(other.basis)
        for k in self._INTS:
            setattr(self, k, getattr(self, k) + getattr(other, k))

    def state(self) -> dict[str, Any]:
        return {"issue_types": dict(self.issue_types), "basis": dict(self.basis),
                **{k: getattr(self, k) for k in self._INTS}}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "Tally":
        t = cls()
        t.issue_types.update(state.get("issue_types", {}))
        t.basis.update(state.get("basis", {}))
        for k in cls._INTS:
            setattr(t, k, int(state.get(k, 0)))
        return t


class CorefAnalyzer:
    """Per batch: ``process`` types the violations; ``checkpoint`` counts the recorded batch;
    ``restore_from_progress`` takes the totals back on ``--resume``."""

    def __init__(self) -> None:
        self.done = Tally()
        self.pending = Tally()

    def observe(self, batch: Sequence[Any], predictions: Sequence[Any]) -> None:
        pass

    def process(self, cases: list[TestCase]) -> list[TestCase]:
        out = []
        for c in cases:
            if c.verdict.outcome is not Outcome.FAIL:
                out.append(c)
                continue
            gold = getattr(c.source, "gold", None)
            types, basis, details = classify(c.source_prediction, c.follow_up_prediction,
                                             c.follow_up.edit, source_gold=gold)
            verdict = dataclasses.replace(c.verdict, categories=types, categories_basis=basis,
                                          differences=tuple(details))
            self.pending.issue_types.update(types)
            self.pending.basis[basis] += 1
            gold_info = None
            if gold is not None:
                gold_info = gold_check(c.source_prediction, c.follow_up_prediction,
                                       c.follow_up.edit, gold)
                self.pending.gold_violations += 1
                self.pending.real += gold_info["real_error"]
                self.pending.source_wrong += not gold_info["source_correct"]
                self.pending.follow_up_wrong += not gold_info["follow_up_correct"]
            out.append(dataclasses.replace(c, verdict=verdict, gold=gold_info))
        return out

    def checkpoint(self) -> dict[str, Any]:
        self.done.merge(self.pending)
        self.pending = Tally()
        return {"stats": self.done.state()}

    def restore_from_progress(self, path: Any) -> None:
        from runner.checkpoint import last_analysis

        last = last_analysis(path)
        self.done = Tally.from_state(last["stats"]) if last else Tally()
        self.pending = Tally()

    def results(self) -> dict[str, Any]:
        t = self.done
        order = {k: i for i, k in enumerate(ISSUE_TYPES)}
        out: dict[str, Any] = {
            "categories": dict(sorted(t.issue_types.items(), key=lambda kv: order[kv[0]])),
            "categories_basis": dict(t.basis),
        }
        if t.gold_violations:
            out["gold"] = {"violations_with_gold": t.gold_violations, "real_errors": t.real,
                           "precision": round(t.real / t.gold_violations, 4),
                           "source_wrong": t.source_wrong, "follow_up_wrong": t.follow_up_wrong}
        return out
