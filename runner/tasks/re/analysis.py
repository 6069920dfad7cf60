"""How many of an RE MR's passes test something: a group whose source and follow-up both got
``no_relation`` passes MR-R1, R3 and R4 without the system having found any relation (an
*inert* pass). The analyzer counts, per MR, the judged groups, the inert passes, the groups
whose source had a relation, and the violations among those; results.json gets them as
``re_passes`` and the report shows them beside the MR's rate (``rate_with_relation``: the
violations among the groups whose source got a relation)."""
from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from runner.tasks.re.types import NO_RELATION
from runner.types import Outcome, TestCase

_KEYS = ("judged", "fail", "inert", "with_relation", "fail_with_relation")


def _label(pred: Any) -> str:
    return getattr(pred, "label", "") or ""


class REAnalyzer:
    """Counts per MR; ``checkpoint`` keeps the recorded batches' counts for ``--resume``."""

    def __init__(self) -> None:
        self.done: dict[str, Counter] = {}
        self.pending: dict[str, Counter] = {}

    def observe(self, batch: Sequence[Any], predictions: Sequence[Any]) -> None:
        pass

    def process(self, cases: list[TestCase]) -> list[TestCase]:
        for c in cases:
            if c.verdict.outcome not in (Outcome.PASS, Outcome.FAIL):
                continue
            mr = c.follow_up.meta.get("mr") or c.follow_up.transformation
            n = self.pending.setdefault(mr, Counter())
            failed = c.verdict.outcome is Outcome.FAIL
            n["judged"] += 1
            n["fail"] += failed
            src = _label(c.source_prediction)
            if src == NO_RELATION:
                n["inert"] += (not failed and _label(c.follow_up_prediction) == NO_RELATION)
            else:
                n["with_relation"] += 1
                n["fail_with_relation"] += failed
        return cases

    def checkpoint(self) -> dict[str, Any]:
        for mr, n in self.pending.items():
            self.done.setdefault(mr, Counter()).update(n)
        self.pending = {}
        return {"re_passes": {mr: dict(n) for mr, n in self.done.items()}}

    def restore_from_progress(self, path: Any) -> None:
        from runner.checkpoint import last_analysis

        last = last_analysis(path)
        self.done = {mr: Counter(n) for mr, n in ((last or {}).get("re_passes") or {}).items()}
        self.pending = {}

    def results(self) -> dict[str, Any]:
        out = {}
        for mr in sorted(self.done):
            n = self.done[mr]
            row = {k: int(n.get(k, 0)) for k in _KEYS}
            row["violation_rate"] = round(row["fail"] / row["judged"], 4) if row["judged"] else None
            active = row["judged"] - row["inert"]
            row["rate_without_inert"] = round(row["fail"] / active, 4) if active else None
            row["rate_with_relation"] = (round(row["fail_with_relation"] / row["with_relation"], 4)
                                         if row["with_relation"] else None)
            out[mr] = row
        return {"re_passes": out} if out else {}
