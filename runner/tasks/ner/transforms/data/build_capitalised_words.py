"""Regenerate ``capitalised_words.txt``: the one-word adjectives WordNet 3.0 writes only with a
capital ("Dominican", "Swiss", "Victorian"), which ``structural_question`` leaves capitalised
when one starts the subject it moves behind the auxiliary.

    python runner/tasks/ner/transforms/data/build_capitalised_words.py

Reads WordNet through runner.models.wordnet (the Debian copy or NLTK's); a word is kept when an
adjective synset has it with a capital and no synset of any part of speech has it in lower case.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[5]))

from runner.models.wordnet import load_wordnet  # noqa: E402


def main() -> None:
    wn = load_wordnet()
    every = {lemma.name() for synset in wn.all_synsets() for lemma in synset.lemmas()}
    words = sorted({lemma.name() for synset in wn.all_synsets("a") for lemma in synset.lemmas()
                    if lemma.name().isalpha() and lemma.name()[:1].isupper()
                    and not lemma.name().isupper() and lemma.name().lower() not in every})
    target = Path(__file__).with_name("capitalised_words.txt")
    target.write_text(f"# WordNet {wn.get_version()} adjectives written only with a capital; "
                      f"made by build_capitalised_words.py\n" + "\n".join(words) + "\n",
                      encoding="utf-8")
    print(f"{target}: {len(words)} words")


if __name__ == "__main__":
    main()
