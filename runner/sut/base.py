"""What every NER system under test is: batched prediction, a label map, a prediction cache."""
from __future__ import annotations

import hashlib
import json
from collections import Counter, OrderedDict
from typing import Any, ClassVar, Mapping, Sequence

from runner.types import Prediction, Span

# Labels of the suite's common types. A label map sends a system's own labels to these (or to
# None: "not an entity for this suite"); labels absent from the map are dropped unless
# ``keep_unmapped`` is set, and every dropped label is counted for the report.
ONTONOTES_TO_COMMON: dict[str, str | None] = {
    "PERSON": "PERSON",
    "GPE": "LOCATION", "LOC": "LOCATION", "FAC": "LOCATION",
    "ORG": "ORGANIZATION",
    "NORP": "MISC", "EVENT": "MISC", "PRODUCT": "MISC", "WORK_OF_ART": "MISC", "LAW": "MISC",
    "LANGUAGE": "MISC",
    "DATE": None, "TIME": None, "PERCENT": None, "MONEY": None, "QUANTITY": None,
    "ORDINAL": None, "CARDINAL": None,
}
CONLL_TO_COMMON: dict[str, str | None] = {
    "PER": "PERSON", "LOC": "LOCATION", "ORG": "ORGANIZATION", "MISC": "MISC",
}

RawSpan = tuple[int, int, str, "float | None"]  # start, end (character offsets), raw label, score


class PredictionCache:
    """Bounded LRU of predictions keyed by (system fingerprint, text), shared within a run so that
    the same text (e.g. a follow-up two transformations both make) is never predicted twice."""

    def __init__(self, max_entries: int = 200_000) -> None:
        self.max_entries = max_entries
        self._data: OrderedDict[tuple[str, str], Prediction] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple[str, str]) -> Prediction | None:
        value = self._data.get(key)
        if value is None:
            self.misses += 1
            return None
        self.hits += 1
        self._data.move_to_end(key)
        return value

    def put(self, key: tuple[str, str], value: Prediction) -> None:
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.max_entries:
            self._data.popitem(last=False)

    def stats(self) -> dict[str, int]:
        return {"hits": self.hits, "misses": self.misses, "entries": len(self._data)}


class SystemUnderTest:
    """Subclasses set ``name``, implement :meth:`_predict_raw` (one batched call for many texts)
    and :meth:`describe`. Everything else — label mapping, caching, batching — lives here."""

    name: ClassVar[str]

    def __init__(self, *, label_map: Mapping[str, str | None], keep_unmapped: bool = False,
                 batch_size: int = 32, cache: PredictionCache | None = None, **params: Any) -> None:
        self.label_map = dict(label_map)
        self.keep_unmapped = keep_unmapped
        self.batch_size = batch_size
        self.params = params
        self.cache = cache if cache is not None else PredictionCache()
        self.dropped_labels: Counter[str] = Counter()
        self.calls = 0          # batched calls to the underlying model or service
        self.texts_sent = 0     # texts actually sent (cache misses)

    # -- to implement ----------------------------------------------------------------------
    def _predict_raw(self, texts: Sequence[str]) -> list[list[RawSpan]]:
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        """Backend, model name and version: shown in reports, part of the cache fingerprint."""
        raise NotImplementedError

    # -- shared ----------------------------------------------------------------------------
    def fingerprint(self) -> str:
        payload = json.dumps({"sut": self.describe(), "label_map": self.label_map,
                              "keep_unmapped": self.keep_unmapped}, sort_keys=True, default=str)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def _map(self, raw: list[RawSpan]) -> Prediction:
        spans = []
        for start, end, label, score in raw:
            if label in self.label_map:
                common = self.label_map[label]
            else:
                common = label if self.keep_unmapped else None
            if common is None:
                self.dropped_labels[label] += 1
                continue
            spans.append(Span(start, end, common, label, score))
        return Prediction(tuple(sorted(spans)))

    def predict(self, texts: Sequence[str]) -> list[Prediction]:
        """Predictions for ``texts`` in order; cached texts are not sent again, duplicates once."""
        fp = self.fingerprint_cached
        out: list[Prediction | None] = [self.cache.get((fp, t)) for t in texts]
        todo = list(dict.fromkeys(t for t, p in zip(texts, out) if p is None))
        fresh: dict[str, Prediction] = {}
        for i in range(0, len(todo), self.batch_size):
            chunk = todo[i:i + self.batch_size]
            raw = self._predict_raw(chunk)
            if len(raw) != len(chunk):
                raise RuntimeError(f"{self.name}: {len(raw)} predictions for {len(chunk)} texts")
            self.calls += 1
            self.texts_sent += len(chunk)
            for text, r in zip(chunk, raw):
                _check_offsets(self.name, text, r)
                fresh[text] = pred = self._map(r)
                self.cache.put((fp, text), pred)
        return [p if p is not None else fresh[t] for t, p in zip(texts, out)]

    @property
    def fingerprint_cached(self) -> str:
        fp = getattr(self, "_fp", None)
        if fp is None:
            fp = self._fp = self.fingerprint()
        return fp

    def stats(self) -> dict[str, Any]:
        return {"calls": self.calls, "texts_sent": self.texts_sent, "cache": self.cache.stats(),
                "dropped_labels": dict(self.dropped_labels.most_common())}


def _check_offsets(name: str, text: str, raw: list[RawSpan]) -> None:
    for start, end, label, _ in raw:
        if not (0 <= start < end <= len(text)):
            raise RuntimeError(f"{name} returned span {start}..{end} ({label}) outside a text of "
                               f"{len(text)} characters: {text[:80]!r}")
