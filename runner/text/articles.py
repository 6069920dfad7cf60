"""Articles: the indefinite article agrees with the sound of the word after it, after any edit;
a name is compared and looked up without its definite article (:func:`without_the`).

An edit that replaces or moves words can leave "a"/"an" before a word of the other sound ("an
Iraqi official" with "European Union" shuffled in → "an European Union official"; "an old man"
→ "an young man"). :func:`agree_articles` adds, to an edit's replacements, the change of each
article that stands right before a replaced region and no longer agrees with the region's new
first word. The article's change is a replacement of its own, so the alignment of everything
else (entity spans among it) is unchanged.

The sound is told from the spelling (:func:`article_for`): a vowel letter, except a "u" or "eu"
said "you" ("a university", "a European"), "one"/"once" ("a one-off"); a silent "h" ("an hour",
"an honest", "an heir"); an initialism read letter by letter takes the article of its first
letter's name ("an FBI agent", "a UN official", "an MP"), a word written in capitals that is
read as a word takes the word's ("a NATO base", "an OPEC member"); a number by how it is said
("an 8", "an 11-year-old", "an 18th").
"""
from __future__ import annotations

import re
from typing import Iterable

from runner.types import Replacement

# A vowel sound at the start of a word written in lower case (or capitalised).
_VOWEL_SOUND = re.compile(
    r"^(?:a|e(?!u|we)|i|o(?!ne\b|ne-|nce\b)|u(?!ni(?![nmd])|s[eua]|r[aei]|t[iuo]|k[ur]|bi|ga|e)"
    r"|hour|honou?r|honest|heir)", re.I)
# Letters whose names start with a vowel sound: A E F H I L M N O R S X ("an FBI", "an MP").
_VOWEL_LETTERS = frozenset("AEFHILMNORSX")
# Initialisms of four letters or more read as words ("NATO", "NASA", "OPEC", "UNESCO") are told
# from those read letter by letter ("NCAA", "BBC") by having a vowel after the first letter.
_VOWELS = frozenset("AEIOU")
_ARTICLE_BEFORE = re.compile(r"(?:^|(?<=[\s\"'“‘(\[]))(an?|An?|AN?)(\s+)$")
_FIRST_WORD = re.compile(r"[\"'“‘(\[]*([\w][\w'’.-]*)")
_THE = re.compile(r"the\s+(?=\S)", re.I)


def without_the(name: str) -> str:
    """The name without a leading definite article, in any case ("the United States", "The
    Hague", "THE BBC" → "United States", "Hague", "BBC"); the one rule for every place a name is
    compared or looked up without it. A name that is only "the" is kept."""
    found = _THE.match(name)
    return name[found.end():] if found else name


def article_for(word: str) -> str:
    """"a" or "an" for ``word`` (the word after the article, as written)."""
    w = word.lstrip("\"'“‘([")
    if not w:
        return "a"
    if w[0].isdigit():
        digits = re.match(r"[\d,]+", w).group().replace(",", "")
        # 8, 80-89, 800…, 8,000…; 11 and 18 (and 11,000, 18,000) said "eleven", "eighteen"
        if digits[0] == "8" or (len(digits) % 3 == 2 and digits[:2] in ("11", "18")):
            return "an"
        return "a"
    core = re.match(r"[^\W\d_]+", w)
    letters = core.group() if core else w
    if len(letters) > 1 and letters.isupper() and not _read_as_word(letters):
        return "an" if letters[0] in _VOWEL_LETTERS else "a"
    if len(letters) == 1 and (letters.isupper() or w[1:2] in ("-", ".")):
        return "an" if letters.upper() in _VOWEL_LETTERS else "a"    # "an X-ray", "a B-movie"
    return "an" if _VOWEL_SOUND.match(letters) else "a"


def _read_as_word(letters: str) -> bool:
    """Whether a word in capitals is said as a word: four letters or more, a vowel among the
    first two and no three consonants running (NATO, OPEC, NASA; not NCAA, BBC, FIFA's peer
    "NFL")."""
    if len(letters) < 4:
        return False
    if not (letters[0] in _VOWELS or letters[1] in _VOWELS):
        return False
    return re.search(r"[^AEIOUY]{3}", letters) is None


def agree_articles(text: str, replacements: Iterable[Replacement]) -> list[Replacement]:
    """``replacements`` plus, for each region a replacement changes whose new text starts with a
    word, the change of an "a"/"an" right before it (in ``text``, across spaces) that does not
    agree with that word. An article the replacements already change or cover is left alone."""
    reps = sorted(replacements, key=lambda r: (r.start, r.end))
    taken = [(r.start, r.end) for r in reps]
    out = list(reps)
    for r in reps:
        if not r.new or text[r.start:r.end] == r.new:
            continue
        m = _FIRST_WORD.match(r.new)
        if m is None or not m.group(1)[:1].isalnum():
            continue
        before = _ARTICLE_BEFORE.search(text[:r.start])
        if before is None:
            continue
        a, b = before.start(1), before.end(1)
        if any(s < b and a < e or (s == e and a <= s <= b) for s, e in taken):
            continue
        article = before.group(1)
        if not article.islower() and text[:a].strip(" \"'“‘(["):
            continue        # a capital inside a sentence is a letter or a title ("Plan A")
        want = article_for(m.group(1))
        if article.lower() == want:
            continue
        new = want if article.islower() else (want.upper() if len(article) > 1
                                                and article.isupper() else want.capitalize())
        out.append(Replacement(a, b, new))
        taken.append((a, b))
    return sorted(out, key=lambda r: (r.start, r.end))

