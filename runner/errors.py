"""Exit codes and the exceptions that map to them, in one place (pytest's ExitCode is the model)."""
from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    OK = 0                   # every threshold kept, or the suite sets none
    VIOLATIONS = 1           # violation rates above the thresholds
    INTERRUPTED = 2          # Ctrl-C or SIGTERM
    INTERNAL_ERROR = 3       # a bug in mtrun or an unexpected failure of a library
    USAGE_ERROR = 4          # bad command line, bad suite, bad corpus, missing model
    NOTHING_TO_TEST = 5      # the run made no test case
    SYSTEM_ERRORS = 6        # the system under test could not answer (report.fail_on error limits)


class MtrunError(Exception):
    """An error the user can act on. ``str()`` is the whole message, ready to print."""

    exit_code = ExitCode.USAGE_ERROR


class SuiteError(MtrunError):
    """A suite, corpus or configuration problem, located as precisely as we can."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 column: int | None = None, key: str | None = None, hint: str | None = None):
        self.file, self.line, self.column, self.key, self.hint = file, line, column, key, hint
        self.bare = message
        where = ""
        if file:
            where = str(file)
            if line is not None:
                where += f":{line}"
                if column is not None:
                    where += f":{column}"
            where += ": "
        text = where + (f"{key}: " if key else "") + message
        if hint:
            text += f"\n  hint: {hint}"
        super().__init__(text)


class ModelNotAvailable(MtrunError):
    """A model or pipeline cannot be loaded here (not installed, no hub access)."""


class NothingToTest(MtrunError):
    exit_code = ExitCode.NOTHING_TO_TEST
