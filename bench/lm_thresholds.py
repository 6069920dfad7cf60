"""The language-model filters' thresholds of the default NER suite, from judged follow-ups.

    python bench/lm_thresholds.py [--pairs bench/data/lm_threshold_pairs.json]

The pairs file holds 200 follow-ups of the sample news corpus, each with the syntactic filter's
score ε (the drop in SmolLM2-135M's mean log-probability per token from source to follow-up; the
model's layers in bfloat16 as the suite runs them, ``--float32`` for the float32 model) and
the semantic filter's (MiniLM's cosine of the replaced words and their replacement), judged blind
for naturalness (see the file's ``about``). For each transformation it prints how many natural
and unnatural follow-ups each threshold keeps, then the rule's choice:

- ``SynThreshold`` (keep when ε ≤ it): the smallest value on the grid that keeps at least
  ``--keep-natural`` (default 2/3) of the natural word and phrase replacements, and 9 in 10 of
  the natural questions and shuffles (a question scores lower than its statement);
- the semantic filter (MiniLM's cosine, keep when ≥ a threshold): the largest value on the grid
  that still keeps 9 in 10 of the natural word and phrase replacements the syntactic threshold
  kept, and what it then drops — next to nothing, which is why the default suite leaves it out.

Every question and shuffle of the sample was natural, so their thresholds would only remove
natural follow-ups; the default suite does not judge them with the language model.

suites/ner_spacy.yaml states the values this prints for token_mlm and phrase_np.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GRID_EPS = [round(0.05 * i, 2) for i in range(0, 41)]          # 0 … 2
GRID_SEM = [round(0.05 * i, 2) for i in range(0, 14)]          # 0 … 0.65
REPLACEMENTS = ("token_mlm", "phrase_np")
ORDER = ("token_mlm", "phrase_np", "structural_question", "entity_shuffle")


def load(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["pairs"]


def choose(pairs: list[dict], keep_natural: float = 2 / 3, keep_structural: float = 0.9,
           column: str = "epsilon_bfloat16") -> dict[str, dict]:
    """Per transformation: the chosen thresholds and what they keep (ε from ``column``)."""
    pairs = [{**p, "epsilon": p[column]} for p in pairs]
    out: dict[str, dict] = {}
    for t in ORDER:
        rows = [p for p in pairs if p["transformation"] == t]
        natural = [p for p in rows if p["natural"]]
        share = keep_natural if t in REPLACEMENTS else keep_structural
        eps = next(e for e in GRID_EPS
                   if sum(p["epsilon"] <= e for p in natural) >= share * len(natural))
        kept = [p for p in rows if p["epsilon"] <= eps]
        entry = {"pairs": len(rows), "natural": len(natural), "SynThreshold": eps,
                 "kept": len(kept), "kept_natural": sum(p["natural"] for p in kept)}
        if t in REPLACEMENTS:
            base = entry["kept_natural"]
            sem = max(s for s in GRID_SEM
                      if sum(p["natural"] and p["semantic"] >= s for p in kept)
                      >= keep_structural * base)
            dropped = [p for p in kept if p["semantic"] < sem]
            entry.update(semantic=sem, semantic_drops_natural=sum(p["natural"] for p in dropped),
                         semantic_drops_unnatural=sum(not p["natural"] for p in dropped))
        out[t] = entry
    return out


def table(pairs: list[dict], column: str = "epsilon_bfloat16") -> str:
    pairs = [{**p, "epsilon": p[column]} for p in pairs]
    lines = []
    for t in ORDER:
        rows = [p for p in pairs if p["transformation"] == t]
        nat = [p for p in rows if p["natural"]]
        un = [p for p in rows if not p["natural"]]
        lines.append(f"{t}: {len(rows)} follow-ups, {len(nat)} natural")
        for e in (0.0, 0.1, 0.2, 0.3, 0.5, 0.8, 1.0, 1.5):
            lines.append(f"  ε ≤ {e:<4} keeps natural {sum(p['epsilon'] <= e for p in nat):>3}/"
                         f"{len(nat):<3} unnatural {sum(p['epsilon'] <= e for p in un):>3}/{len(un)}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", default=str(ROOT / "bench/data/lm_threshold_pairs.json"))
    ap.add_argument("--keep-natural", type=float, default=2 / 3)
    ap.add_argument("--float32", action="store_true",
                    help="ε of the model in float32 (default: bfloat16, as the suite runs it)")
    args = ap.parse_args()
    pairs = load(Path(args.pairs))
    column = "epsilon" if args.float32 else "epsilon_bfloat16"
    print(table(pairs, column))
    print()
    for t, e in choose(pairs, args.keep_natural, column=column).items():
        print(f"{t}: SynThreshold {e['SynThreshold']} — keeps {e['kept']} of {e['pairs']}, "
              f"{e['kept_natural']} of the {e['natural']} natural")
        if "semantic" in e:
            print(f"  then semantic ≥ {e['semantic']} would drop {e['semantic_drops_natural']} "
                  f"natural and {e['semantic_drops_unnatural']} unnatural of them")

if __name__ == "__main__":
    main()
