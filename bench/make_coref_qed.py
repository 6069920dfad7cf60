"""Builds suites/data/coref_qed.jsonl: Wikipedia paragraphs for the coreference task from the
development file of QED (Lamm et al. 2021, github.com/google-research-datasets/QED, commit
2492920; the paragraphs are Natural Questions' Wikipedia text, CC BY-SA 3.0), text none of
``name_swap``'s rules was written on (built after GAP's parts h and i were read).

Usage: python bench/make_coref_qed.py QED_DIR
    QED_DIR is a checkout of the repository or a git directory of it (``git show HEAD:…``).

Each distinct ``paragraph_text`` of ``qed-dev.jsonlines`` in file order, kept when it has
``MIN_WORDS`` to ``MAX_WORDS`` words and a third-person pronoun of a gender (he, she, him, her,
his: a passage about people, as GAP's are); Natural Questions' tokens are joined back into
text (NLTK's Treebank detokeniser: "Rowntree 's" → "Rowntree's"; a lone quote mark opens
or closes a quotation). Ids ``qed-<example_id>``.
QED's annotations (a question's answer and its referents) are not kept.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MIN_WORDS, MAX_WORDS = 25, 150
PRONOUN = re.compile(r"\b(?:he|she|him|her|his)\b", re.IGNORECASE)


def read_dev(qed: Path) -> str:
    name = "qed-dev.jsonlines"
    if (qed / name).is_file():
        return (qed / name).read_text(encoding="utf-8")
    return subprocess.run(["git", "-C", str(qed), "show", f"HEAD:{name}"],
                          capture_output=True, text=True, check=True).stdout


def detokenise(text: str) -> str:
    from nltk.tokenize.treebank import TreebankWordDetokenizer

    tokens, opened = [], False
    for token in text.split():             # a quote written as a lone "'" opens or closes
        if token in ("'", '"'):
            token, opened = ("''" if opened else "``"), not opened
        tokens.append(token)
    out = TreebankWordDetokenizer().detokenize(tokens)
    return re.sub(r"(\w) - (\w)", r"\1-\2", out)


def main(qed: str) -> None:
    seen, rows = set(), []
    for line in read_dev(Path(qed)).splitlines():
        d = json.loads(line)
        text = d["paragraph_text"].strip()
        if text in seen:
            continue
        seen.add(text)
        if MIN_WORDS <= len(text.split()) <= MAX_WORDS and PRONOUN.search(text):
            rows.append({"id": f"qed-{d['example_id']}", "text": detokenise(text)})
    write_passages(rows, "coref_qed.jsonl")


def write_passages(rows: list[dict], name: str) -> None:
    """``rows`` (id, text) as ``suites/data/<name>``, one JSON object a line."""
    out = ROOT / "suites" / "data" / name
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                   encoding="utf-8")
    print(f"wrote {len(rows)} passages to {out}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
