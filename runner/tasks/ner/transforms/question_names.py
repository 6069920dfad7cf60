"""What ``structural_question`` needs to tell besides the parse: whether the first word of a
statement, which loses the capital the sentence's start gave it when the auxiliary moves before
it, may be a name (then it keeps the capital), and whether the statement is a headline, a
dateline or a section label rather than a sentence (then no question is made of it).

A first word that is a name the system missed must not be written in lower case in the question
("Wales grappled …" → "Did wales grapple …?"): the question would hide the system's miss on the
source and charge it with one on the follow-up. It keeps its capital when it is a proper noun to
the parser, inside an entity the system found, an adjective or noun of nationality ("French",
"Frenchman", "Iraqis": ``data/capitalised_words.txt``), in the shipped name lists (the first
names of ``entity_swap`` and GeoNames' countries, US states, continents and cities of 300,000 or
more, as ``repair.gazetteer`` reads them), or written with a capital inside sentences of the
corpus more often than in lower case (:func:`corpus_names`).
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Any, Iterable

#: a word, and the text before it that makes it the first of a sentence or a title
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_OPENS = re.compile(r"(?:^|[.!?:;\"“‘(\[]|\s['’]|[-–—])\s*$")
_SENTENCE_START = re.compile(r"(?:^|[.!?])\s*$")
_NATIONALITY_ENDINGS = ("woman", "women", "man", "men", "s")


def corpus_names(texts: Iterable[str]) -> frozenset[str]:
    """The words the corpus writes with a capital inside sentences (not first, not after a
    quotation mark, colon or dash), standing alone (not next to another capitalised word, as
    "Heat" in "the Miami Heat"), more often than in lower case anywhere: "Wales", "Mills" in a
    corpus that speaks of them, not "Police" where "police" is the common word."""
    capital, lower = Counter(), Counter()
    for text in texts:
        found = list(_WORD.finditer(text))
        for k, m in enumerate(found):
            word = m.group()
            if word.islower():
                lower[word] += 1
            elif (word[:1].isupper() and not word.isupper()
                  and not _OPENS.search(text[:m.start()])
                  and not any(_capital_next_to(text, m, n) for n in found[max(k - 1, 0):k + 2])):
                capital[word] += 1
    return frozenset(w for w, n in capital.items() if n > lower[w.lower()])


def _capital_next_to(text: str, m: Any, n: Any) -> bool:
    """Whether the word ``n`` is another capitalised word with only spaces between it and
    ``m``: then ``m`` is a word of a longer name ("Miami Heat"), no evidence for itself."""
    if n is m or not n.group()[:1].isupper() or _SENTENCE_START.search(text[:n.start()]):
        return False        # a word capitalised for opening the sentence ("Later Mills said")
    a, b = (m.end(), n.start()) if m.start() < n.start() else (n.end(), m.start())
    return not text[a:b].strip()


def may_be_name(token: Any, in_entity: bool, names: frozenset[str] | set[str],
                capitalised: frozenset[str]) -> bool:
    """Whether the capitalised first word ``token`` may be a name (or a word written only with
    a capital) and keeps its capital in the question. ``in_entity``: inside an entity the
    system found on the source; ``names``: the corpus's (:func:`corpus_names`);
    ``capitalised``: the words WordNet writes only with a capital."""
    word = token.text
    if token.tag_ in ("NNP", "NNPS") or token.pos_ == "PROPN" or word == "I":
        return True
    if _written_again(token):
        return True     # "Life in Color is … best known for its Life in Color tours"
    if in_entity and token.tag_ != "DT":
        return True     # "Spotify is …" → "Is Spotify …?", but "The Beatles" → "the Beatles"
    if len(word) > 1 and word.isupper():
        return True     # an acronym keeps its capitals
    if word in capitalised or word in names:
        return True
    if any(word.endswith(end) and word[:-len(end)] in capitalised
           for end in _NATIONALITY_ENDINGS):
        return True     # "Frenchman", "Englishwomen", "Iraqis"
    return _listed_name(word)


def _written_again(token: Any) -> bool:
    """Whether the sentence writes the first word and the word after it again, further on,
    with the same capitals: the opening words are a name the sentence repeats."""
    doc = getattr(token, "doc", None)
    if doc is None or token.i + 1 >= len(doc) or not doc[token.i + 1].is_alpha:
        return False
    nxt = doc[token.i + 1]
    pair = doc.text[token.idx:nxt.idx + len(nxt.text)]
    return pair in doc.text[nxt.idx + len(nxt.text):]


def _listed_name(word: str) -> bool:
    from runner.tasks.ner.repair.gazetteer import MIN_CITY_POPULATION, _first_names, _places

    return word in _first_names() or word in _places(MIN_CITY_POPULATION)


def _label_mark(doc: Any, t: Any) -> bool:
    """A colon, a double or em dash, or a hyphen or en dash with a space on each side (not the
    one of "1996–97" or "US-led")."""
    if t.text in (":", "--", "—"):
        return True
    return (t.text in ("-", "–") and t.i > 0 and bool(doc[t.i - 1].whitespace_)
            and bool(t.whitespace_))


def headline(doc: Any, root: Any, entities: Iterable[tuple[int, int]] = ()) -> str | None:
    """Why the parsed text (whose main verb is ``root``) is a headline, a section label or a
    dateline and no sentence a question can be made of, or None:

    - a label before the clause: one to four words at the start, with no verb or comma, then a
      colon or a spaced dash before a capitalised word ("Cricket - Pakistan beat …", "Soccer:
      Parma beat …"); not a dash inside a name the system found (``entities``, character
      ranges: "Al - Qaida"), between numbers ("Ninety - Four"), between two acronyms ("CJTF -
      OIR"), inside brackets, or opening an aside a second dash closes ("The firm - once a
      bank - was sold");
    - a dateline: a word of four capitals or more at the start followed by a date ("LONDON
      1996-08-30 …");
    - a title-case or capitals line: the main verb or its auxiliary written with a capital inside
      the sentence ("Pakistan Beat India In Final."), or most of its words in capitals.
    """
    words = [t for t in doc if not t.is_space]
    lead = list(words)
    while lead and _is_opening(lead[0].text):
        lead.pop(0)             # an opening quotation mark or bracket
    for k, t in enumerate(lead[1:6], start=1):
        if t.i >= root.i or t.text == "," or t.pos_ in ("VERB", "AUX"):
            break               # a clause or a list before it: no label
        if t.text in ("(", "["):
            break               # a bracket before it: "Łódź (Pronounced: Wootch) is …"
        if not _label_mark(doc, t) or k > 4:
            continue
        before, after = lead[k - 1], (lead[k + 1] if k + 1 < len(lead) else None)
        if after is None or not (after.text[:1].isupper() or after.text[:1].isdigit()):
            break               # "ISIL - held buildings"
        if before.like_num or after.like_num or before.is_upper and after.is_upper:
            break               # "Ninety - Four", "F - 16", "CJTF - OIR"
        if any(a < t.idx and t.idx + len(t.text) < b for a, b in entities):
            break               # inside a name the system found: "Al - Qaida"
        if t.text != ":" and any(u.text == t.text for u in doc[t.i + 1:root.i]):
            break               # an aside between two dashes
        return f"a label before {t.text!r}"
    alpha = [t for t in words if t.is_alpha and len(t) > 1]
    if (words and words[0].is_alpha and words[0].is_upper and len(words[0]) >= 4
            and len(words) > 1 and _DATE.match(words[1].text)):
        return "a dateline"
    if alpha and sum(t.is_upper for t in alpha) * 2 > len(alpha):
        return "a line in capitals"
    verbs = [root] + [c for c in root.children if c.dep_ in ("aux", "auxpass")]
    if any(v.i > words[0].i and v.text[:1].isupper() and v.pos_ in ("VERB", "AUX")
           for v in verbs):
        return "a verb with a capital: a title-case line"
    return None


_DATE = re.compile(r"\d{1,4}[-/.]\d{1,2}(?:[-/.]\d{1,4})?$")


def _is_opening(text: str) -> bool:
    return text in ('"', "'", "“", "‘", "(", "[", "``")
