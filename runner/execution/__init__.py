"""Where a run's batches are processed: in this process (``execution.engine: local``, the
default) or on the actors of a Ray cluster (``engine: ray``, :mod:`runner.execution.ray_engine`).

Either way the process that runs ``mtrun`` reads the corpus, records each batch in
``cases.jsonl``/``progress.jsonl`` in corpus order and writes the reports, so ``--resume``, the
prediction cache and every output are the same.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from runner.errors import MtrunError


def apply_overrides(config: dict[str, Any], *, workers: int | None = None,
                    address: str | None = None) -> None:
    """``--workers N`` and ``--ray-address ADDR``: either one makes the run a Ray run."""
    ex = config.setdefault("execution", {})
    if workers is not None:
        ex["workers"] = workers
    if address is not None:
        ex["address"] = address
    if workers is not None or address is not None:
        ex["engine"] = "ray"


def make_engine(suite: Any, out_dir: str | Path, **kwargs: Any) -> Any:
    """The engine the suite's ``execution`` section asks for."""
    engine = (suite.config.get("execution") or {}).get("engine", "local")
    if engine == "local":
        from runner.engine import Engine

        return Engine(suite, Path(out_dir), **kwargs)
    if engine == "ray":
        if suite.config.get("attacks"):
            # The attack stage searches entity by entity with the system in the loop; the Ray
            # workers process the metamorphic part of a batch only.
            raise MtrunError("execution.engine ray does not run `attacks:` yet; run attack "
                             "suites with the local engine (no --workers)")
        from runner.execution.ray_engine import RayEngine

        return RayEngine(suite, Path(out_dir), **kwargs)
    raise MtrunError(f"execution.engine: expected local or ray, got {engine!r}")
