"""Entity markers: how the common TACRED baselines show a classifier which words are the head
and the tail (Baldini Soares et al. 2019, "entity markers"; Zhou & Chen 2021, "typed entity
markers" and their punctuation variant). A style is four templates; ``{type}`` is the entity
type as written, ``{type_lower}`` in lower case with ``_`` as a space.

======================  ===============================================================
``entity_markers``      ``[E1] Bill Gates [/E1] founded [E2] Microsoft [/E2]``
``typed_markers``       ``<S:PERSON> Bill Gates </S:PERSON> founded <O:ORGANIZATION> ...``
``typed_markers_punct`` ``@ * person * Bill Gates @ founded # ^ organization ^ Microsoft #``
``punct_markers``       ``@ Bill Gates @ founded # Microsoft #``
======================  ===============================================================

A suite may give its own four templates (``markers: {head_start, head_end, tail_start,
tail_end}``) to match the model it tests.
"""
from __future__ import annotations

from typing import Mapping

from runner.tasks.re.types import REInput

STYLES: dict[str, dict[str, str]] = {
    "entity_markers": {"head_start": "[E1]", "head_end": "[/E1]",
                       "tail_start": "[E2]", "tail_end": "[/E2]"},
    "typed_markers": {"head_start": "<S:{type}>", "head_end": "</S:{type}>",
                      "tail_start": "<O:{type}>", "tail_end": "</O:{type}>"},
    "typed_markers_punct": {"head_start": "@ * {type_lower} *", "head_end": "@",
                            "tail_start": "# ^ {type_lower} ^", "tail_end": "#"},
    "punct_markers": {"head_start": "@", "head_end": "@", "tail_start": "#", "tail_end": "#"},
}
KEYS = ("head_start", "head_end", "tail_start", "tail_end")


def marker_templates(style: str, markers: Mapping[str, str] | None = None) -> dict[str, str]:
    if markers:
        missing = [k for k in KEYS if k not in markers]
        if missing:
            raise ValueError(f"markers needs {', '.join(KEYS)} (missing {', '.join(missing)})")
        return {k: markers[k] for k in KEYS}
    if style not in STYLES:
        raise ValueError(f"unknown marker style {style!r} (one of {', '.join(STYLES)})")
    return dict(STYLES[style])


def mark(inp: REInput, templates: Mapping[str, str]) -> tuple[str, tuple[int, int]]:
    """The text with markers around head and tail (one space between a marker and its entity),
    and the character offsets of the head's and the tail's start markers in it."""
    def fill(key: str, typ: str) -> str:
        return templates[key].replace("{type}", typ).replace(
            "{type_lower}", typ.lower().replace("_", " "))

    inserts = [(inp.head.start, 0, fill("head_start", inp.head.type) + " ", "head"),
               (inp.head.end, 1, " " + fill("head_end", inp.head.type), None),
               (inp.tail.start, 0, fill("tail_start", inp.tail.type) + " ", "tail"),
               (inp.tail.end, 1, " " + fill("tail_end", inp.tail.type), None)]
    # at one offset an end marker goes before a start marker (adjacent entities)
    inserts.sort(key=lambda x: (x[0], -x[1]))
    out, pos, starts = [], 0, {}
    length = 0
    for offset, _, marker, role in inserts:
        piece = inp.text[pos:offset]
        out.append(piece)
        length += len(piece)
        if role:
            starts[role] = length
        out.append(marker)
        length += len(marker)
        pos = offset
    out.append(inp.text[pos:])
    return "".join(out), (starts["head"], starts["tail"])
