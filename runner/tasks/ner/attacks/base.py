"""What every attack is: entities of a source in, one record per attacked entity out.

Which entities are attacked: with gold labels, the gold entities the system predicted exactly
(span and type), as in the paper ("originally correctly labelled"); without gold, the system's
own entities (its prediction is the reference, as in metamorphic testing). ``entity_types``
restricts the types, ``max_entities_per_source`` takes the first ones in text order (keeps a run's
time bounded; deterministic whatever the batch size).
"""
from __future__ import annotations

import random
from typing import Any, ClassVar, Sequence

from runner.tasks.ner.attacks.oracle import Oracle, View, choose_importance
from runner.tasks.ner.attacks.words import reference_labels, words, words_in
from runner.tasks.ner.types import Prediction, Sentence, Span


def attack_targets(source: Sentence, prediction: Prediction, entity_types: Any = None,
                   max_per_source: int | None = None) -> tuple[str, list[Span]]:
    """The entities an attack attacks in a source, and their basis (``gold`` or
    ``prediction``): see the module's docstring."""
    if source.gold is not None:
        basis = "gold"
        predicted = {(s.start, s.end, s.label) for s in prediction.spans}
        spans = [g for g in source.gold if (g.start, g.end, g.label) in predicted]
    else:
        basis, spans = "prediction", list(prediction.spans)
    spans = [s for s in sorted(spans) if words_in(source.text, s.start, s.end)
             and (entity_types is None or s.label in entity_types)]
    if max_per_source is not None:
        spans = spans[:max_per_source]
    return basis, spans


def replaceable_tokens(doc: Any, blocked: Sequence[Span]) -> list[Any]:
    """The tokens the context attack may replace: alphabetic, not stop words, a noun, verb,
    adjective or adverb by their Penn tag, outside every span of ``blocked``."""
    return [t for t in doc
            if t.text.isalpha() and not t.is_stop and t.tag_[:2] in ("NN", "VB", "JJ", "RB")
            and not any(b.start < t.idx + len(t.text) and t.idx < b.end for b in blocked)]


class Attack:
    name: ClassVar[str]
    uses_importance: ClassVar[bool] = False

    def __init__(self, *, sut: Any, similarity: Any, importance: str = "auto",
                 min_sentence_similarity: float = 0.8, max_entities_per_source: int | None = None,
                 entity_types: Sequence[str] | None = None, **params: Any) -> None:
        self.sut = sut
        self.similarity = similarity
        self.importance = choose_importance(sut, importance) if self.uses_importance else "labels"
        self.oracle = Oracle(sut, self.importance)
        self.min_sentence_similarity = min_sentence_similarity
        self.max_entities_per_source = max_entities_per_source
        self.entity_types = set(entity_types) if entity_types else None
        self.params = {"importance": importance, "min_sentence_similarity": min_sentence_similarity,
                       "max_entities_per_source": max_entities_per_source,
                       "entity_types": list(entity_types) if entity_types else None, **params}

    def describe(self) -> dict[str, Any]:
        d = {"type": self.name, **self.params}
        if self.uses_importance:
            d["importance_used"] = self.importance
            if self.importance == "logits":
                d["word_scores"] = getattr(self.sut, "word_score_kind", "logits")
        return d

    def models(self) -> list[dict[str, Any]]:
        return [self.similarity.describe()]

    def targets(self, source: Sentence, prediction: Prediction) -> tuple[str, list[Span]]:
        return attack_targets(source, prediction, self.entity_types,
                              self.max_entities_per_source)

    def run(self, source: Sentence, prediction: Prediction, doc: Any,
            rng_for: Any) -> list[dict[str, Any]]:
        basis, spans = self.targets(source, prediction)
        if not spans:
            return []
        original = self.original_view(source.text, prediction)
        if original is None:
            return []
        out = []
        blocked = list(prediction.spans) + list(source.gold or ())
        outside = _outside_count(source.text, blocked)
        for k, span in enumerate(spans):
            ws = words_in(source.text, span.start, span.end)
            reference = reference_labels(span.label, len(ws))
            self.oracle.queries = 0
            calls = self.oracle.calls
            result = self.attack_one(source, span, reference, doc, original, blocked,
                                     rng_for(self.name, k, span))
            out.append({
                "id": f"{source.id}/{self.name}/{k}", "source_id": source.id,
                "origin": source.origin, "attack": self.name, "reference": basis,
                "importance": self.importance if self.uses_importance else None,
                "text": source.text,
                "entity": {"start": span.start, "end": span.end, "label": span.label,
                           "text": span.text_in(source.text)},
                "words": [source.text[a:b] for a, b in ws],
                "labels_before": reference,
                "prediction_before": prediction.to_json(),
                "out_of_mention_words": outside,
                **result,
                "queries": self.oracle.queries,
                "calls": self.oracle.calls - calls,
            })
        return out

    def original_view(self, text: str, prediction: Prediction) -> View | None:
        if self.importance == "logits":
            answer = self.oracle.ask([text])[0]
            self.oracle.queries = 0
            return answer if isinstance(answer, View) else None
        return View(text, prediction, None, self.importance == "span_scores")

    def attack_one(self, source: Sentence, span: Span, reference: list[str], doc: Any,
                   original: View, blocked: list[Span], rng: random.Random) -> dict[str, Any]:
        raise NotImplementedError


class EntityContextAttack(Attack):
    name = "entity_context"
    uses_importance = True

    def __init__(self, *, synonyms: Any, naturalness: tuple[Any, float] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.synonyms = synonyms
        self.naturalness = naturalness
        self.params["max_perplexity_rise"] = naturalness[1] if naturalness else None
        self._original_score: tuple[str, float] | None = None   # the judge's, of the last source
        self._sentence_candidates: tuple[str, dict] | None = None

    def models(self) -> list[dict[str, Any]]:
        judge = [{**self.naturalness[0].describe(), "role": "naturalness judge"}] \
            if self.naturalness else []
        return [self.synonyms.source.describe(), self.similarity.describe(), *judge]

    def natural(self, original: str, texts: Sequence[str]) -> list[bool]:
        """The naturalness judge's verdict on changed sentences: False for one the LM reads more
        than ``max_perplexity_rise`` percent less natural per token than the original (the
        original is scored once per source). The attack asks it only about the candidates it
        would take, best first (:func:`runner.tasks.ner.attacks.context._choose`)."""
        lm, rise = self.naturalness
        if self._original_score is None or self._original_score[0] != original:
            self._original_score = (original, lm.score([original])[0])
        base = self._original_score[1]
        from runner.models.lm_parts import perplexity_rise

        return [perplexity_rise(base, sc) <= rise for sc in lm.score(list(texts))]

    def candidates_for(self, text: str, doc: Any, blocked: list[Span]) -> dict:
        """Synonyms of every replaceable word of the sentence, found once for all its entities."""
        if self._sentence_candidates and self._sentence_candidates[0] == text:
            return self._sentence_candidates[1]
        tokens = [t.i for t in replaceable_tokens(doc, blocked)]
        found = self.synonyms.find(doc, tokens)
        by_word = {(doc[i].idx, doc[i].idx + len(doc[i].text)): c for i, c in found.items()}
        self._sentence_candidates = (text, by_word)
        return by_word

    def attack_one(self, source, span, reference, doc, original, blocked, rng):
        from runner.tasks.ner.attacks.context import attack_context

        cands = self.candidates_for(source.text, doc, blocked)
        result = attack_context(text=source.text, entity=span, reference=reference,
                                candidates=cands, oracle=self.oracle, original=original,
                                sentence_similarity=self.similarity.sentences,
                                min_sentence_similarity=self.min_sentence_similarity,
                                natural=self.natural if self.naturalness else None)
        if result["perturbed"]:
            result["words_perturbed_pct"] = round(
                100.0 * result["perturbed"] / max(1, _outside_count(source.text, blocked)), 2)
        return result


def _outside_count(text: str, blocked: list[Span]) -> int:
    return sum(1 for a, b in words(text) if text[a:b][0].isalnum()
               and not any(s.start < b and a < s.end for s in blocked))


class EntityAttack(Attack):
    name = "entity"

    def __init__(self, *, max_candidates: int = 50, pool_file: str | None = None,
                 pool_sources: int | None = None, unknown_subtype: str = "skip",
                 **kwargs: Any) -> None:
        super().__init__(max_candidates=max_candidates, pool_file=pool_file,
                         pool_sources=pool_sources, unknown_subtype=unknown_subtype, **kwargs)
        self.max_candidates = max_candidates
        self.pool_file = pool_file
        self.pool_sources = pool_sources
        self.unknown_subtype = unknown_subtype
        self.pool: dict[str, list[str]] = {}
        self.pool_basis = ""
        self.gazetteer: Any = None

    def set_pool(self, pool: dict[str, list[str]], basis: str, gazetteer: Any = None) -> None:
        """The coarse pool by label, and (a pool file with sub-types) its gazetteer."""
        self.pool = {t: sorted(set(v)) for t, v in pool.items()}
        self.pool_basis = basis
        self.gazetteer = gazetteer if gazetteer is not None and gazetteer.fine_labels else None

    def describe(self) -> dict[str, Any]:
        sizes = (self.gazetteer.sizes() if self.gazetteer is not None
                 else {t: len(v) for t, v in sorted(self.pool.items())})
        return {**super().describe(), "pool": self.pool_basis, "pool_sizes": sizes}

    def pool_for(self, source: Sentence, span: Span) -> tuple[list[str], dict[str, Any]]:
        """The names the entity may be replaced by, and how they were chosen: its sub-type (and
        what told it) and the pool's level — ``fine`` (its sub-type), ``coarse`` (its label:
        no sub-types for it, or an unknown one with ``unknown_subtype: coarse``) or ``None``
        (unknown sub-type, skipped)."""
        gaz = self.gazetteer
        if gaz is None or span.label not in gaz.fine_labels:
            return self.pool.get(span.label, []), {"subtype": None, "subtype_from": None,
                                                   "pool_level": "coarse"}
        text = source.text
        sub, how = gaz.subtype(span.label, text[span.start:span.end], text[:span.start], text)
        info = {"subtype": sub, "subtype_from": how}
        if sub is not None:
            return (gaz.pool_in_place(span.label, sub, text[span.start:span.end],
                                      text[:span.start]), {**info, "pool_level": "fine"})
        if self.unknown_subtype == "coarse":
            return gaz.pool(span.label, None), {**info, "pool_level": "coarse"}
        return [], {**info, "pool_level": None}

    def attack_one(self, source, span, reference, doc, original, blocked, rng):
        from runner.tasks.ner.attacks.entity import attack_entity, skipped

        pool, info = self.pool_for(source, span)
        if info["pool_level"] is None:
            return {**skipped(source.text, "sub-type unknown: skipped"), **info}
        return {**attack_entity(text=source.text, entity=span, pool=pool,
                                rng=rng, oracle=self.oracle,
                                sentence_similarity=self.similarity.sentences,
                                min_sentence_similarity=self.min_sentence_similarity,
                                max_candidates=self.max_candidates), **info}
