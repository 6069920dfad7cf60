"""Source ids are unique within a corpus, for every task: a case id, a triage mark, a row of the
report and ``--resume`` all name a source by its id, and two sources of one id would be confused
in each of them."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator, TypeVar

from runner.errors import SuiteError

T = TypeVar("T")


def unique_ids(sources: Iterable[T], path: Path) -> Iterator[T]:
    """``sources`` as they come; a source whose id an earlier one had is an error that names the
    file and line of both (``origin`` is ``<file name>:<line>``)."""
    first: dict[str, str] = {}
    for source in sources:
        sid = str(getattr(source, "id"))
        origin = str(getattr(source, "origin", "") or "")
        if sid in first:
            raise SuiteError(f"id {sid!r} is used again; it was first used at "
                             f"{path.parent / first[sid] if first[sid] else path}; ids must be "
                             "unique within a corpus", file=str(path), line=_line(origin))
        first[sid] = origin
        yield source


def _line(origin: str) -> int | None:
    tail = origin.rpartition(":")[2]
    return int(tail) if tail.isdigit() else None
