"""The entity-context attack (Breaking BERT §3.1.2, SPEC §5), for one entity of one sentence.

1. *Rank the context words* — words outside every entity, not stop words, that have at least one
   synonym — by their importance for the entity's labels: each is deleted in turn (all deletions
   in one call) and
   - with scores (``logits``, ``span_scores``), for every still-correct word t of the entity,
     imp(w) += s_t(X)[y_t] − s_t(X∖w)[y_t] + [t mislabelled in X∖w] · (s_t(X∖w)[ŷ] − s_t(X)[ŷ]),
     y_t the correct label, ŷ the label predicted without w. The second term is the authors'
     code (``calcwordscore`` in github.com/AnneDirkson/breakingBERT): the *rise* of the wrong
     label's score; the paper's prose says "adding the raw prediction score" of that label. A
     label-only system gives neither term, so
   - without scores (``labels``, the black-box importance) imp(w) is the share of the entity's
     still-correct words that deleting w mislabels. Most words tie at 0, so ties go to the word
     nearer the entity (the paper finds the local context the most vulnerable), then to the
     earlier word.
2. *For each word in rank order* try its synonyms (all candidate sentences in one call, those
   below the sentence-similarity threshold never sent):
   - a synonym that mislabels every still-correct word → take the one with the highest sentence
     similarity; the attack succeeds;
   - else among those that mislabel the most words, the one that leaves the lowest summed score
     of the correct labels on the words still right (label-only: the highest similarity);
   - else the synonym that lowers the summed correct-label score most, if it lowers it at all
     (label-only systems have no score to lower: the word is left as it is).
   With a naturalness judge (``max_perplexity_rise``) the step takes the best candidate the
   judge accepts; the system is asked about every candidate the similarity keeps, and the judge
   reads them best first until it accepts one.
   A word once mislabelled is no longer considered (paper: "only the predictions of the not yet
   incorrectly labelled words"). The attack stops when every word is mislabelled or the ranked
   words run out; the outcome is read from the final sentence.

Departure: words without a synonym are not deleted for ranking (the paper deletes them too, but
they can never be replaced, so their rank changes nothing and their queries are saved).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from runner.tasks.ner.attacks.oracle import Oracle, View
from runner.tasks.ner.attacks.words import Word, outcome_of, words_in, wrong_tokens
from runner.types import Edit, Replacement
from runner.tasks.ner.types import Span


def deletion(text: str, word: Word) -> Edit:
    """Delete a word and the spaces after it (before it, when it ends the text)."""
    s, e = word
    end = e
    while end < len(text) and text[end] == " ":
        end += 1
    if end == e:
        while s > 0 and text[s - 1] == " ":
            s -= 1
    return Edit(text, (Replacement(s, end, ""),))


def _entity_words(view: View, edit: Edit, entity: Span) -> list[Word] | None:
    img = edit.map_span(entity)
    if img is None:
        return None
    return words_in(view.text, img.start, img.end)


def _score_sum(scores: list[dict[str, float]] | None, reference: Sequence[str],
               positions: Sequence[int]) -> float:
    if scores is None:
        return 0.0
    return sum(scores[t].get(reference[t], 0.0) for t in positions)


class Judged:
    """One answer read for the entity: its word labels, scores and which words are wrong."""

    def __init__(self, view: View, edit: Edit, entity: Span, reference: Sequence[str]) -> None:
        self.view = view
        self.edit = edit
        ws = _entity_words(view, edit, entity)
        if ws is None or len(ws) != len(reference):
            # The entity no longer reads as the same words (should not happen: the context
            # attack never edits inside an entity); every word counts as mislabelled.
            ws = ws or []
            self.labels = ["?"] * len(reference)
            self.scores = None
            self.wrong = set(range(len(reference)))
        else:
            self.labels = view.labels(ws)
            self.scores = view.scores(ws)
            self.wrong = set(wrong_tokens(reference, self.labels))


def attack_context(*, text: str, entity: Span, reference: Sequence[str],
                   candidates: dict[Word, list[tuple[str, float]]], oracle: Oracle,
                   original: View, sentence_similarity: Callable[[str, Sequence[str]], list[float]],
                   min_sentence_similarity: float,
                   natural: Callable[[str, Sequence[str]], list[bool]] | None = None
                   ) -> dict[str, Any]:
    """Attack one entity; returns its record (see :func:`runner.tasks.ner.attacks.stage.record`).
    ``natural`` (the naturalness judge, if any) says which changed sentences may be taken."""
    by_scores = oracle.importance != "labels"
    start_judged = Judged(original, Edit(text, ()), entity, reference)
    active = [t for t in range(len(reference)) if t not in start_judged.wrong]
    context = [w for w in sorted(candidates) if candidates[w]]
    ranking: list[tuple[Word, float]] = []
    if context and active:
        edits = [deletion(text, w) for w in context]
        answers = oracle.ask([e.target for e in edits])
        s0 = start_judged.scores
        for w, edit, ans in zip(context, edits, answers):
            if not isinstance(ans, View):
                ranking.append((w, float("-inf")))
                continue
            j = Judged(ans, edit, entity, reference)
            if by_scores and s0 is not None and j.scores is not None:
                imp = 0.0
                for t in active:
                    y = reference[t]
                    imp += s0[t].get(y, 0.0) - j.scores[t].get(y, 0.0)
                    if t in j.wrong:
                        wrong_label = j.labels[t]
                        imp += j.scores[t].get(wrong_label, 0.0) - s0[t].get(wrong_label, 0.0)
            else:
                imp = len(j.wrong & set(active)) / len(active)
            ranking.append((w, imp))
        # Highest importance first; ties: nearer the entity, then earlier in the sentence.
        ranking.sort(key=lambda x: (-x[1], _distance(x[0], entity), x[0][0]))

    changes: list[Replacement] = []
    current = start_judged
    steps = []
    for w, imp in ranking:
        if not active:
            break
        s, e = w
        options = candidates[w]
        edits = [Edit(text, tuple(changes) + (Replacement(s, e, new),)) for new, _ in options]
        sims = sentence_similarity(text, [ed.target for ed in edits])
        kept = [(opt, ed, sim) for opt, ed, sim in zip(options, edits, sims)
                if sim >= min_sentence_similarity]
        if not kept:
            continue
        answers = oracle.ask([ed.target for _, ed, _ in kept])
        judged = []
        for (opt, ed, sim), ans in zip(kept, answers):
            if isinstance(ans, View):
                j = Judged(ans, ed, entity, reference)
                newly = [t for t in active if t in j.wrong]
                remaining = [t for t in active if t not in j.wrong]
                judged.append((opt, ed, sim, j, newly, remaining))
        if not judged:
            continue
        pick = _choose(judged, active, by_scores, reference, current, text, natural)
        if pick is None:
            continue  # nothing mislabels a word, or (with scores) lowers their scores
        (new, word_sim), ed, sim, j, newly, remaining = pick
        changes.append(Replacement(s, e, new))
        current = j
        active = remaining
        steps.append({"start": s, "end": e, "original": text[s:e], "new": new,
                      "word_similarity": round(word_sim, 4), "importance": _round(imp),
                      "newly_wrong": len(newly)})

    final_edit = Edit(text, tuple(changes))
    final = current if changes else start_judged
    wrong = sorted(final.wrong)
    sim = sentence_similarity(text, [final_edit.target])[0] if changes else 1.0
    return {
        "adversarial": final_edit.target,
        "edit": final_edit.to_json(),
        "changes": steps,
        "labels_after": final.labels,
        "prediction_after": final.view.prediction.to_json(),
        "wrong": len(wrong),
        "outcome": outcome_of(len(wrong), len(reference)),
        "similarity": round(sim, 4),
        "perturbed": len(changes),
        "ranking": [{"word": text[a:b], "start": a, "end": b, "importance": _round(v)}
                    for (a, b), v in ranking[:10]],
        "note": ("" if ranking else "no context word with a synonym" if active
                 else "entity already mislabelled"),
    }


JUDGE_CHUNK = 4   # changed sentences the naturalness judge reads at a time, best first


def _choose(judged: list, active: list[int], by_scores: bool, reference: Sequence[str],
            current: Judged, text: str, natural: Any) -> Any:
    """The candidate step 2 takes, or None. The rule is one order: most words newly mislabelled
    first; among full flips the most similar sentence; else (with scores) the lowest summed
    score of the correct labels on the words still right, then the most similar; label-only,
    the most similar. A candidate that mislabels no word is taken only with scores, and only
    when it lowers that sum below the current sentence's. With a naturalness judge the first
    candidate in that order the judge accepts is the best of those it would accept, so the
    judge reads the candidates best first, a few at a time, and stops there: the same choice
    as judging them all, for fewer LM passes."""
    def key(x):
        n = len(x[4])
        tie = (0.0 if n == len(active) or not by_scores
               else _score_sum(x[3].scores, reference, x[5] if n else active))
        return (-n, tie, -x[2])

    floor = _score_sum(current.scores, reference, active)
    # a candidate that mislabels no word has its summed score over ``active`` as key[1]
    order = [x for k, x in sorted(((key(x), x) for x in judged), key=lambda kx: kx[0])
             if k[0] or (by_scores and k[1] < floor)]
    pick = None
    if natural is None:
        pick = order[0] if order else None
    else:
        for k in range(0, len(order), JUDGE_CHUNK):
            chunk = order[k:k + JUDGE_CHUNK]
            ok = natural(text, [x[1].target for x in chunk])
            pick = next((x for x, good in zip(chunk, ok) if good), None)
            if pick is not None:
                break
    return pick


def _distance(word: Word, entity: Span) -> int:
    s, e = word
    return entity.start - e if e <= entity.start else s - entity.end


def _round(x: float) -> float | None:
    return None if x != x or x in (float("inf"), float("-inf")) else round(x, 4)
