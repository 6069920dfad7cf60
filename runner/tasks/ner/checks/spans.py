"""Helpers of every parse check: the role and head of a span, the ranges an edit replaced, the names
a shuffle moved."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from runner.types import Edit

LABEL_TYPES = {"PERSON": "PERSON", "PER": "PERSON", "LOCATION": "LOCATION", "LOC": "LOCATION",
                "GPE": "LOCATION", "FAC": "LOCATION", "ORGANIZATION": "ORGANIZATION",
                "ORG": "ORGANIZATION"}
SUBJECT_DEPS = {"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"}
MODIFIER_DEPS = {"compound", "amod", "nmod", "nummod", "quantmod"}


def named_term(head: Any) -> str:
    """The term a common noun heads after a capitalised modifier, a name or a word made from
    one ("the Sadr movement", "the Qing period", "the Mycenaean script", "Modern day"), or ""
    when it heads none. Such a term is a name of its own or a fixed phrase of the field: WordNet
    gives "move", "flow" and "hand" as synonyms of its head in senses it does not have there
    ("the Qing flow"). A capital only the sentence's first word has does not count."""
    if head.pos_ != "NOUN":
        return ""
    for child in head.lefts:
        if (child.dep_ in ("compound", "amod", "nmod") and child.text[:1].isupper()
                and not child.is_sent_start and child.is_alpha):
            return head.doc[child.i:head.i + 1].text
    return ""


def typed_names(order: Mapping | None, kind: str) -> set[str]:
    """The names of a shuffle's ``order`` (label → names) the system gave a label of ``kind``
    (a common type: PERSON, LOCATION, …)."""
    return {n for label, names in (order or {}).items()
            if LABEL_TYPES.get(str(label).upper()) == kind for n in names}


def moved_names(edit: Edit) -> set[str]:
    """The names a shuffle takes out of their places (a slot whose name changes)."""
    return {edit.source[r.start:r.end] for r in edit.replacements
            if edit.source[r.start:r.end] != r.new}


def role_of(tok: Any, predicates: bool = False) -> str:
    """"an argument" or "a modifier"; with ``predicates``, a predicate nominal ("was Gravity",
    "became St. Rastislav", "named Keira": attr, oprd) is a role of its own — it says what its
    subject is, so a name moved into or out of it swaps a thing with what it is called."""
    # A conjunct takes the role of its coordination ("in Glasgow, Cardiff and Belfast").
    seen = 0
    while tok.dep_ == "conj" and tok.head.i != tok.i and seen < 50:
        tok, seen = tok.head, seen + 1
    if predicates and tok.dep_ in ("attr", "oprd"):
        return "a predicate"
    if tok.dep_ in SUBJECT_DEPS or tok.dep_ not in MODIFIER_DEPS:
        return "an argument"
    return "a modifier"


def head_of(doc: Any, start: int, end: int) -> Any:
    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None or len(span) == 0:
        return None
    return span.root


def within(start: int, end: int, ranges: Sequence[tuple[int, int]]) -> bool:
    return any(a < end and start < b for a, b in ranges)
