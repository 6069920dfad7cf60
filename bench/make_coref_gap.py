"""Builds suites/data/coref_gap.jsonl: Wikipedia passages for the coreference task from GAP
(Webster et al. 2018, github.com/google-research-datasets/gap-coreference, commit 83135f2;
Apache-2.0; the text is Wikipedia's, CC BY-SA 3.0), text none of CREST's checks was chosen on.

Usage: python bench/make_coref_gap.py GAP_DIR [test|development|validation|test-d|test-e|test-f|
       development-g|test-h|development-i|
       development-j]
    test (default): suites/data/coref_gap.jsonl, from gap-test.tsv
    development: suites/data/coref_gap_b.jsonl, from gap-development.tsv (built after
        coref_gap.jsonl was read, to measure ``lm_proposed``)
    validation: suites/data/coref_gap_c.jsonl, from gap-validation.tsv, every passage kept
        (built after coref_gap_b.jsonl was read, to measure ``lm_candidates``)
    test-d: suites/data/coref_gap_d.jsonl, from gap-test.tsv, the PASSAGES kept after those of
        coref_gap.jsonl (built after name_swap's draw of parts b and c was read, to measure its
        rules written then)
    test-e: suites/data/coref_gap_e.jsonl, the PASSAGES kept after those of coref_gap_d.jsonl
        (built after part d was read, to measure name_swap's rules written then)
    test-f: suites/data/coref_gap_f.jsonl, the PASSAGES kept after those of coref_gap_e.jsonl
        (built after part e was read, to measure name_swap's ``new_names: passage``)
    development-g: suites/data/coref_gap_g.jsonl, from gap-development.tsv, the 2 × PASSAGES
        kept after those of coref_gap_b.jsonl (built with part f, for the same)
    test-h: suites/data/coref_gap_h.jsonl, the PASSAGES kept after those of coref_gap_f.jsonl
        (built after parts b to g were read, to measure name_swap's ``fit_era``, its gender
        share and its venue rule; gap-test.tsv keeps only 90 more)
    development-i: suites/data/coref_gap_i.jsonl, the PASSAGES kept after those of
        coref_gap_g.jsonl (built with part h, for the same)
    development-j: suites/data/coref_gap_j.jsonl, the PASSAGES kept after those of
        coref_gap_i.jsonl (built after parts h and i were read, to measure the rules written
        on them: names in use through the twentieth century, Anglo names of no other origin)

GAP_DIR is a checkout of the repository or a git directory of it (``git show HEAD:…``). The
passages are the ``Text`` column of ``gap-test.tsv`` in file order: each a few sentences of a
Wikipedia article around an ambiguous pronoun. Left out: a passage with ``*`` (GAP writes a
character outside ASCII as ``*``: "M*nchen") or a `` `` `` quote (the tokeniser's), and one of more
than ``MAX_WORDS`` words; the first ``PASSAGES`` kept. GAP's labels (which of two names a pronoun
refers to) are not clusters of the whole passage and are not kept: the suite compares each
follow-up with its source.
"""
from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PASSAGES = 250
MAX_WORDS = 90
# part → (GAP's file, the file written, passages skipped, passages kept: PASSAGES or every one)
PARTS = {"test": ("test", "coref_gap.jsonl", 0, PASSAGES),
         "development": ("development", "coref_gap_b.jsonl", 0, PASSAGES),
         "validation": ("validation", "coref_gap_c.jsonl", 0, None),
         "test-d": ("test", "coref_gap_d.jsonl", PASSAGES, PASSAGES),
         "test-e": ("test", "coref_gap_e.jsonl", 2 * PASSAGES, PASSAGES),
         "test-f": ("test", "coref_gap_f.jsonl", 3 * PASSAGES, PASSAGES),
         "development-g": ("development", "coref_gap_g.jsonl", PASSAGES, 2 * PASSAGES),
         "test-h": ("test", "coref_gap_h.jsonl", 4 * PASSAGES, PASSAGES),
         "development-i": ("development", "coref_gap_i.jsonl", 3 * PASSAGES, PASSAGES),
         "development-j": ("development", "coref_gap_j.jsonl", 4 * PASSAGES, PASSAGES)}


def read_tsv(gap: Path, split: str) -> str:
    name = f"gap-{split}.tsv"
    if (gap / name).is_file():
        return (gap / name).read_text(encoding="utf-8")
    return subprocess.run(["git", "-C", str(gap), "show", f"HEAD:{name}"],
                          capture_output=True, text=True, check=True).stdout


def main(gap: str, split: str = "test") -> None:
    if split not in PARTS:
        sys.exit(f"the split must be one of {', '.join(PARTS)}, not {split!r}")
    split, name, skip, limit = PARTS[split]
    rows, seen = [], set()
    for row in csv.DictReader(io.StringIO(read_tsv(Path(gap), split)), delimiter="\t"):
        text = " ".join(row["Text"].split())
        if ("*" in text or "``" in text or len(text.split()) > MAX_WORDS or text in seen):
            continue
        seen.add(text)
        rows.append({"id": f"gap-{row['ID']}", "text": text})
        if len(rows) == (None if limit is None else skip + limit):
            break
    out = ROOT / "suites" / "data" / name
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows[skip:]),
                   encoding="utf-8")
    print(f"wrote {len(rows) - skip} passages to {out}")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(*sys.argv[1:3])
