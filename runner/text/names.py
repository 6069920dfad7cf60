"""People's names that every task's transformations share: the first-name lists by origin and
gender (``data/first_names.json``: Faker's, MIT; see ``data/README.md``) and the titles that go
before a name ("Dr.", "Sir", "Captain")."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"

#: Titles that may stand inside a person's name: never taken for a first name.
TITLES = frozenset({
    "mr", "mrs", "ms", "miss", "dr", "sir", "dame", "lord", "lady", "king", "queen", "prince",
    "princess", "president", "chancellor", "prime", "minister", "senator", "governor", "mayor",
    "judge", "justice", "general", "colonel", "captain", "pope", "saint", "st", "secretary",
    "professor", "prof", "rev", "reverend", "chief", "coach", "father", "sister", "brother",
    "uncle", "aunt", "sheikh", "emir", "imam", "rabbi", "director", "chairman", "chairwoman",
    "ambassador", "commissioner", "officer", "sergeant", "detective", "inspector", "agent",
    "representative", "rep", "sen", "gov", "the"})


@lru_cache(maxsize=1)
def first_names() -> dict[str, dict[str, list[str]]]:
    """Origin → gender → first names."""
    return json.loads((DATA / "first_names.json").read_text(encoding="utf-8"))["names"]
