"""Checks 1 and 2, ``tokens`` and ``replaced``: the parse outside the edit stays the same, and a
replaced region keeps the role of what it replaced."""
from __future__ import annotations

from typing import Any

from runner.tasks.ner.checks.spans import head_of, named_term, role_of, within
from runner.types import Edit


class TokenChecks:
    """The ``tokens`` checks of :class:`~runner.tasks.ner.checks.filter.ParseCheckFilter`
    (a mixin: it reads the filter's settings and WordNet)."""

    # -- 1. tokens outside the edit ------------------------------------------------------------
    def _tokens(self, sdoc: Any, fdoc: Any, edit: Edit) -> list[str]:
        changed = edit.changed_source_ranges()
        new_ranges = edit.changed_target_ranges()
        f_at = {t.idx: t for t in fdoc}
        image: dict[int, Any] = {}
        changed_tokens: dict[int, list[str]] = {}
        for tok in sdoc:
            if tok.is_space or within(tok.idx, tok.idx + len(tok.text), changed):
                continue
            image_range = edit.map_range(tok.idx, tok.idx + len(tok.text))
            ftok = f_at.get(image_range[0]) if image_range is not None else None
            if ftok is None or len(ftok.text) != len(tok.text):
                changed_tokens[tok.i] = [f"{tok.text!r} is no longer one token"]
                continue
            image[tok.i] = ftok
        for i, ftok in image.items():
            tok = sdoc[i]
            if tok.dep_ in self.ignore_deps:
                continue
            what = []
            if ftok.tag_ != tok.tag_:
                what.append(f"tag {tok.tag_} → {ftok.tag_}")
            if ftok.dep_ != tok.dep_:
                what.append(f"dependency {tok.dep_} → {ftok.dep_}")
            if tok.head.i == tok.i:
                same_head = ftok.head.i == ftok.i
            elif tok.head.i in image:
                same_head = ftok.head.i == image[tok.head.i].i
            else:   # the head was edited: the new head must be part of the edit's new text
                same_head = ftok.head.i != ftok.i and within(
                    ftok.head.idx, ftok.head.idx + len(ftok.head.text), new_ranges)
            if not same_head:
                what.append(f"head {tok.head.text!r} → {ftok.head.text!r}")
            if what:
                changed_tokens[i] = [f"{tok.text!r} {', '.join(what)}"]
        if len(changed_tokens) <= self.max_changed_tokens:
            return []
        listed = "; ".join(w for i in sorted(changed_tokens) for w in changed_tokens[i])
        return [f"tokens: {len(changed_tokens)} tokens outside the edit parse differently "
                f"(at most {self.max_changed_tokens}): {listed}"]

    # -- 2. a replaced region keeps its role ---------------------------------------------------
    def _replaced(self, sdoc: Any, fdoc: Any, edit: Edit) -> list[str]:
        reasons = []
        for (a, b), (c, d) in edit.replaced_pairs():
            old, new = head_of(sdoc, a, b), head_of(fdoc, c, d)
            if old is None or new is None:
                continue
            if role_of(old) != role_of(new):
                reasons.append(f"replaced: {sdoc.text[a:b]!r} was {role_of(old)}, "
                               f"{fdoc.text[c:d]!r} is {role_of(new)}")
            if (term := named_term(old)) and new.lower_ != old.lower_:
                reasons.append(f"replaced: {old.text!r} heads {term!r}, a term after a name "
                               f"(its synonyms fit senses it does not have there)")
        return reasons
