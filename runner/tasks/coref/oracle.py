"""CREST's oracle and issue types.

The follow-up's clusters are brought back into the source's coordinates through the edit
(CREST §2.2: a mention is the same mention when only its offsets shifted) and compared with
the source's by BLANC (:mod:`.blanc`, Luo et al.'s corner cases): the source's clusters are the
key, the follow-up's the response. A violation when precision < ``threshold_precision`` or
recall < ``threshold_recall`` (both 1.0 by default, as the paper). A follow-up mention with no
image in the source (cut by the edit) is *twinless*: it brings only links that cannot match.

Issue types (CREST §4.4, from Kummerfeld & Klein 2013's error classes) are assigned by comparing
a *response* clustering with a *reference* one — the follow-up's with the source's when the
corpus has no gold, each prediction with its gold when it has:

- ``span error``: a response mention overlaps a reference mention without the same boundaries
  (both otherwise unmatched); the pair is then treated as one mention for the other types;
- ``extra entity``: a response cluster none of whose mentions is in any reference cluster;
- ``missing entity``: a reference cluster none of whose mentions is in the response;
- ``conflated entity``: a response cluster holding mentions of two or more reference clusters;
- ``divided entity``: a reference cluster whose mentions are spread over two or more response
  clusters — the mirror of the above, Kummerfeld & Klein's seventh class, which CREST lists but
  could not observe in single sentences; kept so a split is not mislabelled;
- ``extra mention``: a response cluster that matches a reference cluster but also holds a
  mention in no reference cluster;
- ``missing mention``: a reference cluster matched by the response but with a mention the
  response lacks.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Hashable, Sequence

from runner.tasks.coref.blanc import BlancScore, blanc
from runner.tasks.coref.types import CorefPrediction, Mention
from runner.types import Edit, Replacement

ISSUE_TYPES = ("extra entity", "missing entity", "conflated entity", "divided entity",
               "extra mention", "missing mention", "span error")


def inverse(edit: Edit) -> Edit:
    """The edit that turns the follow-up back into the source."""
    reps, delta = [], 0
    for r in edit.replacements:
        start = r.start + delta
        reps.append(Replacement(start, start + len(r.new), edit.source[r.start:r.end]))
        delta += len(r.new) - (r.end - r.start)
    return Edit(edit.target, tuple(reps))


@dataclass(frozen=True)
class Twinless:
    """A follow-up mention with no image in the source; never equal to a source mention."""

    start: int
    end: int


def to_source(prediction: CorefPrediction, edit: Edit) -> list[list[Hashable]]:
    """The follow-up's clusters with every mention in source coordinates."""
    back = inverse(edit)
    out: list[list[Hashable]] = []
    for cluster in prediction.clusters:
        ms: list[Hashable] = []
        for m in cluster:
            image = back.map_range(m.start, m.end)
            ms.append(Mention(*image) if image is not None and image[1] > image[0]
                      else Twinless(m.start, m.end))
        out.append(ms)
    return out


def to_follow_up(prediction: CorefPrediction, edit: Edit) -> CorefPrediction | None:
    """Clusters (e.g. gold) carried from the source into the follow-up; None when the edit cut
    a mention."""
    clusters = []
    for cluster in prediction.clusters:
        ms = []
        for m in cluster:
            image = edit.map_range(m.start, m.end)
            if image is None or image[1] <= image[0]:
                return None
            ms.append(Mention(*image))
        clusters.append(ms)
    return CorefPrediction.build(clusters)


@dataclass
class CorefVerdict:
    violated: bool
    score: BlancScore
    issue_types: tuple[str, ...] = ()
    issue_basis: str = ""                       # "predictions" or "gold"
    details: list[dict[str, Any]] = field(default_factory=list)
    reason: str = ""


def judge(source: CorefPrediction, follow_up: CorefPrediction, edit: Edit, *,
          threshold_precision: float = 1.0, threshold_recall: float = 1.0) -> tuple[bool, BlancScore]:
    key = [list(c) for c in source.clusters]
    response = to_source(follow_up, edit)
    score = blanc(key, response, corner_cases="luo")
    return (score.precision < threshold_precision or score.recall < threshold_recall), score


def _overlaps(a: Hashable, b: Hashable) -> bool:
    return a.start < b.end and b.start < a.end  # type: ignore[attr-defined]


def _offsets(m: Any) -> Any:
    return [m.start, m.end]


def issue_types(reference: Sequence[Sequence[Hashable]],
                response: Sequence[Sequence[Hashable]], *,
                show: Any = _offsets) -> tuple[list[str], list[dict[str, Any]]]:
    """The issue types of ``response`` judged against ``reference`` (both lists of clusters of
    mentions with ``start``/``end``), and one detail per finding (for the report; ``show``
    turns a mention into what the detail holds, by default its offsets)."""
    ref_of = {m: n for n, c in enumerate(reference) for m in c}
    resp_of = {m: n for n, c in enumerate(response) for m in c}
    found: list[str] = []
    details: list[dict[str, Any]] = []

    def note(kind: str, **info: Any) -> None:
        if kind not in found:
            found.append(kind)
        details.append({"type": kind, **info})

    # Span errors first: a response mention that only overlaps a reference mention stands for it.
    alias: dict[Hashable, Hashable] = {}
    unmatched_ref = [m for m in ref_of if m not in resp_of]
    for m in sorted((m for m in resp_of if m not in ref_of), key=lambda x: (x.start, x.end)):
        partner = next((g for g in unmatched_ref if _overlaps(m, g) and g not in alias.values()),
                       None)
        if partner is not None:
            alias[m] = partner
            note("span error", response=show(m), reference=show(partner))

    def as_ref(m: Hashable) -> Hashable:
        return alias.get(m, m)

    for n, cluster in enumerate(response):
        hit = {ref_of[as_ref(m)] for m in cluster if as_ref(m) in ref_of}
        extra = [m for m in cluster if as_ref(m) not in ref_of]
        if not hit:
            note("extra entity", cluster=n)
        elif len(hit) >= 2:
            note("conflated entity", cluster=n, reference_clusters=sorted(hit))
        if hit and extra:
            note("extra mention", cluster=n, mentions=[show(m) for m in extra])
    covered = {as_ref(m): resp_of[m] for m in resp_of}
    for n, cluster in enumerate(reference):
        hit = {covered[m] for m in cluster if m in covered}
        missing = [m for m in cluster if m not in covered]
        if not hit:
            note("missing entity", cluster=n)
        elif len(hit) >= 2:
            note("divided entity", cluster=n, response_clusters=sorted(hit))
        if hit and missing:
            note("missing mention", cluster=n, mentions=[show(m) for m in missing])
    order = {t: i for i, t in enumerate(ISSUE_TYPES)}
    return sorted(found, key=order.__getitem__), details


def _shower(text: str, other: str | None = None) -> Any:
    """Mentions as ``{start, end, text}`` read in ``text`` (a twinless follow-up mention in
    ``other``, the follow-up's text, and marked so)."""
    def show(m: Any) -> dict[str, Any]:
        if isinstance(m, Twinless) and other is not None:
            return {"start": m.start, "end": m.end, "text": other[m.start:m.end],
                    "in": "follow_up"}
        return {"start": m.start, "end": m.end, "text": text[m.start:m.end]}
    return show


def classify(source: CorefPrediction, follow_up: CorefPrediction, edit: Edit, *,
             source_gold: CorefPrediction | None = None) -> tuple[tuple[str, ...], str,
                                                                  list[dict[str, Any]]]:
    """Issue types of a violation: against gold when the source has gold clusters (the union of
    what is wrong in the source and in the follow-up, each detail tagged with its side), else
    the follow-up's clusters against the source's."""
    if source_gold is not None:
        fu_gold = to_follow_up(source_gold, edit)
        types: list[str] = []
        details: list[dict[str, Any]] = []
        sides = [("source", source.clusters, source_gold.clusters)]
        if fu_gold is not None:
            sides.append(("follow_up", follow_up.clusters, fu_gold.clusters))
        for side, pred, gold in sides:
            text = edit.source if side == "source" else edit.target
            t, d = issue_types([list(c) for c in gold], [list(c) for c in pred],
                               show=_shower(text))
            types += [x for x in t if x not in types]
            details += [{**x, "side": side} for x in d]
        if types or fu_gold is not None:
            order = {t: i for i, t in enumerate(ISSUE_TYPES)}
            return tuple(sorted(types, key=order.__getitem__)), "gold", details
    t, d = issue_types([list(c) for c in source.clusters], to_source(follow_up, edit),
                       show=_shower(edit.source, edit.target))
    return tuple(t), "predictions", d


def gold_check(source: CorefPrediction, follow_up: CorefPrediction, edit: Edit,
               source_gold: CorefPrediction) -> dict[str, Any]:
    """Is the violation a real error? It is when the source's prediction differs from its gold
    or the follow-up's from the gold carried through the edit."""
    fu_gold = to_follow_up(source_gold, edit)
    src_ok = source.clusters == source_gold.clusters
    fu_ok = fu_gold is not None and follow_up.clusters == fu_gold.clusters
    return {"source_correct": src_ok, "follow_up_correct": fu_ok, "real_error": not (src_ok and fu_ok)}
