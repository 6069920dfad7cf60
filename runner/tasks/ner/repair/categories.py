"""Error categories of a violation (TIN §4.6), assigned automatically.

With a reference for both sentences (gold labels, or the repaired predictions R(s), R(s′)), each
prediction is compared with its reference: a reference entity with no overlapping prediction is an
*omission*; a prediction with no overlapping reference entity is *over-labeling*; the same span with
another type is an *incorrect category*; an overlapping span with other boundaries is a *range
error*. Without a reference, the source prediction (carried into the follow-up by the edit's
alignment) is compared with the follow-up prediction: a type disagreement on the same span is an
incorrect category, overlapping spans that disagree on boundaries are a range error, and an entity
labelled in one sentence only is an omission when its text looks like a name (a word that starts
with a capital letter or a digit, other than a function word) and over-labeling otherwise.

Whether a text looks like a name is read where the edit did not change its letters: when the
entity's text in the follow-up differs from the source's only in letter case (a lower- or
upper-casing check, a title-cased sentence), the source's spelling decides. Otherwise
"barack obama", missed after lower-casing, would read as no name, and the source's correct
PERSON as over-labeling — when the follow-up omitted it.
"""
from __future__ import annotations

import re
from typing import Iterable, Sequence

from runner.types import AlignmentError, Edit, Replacement

from runner.tasks.ner.types import Span

CATEGORIES = ("omission", "over-labeling", "incorrect category", "range error")

# Words that are never names on their own, even capitalised at the start of a question.
_FUNCTION_WORDS = frozenset("""a an the this that these those is are was were be been am do does did
has have had will would can could shall should may might must of in on at to for from by with and or
but not no it he she they we i you his her their its our my your who what when where why how which
there here as if so than then""".split())


def ordered(categories: Iterable[str]) -> list[str]:
    found = set(categories)
    return [c for c in CATEGORIES if c in found]


def against_reference(prediction: Sequence[Span], reference: Sequence[Span]) -> set[str]:
    """The categories of the prediction's errors, judged against a reference prediction."""
    out: set[str] = set()
    for r in reference:
        same = [p for p in prediction if (p.start, p.end) == (r.start, r.end)]
        if same:
            if all(p.label != r.label for p in same):
                out.add("incorrect category")
        elif any(p.overlaps(r) for p in prediction):
            out.add("range error")
        else:
            out.add("omission")
    for p in prediction:
        if not any(p.overlaps(r) for r in reference):
            out.add("over-labeling")
    return out


def looks_like_name(text: str) -> bool:
    words = re.findall(r"\w[\w'.-]*", text)
    return any((w[0].isupper() or w[0].isdigit()) and w.lower() not in _FUNCTION_WORDS
               for w in words)


def project_spans(source_text: str, spans: Sequence[Span], edit: Edit) -> list[Span]:
    """Source spans as they read in the follow-up: through the alignment when the image reads
    the same (up to case), else (the edit moved or cut through the span) at the only whole-word
    occurrence of the span's text, else left out."""
    target = edit.target
    out = []
    for s in spans:
        image = edit.map_span(s)
        if image is None or image.text_in(target).lower() != s.text_in(source_text).lower():
            found = occurrences(s.text_in(source_text), target)
            if len(found) != 1:
                continue
            image = Span(found[0][0], found[0][1], s.label, s.raw_label, s.score)
        out.append(image)
    return out


def between_predictions(source_text: str, source_spans: Sequence[Span], follow_up_text: str,
                        follow_up_spans: Sequence[Span], edit: Edit) -> set[str]:
    """Categories of the disagreements between the two predictions (no reference)."""
    a = project_spans(source_text, source_spans, edit)
    b = list(follow_up_spans)
    back = _inverse(edit)
    out: set[str] = set()
    for x, ys in ((a, b), (b, a)):
        for s in x:
            same = [t for t in ys if (t.start, t.end) == (s.start, s.end)]
            if same:
                if all(t.label != s.label for t in same):
                    out.add("incorrect category")
            elif any(t.overlaps(s) for t in ys):
                out.add("range error")
            else:
                text = name_text(s.text_in(follow_up_text), s, source_text, back)
                out.add("omission" if looks_like_name(text) else "over-labeling")
    return out


def name_text(follow_up_form: str, span: Span, source_text: str, back: Edit | None) -> str:
    """The text whose look decides name or not for an entity labelled in one sentence only: the
    source's spelling when the follow-up's differs from it only in letter case, else the
    follow-up's."""
    image = back.map_span(span) if back is not None else None
    if image is not None:
        original = image.text_in(source_text)
        if original.lower() == follow_up_form.lower():
            return original
    # an edit cut through the span: the text's only whole-word occurrence in the source, any case
    found = [m for m in re.finditer(r"(?<!\w)" + re.escape(follow_up_form) + r"(?!\w)",
                                    source_text, flags=re.IGNORECASE)]
    if len(found) == 1:
        return found[0].group(0)
    return follow_up_form


def _inverse(edit: Edit) -> Edit | None:
    """The edit that takes the follow-up back to the source (its alignment, reversed)."""
    reps, delta = [], 0
    for r in edit.replacements:
        start = r.start + delta
        reps.append(Replacement(start, start + len(r.new), edit.source[r.start:r.end]))
        delta += len(r.new) - (r.end - r.start)
    try:
        return Edit(edit.target, tuple(reps))
    except AlignmentError:
        return None


def occurrences(entity: str, text: str) -> list[tuple[int, int]]:
    """Whole-word occurrences of ``entity`` in ``text``; the first letter's case may differ (a
    sentence-initial word moved by a transformation)."""
    if not entity:
        return []
    head = entity[0]
    first = f"[{re.escape(head.lower())}{re.escape(head.upper())}]" if head.isalpha() else re.escape(head)
    pattern = r"(?<!\w)" + first + re.escape(entity[1:]) + r"(?!\w)"
    return [(m.start(), m.end()) for m in re.finditer(pattern, text)]
