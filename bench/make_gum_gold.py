"""Builds suites/data/gum.jsonl from GUM, the Georgetown University Multilayer corpus
(github.com/amir-zeldes/gum, ``dep/*.conllu``): academic articles, court proceedings, Wikinews
interviews and news, and Wikivoyage travel guides. A gold set of other genres than the others,
kept unread to measure on.

Usage: python bench/make_gum_gold.py GUM_DIR suites/data   (writes gum.jsonl, gum_b.jsonl, gum_bio.jsonl)

GUM_DIR is a checkout of the repository (with its ``dep`` folder) or a git directory of it (the
files are then read with ``git show HEAD:dep/…``).

Only the genres whose texts' licence allows redistribution are taken (the repository's
LICENSE.txt): academic and court (CC BY 4.0), interview and news (Wikinews, CC BY 2.5), voyage
(Wikivoyage, CC BY-SA 3.0). Fiction, how-to guides, essays, letters, podcasts (non-commercial
licences), reddit (reddit's terms) and the genres the licence file does not list are left out; the
Wikipedia biographies (CC BY-SA 3.0) make a set of their own.
Two documents whose sources carry a licence of their own are left out too (``LEFT_OUT``): a
court recording from the Santa Barbara Corpus of Spoken American English (CC BY-ND 3.0: no
derivatives) and an article from Language Documentation & Conservation, whose licence could not
be confirmed as CC BY here.

GUM marks every mention of an entity (nested, with pronouns and common noun phrases) and its
type in the MISC column (``Entity=(ID-etype-…`` opens a mention at a token, ``ID)`` closes it).
The gold keeps the names: a mention of a person, place or organisation (→ PER, LOC, ORG) whose
tokens are proper nouns (UPOS PROPN), after a leading "the" that is left out of the span, with
"of", "de", "for", "and", "the" and the punctuation marks "-", ".", "&" allowed between them ("University
of Copenhagen"), starting and ending with a proper noun. A mention of that shape of any other
type ("Greek", "Google Science Fair") becomes MISC, which the suites do not compare; nested names
keep the outermost. Kept: declarative sentences (GUM's ``s_type = decl``) of ``MIN_TOKENS`` to
``MAX_TOKENS`` tokens with at least one PER, LOC or ORG name, whose tokens are found in order in
the sentence's ``# text``, the first ``PER_GENRE`` of each genre (files in name order).

It also writes ``gum_b.jsonl``, a second set built after the first was read: the same kept
sentences of the interview, news and voyage documents that part a does not reach (whole
documents after the one in which a genre's ``PER_GENRE`` is reached); and ``gum_bio.jsonl``,
a third built after the second was read: the same kept sentences of the Wikipedia biographies
(CC BY-SA 3.0).
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_pud_gold import write_part  # noqa: E402

GENRES = ("academic", "court", "interview", "news", "voyage")
TYPES = {"person": "PER", "place": "LOC", "organization": "ORG"}
JOINERS = {"of", "de", "for", "and", "the"}
PUNCT_JOINERS = {"-", ".", "&"}
MIN_TOKENS, MAX_TOKENS, PER_GENRE = 8, 60, 120
LEFT_OUT = {"GUM_court_carpet", "GUM_academic_eegimaa"}
GENRES_B = ("interview", "news", "voyage")


def documents(gum: Path, genre: str) -> list[str]:
    """The CoNLL-U texts of a genre's documents, in name order (``LEFT_OUT`` left out)."""
    if (gum / "dep").is_dir():
        return [p.read_text(encoding="utf-8")
                for p in sorted((gum / "dep").glob(f"GUM_{genre}_*.conllu"))
                if p.stem not in LEFT_OUT]
    names = subprocess.run(["git", "-C", str(gum), "ls-tree", "--name-only", "HEAD", "dep/"],
                           capture_output=True, text=True, check=True).stdout.split()
    return [subprocess.run(["git", "-C", str(gum), "show", f"HEAD:{name}"], capture_output=True,
                           text=True, check=True).stdout
            for name in sorted(names) if name.startswith(f"dep/GUM_{genre}_")
            and Path(name).stem not in LEFT_OUT]


def sentences(conllu: str):
    """(sent_id, s_type, text, tokens) per sentence; a token is its CoNLL-U columns (multi-word
    ranges and empty nodes left out)."""
    for block in conllu.split("\n\n"):
        meta, tokens = {}, []
        for line in block.strip().split("\n"):
            if line.startswith("# ") and " = " in line:
                key, value = line[2:].split(" = ", 1)
                meta[key] = value
            elif line and not line.startswith("#"):
                cols = line.split("\t")
                if cols[0].isdigit():
                    tokens.append(cols)
        if tokens and "text" in meta:
            yield meta.get("sent_id"), meta.get("s_type"), meta["text"], tokens


def offsets(text: str, tokens: list[list[str]]) -> list[tuple[int, int]] | None:
    """Each token's character span in the text, or None when a token is not found next."""
    out, pos = [], 0
    for cols in tokens:
        k = text.find(cols[1], pos)
        if k < 0 or text[pos:k].strip():
            return None
        out.append((k, k + len(cols[1])))
        pos = k + len(cols[1])
    return out


def mentions(tokens: list[list[str]]) -> list[tuple[int, int, str]]:
    """(first token, last token, entity type) of every mention in the MISC column."""
    found, open_ = [], {}
    for i, cols in enumerate(tokens):
        m = re.search(r"Entity=([^|]*)", cols[9])
        if not m:
            continue
        for opened, body, closed, closing in re.findall(r"(\()([^()]+)(\)?)|(\d+)\)", m.group(1)):
            if opened:
                eid, etype = body.split("-")[:2]
                if closed:
                    found.append((i, i, etype))
                else:
                    open_.setdefault(eid, []).append((i, etype))
            elif open_.get(closing):
                start, etype = open_[closing].pop()
                found.append((start, i, etype))
    return found


def name_span(tokens: list[list[str]], first: int, last: int) -> tuple[int, int] | None:
    """The tokens of a mention that make a name (without a leading "the"), or None."""
    if tokens[first][1].lower() == "the" and first < last:
        first += 1
    words = tokens[first:last + 1]
    if words[0][3] != "PROPN" or words[-1][3] != "PROPN":
        return None
    if not all(w[3] == "PROPN" or w[1].lower() in JOINERS
               or w[3] == "PUNCT" and w[1] in PUNCT_JOINERS for w in words):
        return None
    return first, last


def names(text: str, tokens: list[list[str]], spans: list[tuple[int, int]]) -> list[dict]:
    """The sentence's gold names, outermost of nested ones, by start."""
    found = set()
    for first, last, etype in mentions(tokens):
        span = name_span(tokens, first, last)
        if span is not None:
            found.add((spans[span[0]][0], spans[span[1]][1], TYPES.get(etype, "MISC")))
    out: list[tuple[int, int, str]] = []
    for start, end, label in sorted(found, key=lambda e: (e[0], e[0] - e[1])):
        if not out or start >= out[-1][1]:
            out.append((start, end, label))
    return [{"start": s, "end": e, "label": label} for s, e, label in out]


def gold_rows(conllu: str):
    """The gold rows of a document's sentences that the set keeps (see the module's text)."""
    for sid, s_type, text, tokens in sentences(conllu):
        spans = offsets(text, tokens)
        if s_type != "decl" or spans is None or not MIN_TOKENS <= len(tokens) <= MAX_TOKENS:
            continue
        ents = names(text, tokens, spans)
        if any(e["label"] != "MISC" for e in ents):
            yield {"id": f"gum-{sid}", "text": text, "entities": ents}


def main(src: str, dest: str) -> None:
    rows, rows_b = [], []
    for genre in GENRES:
        kept, kept_b = 0, 0
        for conllu in documents(Path(src), genre):
            if kept < PER_GENRE:
                for row in gold_rows(conllu):
                    if kept == PER_GENRE:
                        break
                    rows.append(row)
                    kept += 1
            elif genre in GENRES_B:
                # part b: whole documents that part a did not reach
                for row in gold_rows(conllu):
                    rows_b.append(row)
                    kept_b += 1
        print(f"{genre}: {kept} sentences" + (f", part b {kept_b}" if genre in GENRES_B else ""))
    rows_bio = [row for conllu in documents(Path(src), "bio") for row in gold_rows(conllu)]
    print(f"bio: {len(rows_bio)} sentences")
    write_part(Path(dest) / "gum.jsonl", rows)
    write_part(Path(dest) / "gum_b.jsonl", rows_b)
    write_part(Path(dest) / "gum_bio.jsonl", rows_bio)


if __name__ == "__main__":
    main(*sys.argv[1:3])
