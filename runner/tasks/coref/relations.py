"""CREST's metamorphic relation: the follow-up's coreference equals the source's (BLANC)."""
from __future__ import annotations

from typing import Any, ClassVar

from runner.tasks.coref.oracle import judge
from runner.tasks.coref.types import CorefPrediction
from runner.types import FollowUp, Outcome, Verdict


class BlancConsistency:
    """A violation when BLANC precision or recall of the follow-up's clusters (brought back to
    the source's offsets through the edit) against the source's is below its threshold (CREST
    §3.3; both 1.0 by default: any changed link is a violation)."""

    name: ClassVar[str] = "blanc"

    def __init__(self, *, threshold_precision: float = 1.0, threshold_recall: float = 1.0) -> None:
        self.threshold_precision = threshold_precision
        self.threshold_recall = threshold_recall

    def describe(self) -> dict[str, Any]:
        return {"type": self.name, "threshold_precision": self.threshold_precision,
                "threshold_recall": self.threshold_recall}

    def check(self, *, source_text: str, follow_up: FollowUp, source_prediction: CorefPrediction,
              follow_up_prediction: CorefPrediction, expected: Any = None) -> Verdict:
        violated, score = judge(source_prediction, follow_up_prediction, follow_up.edit,
                                threshold_precision=self.threshold_precision,
                                threshold_recall=self.threshold_recall)
        reason = (f"BLANC P={score.precision:.3f} R={score.recall:.3f}: "
                  f"{source_prediction.describe(source_text)} → "
                  f"{follow_up_prediction.describe(follow_up.text)}")
        if not violated:
            return Verdict(Outcome.PASS)
        return Verdict(Outcome.FAIL, reason)
