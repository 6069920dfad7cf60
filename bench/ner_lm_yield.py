"""Yield beside validity: the default NER suite before and with the language model in the loop, on
the same held-out gold text (GUM part b), every violation read by two readers.

    python bench/ner_lm_yield.py --record OLD_RUN NEW_RUN   # write bench/ner_gum_b_yield.json
                                                            # (OLD_RUN -: keep the recorded one)
    python bench/ner_lm_yield.py                            # print the table

OLD_RUN is a run of ``bench/ner_spacy_gum_b.yaml`` (the suite before: WordNet candidates, the tiny
masked LM's naturalness), NEW_RUN one of ``bench/ner_spacy_gum_b_lm.yaml`` (the default suite now:
SmolLM2 proposes and judges). ``--record`` keeps each run's violations per transformation and its
number of sources. The readings are ``bench/reads/ner_gum_b.*`` (every violation of the suite
before) and ``bench/reads/ner_gum_b_lm.*`` (every violation of the suite now; those it shares with
the suite before — the same source and follow-up — carry the marks read then). Real = the system is
wrong on the source or on a fair, natural follow-up; "real per 100 sources" is the yield a user
sees, validity the share of violations that are real.
"""
from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
READS = ROOT / "bench" / "reads"
RECORD = ROOT / "bench" / "ner_gum_b_yield.json"
SUITES = {"before": "bench/ner_spacy_gum_b.yaml", "now": "bench/ner_spacy_gum_b_lm.yaml"}
STEMS = {"before": "ner_gum_b", "now": "ner_gum_b_lm"}
ORDER = ("token_mlm", "phrase_np", "structural_question", "entity_shuffle")


def _run_summary(run: Path) -> dict:
    res = json.loads((run / "results.json").read_text(encoding="utf-8"))
    per = Counter()
    for row in res["summary"]:
        per[row["transformation"]] += row["violations"]
    return {"sources": res["overall"]["sources"], "violations": dict(per)}


def record(old: Path | None, new: Path) -> dict:
    """Writes the record; ``old`` None keeps the recorded run of the suite before."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    before = (_run_summary(old) if old is not None else
              json.loads(RECORD.read_text(encoding="utf-8"))["runs"]["before"])
    out = {"command": f"python bench/ner_lm_yield.py --record {old or '-'} {new}",
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "commit": commit, "suites": SUITES,
           "runs": {"before": before, "now": _run_summary(new)}}
    RECORD.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return out


def _marks(stem: str) -> tuple[dict, dict]:
    first = {r["id"]: r["verdict"] for r in
             json.loads((READS / f"{stem}.first.json").read_text(encoding="utf-8"))}
    second = json.loads((READS / f"{stem}.second.json").read_text(encoding="utf-8"))
    second = {r["id"]: r["verdict"] for r in second["items"]}
    return first, second


def rows() -> list[dict]:
    rec = json.loads(RECORD.read_text(encoding="utf-8"))
    out = []
    for which in ("before", "now"):
        run = rec["runs"][which]
        blind = json.loads((READS / f"{STEMS[which]}.blind.json").read_text(encoding="utf-8"))
        first, second = _marks(STEMS[which])
        by_t: dict[str, list[str]] = {}
        for b in blind:
            by_t.setdefault(b["transformation"], []).append(b["id"])
        for t in ORDER + ("all",):
            ids = [i for b in blind for i in [b["id"]] if t in ("all", b["transformation"])]
            found = (sum(run["violations"].values()) if t == "all"
                     else run["violations"].get(t, 0))
            r1 = sum(first[i] == "real" for i in ids)
            r2 = sum(second[i] == "real" for i in ids)
            agree = sum(first[i] == second[i] for i in ids)
            out.append({"suite": which, "transformation": t, "sources": run["sources"],
                        "violations": found, "read": len(ids), "real_first": r1,
                        "real_second": r2, "agree": agree})
    return out


def table() -> str:
    per100 = lambda n, s: f"{100 * n / s:.1f}"
    pct = lambda n, d: f"{100 * n / d:.0f} %" if d else "–"
    lines = ["| suite | transformation | violations | per 100 sources | read | real (first reader) "
             "| real (second, blind) | validity (first / second) | real per 100 sources "
             "(first / second) | agreement |",
             "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for r in rows():
        if r["violations"] == 0 and r["transformation"] != "all":
            continue
        name = {"before": "before (WordNet, tiny masked LM)", "now": "now (SmolLM2)"}[r["suite"]]
        t = "**all**" if r["transformation"] == "all" else f"`{r['transformation']}`"
        lines.append(
            f"| {name} | {t} | {r['violations']} | {per100(r['violations'], r['sources'])} "
            f"| {r['read']} | {r['real_first']} | {r['real_second']} "
            f"| {pct(r['real_first'], r['read'])} / {pct(r['real_second'], r['read'])} "
            f"| {per100(r['real_first'], r['sources'])} / {per100(r['real_second'], r['sources'])} "
            f"| {r['agree']}/{r['read']} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--record", nargs=2, metavar=("OLD_RUN", "NEW_RUN"))
    args = ap.parse_args()
    if args.record:
        record(None if args.record[0] == "-" else Path(args.record[0]), Path(args.record[1]))
    print(table())


if __name__ == "__main__":
    sys.exit(main())
