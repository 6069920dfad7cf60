"""The repair panel's CRF referee retrained with CrossNER's Wikipedia sentences (the shipped
model) against the earlier model (web text, filings and tweets only), both under the default
rule. The earlier model is taken from git (commit ``EARLIER``) into a temporary folder and served
as ``crf_referee: embedded:FOLDER``. Measured against gold on finished runs, each run's
violations repaired twice, as the engine repairs them (``bench/repair_eval.py``).

Usage: python bench/repair_crf_retrained.py [--save bench/results/repair_crf_retrained.json
           [--keep]] ROLE:SUITE.yaml:RUN_DIR ...

ROLE: ``chosen`` (the retrained model and the rule beyond the disputed pair were chosen on its
repairs: the nine tuning sets) or ``measured`` (repaired with it only after). Prints per set and
pooled over each role TT/TF/FT/FF with the retrained model, and ErrorReduce and Cor2Err with the
earlier model and with the retrained one; ``--save``/``--keep`` as in
``bench/repair_article.py``.
"""
from __future__ import annotations

import atexit
import functools
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import repair_article  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
#: the last commit that ships the earlier model (trained at 67aef52)
EARLIER = "7408e02"
HEADER = ("| set | role | TT / TF / FT / FF retrained | ErrorReduce earlier → retrained | "
          "Cor2Err earlier → retrained |")


@functools.lru_cache(maxsize=None)
def earlier(at: str = EARLIER) -> str:
    """A temporary folder holding the model the repository shipped at commit ``at``, its card
    and its clusters (from git), for ``crf_referee: embedded:FOLDER``."""
    folder = Path(tempfile.mkdtemp(prefix="mtrun-crf-earlier-"))
    atexit.register(shutil.rmtree, folder, True)
    from runner.tasks.ner.repair.crf_tagger import CARD, CLUSTERS, MODEL, RAW

    # the model gzip-compressed, or (before it was) as CRFsuite wrote it
    for names in ((MODEL.name, RAW), (CARD.name,), (CLUSTERS.name,)):
        for name in names:
            got = subprocess.run(["git", "show", f"{at}:runner/tasks/ner/repair/data/{name}"],
                                 cwd=ROOT, capture_output=True)
            if got.returncode == 0:
                (folder / name).write_bytes(got.stdout)
                break
        else:
            raise SystemExit(f"{at}: runner/tasks/ner/repair/data/ has no {' or '.join(names)}")
    return str(folder)


def arms() -> dict:
    """The shipped (retrained) model, and the earlier one."""
    return {"rule": {"crf_referee": "embedded"},
            "without": {"crf_referee": f"embedded:{earlier()}"}}


if __name__ == "__main__":
    sys.exit(repair_article.main(sys.argv[1:], doc=__doc__, script="repair_crf_retrained.py",
                                 arms=arms(), header=HEADER))
