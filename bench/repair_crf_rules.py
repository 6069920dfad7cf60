"""How the CRF referee's rule was chosen: rules that combine the spaCy referees' readings, the
CRF's and the name lists, compared on the same recorded readings of finished runs.

Usage: python bench/repair_crf_rules.py SUITE.yaml:RUN_DIR ...

Each run's violations are repaired once with ``crf_referee: stanford`` (``bench/repair_eval.py``),
which records every referee's reading of each suspicious entity in both sentences; each rule
then decides from those readings alone, and its relabels are counted against the gold per
entity occurrence (TT/TF/FT/FF, ErrorReduce, Cor2Err, as ``bench/repair_crf.py`` counts them).
An approximation of the engine's repair: range conflicts and the article rule are left out, so
the chosen rule's counts differ from ``bench/repair_crf.py``'s by a few occurrences. It repeats
on the tuning sets (CrossNER music, AI, science, politics, literature; PUD measure; re3d;
Wikigold b; EWT measure) the comparison by which the rule was chosen there before it was frozen
(a simulation of some twenty rules on the same readings), for the rules named in ``RULES``.
"""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))



def items(suite_path: str, run_dir: str) -> list[dict]:
    """One item per suspicious entity: its readings and both occurrences with the gold."""
    from repair_crf_reads import gold_at, replayed, sides
    from runner.tasks.ner.repair.gazetteer import name_type

    out = []
    for c in replayed(suite_path, run_dir, {"crf": {"crf_referee": "stanford"}})["crf"]:
        both = sides(c)
        if len(both) < 2 or not c.repair:
            continue
        for es, ef in zip(c.repair["source"]["entities"], c.repair["follow_up"]["entities"]):
            occ = [((text, e["start"], e["end"]), e["before"], gold_at(gold, e["start"], e["end"]))
                   for (_, text, gold), e in zip(both, (es, ef))]
            crf = {k: v for k, v in (es.get("readings") or {}).items()
                   if k.startswith("stanford-ner")}
            spacy = [x for k, v in (es.get("readings") or {}).items() if k not in crf for x in v]
            out.append({"occ": occ, "spacy": spacy, "crf": next(iter(crf.values()), None),
                        "lists": name_type(es["text"])})
    return out


def decide(it: dict, rule: str) -> str | None:
    """The label both occurrences take under ``rule``, or None (the system's labels stay)."""
    disputed = {before for _, before, _ in it["occ"]}
    spacy, lists = it["spacy"], it["lists"]
    cnt = Counter(spacy)
    agreed = spacy[0] if spacy and len(cnt) == 1 and spacy[0] in disputed else None
    crf = it["crf"]
    both = crf[0] if crf and len(set(crf)) == 1 else None
    if rule == "panel":
        return agreed or lists
    vetoed = agreed and both and both != agreed and both in disputed
    if rule == "veto":
        return None if vetoed else agreed or lists
    if rule.startswith("of6"):
        top, n = (cnt + Counter(crf or [])).most_common(1)[0]
        return top if n >= int(rule[3:]) and top in disputed else lists
    need = int(rule[-1])                       # "chosen3", "chosen2", "noveto3": K of 4
    if agreed and not (vetoed and rule.startswith("chosen")):
        return agreed
    if vetoed and rule.startswith("chosen"):
        return None
    if both and both in disputed and cnt[both] >= need:
        return both
    if rule.startswith("chosen") and lists and both and both != lists:
        return None
    return lists


RULES = {"panel": "the panel alone", "veto": "the CRF's veto only",
         "of65": "5 of 6 readings agree",
         "chosen3": "the veto, 3 of 4 spaCy readings with the CRF, lists checked (chosen)",
         "chosen2": "the same with 2 of 4", "noveto3": "3 of 4 with the CRF, no veto"}


def tally(its: list[dict], rule: str) -> Counter:
    t: Counter = Counter()
    seen = set()
    for it in its:
        label = decide(it, rule)
        for key, before, gold in it["occ"]:
            if key in seen:
                continue
            seen.add(key)
            after = before if label is None else label
            t[("T" if before == gold else "F") + ("T" if after == gold else "F")] += 1
    return t


def main(argv: list[str]) -> int:
    runs = [a.split(":", 1) for a in argv]
    its = [it for suite, run in runs for it in items(suite, run)]
    print("| rule | TT / TF / FT / FF | ErrorReduce | Cor2Err |\n|---|--:|--:|--:|")
    for rule, name in RULES.items():
        t = tally(its, rule)
        er = (t["FT"] - t["TF"]) / max(1, t["FT"] + t["FF"])
        ce = t["TF"] / max(1, t["TT"] + t["TF"])
        print(f"| {name} | {t['TT']} / {t['TF']} / {t['FT']} / {t['FF']} | {100 * er:.1f} % | "
              f"{100 * ce:.1f} % |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
