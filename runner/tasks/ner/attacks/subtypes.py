"""Fine types for the entity attack: a country is replaced by a country, "Greek" by a demonym.

A pool file (``pool_file``; ``builtin``: ``data/pools.tsv``) may give sub-types:
``LABEL:subtype<TAB>name[<TAB>role]`` — role ``pool`` (default: drawn and recognised), ``name``
(recognised only) or ``first`` (a first name telling a person's sub-type, its gender). Lines
``LABEL<TAB>name`` are a coarse pool, as before.

An attacked entity's sub-type is decided in order by (``from`` in the records):

1. ``gazetteer`` — its name (accents, case, a leading "the", a part after a comma ignored)
   among the file's names of its label; a person by their first name (or a lone first name);
2. ``wordnet`` — WordNet 3.0: a proper-noun sense of the name whose instance hypernyms (or
   hypernyms) reach an anchor of a sub-type of its label ("Severn" → river.n.01);
3. ``clue`` — the name's own words ("River X", "X University", "… FC", "… Festival", "Mr.
   X", a word in -ese / -ian for a MISC entity) or the words before it ("mayor of X": a city;
   "Mr", "his son"); a person whose gender nothing tells, in a sentence without a gendered
   word (he, her, Mr …), gets sub-type ``person`` (either gender reads the same there).

Sub-types may have kinds (``company.car``, ``company.bank``): the gazetteer tells the kind, a clue
("… Ltd") only ``company``, which draws from every kind.

Otherwise the sub-type is unknown (``None``): the attack skips the entity or, with
``unknown_subtype: coarse``, draws from every name of its label (records ``pool_level``).
"""
from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path
from typing import Any, Iterable

from runner.text.articles import without_the

BUILTIN = Path(__file__).resolve().parent / "data" / "pools.tsv"
ROLES = ("pool", "name", "first")
PERSON_ANY = "person"
ARTICLE_COUNTRY = "country_the"     # countries read with "the" ("the Netherlands")

# label → WordNet anchor synset → sub-type (the names build_pools.py ships come from a subset).
WORDNET_ANCHORS: dict[str, dict[str, str]] = {
    "LOCATION": {"country.n.02": "country", "city.n.01": "city", "town.n.01": "city",
                 "american_state.n.01": "state", "continent.n.01": "continent",
                 "island.n.01": "island", "river.n.01": "river", "lake.n.01": "lake",
                 "mountain.n.01": "mountain", "volcano.n.02": "mountain",
                 "museum.n.01": "museum"},
    "ORGANIZATION": {"university.n.02": "university", "political_party.n.01": "party",
                     "international_organization.n.01": "international_body",
                     "central_bank.n.01": "central_bank", "agency.n.01": "agency",
                     "company.n.01": "company", "newspaper.n.03": "newspaper"},
    "MISC": {"athletic_contest.n.01": "sports_event", "festival.n.01": "cultural_event"},
}

# Clues in the name itself: (label, pattern, sub-type), first match wins.
_NAME_CLUES = [(lab, re.compile(p), sub) for lab, p, sub in [
    ("LOCATION", r"^(River|Rio) \S|\S River$", "river"),
    ("LOCATION", r"^(Mount|Mt\.?) \S|\S Mountain$", "mountain"),
    ("LOCATION", r"^Lake \S|\S Lake$", "lake"),
    ("LOCATION", r"\S (Islands?|Isle)$|^Isle of \S", "island"),
    ("LOCATION", r"\b(Stadium|Arena|Park|Ground|Stadion|Estadio)\b", "venue"),
    ("LOCATION", r"\b(Museum|Gallery|Musée|Museo)\b", "museum"),
    ("ORGANIZATION", r"\b(University|Universität|Université|Universidad|College|Institute of "
                     r"Technology)\b", "university"),
    ("ORGANIZATION", r"\b(Central Bank|Reserve Bank|Federal Reserve)\b|^Bank of \S",
     "central_bank"),
    ("ORGANIZATION", r"^(FC|AC|AS|SC|SV|Real|Atlético|Sporting) \S|\S (F\.?C\.?|United|"
                     r"Rovers|Wanderers|Athletic|Hotspur)$", "sports_team"),
    ("ORGANIZATION", r"\b(Inc\.?|Ltd\.?|plc|PLC|AG|SE|GmbH|S\.A\.|Corp\.?|Corporation|Company|"
                     r"Group|Holdings|Motors|Airlines|Airways|Bank)$", "company"),
    ("ORGANIZATION", r"^(European|International|World|United Nations)\b.*\b(Commission|Council|"
                     r"Organi[sz]ation|Union|Parliament|Court|Fund)\b", "international_body"),
    ("ORGANIZATION", r"\b(Agency|Administration|Ministry|Department|Bureau|Service)\b", "agency"),
    ("ORGANIZATION", r"\bParty$", "party"),
    ("ORGANIZATION", r"\b(Times|Post|Journal|Herald|Gazette|Tribune|Zeitung|Daily)\b",
     "newspaper"),
    ("MISC", r"\b(Games|Cup|Championships?|Open|Marathon|Grand Prix|Olympics|League)$",
     "sports_event"),
    ("MISC", r"\b(Festival|Contest|Biennale|Fair|Carnival|Awards)$", "cultural_event"),
    ("MISC", r"^[A-Z][a-z]+(ese|ian|ish|an|i)$", "demonym"),
]]
# Clues in the words just before the name.
_BEFORE_CLUES = [(lab, re.compile(f"(?:{p})" + r"\s*$", re.I), sub) for lab, p, sub in [
    ("LOCATION", r"\b(mayor|city|town|suburbs?|streets) of( the)?", "city"),
    ("LOCATION", r"\b(the )?river", "river"),
    ("LOCATION", r"\b(state|province) of", "state"),
    ("PERSON", r"\b(Mr|Sir|Lord|King|Prince|Father|Brother|Mister)\.?|\b(his|her|their) "
               r"(son|brother|father|husband|nephew|uncle|grandson)", "male"),
    ("PERSON", r"\b(Mrs|Ms|Miss|Lady|Queen|Princess|Madam|Sister|Dame)\.?|\b(his|her|their) "
               r"(daughter|sister|mother|wife|niece|aunt|granddaughter)", "female"),
]]
_TITLE = re.compile(r"(?P<male>(?:Mr|Sir|Lord|Mister)\.?$)|"
                    r"(?P<female>(?:Mrs|Ms|Miss|Lady|Dame)\.?$)")
GENDERED = re.compile(r"\b(he|him|his|himself|she|her|hers|herself|Mr|Mrs|Ms|Miss|Sir|Lady|"
                       r"man|woman|husband|wife|son|daughter|father|mother|brother|sister)\b",
                       re.I)


def norm(name: str) -> str:
    """A name as looked up: accents, case, a leading "the" and spacing ignored."""
    s = unicodedata.normalize("NFKD", name)
    s = "".join(ch for ch in s if not unicodedata.combining(ch)).casefold().replace("’", "'")
    s = " ".join(s.split())
    return without_the(s)


def read_rows(path: Path) -> list[tuple[str, str, str]]:
    """The pool file's ``(key, name, role)`` rows (key ``LABEL`` or ``LABEL:subtype``)."""
    from runner.errors import MtrunError

    if not path.is_file():
        raise MtrunError(f"{path}: entity pool file not found")
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        key, sep, rest = line.partition("\t")
        name, _, role = rest.partition("\t")
        role = role.strip() or "pool"
        if not sep or not key.strip() or not name.strip():
            raise MtrunError(f"{path}:{n}: expected TYPE<TAB>entity text, got {line[:80]!r}")
        if role not in ROLES:
            raise MtrunError(f"{path}:{n}: role {role!r} is not one of {', '.join(ROLES)}")
        rows.append((key.strip(), name.strip(), role))
    return rows


class Gazetteer:
    """Pools by label and sub-type, and the names that tell an entity's sub-type."""

    def __init__(self, rows: Iterable[tuple[str, str, str]], wordnet: Any = None) -> None:
        self.pools: dict[tuple[str, str | None], list[str]] = {}
        self.names: dict[tuple[str, str], str] = {}
        self.firsts: dict[str, str] = {}
        self._wordnet = wordnet
        for key, name, role in rows:
            label, _, sub = key.partition(":")
            if role == "first":
                self.firsts.setdefault(norm(name), sub)
                continue
            if sub:
                self.names.setdefault((label, norm(name)), sub)
            if role == "pool":
                self.pools.setdefault((label, sub or None), []).append(name)
        self.pools = {k: sorted(set(v)) for k, v in self.pools.items()}
        self.fine_labels = {lab for lab, sub in self.pools if sub}

    def pool(self, label: str, sub: str | None) -> list[str]:
        """The names drawn for a sub-type and its kinds (``company``: ``company.car``, …;
        ``person``: either gender); ``None``: every name of the label, coarse lines and
        sub-types together (but the countries read with "the")."""
        if sub is None:
            return sorted({n for (lab, s), v in self.pools.items() if lab == label
                           and s != ARTICLE_COUNTRY for n in v})
        if label == "PERSON" and sub == PERSON_ANY:
            return sorted({n for (lab, s), v in self.pools.items() if lab == label and s
                           for n in v})
        return sorted({n for (lab, s), v in self.pools.items() if lab == label and s
                       and (s == sub or s.startswith(sub + ".")) for n in v})

    def pool_in_place(self, label: str, sub: str, original: str, before: str) -> list[str]:
        """The names drawn for an entity of ``sub``, as they should read in its place: after
        "the", a country that reads with it ("the U.K." → "the Netherlands"); "River X" for
        "River Severn"."""
        if sub == "country" and re.search(r"\bthe\s*$", before, re.I):
            return self.pool(label, ARTICLE_COUNTRY)
        return framed(original, sub, self.pool(label, sub))

    def sizes(self) -> dict[str, int]:
        return {f"{lab}:{sub}" if sub else lab: len(v)
                for (lab, sub), v in sorted(self.pools.items(), key=lambda kv: (kv[0][0],
                                                                                kv[0][1] or ""))}

    def subtype(self, label: str, name: str, before: str = "",
                sentence: str = "") -> tuple[str | None, str | None]:
        """``(sub-type, how)`` of an entity of ``label`` written ``name``, with the sentence's
        text ``before`` it and the whole ``sentence``; ``(None, None)`` when nothing tells."""
        subs = {p for (lab, s) in self.pools if lab == label and s
                for p in _prefixes(s)}
        if label == "PERSON":
            words = name.split()
            if len(words) > 1 and _TITLE.match(words[0]):      # "Mr. Jones": the title tells
                return _TITLE.match(words[0]).lastgroup, "clue"
            sub = self.firsts.get(norm(words[0])) if words else None
            if sub:
                return sub, "gazetteer"
        else:
            # "Washington, D.C.", "Paris, France": the name before the comma
            sub = (self.names.get((label, norm(name)))
                   or self.names.get((label, norm(name.split(",")[0]))))
            if sub:
                return sub, "gazetteer"
            sub = self._from_wordnet(label, name, subs)
            if sub:
                return sub, "wordnet"
        for lab, pattern, sub in _NAME_CLUES:
            if lab == label and sub in subs and pattern.search(name):
                return sub, "clue"
        for lab, pattern, sub in _BEFORE_CLUES:
            if lab == label and sub in subs and pattern.search(before):
                return sub, "clue"
        if label == "PERSON" and not GENDERED.search(sentence):
            return PERSON_ANY, "clue"
        return None, None

    def _from_wordnet(self, label: str, name: str, subs: set[str]) -> str | None:
        anchors = WORDNET_ANCHORS.get(label)
        if not anchors:
            return None
        wn = self._wordnet if self._wordnet is not None else _wordnet()
        if wn is None:
            return None
        key = name.strip().replace(" ", "_")
        if key.startswith(("the_", "The_")):
            key = key[4:]
        for syn in wn.synsets(key, "n"):
            if not any(lemma.name()[:1].isupper() and lemma.name().casefold() == key.casefold()
                       for lemma in syn.lemmas()):
                continue
            up = syn.closure(lambda s: s.instance_hypernyms() + s.hypernyms())
            for s in [syn, *up]:
                sub = anchors.get(s.name())
                if sub in subs:
                    return sub
        return None


def _prefixes(sub: str) -> list[str]:
    """``company.car`` → ``company``, ``company.car``: a clue may name the sub-type only."""
    parts = sub.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


@functools.lru_cache(maxsize=1)
def _wordnet() -> Any:
    try:
        from runner.models.wordnet import load_wordnet

        return load_wordnet()
    except Exception:  # noqa: BLE001 — WordNet is optional here: the other clues still work
        return None


def read_gazetteer(path: str | Path) -> Gazetteer:
    return Gazetteer(read_rows(BUILTIN if str(path) == "builtin" else Path(path)))


# How a drawn name takes the original's frame ("River Severn" → "River Thames").
_FRAMES = {"river": ("River ", " River"), "lake": ("Lake ", " Lake"),
           "mountain": ("Mount ", " Mountain")}


def framed(original: str, sub: str | None, names: list[str]) -> list[str]:
    """Names shaped like the original: "River " before each drawn river when the original has it
    (and the name has not)."""
    prefix, suffix = _FRAMES.get(sub or "", ("", ""))
    if prefix and original.startswith(prefix):
        return [n if n.startswith(prefix) else prefix + n for n in names]
    if suffix and original.endswith(suffix):
        return [n if n.endswith(suffix) else n + suffix for n in names]
    return names
