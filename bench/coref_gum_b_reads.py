"""CREST on held-out GUM passages, two settings side by side, every violation of both runs
read blind. Part b (``suites/data/coref_gum_b.jsonl``): with and without ``own_sense``; part c
(``coref_gum_c.jsonl``, built after part b was read): synonyms only with the similarity in
context (``antonyms: false``, ``context_similarity: 0.5``, chosen on the reads of the earlier
parts) against the candidates as before; part d (built after part c was read): the same again,
and parts c and d together.

Part e (``coref_gum_e.jsonl``: every passage the earlier parts left) and ``gap``
(``coref_gap.jsonl``: Wikipedia passages of GAP) are read with one run each, the checks as they
stand (BEFORE_RUN ``-``). ``gap_b`` and ``gap_c`` (GAP's development and validation files) set an
option beside the defaults: ``lm_proposed`` and ``lm_candidates``.

    python bench/coref_gum_b_reads.py draw NOW_RUN BEFORE_RUN [--part b|c|d|e|gap|gap_b|gap_c] [--seed 13]
        runs of bench/coref_xrenner_gum_<part>.yaml (NOW) and ..._before.yaml (BEFORE); writes
        bench/reads/coref_gum_<part>.blind.json (coref_gap.* for gap) (every violation of either run, shuffled, no run
        named; a follow-up both runs made is one item) and bench/reads/coref_gum_<part>.key.json
        (which runs each came from, both runs' counts)
    python bench/coref_gum_b_reads.py [--part b|c|d|e|gap|gap_b|gap_c]
        the table, once bench/reads/coref_gum_<part>.first.json and .second.json hold the two
        readers' marks ({"marks": [{"id", "real": true|false, ...}]}); what the docs block prints
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
READS = ROOT / "bench" / "reads"
sys.path.insert(0, str(ROOT / "bench"))

from two_runs import read_marks, write_draw  # noqa: E402

PARTS = {
    "b": {"before": "every synonym and antonym of the common senses (`own_sense: false`)",
          "now": "a synonym only in a common sense of its own (`own_sense: true`)",
          "text": "built after the first GUM passages were read, none shared",
          "timing": "one after the other"},
    "c": {"before": "WordNet synonyms and antonyms, ranked by the LM (as in part b)",
          "now": "synonyms only, near the word in context (`antonyms: false`, "
                 "`context_similarity: 0.5`)",
          "text": "built after part b was read, none shared with the earlier parts",
          "timing": "side by side"},
    "d": {"before": "WordNet synonyms and antonyms, ranked by the LM (as in part b)",
          "now": "synonyms only, near the word in context (`antonyms`, `context_similarity`: "
                 "the defaults now)",
          "text": "built after part c was read, none shared with the earlier parts",
          "timing": "side by side"},
    "e": {"now": "synonyms only, near the word in context (the defaults as parts c and d "
                 "measured them)",
          "text": "built after part d was read: every passage the earlier parts left",
          "file": "coref_gum_e", "suite": "bench/coref_xrenner_gum_e.yaml"},
    "gap_b": {"before": "the defaults (the LM ranks WordNet's synonyms)",
              "now": "only the synonyms the LM itself proposes there (`lm_proposed: 50`)",
              "text": "Wikipedia passages of GAP's development file, built after part a was "
                      "read", "timing": "one after the other", "file": "coref_gap_b",
              "suites": ("bench/coref_xrenner_gap_b_proposed.yaml",
                         "bench/coref_xrenner_gap_b.yaml")},
    "gap_c": {"before": "the defaults (the LM ranks WordNet's synonyms)",
              "now": "the LM's own words too, ranked with WordNet's (`lm_candidates: 5`)",
              "text": "Wikipedia passages of GAP's validation file, built after part b was "
                      "read", "timing": "side by side", "file": "coref_gap_c",
              "suites": ("bench/coref_xrenner_gap_c_lm.yaml",
                         "bench/coref_xrenner_gap_c.yaml")},
    "gap": {"now": "the defaults (light verbs left out too)",
            "text": "Wikipedia passages of GAP's test file, built after the last change of the "
                    "checks", "file": "coref_gap", "suite": "bench/coref_xrenner_gap.yaml"},
}
HEADER = ("| CREST | follow-ups | violations | per 100 sources | real (first / second) | "
          "validity (first / second) | real per 100 sources (first / second) | agreement |",
          "|---|--:|--:|--:|--:|--:|--:|--:|")
RULE = ("real = the follow-up is a fair, natural edit of the source (a word replaced by one that "
        "reads naturally in its place, in the sense the passage means) that cannot change which "
        "mentions refer to the same thing, so the change in clusters means the system is wrong on "
        "the source or on the follow-up; false = the follow-up is unnatural, changes what the "
        "passage says, or may legitimately change the coreference (whether or not the source's "
        "clusters are also wrong)")
EXPECTATION = ("the follow-up's clusters should be the same as the source's (same mentions grouped "
               "together), since the replaced word belongs to no mention")


def _run(run: Path) -> dict:
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    row = results["summary"][0]
    cases = [json.loads(line) for line in (run / "cases.jsonl").open(encoding="utf-8")]
    return {"suite": results["suite"]["name"], "sources": row["sources"],
            "applicable": row["applicable_sources"], "follow_ups": row["follow_ups"],
            "violations": row["violations"], "errors": row["error"],
            "per_100_sources": row["violations_per_100_sources"],
            "seconds": results["run"]["duration_s"],
            "crashed": sum(c["verdict"]["outcome"] == "error"
                           and "failed on this document" in c["verdict"].get("reason", "")
                           for c in cases),
            "fails": [c for c in cases if c["verdict"]["outcome"] == "fail"]}


def _clusters(text: str, clusters: list) -> list[list[str]]:
    """Each cluster's mentions as ``text [offset]``."""
    return [[f"{text[a:b]} [{a}]" for a, b in cluster] for cluster in clusters]


def _stem(part: str) -> str:
    return PARTS[part].get("file", f"coref_gum_{part}")


def draw(now: Path, before: Path, seed: int, part: str = "b") -> None:
    """``before`` ``-``: a part read with one run (the checks as they stand)."""
    stem = _stem(part)
    runs = {"now": _run(now)}
    if str(before) != "-":
        runs["before"] = _run(before)
    items: dict[tuple[str, str], dict] = {}
    for name, r in runs.items():
        for c in r["fails"]:
            k = (c["source_id"], c["follow_up"]["text"])
            items.setdefault(k, {"case": c, "runs": []})["runs"].append(name)
    order = sorted(items)
    random.Random(seed).shuffle(order)
    blind, key = [], {}
    for n, k in enumerate(order, 1):
        item, key[f"c-{n:02d}"] = blind_item(items[k]["case"], f"c-{n:02d}")
        key[item["id"]]["runs"] = items[k]["runs"]
        blind.append(item)
    write_draw(stem, RULE, blind, runs, key)


def blind_item(c: dict, item_id: str) -> tuple[dict, dict]:
    """A violation as the readers see it, and its key entry (case, candidate source, score)."""
    fu = c["follow_up"]
    meta = fu["meta"]
    return ({"id": item_id, "source": c["source"]["text"], "follow_up": fu["text"],
             "changed": f"{meta['token']} -> {meta['replacement']}",
             "source_clusters": _clusters(c["source"]["text"], c["source"]["clusters"]),
             "follow_up_clusters": _clusters(fu["text"], fu["clusters"]),
             "expectation": EXPECTATION},
            {"case": c["id"], "candidate_source": meta.get("source"),
             "lm_score": meta.get("lm_score")})


def _now_reads(part: str) -> tuple[int, int, int, int]:
    """The "now" run's violations of a part: (read, real by the first reader, real by the
    second, sources)."""
    key, marks = read_marks(_stem(part))
    ids = [i for i, k in key["key"].items() if "now" in k["runs"]]
    return (len(ids), sum(marks["first"][i] for i in ids), sum(marks["second"][i] for i in ids),
            key["runs"]["now"]["sources"])


def table(part: str = "b") -> str:
    stem, labels = _stem(part), PARTS[part]
    key, marks = read_marks(stem)
    if "before" not in key["runs"]:
        return _one_run(part, key, marks)
    rows = list(HEADER)
    for name in ("before", "now"):
        what = labels[name]
        r = key["runs"][name]
        ids = [i for i, k in key["key"].items() if name in k["runs"]]
        real = {rd: sum(marks[rd][i] for i in ids) for rd in marks}
        agree = sum(marks["first"][i] == marks["second"][i] for i in ids)
        n_src = r["sources"]
        rows.append(f"| {what} | {r['follow_ups']:,} | {len(ids)} | {100 * len(ids) / n_src:.1f} "
                    f"| {real['first']} / {real['second']} | "
                    f"{100 * real['first'] / len(ids):.0f} % / {100 * real['second'] / len(ids):.0f} % "
                    f"| {100 * real['first'] / n_src:.1f} / {100 * real['second'] / n_src:.1f} "
                    f"| {agree}/{len(ids)} |")
    both = sum(1 for k in key["key"].values() if len(k["runs"]) == 2)
    now, before = key["runs"]["now"], key["runs"]["before"]
    suites = labels.get("suites", (f"bench/coref_xrenner_gum_{part}.yaml",
                                   f"bench/coref_xrenner_gum_{part}_before.yaml"))
    return ("\n".join(rows) + f"\n\nOn the {now['sources']} held-out passages of "
            f"`suites/data/{stem}.jsonl` ({_genres(part)}{labels['text']}), "
            f"`{suites[0]}` and `{suites[1]}` "
            f"(the LM's ranking on in both); "
            f"every violation of either run read by two readers, the second blind and given only "
            f"the passages, the clusters and the rule (`bench/reads/{stem}.*`; {both} follow-ups "
            f"are in both runs and read once). The system could not answer {now['errors']} and "
            f"{before['errors']} cases ({_why(now, before)}). Real per 100 "
            f"sources: real violations read per 100 passages. The runs took {now['seconds']:.0f} s "
            f"and {before['seconds']:.0f} s on two CPU cores, run {labels['timing']}."
            + (_together() if part == "d" else "")
            + (_crest_standard(part) if part == "gap_c" else ""))


def _crest_standard(part: str) -> str:
    """Each run's violations counted real by CREST's own standard: the follow-up natural and the
    coreference unable to change, whatever else the edit says (CREST's antonyms and masked-LM
    fill-ins change what a passage says); both readers marked ``natural`` and ``coref_safe``
    besides ``real``."""
    stem = _stem(part)
    key = json.loads((READS / f"{stem}.key.json").read_text(encoding="utf-8"))
    flags = {rd: {m["id"]: bool(m["natural"] and m["coref_safe"]) for m in json.loads(
        (READS / f"{stem}.{rd}.json").read_text(encoding="utf-8"))["marks"]}
        for rd in ("first", "second")}
    parts = []
    for name in ("before", "now"):
        ids = [i for i, k in key["key"].items() if name in k["runs"]]
        n_src = key["runs"][name]["sources"]
        r1, r2 = (sum(flags[rd][i] for i in ids) for rd in ("first", "second"))
        parts.append(f"{PARTS[part][name]}: {r1} / {r2} of {len(ids)} "
                     f"({100 * r1 / len(ids):.0f} % / {100 * r2 / len(ids):.0f} %), "
                     f"{100 * r1 / n_src:.1f} / {100 * r2 / n_src:.1f} per 100 passages")
    return ("\n\nCounted by CREST's own standard instead — the follow-up natural and the "
            "coreference unable to change, whatever else the edit says (CREST's antonyms and "
            "masked-LM fill-ins change what a passage says; both readers marked the two "
            "separately): " + "; ".join(parts) + ".")


def _why(now: dict, before: dict) -> str:
    if "crashed" not in now:
        return "xrenner put one mention in two clusters"
    return (f"xrenner stopped with an error of its own on {now['crashed']} and "
            f"{before['crashed']} of them, put one mention in two clusters on the others")


def _genres(part: str) -> str:
    return ("" if part.startswith("gap") else "GUM's biographies, Wikivoyage, interviews, "
            "academic and court texts with OntoGUM's gold; ")


def _one_run(part: str, key: dict, marks: dict) -> str:
    """A part read with one run: its row and, for part e, parts c, d and e together."""
    labels, r = PARTS[part], key["runs"]["now"]
    n, r1, r2, n_src = _now_reads(part)
    agree = sum(marks["first"][i] == marks["second"][i] for i in key["key"])
    row = (f"| {labels['now']} | {r['follow_ups']:,} | {n} | {100 * n / n_src:.1f} | {r1} / {r2} "
           f"| {100 * r1 / n:.0f} % / {100 * r2 / n:.0f} % | {100 * r1 / n_src:.1f} / "
           f"{100 * r2 / n_src:.1f} | {agree}/{n} |")
    out = ("\n".join([*HEADER, row])
           + f"\n\nOn the {n_src} passages of `suites/data/{_stem(part)}.jsonl` "
             f"({labels['text']}), `{labels['suite']}` (the LM's ranking on); every violation "
             f"read by two readers, the second blind and given only the passages, the clusters "
             f"and the rule (`bench/reads/{_stem(part)}.*`). The system could not answer "
             f"{r['errors']} cases: xrenner stopped with an error of its own on "
             f"{r.get('crashed', 0)} and put one mention in two clusters on the others. The "
             f"run took "
             f"{r['seconds']:.0f} s on two CPU cores.")
    if part == "e":
        runs = [_now_reads(p) for p in "cde"]
        n, r1, r2, src = (sum(x[k] for x in runs) for k in range(4))
        out += (f"\n\nParts c, d and e together, the same checks: {n} violations in {src} "
                f"passages, {r1} real by the first reader and {r2} by the blind second "
                f"({100 * r1 / n:.0f} % / {100 * r2 / n:.0f} %), {100 * r1 / src:.1f} / "
                f"{100 * r2 / src:.1f} real per 100 passages.")
    return out


def _together() -> str:
    """Parts c and d together, the checks of the defaults now (frozen before either was read)."""
    runs = [_now_reads(p) for p in "cd"]
    n, r1, r2, src = (sum(x[k] for x in runs) for k in range(4))
    return (f"\n\nParts c and d together, with the checks of the defaults (chosen before either "
            f"was read; the LM's ranking on, as in every run here): {n} violations in {src} passages, {r1} real by the first reader and "
            f"{r2} by the blind second ({100 * r1 / n:.0f} % / {100 * r2 / n:.0f} %), "
            f"{100 * r1 / src:.1f} / {100 * r2 / src:.1f} real per 100 passages.")


def main() -> int:
    from two_runs import main as cli

    return cli(__doc__, draw, table, runs=('now', 'before'), parts=sorted(PARTS))


if __name__ == "__main__":
    sys.exit(main())
