"""Builds the relation data of mtrun from Re-DocRED (github.com/tonytan48/Re-DocRED, MIT; the
text is Wikipedia's, CC BY-SA 3.0): the training pairs of the embedded relation classifier and
the real-text RE suites' corpora.

Usage: python bench/make_redocred_re.py RE_DOCRED_DATA_DIR

RE_DOCRED_DATA_DIR holds ``test_revised.json`` and ``dev_revised.json`` (commit ccfb54f of the
repository; its ``train_revised.json`` is not in the repository). The documents become
sentence-level TACRED pairs (:mod:`runner.tasks.re.redocred`). Written:

- ``runner/tasks/re/data/redocred_train.jsonl.gz`` — the training pairs: every relation of the
  500 documents of ``test_revised.json`` and twice as many ``no_relation`` pairs, drawn at
  random (seed 13) from the same sentences;
- ``bench/data/redocred_heldout.jsonl.gz`` — every pair of ``dev_revised.json``'s documents
  0–249, the held-out set the classifier is measured on (``bench/re_classifier_eval.py``);
- ``suites/data/re_redocred_tune.jsonl`` (documents 0–249) and ``suites/data/re_redocred.jsonl``
  (documents 250–499) — the suites' corpora: the sentences with at least one relation, each
  with all its relations and as many ``no_relation`` pairs (at least two), drawn at random.
"""
from __future__ import annotations

import gzip
import json
import random
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runner.tasks.re.redocred import PlaceTyper, corpus_pairs, read_documents  # noqa: E402

SEED = 13
NEG_PER_POS = 2


def _line(p: dict) -> str:
    return json.dumps({k: v for k, v in p.items() if k != "sentence"}, ensure_ascii=False)


def _write_gz(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = ("\n".join(_line(p) for p in rows) + "\n").encode("utf-8")
    path.write_bytes(gzip.compress(data, mtime=0))
    print(f"{path.relative_to(ROOT)}: {len(rows)} pairs")


def training(pairs: list[dict], rng: random.Random) -> list[dict]:
    pos = [p for p in pairs if p["relation"] != "no_relation"]
    neg = [p for p in pairs if p["relation"] == "no_relation"]
    keep = set(id(p) for p in rng.sample(neg, min(len(neg), NEG_PER_POS * len(pos))))
    return [p for p in pairs if p["relation"] != "no_relation" or id(p) in keep]


def suite(pairs: list[dict], rng: random.Random) -> list[dict]:
    by_sent: dict[str, list[dict]] = defaultdict(list)
    for p in pairs:
        by_sent[p["sentence"]].append(p)
    out = []
    for sid, ps in by_sent.items():
        pos = [p for p in ps if p["relation"] != "no_relation"]
        if not pos:
            continue
        neg = [p for p in ps if p["relation"] == "no_relation"]
        neg = rng.sample(neg, min(len(neg), max(2, len(pos))))
        out.extend(pos + sorted(neg, key=lambda p: p["id"]))
    return out


def main(src: str) -> None:
    places = PlaceTyper()
    test = read_documents(str(Path(src) / "test_revised.json"))
    dev = read_documents(str(Path(src) / "dev_revised.json"))
    rng = random.Random(SEED)
    _write_gz(ROOT / "runner/tasks/re/data/redocred_train.jsonl.gz",
              training(list(corpus_pairs(test, "test", places)), rng))
    tune = list(corpus_pairs(dev[:250], "dev", places))
    measure = [p for p in corpus_pairs(dev, "dev", places)
               if int(p["id"][3:6]) >= 250]
    _write_gz(ROOT / "bench/data/redocred_heldout.jsonl.gz", tune)
    for name, rows in (("re_redocred_tune", suite(tune, rng)), ("re_redocred", suite(measure, rng))):
        path = ROOT / "suites/data" / f"{name}.jsonl"
        path.write_text("".join(_line(p) + "\n" for p in rows), encoding="utf-8")
        print(f"{path.relative_to(ROOT)}: {len(rows)} pairs, "
              f"{sum(p['relation'] != 'no_relation' for p in rows)} with a relation")


if __name__ == "__main__":
    main(sys.argv[1])
