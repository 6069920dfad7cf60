"""Corpus readers: streamed (memory does not grow with the corpus), every problem located.

Formats: ``text`` (one sentence per line), ``jsonl`` (``{"text", "id"?, "entities"?: [{start, end,
label}]}`` per line) and ``conll`` (CoNLL-2003 columns: token first, BIO/IOB tag last, blank line
between sentences). CoNLL tokens are joined with single spaces except before closing punctuation
and after an opening bracket; gold spans follow the tokens exactly.

Hostile input is bounded: no line is read beyond ``max_line_bytes`` (by default 64 bytes per
character of ``limits.max_sentence_chars`` plus 64 KiB, room for any JSON escaping and entity
list), a JSON value may nest at most ``MAX_JSON_DEPTH`` levels, and a CoNLL sentence stops growing
at ``max_sentence_chars``. Control and invisible characters (NUL included) are kept in the text: the
system under test is asked about exactly what the corpus holds, and reports show those characters
as visible markers (runner/report/display.py). Lone UTF-16 surrogates from JSON escapes are refused:
they are not characters and no output file could hold them.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from runner.errors import SuiteError
from runner.tasks.jsonl import parse_json_line
from runner.tasks.lines import NO_SPACE_AFTER, NO_SPACE_BEFORE, LineCorpus
from runner.tasks.ner.types import Sentence, Span


class CorpusReader(LineCorpus):
    def __init__(self, path: Path, fmt: str, *, max_sentence_chars: int,
                 gold_label_map: Mapping[str, str | None] | None = None,
                 max_line_bytes: int | None = None) -> None:
        super().__init__(path, fmt, max_sentence_chars=max_sentence_chars,
                         max_line_bytes=max_line_bytes)
        self.gold_label_map = dict(gold_label_map or {})

    def _reader(self) -> Callable[[], Iterator[Any]]:
        """The generator of sources for :attr:`fmt`."""
        return {"text": self._text, "jsonl": self._jsonl, "conll": self._conll}[self.fmt]

    # -- formats ---------------------------------------------------------------------------
    def _text(self) -> Iterator[Sentence]:
        for lineno, line in self._lines():
            text = line.strip()
            if not text:
                continue
            self._check_length(text, lineno)
            yield Sentence(id=f"{self.path.stem}:{lineno}", text=text,
                           origin=f"{self.path.name}:{lineno}")

    def _jsonl(self) -> Iterator[Sentence]:
        for lineno, line in self._lines():
            if not line.strip():
                continue
            where = {"file": str(self.path), "line": lineno}
            obj = parse_json_line(line, where, '{"text": ..., "entities": [...]}')
            if not isinstance(obj, dict):
                raise SuiteError("each line must be a JSON object with a \"text\" key", **where)
            text = obj.get("text")
            if not isinstance(text, str) or not text.strip():
                raise SuiteError("\"text\" must be a non-empty string", **where)
            self._check_length(text, lineno)
            gold = None
            if "entities" in obj:
                gold = self._gold_from_json(obj["entities"], text, where)
            sid = obj.get("id", f"{self.path.stem}:{lineno}")
            yield Sentence(id=str(sid), text=text, gold=gold, origin=f"{self.path.name}:{lineno}")

    def _gold_from_json(self, items: object, text: str, where: dict) -> tuple[Span, ...]:
        if not isinstance(items, list):
            raise SuiteError("\"entities\" must be a list of {start, end, label}", **where)
        spans = []
        for k, item in enumerate(items):
            if not (isinstance(item, dict) and _is_int(item.get("start"))
                    and _is_int(item.get("end")) and isinstance(item.get("label"), str)):
                raise SuiteError(f"entities[{k}] must be {{\"start\": int, \"end\": int, "
                                 f"\"label\": str}}, got {json.dumps(item)[:80]}", **where)
            if item["start"] >= item["end"]:
                raise SuiteError(f"entities[{k}] offsets {item['start']}..{item['end']}: the start "
                                 "must be before the end (an entity has at least one character)",
                                 **where)
            if not 0 <= item["start"] < item["end"] <= len(text):
                raise SuiteError(f"entities[{k}] offsets {item['start']}..{item['end']} are outside "
                                 f"the text ({len(text)} characters)", **where)
            label = self._gold_label(item["label"])
            if label is not None:
                spans.append(Span(item["start"], item["end"], label, item["label"]))
        return tuple(sorted(spans))

    def _gold_label(self, label: str) -> str | None:
        return self.gold_label_map.get(label, label)

    def _conll(self) -> Iterator[Sentence]:
        tokens: list[tuple[str, str, int]] = []
        chars = 0  # the sentence's length so far: a file without blank lines must not pile up
        for lineno, line in self._lines():
            cols = line.split()
            if not cols:
                if tokens:
                    yield self._conll_sentence(tokens)
                    tokens, chars = [], 0
                continue
            if cols[0] == "-DOCSTART-":
                continue
            if len(cols) < 2:
                raise SuiteError(f"expected a token and its tag separated by spaces (CoNLL), got "
                                 f"{line.strip()[:60]!r}", file=str(self.path), line=lineno)
            tag = cols[-1]
            if not (tag == "O" or (len(tag) > 2 and tag[0] in "BIES" and tag[1] in "-_")):
                raise SuiteError(f"tag {tag!r} is not a BIO tag (O, B-TYPE, I-TYPE)",
                                 file=str(self.path), line=lineno)
            tokens.append((cols[0], tag, lineno))
            chars += len(cols[0]) + 1
            if chars > self.max_sentence_chars + 1:
                self._check_length(" " * chars, tokens[0][2])
        if tokens:
            yield self._conll_sentence(tokens)

    def _conll_sentence(self, tokens: list[tuple[str, str, int]]) -> Sentence:
        first_line = tokens[0][2]
        text, offsets = "", []
        for i, (tok, _, _) in enumerate(tokens):
            if i and tok not in NO_SPACE_BEFORE and tokens[i - 1][0] not in NO_SPACE_AFTER:
                text += " "
            offsets.append((len(text), len(text) + len(tok)))
            text += tok
        self._check_length(text, first_line)
        spans: list[Span] = []
        current: list = []  # [start, end, type]

        def close() -> None:
            if current:
                label = self._gold_label(current[2])
                if label is not None:
                    spans.append(Span(current[0], current[1], label, current[2]))
                current.clear()

        for (tok, tag, _), (start, end) in zip(tokens, offsets):
            if tag == "O":
                close()
                continue
            prefix, kind = tag[0], tag[2:]
            # IOB1 (original CoNLL-2003) and IOB2 alike: I- continues only the same type.
            if prefix in "BS" or not current or current[2] != kind:
                close()
                current.extend([start, end, kind])
            else:
                current[1] = end
            if prefix in "ES":
                close()
        close()
        return Sentence(id=f"{self.path.stem}:{first_line}", text=text, gold=tuple(spans),
                        origin=f"{self.path.name}:{first_line}")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


