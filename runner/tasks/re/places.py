"""Where a place's mention sits in its sentence, for MR-R2 (a place replaced by a coarser one)."""
from __future__ import annotations

import re

from runner.tasks.re.types import Argument


def qualified(text: str, arg: Argument) -> bool:
    """A place followed by ", Name" ("Springfield, Illinois", "Bergen, Norway"): the text names
    its state or country, which the gazetteer (the most populous place of the name) may contradict
    and which the coarser place would repeat."""
    return re.match(r",\s+[A-Z]", text[arg.end:arg.end + 4]) is not None


def in_compound(text: str, arg: Argument) -> bool:
    """"Boston-based": the mention is part of a hyphenated word; replacing it breaks the word."""
    return (arg.start > 0 and text[arg.start - 1] == "-") or text[arg.end:arg.end + 1] == "-"
