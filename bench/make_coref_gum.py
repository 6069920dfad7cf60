"""Builds suites/data/coref_gum.jsonl: multi-sentence passages for the coreference task from
GUM's non-news genres, taken from the sentences already in suites/data/gum.jsonl, gum_b.jsonl
and gum_bio.jsonl (their licences and sources: suites/data/README.md).

Usage: python bench/make_coref_gum.py            (writes suites/data/coref_gum.jsonl)

Those files keep declarative sentences with a name; a passage is a run of two or three
sentences that are consecutive in their GUM document (sentence numbers n, n + 1, …), joined by
one space, of at most ``MAX_WORDS`` words. Genres: Wikipedia biographies, Wikivoyage guides,
Wikinews interviews, academic articles and court proceedings (the news documents are left out:
the shipped coref sample is news already). At most ``PER_DOCUMENT`` passages per document,
documents in name order, runs taken from the start of each document, no sentence in two
passages. No gold clusters: GUM's coreference layer is not in those files.
"""
from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "suites" / "data"
FILES = ("gum.jsonl", "gum_b.jsonl", "gum_bio.jsonl")
GENRES = ("bio", "voyage", "interview", "academic", "court")
PER_DOCUMENT = 2
MAX_SENTENCES = 3
MAX_WORDS = 80


def passages() -> list[dict[str, str]]:
    docs: dict[str, dict[int, str]] = defaultdict(dict)
    for name in FILES:
        for line in (DATA / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            m = re.match(r"gum-(GUM_([a-z]+)_.+)-(\d+)$", row["id"])
            if m and m.group(2) in GENRES:
                docs[m.group(1)][int(m.group(3))] = row["text"]
    out = []
    for doc in sorted(docs):
        sents, taken, n = docs[doc], 0, 0
        numbers = sorted(sents)
        i = 0
        while i < len(numbers) and taken < PER_DOCUMENT:
            run = [numbers[i]]
            while (len(run) < MAX_SENTENCES and run[-1] + 1 in sents
                   and sum(len(sents[k].split()) for k in run + [run[-1] + 1]) <= MAX_WORDS):
                run.append(run[-1] + 1)
            i = numbers.index(run[-1]) + 1
            if len(run) < 2:
                continue
            out.append({"id": f"gum-{doc}-{run[0]}-{run[-1]}",
                        "text": " ".join(sents[k] for k in run)})
            taken += 1
    return out


def main() -> None:
    rows = passages()
    with (DATA / "coref_gum.jsonl").open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    genres = defaultdict(int)
    for row in rows:
        genres[row["id"].split("_")[1]] += 1
    print(len(rows), "passages", dict(genres))


if __name__ == "__main__":
    main()
