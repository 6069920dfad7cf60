"""The figures of docs/pages/attacks.md, from committed files: the attack runs recorded in
``bench/attack_runs.json`` (their ``attacks.summary`` as results.json gave it) and the word
similarities of ``bench/data/attack_word_scores.tsv`` (``bench/attack_word_similarity.py --save``).

    python bench/attack_tables.py --record NAME RUN_DIR --command "…"   # keep a run's summary
    python bench/attack_tables.py --coverage        # keep the sub-types' coverage of gold sets
    python bench/attack_tables.py                                      # print the figures
    python bench/attack_tables.py --write          # write them into docs/pages/attacks.md
    python bench/attack_tables.py --draw RUN_DIR ATTACK N OUT   # successes to read, blind
    python bench/attack_tables.py --blind STEM N "NAME=RUN_DIR" …  # several runs, shuffled
"""
from __future__ import annotations

import argparse
import csv
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "pages" / "attacks.md"
RUNS = ROOT / "bench" / "attack_runs.json"
SCORES = ROOT / "bench" / "data" / "attack_word_scores.tsv"
BLOCKS = ("attack-word-figures", "attack-figures")
READ = ROOT / "bench" / "attack_read.json"
# the context attack's successes, read blind twice: which runs, against which system
READS = {"attack_minilm_open": ("the two ceiling runs", "the fine-tuned MiniLM"),
         "attack_minilm_shipped": ("the two runs with the shipped filters (runs MiniLM NER and "
                                   "MiniLM NER, PUD)", "the fine-tuned MiniLM"),
         "attack_minilm_pudm": ("the ceiling and the naturalness judge on PUD's measuring part "
                                "(drawn from each run and read shuffled together)",
                                "the fine-tuned MiniLM"),
         "attack_spacy_pudm": ("WordNet's synonyms under the similarity filters, the ceiling, "
                               "the naturalness judge and the suite as shipped on PUD's "
                               "measuring part (every success of each run, read shuffled "
                               "together, a changed sentence two runs share read once)",
                               "spaCy"),
         "attack_spacy_news": ("the naturalness judge on the news sample (runs LM, naturalness "
                               "judge and fine types, LM and naturalness judge: the same "
                               "successes)", "spaCy")}
KEYS = ("attacked", "skipped", "success", "partial", "any_wrong", "success_rate", "partial_rate",
        "any_wrong_rate", "words_perturbed_pct", "median_similarity", "queries_per_entity")
# Breaking BERT's own figures (Dirkson et al., BERT models on CoNLL-2003 and the other sets),
# quoted for comparison: success of the entity attack; success and partial of the context attack.
PAPER = {"entity": "89.5–99.4 % success",
         "entity_context": "20.2–45.0 % success, 29.3–53.3 % partial (counter-fitted vectors, "
                           "logits)"}


def drawn(run: Path, attack: str, n: int, seed: int = 13) -> tuple[str, list[dict]]:
    """``n`` successful attacks of type ``attack`` drawn from a run (random.Random(seed)), as a
    reader sees them: the two sentences, the entity and the system's labels, not the attack's
    reasons (its importance scores, similarities or steps); and how they were drawn."""
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    done = [r for r in results["attacks"]["records"]
            if r["attack"] == attack and r["outcome"] == "success"]
    picked = random.Random(seed).sample(done, min(n, len(done)))
    items = [{"id": r["id"], "original": r["text"], "adversarial": r["adversarial"],
              "entity": r["entity"]["text"], "entity_type": r["entity"]["label"],
              "labels_before": r["labels_before"], "labels_after": r["labels_after"],
              "replaced": [f"{c['original']} -> {c['new']}" for c in r["changes"]]}
             for r in picked]
    return f"{len(items)} of its {len(done)} successes drawn with random.Random({seed}).sample", \
        items


def draw(run: Path, attack: str, n: int, out: Path, seed: int = 13) -> None:
    """:func:`drawn`, written to ``out`` to read blind."""
    how, items = drawn(run, attack, n, seed)
    out.write_text(json.dumps({"run": str(run), "attack": attack, "drawn": how, "items": items},
                              ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def blind(stem: str, n: int, runs: dict[str, Path], seed: int = 13) -> None:
    """``n`` context-attack successes drawn from each run (:func:`drawn`), shuffled together
    (random.Random(seed)) into ``bench/reads/STEM.blind.json`` — what a reader sees: the two
    sentences, the entity, its type and the system's labels in the changed sentence — and
    ``STEM.key.json``: which run and record each item came from."""
    pooled, how = [], {}
    for name, run in runs.items():
        how[name], items = drawn(run, "entity_context", n, seed)
        pooled += [(name, it) for it in items]
    # The same changed sentence from several runs is read once; the key lists every run.
    merged: dict[tuple[str, str], list] = {}
    for name, it in pooled:
        merged.setdefault((it["original"], it["adversarial"]), []).append((name, it))
    groups = list(merged.values())
    random.Random(seed).shuffle(groups)
    items = [{"item": k, "original": g[0][1]["original"], "changed": g[0][1]["adversarial"],
              "entity": g[0][1]["entity"], "entity_type_in_original": g[0][1]["entity_type"],
              "system_labels_in_changed": g[0][1]["labels_after"],
              "words_replaced": g[0][1]["replaced"]}
             for k, g in enumerate(groups, 1)]
    key = {"what": f"which runs each item of {stem}.blind.json came from, and their record ids "
                   "(a changed sentence drawn from several runs is one item)",
           "draw": "python bench/attack_tables.py --blind " + stem + f" {n} "
                   + " ".join(f'"{name}=RUN_DIR"' for name in runs)
                   + f": {n} successes of each run drawn with random.Random({seed}).sample, "
                     f"shuffled together with random.Random({seed})",
           "runs": how,
           "items": [{"item": k, "run": g[0][0], "runs": [name for name, _ in g],
                      "id": g[0][1]["id"], "ids": [it["id"] for _, it in g]}
                     for k, g in enumerate(groups, 1)]}
    base = ROOT / "bench" / "reads" / stem
    for part, data in (("blind", {"items": items}), ("key", key)):
        Path(f"{base}.{part}.json").write_text(
            json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def record(name: str, run: Path, command: str, what: str) -> None:
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    summary = results["attacks"]["summary"]
    kept = {}
    for attack, s in summary.items():
        kept[attack] = {k: s.get(k) for k in KEYS}
        for extra in ("per_subtype", "subtype_from"):
            if extra in s:
                kept[attack][extra] = ({k: {m: v.get(m) for m in ("attacked", "skipped", "success")}
                                        for k, v in s[extra].items()}
                                       if extra == "per_subtype" else s[extra])
    runs = json.loads(RUNS.read_text(encoding="utf-8")) if RUNS.exists() else {"runs": []}
    entry = {"name": name, "what": what, "command": command,
                         "pool": [c.get("pool") for c in results["attacks"]["components"]
                                  if c["type"] == "entity"],
                         "summary": kept}
    names = [r["name"] for r in runs["runs"]]
    if name in names:
        runs["runs"][names.index(name)] = entry
    else:
        runs["runs"].append(entry)
    RUNS.write_text(json.dumps(runs, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


# Gold sets whose entities the sub-typing is measured on: those looked at while it was written
# (development) and those it never saw (held out).
COVERAGE_SETS = {"ewt_tune": "development", "wikigold_a": "development",
                 "pud_measure": "held out", "wikigold_b": "held out"}
LABELS = {"PER": "PERSON", "LOC": "LOCATION", "ORG": "ORGANIZATION", "MISC": "MISC"}


def coverage() -> None:
    """What tells the sub-type of every gold entity of COVERAGE_SETS (the shipped gazetteer)."""
    sys.path.insert(0, str(ROOT))
    from runner.tasks.ner.attacks.subtypes import read_gazetteer

    gaz = read_gazetteer("builtin")
    out = {}
    for name, role in COVERAGE_SETS.items():
        counts: dict[str, dict[str, int]] = {}
        with (ROOT / "suites" / "data" / f"{name}.jsonl").open(encoding="utf-8") as f:
            for line in f:
                doc = json.loads(line)
                text = doc["text"]
                for e in doc.get("entities") or ():
                    label = LABELS.get(e["label"], e["label"])
                    _, how = gaz.subtype(label, text[e["start"]:e["end"]], text[:e["start"]],
                                         text)
                    c = counts.setdefault(label, {})
                    c[how or "unknown"] = c.get(how or "unknown", 0) + 1
        out[name] = {"role": role, "by_label": counts}
    runs = json.loads(RUNS.read_text(encoding="utf-8"))
    runs["coverage"] = out
    RUNS.write_text(json.dumps(runs, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def coverage_table() -> str:
    cov = json.loads(RUNS.read_text(encoding="utf-8")).get("coverage") or {}
    rows = ["| gold set | read while writing the sub-typing | type | entities | gazetteer | "
            "WordNet | clue | unknown |", "|---|---|---|--:|--:|--:|--:|--:|"]
    for name, c in cov.items():
        total: dict[str, int] = {}
        for label, counts in sorted(c["by_label"].items()):
            for k, v in counts.items():
                total[k] = total.get(k, 0) + v
        for label, counts in [*sorted(c["by_label"].items()), ("all", total)]:
            n = sum(counts.values())
            cells = " | ".join(f"{100 * counts.get(k, 0) / n:.0f} %"
                               for k in ("gazetteer", "wordnet", "clue", "unknown"))
            rows.append(f"| `{name}` | {'yes' if c['role'] == 'development' else 'no'} | "
                        f"{label} | {n} | {cells} |")
    return ("What tells an entity's sub-type on gold sets of other kinds of text (share of their "
            "gold entities; unknown: skipped by default):\n\n" + "\n".join(rows) + "\n")


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f} %"


def _num(x: float | None) -> str:
    return "–" if x is None else f"{x:g}"


def run_table() -> str:
    runs = json.loads(RUNS.read_text(encoding="utf-8"))["runs"]
    rows = ["| run | attack | attacked | skipped | success | partial | any word wrong | words "
            "perturbed | median similarity | queries per entity |",
            "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|"]
    notes, subs = [], []
    for r in runs:
        for attack, s in sorted(r["summary"].items()):
            rows.append(f"| {r['name']} | `{attack}` | {s['attacked']} | {s.get('skipped') or 0} | "
                        f"{_pct(s['success_rate'])} | {_pct(s['partial_rate'])} | "
                        f"{_pct(s['any_wrong_rate'])} | "
                        f"{_num(s['words_perturbed_pct'])}"
                        f"{' %' if s['words_perturbed_pct'] else ''}"
                        f" | {_num(s['median_similarity'])} | {_num(s['queries_per_entity'])} |")
            if s.get("per_subtype"):
                told = ", ".join(f"{k} {v}" for k, v in s["subtype_from"].items())
                subs.append(f"Sub-types in run {r['name']} (what told them: {told}): "
                            + "; ".join(f"{k} {v['success']}/{v['attacked']}"
                                        + (f" ({v['skipped']} skipped)" if v["skipped"] else "")
                                        for k, v in s["per_subtype"].items()) + ".")
        notes.append(f"- {r['name']}: {r['what']} (`{r['command']}`; entity pool: "
                     f"{', '.join(p for p in r['pool'] if p) or '–'})")
    paper = "; ".join(f"`{k}` {v}" for k, v in PAPER.items())
    return ("\n".join(rows) + "\n\n" + "\n".join(notes) + "\n\n" + "\n\n".join(subs)
            + f"\n\n{reading()}\n\n" + "".join(f"{reading_minilm(k)}\n\n" for k in READS)
            + f"The paper, for comparison (BERT): {paper}.\n\n"
            + coverage_table())


def reading() -> str:
    """The successes read by hand (bench/attack_read.json)."""
    data = json.loads(READ.read_text(encoding="utf-8"))
    marks = data["marks"]
    n = len(marks)
    sensible = sum(m["sensible"] for m in marks)
    plausible = sum(m["sensible"] and not m["world_knowledge_off"] for m in marks)
    wrong = sum(m["label_wrong"] for m in marks)
    return (f"Successes read by hand ({data['run']}, {data['drawn']}; bench/attack_read.json): "
            f"{sensible} of {n} keep a sensible meaning (the same kind of thing in the same "
            f"role), {plausible} of {n} are also plausible in the world; the system's new label "
            f"is wrong in {wrong} of {n}.")


def reading_minilm(stem: str) -> str:
    """Context-attack successes, read blind by two readers (bench/reads/STEM.*): how many are
    real errors of the system. An item a run shares with another counts for both."""
    def load(part):
        path = ROOT / "bench" / "reads" / f"{stem}.{part}.json"
        return json.loads(path.read_text(encoding="utf-8"))

    key = load("key")
    readers = [{m["item"]: m for m in load(part)} for part in ("first", "second")]
    n = len(key["items"])

    def real(m):
        return m["sensible"] and m["same_type"] and m["label_wrong"]

    def both(f):
        return " / ".join(str(sum(f(r[i["item"]]) for i in key["items"])) for r in readers)

    per_run = "; ".join(
        f"run {run} ({drawn}): " + " / ".join(
            str(sum(real(r[i["item"]]) for i in key["items"]
                    if run in i.get("runs", [i["run"]])))
            for r in readers)
        for run, drawn in key["runs"].items())
    agree = sum(real(readers[0][i["item"]]) == real(readers[1][i["item"]]) for i in key["items"])
    runs, system = READS[stem]
    return (f"Successes of {runs} against {system}, read blind by two "
            f"readers (bench/reads/{stem}.*; first / second reader): a real error "
            f"of the system — a sensible sentence in which the entity keeps its type and the "
            f"system mislabels it — in {both(real)} of {n} ({per_run}); they agree on {agree} "
            f"of {n}. The others: the changed sentence no longer makes sense "
            f"({both(lambda m: not m['sensible'])}), the edit changed the entity's type "
            f"({both(lambda m: not m['same_type'])}), or the system's label is right "
            f"({both(lambda m: m['sensible'] and m['same_type'] and not m['label_wrong'])}). "
            f"The changed sentence says the same as the original in "
            f"{both(lambda m: m['meaning_kept'])} of {n}.")


def word_figures() -> str:
    with SCORES.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    gold = [r["label"] == "1" for r in rows]
    out = {}
    for mode in ("context", "word"):
        sims = [float(r[mode]) for r in rows]
        pos = [s for s, g in zip(sims, gold) if g]
        neg = [s for s, g in zip(sims, gold) if not g]
        auc = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg) / (len(pos) * len(neg))
        kept = [g for s, g in zip(sims, gold) if s >= 0.5]
        out[mode] = (auc, sum(kept) / sum(gold), sum(kept) / len(kept))
    c, w = out["context"], out["word"]
    return (f"On {len(rows)} WordNet synonyms of words in "
            f"{len({r['line'] for r in rows})} news sentences judged by hand "
            f"(bench/attack_word_similarity.py, bench/data/attack_word_pairs.tsv; {sum(gold)} "
            f"acceptable), the in-context cosine separated good from bad synonyms better (ROC AUC "
            f"{c[0]:.2f}) than the words encoded alone ({w[0]:.2f}); at 0.5 it keeps "
            f"{100 * c[1]:.0f} % of the good ones at {100 * c[2]:.0f} % precision (alone: "
            f"{100 * w[1]:.0f} % at {100 * w[2]:.0f} %).\n")


def write() -> None:
    """The blocks are written with every other block of the docs, by bench/docs_figures.py."""
    sys.path.insert(0, str(ROOT / "bench"))
    import docs_figures
    docs_figures.write()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--record", nargs=2, metavar=("NAME", "RUN_DIR"))
    ap.add_argument("--command", default="")
    ap.add_argument("--what", default="")
    ap.add_argument("--coverage", action="store_true")
    ap.add_argument("--draw", nargs=4, metavar=("RUN_DIR", "ATTACK", "N", "OUT"))
    ap.add_argument("--blind", nargs="+", metavar="STEM N NAME=RUN_DIR")
    args = ap.parse_args(argv)
    if args.blind:
        stem, n, *pairs = args.blind
        blind(stem, int(n), {p.split("=", 1)[0]: Path(p.split("=", 1)[1]) for p in pairs})
        print(f"wrote bench/reads/{stem}.blind.json and .key.json")
    elif args.draw:
        run, attack, n, out = args.draw
        draw(Path(run), attack, int(n), Path(out))
        print(f"wrote {out}")
    elif args.coverage:
        coverage()
        print(coverage_table())
    elif args.record:
        record(args.record[0], Path(args.record[1]), args.command, args.what)
        print(f"recorded {args.record[0]} in {RUNS}")
    elif args.write:
        write()
        print(f"wrote {PAGE}")
    else:
        print(word_figures() + "\n" + run_table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
