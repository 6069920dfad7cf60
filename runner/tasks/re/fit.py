"""What a replacement must be to fit an argument's slot (MR-R1): a person of the same gender, an
organisation of the right kind.

A person's gender is read from the first name (``data/name_genders.json``: the first names of
Faker's person providers, MIT, with the gender of the lists they are in; a name listed for both
genders, or not listed, is unknown); when the name does not tell, from the sentence's pronouns
(only "he/him/his/himself" or only "she/her/hers/herself"). A replacement for a person of known
gender must have a first name of that gender; for a person of unknown gender in a sentence with
no gendered pronoun any person fits (nothing in the sentence agrees with the name); otherwise no
replacement is made.

A date or a number is replaced by one of the same shape ("June 5, 1905" by "May 12, 1950").

An organisation's kind is read from its name's words (``school``: University, College...;
``party``; ``team``: F.C., Club...; ``company``: Inc., Records, Airlines...; ``government``:
Ministry, Army...; ``religious``: Church...; ``other`` when none matches, and then it is not
replaced). The kind the slot
needs comes from the relation (the tail of per:schools_attended is a school, of
org:political/religious_affiliation a party or a religious body), else it is the original's
kind: a replacement must be of that kind.
"""
from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from runner.tasks.re.types import Argument

NAME_GENDERS = Path(__file__).resolve().parent / "data" / "name_genders.json"
MALE_PRONOUNS = frozenset({"he", "him", "his", "himself"})
FEMALE_PRONOUNS = frozenset({"she", "her", "hers", "herself"})

# kind → words of an organisation's name (whole words; matched case-sensitively except the
# lower-case particles) — first match wins, in this order.
ORG_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("school", ("University", "College", "School", "Academy", "Conservatory", "Polytechnic",
                "Institute of Technology", "Gymnasium", "Seminary", "Lycée", "Universität",
                "Universidad", "Université", "Università", "Escuela", "Hochschule")),
    ("party", ("Party", "Front", "Alliance", "Union of", "Democrats", "Republicans",
               "Conservatives", "Labour", "Liberals", "Socialists")),
    ("religious", ("Church", "Diocese", "Archdiocese", "Catholic", "Orthodox", "Islam",
                   "Buddhism", "Christianity", "Judaism", "Abbey", "Order of")),
    ("team", ("F.C.", "FC", "A.F.C.", "AFC", "Football", "Club", "Athletic", "Rovers",
              "Wanderers", "Rangers", "Hotspur", "United", "Lakers", "Yankees", "Dodgers",
              "Red Sox", "Celtics", "Knicks", "Bulls", "Packers", "Racing", "Sporting")),
    ("government", ("Ministry", "Department", "Army", "Navy", "Air Force", "Marine", "Corps",
                    "Regiment", "Police", "Parliament", "Senate", "Congress", "Council",
                    "Agency", "Bureau", "Commission", "Committee", "Government", "Court",
                    "Office", "Administration", "Assembly", "Guard", "Legion")),
    ("company", ("Inc", "Inc.", "Corp", "Corp.", "Corporation", "Company", "Co.", "Ltd",
                 "Ltd.", "LLC", "plc", "PLC", "AG", "GmbH", "S.A.", "Group", "Airlines",
                 "Airways", "Bank", "Studios", "Pictures", "Entertainment", "Motors",
                 "Records", "Games", "Publishing", "Publishers", "Press", "Network",
                 "Television", "TV", "Broadcasting", "Media", "Holdings", "Industries",
                 "Technologies", "Software", "Systems", "Music", "Films", "Productions",
                 "Comics", "Magazine", "Times", "News", "Post", "Herald", "Journal",
                 "Radio", "Railway", "Railroad", "Motor")),
)
_KIND_PATTERNS = [(kind, re.compile(r"(?<![\w.])(" + "|".join(re.escape(w) for w in words)
                                    + r")(?![\w])")) for kind, words in ORG_KINDS]

# (relation, role of the replaced argument) → the kinds that fit the slot
SLOT_KINDS: dict[tuple[str, str], frozenset[str]] = {
    ("per:schools_attended", "tail"): frozenset({"school"}),
    ("org:political/religious_affiliation", "tail"): frozenset({"party", "religious"}),
    ("per:religion", "tail"): frozenset({"religious"}),
}


@functools.lru_cache(maxsize=1)
def _genders() -> dict[str, str]:
    return json.loads(NAME_GENDERS.read_text(encoding="utf-8"))["names"]


def name_gender(mention: str) -> str | None:
    """``male``/``female`` from the first name of a person mention, ``None`` when unknown."""
    words = [w for w in re.split(r"[\s\"]+", mention.strip()) if w]
    if len(words) < 2:          # a last name alone ("Schneider") tells nothing
        return None
    return _genders().get(words[0].strip(".,"))


def pronoun_gender(text: str) -> str | None:
    """The gender the sentence's pronouns agree on: ``male``, ``female``, ``None`` when it has
    none, ``mixed`` when it has both."""
    words = set(re.findall(r"[a-z]+", text.lower()))
    m, f = bool(words & MALE_PRONOUNS), bool(words & FEMALE_PRONOUNS)
    return "mixed" if m and f else "male" if m else "female" if f else None


def person_fits(text: str, arg: Argument, candidate: str) -> tuple[bool, str]:
    """Whether ``candidate`` can stand for the person ``arg`` of ``text``, and why."""
    gender = name_gender(arg.text_in(text))
    how = "first name"
    if gender is None:
        gender = pronoun_gender(text)
        how = "pronouns"
        if gender is None:
            return True, "no gender in the sentence"
        if gender == "mixed":
            return False, "gender unknown, pronouns of both"
    return name_gender(candidate) == gender, f"{gender} ({how})"


def org_kind(mention: str) -> str:
    for kind, pattern in _KIND_PATTERNS:
        if pattern.search(mention):
            return kind
    return "other"


def org_fits(arg_text: str, role: str, relation: str, candidate: str) -> tuple[bool, str]:
    """Whether the organisation ``candidate`` fits the slot of ``arg_text`` (role ``head`` or
    ``tail`` of ``relation``), and the kind it needs. An organisation whose kind its name does
    not tell ("The Beatles", "ELAM") gets no replacement: a band in place of a school would not
    fit what the sentence says of it."""
    kinds = SLOT_KINDS.get((relation, role)) or frozenset({org_kind(arg_text)})
    if kinds == {"other"}:
        return False, "other (kind unknown: not replaced)"
    return org_kind(candidate) in kinds, "/".join(sorted(kinds))


def shape(mention: str) -> str:
    """Digits as 0, letters as a, runs collapsed: "June 5, 1905" → "a 0, 0"."""
    return re.sub(r"(.)\1+", r"\1", re.sub(r"[^\W\d_]", "a", re.sub(r"\d", "0", mention)))


def shape_fits(arg_text: str, candidate: str) -> tuple[bool, str]:
    """A date or a number is replaced by one written the same way ("5 February 1971" does not
    replace "June 5, 1905" in "(June 5, 1905 – February 2, 1971)")."""
    return shape(candidate) == shape(arg_text), f"shape {shape(arg_text)!r}"
