"""The repair panel with the retrained CRF referee (CrossNER's Wikipedia sentences added to its
corpus): its default (``repair.crf_beyond_pair: false``, the relabel stays within the two
disputed categories) against the rule beyond the pair (``true``: the CRF's reading in both
sentences, neither disputed category, decides with one spaCy referee that reads it so in both).
Measured against gold on finished runs, each run's violations repaired twice, as the engine
repairs them (``bench/repair_eval.py``).

Usage: python bench/repair_crf_beyond.py [--save bench/results/repair_crf_beyond.json [--keep]]
           ROLE:SUITE.yaml:RUN_DIR ...

ROLE: ``chosen`` (the rule beyond the pair was chosen on its repairs: the nine tuning sets) or
``measured`` (repaired with it only after it was frozen). Prints per set and pooled over each
role TT/TF/FT/FF with the rule, and ErrorReduce and Cor2Err with the default and with the rule;
``--save``/``--keep`` as in ``bench/repair_article.py``. The earlier CRF's figures are in
``bench/results/repair_crf_splits.json`` (its ``rule`` arm).
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import repair_article  # noqa: E402

ARMS = {"rule": {"crf_referee": "embedded", "crf_beyond_pair": True},
        "without": {"crf_referee": "embedded", "crf_beyond_pair": False}}
HEADER = ("| set | role | TT / TF / FT / FF beyond the pair | "
          "ErrorReduce default → beyond the pair | Cor2Err default → beyond the pair |")


if __name__ == "__main__":
    sys.exit(repair_article.main(sys.argv[1:], doc=__doc__, script="repair_crf_beyond.py",
                                 arms=ARMS, header=HEADER))
