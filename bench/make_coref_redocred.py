"""Builds suites/data/coref_redocred.jsonl: the openings of Wikipedia articles for the
coreference task, from Re-DocRED's development and test documents
(github.com/tonytan48/Re-DocRED, commit ccfb54f, MIT; DocRED's documents, Yao et al. 2019, MIT;
the text is Wikipedia's, CC BY-SA 3.0),
text none of ``name_swap``'s rules was written on (built after the rules written on reading
QED's paragraphs and GAP's part j, to measure them).

Usage: python bench/make_coref_redocred.py RE_DOCRED_DIR
    RE_DOCRED_DIR is a checkout of the repository or a git directory of it.

Each of the 500 documents of ``data/dev_revised.json``, then of the 500 of
``data/test_revised.json`` (whose sentences the NER gold sets draw on; no coreference set does),
in file order: its first sentences, up to
``SENTENCES`` of them and ``MAX_WORDS`` words, kept when they hold a third-person pronoun of a
gender (he, she, him, her, his: a passage about people, as GAP's are); DocRED's tokens joined
back into text as ``bench/make_coref_qed.py`` joins QED's. Ids ``redocred-dev-<document>`` and
``redocred-test-<document>``.
DocRED's entities and relations are not kept.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from make_coref_qed import PRONOUN, detokenise, write_passages  # noqa: E402

SENTENCES, MAX_WORDS = 4, 150


def read_split(repo: Path, split: str) -> list[dict]:
    name = f"data/{split}_revised.json"
    if (repo / name).is_file():
        return json.loads((repo / name).read_text(encoding="utf-8"))
    return json.loads(subprocess.run(["git", "-C", str(repo), "show", f"HEAD:{name}"],
                                     capture_output=True, text=True, check=True).stdout)


def main(repo: str) -> None:
    rows = []
    for split, i, doc in ((split, i, doc) for split in ("dev", "test")
                          for i, doc in enumerate(read_split(Path(repo), split))):
        words: list[str] = []
        for sentence in doc["sents"][:SENTENCES]:
            if words and len(words) + len(sentence) > MAX_WORDS:
                break
            words += sentence
        text = " ".join(words)
        if PRONOUN.search(text):
            rows.append({"id": f"redocred-{split}-{i}", "text": detokenise(text)})
    write_passages(rows, "coref_redocred.jsonl")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
