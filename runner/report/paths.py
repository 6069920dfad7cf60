"""The output folder of a run, a report or a diff, made (or checked) before anything is written: a
path that cannot be a folder is a usage error (exit 4) that says why, never a traceback."""
from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from runner.errors import MtrunError


def make_output_dir(path: str | Path, *, what: str = "output folder") -> Path:
    """``path`` as an existing, writable folder (made with its parents when missing)."""
    path = Path(path)
    shown = str(path)
    try:
        if path.exists() and not path.is_dir():
            raise MtrunError(f"{what} {shown}: a file is there, not a folder; name a folder "
                             "(it is made when missing)")
        for parent in path.parents:
            if parent.exists():
                if not parent.is_dir():
                    raise MtrunError(f"{what} {shown}: {parent} is a file, not a folder")
                break
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:   # a name too long, a path through a file, no permission
        raise MtrunError(f"{what} {shown}: cannot be made: {_why(exc)}") from None
    # a folder we may not write into (read-only mount, another user's folder)
    try:
        with tempfile.NamedTemporaryFile(dir=path, prefix=".mtrun-write-check-"):
            pass
    except OSError as exc:
        raise MtrunError(f"{what} {shown}: cannot write into it: {_why(exc)}") from None
    return path


def _why(exc: OSError) -> str:
    reasons = {errno.EACCES: "permission denied", errno.EPERM: "permission denied",
               errno.EROFS: "read-only file system", errno.ENAMETOOLONG: "name too long",
               errno.ENOTDIR: "a part of the path is a file, not a folder",
               errno.ENOSPC: "no space left on the device", errno.EEXIST: "a file is there"}
    return reasons.get(exc.errno or 0, exc.strerror or os.strerror(exc.errno or 0) or str(exc))
