"""Builds suites/data/wikigold_{a,b}.jsonl from Wikigold (Balasuriya et al. 2009, CC BY 4.0): a
third gold NER set, Wikipedia articles annotated in the CoNLL style (PER, LOC, ORG, MISC).

Usage: python bench/make_wikigold_gold.py PATH/wikigold.conll.txt suites/data

The file holds tokens and IOB1 tags, one token a line, sentences separated by blank lines and
articles by ``-DOCSTART-``; it has no original text, so each sentence is detokenised by the
rules of ``detokenise`` (punctuation, clitics, brackets and straight double quotes, which open
and close in turn) and the tags become character offsets in that text. Kept: the sentences with
at least one PER, LOC or ORG entity and at least ``MIN_TOKENS`` tokens, in the file's order.
Articles are split whole: the first ones, up to ``PART_A`` sentences, go to part ``a`` (read
as a fresh set), the rest to part ``b`` (kept unread for a later measurement).
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from make_pud_gold import tag_spans, write_part  # noqa: E402

from runner.text.inline import detokenise as join_tokens  # noqa: E402

MIN_TOKENS = 6
PART_A = 450
NO_SPACE_BEFORE = {",", ".", ";", ":", ")", "]", "!", "?", "%", "'s", "n't", "'re", "'d",
                   "'ve", "'ll", "'m", "'", "...", ".."}
NO_SPACE_AFTER = {"(", "[", "$", "#"}


def read_articles(path: Path):
    """Yields articles, each a list of sentences, each a list of (token, tag)."""
    article: list[list[tuple[str, str]]] = []
    sentence: list[tuple[str, str]] = []
    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        if not line.strip():
            if sentence:
                article.append(sentence)
            sentence = []
            continue
        token, tag = line.rsplit(" ", 1)
        if token == "-DOCSTART-":
            if article:
                yield article
            article = []
            continue
        sentence.append((token, tag))
    if article:
        yield article


def detokenise(tokens: list[str]) -> tuple[str, list[tuple[int, int]]]:
    """The sentence's text and each token's character offsets in it."""
    return join_tokens(tokens, no_space_before=NO_SPACE_BEFORE, no_space_after=NO_SPACE_AFTER)


def main(src: str, dest: str) -> None:
    parts: dict[str, list[dict]] = {"a": [], "b": []}
    for k, article in enumerate(read_articles(Path(src))):
        rows = []
        for j, sentence in enumerate(article):
            text, offsets = detokenise([t for t, _ in sentence])
            ents = tag_spans([tag for _, tag in sentence], offsets)
            if len(sentence) >= MIN_TOKENS and any(e["label"] != "MISC" for e in ents):
                rows.append({"id": f"wikigold-{k:03d}-{j:03d}", "text": text, "entities": ents})
        parts["a" if len(parts["a"]) < PART_A else "b"].extend(rows)
    for name, rows in parts.items():
        write_part(Path(dest) / f"wikigold_{name}.jsonl", rows)


if __name__ == "__main__":
    main(*sys.argv[1:3])
