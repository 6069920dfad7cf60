"""Trains the repair panel's embedded CRF referee (runner/tasks/ner/repair/crf_tagger.py) and
writes its model and card into runner/tasks/ner/repair/data/.

Usage: python bench/train_crf_referee.py CORPUS_FILE ... --format conll|uner|crossner|mixed
           --name NAME --source "REPO@COMMIT:PATH; ..." --licence "LICENCE" [--heldout 3000]
           [--limit N] [--iterations 150] [--sources clusters,lists] [--out FOLDER]

The CORPUS_FILEs hold English sentences with entity tags (runner/tasks/ner/repair/data/README.md
lists the shipped model's, with their sources and licences), in one of two formats:
- ``conll``: CoNLL-style columns, the word first and the tag last (BIO or IO tags; the types of
  the Broad Twitter Corpus, WNUT17 and the SEC filings mapped by ``CONLL``);
- ``uner``: Universal NER's ``.iob2`` files;
- ``crossner``: CrossNER's tab-separated files, their types mapped to PER, ORG, LOC and MISC as
  ``bench/make_crossner_gold.py`` maps them;
- ``mixed``: ``uner`` for the ``.iob2`` files, ``crossner`` for files named ``crossner_*``,
  ``conll`` for the others.

Before training, every sentence that shares a run of eight words (lower-cased, punctuation
aside) with any text of suites/data/ — mtrun's gold, tuning and measuring sets — is dropped, so
no sentence the repair is measured on was seen in training. The last ``--heldout`` sentences of a
seeded shuffle are kept out and scored, and the model is scored on suites/data/wikigold_b.jsonl
(a tuning set) too; both figures go into the card. Nothing from CoNLL-2003, LitBank or FewRel is
read.
"""
from __future__ import annotations

import argparse
import datetime as dt
import gzip
import hashlib
import json
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import speed  # noqa: E402
from make_crossner_gold import read_sentences  # noqa: E402
from runner.tasks.ner.repair import crf_tagger  # noqa: E402

PARAMS = {"c1": 0.05, "c2": 0.01, "max_iterations": 150, "feature.minfreq": 2,
          "feature.possible_transitions": True}
WINDOW = 8


CONLL = {"person": "PER", "location": "LOC", "group": "ORG", "corporation": "ORG",
         "product": "MISC", "creative-work": "MISC", "PER": "PER", "LOC": "LOC", "ORG": "ORG",
         "MISC": "MISC"}


def read_conll(path: Path):
    """CoNLL-style columns (the word first, the tag last), a blank line between sentences,
    ``-DOCSTART-`` lines skipped; BIO (IOB2) or IO tags, their types mapped by ``CONLL``."""
    words, tags = [], []
    with open(path, encoding="utf-8") as fh:
        for line in list(fh) + [""]:
            cols = line.split()
            if not cols or cols[0] == "-DOCSTART-":
                if words:
                    io = all(not t.startswith("B-") for t in tags)
                    labels = [t if t == "O" else CONLL[t.partition("-")[2]] for t in tags]
                    yield words, (io_to_bio(labels) if io else
                                  [t if t == "O" else t[:2] + CONLL[t[2:]] for t in tags])
                words, tags = [], []
                continue
            words.append(cols[0])
            tags.append(cols[-1])


UNER = {"PER": "PER", "LOC": "LOC", "ORG": "ORG", "OTH": "MISC"}


def read_uner(path: Path):
    """Universal NER's ``.iob2`` files: ``#`` comment lines, then one ``index<TAB>word<TAB>tag``
    line a token (annotators' columns after it), a blank line between sentences; PER, LOC, ORG
    and OTH (→ MISC); a stray ``B-O``/``I-O`` tag is read as O."""
    words, tags = [], []
    with open(path, encoding="utf-8") as fh:
        for line in list(fh) + [""]:
            if line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 3:
                if words:
                    yield words, _bio(tags)
                words, tags = [], []
                continue
            words.append(cols[1])
            kind, _, label = cols[2].partition("-")
            tags.append("O" if label not in UNER else f"{kind}-{UNER[label]}")


def read_crossner(path: Path):
    """CrossNER's files: ``word<TAB>tag`` lines, BIO tags of its fine types, mapped to PER, ORG,
    LOC and MISC (``make_crossner_gold.TYPES``; every other type MISC)."""
    for sentence in read_sentences(path):
        yield [w for w, _ in sentence], _bio([t for _, t in sentence])


def read_corpus(paths, fmt: str = "mixed") -> list:
    """(words, BIO tags) of every distinct sentence of the files, in order, each file read in
    ``fmt`` (``mixed``: ``uner`` for ``.iob2`` files, ``crossner`` for files named
    ``crossner_*``, ``conll`` for the others)."""
    readers = {"conll": read_conll, "uner": read_uner, "crossner": read_crossner}
    seen, out = set(), []
    for path in paths:
        kind = fmt if fmt != "mixed" else (
            "uner" if path.name.endswith(".iob2") else
            "crossner" if path.name.startswith("crossner_") else "conll")
        for words, tags in readers[kind](path):
            key = " ".join(words)
            if key not in seen:
                seen.add(key)
                out.append((words, tags))
    return out


def _bio(tags):
    """BIO tags with an I- that follows O or another type turned into B-."""
    out, prev = [], "O"
    for tag in tags:
        if tag.startswith("I-") and prev[2:] != tag[2:]:
            tag = "B-" + tag[2:]
        out.append(tag)
        prev = tag
    return out


def io_to_bio(labels):
    out, prev = [], "O"
    for label in labels:
        out.append("O" if label == "O" else ("I-" if prev == label else "B-") + label)
        prev = label
    return out


def _norm(words):
    return [w for w in (re.sub(r"\W+", "", x.lower()) for x in words) if w]


def windows(words):
    w = _norm(words)
    return {tuple(w[i:i + WINDOW]) for i in range(max(1, len(w) - WINDOW + 1))}


def protected() -> set:
    """Every eight-word window of every text in suites/data/."""
    from runner.tasks.ner.repair.crf_tagger import tokens

    out: set = set()
    for path in sorted((ROOT / "suites" / "data").iterdir()):
        if path.suffix == ".jsonl":
            texts = [json.loads(line).get("text", "") for line in
                     path.read_text(encoding="utf-8").splitlines() if line.strip()]
        elif path.suffix == ".txt":
            texts = path.read_text(encoding="utf-8").splitlines()
        else:
            continue
        for text in texts:
            out |= windows([w for w, _, _ in tokens(text)])
    return out


def score(model_tags, gold_tags) -> dict:
    """Entity-level precision, recall and F1 over PER, ORG and LOC."""
    tp = fp = fn = 0
    per: dict = {}
    for pred, gold in zip(model_tags, gold_tags):
        p = {s for s in crf_tagger.spans(pred) if s[2] in crf_tagger.TYPES}
        g = {s for s in crf_tagger.spans(gold) if s[2] in crf_tagger.TYPES}
        tp += len(p & g)
        fp += len(p - g)
        fn += len(g - p)
        for s in g:
            per.setdefault(s[2], [0, 0])[1] += 1
            per[s[2]][0] += s in p
    prec = tp / max(1, tp + fp)
    rec = tp / max(1, tp + fn)
    return {"precision": round(prec, 4), "recall": round(rec, 4),
            "f1": round(2 * prec * rec / max(1e-9, prec + rec), 4), "entities": tp + fn,
            "recall_by_type": {k: round(v[0] / v[1], 4) for k, v in sorted(per.items())}}


def gold_set(path: Path):
    """A suites/data NER jsonl as (spaCy words, BIO tags)."""
    from runner.tasks.ner.repair.crf_tagger import tokens

    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        toks = tokens(row["text"])
        tags = ["O"] * len(toks)
        for e in row["entities"]:
            inside = [i for i, (_, a, b) in enumerate(toks) if a >= e["start"] and b <= e["end"]]
            for k, i in enumerate(inside):
                tags[i] = ("B-" if k == 0 else "I-") + e["label"]
        yield [w for w, _, _ in toks], tags


def write_clusters(path: Path) -> None:
    """k-means (seeded, cosine) over the md pipeline's vector rows, for each size in
    ``crf_tagger.COARSE``, into ``path``."""
    import numpy as np

    from runner.nlp import NOT_FOR_ENTITIES, load_spacy

    data = np.asarray(load_spacy(crf_tagger.VECTORS, exclude=NOT_FOR_ENTITIES).vocab.vectors.data,
                      dtype=np.float32)
    data /= np.maximum(np.linalg.norm(data, axis=1, keepdims=True), 1e-9)
    out = {}
    for k in crf_tagger.COARSE:
        rng = np.random.default_rng(13)
        centres = data[rng.choice(len(data), k, replace=False)]
        for _ in range(20):
            assign = (data @ centres.T).argmax(1)
            for c in range(k):
                members = data[assign == c]
                if len(members):
                    centre = members.mean(0)
                    centres[c] = centre / max(np.linalg.norm(centre), 1e-9)
        out[str(k)] = [int(a) for a in (data @ centres.T).argmax(1)]
    path.write_text(json.dumps(out, separators=(",", ":")) + "\n", encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", type=Path, nargs="+")
    ap.add_argument("--format", choices=["conll", "uner", "crossner", "mixed"], required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--licence", required=True)
    ap.add_argument("--heldout", type=int, default=3000)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--iterations", type=int, default=PARAMS["max_iterations"])
    ap.add_argument("--out", type=Path, default=crf_tagger.FOLDER)
    ap.add_argument("--sources", default="clusters,lists",
                    help="feature sources, comma-separated (clusters, lists) or none")
    args = ap.parse_args()

    commit = speed.commit()      # before the model and its card are written over
    sents = read_corpus(args.corpus, args.format)
    read = len(sents)
    guard = protected()
    sents = [s for s in sents if not (windows(s[0]) & guard)]
    dropped = read - len(sents)
    random.Random(13).shuffle(sents)
    held, train = sents[-args.heldout:], sents[:-args.heldout]
    if args.limit:
        train = train[:args.limit]
    print(f"{read} sentences read, {dropped} dropped for sharing a window with suites/data, "
          f"{len(train)} to train, {len(held)} held out", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    model = args.out / crf_tagger.RAW
    params = {**PARAMS, "max_iterations": args.iterations}
    names = [n for n in args.sources.split(",") if n and n != "none"]
    spec = f"embedded:{args.out}"
    if "clusters" in names:
        write_clusters(crf_tagger.files(spec)[2])
    clusters = crf_tagger.sources(names, spec)
    t0 = time.perf_counter()
    crf_tagger.train(train, model, params, clusters)
    seconds = round(time.perf_counter() - t0, 1)
    import pycrfsuite

    tagger = pycrfsuite.Tagger()
    tagger.open(str(model))
    held_score = score([tagger.tag(crf_tagger.features(w, clusters)) for w, _ in held],
                       [t for _, t in held])
    wg = list(gold_set(ROOT / "suites" / "data" / "wikigold_b.jsonl"))
    wg_score = score([tagger.tag(crf_tagger.features(w, clusters)) for w, _ in wg],
                     [t for _, t in wg])
    card = {"corpus": {"name": args.name, "source": args.source, "format": args.format,
                       "sentences_read": read, "dropped_overlap": dropped,
                       "trained_on": len(train), "held_out": len(held)},
            "licence": args.licence, "params": params, "sources": names, "train_seconds": seconds,
            "held_out_score": held_score, "wikigold_b_score": wg_score,
            "sha256": hashlib.sha256(model.read_bytes()).hexdigest(),
            "bytes": model.stat().st_size,
            "command": "python bench/train_crf_referee.py " + " ".join(
                f"'{a}'" if " " in a else a for a in sys.argv[1:]),
            "commit": commit, "date": dt.date.today().isoformat()}
    (args.out / crf_tagger.CARD.name).write_text(json.dumps(card, indent=1) + "\n",
                                                 encoding="utf-8")
    # stored gzip-compressed (crf_tagger.model_bytes reads it back); the card keeps the
    # sha256 and size of the model as CRFsuite wrote it
    (args.out / crf_tagger.MODEL.name).write_bytes(gzip.compress(model.read_bytes(), 9, mtime=0))
    model.unlink()
    print(json.dumps({k: card[k] for k in ("held_out_score", "wikigold_b_score", "bytes",
                                           "train_seconds")}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
