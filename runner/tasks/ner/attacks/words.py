"""Words and their BIO labels, read off a system's character spans.

An attack judges an entity word by word, as Breaking BERT does (labels are predicted per word):
the words of a text are maximal runs of word characters (joined by an inner hyphen, apostrophe or
dot: "Okonjo-Iweala", "O'Neill", "U.S") and single punctuation marks. A word inside a predicted
span is ``B-TYPE`` when the span starts at or before it (the span's first word) and ``I-TYPE``
otherwise; a word outside every span is ``O``. The same reading applies to every system, with or
without scores, so labels before and after an attack are comparable whoever produced them.
"""
from __future__ import annotations

import re
from typing import Sequence

from runner.tasks.ner.types import Span

WORD_RE = re.compile(r"\w+(?:[-'’.]\w+)*|[^\w\s]")
OUTSIDE = "O"

Word = tuple[int, int]  # character offsets, end exclusive


def words(text: str) -> list[Word]:
    return [(m.start(), m.end()) for m in WORD_RE.finditer(text)]


def words_in(text: str, start: int, end: int) -> list[Word]:
    """The words of ``text`` that lie inside ``[start, end)`` (a word cut by a boundary counts
    when it overlaps the range)."""
    return [(s, e) for s, e in words(text) if s < end and e > start]


def bio_labels(spans: Sequence[Span], ws: Sequence[Word]) -> list[str]:
    out = []
    for s, e in ws:
        label = OUTSIDE
        for sp in spans:
            if sp.start < e and s < sp.end:
                label = ("B-" if s <= sp.start else "I-") + sp.label
                break
        out.append(label)
    return out


def reference_labels(entity_type: str, n: int) -> list[str]:
    """What an entity of ``n`` words should read: B-TYPE, then I-TYPE."""
    return [f"B-{entity_type}"] + [f"I-{entity_type}"] * (n - 1) if n else []


def label_type(label: str) -> str | None:
    return None if label == OUTSIDE else label[2:]


def token_correct(reference: str, predicted: str) -> bool:
    """Breaking BERT §3.1: a word's label is still correct when it is unchanged, or when an I-
    word now reads B- of the same type (the start of the entity moved, its type did not). A B-
    word that now reads I- is wrong: the entity swallowed the word before it (a range error)."""
    if predicted == reference:
        return True
    return (reference.startswith("I-") and predicted.startswith("B-")
            and label_type(reference) == label_type(predicted))


def wrong_tokens(reference: Sequence[str], predicted: Sequence[str]) -> list[int]:
    """Indices of the entity's words whose label is no longer correct."""
    return [i for i, (r, p) in enumerate(zip(reference, predicted)) if not token_correct(r, p)]


def outcome_of(n_wrong: int, n_words: int) -> str:
    """``success``: every word of the entity mislabelled; ``partial``: at least half of them
    (Breaking BERT's partial success rate); ``failed`` otherwise."""
    if n_words and n_wrong == n_words:
        return "success"
    if n_words and 2 * n_wrong >= n_words:
        return "partial"
    return "failed"
