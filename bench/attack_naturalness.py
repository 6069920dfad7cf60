"""Would the language model tell the context attack's sound sentences from its broken ones?
Scores the changed sentences of the read context-attack successes (bench/reads/attack_minilm_*)
with the embedded SmolLM2: the perplexity rise per token over the original sentence, in percent
(100·(exp(score(original) − score(changed)) − 1), as the repair's PThreshold reads it), against
the readers' verdict on whether the changed sentence makes sense (both readers alike).

    python bench/attack_naturalness.py

A look at a possible next filter, not a choice: the items were read before, so a threshold
chosen on them would have to be measured on successes nobody has read.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
STEMS = ("attack_minilm_open", "attack_minilm_shipped")


def load(stem: str, part: str):
    return json.loads((ROOT / "bench" / "reads" / f"{stem}.{part}.json").read_text("utf-8"))


def main() -> int:
    from runner.models import get_lm
    from runner.models.lm_parts import perplexity_rise

    rows = []   # (original, changed, both readers: sensible, both readers: not sensible)
    for stem in STEMS:
        first = {m["item"]: m["sensible"] for m in load(stem, "first")}
        second = {m["item"]: m["sensible"] for m in load(stem, "second")}
        for it in load(stem, "blind")["items"]:
            a, b = first[it["item"]], second[it["item"]]
            rows.append((it["original"], it["changed"], a and b, not (a or b)))
    lm = get_lm(device="cpu")
    scores = lm.score([r[0] for r in rows] + [r[1] for r in rows])
    n = len(rows)
    rise = [perplexity_rise(scores[i], scores[n + i]) for i in range(n)]
    good = [x for x, r in zip(rise, rows) if r[2]]
    bad = [x for x, r in zip(rise, rows) if r[3]]
    auc = sum((p < q) + 0.5 * (p == q) for p in good for q in bad) / (len(good) * len(bad))
    print(f"{lm.describe().get('name')}: {len(good)} changed sentences sensible to both readers, "
          f"{len(bad)} to neither; ROC AUC of the perplexity rise {auc:.2f}")
    for t in (25, 50, 100, 200):
        print(f"  rise ≤ {t} %: keeps {sum(x <= t for x in good)} of {len(good)} sensible, "
              f"{sum(x <= t for x in bad)} of {len(bad)} not")
    return 0


if __name__ == "__main__":
    sys.exit(main())
