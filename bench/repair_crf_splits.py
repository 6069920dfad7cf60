"""The repair panel's rule where its spaCy referees are split (``repair.crf_decides_splits``):
the CRF referee's reading in both sentences decides alone when it names a disputed type
(``true``, the default) against the earlier rule, under which it needed every spaCy reading but
one (``false``). Measured against gold on finished runs, each run's violations repaired twice,
as the engine repairs them (``bench/repair_eval.py``), with the embedded CRF referee.

Usage: python bench/repair_crf_splits.py [--save bench/results/repair_crf_splits.json [--keep]]
           ROLE:SUITE.yaml:RUN_DIR ...

ROLE: ``chosen`` (the rule was chosen on its repairs: the nine tuning sets) or ``measured``
(repaired with it only after it was frozen). Prints per set and pooled over each role
TT/TF/FT/FF with the rule, and ErrorReduce and Cor2Err with the earlier rule and with this one;
``--save``/``--keep`` as in ``bench/repair_article.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import repair_article  # noqa: E402

ARMS = {"rule": {"crf_referee": "embedded", "crf_decides_splits": True},
        "without": {"crf_referee": "embedded", "crf_decides_splits": False}}
HEADER = ("| set | role | TT / TF / FT / FF with the rule | "
          "ErrorReduce earlier → with the rule | Cor2Err earlier → with the rule |")


if __name__ == "__main__":
    sys.exit(repair_article.main(sys.argv[1:], doc=__doc__, script="repair_crf_splits.py",
                                 arms=ARMS, header=HEADER))
