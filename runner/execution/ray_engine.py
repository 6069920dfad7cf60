"""``execution.engine: ray``: the suite's batches processed by Ray actors, recorded by the driver.

The driver (the ``mtrun`` process) reads the corpus, hands whole batches to the workers and
records their cases in corpus order through :meth:`Engine.run`'s own loop, so ``cases.jsonl``,
``progress.jsonl``, ``--resume`` and the reports are the local engine's. It loads no model: what it
reports about the components comes from the first worker.

Determinism. Follow-ups, filters and verdicts depend on the batch alone (per-case random
generators; a batch is the same sources whoever runs it), so workers run them in any order
(:meth:`BatchWorker.judge`). The violation analysis carries state from batch to batch: the corpus
candidate pool of repair grows with the entities of every source seen so far, batch k's own
included. The driver owns that state: it takes each batch's source predictions, grows the pool in
corpus order whatever order the workers answer in, and sends batch k's analysis
(:meth:`BatchWorker.finish`) the pool as it stood after batch k (its entity counts and, for the
``contexts`` score, the sentences each entity was seen in). Batch k therefore sees exactly the pool
the local engine would give it.

Failures. A worker that dies (its process or node lost, ``ray.kill``) takes its unfinished
batches with it; they are run again on a new worker. Nothing is recorded before its batch's
turn in corpus order, and each batch is recorded once. A worker that dies while it builds its
models is replaced the same way (its constructor failing is an installation problem: exit 4).
No wait is silent: a cluster left without a live node that can hold a worker, or a worker that
does not start in time, ends the run with a clear error (runner/execution/liveness.py).
"""
from __future__ import annotations

import os
import signal
import time
from collections import Counter, defaultdict, deque
from types import SimpleNamespace
from typing import Any, Iterator

from runner.engine import Engine
from runner.steps import Decided, Tally
from runner.errors import ModelNotAvailable, MtrunError
from runner.execution.liveness import POLL_S, ClusterLost, Watch, capacity, start_timeout
from runner.execution.worker import (BatchWorker, Gateway, _ray_get, add_stats, forwarded_env,
                                     sut_is_remote, unwrap)

# Batches a worker holds at once (one being processed, one queued), and how many more than the
# workers' share may wait to be recorded behind a slow batch.
PER_WORKER = 2
# A run stops (exit 3) when workers keep dying: a model that crashes its process every time
# would otherwise be retried forever.
MAX_WORKER_DEATHS = 3


class Described:
    """A component the driver did not build: its name and what the worker said about it."""

    def __init__(self, info: dict[str, Any]) -> None:
        self.name = info["name"]
        self._describe = info["describe"]
        self._models = info.get("models", [])

    def describe(self) -> dict[str, Any]:
        return self._describe

    def models(self) -> list[dict[str, Any]]:
        return self._models


class ClusterSUT:
    """The system under test as the driver reports it: its description, and the counts the
    workers' calls added up to."""

    def __init__(self, describe: dict[str, Any], remote: bool) -> None:
        self._describe = describe
        self.remote = remote
        self.dropped_labels: Counter[str] = Counter()
        self._stats: dict[str, Any] = {}

    def describe(self) -> dict[str, Any]:
        return self._describe

    def add(self, delta: dict[str, Any]) -> None:
        delta = dict(delta)
        self.dropped_labels.update(delta.pop("dropped_labels", {}) or {})
        add_stats(self._stats, delta)

    def stats(self) -> dict[str, Any]:
        out: dict[str, Any] = {"calls": 0, "texts_sent": 0,
                               "cache": {"hits": 0, "misses": 0, "entries": 0}}
        add_stats(out, self._stats)
        out["dropped_labels"] = dict(self.dropped_labels.most_common())
        return out


class _Model:
    def __init__(self, name: str) -> None:
        self.name = name


class RayEngine(Engine):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        ex = self.cfg.get("execution") or {}
        self.n_workers = int(ex.get("workers", 2))
        self.address = ex.get("address")
        self.cpus_per_worker = float(ex.get("cpus_per_worker", 1))
        self.gpus_per_worker = float(ex.get("gpus_per_worker", 0))
        self.workers: list[Any] = []        # actor handles; None where one died
        self.gateway = None
        self.worker_deaths = 0
        self._started_ray = False
        self._pool: Any = None              # repair's corpus candidate pool, kept by the driver
        self._rate: deque[tuple[float, int]] = deque()

    # -- building --------------------------------------------------------------------------
    def build(self) -> None:
        try:
            import ray
        except ImportError:
            raise ModelNotAvailable("execution.engine ray needs Ray: pip install -e \".[ray]\" "
                                    "(on the driver and on every node of the cluster)") from None
        self._connect(ray)
        self.remote_sut = sut_is_remote(self.suite)
        cache = self.cfg.get("cache") or {}
        wanted = cache.get("enabled", "auto")
        cache_wanted = self.use_cache and (self.remote_sut if wanted == "auto" else bool(wanted))
        if self.remote_sut or cache_wanted:
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            here = ray.get_runtime_context().get_node_id()
            # One call at a time: the remote system's own thread pool is then the cluster's.
            self.gateway = ray.remote(Gateway).options(
                num_cpus=0, max_concurrency=1,
                scheduling_strategy=NodeAffinitySchedulingStrategy(here, soft=False),
            ).remote(self.suite, self.use_cache, self.remote_sut,
                     forwarded_env(self.cfg["sut"]) if self.remote_sut else {})
        self.log(f"starting {self.n_workers} Ray worker(s): {self.cpus_per_worker:g} CPU, "
                 f"{self.gpus_per_worker:g} GPU each")
        self.workers = [self._spawn() for _ in range(self.n_workers)]
        infos = [self._start(slot) for slot in range(self.n_workers)]
        self._adopt(infos[0])

    def _start(self, slot: int) -> dict[str, Any]:
        """The worker in ``slot`` built; one that dies while building (killed, its node lost) is
        replaced, as a worker that dies later is."""
        while True:
            info = self._build_worker(self.workers[slot])
            if info is not None:
                return info
            self._count_death("while starting")
            self.workers[slot] = self._spawn()

    def _count_death(self, when: str) -> None:
        self.worker_deaths += 1
        if self.worker_deaths > MAX_WORKER_DEATHS * self.n_workers:
            raise ClusterLost(f"execution: {self.worker_deaths} Ray workers died; the last "
                              "batches could not be processed (see the Ray logs, "
                              "/tmp/ray/session_latest/logs)")
        self.log(f"a Ray worker died {when}; a new worker takes its place")

    def _connect(self, ray: Any) -> None:
        if ray.is_initialized():
            return              # a Ray the caller started (a test, a notebook): used as it is
        # Ray installs its own handlers; the command line's (stop after the batch) must stay.
        handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            if self.address:
                self.log(f"connecting to the Ray cluster at {self.address}")
                ray.init(address=self.address, log_to_driver=False)
            else:
                need = self.n_workers * self.cpus_per_worker
                self.log("starting a local Ray")
                ray.init(num_cpus=max(os.cpu_count() or 1, int(need + 0.999)),
                         include_dashboard=False, log_to_driver=False,
                         object_store_memory=256 * 1024 * 1024)
                self._started_ray = True
        except (ConnectionError, ValueError, RuntimeError) as exc:
            raise MtrunError(f"execution: cannot start or reach Ray at "
                             f"{self.address or 'a new local instance'}: {exc}") from None
        finally:
            for s, h in handlers.items():
                signal.signal(s, h)
        have = ray.cluster_resources()
        short = [f"{self.n_workers * n:g} {r} (the cluster has {have.get(r, 0):g})"
                 for r, n in (("CPU", self.cpus_per_worker), ("GPU", self.gpus_per_worker))
                 if n and self.n_workers * n > have.get(r, 0) + 1e-9]
        if short:
            self._shutdown()
            raise MtrunError(f"execution: {self.n_workers} worker(s) need {', '.join(short)}; "
                             "lower execution.workers, cpus_per_worker or gpus_per_worker")

    def _spawn(self) -> Any:
        import ray

        suite = self.suite
        if not self.gpus_per_worker and self.cfg["device"] == "auto":
            # A worker that Ray gave no GPU stays off the node's GPUs (`auto` would take one).
            import copy
            import dataclasses

            suite = dataclasses.replace(suite, config=copy.deepcopy(suite.config))
            suite.config["device"] = "cpu"
        return ray.remote(BatchWorker).options(
            num_cpus=self.cpus_per_worker, num_gpus=self.gpus_per_worker, max_restarts=0,
            max_concurrency=1,
        ).remote(suite, self.use_cache, self.gateway, self.remote_sut)

    def _build_worker(self, worker: Any) -> dict[str, Any] | None:
        """What the worker reports once built; None when it died while building (killed, its node
        lost: it is replaced). Its constructor failing (mtrun or an extra missing on the node) is
        an installation error; no live node to hold it, or no start in time, ends the run."""
        import ray

        ref = worker.build.remote()
        started = time.monotonic()
        limit = start_timeout()
        watch = Watch(ray, self.cpus_per_worker, self.gpus_per_worker, time.monotonic)
        while True:
            ready, _ = ray.wait([ref], num_returns=1, timeout=POLL_S)
            if ready:
                break
            if self.stop_requested:
                raise KeyboardInterrupt
            watch.check("a worker starts")
            if time.monotonic() - started > limit:
                ray.kill(worker)
                raise ClusterLost(f"execution: a Ray worker did not start within {limit:g} s "
                                  "(MTRUN_RAY_WORKER_START_S): the cluster cannot place it or "
                                  "its models do not load; see the Ray logs, "
                                  "/tmp/ray/session_latest/logs")
        try:
            return _ray_get(ref)
        except ray.exceptions.RayActorError as exc:
            if not getattr(exc, "actor_init_failed", False):
                return None
            detail = str(unwrap(exc)).strip().splitlines()
            raise MtrunError("execution: a Ray worker could not start; mtrun and the suite's "
                             "extras must be installed, in the same version, on every node "
                             f"({detail[-1] if detail else type(exc).__name__})") from None

    def _adopt(self, info: dict[str, Any]) -> None:
        """The driver's view of the components, from a worker's description."""
        self.device = info["device"]
        self.sut = ClusterSUT(info["sut"], self.remote_sut)
        self.parser = SimpleNamespace(describe=lambda: info["parser"]) if info["parser"] else None
        self.transformations = [Described(t) for t in info["transformations"]]
        self.filters = [Described(f) for f in info["filters"]]
        self.relation_objects = [Described(r) for r in info["relations"]]
        self.relations = defaultdict(list)
        for rel, rc in zip(self.relation_objects, self.cfg["relations"]):
            for t in rc["applies_to"]:
                self.relations[t].append(rel)
        a = info["analysis"]
        self._pool = None
        if not a["enabled"]:
            self.analyzer = a["cls"]()
            return
        if a["corpus_pool"]:
            source: Any = a["source_cls"](
                _Model(a["masked_lm"]) if a["masked_lm"] else None, a["top_k"], a["max_pool"],
                score=a["score"], encoder=_Model(a["encoder"]) if a["encoder"] else None)
            self._pool = source
        else:
            source = SimpleNamespace(describe=lambda: a["source"])
        self.analyzer = a["cls"](SimpleNamespace(source=source, describe=source.describe),
                                 a["backend"], a["params"])

    # -- running ---------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        try:
            return super().run()
        finally:
            self._shutdown()

    def progress_detail(self) -> str:
        alive = sum(w is not None for w in self.workers)
        # the rate over the batches recorded in the last 30 s or so
        while len(self._rate) > 2 and self._rate[-1][0] - self._rate[1][0] >= 30:
            self._rate.popleft()
        rate = ""
        if len(self._rate) > 1:
            (t0, n0), (t1, n1) = self._rate[0], self._rate[-1]
            rate = f", {(n1 - n0) / max(t1 - t0, 1e-9):.1f} sources/s over the last {t1 - t0:.0f}s"
        deaths = f", {self.worker_deaths} restarted" if self.worker_deaths else ""
        return f"ray: {alive} worker(s){deaths}{rate}"

    def _execute(self, batches: Iterator[list[Any]]) -> Iterator[Decided]:
        import ray

        pool = self._pool
        todo = iter(batches)
        exhausted = False
        batch_of: dict[int, list[Any]] = {}     # read, not yet recorded
        owner: dict[int, int] = {}              # batch → worker slot
        refs: dict[Any, tuple[str, int, int]] = {}   # in flight: (step, batch, slot)
        judged: set[int] = set()
        # the pool (entity counts, contexts) once batch k is observed: what its finish step gets
        pool_state: dict[int, tuple[dict[str, int], dict[str, list]] | None] = {}
        preds: dict[int, list[Any]] = {}        # source predictions not yet in the pool
        added: dict[int, list[str]] = {}        # entities batch k added to the pool
        observed = -1                           # batches 0..observed are in the pool
        done: dict[int, tuple] = {}
        # What each batch's calls added to the system's counts, counted when it is recorded (so
        # a batch's progress line holds what the local engine's would).
        deltas: dict[int, list[dict[str, Any]]] = {}
        next_read = next_record = 0
        self._rate.append((time.time(), self.sources_done))
        watch = Watch(ray, self.cpus_per_worker, self.gpus_per_worker, time.monotonic)

        def load(slot: int) -> int:
            return sum(1 for k, s in owner.items() if s == slot and k not in done)

        def submit_judge(k: int) -> None:
            slots = [i for i, w in enumerate(self.workers) if w is not None]
            slot = min(slots, key=lambda i: (load(i), i))
            owner[k] = slot
            refs[self.workers[slot].judge.remote(k, batch_of[k])] = ("judge", k, slot)

        def submit_finish(k: int) -> None:
            slot = owner[k]
            refs[self.workers[slot].finish.remote(k, pool_state[k])] = ("finish", k, slot)

        def lost(slot: int) -> None:
            """A worker died: its batches go to a new worker."""
            self._count_death("(its batches run again on the new one)")
            for ref, (_, _, s) in list(refs.items()):
                if s == slot:
                    del refs[ref]
            self.workers[slot] = self._spawn()
            self._start(slot)
            replacement = self.workers[slot]
            for k in sorted(k for k, s in owner.items() if s == slot and k not in done):
                judged.discard(k)
                for delta in deltas.pop(k, []):    # calls made for nothing, counted all the same
                    self.sut.add(delta)
                refs[replacement.judge.remote(k, batch_of[k])] = ("judge", k, slot)

        while True:
            # Keep every worker busy, without reading far ahead of what is recorded.
            while (not exhausted and not self.stop_requested
                   and next_read - next_record < (PER_WORKER + 1) * self.n_workers
                   and any(load(i) < PER_WORKER for i, w in enumerate(self.workers)
                           if w is not None)):
                batch = next(todo, None)
                if batch is None:
                    exhausted = True
                    break
                batch_of[next_read] = batch
                submit_judge(next_read)
                next_read += 1
            if next_record in done:
                k = next_record
                (cases, counts, per_t, funnel, stats) = done.pop(k)
                # the analyzer's state as the local engine leaves it before the checkpoint
                if stats is not None:
                    self.analyzer.pending = stats
                if hasattr(self.analyzer, "_pool_added"):
                    self.analyzer._pool_added = added.pop(k, [])
                for delta in deltas.pop(k, []):
                    self.sut.add(delta)
                batch = batch_of.pop(k)
                owner.pop(k)
                pool_state.pop(k, None)
                next_record += 1
                yield Decided(batch, cases, Tally(counts, per_t), funnel, {})
                self._rate.append((time.time(), self.sources_done))
                continue
            if not refs:
                if exhausted or self.stop_requested:
                    return
                raise RuntimeError("ray engine: nothing in flight and nothing to record")
            ready, _ = ray.wait(list(refs), num_returns=1, timeout=POLL_S)
            if not ready:
                # no answer yet: a batch is slow, or the cluster lost the nodes of its workers
                watch.check("batches are in flight")
                continue
            step, k, slot = refs.pop(ready[0])
            try:
                result = _ray_get(ready[0])
            except (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError):
                if self.workers[slot] is not None:
                    self.workers[slot] = None
                    lost(slot)
                continue
            except ray.exceptions.RayTaskError as exc:
                raise unwrap(exc) if isinstance(unwrap(exc), MtrunError) else exc
            if step == "judge":
                _, predictions, delta = result
                deltas.setdefault(k, []).append(delta)
                judged.add(k)
                if k > observed:
                    preds[k] = predictions
                # The pool grows in corpus order, whatever order the workers answer in.
                while observed + 1 in preds:
                    j = observed + 1
                    self.analyzer.observe(batch_of[j], preds.pop(j))
                    if hasattr(self.analyzer, "_pool_added"):
                        added[j], self.analyzer._pool_added = self.analyzer._pool_added, []
                    pool_state[j] = None if pool is None else (
                        dict(pool.pool),
                        {e: list(seen) for e, seen in getattr(pool, "contexts", {}).items()})
                    observed = j
                for j in sorted(j for j in judged if j <= observed):
                    submit_finish(j)
                    judged.discard(j)
            else:
                _, cases, counts, per_t, funnel, stats, delta = result
                deltas.setdefault(k, []).append(delta)
                done[k] = (cases, counts, per_t, funnel, stats)

    def _shutdown(self) -> None:
        try:
            import ray
        except ImportError:
            return
        if not ray.is_initialized():
            return
        for w in self.workers:
            if w is not None:
                ray.kill(w)
        self.workers = [None] * len(self.workers)
        if self.gateway is not None:
            try:
                if capacity(ray, 0, 0):     # no live node: nothing to close, no wait
                    ray.get(self.gateway.close.remote(), timeout=30)
            except Exception:  # noqa: BLE001 — closing the cache file is best effort
                pass
            ray.kill(self.gateway)
            self.gateway = None
        if self._started_ray:
            ray.shutdown()
            self._started_ray = False
