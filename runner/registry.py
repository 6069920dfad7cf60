"""Name → component registries. Each entry carries the JSON Schema of its parameters, so the suite
schema is generated from the same source the code builds from (they cannot drift apart), and a
description for ``mtrun list`` and the README.

Components live in modules that import nothing heavy at import time; registration happens in
:mod:`runner.tasks.ner.catalog` (one place, no import cycles).
"""
from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

from runner.errors import SuiteError


def lazy(target: str) -> Callable[..., Any]:
    """A factory that imports ``module:attr`` on first use (listing components or validating a
    suite loads no model library)."""
    module, _, attr = target.partition(":")

    def factory(**kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), attr)(**kwargs)

    factory.__qualname__ = target
    factory.target = target      # type: ignore[attr-defined]  (see Entry.component_class)
    return factory


@dataclass(frozen=True)
class Entry:
    name: str
    factory: Callable[..., Any]
    params: dict[str, dict[str, Any]]          # parameter name → JSON Schema (with "default")
    description: str
    required: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. which relation a transformation uses

    def component_class(self) -> Any:
        """The class a :func:`lazy` factory builds (its module imported, nothing built), or
        None for another factory."""
        target = getattr(self.factory, "target", None)
        if target is None:
            return None
        module, _, attr = target.partition(":")
        return getattr(importlib.import_module(module), attr)

    def defaults(self) -> dict[str, Any]:
        return {k: v["default"] for k, v in self.params.items() if "default" in v}


class Registry:
    def __init__(self, kind: str):
        self.kind = kind
        self._entries: dict[str, Entry] = {}

    def add(self, name: str, factory: Callable[..., Any], *, params: dict[str, dict[str, Any]],
            description: str, required: tuple[str, ...] = (), **extra: Any) -> None:
        if name in self._entries:
            raise ValueError(f"{self.kind} {name!r} registered twice")
        self._entries[name] = Entry(name, factory, params, description, required, extra)

    def names(self) -> list[str]:
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def entries(self) -> list[Entry]:
        return [self._entries[n] for n in self.names()]

    def get(self, name: str, **where: Any) -> Entry:
        try:
            return self._entries[name]
        except KeyError:
            close = difflib.get_close_matches(str(name), self.names(), n=1)
            hint = f"did you mean {close[0]!r}?" if close else None
            raise SuiteError(f"unknown {self.kind} type {name!r}; available: {', '.join(self.names())}",
                             hint=hint, **where) from None
