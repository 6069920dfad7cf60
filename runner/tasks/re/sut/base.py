"""What every relation-extraction system under test shares: batched calls, a label map, an
in-run prediction cache keyed by the whole input (text, head, tail), and failures that become
``error`` cases instead of stopping the run."""
from __future__ import annotations

import hashlib
import json
from collections import Counter, OrderedDict
from typing import Any, ClassVar, Mapping, Sequence

from runner.errors import MtrunError
from runner.tasks.re.types import NO_RELATION, REInput, REPrediction

RawRelation = tuple[str, "float | None"]     # the system's own label, its score


class REFailure:
    """In place of a prediction: the system could not answer about this input."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __repr__(self) -> str:
        return f"REFailure({self.reason!r})"


class RESystem:
    """Subclasses set ``name`` and implement :meth:`_predict_raw` (one batched call) and
    :meth:`describe`. A label map sends the system's labels to the suite's; a label absent from
    the map is kept as it is (``keep_unmapped``, default) or read as ``no_relation``."""

    name: ClassVar[str]
    remote: ClassVar[bool] = False

    def __init__(self, *, label_map: Mapping[str, str] | None = None, keep_unmapped: bool = True,
                 batch_size: int = 32, **params: Any) -> None:
        self.label_map = dict(label_map or {})
        self.keep_unmapped = keep_unmapped
        self.batch_size = batch_size
        self.params = params
        self._cache: OrderedDict[str, REPrediction] = OrderedDict()
        self.calls = 0
        self.inputs_sent = 0
        self.failed_inputs = 0
        self.unmapped: Counter[str] = Counter()

    def _predict_raw(self, inputs: Sequence[REInput]) -> list[RawRelation | Exception]:
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        raise NotImplementedError

    def fingerprint(self) -> str:
        payload = json.dumps({"sut": self.describe(), "label_map": self.label_map,
                              "keep_unmapped": self.keep_unmapped}, sort_keys=True, default=str)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def _map(self, raw: RawRelation) -> REPrediction:
        label, score = raw
        if label in self.label_map:
            mapped = self.label_map[label]
        elif self.keep_unmapped:
            mapped = label
        else:
            self.unmapped[label] += 1
            mapped = NO_RELATION
        return REPrediction(mapped or NO_RELATION, score, label)

    def predict(self, inputs: Sequence[REInput]) -> list[REPrediction | REFailure]:
        """Predictions in order; an input asked before (in this run) is not sent again."""
        keys = [i.key() for i in inputs]
        out: list[REPrediction | REFailure | None] = [self._cache.get(k) for k in keys]
        todo: dict[str, REInput] = {}
        for k, inp, p in zip(keys, inputs, out):
            if p is None:
                todo.setdefault(k, inp)
        fresh: dict[str, REPrediction | REFailure] = {}
        items = list(todo.items())
        for n in range(0, len(items), self.batch_size):
            chunk = items[n:n + self.batch_size]
            self.calls += 1
            self.inputs_sent += len(chunk)
            try:
                raw = list(self._predict_raw([inp for _, inp in chunk]))
                if len(raw) != len(chunk):
                    raise RuntimeError(f"{len(raw)} answers for {len(chunk)} inputs")
            except MtrunError:       # refused credentials, missing model: every call would fail
                raise
            except Exception as exc:  # noqa: BLE001 — one failing call must not stop the run
                raw = [exc] * len(chunk)
            for (k, _), r in zip(chunk, raw):
                if isinstance(r, Exception):
                    self.failed_inputs += 1
                    fresh[k] = REFailure(f"{self.name}: {type(r).__name__}: {r}")
                    continue
                fresh[k] = pred = self._map(r)
                self._cache[k] = pred
        return [p if p is not None else fresh[k] for k, p in zip(keys, out)]

    def stats(self) -> dict[str, Any]:
        out: dict[str, Any] = {"calls": self.calls, "inputs_sent": self.inputs_sent,
                               "cache_entries": len(self._cache)}
        if self.failed_inputs:
            out["failed_inputs"] = self.failed_inputs
        if self.unmapped:
            out["unmapped_labels"] = dict(self.unmapped.most_common())
        return out
