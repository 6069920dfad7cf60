"""Builds suites/data/crossner_<domain>.jsonl from a domain of CrossNER (Liu et al. 2021,
github.com/zliucr/CrossNER, MIT licence; the sentences come from Wikipedia, CC BY-SA): gold NER
sets of Wikipedia text (politics, science, literature and music: read as fresh sets one after
another, then tuned on; AI, its test and dev splits in one file: kept unread to measure on).

Usage: python bench/make_crossner_gold.py PATH/ner_data/DOMAIN/test.txt suites/data [DOMAIN]
(AI: the test file, a blank line, then the dev file, in one file.)

The file holds tokens and BIO tags, tab-separated, one token a line, sentences separated by blank
lines. Each sentence is detokenised (``make_wikigold_gold.detokenise``) and its tags become
character offsets. CrossNER's types are mapped to CoNLL's four: people (politician, person,
scientist, writer, musical artist, researcher) → PER; organisation, political party, university
and band → ORG; country and location → LOC; every other type (election, event, award, book,
academic journal, astronomical object, …, misc) → MISC (not compared by the suites). Kept: the
sentences with at least one PER, LOC or ORG entity and at least ``MIN_TOKENS`` tokens, in the
file's order.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_pud_gold import tag_spans, write_part  # noqa: E402
from make_wikigold_gold import MIN_TOKENS, detokenise  # noqa: E402

TYPES = {"politician": "PER", "person": "PER", "scientist": "PER", "writer": "PER",
         "musicalartist": "PER", "researcher": "PER", "organisation": "ORG",
         "politicalparty": "ORG", "university": "ORG", "band": "ORG", "country": "LOC",
         "location": "LOC"}


def read_sentences(path: Path, types: dict[str, str] = TYPES):
    """(token, tag) lists of a file of tab-separated tokens and BIO tags, the tags' types mapped
    by ``types`` (any other type: MISC)."""
    sentence: list[tuple[str, str]] = []
    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        if not line.strip():
            if sentence:
                yield sentence
            sentence = []
            continue
        token, tag = line.rsplit("\t", 1)
        if tag != "O":
            prefix, label = tag.split("-", 1)
            tag = f"{prefix}-{types.get(label, 'MISC')}"
        sentence.append((token, tag))


def main(src: str, dest: str, domain: str = "politics") -> None:
    rows = []
    for k, sentence in enumerate(read_sentences(Path(src))):
        text, offsets = detokenise([t for t, _ in sentence])
        ents = tag_spans([tag for _, tag in sentence], offsets)
        if len(sentence) >= MIN_TOKENS and any(e["label"] != "MISC" for e in ents):
            rows.append({"id": f"crossner-{domain}-{k:03d}", "text": text, "entities": ents})
    write_part(Path(dest) / f"crossner_{domain}.jsonl", rows)


if __name__ == "__main__":
    main(*sys.argv[1:4])
