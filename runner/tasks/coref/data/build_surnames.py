"""Regenerate ``surnames.txt`` (the last names of Faker's en_US and en_GB person providers, MIT
licence; see README.md in this folder), which ``name_swap`` reads to tell a first name that is
also a surname ("Thomas", "Clayton", "Ross"). Not imported by mtrun; run by hand:

    pip download faker==40.54.0 --no-deps -d /tmp/faker && cd /tmp/faker && unzip -q faker-*.whl
    python runner/tasks/coref/data/build_surnames.py /tmp/faker
"""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

LOCALES = ("en_US", "en_GB")
FAKER_VERSION = "40.54.0"


def main(faker_dir: str) -> None:
    sys.path.insert(0, faker_dir)
    import faker

    if faker.VERSION != FAKER_VERSION:
        sys.exit(f"expected Faker {FAKER_VERSION}, found {faker.VERSION}")
    names: set[str] = set()
    for locale in LOCALES:
        provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        names |= set(provider.last_names)
    out = Path(__file__).with_name("surnames.txt")
    header = (f"# Last names of Faker {FAKER_VERSION}'s {', '.join(LOCALES)} person providers "
              f"(MIT licence, Copyright (c) 2012 Daniele Faraglia); build_surnames.py\n")
    out.write_text(header + "".join(f"{n}\n" for n in sorted(names)), encoding="utf-8")
    print(f"wrote {len(names)} surnames to {out}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
