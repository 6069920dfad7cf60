"""Relation-extraction corpora: mtrun's own JSON lines and TACRED's JSON, every problem located.

``jsonl`` — one pair per line::

    {"id": "p1", "text": "Anna Keller married Tom Brandt in 2009.",
     "head": {"start": 0, "end": 11, "type": "PERSON"},
     "tail": {"start": 20, "end": 30, "type": "PERSON"},
     "relation": "per:spouse",
     "coref": {"head": [{"start": 40, "end": 43}]}}

``id``, ``relation`` (gold) and ``coref`` (mentions coreferent with the head / the tail, for
MR-R4) are optional; an argument may repeat its ``text``, which is then checked against the
offsets. Offsets are character offsets, end exclusive.

Offsets may be left out (:mod:`runner.text.inline`), for corpora written by hand:

- by text: ``"head": {"text": "Anna Keller", "type": "PERSON"}`` — the text must occur exactly
  once in the sentence as whole words (a coref mention likewise: ``{"text": "she"}`` or ``"she"``);
- inline: ``"text": "[E1 Anna Keller] married [E2 Tom Brandt] in 2009."`` with
  ``"head": {"type": "PERSON"}`` (or just ``"head": "PERSON"``) and the same for the tail; the
  markers are removed from the text the system sees, and any offsets on the line (``coref``)
  count in the text without them.

A text that is missing or occurs more than once is an error naming the file and line.

``tacred`` — a JSON list of TACRED items (``token``, ``subj_start``, ``subj_end``, ``obj_start``,
``obj_end`` as inclusive token indices, ``subj_type``, ``obj_type``, ``relation``, ``id``), the
format of TACRED, Re-TACRED and TACREV; a file with one such object per line reads too. Tokens
are joined with single spaces (so offsets follow the tokens exactly) and PTB bracket tokens are
turned back into brackets (``-LRB-`` → ``(``). The subject is the head, the object the tail.

A problem (bad JSON, a missing key, offsets outside the sentence, head and tail the same or
overlapping, an unknown entity type or relation) stops the run with the file and line (and the
item's index for TACRED) before any model loads.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from runner.errors import SuiteError
from runner.tasks.jsonl import parse_json_line
from runner.tasks.re.types import Argument, InvalidPair, RESource, validate_pair
from runner.text.inline import InlineError, locate_once, strip_markers

PTB_BRACKETS = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{",
                "-RCB-": "}"}
FORMATS = ("jsonl", "tacred")
EXTENSIONS = {".jsonl": "jsonl", ".json": "tacred"}
_TACRED_KEYS = ("token", "subj_start", "subj_end", "obj_start", "obj_end", "subj_type",
                "obj_type")


def format_for(path: str | Path, fmt: str = "auto") -> str:
    if fmt != "auto":
        return fmt
    return EXTENSIONS.get(Path(path).suffix.lower(), "jsonl")


class RECorpusReader:
    """Iterates :class:`RESource` in file order (pairs of one sentence stay next to each other,
    as MR-C1/C2 combine pairs of one batch)."""

    def __init__(self, path: str | Path, fmt: str = "auto", *, max_sentence_chars: int = 5000,
                 entity_types: Iterable[str] | None = None,
                 relations: Iterable[str] | None = None,
                 gold_label_map: Mapping[str, str] | None = None) -> None:
        self.path = Path(path)
        self.fmt = format_for(path, fmt)
        if self.fmt not in FORMATS:
            raise SuiteError(f"unknown RE corpus format {self.fmt!r} (one of "
                             f"{', '.join(FORMATS)})", file=str(self.path))
        self.max_sentence_chars = max_sentence_chars
        self.entity_types = tuple(entity_types) if entity_types is not None else None
        self.relations = set(relations) if relations is not None else None
        self.gold_label_map = dict(gold_label_map or {})

    def __iter__(self) -> Iterator[RESource]:
        from runner.tasks.ids import unique_ids

        count = 0
        for src in unique_ids(self._tacred() if self.fmt == "tacred" else self._jsonl(),
                              self.path):
            count += 1
            yield src
        if count == 0:
            raise SuiteError("the corpus has no pair (the file is empty or only blank lines)",
                             file=str(self.path))

    def count(self) -> int:
        """Read (and so validate) the whole corpus once without keeping it."""
        return sum(1 for _ in self)

    # -- reading ---------------------------------------------------------------------------
    def _read_text(self) -> str:
        try:
            raw = self.path.read_bytes()
        except OSError as exc:
            raise SuiteError(f"cannot read the corpus: {exc.strerror}",
                             file=str(self.path)) from None
        try:
            return raw.decode("utf-8").lstrip("\ufeff")
        except UnicodeDecodeError as exc:
            line = raw[:exc.start].count(b"\n") + 1
            raise SuiteError(f"not valid UTF-8 (byte 0x{raw[exc.start]:02x}); re-encode the "
                             f"corpus as UTF-8", file=str(self.path), line=line) from None

    def _jsonl(self) -> Iterator[RESource]:
        for lineno, line in enumerate(self._read_text().splitlines(), 1):
            if not line.strip():
                continue
            where = {"file": str(self.path), "line": lineno}
            obj = parse_json_line(line, where, '{"text": ..., "head": {...}, "tail": {...}}')
            if isinstance(obj, dict) and "token" in obj:
                yield self._tacred_item(obj, where, label=f"{self.path.stem}:{lineno}")
            else:
                yield self._jsonl_item(obj, where, lineno)

    def _jsonl_item(self, obj: Any, where: dict, lineno: int) -> RESource:
        if not isinstance(obj, dict):
            raise SuiteError('each line must be a JSON object with "text", "head" and "tail"',
                             **where)
        text = obj.get("text")
        if not isinstance(text, str) or not text.strip():
            raise SuiteError('"text" must be a non-empty string', **where)
        text, marked = self._strip_markers(text, where)
        self._check_length(text, where)
        head = self._argument(obj.get("head"), "head", text, where, marked.get("E1"))
        tail = self._argument(obj.get("tail"), "tail", text, where, marked.get("E2"))
        gold = self._gold(obj.get("relation"), where)
        coref = {}
        if obj.get("coref") is not None:
            c = obj["coref"]
            if not isinstance(c, dict) or set(c) - {"head", "tail"}:
                raise SuiteError('"coref" must be {"head": [mentions], "tail": [mentions]}',
                                 **where)
            for role, items in c.items():
                if not isinstance(items, list):
                    raise SuiteError(f'coref.{role} must be a list of mentions, each '
                                     '{"start", "end"} or a text that occurs once', **where)
                arg = head if role == "head" else tail
                items = [{"text": m} if isinstance(m, str) else m for m in items]
                coref[role] = tuple(self._argument({**m, "type": m.get("type", arg.type)}
                                                   if isinstance(m, dict) else m,
                                                   f"coref.{role}[{k}]", text, where)
                                    for k, m in enumerate(items))
        self._validate(text, head, tail, where)
        sid = obj.get("id", f"{self.path.stem}:{lineno}")
        return RESource(id=str(sid), text=text, head=head, tail=tail, gold=gold,
                        origin=f"{self.path.name}:{lineno}", coref=coref)

    @staticmethod
    def _strip_markers(text: str, where: dict) -> tuple[str, dict[str, tuple[int, int]]]:
        """The text without its ``[E1 …]`` / ``[E2 …]`` markers and where they stood (no
        marker: the text unchanged)."""
        if not _MARKER_START.search(text):
            return text, {}
        try:
            clean, spans = strip_markers(text)
        except InlineError as exc:
            raise SuiteError(f'"text": {exc}', **where) from None
        other = sorted(set(spans) - {"E1", "E2"})
        if other:
            raise SuiteError(f"marker(s) {', '.join(f'[{t} …]' for t in other)} in the text; "
                             "mark the head with [E1 …] and the tail with [E2 …]", **where)
        return clean, spans

    def _argument(self, item: Any, role: str, text: str, where: dict,
                  marked: tuple[int, int] | None = None) -> Argument:
        """One argument: marked inline (``marked``: where its marker stood), given by
        offsets, or given by a text that occurs once."""
        if marked is not None:
            return self._marked_argument(item, role, text, where, marked)
        if isinstance(item, str):
            marker = "E1" if role == "head" else "E2"
            raise SuiteError(f'"{role}": {item!r} is only an entity type, and the text has no '
                             f"[{marker} …] marker; mark the {role} in the text "
                             f'("[{marker} {_example(role)}]") or give {{"text": '
                             f'"{_example(role)}", "type": {json.dumps(item)}}}', **where)
        if (isinstance(item, dict) and "start" not in item and "end" not in item
                and isinstance(item.get("text"), str) and isinstance(item.get("type"), str)):
            try:
                start, end = locate_once(text, item["text"], role)
            except InlineError as exc:
                raise SuiteError(str(exc), **where) from None
            return Argument(start, end, item["type"])
        # a boolean is an int to Python, not an offset (NER and coreference refuse it too)
        if not (isinstance(item, dict) and _is_offset(item.get("start"))
                and _is_offset(item.get("end")) and isinstance(item.get("type"), str)):
            raise SuiteError(f'"{role}" must be {{"start": int, "end": int, "type": str}}, '
                             f'{{"text": str, "type": str}} (a text that occurs once) or be '
                             f'marked in the text ([E1 …] head, [E2 …] tail); got '
                             f"{json.dumps(item)[:80]}", **where)
        start, end = item["start"], item["end"]
        if start >= end:
            raise SuiteError(f"{role} offsets {start}..{end}: the start must be before the end",
                             **where)
        if not 0 <= start < end <= len(text):
            raise SuiteError(f"{role} offsets {start}..{end} are outside the text "
                             f"({len(text)} characters) or empty", **where)
        if isinstance(item.get("text"), str) and text[start:end] != item["text"]:
            raise SuiteError(f"{role} text {item['text']!r} does not match the sentence at "
                             f"{start}..{end} ({text[start:end]!r})", **where)
        return Argument(start, end, item["type"])

    def _marked_argument(self, item: Any, role: str, text: str, where: dict,
                         marked: tuple[int, int]) -> Argument:
        start, end = marked
        marker = "E1" if role == "head" else "E2"
        if isinstance(item, str) and item:
            return Argument(start, end, item)
        if not (isinstance(item, dict) and isinstance(item.get("type"), str) and item["type"]):
            raise SuiteError(f'the {role} is marked [{marker} …] in the text; "{role}" must give '
                             f'its type: "{role}": "PERSON" or {{"type": "PERSON"}}, got '
                             f"{json.dumps(item)[:80]}", **where)
        if "start" in item or "end" in item:
            raise SuiteError(f'the {role} is marked [{marker} …] in the text and "{role}" gives '
                             "offsets too; keep one of the two", **where)
        if isinstance(item.get("text"), str) and item["text"] != text[start:end]:
            raise SuiteError(f'"{role}" text {item["text"]!r} differs from the marked '
                             f"[{marker} {text[start:end]}]", **where)
        return Argument(start, end, item["type"])

    def _gold(self, label: Any, where: dict) -> str | None:
        if label is None:
            return None
        if not isinstance(label, str) or not label:
            raise SuiteError('"relation" must be a relation label (a string)', **where)
        label = self.gold_label_map.get(label, label)
        if self.relations is not None and label not in self.relations:
            from difflib import get_close_matches

            close = get_close_matches(label, sorted(self.relations), n=1)
            raise SuiteError(f"unknown relation {label!r}"
                             + (f" — did you mean {close[0]!r}?" if close else "")
                             + " (relation labels are listed in re_tables.relations)", **where)
        return label

    def _validate(self, text: str, head: Argument, tail: Argument, where: dict) -> None:
        try:
            validate_pair(text, head, tail, self.entity_types)
        except InvalidPair as exc:
            raise SuiteError(str(exc), **where) from None

    def _check_length(self, text: str, where: dict) -> None:
        if len(text) > self.max_sentence_chars:
            raise SuiteError(f"sentence of {len(text):,} characters; the limit is "
                             f"{self.max_sentence_chars:,} (limits.max_sentence_chars)", **where)

    # -- TACRED ----------------------------------------------------------------------------
    def _tacred(self) -> Iterator[RESource]:
        text = self._read_text()
        pos = _skip_ws(text, 0)
        if pos < len(text) and text[pos] != "[":
            # one TACRED object per line
            yield from self._jsonl()
            return
        from runner.tasks.jsonl import DuplicateKey, no_duplicate_keys

        decoder = json.JSONDecoder(object_pairs_hook=no_duplicate_keys)
        line, line_pos = 1, 0
        pos = _skip_ws(text, pos + 1)
        index = 0
        while pos < len(text) and text[pos] != "]":
            line += text.count("\n", line_pos, pos)
            line_pos = pos
            where = {"file": str(self.path), "line": line}
            try:
                obj, end = decoder.raw_decode(text, pos)
            except DuplicateKey as exc:
                raise SuiteError(f"item {index}: the key {exc.key!r} appears twice in one "
                                 "object; which value is meant is unclear", **where) from None
            except json.JSONDecodeError as exc:
                raise SuiteError(f"item {index}: invalid JSON: {exc.msg}",
                                 file=str(self.path), line=exc.lineno) from None
            yield self._tacred_item(obj, where, label=f"item {index}", index=index)
            index += 1
            pos = _skip_ws(text, end)
            if pos < len(text) and text[pos] == ",":
                pos = _skip_ws(text, pos + 1)
            elif pos < len(text) and text[pos] != "]":
                raise SuiteError(f"item {index}: expected ',' or ']' between items",
                                 file=str(self.path), line=line + text.count("\n", line_pos, pos))
        if pos >= len(text):
            raise SuiteError("the JSON list is not closed (missing ']')", file=str(self.path))

    def _tacred_item(self, obj: Any, where: dict, *, label: str,
                     index: int | None = None) -> RESource:
        prefix = f"item {index}: " if index is not None else ""
        if not isinstance(obj, dict):
            raise SuiteError(f"{prefix}each TACRED item must be a JSON object", **where)
        missing = [k for k in _TACRED_KEYS if k not in obj]
        if missing:
            raise SuiteError(f"{prefix}TACRED item without {', '.join(missing)} (expected "
                             f"{', '.join(_TACRED_KEYS)}, relation, id)", **where)
        tokens = obj["token"]
        if not (isinstance(tokens, list) and tokens and all(isinstance(t, str) for t in tokens)):
            raise SuiteError(f"{prefix}\"token\" must be a non-empty list of strings", **where)
        idx = {k: obj[k] for k in ("subj_start", "subj_end", "obj_start", "obj_end")}
        for k, v in idx.items():
            if not _is_offset(v) or not 0 <= v < len(tokens):
                raise SuiteError(f"{prefix}{k} = {v!r} is not a token index of a sentence of "
                                 f"{len(tokens)} tokens", **where)
        for a, b in (("subj_start", "subj_end"), ("obj_start", "obj_end")):
            if idx[a] > idx[b]:
                raise SuiteError(f"{prefix}{a} ({idx[a]}) is after {b} ({idx[b]})", **where)
        words = [PTB_BRACKETS.get(t, t) for t in tokens]
        starts, text = [], ""
        for k, w in enumerate(words):
            if k:
                text += " "
            starts.append(len(text))
            text += w
        self._check_length(text, where)

        def arg(start_tok: int, end_tok: int, typ: Any, role: str) -> Argument:
            if not isinstance(typ, str) or not typ:
                raise SuiteError(f"{prefix}{role}_type must be an entity type (a string)", **where)
            return Argument(starts[start_tok], starts[end_tok] + len(words[end_tok]), typ)

        head = arg(idx["subj_start"], idx["subj_end"], obj["subj_type"], "subj")
        tail = arg(idx["obj_start"], idx["obj_end"], obj["obj_type"], "obj")
        try:
            validate_pair(text, head, tail, self.entity_types)
        except InvalidPair as exc:
            raise SuiteError(f"{prefix}{exc} (the subject is the head, the object the tail)",
                             **where) from None
        gold = self._gold(obj.get("relation"), where)
        sid = str(obj.get("id") or f"{self.path.stem}:{label}")
        return RESource(id=sid, text=text, head=head, tail=tail, gold=gold,
                        origin=f"{self.path.name}:{where['line']}")


_MARKER_START = re.compile(r"\[E\d+[\s\]]")


def _example(role: str) -> str:
    return "Anna Keller" if role == "head" else "Tom Brandt"


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _is_offset(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
