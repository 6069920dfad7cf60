"""Builds suites/data/redocred_ner.jsonl: a gold NER set of Wikipedia sentences from Re-DocRED
(github.com/tonytan48/Re-DocRED, commit ccfb54f, MIT; DocRED's documents and entity annotation,
Yao et al. 2019, MIT; the text is Wikipedia's, CC BY-SA 3.0), built after the NER checks were
last changed, to measure the default NER suite on text none of its rules was chosen on.

Usage: python bench/make_redocred_ner.py RE_DOCRED_DATA_DIR [b|c|d|e|f|g|h|i|j|k|l]

Part b (``suites/data/redocred_ner_b.jsonl``, built after the repair's rule on the article was
chosen, to measure it) draws in the same way from all 500 documents of ``dev_revised.json``
(the relation classifier's held-out documents and the RE suites' corpora; no NER set of mtrun
comes from them).

Part c (``suites/data/redocred_ner_c.jsonl``, built after the relations' rule on the article
was chosen, to measure the default suite as it then stood) draws one more sentence from each of
all 500 documents of ``test_revised.json``, another than part a's (seed 14).

Part d (``suites/data/redocred_ner_d.jsonl``, built after the suite of part c was read, to
measure the same suite again on sentences no one has read) draws one more sentence from each of
the 500 test documents, neither part a's nor part c's (seed 15).

Part e (``suites/data/redocred_ner_e.jsonl``, built after part d's repairs were read, to measure
the repair's rule chosen on them) draws one more sentence from each of the 500 test documents,
none of parts a, c and d's (seed 16).

Part f (``suites/data/redocred_ner_f.jsonl``, built after the repair's CRF referee rule was
frozen and measured, to measure it once more) draws one more sentence from each of the 500 test
documents, none of parts a, c, d and e's (seed 17).

Part g (``suites/data/redocred_ner_g.jsonl``, built after the embedded CRF referee was frozen
and measured on the sets above, to measure it once more) draws one more sentence from each of
the 500 test documents, none of parts a, c, d, e and f's (seed 18).

Part h (``suites/data/redocred_ner_h.jsonl``, built after the repair's rule on the spaCy
referees' splits, ``crf_decides_splits``, was frozen, to measure it) draws one more sentence from
each of the 500 test documents, none of parts a, c, d, e, f and g's (seed 19).

Part i (``suites/data/redocred_ner_i.jsonl``, built after that rule was measured on part h, to
measure it once more) draws one more sentence from each of the 500 test documents, none of parts
a, c, d, e, f, g and h's (seed 20).

Part j (``suites/data/redocred_ner_j.jsonl``, built after the repair's CRF referee was
retrained with CrossNER's Wikipedia sentences and ``crf_beyond_pair`` was left off by a choice
made on the measuring sets, to measure that default on sentences no choice saw) draws one more
sentence from each of the 500 test documents, none of parts a, c, d, e, f, g, h and i's
(seed 21).

Part k (``suites/data/redocred_ner_k.jsonl``, built after part j was measured, to measure the
same default on many more sentences no choice saw) draws one more sentence from each of the 500
documents of ``dev_revised.json``, not part b's (seed 22).

Part l (``suites/data/redocred_ner_l.jsonl``, built after the context attack was measured
against a fine-tuned MiniLM, with the repair as in part k, to measure that default once more and
read its relabels) draws a third sentence from each dev document, neither part b's nor part k's
(seed 23).

From each of the first ``DOCUMENTS`` documents of ``test_revised.json`` (the text the relation
classifier is trained on; no NER set of mtrun comes from it) one sentence is drawn at random
(seed 13) among those of ``MIN_TOKENS`` to ``MAX_TOKENS`` tokens with at least one PER, ORG or LOC
mention. The tokens are joined as the relation sets join them, but a hyphen takes no space on
either side (DocRED splits "re-released" into three tokens). DocRED annotates the mentions of the entities of each document with a type (PER, ORG,
LOC, TIME, NUM, MISC); the gold keeps PER, ORG, LOC and MISC mentions (MISC is not compared by the
suites), outermost of overlapping ones, as character offsets in the detokenised sentence.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from make_pud_gold import write_part  # noqa: E402
from runner.tasks.re.redocred import NO_SPACE_AFTER, NO_SPACE_BEFORE, read_documents  # noqa: E402
from runner.text.inline import detokenise  # noqa: E402

SEED = 13
DOCUMENTS = 400
MIN_TOKENS, MAX_TOKENS = 8, 60
KEPT = ("PER", "ORG", "LOC", "MISC")


def sentence_rows(doc: dict, k: int, split: str = "test") -> list[dict]:
    """The document's sentences that may be drawn, each with its gold names."""
    mentions: dict[int, list[tuple[int, int, str]]] = {}
    for entity in doc["vertexSet"]:
        for m in entity:
            if m["type"] in KEPT:
                mentions.setdefault(m["sent_id"], []).append((m["pos"][0], m["pos"][1],
                                                              m["type"]))
    rows = []
    for sid, tokens in enumerate(doc["sents"]):
        found = sorted(set(mentions.get(sid, [])), key=lambda m: (m[0], -m[1]))
        if not (MIN_TOKENS <= len(tokens) <= MAX_TOKENS) or not any(
                t != "MISC" for _, _, t in found):
            continue
        # DocRED splits "re-released" into three tokens; a hyphen is glued to both neighbours
        text, offsets = detokenise(tokens, no_space_before=NO_SPACE_BEFORE | {"-"},
                                   no_space_after=NO_SPACE_AFTER | {"-"})
        ents, end = [], -1
        for first, stop, label in found:
            if first >= end:                      # outermost of overlapping mentions
                ents.append({"start": offsets[first][0], "end": offsets[stop - 1][1],
                             "label": label})
                end = stop
        rows.append({"id": f"redocred-{split}-{k}-{sid}", "text": text, "entities": ents})
    return rows


def draw_more(docs, split: str, seeds, taken: dict) -> list[dict]:
    """One more sentence of each document per seed, none already taken (``taken``: document
    index → ids, updated); the last seed's draw."""
    rows: list[dict] = []
    for seed in seeds:
        rng, rows = random.Random(seed), []
        for k, doc in enumerate(docs):
            choices = [r for r in sentence_rows(doc, k, split) if r["id"] not in taken.get(k, ())]
            if choices:
                rows.append(rng.choice(choices))
                taken.setdefault(k, set()).add(rows[-1]["id"])
    return rows


def main(src: str, part: str = "") -> None:
    split = "dev" if part in ("b", "k", "l") else "test"
    docs = read_documents(str(Path(src) / f"{split}_revised.json"))
    docs = docs if split == "dev" else docs[:DOCUMENTS]
    rng = random.Random(SEED)
    rows, taken = [], {}
    for k, doc in enumerate(docs):
        choices = sentence_rows(doc, k, split)
        if choices:
            rows.append(rng.choice(choices))
            taken[k] = {rows[-1]["id"]}
    if part in ("c", "d", "e", "f", "g", "h", "i", "j"):
        # another sentence of each test document: not part a's (the same draw, above), and for
        # parts d and e not those of the parts before either (their draws made again)
        every = read_documents(str(Path(src) / "test_revised.json"))
        rows = draw_more(every, split, range(SEED + 1, SEED + 2 + "cdefghij".index(part)), taken)
    if part in ("k", "l"):
        # another sentence of each dev document than part b's (the draw above); for part l, than
        # part k's too (its draw made again)
        rows = draw_more(docs, split, range(22, 23 + "kl".index(part)), taken)
    write_part(ROOT / "suites" / "data" / f"redocred_ner{'_' + part if part else ''}.jsonl", rows)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], *([p] for p in "bcdefghijkl")):
        sys.exit(__doc__)
    main(*sys.argv[1:])
