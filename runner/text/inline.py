"""Offsets for corpora written by hand: inline markers and text that occurs once.

Tokenised corpora (CoNLL-style files, Re-DocRED) are joined back into text by
:func:`detokenise`, which keeps each token's offsets.

A relation-extraction line may mark its arguments in the text itself — ``"[E1 Anna Keller]
married [E2 Tom Brandt] in 2009."`` — or name them by their text alone (``"head": {"text": "Anna
Keller", "type": "PERSON"}``) when that text occurs once in the sentence; a coreference line may
name a cluster's mentions by their text the same way. The readers turn both into character
offsets (end exclusive) and say where a text is ambiguous.
"""
from __future__ import annotations

import re

MARKER = re.compile(r"\[(E\d+)\s([^\[\]]*?)\]")


class InlineError(ValueError):
    """What is wrong with a marker or a text to find; the reader adds the file and line."""


def strip_markers(text: str) -> tuple[str, dict[str, tuple[int, int]]]:
    """The text without its ``[E1 …]`` markers, and where each marked span stands in it.

    >>> strip_markers("[E1 Anna Keller] married [E2 Tom Brandt] in 2009.")
    ('Anna Keller married Tom Brandt in 2009.', {'E1': (0, 11), 'E2': (20, 30)})
    """
    spans: dict[str, tuple[int, int]] = {}
    out, pos, shift = [], 0, 0
    for m in MARKER.finditer(text):
        tag, inner = m.group(1), m.group(2)
        if tag in spans:
            raise InlineError(f"marker [{tag} …] appears twice; mark each argument once")
        if not inner.strip():
            raise InlineError(f"marker [{tag} …] is empty")
        out.append(text[pos:m.start()])
        start = m.start() - shift
        spans[tag] = (start, start + len(inner))
        out.append(inner)
        shift += len(m.group(0)) - len(inner)
        pos = m.end()
    out.append(text[pos:])
    clean = "".join(out)
    stray = re.search(r"\[E\d+(?:\s|\])", clean)
    if stray:
        raise InlineError(f"an unclosed or nested marker near {clean[stray.start():][:30]!r}; "
                          "write [E1 text] and [E2 text], not one inside the other")
    return clean, spans


def locate_once(text: str, needle: str, what: str) -> tuple[int, int]:
    """Where ``needle`` stands in ``text``: it must occur exactly once (as whole words where it
    starts and ends with a letter or digit)."""
    if not needle or not needle.strip():
        raise InlineError(f"{what}: the text to find is empty")
    pattern = (r"(?<!\w)" if needle[0].isalnum() else "") + re.escape(needle) + \
        (r"(?!\w)" if needle[-1].isalnum() else "")
    found = [m.start() for m in re.finditer(pattern, text)]
    if not found:
        raise InlineError(f"{what}: {needle!r} does not occur in the text")
    if len(found) > 1:
        at = ", ".join(str(i) for i in found[:5])
        raise InlineError(f"{what}: {needle!r} occurs {len(found)} times (at characters {at}); "
                          "give its start and end, or mark it inline ([E1 …], [E2 …])")
    return found[0], found[0] + len(needle)


def detokenise(tokens: list[str], *, no_space_before: set[str] | frozenset[str],
               no_space_after: set[str] | frozenset[str]) -> tuple[str, list[tuple[int, int]]]:
    """The sentence's text and each token's character offsets in it: tokens joined by single
    spaces, except before a token of ``no_space_before`` and after one of ``no_space_after``;
    straight double quotes alternate between opening (glued to the word after) and closing
    (glued to the word before)."""
    text, offsets, quote_open, glue_next = "", [], False, True
    for tok in tokens:
        glue = glue_next or tok in no_space_before
        glue_next = tok in no_space_after
        if tok == '"':
            if quote_open:
                glue = True          # a closing quote sticks to the word before it
            else:
                glue_next = True     # an opening quote to the word after it
            quote_open = not quote_open
        if text and not glue:
            text += " "
        offsets.append((len(text), len(text) + len(tok)))
        text += tok
    return text, offsets
