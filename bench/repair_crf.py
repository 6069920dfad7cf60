"""The repair panel with a referee of another lineage (``repair.crf_referee: stanford``, Stanford
NER's CRF) against the panel of two spaCy pipelines alone, measured against gold on finished
runs: each run's violations repaired twice, as the engine repairs them
(``bench/repair_eval.py``).

Usage: python bench/repair_crf.py [--referee stanford|embedded]
           [--save bench/results/repair_crf.json [--keep]] ROLE:SUITE.yaml:RUN_DIR ...

``--referee embedded`` measures mtrun's own CRF (runner/tasks/ner/repair/crf_tagger.py) in the
same place, with the same frozen rule (record: bench/results/repair_crf_embedded.json).

ROLE: ``chosen`` (the rule that combines the CRF's readings with the panel's was chosen on its
repairs) or ``measured`` (repaired with the rule only after it was frozen). Prints per set and
pooled over each role TT/TF/FT/FF with the CRF, and ErrorReduce and Cor2Err without and with it;
``--save``/``--keep`` as in ``bench/repair_article.py``.

The rule (:func:`runner.tasks.ner.repair.relabel.panel_decision`) was chosen among some twenty on
the default suite's repairs of CrossNER music, AI, science, politics and literature, PUD
measure, re3d, Wikigold b and EWT measure, then frozen; the Re-DocRED sets (b–e, ``_lm``), GUM
(``gum``, ``gum_b_lm``, ``gum_bio``), Wikigold, PUD tune and EWT tune were repaired with it
after.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import repair_article  # noqa: E402


def arms(spec: str = "stanford") -> dict:
    """The two arms: the panel with the CRF referee ``spec``, and without one."""
    return {"rule": {"crf_referee": spec}, "without": {"crf_referee": None}}


HEADER = ("| set | role | TT / TF / FT / FF with the CRF | ErrorReduce panel → with the CRF | "
          "Cor2Err panel → with the CRF |")


def referee(argv: list[str]) -> tuple[list[str], str]:
    """``--referee SPEC`` (default ``stanford``) taken out of the arguments."""
    if "--referee" in argv:
        i = argv.index("--referee")
        return argv[:i] + argv[i + 2:], argv[i + 1]
    return argv, "stanford"


if __name__ == "__main__":
    rest, spec = referee(sys.argv[1:])
    script = "repair_crf.py" + ("" if spec == "stanford" else f" --referee {spec}")
    sys.exit(repair_article.main(rest, doc=__doc__, script=script, arms=arms(spec),
                                 header=HEADER))
