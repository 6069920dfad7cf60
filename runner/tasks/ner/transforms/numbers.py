"""`numbers`: numbers written in digits spelt out ("12" → "twelve", "21st" → "twenty-first") or
spelt-out numbers written in digits ("two hundred" → "200"), outside the predicted entities
(LangTest's number_to_word; CheckList's change_number changes the value instead).

Not touched: years (four digits from 1100 to 2099, unless ``years: true``), decimals, amounts
with a currency sign or a percent sign, digits inside a word ("G7", "COVID-19"), and a lone
"one" (a pronoun as often as a number)."""
from __future__ import annotations

import random
import re
from typing import Any

from runner.tasks.ner.transforms.surface import entity_ranges, match_case, overlaps_any
from runner.tasks.ner.types import Prediction, Sentence
from runner.transforms.base import Transformation
from runner.types import FollowUp, Replacement

UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen"]
TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
SCALES = [(1_000_000_000, "billion"), (1_000_000, "million"), (1000, "thousand")]
_ORDINAL = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
            "nine": "ninth", "twelve": "twelfth"}


def to_words(n: int) -> str:
    if n < 20:
        return UNITS[n]
    if n < 100:
        return TENS[n // 10] + ("" if n % 10 == 0 else "-" + UNITS[n % 10])
    if n < 1000:
        rest = n % 100
        return UNITS[n // 100] + " hundred" + ("" if rest == 0 else " " + to_words(rest))
    for size, word in SCALES:
        if n >= size:
            rest = n % size
            return to_words(n // size) + f" {word}" + ("" if rest == 0 else " " + to_words(rest))
    raise ValueError(n)


def ordinal_words(n: int) -> str:
    words = to_words(n)
    last_word = words.split(" ")[-1]
    head, sep, last = words.rpartition("-") if "-" in last_word else words.rpartition(" ")
    if last in _ORDINAL:
        last = _ORDINAL[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last += "th"
    return head + sep + last


_VALUE = {w: i for i, w in enumerate(UNITS)} | {w: 10 * i for i, w in enumerate(TENS) if w}
_SCALE = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}

# digits as a word of their own: no decimals, no currency or percent, not inside a word
_DIGITS = re.compile(r"(?<![\w$£€¥.,-])(\d{1,3}(?:,\d{3})+|\d+)(st|nd|rd|th)?(?![\w%]|[.,]\d)")
_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)?")


def parse_words(tokens: list[str]) -> int | None:
    total = current = 0
    for tok in tokens:
        low = tok.lower()
        if low == "and":
            continue
        if low in _SCALE:
            scale = _SCALE[low]
            if scale == 100:
                current = (current or 1) * 100
            else:
                total += (current or 1) * scale
                current = 0
            continue
        parts = low.split("-")
        if not all(p in _VALUE for p in parts):
            return None
        current += sum(_VALUE[p] for p in parts)
    return total + current


def _is_number_word(tok: str) -> bool:
    low = tok.lower()
    return low in _SCALE or all(p in _VALUE for p in low.split("-"))


class Numbers(Transformation):
    name = "numbers"

    def __init__(self, *, mode: str = "to_words", years: bool = False) -> None:
        super().__init__(mode=mode, years=years)
        self.mode, self.years = mode, years

    def _generate(self, source: Sentence, prediction: Prediction, rng: random.Random,
                  doc: Any) -> list[FollowUp]:
        text = source.text
        ranges = entity_ranges(prediction)
        found = self._spell(text) if self.mode == "to_words" else self._digits(text)
        replacements = [Replacement(a, b, new) for a, b, new in found
                        if not overlaps_any(a, b, ranges)]
        if not replacements:
            return []
        return [FollowUp.from_replacements(text, replacements, self.name, numbers=self.mode,
                                           words=[f"{text[r.start:r.end]}→{r.new}"
                                                  for r in replacements])]

    def _spell(self, text: str) -> list[tuple[int, int, str]]:
        out = []
        for m in _DIGITS.finditer(text):
            digits, suffix = m.group(1), m.group(2)
            n = int(digits.replace(",", ""))
            if n >= 10 ** 12 or (digits.startswith("0") and len(digits) > 1):
                continue  # codes such as 007 are not numbers to spell
            if not self.years and "," not in digits and len(digits) == 4 and 1100 <= n <= 2099:
                continue
            words = ordinal_words(n) if suffix else to_words(n)
            out.append((m.start(), m.end(), words))
        return out

    def _digits(self, text: str) -> list[tuple[int, int, str]]:
        out = []
        tokens = list(_WORD.finditer(text))
        i = 0
        while i < len(tokens):
            if not _is_number_word(tokens[i].group()) or tokens[i].group().lower() == "and":
                i += 1
                continue
            j = i + 1
            # a run of number words, "and" allowed between two of them ("one hundred and five"),
            # words separated by single spaces only
            while j < len(tokens) and text[tokens[j - 1].end():tokens[j].start()] == " ":
                word = tokens[j].group().lower()
                if _is_number_word(word) and word != "and":
                    j += 1
                elif (word == "and" and j + 1 < len(tokens)
                      and _is_number_word(tokens[j + 1].group())
                      and tokens[j + 1].group().lower() != "and"):
                    j += 2
                else:
                    break
            run = [t.group() for t in tokens[i:j]]
            value = parse_words(run)
            if value is not None and [w.lower() for w in run] not in (["one"], ["zero"]):
                start, end = tokens[i].start(), tokens[j - 1].end()
                out.append((start, end, f"{value:,}" if value >= 10000 else str(value)))
            i = j
        return out
