"""Builds suites/data/ewt_{tune,measure}.jsonl from Universal NER's English EWT test and dev
files: a second gold NER set, of another genre than the PUD news and Wikipedia sentences (web
text: weblogs, newsgroups, e-mails, question answers, reviews). ``tune`` (from the test file) was
read once as a fresh set and then used to change the checks; ``measure`` (from the dev file) is
for measuring only.

Usage: python bench/make_ewt_gold.py PATH/UNER_English-EWT suites/data

Same conversion as bench/make_pud_gold.py (character offsets of the BIO tags in the sentence's
``# text =`` line). Kept: the sentences with at least one PER, LOC or ORG entity and at least
``MIN_TOKENS`` tokens (the structural and shuffle transformations need a clause and an entity;
most one-line e-mail headers and short review fragments have neither), in the file's order.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_pud_gold import read_sentences, spans, write_part  # noqa: E402

MIN_TOKENS = 6


def main(src: str, dest: str) -> None:
    for part, name in (("tune", "en_ewt-ud-test.iob2"), ("measure", "en_ewt-ud-dev.iob2")):
        rows = []
        for _doc, sid, text, tokens in read_sentences(Path(src) / name):
            entities = spans(text, tokens, sid)
            if entities and len(tokens) >= MIN_TOKENS:
                rows.append({"id": f"ewt-{sid}", "text": text, "entities": entities})
        write_part(Path(dest) / f"ewt_{part}.jsonl", rows)


if __name__ == "__main__":
    main(*sys.argv[1:3])
