"""Which ``entity_shuffle`` follow-ups of finished runs exchange a place with the country or state
written right after it as its region ("Radnor, Pennsylvania" → "Pennsylvania, Radnor"): those
that ``mode: pairs`` with ``subtypes`` no longer makes (``_qualifies`` in
``runner/tasks/ner/transforms/entity_shuffle.py``).

Usage: python bench/ner_shuffle_qualified.py RUN_DIR ...

Per run, the shuffle follow-ups it recorded whose two exchanged names are such a place and
region (the names' kinds read again from the gazetteer, as the transformation reads them), with
their verdicts. The rule came from one false alarm read on ``suites/data/redocred_ner_b.jsonl``.
Over the default suite's and the suite before the LM's nineteen runs on seventeen gold sets it
removes 7 of 3,131 follow-ups (6 different sentences, 3 of the follow-ups violations); both
readers found none of the 6 natural (``bench/reads/ner_shuffle_qualified.*``: the sentence
pairs, the first reader's and the blind reader's marks).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runner.tasks.ner.transforms.entity_shuffle import _qualifies, subtype_kind  # noqa: E402


def exchanged(case: dict) -> tuple[str, str, str] | None:
    """(label, a, b): the two names a ``mode: pairs`` follow-up exchanged, or None."""
    src = case["source"]["text"]
    for label, swapped in case["follow_up"]["meta"].get("order", {}).items():
        names = [src[e["start"]:e["end"]] for e in case["source"]["entities"]
                 if e["label"] == label]
        moved = sorted({n for n, m in zip(names, swapped) if n != m})
        if len(names) == len(swapped) and len(moved) == 2:
            return label, moved[0], moved[1]
    return None


def main(argv: list[str]) -> int:
    if not argv:
        sys.exit(__doc__)
    total = hits = fails = 0
    for run in map(Path, argv):
        for line in (run / "cases.jsonl").open(encoding="utf-8"):
            case = json.loads(line)
            if case["transformation"] != "entity_shuffle":
                continue
            total += 1
            pair = exchanged(case)
            if pair is None:
                continue
            label, a, b = pair
            text = case["source"]["text"]
            kinds = {n: subtype_kind(label, n, text[:text.rfind(n)], text) for n in (a, b)}
            if _qualifies(text, a, b, kinds) or _qualifies(text, b, a, kinds):
                hits += 1
                fails += case["verdict"]["outcome"] == "fail"
                print(f"{run.name}: {case['verdict']['outcome']}: {case['follow_up']['text']}")
    print(f"{hits} of {total} shuffle follow-ups exchange a place and its region; "
          f"{fails} of them were violations")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
