"""Builds suites/data/coref_gum_b.jsonl: passages for the coreference task from GUM's non-news
genres with OntoGUM's gold clusters, a set built after ``coref_gum.jsonl`` was read and kept
apart from it (no sentence of that file is in a passage here).

Usage: python bench/make_coref_gum_b.py GUM_DIR [b|c|d|e]
    b (default): writes suites/data/coref_gum_b.jsonl
    c: writes suites/data/coref_gum_c.jsonl, built after part b was read, by the same rules,
       none of its passages sharing a sentence with coref_gum.jsonl or coref_gum_b.jsonl
    d: writes suites/data/coref_gum_d.jsonl, built after part c was read, none sharing a
       sentence with the earlier parts
    e: writes suites/data/coref_gum_e.jsonl, built after part d was read and the checks
       frozen, none sharing a sentence with the earlier parts

GUM_DIR is a checkout of github.com/amir-zeldes/gum or a git directory of it (files read with
``git show HEAD:…``). The text and tokens are OntoGUM's CoNLL-U files
(``coref/ontogum/conllu``: GUM's sentences with the OntoNotes-style coreference of Zhu, Pradhan
& Zeldes 2021 in the MISC column, ``Entity=(3`` … ``3)``; no singletons, no predicative or
generic indefinite mentions). Genres and licences as for ``coref_gum.jsonl``: Wikipedia
biographies, Wikivoyage guides, Wikinews interviews, academic articles, court proceedings
(``LEFT_OUT`` documents excepted, see ``make_gum_gold.py``).

A passage is a run of two or three consecutive sentences of a document, each of at least
``MIN_TOKENS`` tokens and not a fragment (GUM's ``s_type = frag``: headings, captions), at most
``MAX_WORDS`` words in all, with at least one gold cluster of two or more mentions inside it;
runs are taken from the start of each document, none overlapping, at most ``PER_DOCUMENT`` per
document (part e, the last: every run the earlier parts left, ``PER_DOCUMENT_LAST``), and a run with a sentence of ``coref_gum.jsonl`` is skipped. Clusters are the gold
mentions that lie inside the passage, grouped by entity, as character offsets (a span OntoGUM
puts in two entities, an event mention of two chains, stays in the first one's cluster only).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_gum_gold import LEFT_OUT, offsets, sentences  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "suites" / "data"
GENRES = ("bio", "voyage", "interview", "academic", "court")
PER_DOCUMENT = 3
PER_DOCUMENT_LAST = 1000
MAX_SENTENCES = 3
MIN_TOKENS = 5
MAX_WORDS = 80
FOLDER = "coref/ontogum/conllu"


def documents(gum: Path) -> list[tuple[str, str]]:
    """(name, CoNLL-U text) of the kept genres' documents, in name order."""
    if (gum / FOLDER).is_dir():
        paths = sorted((gum / FOLDER).glob("GUM_*.conllu"))
        named = [(p.stem, p.read_text(encoding="utf-8")) for p in paths]
    else:
        names = subprocess.run(["git", "-C", str(gum), "ls-tree", "--name-only", "HEAD",
                                FOLDER + "/"], capture_output=True, text=True,
                               check=True).stdout.split()
        named = [(Path(n).stem, subprocess.run(["git", "-C", str(gum), "show", f"HEAD:{n}"],
                                               capture_output=True, text=True,
                                               check=True).stdout)
                 for n in sorted(names) if n.endswith(".conllu")]
    return [(name, text) for name, text in named
            if name.split("_")[1] in GENRES and name not in LEFT_OUT]


def entity_mentions(sents: list[tuple[str, str, list]]) -> list[tuple[str, int, int, int, int]]:
    """(entity id, first sentence, first token, last sentence, last token) of every mention of a
    document (brackets of the MISC column's ``Entity=``)."""
    found, open_ = [], {}
    for s, (_, _, tokens) in enumerate(sents):
        for i, cols in enumerate(tokens):
            m = re.search(r"Entity=([^|]*)", cols[9])
            if not m:
                continue
            for opened, eid, closed, closing in re.findall(r"(\()(\d+)(\)?)|(\d+)\)", m.group(1)):
                if opened and closed:
                    found.append((eid, s, i, s, i))
                elif opened:
                    open_.setdefault(eid, []).append((s, i))
                elif open_.get(closing):
                    s0, i0 = open_[closing].pop()
                    found.append((closing, s0, i0, s, i))
    return found


def passages(gum: Path, seen_texts: set[str], per_document: int = PER_DOCUMENT) -> list[dict]:
    out = []
    for name, conllu in documents(gum):
        sents = []
        for sent_id, s_type, text, tokens in sentences(conllu):
            sents.append((text, s_type, tokens))
        spans = [offsets(text, tokens) for text, _, tokens in sents]
        mentions = entity_mentions(sents)
        ok = [spans[k] is not None and sents[k][1] != "frag" and len(sents[k][2]) >= MIN_TOKENS
              and not any(sents[k][0] in t for t in seen_texts) for k in range(len(sents))]
        k, taken = 0, 0
        while k < len(sents) and taken < per_document:
            if not ok[k]:
                k += 1
                continue
            run = [k]
            while (len(run) < MAX_SENTENCES and run[-1] + 1 < len(sents) and ok[run[-1] + 1]
                   and sum(len(sents[j][0].split()) for j in run + [run[-1] + 1]) <= MAX_WORDS):
                run.append(run[-1] + 1)
            item = _passage(name, sents, spans, mentions, run) if len(run) >= 2 else None
            if item is None:
                k += 1
                continue
            out.append(item)
            taken += 1
            k = run[-1] + 1
    return out


def _passage(name, sents, spans, mentions, run) -> dict | None:
    """The passage of sentences ``run`` with its gold clusters, or None without a cluster."""
    base, text = {}, ""
    for j in run:
        base[j] = len(text) + (1 if text else 0)
        text = (text + " " if text else "") + sents[j][0]
    if len(text.split()) > MAX_WORDS:
        return None
    groups: dict[str, list[list[int]]] = {}
    for eid, s0, i0, s1, i1 in mentions:
        if s0 in base and s1 in base:
            start = base[s0] + spans[s0][i0][0]
            end = base[s1] + spans[s1][i1][1]
            groups.setdefault(eid, []).append([start, end])
    # a span OntoGUM gives two entities (an event mention of two chains) stays in the first
    taken: set[tuple[int, int]] = set()
    clusters = []
    for ms in groups.values():
        own = sorted({tuple(m) for m in ms} - taken)
        taken.update(own)
        if len(own) >= 2:
            clusters.append([list(m) for m in own])
    if not clusters:
        return None
    clusters.sort()
    return {"id": f"ontogum-{name}-{run[0] + 1}-{run[-1] + 1}", "text": text, "clusters": clusters}


def main(gum: str, part: str = "b") -> None:
    parts = "bcde"
    if part not in parts:
        sys.exit(f"part must be b, c, d or e, not {part!r}")
    before = ["coref_gum.jsonl"] + [f"coref_gum_{p}.jsonl" for p in parts[:parts.index(part)]]
    seen = {json.loads(line)["text"] for name in before for line in
            (DATA / name).read_text(encoding="utf-8").splitlines()}
    rows = passages(Path(gum), seen, PER_DOCUMENT_LAST if part == "e" else PER_DOCUMENT)
    out = DATA / f"coref_gum_{part}.jsonl"
    with out.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    genres = Counter(row["id"].split("_")[1] for row in rows)
    clusters = [c for row in rows for c in row["clusters"]]
    print(f"wrote {len(rows)} passages to {out}: {dict(genres.most_common())}, "
          f"{len(clusters)} gold clusters, {sum(map(len, clusters))} mentions")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(*sys.argv[1:3])
