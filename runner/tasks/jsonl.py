"""One JSON line of a corpus, parsed so that a hostile line is a clear error (file, line, what
was expected), never a traceback: nesting deeper than :data:`MAX_JSON_DEPTH` is refused before
parsing (the parser recurses once per level), an integer too long to read is invalid JSON, a key
that appears twice in one object is refused (which value is meant is unclear), and
an escape that gives a lone surrogate (not a character; it would break every UTF-8 output) is
refused. The NER, relation-extraction and coreference corpus readers share it."""
from __future__ import annotations

import json
from typing import Any

from runner.errors import SuiteError

MAX_JSON_DEPTH = 64


def parse_json_line(line: str, where: dict, shape: str) -> Any:
    """The value of one JSON line; ``where`` (file, line) goes into every error, ``shape`` (how a
    line looks, e.g. ``{"text": ..., "entities": [...]}``) into the nesting error."""
    _check_json_depth(line, where, shape)
    try:
        obj = json.loads(line, object_pairs_hook=no_duplicate_keys)
    except DuplicateKey as exc:
        raise SuiteError(f"the key {exc.key!r} appears twice in one object; which value is "
                         "meant is unclear", **where) from None
    except json.JSONDecodeError as exc:
        raise SuiteError(f"invalid JSON: {exc.msg} (column {exc.colno})", **where) from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer of 5,000 digits
        raise SuiteError(f"invalid JSON: {str(exc).split(';')[0]}", **where) from None
    if "\\u" in line.lower():
        _check_no_surrogates(obj, where)
    return obj


class DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused when a key appears twice (``json`` would keep the last silently)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key)
        out[key] = value
    return out


def _check_json_depth(line: str, where: dict, shape: str) -> None:
    """Refuse JSON nested deeper than MAX_JSON_DEPTH before parsing it. Only lines with that
    many brackets at all are scanned."""
    if line.count("[") + line.count("{") <= MAX_JSON_DEPTH:
        return
    depth, in_string, escaped = 0, False, False
    for col, ch in enumerate(line, 1):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise SuiteError(f"JSON nested more than {MAX_JSON_DEPTH} levels deep (column "
                                 f"{col}); a line is {shape}", **where)
        elif ch in "]}":
            depth -= 1


def _check_no_surrogates(value: object, where: dict) -> None:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise SuiteError(f"a JSON escape gives a lone surrogate (U+{ord(exc.object[exc.start]):04X}),"
                         " which is not a character; escape the character as a surrogate pair or "
                         "write it as UTF-8", **where) from None
