"""How untrusted text is displayed: one rule for every output that shows sentences.

A sentence can contain characters that are invisible or that change how the text *around* them is
displayed: bidirectional controls (U+202A–202E, U+2066–2069, U+200E/200F, U+061C), zero-width
characters (U+200B–200D, U+2060–2064, U+FEFF), the soft hyphen U+00AD, tag characters
(U+E0000–E007F), other format characters, the line and paragraph separators U+2028/U+2029 and every
control character (C0 and C1, NUL, tab and line breaks included). Shown as they are, they make a
sentence read differently from what the system under test was given (the "Trojan Source" trick).
Wherever a sentence, entity text, label or id is displayed, each such character is replaced by a
visible marker ``⟨U+202E⟩``: in HTML a ``<span class="ctl">`` with the character's name as its
title, in Markdown an inline code span, in plain text (console, JUnit) the marker alone.
results.json and every other data file keep the raw text.

The rule: general categories Cc, Cf, Zl, Zp and Cs, plus the invisible fillers U+034F, U+115F,
U+1160, U+3164 and U+FFA0. One exception: ZERO WIDTH (NON-)JOINER (U+200C, U+200D) between two
characters of a script that needs it (Arabic, Syriac, Indic, Tibetan, Myanmar, Khmer, Mongolian) or
between emoji (a family or profession emoji is a ZWJ sequence) is left alone, since there it shapes
the display instead of hiding anything. Other spaces (no-break space, ideographic space) are
visible as spaces and are kept.

The HTML report highlights entities and edits by character offsets into the raw text: the markers
are applied to each piece after it is cut at those offsets, never to the whole sentence first.
"""
from __future__ import annotations

import re
import unicodedata
from typing import Any, Iterator

from markupsafe import Markup, escape

_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
_INVISIBLE_LETTERS = frozenset("\u034f\u115f\u1160\u3164\uffa0")
_INVISIBLE_LETTER = re.compile("[\u034f\u115f\u1160\u3164\uffa0]")
_JOINERS = frozenset("\u200c\u200d")
# Scripts whose shaping uses ZWJ/ZWNJ: Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic, Arabic
# supplements and presentation forms; Devanagari through Malayalam/Sinhala; Tibetan; Myanmar;
# Khmer and Mongolian.
_JOINING_RANGES = ((0x0600, 0x08FF), (0x0900, 0x0DFF), (0x0F00, 0x0FFF), (0x1000, 0x109F),
                   (0x1780, 0x18AF), (0xA8E0, 0xA8FF), (0xFB50, 0xFDFF), (0xFE70, 0xFEFE))
_CONTROL_NAMES = dict(enumerate(
    "NULL,START OF HEADING,START OF TEXT,END OF TEXT,END OF TRANSMISSION,ENQUIRY,ACKNOWLEDGE,BELL,"
    "BACKSPACE,CHARACTER TABULATION,LINE FEED,LINE TABULATION,FORM FEED,CARRIAGE RETURN,SHIFT OUT,"
    "SHIFT IN,DATA LINK ESCAPE,DEVICE CONTROL ONE,DEVICE CONTROL TWO,DEVICE CONTROL THREE,"
    "DEVICE CONTROL FOUR,NEGATIVE ACKNOWLEDGE,SYNCHRONOUS IDLE,END OF TRANSMISSION BLOCK,CANCEL,"
    "END OF MEDIUM,SUBSTITUTE,ESCAPE,FILE SEPARATOR,GROUP SEPARATOR,RECORD SEPARATOR,"
    "UNIT SEPARATOR".split(",")))
_CONTROL_NAMES[0x7F] = "DELETE"
_CONTROL_NAMES[0x85] = "NEXT LINE"


def _joins(ch: str | None) -> bool:
    """Whether ``ch`` is a character next to which a joiner does visible work."""
    if ch is None:
        return False
    cp = ord(ch)
    if any(a <= cp <= b for a, b in _JOINING_RANGES):
        return unicodedata.category(ch)[0] in "LM"
    # emoji: symbols, emoji modifiers (skin tones) and the emoji presentation selector
    return unicodedata.category(ch) in ("So", "Sk") or ch == "\ufe0f"


def is_plain(text: str) -> bool:
    """Whether nothing in ``text`` is hidden: the common case, answered at C speed
    (``str.isprintable`` is false for every category the rule marks)."""
    return text.isprintable() and (text.isascii() or not _INVISIBLE_LETTER.search(text))


def is_hidden(text: str, i: int) -> bool:
    """Whether ``text[i]`` is shown as a marker."""
    ch = text[i]
    if ch in _INVISIBLE_LETTERS:
        return True
    if unicodedata.category(ch) not in _HIDDEN_CATEGORIES:
        return False
    if ch in _JOINERS:
        before = text[i - 1] if i > 0 else None
        after = text[i + 1] if i + 1 < len(text) else None
        return not (_joins(before) and _joins(after))
    return True


def runs(text: str, keep: str = "") -> Iterator[tuple[bool, str]]:
    """The text as alternating runs: ``(False, shown as it is)`` and ``(True, hidden
    characters)``. Characters in ``keep`` (e.g. ``"\\n"`` for multi-line console messages) are
    shown as they are."""
    if is_plain(text):
        if text:
            yield False, text
        return
    start, hidden = 0, False
    for i in range(len(text)):
        h = text[i] not in keep and is_hidden(text, i)
        if h != hidden and i > start:
            yield hidden, text[start:i]
            start = i
        hidden = h
    if start < len(text):
        yield hidden, text[start:]


def marker(ch: str) -> str:
    return f"⟨U+{ord(ch):04X}⟩"


def char_name(ch: str) -> str:
    cp = ord(ch)
    name = _CONTROL_NAMES.get(cp) or unicodedata.name(ch, "")
    if not name:
        name = "CONTROL CHARACTER" if unicodedata.category(ch) == "Cc" else (
            "SURROGATE (not a character)" if unicodedata.category(ch) == "Cs" else "FORMAT CHARACTER")
    return f"U+{cp:04X} {name}"


def visible_text(value: Any, keep: str = "") -> str:
    """Plain text with every hidden character as ``⟨U+XXXX⟩`` (console, JUnit, attributes)."""
    text = value if isinstance(value, str) else str(value)
    if is_plain(text):
        return text
    return "".join("".join(marker(c) for c in part) if hidden else part
                   for hidden, part in runs(text, keep))


def visible_html(value: Any) -> Markup:
    """Escaped HTML with every hidden character as a marked span titled with its name."""
    text = value if isinstance(value, str) else str(value)
    if is_plain(text):
        return escape(text)
    out = []
    for hidden, part in runs(text):
        if not hidden:
            out.append(escape(part))
            continue
        for ch in part:
            out.append(f'<span class="ctl" title="{escape(char_name(ch))}">{marker(ch)}</span>')
    return Markup("".join(out))
