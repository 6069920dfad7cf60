"""What every NER system under test is: batched prediction, a label map, a prediction cache."""
from __future__ import annotations

import hashlib
import json
from collections import Counter, OrderedDict
from dataclasses import dataclass
from typing import Any, ClassVar, Iterator, Mapping, Sequence

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

# Azure AI Language NER categories (the subcategory, e.g. Location/GPE, is not used for the map).
AZURE_TO_COMMON: dict[str, str | None] = {
    "Person": "PERSON", "Location": "LOCATION", "Organization": "ORGANIZATION",
    "Event": "MISC", "Product": "MISC",
    "PersonType": None, "Skill": None, "Address": None, "PhoneNumber": None, "Email": None,
    "URL": None, "IP": None, "DateTime": None, "Quantity": None,
}
# AWS Comprehend DetectEntities types.
AWS_TO_COMMON: dict[str, str | None] = {
    "PERSON": "PERSON", "LOCATION": "LOCATION", "ORGANIZATION": "ORGANIZATION",
    "COMMERCIAL_ITEM": "MISC", "EVENT": "MISC", "TITLE": "MISC", "OTHER": "MISC",
    "DATE": None, "QUANTITY": None,
}
# A JSON endpoint's labels: both the CoNLL and the spelled-out names.
HTTP_TO_COMMON: dict[str, str | None] = {
    "PER": "PERSON", "PERSON": "PERSON", "LOC": "LOCATION", "LOCATION": "LOCATION",
    "ORG": "ORGANIZATION", "ORGANIZATION": "ORGANIZATION", "MISC": "MISC",
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
    remote: ClassVar[bool] = False  # a paid or rate-limited service: persistent cache on by default

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
        self.store: Any = None  # the persistent cache (runner.sut.cache.PersistentCache) or None
        self.persistent_hits = 0
        self.failed_texts = 0   # texts whose call still failed after retries
        self.concurrency = 1    # chunks sent at once (remote systems raise it)
        self.unaligned_spans = 0  # entities whose text is nowhere in the sentence (dropped)

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

    def raw_fingerprint(self) -> str:
        """The key of the persistent cache: what the system is, without the suite's label map
        (raw answers are stored, so another label map reuses them). Never holds a secret."""
        payload = json.dumps({"sut": self.describe()}, sort_keys=True, default=str)
        return hashlib.sha256(payload.encode()).hexdigest()[:32]

    def predict(self, texts: Sequence[str]) -> list[Prediction]:
        """Predictions for ``texts`` in order; cached texts are not sent again, duplicates once.
        Raises :class:`~runner.sut.remote.SUTCallError` when a text could not be predicted."""
        from runner.sut.remote import SUTCallError

        out = self.predict_outcomes(texts)
        for p in out:
            if isinstance(p, SUTFailure):
                raise SUTCallError(p.reason)
        return out  # type: ignore[return-value]

    def predict_outcomes(self, texts: Sequence[str]) -> list["Prediction | SUTFailure"]:
        """Like :meth:`predict`, but a text whose call still failed after the system's retries
        gives a :class:`SUTFailure` in its place instead of stopping the run. Failures are not
        cached: a later run (or ``--resume``) asks again."""
        from runner.sut.remote import SUTCallError

        fp = self.fingerprint_cached
        out: list[Prediction | None] = [self.cache.get((fp, t)) for t in texts]
        todo = list(dict.fromkeys(t for t, p in zip(texts, out) if p is None))
        fresh: dict[str, Prediction | SUTFailure] = {}
        if self.store is not None and todo:
            raw_fp = self.raw_fingerprint_cached
            for text, raw in self.store.get_many(raw_fp, todo).items():
                fresh[text] = pred = self._map(raw)
                self.cache.put((fp, text), pred)
                self.persistent_hits += 1
            todo = [t for t in todo if t not in fresh]
        chunks = [todo[i:i + self.batch_size] for i in range(0, len(todo), self.batch_size)]
        for chunk, (n_calls, raw) in self._call_chunks(chunks):
            self.calls += n_calls
            self.texts_sent += len(chunk)
            if len(raw) != len(chunk):
                raise RuntimeError(f"{self.name}: {len(raw)} predictions for {len(chunk)} texts")
            answers = {}
            for text, r in zip(chunk, raw):
                if isinstance(r, SUTCallError):
                    fresh[text] = SUTFailure(str(r))
                    continue
                _check_offsets(self.name, text, r)
                fresh[text] = pred = self._map(r)
                self.cache.put((fp, text), pred)
                answers[text] = r
            if self.store is not None:
                self.store.put_many(self.raw_fingerprint_cached, answers)
        self.failed_texts += sum(isinstance(p, SUTFailure) for p in fresh.values())
        return [p if p is not None else fresh[t] for t, p in zip(texts, out)]

    def _call_chunks(self, chunks: list[list[str]]) -> Iterator[tuple[list[str], tuple[int, list]]]:
        """(chunk, (calls made, one answer or SUTCallError per text)) in order, with up to
        ``concurrency`` chunks in flight. A chunk that fails for good (not by throttling: asking
        a throttling service more often does not help) is split in halves and each half asked
        again, so one text the service cannot take does not fail its neighbours."""
        from runner.sut.remote import SUTCallError

        def call(chunk: list[str]) -> tuple[int, list]:
            try:
                return 1, list(self._predict_raw(chunk))
            except SUTCallError as exc:
                if len(chunk) == 1 or not exc.splittable:
                    return 1, [exc] * len(chunk)
                mid = len(chunk) // 2
                n1, a = call(chunk[:mid])
                n2, b = call(chunk[mid:])
                return 1 + n1 + n2, a + b

        if self.concurrency <= 1 or len(chunks) <= 1:
            for chunk in chunks:
                yield chunk, call(chunk)
            return
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(max_workers=min(self.concurrency, len(chunks)))
        try:
            yield from zip(chunks, pool.map(call, chunks))
        finally:  # on Ctrl-C: requests not started yet are never sent
            pool.shutdown(wait=True, cancel_futures=True)

    @property
    def fingerprint_cached(self) -> str:
        fp = getattr(self, "_fp", None)
        if fp is None:
            fp = self._fp = self.fingerprint()
        return fp

    @property
    def raw_fingerprint_cached(self) -> str:
        fp = getattr(self, "_raw_fp", None)
        if fp is None:
            fp = self._raw_fp = self.raw_fingerprint()
        return fp

    def stats(self) -> dict[str, Any]:
        cache: dict[str, Any] = self.cache.stats()
        if self.store is not None:
            cache.update(persistent_hits=self.persistent_hits,
                         **self.store.stats(self.raw_fingerprint_cached))
        out = {"calls": self.calls, "texts_sent": self.texts_sent, "cache": cache,
               "dropped_labels": dict(self.dropped_labels.most_common())}
        if self.failed_texts:
            out["failed_texts"] = self.failed_texts
        if self.unaligned_spans:
            out["unaligned_spans"] = self.unaligned_spans
        policy = getattr(self, "policy", None)
        if policy is not None:
            out["retries"] = policy.retries
        return out


@dataclass(frozen=True)
class SUTFailure:
    """In place of a prediction: the system could not be queried about this text."""

    reason: str


def _check_offsets(name: str, text: str, raw: list[RawSpan]) -> None:
    for start, end, label, _ in raw:
        if not (0 <= start < end <= len(text)):
            raise RuntimeError(f"{name} returned span {start}..{end} ({label}) outside a text of "
                               f"{len(text)} characters: {text[:80]!r}")
