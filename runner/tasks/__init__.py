"""The tasks mtrun tests, by the name a suite gives in ``task:``. Each is a package under
``runner/tasks/`` implementing :class:`runner.tasks.base.Task`; it is imported the first time a
suite (or ``mtrun list``/``schema``) asks for it, so validating a NER suite imports no other task.
"""
from __future__ import annotations

import difflib
import importlib
from typing import TYPE_CHECKING, Any

from runner.errors import SuiteError

if TYPE_CHECKING:
    from runner.tasks.base import Task

#: task name → "module:class" of its Task
TASKS: dict[str, str] = {
    "ner": "runner.tasks.ner.task:NERTask",
    "coref": "runner.tasks.coref.task:CorefTask",
    "re": "runner.tasks.re.task:RETask",
}
DEFAULT_TASK = "ner"
_LOADED: dict[str, "Task"] = {}


def task_names() -> list[str]:
    return sorted(TASKS)


def get_task(name: Any, **where: Any) -> "Task":
    """The task called ``name``; an unknown name is a :class:`SuiteError` with did-you-mean
    (``where``: file/line/column/key for the message)."""
    if name not in TASKS:
        close = difflib.get_close_matches(str(name), task_names(), n=1)
        raise SuiteError(f"unknown task {name!r}; available: {', '.join(task_names())}",
                         hint=f"did you mean {close[0]!r}?" if close else None, **where)
    if name not in _LOADED:
        module, _, attr = TASKS[name].partition(":")
        _LOADED[name] = getattr(importlib.import_module(module), attr)()
    return _LOADED[name]


def all_tasks() -> list["Task"]:
    return [get_task(n) for n in task_names()]


def task_of_results(results: dict[str, Any]) -> "Task":
    """The task of a saved run (results.json before the ``task`` key was written: NER)."""
    return get_task(results.get("task", DEFAULT_TASK))
