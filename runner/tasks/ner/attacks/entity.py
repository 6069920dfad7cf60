"""The entity attack (Breaking BERT §3.1.3, SPEC §5), for one entity of one sentence.

Up to ``max_candidates`` (50) entities of the same type, drawn at random from the pool (the
corpus's entities, or a gazetteer file; with a gazetteer of fine types, those of the entity's own
sub-type — ``subtypes``; not one already in the sentence), each put in the entity's place; candidates whose sentence
similarity to the original falls below the threshold are never sent; the rest go to the system in
one call. The replacement's words should read B-TYPE I-TYPE…; among the candidates that mislabel
the largest share of them the most similar sentence is kept, as the authors' code does
(``get_adversarial_sent_entities``). The paper counts an attack as successful when any word of the
replacement is mislabelled; here ``success`` means every word is (the context attack's rule, so
the two rates compare) and ``partial`` at least half — results.json also gives ``any_wrong`` rate,
the paper's criterion.
"""
from __future__ import annotations

import random
from typing import Any, Callable, Sequence

from runner.tasks.ner.attacks.oracle import Oracle, View
from runner.tasks.ner.attacks.words import outcome_of, reference_labels, words_in, wrong_tokens
from runner.types import Edit, Replacement
from runner.tasks.ner.types import Span


def skipped(text: str, note: str) -> dict[str, Any]:
    """The record of an entity not attacked (no pool of its sub-type): outcome ``skipped``."""
    return {"adversarial": text, "edit": [], "changes": [], "labels_after": [],
            "prediction_after": [], "wrong": 0, "outcome": "skipped", "similarity": None,
            "perturbed": 0, "candidates": 0, "candidates_sent": 0, "note": note}


def attack_entity(*, text: str, entity: Span, pool: Sequence[str], rng: random.Random,
                  oracle: Oracle, sentence_similarity: Callable[[str, Sequence[str]], list[float]],
                  min_sentence_similarity: float, max_candidates: int = 50) -> dict[str, Any]:
    original = text[entity.start:entity.end]
    # Not the entity itself, nor another entity of the sentence ("X beat X" tests nothing new).
    choices = sorted({p for p in pool if p != original and p not in text})
    sample = rng.sample(choices, min(max_candidates, len(choices)))
    edits = [Edit(text, (Replacement(entity.start, entity.end, c),)) for c in sample]
    sims = sentence_similarity(text, [e.target for e in edits]) if edits else []
    kept = [(c, e, s) for c, e, s in zip(sample, edits, sims) if s >= min_sentence_similarity]
    answers = oracle.ask([e.target for _, e, _ in kept])
    best = None
    for (cand, edit, sim), ans in zip(kept, answers):
        if not isinstance(ans, View):
            continue
        start = entity.start
        ws = words_in(ans.text, start, start + len(cand))
        reference = reference_labels(entity.label, len(ws))
        labels = ans.labels(ws)
        wrong = wrong_tokens(reference, labels)
        share = len(wrong) / len(ws) if ws else 0.0
        key = (share, sim)
        if best is None or key > best[0]:
            best = (key, cand, edit, sim, labels, wrong, len(ws), ans)
    if best is None:
        return {"adversarial": text, "edit": [], "changes": [], "labels_after": [],
                "prediction_after": [], "wrong": 0, "outcome": "failed", "similarity": None,
                "perturbed": 0, "candidates": len(sample), "candidates_sent": len(kept),
                "note": "no candidate entity" if not sample
                else "no candidate above the sentence-similarity threshold"}
    (_, cand, edit, sim, labels, wrong, n_words, ans) = best
    return {
        "adversarial": edit.target,
        "edit": edit.to_json(),
        "changes": [{"start": entity.start, "end": entity.end, "original": original, "new": cand}],
        "replacement_words": n_words,
        "labels_after": labels,
        "prediction_after": ans.prediction.to_json(),
        "wrong": len(wrong),
        "outcome": outcome_of(len(wrong), n_words),
        "similarity": round(sim, 4),
        "perturbed": 1,
        "candidates": len(sample),
        "candidates_sent": len(kept),
        "note": "",
    }
