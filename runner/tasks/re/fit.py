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

A name is replaced by one written in the same script (:func:`same_script`): a Latin-script name
by a Latin-script one, not "Khalidi" by "अर्जुन" in an English sentence. A person whose surname
the sentence gives another name too (a family: "four children, Beatrice Roche, Lilianne Roche,
Marcel Roche and Luis Armando Roche"; "twin brothers Jonathan Scott and Drew Scott") keeps it:
only the given names are replaced (:func:`family_surname`, "Luis Armando Roche" → "Mehmet
Roche"). A city the sentence places (", Turkey", ", Illinois") is replaced by a city of that
country or US state (:func:`city_fits`: "Malatya, Turkey" → "Ankara, Turkey", not "Chanhassen,
Turkey"); where the offline gazetteer cannot tell the place ("Winnipeg, Manitoba"), not at all.

An organisation's kind is read from its name's words (``school``: University, College...;
``party``; ``team``: F.C., Club...; ``company``: Inc., Records, Airlines...; ``government``:
Ministry, Army...; ``religious``: Church...; ``other`` when none matches, and then it is not
replaced). The kind the slot
needs comes from the relation (the tail of per:schools_attended is a school, of
org:political/religious_affiliation a party or a religious body), else it is the original's
kind: a replacement must be of that kind.

An argument the sentence names again outside its mention is not replaced (:func:`named_again`):
replacing one of two names of the same thing makes the sentence contradict itself ("Lewis of
Luxembourg (or Louis II de Luxembourg)", "University College London Hospitals NHS Foundation
Trust (UCLH)", "Muhammaed Yasir Ahmed Taher, also known as Yasir al-Simli", "Sappy Records
also hosts the Sappy Records Music Festival").
"""
from __future__ import annotations

import functools
import json
import re
import unicodedata
from pathlib import Path
from typing import Sequence

from runner.tasks.re.transforms import _inside_name, _word_occurrences
from runner.tasks.re.types import Argument
from runner.text.articles import without_the

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


# Words many names share: another name with one of them is not the same name again.
_SHARED_WORDS = frozenset(w for _, words in ORG_KINDS for w in words) | frozenset({
    "New", "North", "South", "East", "West", "Northern", "Southern", "Eastern", "Western",
    "Saint", "Santa", "Lake", "Mount", "Island", "Islands", "River", "City", "County", "State",
    "States", "Republic", "Kingdom", "Empire", "National", "Royal", "International", "Foundation",
    "Trust", "Hospital", "Museum", "Library", "Award", "Awards", "Prize", "Cup", "King", "Queen",
    "Prince", "Princess", "Emperor", "Lady", "Lord", "Duke", "Count", "Pope", "Bishop", "Saint",
    "President", "General", "Minister", "Governor", "Senator", "Doctor", "Professor", "Captain",
    "Street", "Road", "Avenue", "Park", "Square", "Bridge", "Station", "Airport", "Castle",
    "Palace", "Tower", "Hall", "Centre", "Center", "Theatre", "Theater", "Festival", "Series",
    "Season", "Championship", "Championships", "Olympics", "Olympic", "World", "European",
    "American", "British", "English", "French", "German", "Chinese", "January", "February",
    "March", "April", "June", "July", "August", "September", "October", "November", "December",
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"})
_PARTICLES = frozenset({"the", "of", "and", "de", "la", "le", "du", "des", "von", "van", "der",
                        "den", "da", "di", "del", "y", "e", "&", "for", "in", "at", "on", "a"})
_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def _initials(words: list[str]) -> str:
    return "".join(w[0] for w in words if w[:1].isupper())


def _only_in_names(text: str, word: str) -> bool:
    """Every whole-word occurrence of ``word`` in ``text`` is part of a longer name."""
    return all(_inside_name(text, *r) for r in _word_occurrences(text, word))


_ALIAS = re.compile(r"\(|\b(or|also known as|known as|a\.?k\.?a\.?|née|nee|called|nicknamed|"
                    r"alias)\b|\bborn\b[^.;()]*\bas\b", re.IGNORECASE)


def _linked_as_alias(text: str, a: tuple[int, int], word: str) -> bool:
    """Some occurrence of ``word`` in ``text`` is tied to the span ``a`` by an alias marker
    between them ("X, also known as Y", "X (or Y)", "born … as Y")."""
    for start, end in _word_occurrences(text, word):
        lo, hi = (a[1], start) if start >= a[1] else (end, a[0])
        if lo <= hi and _ALIAS.search(text[lo:hi]):
            return True
    return False


def named_again(text: str, arg: Argument,
                replaced: Sequence[tuple[int, int]] = (), person: bool = False) -> str:
    """The words by which ``text`` names the argument again outside its mention, or "": two of
    its words in a row (any case: "gendarmerie nationale"), one of its capitalised words that few
    names share ("Luxembourg"; ``_SHARED_WORDS`` left out), or one of eight letters or more
    with another ending ("Piłsudski" / "Piłsudska"), or an acronym of it ("UCLH") or the name
    an acronym stands for. ``replaced``: the other places the replacement is written too (the
    same words again: "Keller ... Keller"), which do not count. ``person``: one shared word
    counts only where an alias marker ties the two ("Muhammaed Yasir Ahmed Taher, also known as
    Yasir al-Simli", "Lewis of Luxembourg (or Louis II de Luxembourg"): people of one family
    share surnames and first names ("four children, Beatrice Roche, Lilianne Roche …")."""
    mention = arg.text_in(text)
    rest = text
    for start, end in [(arg.start, arg.end), *replaced]:
        rest = rest[:start] + " " * (end - start) + rest[end:]
    words = _WORD.findall(mention)
    lower = rest.lower()
    for a, b in zip(words, words[1:]):
        if a.lower() in _PARTICLES or b.lower() in _PARTICLES or {a, b} <= _SHARED_WORDS:
            continue
        if re.search(r"(?<!\w)" + re.escape(a.lower()) + r"\W+" + re.escape(b.lower())
                     + r"(?!\w)", lower):
            return f"{a} {b}"
    others = _WORD.findall(rest)
    capitalised = [w for w in others if w[:1].isupper()]
    for w in words:
        if not w[:1].isupper() or len(w) < 4 or w in _SHARED_WORDS or w.isupper():
            continue
        for o in capitalised:
            if o == w and len(words) == 1 and _only_in_names(rest, w):
                continue      # "Chicago" and "Loyola University Chicago": another entity
            if o == w or (len(w) >= 8 and len(o) >= 8 and o[:len(w) - 2] == w[:len(w) - 2]):
                if person and not _linked_as_alias(rest, (arg.start, arg.end), o):
                    continue
                return o
    # acronyms: "UCLH" for University College London Hospitals …, and the other way round
    initials = _initials(words)
    for o in others:
        if len(o) >= 3 and o.isupper() and len(initials) >= len(o) and initials.startswith(o):
            return o
    if len(words) == 1 and len(mention) >= 3 and mention.isupper():
        run: list[str] = []
        for o in others + [""]:
            if o[:1].isupper() or (run and o.lower() in _PARTICLES):
                run.append(o)
                continue
            if _initials(run).startswith(mention):
                return " ".join(run)
            run = []
    return ""


def _scripts(text: str) -> frozenset[str]:
    """The scripts of a text's letters, by the first word of their Unicode names (LATIN,
    CYRILLIC, ARABIC, CJK, DEVANAGARI …)."""
    return frozenset(unicodedata.name(ch, "?").split()[0] for ch in text if ch.isalpha())


def same_script(mention: str, candidate: str) -> bool:
    """Whether a replacement is written in the script of the mention it replaces."""
    return _scripts(candidate) <= _scripts(mention) or not _scripts(mention)


_ROMAN = re.compile(r"^[IVXLC]+$")


def _name_part(word: str) -> bool:
    """A capitalised word of letters ("Núñez", "McKay") or an initial ("A.")."""
    core = word[:-1] if len(word) == 2 and word.endswith(".") else word
    return core[:1].isupper() and core.isalpha()


def _plain_surname(word: str) -> bool:
    return (_name_part(word) and not word.endswith(".") and word != word.upper()
            and not _ROMAN.match(word))


def family_surname(text: str, arg: Argument) -> str | None:
    """The surname (last word) of a person's mention of two words or more when another name of
    the sentence, outside the mention, ends in it too (a given name right before it); else
    ``None``. Regnal numbers ("Carol I"), "Jr." and names with particles, capitalised or not
    ("Robert De Niro"), are left alone."""
    words = arg.text_in(text).split()
    if not _plain_name(words):
        return None
    surname = words[-1]
    for s, e in _word_occurrences(text, surname):
        if arg.start <= s < arg.end:
            continue
        if re.search(r"\b[A-Z][^\W\d_]+\s+$", text[:s]):   # "… Beatrice Roche": a relative
            return surname
    return None


def with_surname(candidate: str, surname: str) -> str | None:
    """The candidate's given names with the family's surname, or ``None`` when the candidate is
    not a plain name of two words or more ("Philip V of Spain", "Paul Desmarais Jr.",
    "Francesco De Sanctis")."""
    words = candidate.split()
    if not _plain_name(words):
        return None
    return " ".join(words[:-1] + [surname])


def _plain_name(words: list[str]) -> bool:
    """Two words or more, each a name's part and none a particle (of any case), the last a plain
    surname."""
    return (len(words) >= 2 and all(_name_part(w) and w.lower() not in _PARTICLES for w in words)
            and _plain_surname(words[-1]))


_QUALIFIER = re.compile(r",\s+([A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*)*)")
_ALIASES = {"US": "United States", "U.S.": "United States", "USA": "United States",
            "U.S.A.": "United States", "United States of America": "United States",
            "America": "United States", "UK": "United Kingdom", "U.K.": "United Kingdom",
            "Britain": "United Kingdom", "Great Britain": "United Kingdom",
            "England": "United Kingdom", "Scotland": "United Kingdom",
            "Wales": "United Kingdom"}


def _country(name: str) -> str:
    name = without_the(name)
    return _ALIASES.get(name, name)


def city_region(text: str, arg: Argument) -> tuple[str, str] | None:
    """``("state", name)`` or ``("country", name)`` that the words after a city's ", " name —
    a US state, or a country the gazetteer's city of that name is in — or ``None`` when the
    city is not followed by a place or the gazetteer cannot tell it."""
    from runner.tasks.re.gazetteer import shared_gazetteer

    m = _QUALIFIER.match(text[arg.end:])
    if not m:
        return None
    gaz, place = shared_gazetteer(), m.group(1)
    if place not in _ALIASES:
        place = place.rstrip(".")          # the sentence's full stop ("…, Turkey.")
    if gaz.state_country(place) is not None:
        return "state", place
    city = gaz.lookup(arg.text_in(text))
    if city is not None and _country(city.country.name) == _country(place):
        return "country", _country(place)
    return None


def city_fits(region: tuple[str, str] | None, candidate: str) -> tuple[bool, str]:
    """Whether a replacement city lies in the ``region`` the sentence names (see
    :func:`city_region`; ``None``: no city fits)."""
    from runner.tasks.re.gazetteer import shared_gazetteer

    if region is None:
        return False, "a city the sentence places where the gazetteer cannot tell"
    kind, name = region
    city = shared_gazetteer().lookup(candidate)
    if city is None:
        return False, f"a city of {name}"
    if kind == "state":
        return city.state is not None and city.state.name == name, f"a city of {name}"
    return _country(city.country.name) == name, f"a city of {name}"
