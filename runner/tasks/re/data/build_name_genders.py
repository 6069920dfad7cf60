"""Regenerate ``name_genders.json`` (first name → ``male``/``female``, MR-R1's gender of a person
slot) from the person-name lists of Faker (MIT licence, Copyright (c) 2012 Daniele Faraglia; the
licence text is in ``runner/text/data/README.md``). Not imported by mtrun; run
by hand when the list should change:

    pip download faker==40.54.0 --no-deps -d /tmp/faker && cd /tmp/faker && unzip -q faker-*.whl
    python runner/tasks/re/data/build_name_genders.py /tmp/faker

Unlike ``first_names.json`` (names to swap in, without common words), this list is for reading a
name's gender, so it keeps every one-word name in Latin script of the Latin-script locales'
``first_names_male``/``first_names_female`` ("John", "Mary", "Grace"); a name found in both
genders' lists (of any locale) is left out.
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path


def main(src: str) -> None:
    sys.path.insert(0, src)
    root = Path(src) / "faker" / "providers" / "person"
    seen: dict[str, set[str]] = {}
    for loc in sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("_")):
        mod = importlib.import_module(f"faker.providers.person.{loc}")
        prov = mod.Provider
        for gender in ("male", "female"):
            names = getattr(prov, f"first_names_{gender}", None) or ()
            if isinstance(names, dict):
                names = list(names)
            for n in names:
                if (isinstance(n, str) and n.isalpha() and n[:1].isupper() and len(n) >= 2
                        and all(c.isascii() or c.isalpha() and ord(c) < 0x250 for c in n)):
                    seen.setdefault(n, set()).add(gender)
    out = {n: next(iter(g)) for n, g in sorted(seen.items()) if len(g) == 1}
    target = Path(__file__).with_name("name_genders.json")
    target.write_text(json.dumps({"source": "Faker 40.54.0 (MIT)", "names": out},
                                 ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"{target}: {len(out)} names ({sum(v == 'female' for v in out.values())} female)")


if __name__ == "__main__":
    main(sys.argv[1])
