"""The NER metamorphic relations of TIN (SPEC §1)."""
from __future__ import annotations

import re
from collections import Counter
from typing import Any, ClassVar, Sequence

from runner.text.articles import without_the
from runner.types import FollowUp, Outcome, Verdict, by_transformation

from runner.tasks.ner.types import Prediction, Span


class Relation:
    name: ClassVar[str]

    def __init__(self, **params: Any) -> None:
        self.params = params

    def describe(self) -> dict[str, Any]:
        return {"type": self.name, **self.params}

    def check(self, *, source_text: str, follow_up: FollowUp, source_prediction: Prediction,
              follow_up_prediction: Prediction, expected: Sequence[Span]) -> Verdict:
        raise NotImplementedError


def _namer(article: str) -> Any:
    """The entity's name as the relations compare it: with a leading article "the" left out
    (``article: ignore``, the default; not in the paper), so that "the United States" and
    "United States" are one name, or as predicted (``compare``, the paper's). A violation that
    was only the article found the system wrong on its source (by the gold, on another name) no
    more often than a source drawn at random from the same run, the other violations far more
    often (bench/ner_relation_article.py base-rate): it pointed at nothing."""
    if article == "compare":
        return lambda text: text
    return without_the


class MR2SamePrediction(Relation):
    """MR2: N(s) = N(s′) as a multiset of (entity text, type).

    The source's entities are compared through the edit's alignment (``expected``: each source
    entity as it reads in the follow-up), so a case change the transformation made on purpose
    ("The European Union" → "the European Union" after a moved auxiliary) is not a violation.
    Where the edit cut through an entity (no image), its source text is used, as in the paper.
    """

    name = "MR2"
    MODES = ("find_all", "keep_type")

    def __init__(self, *, mode: str | dict[str, str] = "find_all",
                 article: str = "ignore") -> None:
        super().__init__(mode=mode, article=article)
        # One mode for every transformation, or per transformation name ('default': the rest).
        self.mode = dict(mode) if isinstance(mode, dict) else mode
        self.name_of = _namer(article)

    def mode_for(self, transformation: str) -> str:
        return by_transformation(self.mode, transformation, "find_all")

    def check(self, *, source_text, follow_up, source_prediction, follow_up_prediction, expected):
        want: Counter = Counter()
        for span in source_prediction.spans:
            image = follow_up.edit.map_span(span)
            text = image.text_in(follow_up.text) if image else span.text_in(source_text)
            want[(self.name_of(text), span.label)] += 1
        got = Counter((self.name_of(s.text_in(follow_up.text)), s.label)
                      for s in follow_up_prediction.spans)
        if want == got:
            return Verdict(Outcome.PASS)
        if self.mode_for(follow_up.transformation) == "keep_type":
            # "Keeps the type of every entity it still finds": entities the follow-up lost are
            # allowed (a case change may legitimately cost recall); any entity it reports that
            # the source did not have with that text and type (a changed type, a changed range,
            # a new entity) is a violation.
            extra = got - want
            if not extra:
                return Verdict(Outcome.PASS, f"{sum((want - got).values())} source entity(ies) "
                                             "not found again (allowed: keep_type)")
            diffs = _multiset_differences(want, got, only=extra)
            return Verdict(Outcome.FAIL, _describe(diffs), tuple(diffs))
        diffs = _multiset_differences(want, got)
        return Verdict(Outcome.FAIL, _describe(diffs), tuple(diffs))


class MR1SharedEntities(Relation):
    """MR1: for every entity string e present in both s and s′, N(s, e) = N(s′, e).

    The entity strings are those either prediction labels; one "present" in a sentence means it
    occurs there as whole words. An entity that occurs in only one sentence (e.g. the replaced
    phrase itself) is not compared. A missing prediction is the category NULL.
    """

    name = "MR1"

    def __init__(self, *, article: str = "ignore") -> None:
        super().__init__(article=article)
        self.name_of = _namer(article)

    def check(self, *, source_text, follow_up, source_prediction, follow_up_prediction, expected):
        src = _labels_by_text(source_text, source_prediction.spans, self.name_of)
        fol = _labels_by_text(follow_up.text, follow_up_prediction.spans, self.name_of)
        shared = [e for e in sorted(set(src) | set(fol))
                  if _occurs(e, source_text) and _occurs(e, follow_up.text)]
        if not shared:
            return Verdict(Outcome.SKIP, "no entity occurs in both sentences")
        diffs = []
        for e in shared:
            a, b = src.get(e, Counter({None: 1})), fol.get(e, Counter({None: 1}))
            if a != b:
                diffs.append({"text": e, "source": _label_list(a), "follow_up": _label_list(b)})
        if not diffs:
            return Verdict(Outcome.PASS)
        return Verdict(Outcome.FAIL, _describe(diffs), tuple(diffs))


def _labels_by_text(text: str, spans: Sequence[Span], name_of: Any) -> dict[str, Counter]:
    out: dict[str, Counter] = {}
    for s in spans:
        out.setdefault(name_of(s.text_in(text)), Counter())[s.label] += 1
    return out


def _occurs(entity: str, text: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(entity) + r"(?!\w)", text) is not None


def _label_list(c: Counter) -> str | None:
    labels = sorted(c.elements(), key=lambda x: (x is None, x or ""))
    if labels == [None]:
        return None
    return "+".join(str(x) for x in labels)


def _multiset_differences(want: Counter, got: Counter,
                          only: Counter | None = None) -> list[dict[str, Any]]:
    """Per entity text, what the source said vs. what the follow-up said (None = not an entity).
    ``only``: the differing items to report (default: every item on either side)."""
    if only is not None:
        texts = sorted({t for t, _ in only})
    else:
        texts = sorted({t for t, _ in (want - got)} | {t for t, _ in (got - want)})
    diffs = []
    for t in texts:
        a = Counter({lab: n for (tx, lab), n in want.items() if tx == t})
        b = Counter({lab: n for (tx, lab), n in got.items() if tx == t})
        diffs.append({"text": t, "source": _label_list(a) if a else None,
                      "follow_up": _label_list(b) if b else None})
    return diffs


def _describe(diffs: Sequence[dict[str, Any]]) -> str:
    parts = []
    for d in diffs[:4]:
        parts.append(f"{d['text']!r}: {d['source'] or 'NULL'} → {d['follow_up'] or 'NULL'}")
    more = f" (+{len(diffs) - 4} more)" if len(diffs) > 4 else ""
    return "; ".join(parts) + more
