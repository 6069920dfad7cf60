"""The per-MR table of an RE run: groups the MR applied to (judged), inert passes (no_relation on
both sides), violations, and — from a triage file of read violations — how many were read and
how many are real errors of the system; and the figures of docs/pages/re.md and README.md's RE
table, written from committed files.

    python bench/re_mr_table.py RUN_DIR/results.json [TRIAGE.json]   # print a run's table
    python bench/re_mr_table.py --summary RUN_DIR/results.json       # keep the run's counts in
                                        # bench/re_minilm_run.json (bench/re_textacy_run.json)
    python bench/re_mr_table.py --write    # write the blocks of README.md and docs/pages/re.md

The blocks come from ``bench/re_minilm_run.json`` (the counts of ``suites/re_minilm.yaml``'s
run and its violations' ids), ``bench/re_textacy_run.json`` (the same of
``suites/re_textacy.yaml``), ``bench/validity_re_minilm.triage.json`` (the violations read by
hand), ``bench/data/re_classifier_heldout.json`` (``bench/re_classifier_eval.py --json``) and
``bench/data/re_classifier_heldout_free.json`` (the same with ``--free-types``);
tests/test_docs.py checks that they are what this script writes. A triage mark is matched to a
violation by its ``id``.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MRS = ("MR-R1", "MR-R2", "MR-R3", "MR-R4", "MR-S1", "MR-S2", "MR-C1", "MR-C2")
RUN = ROOT / "bench" / "re_minilm_run.json"
TEXTACY_RUN = ROOT / "bench" / "re_textacy_run.json"
TRIAGE = ROOT / "bench" / "validity_re_minilm.triage.json"
READER2 = ROOT / "bench" / "validity_re_minilm.reader2.json"
HELDOUT = ROOT / "bench" / "data" / "re_classifier_heldout.json"
# the same measure with the classifier's answers free of its argument types
# (bench/re_classifier_eval.py --free-types --json ...)
HELDOUT_FREE = ROOT / "bench" / "data" / "re_classifier_heldout_free.json"
README = ROOT / "README.md"
PAGE = ROOT / "docs" / "pages" / "re.md"


def summary(results: dict, suite: str = "suites/re_minilm.yaml") -> dict:
    """What the tables need of a run: the counts per MR and the ids of the violations."""
    fails: dict[str, list[str]] = {mr: [] for mr in MRS}
    for c in results["cases"]:
        if c["verdict"]["outcome"] == "fail":
            fails.setdefault(c["follow_up"]["meta"].get("mr", "?"), []).append(c["id"])
    keep = ("judged", "fail", "inert")
    return {"suite": suite,
            "sources": results["run"]["sources_done"],
            "re_passes": {mr: {k: p.get(k, 0) for k in keep}
                          for mr, p in sorted((results.get("re_passes") or {}).items())},
            "violations": {mr: sorted(ids) for mr, ids in fails.items()}}


def _counts(run: dict, marks: list[dict]) -> tuple[dict, Counter, Counter]:
    mr_of = {i: mr for mr, ids in run["violations"].items() for i in ids}
    read, real = Counter(), Counter()
    for m in marks:
        if m["id"] not in mr_of:
            raise SystemExit(f"triage mark {m['id']} is not a violation of this run")
        read[mr_of[m["id"]]] += 1
        real[mr_of[m["id"]]] += m["mark"] == "confirmed"
    return run.get("re_passes") or {}, read, real


def table(run: dict, marks: list[dict], read_columns: bool = True) -> str:
    if not read_columns:
        return "\n".join("|".join(row.split("|")[:-3]) + "|"
                         for row in table(run, []).splitlines())
    passes, read, real = _counts(run, marks)
    rows = ["| MR | applied (groups) | inert passes | violations | rate | rate without inert "
            "| read | real |", "|---|---|---|---|---|---|---|---|"]
    tot = Counter()
    for mr in MRS:
        p = passes.get(mr, {})
        judged, fail, inert = p.get("judged", 0), p.get("fail", 0), p.get("inert", 0)
        tot.update(judged=judged, fail=fail, inert=inert, read=read[mr], real=real[mr])
        rate = f"{fail / judged:.1%}" if judged else "–"
        active = f"{fail / (judged - inert):.1%}" if judged - inert else "–"
        rows.append(f"| {mr} | {judged} | {inert} | {fail} | {rate} | {active} | {read[mr]} | "
                    f"{real[mr]} |")
    j, f, i = tot["judged"], tot["fail"], tot["inert"]
    rows.append(f"| all | {j} | {i} | {f} | {f / j:.1%} | {f / (j - i):.1%} | {tot['read']} | "
                f"{tot['real']}" + (f" ({tot['real'] / tot['read']:.0%})" if tot["read"] else "")
                + " |")
    return "\n".join(rows)


def second_reading() -> dict[str, bool]:
    """The blind second reader's verdicts (``READER2``), by violation id: real or not."""
    if not READER2.exists():
        return {}
    return {i["id"]: i["verdict"] == "real"
            for i in json.loads(READER2.read_text(encoding="utf-8"))["items"]}


def readme_table(run: dict, marks: list[dict]) -> str:
    """README's short table: per MR the groups, the violations, how many were read, how many
    are real by the first reader and by the blind second reader, and how often they agree."""
    passes, read, real = _counts(run, marks)
    second = second_reading()
    mr_of = {i: mr for mr, ids in run["violations"].items() for i in ids}
    real2 = Counter(mr_of[i] for i, ok in second.items() if ok and i in mr_of)
    agree = sum((m["mark"] == "confirmed") == second[m["id"]] for m in marks if m["id"] in second)
    rows = ["| MR | applied | violations | read | real (first reader) | real (second, blind) |",
            "|---|--:|--:|--:|--:|--:|"]
    tot = Counter()
    for mr in MRS:
        p = passes.get(mr, {})
        tot.update(judged=p.get("judged", 0), fail=p.get("fail", 0), read=read[mr],
                   real=real[mr], real2=real2[mr])
        rows.append(f"| {mr} | {p.get('judged', 0)} | {p.get('fail', 0)} | {read[mr]} | "
                    f"{real[mr]} | {real2[mr] if second else '–'} |")
    rows.append(f"| all | {tot['judged']} | {tot['fail']} | {tot['read']} | {tot['real']} | "
                f"{tot['real2'] if second else '–'} |")
    n = run["sources"]
    out = ("\n".join(rows) + f"\n\n{tot['fail']} violations in {n} pairs "
           f"({100 * tot['fail'] / n:.1f} per 100); {tot['real']} of the {tot['read']} read are "
           f"real errors of the classifier by the first reader")
    if second:
        out += (f", {tot['real2']} by a second reader who saw only the sentence pairs, the "
                f"answers and the expectation (`{READER2.relative_to(ROOT)}`); the two agree on "
                f"{agree} of {len(second)}")
    r1 = r1_own_reading()
    if r1:
        out += (f". MR-R1's few rows above are not its rate: read on its own (violations "
                f"drawn at random from its run on other Re-DocRED documents, "
                f"`bench/reads/re_named_again.*`), "
                f"{r1[1]} of {r1[0]} are real by the first reader and {r1[2]} by the blind "
                f"second — most of its replacements do not fit what the sentence says of them "
                f"([relation extraction](docs/pages/re.md))")
    return out + "."


def r1_own_reading() -> tuple[int, int, int] | None:
    """MR-R1's violations read on their own, as the suite makes them (bench/reads/
    re_named_again.*: the group kept by skip_named_again): (read, real first, real second)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from two_runs import read_marks

    try:
        key, marks = read_marks("re_named_again")
    except FileNotFoundError:
        return None
    ids = [i for i, k in key["key"].items() if k["group"] == "kept"]
    return len(ids), sum(marks["first"][i] for i in ids), sum(marks["second"][i] for i in ids)


def training_figures() -> str:
    """The training data's counts (runner/tasks/re/data/redocred_train.jsonl.gz)."""
    import gzip

    data = ROOT / "runner" / "tasks" / "re" / "data" / "redocred_train.jsonl.gz"
    labels = [json.loads(line)["relation"]
              for line in gzip.decompress(data.read_bytes()).decode("utf-8").splitlines()
              if line.strip()]
    rel = [lab for lab in labels if lab != "no_relation"]
    return (f"Training pairs (`runner/tasks/re/data/redocred_train.jsonl.gz`): {len(rel):,} "
            f"relations of {len(set(rel))} TACRED labels and {len(labels) - len(rel):,} "
            f"`no_relation` pairs.")


def classifier_figures(res: dict) -> str:
    five, rel = res["five"], res["five_related"]
    per = sorted(((r["f1"], lab) for lab, r in res["per_relation"].items() if r["gold"] >= 10),
                 reverse=True)
    best = ", ".join(f"{lab} {f1:.2f}" for f1, lab in per[:4])
    never = sorted(lab for lab, r in res["per_relation"].items()
                   if r["gold"] >= 5 and r["correct"] == 0)
    gold_rel = sum(r["gold"] for r in res["per_relation"].values())
    return (f"Held-out (every pair of Re-DocRED dev documents 0–249, {res['pairs']:,} pairs, "
            f"{gold_rel:,} with a relation; `python bench/re_classifier_eval.py`): accuracy "
            f"{res['accuracy']:.1%} (answering `no_relation` everywhere: "
            f"{res['majority']:.1%}), and over the relations (no_relation left out, as TACRED's "
            f"scorer does) precision {res['precision']:.1%}, recall {res['recall']:.1%}, F1 "
            f"{res['f1']:.1%}. On the {five['pairs']} pairs of per:spouse, per:children, "
            f"per:parents, per:employee_of and org:parents it finds a relation for "
            f"{five['found']:.1%} and the right one for {five['right']:.1%} ({rel['found']:.1%} "
            f"and {rel['right']:.1%} of {rel['pairs']} with org:subsidiaries and "
            f"org:top_members/employees). Best (F1, relations with at least 10 pairs): {best}"
            + (f"; never right (at least 5 pairs): {', '.join(never)}" if never else "") + ".")


def free_types_figures(res: dict, free: dict) -> str:
    """The held-out figures without the argument types, beside the default's."""
    return (f"The same classifier answering free of its argument types (`argument_types: false`): "
            f"accuracy {free['accuracy']:.1%} (with them {res['accuracy']:.1%}), relations' "
            f"precision {free['precision']:.1%}, recall {free['recall']:.1%}, F1 "
            f"{free['f1']:.1%} ({res['f1']:.1%}); on the five relations a relation found for "
            f"{free['five']['found']:.1%} and the right one for {free['five']['right']:.1%} "
            f"({res['five']['found']:.1%} and {res['five']['right']:.1%}).")


def _per_100(run: dict) -> str:
    fails = sum(len(ids) for ids in run["violations"].values())
    return (f"{run['sources']:,} pairs (sources); {fails} violations, "
            f"{100 * fails / run['sources']:.1f} per 100 sources.")


def bodies() -> dict[str, str]:
    """The text of each figures block of README.md and docs/pages/re.md, by the block's name; the
    blocks are written by bench/docs_figures.py with every other block of the docs."""
    run = json.loads(RUN.read_text(encoding="utf-8"))
    marks = json.loads(TRIAGE.read_text(encoding="utf-8"))["marks"]
    held = json.loads(HELDOUT.read_text(encoding="utf-8"))
    free = json.loads(HELDOUT_FREE.read_text(encoding="utf-8"))
    textacy = json.loads(TEXTACY_RUN.read_text(encoding="utf-8"))
    return {"re-mr-table-readme": readme_table(run, marks),
            "re-mr-table": table(run, marks) + "\n\n" + _per_100(run),
            "re-classifier": training_figures() + " " + classifier_figures(held) + "\n\n"
                             + free_types_figures(held, free),
            "re-textacy-table": table(textacy, [], read_columns=False) + "\n\n" + _per_100(textacy)}


def write() -> None:
    """The blocks are written with every other block of the docs, by bench/docs_figures.py."""
    sys.path.insert(0, str(ROOT / "bench"))
    import docs_figures
    docs_figures.write()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="?")
    ap.add_argument("triage", nargs="?")
    ap.add_argument("--summary", action="store_true",
                    help=f"keep the run's counts in {RUN.relative_to(ROOT)} (or "
                         f"{TEXTACY_RUN.relative_to(ROOT)} for a run of suites/re_textacy.yaml)")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args(argv)
    if args.write:
        write()
        print(f"wrote {README.name}, {PAGE.relative_to(ROOT)}")
        return 0
    if not args.results:
        ap.error("give a run's results.json, or --write")
    results = json.loads(Path(args.results).read_text(encoding="utf-8"))
    if args.summary:
        textacy = "textacy" in json.dumps(results.get("components", {}).get("sut", ""))
        out = TEXTACY_RUN if textacy else RUN
        out.write_text(json.dumps(summary(results, "suites/re_textacy.yaml" if textacy
                                          else "suites/re_minilm.yaml"), indent=1) + "\n",
                       encoding="utf-8")
        print(f"wrote {out.relative_to(ROOT)}")
        return 0
    marks = []
    if args.triage:
        marks = json.loads(Path(args.triage).read_text(encoding="utf-8"))["marks"]
    print(table(summary(results), marks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
