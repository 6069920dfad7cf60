"""A Python function as the system under test, for any task:
``sut: {type: python, callable: "pkg.module:predict", batch_size: N}``.

The function receives a batch — a list of the task's inputs in their documented JSON-like shape
(:meth:`runner.tasks.base.Task.input_to_json`; NER: the texts) — and returns one prediction per
input, in the task's documented shape (NER: a list of ``{start, end, label}`` per text). The
task's system base class does the rest (NER: the suite's label map), so an in-house model needs no
adapter class.

The module is imported from the suite's folder or the working directory (then the usual
``sys.path``). An exception raised by the function does not stop the run: the batch is split in
halves and asked again, so the input that raises is isolated, and its test cases become ``error``
cases carrying the exception's message. A return of the wrong length or shape (bad offsets, a
missing label) is an ``error`` for the inputs concerned, with the reason.
"""
from __future__ import annotations

import hashlib
import importlib
import inspect
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from runner.errors import ModelNotAvailable
from runner.params import CALLABLE_PATTERN, python_sut_params  # noqa: F401 (re-exported)
from runner.sut.base import SystemUnderTest

def load_callable(target: str, search: Sequence[Path] = ()) -> tuple[Callable[..., Any], Any]:
    """The function named ``module:attr`` and its module; ``search`` folders are tried before
    ``sys.path``. A missing module or function is a :class:`ModelNotAvailable` (exit 4)."""
    module_name, _, attr = target.partition(":")
    added = [str(p) for p in dict.fromkeys(Path(p).resolve() for p in search)
             if str(p) not in sys.path]
    sys.path[:0] = added
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            where = ", ".join(str(p) for p in search) or "sys.path"
            raise ModelNotAvailable(f"python system under test: no module {exc.name!r} (looked "
                                    f"in {where} and sys.path); callable is {target!r}") from None
        raise ModelNotAvailable(f"python system under test: importing {module_name!r} failed: "
                                f"{type(exc).__name__}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 — the user's module failed while importing
        raise ModelNotAvailable(f"python system under test: importing {module_name!r} failed: "
                                f"{type(exc).__name__}: {exc}") from None
    finally:
        for p in added:
            if p in sys.path:
                sys.path.remove(p)
    fn = getattr(module, attr, None)
    if fn is None:
        raise ModelNotAvailable(f"python system under test: module {module_name!r} has no "
                                f"{attr!r}")
    if not callable(fn):
        raise ModelNotAvailable(f"python system under test: {target!r} is not callable")
    return fn, module


class PythonSystem(SystemUnderTest):
    """The transport half of the python system; combined with the task's system base class (which
    converts an answer into the task's prediction) by :func:`build_python_system`."""

    name = "python"

    def __init__(self, *, callable: str, task: Any, base_dir: str | Path | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.task = task
        self.target = callable
        search = [Path(base_dir)] if base_dir is not None else []
        search.append(Path.cwd())
        self.fn, module = load_callable(callable, search)
        self.module_file = getattr(module, "__file__", None)

    def describe(self) -> dict[str, Any]:
        d: dict[str, Any] = {"callable": self.target}
        # The code's hash is part of the cache fingerprint: answers of an edited model are not
        # reused from the persistent cache.
        try:
            source = inspect.getsource(inspect.getmodule(self.fn) or self.fn)
            d["code_sha256"] = hashlib.sha256(source.encode()).hexdigest()[:16]
        except (OSError, TypeError):
            pass
        version = getattr(sys.modules.get(self.target.partition(":")[0]), "__version__", None)
        if isinstance(version, str):
            d["version"] = version
        return d

    def input_key(self, item: Any) -> str:
        return self.task.input_key(item)

    def _predict_raw(self, items: Sequence[Any]) -> list[Any]:
        from runner.sut.remote import SUTCallError

        batch = [self.task.input_to_json(x) for x in items]
        try:
            answers = self.fn(batch)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 — the system's own failure
            raise SUTCallError(f"{self.target} raised {type(exc).__name__}: {exc}") from None
        try:
            answers = list(answers)
        except TypeError:
            raise SUTCallError(f"{self.target} returned {type(answers).__name__}, expected a list "
                               f"with one prediction per input") from None
        if len(answers) != len(items):
            raise SUTCallError(f"{self.target} returned {len(answers)} prediction(s) for "
                               f"{len(items)} input(s)")
        out: list[Any] = []
        for item, answer in zip(items, answers):
            try:
                out.append(self.task.prediction_from_json(answer, item))
            except ValueError as exc:
                out.append(SUTCallError(f"{self.target} returned a bad prediction: {exc}"))
        return out


def build_python_system(*, task: Any, **params: Any) -> SystemUnderTest:
    """A python system for ``task``: :class:`PythonSystem` on top of the task's system base."""
    base = task.system_base()
    cls = type(f"Python{base.__name__}", (PythonSystem, base), {"name": "python"})
    return cls(task=task, **params)
