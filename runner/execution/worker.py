"""What runs on the Ray cluster: batch workers, and the one gateway that holds what must not be
multiplied by the number of workers (a remote system's concurrency and retry budget, the
persistent prediction cache).

These classes are plain Python; :mod:`runner.execution.ray_engine` turns them into actors, so this
module imports without Ray and the classes can be tested in-process.
"""
from __future__ import annotations

import copy
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Sequence

from runner.building import open_cache
from runner.engine import Engine

# sut.stats() keys that are a state, not a running count: the newest value stands.
ABSOLUTE = frozenset({"path", "persistent_entries", "persistent_writes"})


def stats_delta(after: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
    """What a call added to a system's ``stats()`` (numbers subtracted, recursively)."""
    out: dict[str, Any] = {}
    for key, value in after.items():
        old = before.get(key)
        if isinstance(value, dict):
            d = stats_delta(value, old if isinstance(old, dict) else {})
            if d:
                out[key] = d
        elif key in ABSOLUTE or not isinstance(value, (int, float)) or isinstance(value, bool):
            out[key] = value
        elif value != (old or 0):
            out[key] = value - (old or 0)
    return out


def add_stats(into: dict[str, Any], delta: dict[str, Any]) -> None:
    for key, value in delta.items():
        if isinstance(value, dict):
            add_stats(into.setdefault(key, {}), value)
        elif key in ABSOLUTE or not isinstance(value, (int, float)) or isinstance(value, bool):
            into[key] = value
        else:
            into[key] = into.get(key, 0) + value


def unwrap(exc: BaseException) -> BaseException:
    """The error raised on the cluster, out of Ray's wrappers (a worker calling the gateway
    wraps twice), so that an error the user can act on keeps its exit code and message."""
    while getattr(exc, "cause", None) is not None and exc is not exc.cause:  # RayTaskError
        exc = exc.cause
    return exc


def sut_is_remote(suite: Any) -> bool:
    """Whether the suite's system is a remote, rate-limited service (class attribute ``remote``),
    without building it."""
    import importlib

    entry = suite.task.registries()["sut"].get(suite.config["sut"]["type"])
    target = getattr(entry.factory, "__qualname__", "")
    module, _, attr = target.partition(":")
    if not attr:
        return False
    return bool(getattr(getattr(importlib.import_module(module), attr), "remote", False))


def forwarded_env(sut_cfg: dict[str, Any]) -> dict[str, str]:
    """The driver's values of the environment variables a remote system reads its endpoint and
    credentials from (the suite's ``*_env`` parameters, ``${VAR}`` in http headers, boto3's
    ``AWS_*``), for the gateway: a cluster's processes do not share the driver's environment.
    They travel as the gateway's constructor argument only, never into a report or a log."""
    import os
    import re

    names = {v for k, v in sut_cfg.items() if k.endswith("_env") and isinstance(v, str)}
    for value in (sut_cfg.get("headers") or {}).values():
        names.update(re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", str(value)))
    if sut_cfg.get("type") == "aws":
        names.update(n for n in os.environ if n.startswith("AWS_"))
    return {n: os.environ[n] for n in sorted(names) if n in os.environ}


def _ray_get(ref: Any) -> Any:
    import ray

    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as exc:
        cause = unwrap(exc)
        from runner.errors import MtrunError
        from runner.sut.remote import SUTCallError

        if isinstance(cause, (MtrunError, SUTCallError)):
            raise cause from None
        raise


class Gateway:
    """One per run, on the driver's node: the remote system under test (so the whole cluster
    sends at most ``concurrency`` requests at once and shares one retry policy: the actor takes
    one call at a time, and each call uses the system's own thread pool), and the persistent
    prediction cache file."""

    def __init__(self, suite: Any, use_cache: bool, remote_sut: bool,
                 env: dict[str, str] | None = None) -> None:
        import os

        from runner.building import build_sut

        os.environ.update(env or {})
        self.sut = build_sut(suite) if remote_sut else None
        probe = self.sut or SimpleNamespace(remote=remote_sut)
        self.store = open_cache(suite.config, probe, enabled=use_cache)
        if self.sut is not None and self.store is not None:
            self.sut.store = self.store

    def describe_sut(self) -> dict[str, Any]:
        return self.sut.describe()

    def predict_outcomes(self, texts: list[str]) -> tuple[list[Any], dict[str, Any]]:
        before = self.sut.stats()
        out = self.sut.predict_outcomes(texts)
        return out, stats_delta(self.sut.stats(), before)

    def cache_path(self) -> str | None:
        return str(self.store.path) if self.store is not None else None

    def get_many(self, fingerprint: str, texts: list[str]) -> dict[str, Any]:
        return self.store.get_many(fingerprint, texts)

    def put_many(self, fingerprint: str, answers: dict[str, Any]) -> None:
        self.store.put_many(fingerprint, answers)

    def store_stats(self, fingerprint: str) -> dict[str, Any]:
        return self.store.stats(fingerprint)

    def close(self) -> None:
        if self.store is not None:
            self.store.close()


class GatewaySUT:
    """A remote system under test as a worker sees it: every call goes through the gateway.
    Its ``stats()`` are what the gateway did for this worker's calls."""

    remote = False      # the gateway, not the worker, holds the cache of a remote system

    def __init__(self, gateway: Any, name: str) -> None:
        self.gateway = gateway
        self.name = name
        self.store = None
        self._describe = _ray_get(gateway.describe_sut.remote())
        self._stats: dict[str, Any] = {}

    @property
    def dropped_labels(self) -> Counter[str]:
        return Counter(self._stats.get("dropped_labels", {}))

    def describe(self) -> dict[str, Any]:
        return self._describe

    def predict_outcomes(self, texts: Sequence[str]) -> list[Any]:
        out, delta = _ray_get(self.gateway.predict_outcomes.remote(list(texts)))
        add_stats(self._stats, delta)
        return out

    def predict(self, texts: Sequence[str]) -> list[Any]:
        from runner.sut.base import SUTFailure
        from runner.sut.remote import SUTCallError

        out = self.predict_outcomes(texts)
        for p in out:
            if isinstance(p, SUTFailure):
                raise SUTCallError(p.reason)
        return out

    def stats(self) -> dict[str, Any]:
        return copy.deepcopy(self._stats)


class StoreProxy:
    """The persistent prediction cache as a worker sees it: the file stays with the gateway."""

    def __init__(self, gateway: Any, path: str) -> None:
        self.gateway = gateway
        self.path = Path(path)

    def get_many(self, fingerprint: str, texts: Sequence[str]) -> dict[str, Any]:
        return _ray_get(self.gateway.get_many.remote(fingerprint, list(texts)))

    def put_many(self, fingerprint: str, answers: dict[str, Any]) -> None:
        if answers:
            _ray_get(self.gateway.put_many.remote(fingerprint, dict(answers)))

    def stats(self, fingerprint: str) -> dict[str, Any]:
        return _ray_get(self.gateway.store_stats.remote(fingerprint))

    def close(self) -> None:
        pass


class WorkerEngine(Engine):
    """The engine's components as a worker builds them: a remote system through the gateway,
    the persistent cache through the gateway."""

    def __init__(self, suite: Any, *, use_cache: bool, gateway: Any, remote_sut: bool) -> None:
        super().__init__(suite, Path("."), use_cache=use_cache)
        self.gateway = gateway
        self.remote_sut = remote_sut

    def _make_sut(self) -> Any:
        if self.remote_sut:
            return GatewaySUT(self.gateway, self.cfg["sut"]["type"])
        return super()._make_sut()

    def _open_cache(self) -> Any:
        if self.gateway is None or self.remote_sut:
            return None
        path = _ray_get(self.gateway.cache_path.remote())
        return StoreProxy(self.gateway, path) if path else None


def _component(c: Any) -> dict[str, Any]:
    models = getattr(c, "models", None)
    return {"name": c.name, "describe": c.describe(), "models": models() if models else []}


class BatchWorker:
    """One worker: builds the suite's components once, then processes whole batches in two steps.
    :meth:`judge` is everything that depends on the batch alone (source predictions, parse,
    transformations, filters, follow-up predictions, relations); :meth:`finish` runs the
    violation analysis, which depends on the batches before (the corpus candidate pool), with the
    pool the driver sends: the pool the local engine would hold at this batch."""

    def __init__(self, suite: Any, use_cache: bool, gateway: Any, remote_sut: bool) -> None:
        self.engine = WorkerEngine(suite, use_cache=use_cache, gateway=gateway,
                                   remote_sut=remote_sut)
        self.judged: dict[int, tuple] = {}

    def build(self) -> dict[str, Any]:
        """Load every model; returns what the driver reports about the components."""
        e = self.engine
        e.build(background=False)       # the driver is told about the built components
        an = e.analyzer
        # The driver rebuilds the analyzer without its models (classes travel by reference).
        relabeler = getattr(an, "relabeler", None)
        analysis: dict[str, Any] = {"cls": type(an), "enabled": relabeler is not None}
        if relabeler is not None:
            src = relabeler.source
            analysis.update(backend=an.backend, params=an.params, source=relabeler.describe(),
                            corpus_pool=_corpus_source(src) is not None)
            if analysis["corpus_pool"]:
                encoder = getattr(src, "encoder", None)
                analysis.update(source_cls=type(src), top_k=src.top_k, max_pool=src.max_pool,
                                masked_lm=getattr(src.mlm, "name", None),
                                score=getattr(src, "score", "masked_lm"),
                                encoder=getattr(encoder, "name", None))
        return {
            "device": e.device,
            "sut": e.sut.describe(),
            "parser": e.parser.describe() if e.parser else None,
            "transformations": [_component(t) for t in e.transformations],
            "filters": [_component(f) for f in e.filters],
            "relations": [_component(r) for r in e.relation_objects],
            "analysis": analysis,
        }

    def ping(self) -> bool:
        return True

    def judge(self, k: int, batch: list[Any]) -> tuple[int, list[Any], dict[str, Any]]:
        """Batch ``k`` up to its verdicts; kept here for :meth:`finish`. Returns the source
        predictions (the driver grows the candidate pool from them, in corpus order)."""
        before = self.engine.sut.stats()
        judged = self.engine.judge_batch(batch)
        self.judged[k] = (batch, judged.cases, judged.tally.counts,
                          judged.tally.per_transformation, judged.funnel)
        return k, judged.predictions, stats_delta(self.engine.sut.stats(), before)

    def finish(self, k: int, pool: tuple[dict[str, int], dict[str, list]] | None) -> tuple:
        """Violation analysis of batch ``k`` with the candidate pool ``pool`` as the local engine
        holds it after observing batches 0..k: (entity → count, in the order the entities entered
        it; entity → the contexts it was seen in). Returns everything the driver records."""
        e = self.engine
        batch, cases, counts, per_t, funnel = self.judged.pop(k)
        before = e.sut.stats()
        an = e.analyzer
        relabeler = getattr(an, "relabeler", None)
        src = _corpus_source(relabeler.source) if relabeler is not None else None
        if src is not None:
            entity_counts, contexts = pool or ({}, {})
            src.pool = Counter(entity_counts)
            if hasattr(src, "contexts"):
                src.contexts = {e: [tuple(c) for c in seen] for e, seen in contexts.items()}
        pending = getattr(an, "pending", None)
        if pending is not None:
            an.pending = pending = type(pending)()      # this batch's counts only
        cases = an.process(cases)
        return (k, cases, counts, per_t, funnel, pending,
                stats_delta(e.sut.stats(), before))


def _corpus_source(src: Any) -> Any:
    """The candidate source when it is one whose pool grows with the corpus (repair's ``corpus``
    candidates), else None."""
    return src if callable(getattr(src, "observe", None)) and hasattr(src, "pool") else None
