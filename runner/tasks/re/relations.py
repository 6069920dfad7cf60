"""The oracles of RE metamorphic testing: the output relationship of each MR (paper Table 1).

Every transformation writes the relation its follow-up must get in ``meta["expected_relation"]``
(derived from the source's answer and the suite's tables); an oracle compares the follow-up's
answer with it. The four oracles differ in which follow-ups they accept and how they explain a
violation: ``identical`` (MR-R1, R3, R4, S1), ``coarser`` (MR-R2), ``inverse`` (MR-S2) and
``composed`` (MR-C1, C2). A follow-up without an expectation of the oracle's kind is ``skip``
(the relation does not apply), never ``pass``.
"""
from __future__ import annotations

from typing import Any, ClassVar

from runner.tasks.re.types import REPrediction
from runner.types import Outcome, Verdict

ORACLE_OF_MR = {"MR-R1": "identical", "MR-R2": "coarser", "MR-R3": "identical",
                "MR-R4": "identical", "MR-S1": "identical", "MR-S2": "inverse",
                "MR-C1": "composed", "MR-C2": "composed"}


class REOracle:
    name: ClassVar[str]
    explain: ClassVar[str]

    def __init__(self, **params: Any) -> None:
        self.params = params

    def describe(self) -> dict[str, Any]:
        return {"type": self.name, **self.params}

    def check(self, *, source: Any, source_prediction: REPrediction, follow_up: Any,
              follow_up_prediction: REPrediction, expected: str | None = None) -> Verdict:
        meta = follow_up.meta
        if expected is None:
            expected = meta.get("expected_relation")
        if expected is None or ORACLE_OF_MR.get(meta.get("mr", "")) != self.name:
            return Verdict(Outcome.SKIP, f"{self.name} does not apply to "
                                         f"{meta.get('mr') or follow_up.transformation} follow-ups")
        got = follow_up_prediction.label
        diff = {"source": source_prediction.label, "expected": expected, "follow_up": got}
        if got == expected:
            return Verdict(Outcome.PASS, differences=())
        return Verdict(Outcome.FAIL, f"expected {expected} ({self._why(source_prediction, meta)}),"
                                     f" got {got}", differences=(diff,))

    def _why(self, source_prediction: REPrediction, meta: dict[str, Any]) -> str:
        return self.explain.format(source=source_prediction.label, **meta)


class Identical(REOracle):
    name = "identical"
    explain = "the source's relation"


class Coarser(REOracle):
    name = "coarser"
    explain = "{source} with the {new_type} in place of the city"


class Inverse(REOracle):
    name = "inverse"
    explain = "the inverse of {source}"


class Composed(REOracle):
    name = "composed"
    explain = "the second pair's relation, composed with {first_relation}"


ORACLES: dict[str, type[REOracle]] = {o.name: o for o in (Identical, Coarser, Inverse, Composed)}
