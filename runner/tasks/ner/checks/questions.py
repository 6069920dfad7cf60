"""Check 5, ``question_front``: the auxiliary of a yes/no question goes first."""
from __future__ import annotations

from typing import Any

from runner.types import Edit


class QuestionChecks:
    """The ``questions`` checks of :class:`~runner.tasks.ner.checks.filter.ParseCheckFilter`
    (a mixin: it reads the filter's settings and WordNet)."""

    # -- 5. questions ------------------------------------------------------------------------
    def _question_front(self, sdoc: Any, edit: Edit) -> list[str]:
        """English fronts the auxiliary of a yes/no question to the start of the clause; after a
        fronted adverbial ("Today, may Khanzir be …?", "Earlier this year was Seagal given …?")
        the question reads as broken. The first inserted text must come before every word of
        the source but opening punctuation."""
        inserted = [r for r in edit.replacements if r.start == r.end and r.new.strip()]
        if not inserted:
            return []
        first = min(r.start for r in inserted)
        moved = next(r.new.strip() for r in inserted if r.start == first).lower()
        # A leading coordinating conjunction is no fronted phrase ("But did one expert warn …?").
        before = [t for t in sdoc if t.idx < first and not t.is_punct and not t.is_space
                  and t.pos_ != "CCONJ"]
        # A phrase set off by a comma may stay in front ("In 2019, did Siemens open …?", "When
        # he died, did we …?"), except before "may"/"might", which then read as a wish.
        set_off = sdoc.text[:first].rstrip().endswith(",") and moved not in ("may", "might")
        if before and not set_off:
            return [f"question_front: the auxiliary goes after {sdoc.text[:first].strip()!r}"]
        # The "may" of a statement says what is possible; fronted, it asks leave or makes a
        # wish, and before a name it reads as one ("May Stoker's inspirations have included …?").
        if moved in ("may", "might"):
            return [f"question_front: a fronted {moved!r} asks leave or wishes; the statement "
                    f"says what is possible"]
        return []
