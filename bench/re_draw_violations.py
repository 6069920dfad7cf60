"""Violations of an RE run drawn at random to be read by hand, and the file a second reader gets.

Usage: python bench/re_draw_violations.py RUN_DIR/results.json --blind OUT.json --marks OUT.json
       [--n 36] [--seed 13] [--per-sentence 3]

The draw is seeded and spread over the MRs: each MR with violations gets an equal share of
``--n`` (all of its violations when it has fewer; what is left over goes to the MRs with the
most violations), at most ``--per-sentence`` violations from one source sentence. Written:

- ``--blind``: per drawn violation its id, the MR, the source sentence and the follow-up with
  ``[HEAD: …]`` and ``[TAIL: …]`` marked (and the arguments' types; for MR-C1/C2 the other pair
  and the system's answer on it), the system's answer on each and the relation the MR expects on
  the follow-up — no verdict and none of the tool's reasons;
- ``--marks``: a triage file (``bench/validity_*.triage.json``'s format) with one mark per drawn
  violation, ``"mark": null``, to be filled in by the reader (``confirmed`` or ``false_alarm``).
"""
from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict
from pathlib import Path

MRS = ("MR-R1", "MR-R2", "MR-R3", "MR-R4", "MR-S1", "MR-S2", "MR-C1", "MR-C2")
EXPECTS = {
    "identical": "the follow-up should get the source's relation",
    "coarser": "the argument was replaced by a coarser place; the follow-up should get the coarser "
               "relation",
    "inverse": "head and tail were swapped; the follow-up should get the inverse relation",
    "composed": "two pairs of the sentence share an argument; the follow-up pair should get the "
                "composed relation",
}


def marked(side: dict) -> str:
    """The sentence with the head and the tail marked."""
    text, spans = side["text"], []
    for role in ("head", "tail"):
        a = side[role]
        spans.append((a["start"], a["end"], role.upper()))
    out, at = [], 0
    for start, end, role in sorted(spans):
        out.append(text[at:start] + f"[{role}: {text[start:end]}]")
        at = end
    return "".join(out) + text[at:]


def label(side: dict) -> str:
    rel = side.get("relation") or {}
    return rel.get("label", "") if isinstance(rel, dict) else str(rel)


def draw(cases: list[dict], n: int, seed: int, per_sentence: int) -> list[dict]:
    fails: dict[str, list[dict]] = defaultdict(list)
    for c in cases:
        if c["verdict"]["outcome"] == "fail":
            fails[c["follow_up"]["meta"].get("mr", "?")].append(c)
    rng = random.Random(seed)
    pools = {mr: rng.sample(cs, len(cs)) for mr, cs in sorted(fails.items())}
    quota = {mr: 0 for mr in pools}
    left = n
    while left > 0 and any(quota[mr] < len(pools[mr]) for mr in pools):
        for mr in sorted(pools, key=lambda m: -len(pools[m])):
            if left and quota[mr] < len(pools[mr]):
                quota[mr] += 1
                left -= 1
    per_sent: dict[str, int] = defaultdict(int)
    out = []
    for mr in sorted(pools, key=lambda m: MRS.index(m) if m in MRS else 99):
        taken = 0
        for c in pools[mr]:
            if taken == quota[mr]:
                break
            sent = c["source"]["text"]
            if per_sent[sent] >= per_sentence:
                continue
            per_sent[sent] += 1
            taken += 1
            out.append(c)
    return out


def blind_item(k: int, c: dict) -> dict:
    f = c["follow_up"]
    meta = f["meta"]
    item = {"item": k, "id": c["id"], "mr": meta.get("mr"),
            "check": EXPECTS.get(c.get("relation") or meta.get("relation", ""),
                                 c.get("relation", "")),
            "source_sentence": marked(c["source"]),
            "source_types": f"head {c['source']['head']['type']}, tail "
                            f"{c['source']['tail']['type']}",
            "system_answer_on_source": label(c["source"]),
            "follow_up_sentence": marked(f),
            "follow_up_types": f"head {f['head']['type']}, tail {f['tail']['type']}",
            "system_answer_on_follow_up": label(f),
            "answer_the_check_expects_on_follow_up": f.get("expected")}
    if meta.get("first_pair"):            # MR-C1/C2: the other pair the composition starts from
        h, t = meta["first_pair"]
        item["first_pair_and_system_answer"] = f"({h}, {t}): {meta.get('first_relation')}"
    return item


def replacement_item(item_id: str, c: dict) -> dict:
    """An MR-R1 violation as the two-run draws give it to the readers (no run named): both
    sentences marked, both answers, the replacement, the expectation."""
    fu = c["follow_up"]
    return {"id": item_id,
            "source": marked(c["source"]), "source_answer": label(c["source"]),
            "follow_up": marked(fu), "follow_up_answer": label(fu),
            "replaced": f"{fu['meta']['original']} -> {fu['meta']['replacement']}",
            "expectation": EXPECTS["identical"]}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--blind", required=True)
    ap.add_argument("--marks", required=True)
    ap.add_argument("--n", type=int, default=36)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--per-sentence", type=int, default=3)
    args = ap.parse_args()
    results = json.loads(Path(args.results).read_text(encoding="utf-8"))
    drawn = draw(results["cases"], args.n, args.seed, args.per_sentence)
    items = [blind_item(k, c) for k, c in enumerate(drawn, 1)]
    Path(args.blind).write_text(json.dumps(
        {"rule": "real: the system's answer is wrong on the source, or on a follow-up that reads "
                 "as acceptable English and for which the expected answer is right; "
                 "false_alarm: otherwise (the follow-up does not read, or the expected answer is "
                 "wrong for it while the answer on the source is right)",
         "items": items}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    marks = [{"id": c["id"], "transformation": c["follow_up"]["meta"].get("transformation")
              or c["id"].split("/")[1], "relation": c["id"].split("/")[-1], "mark": None,
              "note": "", "mr": it["mr"], "sentence": c["source"]["text"],
              "source_pair": f"({c['source']['head']['text']}, {c['source']['tail']['text']}): "
                             f"{it['system_answer_on_source']}",
              "follow_up_pair": f"({c['follow_up']['head']['text']}, "
                                f"{c['follow_up']['tail']['text']}): "
                                f"{it['system_answer_on_follow_up']} (expected "
                                f"{it['answer_the_check_expects_on_follow_up']})"}
             for it, c in zip(items, drawn)]
    Path(args.marks).write_text(json.dumps({"mtrun_triage": 1, "suite": results.get("suite", {})
                                            .get("name", "") if isinstance(results.get("suite"),
                                                                           dict) else "",
                                            "read_by_hand": "", "marks": marks}, indent=1,
                                           ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(items)} drawn: " + ", ".join(
        f"{mr} {sum(i['mr'] == mr for i in items)}" for mr in MRS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
