"""Shared pieces of the surface-level NER transformations (case, typos, punctuation, contractions,
numbers, abbreviations): where the words are, which of them belong to a predicted entity, and
how to copy a word's capitalisation onto its replacement.

Every replacement these transformations make covers whole words and never crosses an entity's
boundary, so the edit's alignment maps every entity of the source exactly onto the follow-up
(an entity boundary is never strictly inside a replaced region).
"""
from __future__ import annotations

import re
from typing import Iterator, NamedTuple, Sequence

from runner.tasks.ner.types import Prediction, Span

# A word: letters, with inner apostrophes ("don't", "O'Neill"); digits are not words here.
WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


class Word(NamedTuple):
    start: int
    end: int
    text: str
    in_entity: bool


def entity_ranges(prediction: Prediction) -> list[tuple[int, int]]:
    return sorted((s.start, s.end) for s in prediction.spans)


def overlaps_any(start: int, end: int, ranges: Sequence[tuple[int, int]]) -> bool:
    return any(a < end and start < b for a, b in ranges)


def words(text: str, prediction: Prediction) -> list[Word]:
    ranges = entity_ranges(prediction)
    return [Word(m.start(), m.end(), m.group(), overlaps_any(m.start(), m.end(), ranges))
            for m in WORD.finditer(text)]


def segments(text: str, spans: Sequence[Span]) -> Iterator[tuple[int, int, bool]]:
    """The text cut at every entity boundary: (start, end, inside an entity)."""
    cuts = {0, len(text)}
    for s in spans:
        cuts.update((s.start, s.end))
    points = sorted(cuts)
    for a, b in zip(points, points[1:]):
        if a < b:
            yield a, b, any(s.start <= a and b <= s.end for s in spans)


def match_case(template: str, word: str) -> str:
    """``word`` written with ``template``'s capitalisation (UPPER, Capitalised or as given)."""
    if len(template) > 1 and template.isupper():
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word
