"""Building a run's components: the system under test, the persistent prediction cache, and a
loader that builds the model-based components on a background thread while the run begins."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from runner.models.loading import resolve_device


class Loader:
    """Builds components on one background thread, in the order asked (so two components
    naming one model share it), while the engine goes on. :meth:`defer` returns a stand-in
    whose first use waits for the component; an error raised while building is raised there."""

    def __init__(self, background: bool = True) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self._pool = ThreadPoolExecutor(1, thread_name_prefix="mtrun-load") if background else None
        self._futures: list[Any] = []

    def defer(self, build: Callable[[], Any], known: dict[str, Any] | None = None) -> Any:
        """A stand-in for ``build()`` (without a background thread: ``build()`` itself).
        ``known``: attributes the stand-in answers without waiting (the component's class
        attributes, say), so that planning the first batch does not wait for a model."""
        if self._pool is None:
            return build()
        future = self._pool.submit(build)
        self._futures.append(future)
        return Deferred(future, known)

    def wait(self) -> None:
        """Every component built (the first error raised)."""
        for future in self._futures:
            future.result()
        if self._pool is not None:
            self._pool.shutdown(wait=False)


class Deferred:
    """Stands in for a component being built on a :class:`Loader`'s thread."""

    __slots__ = ("_future", "_known")

    def __init__(self, future: Any, known: dict[str, Any] | None = None) -> None:
        object.__setattr__(self, "_future", future)
        object.__setattr__(self, "_known", known or {})

    def __getattr__(self, name: str) -> Any:
        if name in self._known and not self._future.done():
            return self._known[name]
        return getattr(self._future.result(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._future.result(), name, value)


def build_sut(suite: Any, *, log: Callable[[str], None] = lambda msg: None) -> Any:
    """The suite's system under test, built from its task's registry (not yet connected to the
    persistent cache)."""
    cfg = suite.config
    sut_cfg = dict(cfg["sut"])
    sut_type = sut_cfg.pop("type")
    entry = suite.task.registries()["sut"].get(sut_type)
    if entry.extra.get("device"):
        sut_cfg["device"] = resolve_device(cfg["device"])
    if entry.extra.get("task"):
        sut_cfg.update(task=suite.task, base_dir=suite.base_dir)
    model = sut_cfg.get("model")
    if isinstance(model, str) and model and not Path(model).expanduser().is_absolute():
        # a model folder given relative to the suite file, as every other path of a suite is;
        # a name that is no folder there (a package, a hub name, a path from the working
        # folder) is passed on as written
        beside = suite.base_dir / model
        if beside.is_dir():
            sut_cfg["model"] = str(beside.resolve())
    log(f"loading system under test: {sut_type} {sut_cfg.get('model', '')}")
    return entry.factory(**sut_cfg)


def open_cache(cfg: dict[str, Any], sut: Any, *, enabled: bool = True) -> Any:
    """The persistent prediction cache the suite asks for (``cache.enabled``: ``auto`` = for
    remote, paid systems only), or None."""
    c = cfg.get("cache") or {}
    wanted = c.get("enabled", "auto")
    if wanted == "auto":
        wanted = bool(getattr(sut, "remote", False))
    if not enabled or not wanted:
        return None
    from runner.sut.cache import PersistentCache

    return PersistentCache(Path(c.get("path") or ".mtrun-cache/predictions.sqlite"))
