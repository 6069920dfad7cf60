"""What every system under test is, for any task: batched prediction through the in-run and the
persistent cache, chunks split on failure, bounded concurrency, a label map.

A task's systems subclass :class:`SystemUnderTest` (NER's through
:class:`runner.tasks.ner.sut.base.NERSystem`): they say how one batch of inputs is sent
(:meth:`_predict_raw`), what the raw answer about one input becomes (:meth:`_convert`, e.g. the
label map applied), how a raw answer is checked (:meth:`_check_raw`) and, when an input is not a
string, what identifies it in the caches (:meth:`input_key`).
"""
from __future__ import annotations

import hashlib
import json
from collections import Counter, OrderedDict
from dataclasses import dataclass
from typing import Any, ClassVar, Iterator, Mapping, Sequence


class PredictionCache:
    """Bounded LRU of predictions keyed by (system fingerprint, input key), shared within a run so
    that the same input (e.g. a follow-up two transformations both make) is never predicted
    twice."""

    def __init__(self, max_entries: int = 200_000) -> None:
        self.max_entries = max_entries
        self._data: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple[str, str]) -> Any:
        value = self._data.get(key)
        if value is None:
            self.misses += 1
            return None
        self.hits += 1
        self._data.move_to_end(key)
        return value

    def put(self, key: tuple[str, str], value: Any) -> None:
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.max_entries:
            self._data.popitem(last=False)

    def stats(self) -> dict[str, int]:
        return {"hits": self.hits, "misses": self.misses, "entries": len(self._data)}


class SystemUnderTest:
    """Subclasses set ``name``, implement :meth:`_predict_raw` (one batched call for many inputs),
    :meth:`_convert` and :meth:`describe`. Everything else — caching, batching, splitting a failed
    chunk, concurrency — lives here. An input is the task's (NER: a text)."""

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
    def _predict_raw(self, texts: Sequence[Any]) -> list[Any]:
        """One raw answer (JSON-serialisable: it goes to the persistent cache) per input, in
        order; raises :class:`~runner.sut.remote.SUTCallError` when the call failed for good, or
        puts one in the place of an input the system could not answer."""
        raise NotImplementedError

    def _convert(self, raw: Any) -> Any:
        """The task's prediction from one raw answer (e.g. with the label map applied)."""
        raise NotImplementedError

    def _check_raw(self, item: Any, raw: Any) -> None:
        """Raise when ``raw`` cannot be an answer about ``item`` (e.g. offsets outside it)."""

    def input_key(self, item: Any) -> str:
        """What identifies an input in the caches: the text itself for a string input."""
        if isinstance(item, str):
            return item
        raise NotImplementedError(f"{self.name}: inputs of type {type(item).__name__} need an "
                                  "input_key")

    def describe(self) -> dict[str, Any]:
        """Backend, model name and version: shown in reports, part of the cache fingerprint."""
        raise NotImplementedError

    # -- shared ----------------------------------------------------------------------------
    def fingerprint(self) -> str:
        payload = json.dumps({"sut": self.describe(), "label_map": self.label_map,
                              "keep_unmapped": self.keep_unmapped}, sort_keys=True, default=str)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def raw_fingerprint(self) -> str:
        """The key of the persistent cache: what the system is, without the suite's label map
        (raw answers are stored, so another label map reuses them). Never holds a secret."""
        payload = json.dumps({"sut": self.describe()}, sort_keys=True, default=str)
        return hashlib.sha256(payload.encode()).hexdigest()[:32]

    def predict(self, texts: Sequence[Any]) -> list[Any]:
        """Predictions for ``texts`` (inputs) in order; cached ones are not sent again, duplicates
        once.
        Raises :class:`~runner.sut.remote.SUTCallError` when a text could not be predicted."""
        from runner.sut.remote import SUTCallError

        out = self.predict_outcomes(texts)
        for p in out:
            if isinstance(p, SUTFailure):
                raise SUTCallError(p.reason)
        return out  # type: ignore[return-value]

    def predict_outcomes(self, texts: Sequence[Any]) -> list[Any]:
        """Like :meth:`predict`, but a text whose call still failed after the system's retries
        gives a :class:`SUTFailure` in its place instead of stopping the run. Failures are not
        cached: a later run (or ``--resume``) asks again."""
        from runner.sut.remote import SUTCallError

        fp = self.fingerprint_cached
        keys = [self.input_key(t) for t in texts]
        out: list[Any] = [self.cache.get((fp, k)) for k in keys]
        by_key = dict(zip(keys, texts))
        todo = list(dict.fromkeys(k for k, p in zip(keys, out) if p is None))
        fresh: dict[str, Any] = {}
        if self.store is not None and todo:
            raw_fp = self.raw_fingerprint_cached
            for key, raw in self.store.get_many(raw_fp, todo).items():
                fresh[key] = pred = self._convert(raw)
                self.cache.put((fp, key), pred)
                self.persistent_hits += 1
            todo = [k for k in todo if k not in fresh]
        chunks = [todo[i:i + self.batch_size] for i in range(0, len(todo), self.batch_size)]
        for chunk, (n_calls, raw) in self._call_chunks([[by_key[k] for k in c] for c in chunks]):
            self.calls += n_calls
            self.texts_sent += len(chunk)
            if len(raw) != len(chunk):
                raise RuntimeError(f"{self.name}: {len(raw)} predictions for {len(chunk)} texts")
            answers = {}
            for item, r in zip(chunk, raw):
                key = self.input_key(item)
                if isinstance(r, SUTCallError):
                    fresh[key] = SUTFailure(str(r))
                    continue
                self._check_raw(item, r)
                fresh[key] = pred = self._convert(r)
                self.cache.put((fp, key), pred)
                answers[key] = r
            if self.store is not None:
                self.store.put_many(self.raw_fingerprint_cached, answers)
        self.failed_texts += sum(isinstance(p, SUTFailure) for p in fresh.values())
        return [p if p is not None else fresh[k] for k, p in zip(keys, out)]

    def _call_chunks(self, chunks: list[list[Any]]) -> Iterator[tuple[list[Any], tuple[int, list]]]:
        """(chunk, (calls made, one answer or SUTCallError per text)) in order, with up to
        ``concurrency`` chunks in flight. A chunk that fails for good (not by throttling: asking
        a throttling service more often does not help) is split in halves and each half asked
        again, so one text the service cannot take does not fail its neighbours."""
        from runner.sut.remote import SUTCallError

        def call(chunk: list[Any]) -> tuple[int, list]:
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
