"""Stages that join the engine's pipeline after a batch's cases (NER: adversarial attacks).

A task contributes its stages (:meth:`runner.tasks.base.Task.stages`); the engine imports none of
them by name. For every batch the engine runs the metamorphic cases, then each stage on the
batch's sources and their predictions, and records the stage's records in its own file
(``records_file``) with the batch's cases, before the batch's progress mark: ``--resume`` cuts
a stage's records back to the last batch recorded whole, as it does the cases.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable, Protocol


class BatchStage(Protocol):
    #: its key in results.json and in ``components`` (NER's attacks: ``attacks``)
    name: str
    #: the JSONL file, in the output folder, of its records (one line per record)
    records_file: str

    @property
    def needs_parse(self) -> bool:
        """Whether :meth:`run_batch` reads the sources' parse (the engine then loads the parser)."""

    def build(self) -> None:
        """Load its models; called once the run's other components are built."""

    def prepare(self, sources: Callable[[], Iterable[Any]], sut: Any, batch_size: int) -> None:
        """Called once before the first batch, with the whole corpus at hand."""

    def run_batch(self, batch: list[Any], predictions: list[Any],
                  docs: list[Any]) -> list[dict[str, Any]]:
        """The batch's records (JSON-ready), in the batch's order."""

    def describe(self) -> Any:
        """``components[name]`` of results.json."""

    def models(self) -> list[dict[str, Any]]:
        """The models it uses (``components.models``)."""

    def results(self, path: Path) -> dict[str, Any]:
        """``results[name]``, read back from its records file."""

    def threshold_inputs(self, results: dict[str, Any]) -> dict[str, Any]:
        """Keyword arguments it adds to :func:`runner.report.thresholds.evaluate_thresholds`
        (from its own ``results``)."""
