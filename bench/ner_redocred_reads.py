"""The default NER suite and the suite before the language model on gold sets built after the
NER checks were last changed, violations of either drawn at random and read by two readers, the
second blind: validity and real violations per 100 sources side by side (a run's real violations
per 100 sources: its violations times the share real among those of its violations that were
drawn). Part a: suites/data/redocred_ner.jsonl (400 Wikipedia sentences of Re-DocRED's test
documents); part b: suites/data/redocred_ner_b.jsonl (499 of its dev documents, built later);
part c: suites/data/redocred_ner_c.jsonl (498 more of its test documents, built later still);
part d: suites/data/redocred_ner_d.jsonl (490 more, a third sentence of each test document,
built after part c was read).

    python bench/ner_redocred_reads.py draw BEFORE_RUN NOW_RUN [--n 150] [--seed 13]
            [--part b|c|d]
        runs of the suite before (part a: bench/ner_spacy_redocred.yaml, part b:
        bench/ner_spacy_redocred_b_before.yaml, part c or d: bench/ner_spacy_redocred_c_before.yaml
        or _d_before.yaml; WordNet candidates, the tiny masked LM's naturalness, names compared
        with their article) and of the default suite as shipped (bench/ner_spacy_redocred_lm.yaml,
        bench/ner_spacy_redocred_b.yaml, _c.yaml, _d.yaml); N violations drawn at random from
        those of either run (one item for a source and follow-up both runs have), into
        bench/reads/ner_redocred[_b|_c|_d].blind.json (no run named) and .key.json
    python bench/ner_redocred_reads.py rekey OLD_NOW_RUN NEW_NOW_RUN [--part b]
        a new run of the default suite after a change that only removes violations takes the
        drawn one's place (its counts; a drawn item stays while its violation does)
    python bench/ner_redocred_reads.py [--part b|c|d]
        the table, once bench/reads/ner_redocred[_b].first.json and .second.json hold the two
        readers' marks ({"marks": [{"id", "real": true|false}]}); what the docs block prints

Real = the system is wrong on the source, or on a fair, natural follow-up that keeps the
entities' types; validity is the share of a suite's violations that are real, "real per 100
sources" the yield a user sees.
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STEM = "ner_redocred"
PARTS = ("a", "b", "c", "d")
ORDER = ("token_mlm", "phrase_np", "structural_question", "entity_shuffle")
NAMES = {"before": "before (WordNet, tiny masked LM)", "now": "now (SmolLM2, the default suite)"}
sys.path.insert(0, str(ROOT / "bench"))

from two_runs import READS, read_marks, write_draw  # noqa: E402

RULE = ("real = the system's answer is wrong on the source, or the follow-up is a fair, natural "
        "sentence (a word or phrase replaced by one that reads naturally in its place, a "
        "question of the statement, or names of one type exchanged where each still reads as "
        "that type) on which the system's answer is wrong; false = the system is right on the "
        "source and the follow-up is unnatural, changes what a name is, or the follow-up's "
        "answer is also right")
RELATION = {"MR1": "MR1: every entity present in both sentences keeps its type",
            "MR2": "MR2: the follow-up's entities (text, type) must equal the source's, as they "
                   "read in the follow-up"}


def _run(run: Path) -> dict:
    res = json.loads((run / "results.json").read_text(encoding="utf-8"))
    fails = {}
    for line in (run / "cases.jsonl").open(encoding="utf-8"):
        c = json.loads(line)
        if c["verdict"]["outcome"] == "fail":
            fails[f"{c['source_id']} {c['follow_up']['text']}"] = c
    per = {t: 0 for t in ORDER}
    for row in res["summary"]:
        per[row["transformation"]] = per.get(row["transformation"], 0) + row["violations"]
    return {"suite": res["suite"]["name"], "sources": res["overall"]["sources"],
            "violations": per, "fails": fails}


def _entities(text: str, spans: list[dict]) -> list[dict]:
    return [{"text": text[s["start"]:s["end"]], "label": s["label"]} for s in spans]


def _stem(part: str) -> str:
    return STEM if part == "a" else f"{STEM}_{part}"


def draw(before: Path, now: Path, n: int, seed: int, part: str = "a") -> None:
    runs = {"before": _run(before), "now": _run(now)}
    keys = list(dict.fromkeys([*runs["before"]["fails"], *runs["now"]["fails"]]))
    runs["before"]["union"] = len(keys)
    keys = random.Random(seed).sample(keys, min(n, len(keys)))
    blind, key = [], {}
    for k, case_key in enumerate(keys, 1):
        item_id = f"nr-{k:03d}"
        inside = [w for w in ("before", "now") if case_key in runs[w]["fails"]]
        c = runs[inside[0]]["fails"][case_key]
        src, fu = c["source"], c["follow_up"]
        key[item_id] = {"runs": inside, "case": c["id"], "transformation": c["transformation"]}
        blind.append({"id": item_id, "transformation": c["transformation"],
                      "source": src["text"], "follow_up": fu["text"],
                      "source_entities": _entities(src["text"], src["entities"]),
                      "follow_up_entities": _entities(fu["text"], fu["entities"]),
                      "expected_follow_up_entities": _entities(fu["text"], fu["expected"]),
                      "relation": RELATION[c["relation"]]})
    write_draw(_stem(part), RULE, blind, runs, key)


def rekey(old: Path, now: Path, part: str = "a") -> None:
    """After a change that only removes violations (e.g. the relations' ``article`` default), a
    new run of the default suite (``now``) takes the place of the drawn one (``old``): its counts
    replace the old ones, and a drawn item stays in it only while its violation does. The draw,
    a uniform sample of the old runs' violations, is then one of the new run's too, and the
    marks stand. A violation the old run did not have needs a new draw: the command stops and
    lists them."""
    path = READS / f"{_stem(part)}.key.json"
    key = json.loads(path.read_text(encoding="utf-8"))
    blind = {i["id"]: i for i in json.loads(
        (READS / f"{_stem(part)}.blind.json").read_text(encoding="utf-8"))["items"]}
    was, new = _run(old), _run(now)
    if sum(was["violations"].values()) != sum(key["runs"]["now"]["violations"].values()):
        raise SystemExit(f"{old} is not the run the draw was made from")
    extra = sorted(set(new["fails"]) - set(was["fails"]))
    if extra:
        raise SystemExit("violations the drawn run did not have (draw again):\n"
                         + "\n".join(extra[:20]))
    gone = 0
    for item, k in key["key"].items():
        case_key = f"{k['case'].split('/')[0]} {blind[item]['follow_up']}"
        if "now" in k["runs"] and case_key not in new["fails"]:
            k["runs"].remove("now")
            gone += 1
    before = sum(key["runs"]["now"]["violations"].values())
    key["runs"]["now"] = {k: v for k, v in new.items() if k != "fails"}
    key.setdefault("rekeyed", []).append({
        "command": f"python bench/ner_redocred_reads.py rekey {old} {now} --part {part}",
        "violations_before": before, "violations_after": sum(new["violations"].values()),
        "drawn_removed": gone})
    path.write_text(json.dumps(key, indent=1) + "\n", encoding="utf-8")
    print(f"now: {before} → {sum(new['violations'].values())} violations; drawn items no "
          f"longer in it: {gone}")


def table(part: str = "a") -> str:
    key, marks = read_marks(_stem(part))
    per100 = lambda n, s: f"{100 * n / s:.1f}"
    pct = lambda n, d: f"{100 * n / d:.1f} %" if d else "–"
    lines = ["| suite | transformation | violations | per 100 sources | read | real (first / "
             "second) | validity (first / second) | real per 100 sources (first / second) | "
             "agreement |", "|---|---|--:|--:|--:|--:|--:|--:|--:|"]
    for which in ("before", "now"):
        run = key["runs"][which]
        n_src = run["sources"]
        for t in ORDER + ("all",):
            ids = [i for i, k in key["key"].items() if which in k["runs"]
                   and t in ("all", k["transformation"])]
            found = (sum(run["violations"].values()) if t == "all" else run["violations"][t])
            if not found and t != "all":
                continue
            r1 = sum(marks["first"][i] for i in ids)
            r2 = sum(marks["second"][i] for i in ids)
            agree = sum(marks["first"][i] == marks["second"][i] for i in ids)
            est1, est2 = ((found * r / len(ids) if ids else 0.0) for r in (r1, r2))
            name = "**all**" if t == "all" else f"`{t}`"
            lines.append(f"| {NAMES[which]} | {name} | {found} | {per100(found, n_src)} "
                         f"| {len(ids)} | {r1} / {r2} | {pct(r1, len(ids))} / "
                         f"{pct(r2, len(ids))} | {per100(est1, n_src)} / "
                         f"{per100(est2, n_src)} | {agree}/{len(ids)} |")
    both = sum(len(k["runs"]) == 2 for k in key["key"].values())
    lines.append("")
    lines.append(_bars(key, marks))
    return ("\n".join(lines) + f"\n\n{key['runs']['now']['sources']} sources; "
            f"{len(key['key'])} of the {key['runs']['before']['union']} violations of the two "
            f"runs drawn at random and read, {both} of them found by both suites (the same "
            f"source and follow-up); `{key['command']}`." + "".join(
                f" Then the default suite, changed in a way that only removes violations, ran "
                f"again and took the drawn run's place: {r['violations_before']} → "
                f"{r['violations_after']} violations, {r['drawn_removed']} of the drawn ones "
                f"among those removed (`{r['command']}`)." for r in key.get("rekeyed", [])))


def _bars(key: dict, marks: dict) -> str:
    """The LM issue's three bars, read off the marks (blind reader for validity)."""
    def real(which: str, ts: tuple[str, ...], reader: str) -> tuple[int, int, float]:
        ids = [i for i, k in key["key"].items() if which in k["runs"]
               and k["transformation"] in ts]
        found = sum(key["runs"][which]["violations"][t] for t in ts)
        r = sum(marks[reader][i] for i in ids)
        return len(ids), r, found * r / len(ids) if ids else 0.0

    read, r2, _ = real("now", ORDER, "second")
    y_now = {rd: real("now", ORDER, rd)[2] for rd in marks}
    y_before = {rd: real("before", ORDER, rd)[2] for rd in marks}
    words = ("token_mlm", "phrase_np")
    w_read, w_real, _ = real("now", words, "second")
    w_now = sum(key["runs"]["now"]["violations"][t] for t in words)
    w_before = sum(key["runs"]["before"]["violations"][t] for t in words)
    ok = lambda c: "met" if c else "not met"
    return (f"Against the LM issue's bars: blind validity {100 * r2 / read:.1f} % on {read} read "
            f"(≥ 95 % on ≥ 100: {ok(read >= 100 and r2 >= 0.95 * read)}); real violations per "
            f"100 sources {y_now['first'] / y_before['first']:.2f} × / "
            f"{y_now['second'] / y_before['second']:.2f} × the suite before (first / second "
            f"reader; ≥ 1.5 ×: {ok(min(y_now[r] / y_before[r] for r in marks) >= 1.5)}); "
            f"`token_mlm` + `phrase_np` {w_now} violations against {w_before} "
            f"({w_now / w_before:.0f} ×) at {100 * w_real / w_read:.1f} % blind validity "
            f"(≥ 5 × at ≥ 90 %: {ok(w_now >= 5 * w_before and w_real >= 0.9 * w_read)}).")


def summary() -> str:
    """A paragraph for the README: the default suite's violations on the fresh sets, read."""
    rows, measured = [], [0, 0, 0]
    for part, where in (("a", "`suites/data/redocred_ner.jsonl`"),
                        ("b", "`suites/data/redocred_ner_b.jsonl`, built later; the suite was "
                              "then changed by what was read there, so this one is no measure"),
                        ("c", "`suites/data/redocred_ner_c.jsonl`, built after those changes"),
                        ("d", "`suites/data/redocred_ner_d.jsonl`, built after set c was read; "
                              "the suite was not changed since")):
        key, marks = read_marks(_stem(part))
        now = key["runs"]["now"]
        ids = [i for i, k in key["key"].items() if "now" in k["runs"]]
        r1, r2 = (sum(marks[rd][i] for i in ids) for rd in ("first", "second"))
        rows.append(f"- {now['sources']} sentences ({where}): {sum(now['violations'].values())} "
                    f"violations, {len(ids)} read, {r1} / {r2} real (first / blind reader; "
                    f"{100 * r2 / len(ids):.1f} % to the blind one).")
        if part != "b":
            measured = [measured[0] + len(ids), measured[1] + r1, measured[2] + r2]
    n, r1, r2 = measured
    rows.append(f"- the three sets no change was read off, together: {n} read, {r1} / {r2} real "
                f"({100 * r2 / n:.1f} % to the blind one).")
    return ("How far to trust a violation: `mtrun suites/ner_spacy.yaml`'s settings were run on "
            "four sets of Wikipedia sentences with gold labels that none of its checks was "
            "chosen on when they were built, and violations drawn at random were read by two "
            "readers, the second blind ([validity](docs/pages/validity.md)):\n\n"
            + "\n".join(rows))


def main() -> int:
    from two_runs import main as cli

    if sys.argv[1:2] == ["rekey"]:
        import argparse

        ap = argparse.ArgumentParser(description=rekey.__doc__.splitlines()[0])
        ap.add_argument("old", type=Path)
        ap.add_argument("now", type=Path)
        ap.add_argument("--part", choices=PARTS, default=PARTS[0])
        args = ap.parse_args(sys.argv[2:])
        rekey(args.old, args.now, args.part)
        return 0
    return cli(__doc__, draw, table, runs=("before", "now"), n=150, parts=PARTS)


if __name__ == "__main__":
    sys.exit(main())
