"""What every relation-extraction system under test adds to the shared one
(:class:`runner.sut.base.SystemUnderTest`: batching, in-run and persistent caches, chunks split on
failure, concurrency): inputs are (text, head, tail), identified in the caches by all three; a raw
answer is ``[label, score]`` (or ``[label, score, raw label]`` when the system reads its own
output into a label, as textacy does), JSON for the persistent cache; the label map sends the
system's labels to the suite's."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from runner.errors import MtrunError
from runner.sut.base import SUTFailure, SystemUnderTest
from runner.sut.remote import SUTCallError
from runner.tasks.re.types import NO_RELATION, REInput, REPrediction

REFailure = SUTFailure


class RESystem(SystemUnderTest):
    """Subclasses set ``name`` and implement :meth:`_answer` (one batched call, one raw answer or
    exception per input) and :meth:`describe`. A label absent from the label map is kept as it
    is (``keep_unmapped``, default) or read as ``no_relation`` and counted."""

    def __init__(self, *, label_map: Mapping[str, str] | None = None, keep_unmapped: bool = True,
                 batch_size: int = 32, **params: Any) -> None:
        super().__init__(label_map=dict(label_map or {}), keep_unmapped=keep_unmapped,
                         batch_size=batch_size, **params)

    def _answer(self, inputs: Sequence[REInput]) -> list[Any]:
        raise NotImplementedError

    def input_key(self, item: Any) -> str:
        return item.key()

    def _predict_raw(self, inputs: Sequence[Any]) -> list[Any]:
        try:
            raw = list(self._answer(inputs))
        except (MtrunError, SUTCallError):    # refused credentials, a call failed for good
            raise
        except Exception as exc:  # noqa: BLE001 — a system crashing on an input is an error case
            raise SUTCallError(f"{self.name}: {type(exc).__name__}: {exc}") from exc
        return [SUTCallError(f"{self.name}: {type(r).__name__}: {r}")
                if isinstance(r, Exception) and not isinstance(r, SUTCallError) else r
                for r in raw]

    def _convert(self, raw: Any) -> REPrediction:
        label, score = raw[0], raw[1]
        said = raw[2] if len(raw) > 2 else label
        if label in self.label_map:
            mapped = self.label_map[label]
        elif self.keep_unmapped:
            mapped = label
        else:
            self.dropped_labels[label] += 1
            mapped = NO_RELATION
        return REPrediction(mapped or NO_RELATION, score, said)
