"""Builds suites/data/crossner_politics.jsonl from CrossNER's politics domain (Liu et al. 2021,
github.com/zliucr/CrossNER, MIT licence; the sentences come from Wikipedia, CC BY-SA): a fourth
gold NER set, read only as a fresh set to measure on (never tuned on).

Usage: python bench/make_crossner_gold.py PATH/ner_data/politics/test.txt suites/data

The file holds tokens and BIO tags, tab-separated, one token a line, sentences separated by blank
lines. Each sentence is detokenised (``make_wikigold_gold.detokenise``) and its tags become
character offsets. CrossNER's nine politics types are mapped to CoNLL's four: politician and
person → PER; organisation and politicalparty → ORG; country and location → LOC; election,
event and misc → MISC (not compared by the suite). Kept: the sentences with at least one PER,
LOC or ORG entity and at least ``MIN_TOKENS`` tokens, in the file's order.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_pud_gold import tag_spans, write_part  # noqa: E402
from make_wikigold_gold import MIN_TOKENS, detokenise  # noqa: E402

TYPES = {"politician": "PER", "person": "PER", "organisation": "ORG", "politicalparty": "ORG",
         "country": "LOC", "location": "LOC", "election": "MISC", "event": "MISC",
         "misc": "MISC"}


def read_sentences(path: Path):
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
            tag = f"{prefix}-{TYPES[label]}"
        sentence.append((token, tag))


def main(src: str, dest: str) -> None:
    rows = []
    for k, sentence in enumerate(read_sentences(Path(src))):
        text, offsets = detokenise([t for t, _ in sentence])
        ents = tag_spans([tag for _, tag in sentence], offsets)
        if len(sentence) >= MIN_TOKENS and any(e["label"] != "MISC" for e in ents):
            rows.append({"id": f"crossner-politics-{k:03d}", "text": text, "entities": ents})
    write_part(Path(dest) / "crossner_politics.jsonl", rows)


if __name__ == "__main__":
    main(*sys.argv[1:3])
