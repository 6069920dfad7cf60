"""Builds suites/data/pud_{tune,measure}.jsonl from Universal NER's English PUD file.

Usage: python bench/make_pud_gold.py PATH/en_pud-ud-test.iob2 suites/data

Character offsets are found by locating each token, in order, in the sentence's ``# text =``
line. The news documents (sentence ids starting with ``n``) are split whole between the two
parts, two of every five (in sorted order) to ``tune`` and three to ``measure``, so no document
is in both; the Wikipedia documents (ids starting with ``w``) all go to ``measure``, which must
be large enough to read 60 violations of a small pipeline.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path


def read_sentences(path: Path):
    doc = sid = text = None
    tokens: list[tuple[str, str]] = []
    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        if line.startswith("# newdoc id = "):
            doc = line.split("=", 1)[1].strip()
        elif line.startswith("# sent_id = "):
            sid = line.split("=", 1)[1].strip()
        elif line.startswith("# text = "):
            text = line.split("=", 1)[1].strip()
        elif line.startswith("#"):
            continue
        elif not line.strip():
            if tokens:
                yield doc, sid, text, tokens
            tokens, sid, text = [], None, None
        else:
            cols = line.split("\t")
            tokens.append((cols[1], cols[2]))


def spans(text: str, tokens: list[tuple[str, str]], sid: str) -> list[dict]:
    pos, offsets = 0, []
    for tok, _tag in tokens:
        start = text.find(tok, pos)
        if start < 0 or text[pos:start].strip():
            raise ValueError(f"{sid}: token {tok!r} not found after offset {pos} in {text!r}")
        pos = start + len(tok)
        offsets.append((start, pos))
    return tag_spans([tag for _, tag in tokens], offsets)


def tag_spans(tags: list[str], offsets: list[tuple[int, int]]) -> list[dict]:
    """Entities ({start, end, label}) of BIO or IOB1 tags at the tokens' character offsets: a
    B- tag, or a label other than the previous token's, starts a new entity."""
    out: list[dict] = []
    current = None
    for tag, (start, end) in zip(tags, offsets):
        if tag == "O":
            current = None
            continue
        prefix, label = tag.split("-", 1)
        if prefix == "B" or current is None or current["label"] != label:
            current = {"start": start, "end": end, "label": label}
            out.append(current)
        else:
            current["end"] = end
    return out


def write_part(path: Path, rows: list[dict]) -> None:
    """One gold file: a JSON object a line; prints its size."""
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    print(f"{path}: {len(rows)} sentences, {sum(len(r['entities']) for r in rows)} entities")


def main(src: str, dest: str) -> None:
    docs: dict[str, list[dict]] = {}
    for doc, sid, text, tokens in read_sentences(Path(src)):
        docs.setdefault(doc, []).append({"id": f"pud-{sid}", "text": text,
                                         "entities": spans(text, tokens, sid)})
    parts: dict[str, list[dict]] = {"tune": [], "measure": []}
    for k, doc in enumerate(sorted(docs)):
        tune = docs[doc][0]["id"].startswith("pud-n") and k % 5 in (1, 3)
        parts["tune" if tune else "measure"].extend(docs[doc])
    for name, rows in parts.items():
        write_part(Path(dest) / f"pud_{name}.jsonl", rows)


if __name__ == "__main__":
    main(*sys.argv[1:3])
