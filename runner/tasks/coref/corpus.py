"""Coreference corpus readers: streamed, every problem located (file, line, what was expected).

``jsonl``: one document per line, ``{"text": str, "id"?: str, "clusters"?: [[mention, ...], ...],
"year"?: int}`` (``year``: when the text is set, 1000–2099; ``name_swap`` picks names of then)
with each mention ``[start, end]`` or ``{"start": s, "end": e}`` (character offsets into
``text``, end exclusive) or the mention's text, when it occurs exactly once in the document as
whole words (``[["Maria Lopez", "she"]]``; :func:`runner.text.inline.locate_once`); the kinds may
be mixed. Clusters of one mention are ignored (systems do not report singletons).

``text``: plain text, one document per line (a document may hold several sentences; blank lines
are skipped), no gold clusters — CREST needs none: the system's own clusters on the source are
the oracle for its follow-ups.

``conll2012``: the CoNLL-2011/2012 shared-task format (``#begin document (name); part 000`` …
``#end document``; the word in the fourth column, coreference brackets ``(3``, ``3)``, ``(3)`` in
the last). Words are joined with single spaces except before closing punctuation, as every
tokenised corpus is (:mod:`runner.tasks.lines`). ``unit: document`` makes one document per part;
``unit: sentence`` one per sentence with only the clusters that have two mentions inside it
(CREST tested sentences this way).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, Iterator

from runner.errors import SuiteError
from runner.tasks.jsonl import parse_json_line
from runner.tasks.lines import NO_SPACE_AFTER, NO_SPACE_BEFORE, LineCorpus
from runner.text.inline import InlineError, locate_once
from runner.tasks.coref.types import (CorefDocument, CorefInputError, Mention, normalise_clusters,
                                      CorefPrediction, prediction_from_json)

FORMATS = ("auto", "jsonl", "text", "conll2012")
_COREF_PART = re.compile(r"\(\d+\)|\(\d+|\d+\)")


def detect_format(path: Path, fmt: str) -> str:
    if fmt != "auto":
        return fmt
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json"):
        return "jsonl"
    if suffix in (".txt", ".text"):
        return "text"
    if suffix in (".conll", ".gold_conll", ".v4_gold_conll", ".conll2012"):
        return "conll2012"
    raise SuiteError(f"cannot tell the corpus format from the extension {suffix!r}; set "
                     f"corpus.format to one of: jsonl, text, conll2012", file=str(path))


class CorefCorpusReader(LineCorpus):
    """Documents of a coreference corpus, on the line reading every task shares (UTF-8 check,
    byte-order mark, bounded lines) and its length limit."""

    def __init__(self, path: Path, fmt: str = "auto", *, max_sentence_chars: int = 5000,
                 unit: str = "document") -> None:
        path = Path(path)
        super().__init__(path, detect_format(path, fmt), max_sentence_chars=max_sentence_chars)
        if unit not in ("document", "sentence"):
            raise ValueError(f"unit must be 'document' or 'sentence', got {unit!r}")
        self.unit = unit

    item = "document"

    def _reader(self) -> Callable[[], Iterator[CorefDocument]]:
        reader = {"jsonl": self._coref_jsonl, "text": self._coref_text,
                  "conll2012": self._conll2012}.get(self.fmt)
        if reader is None:
            raise SuiteError(f"unknown coreference corpus format {self.fmt!r}; expected one of: "
                             f"{', '.join(FORMATS)}", file=str(self.path))
        return reader

    # -- plain text ------------------------------------------------------------------------
    def _coref_text(self) -> Iterator[CorefDocument]:
        for lineno, line in self._lines():
            text = line.strip()
            if not text:
                continue
            self._check_length(text, lineno)
            yield CorefDocument(id=f"{self.path.stem}:{lineno}", text=text, gold=None,
                                origin=f"{self.path.name}:{lineno}")

    # -- jsonl -----------------------------------------------------------------------------
    def _coref_jsonl(self) -> Iterator[CorefDocument]:
        ids: dict[str, int] = {}
        for lineno, line in self._lines():
            if not line.strip():
                continue
            where = {"file": str(self.path), "line": lineno}
            obj = parse_json_line(line, where, '{"text": ..., "clusters": [...]}')
            if not isinstance(obj, dict):
                raise SuiteError("each line must be a JSON object with a \"text\" key and "
                                 "optional \"clusters\"", **where)
            unknown = sorted(set(obj) - {"id", "text", "clusters", "year"})
            if unknown:
                raise SuiteError(f"unknown key(s) {', '.join(map(repr, unknown))}; a document "
                                 f"has \"text\", optional \"id\", \"clusters\" and \"year\"",
                                 **where)
            year = obj.get("year")
            if year is not None and (type(year) is not int or not 1000 <= year <= 2099):
                raise SuiteError(f"\"year\" must be a whole year from 1000 to 2099 (when the "
                                 f"text is set), not {year!r}", **where)
            text = obj.get("text")
            if not isinstance(text, str) or not text.strip():
                raise SuiteError("\"text\" must be a non-empty string", **where)
            self._check_length(text, lineno)
            gold = None
            if "clusters" in obj:
                try:
                    gold = prediction_from_json(_mentions_by_text(obj["clusters"], text), text)
                except CorefInputError as exc:
                    raise SuiteError(f"\"clusters\": {exc}", **where) from None
            did = str(obj.get("id", f"{self.path.stem}:{lineno}"))
            if did in ids:
                raise SuiteError(f"id {did!r} is used again (first on line {ids[did]})", **where)
            ids[did] = lineno
            yield CorefDocument(id=did, text=text, gold=gold, origin=f"{self.path.name}:{lineno}",
                                year=year)

    # -- CoNLL-2011/2012 -------------------------------------------------------------------
    def _conll2012(self) -> Iterator[CorefDocument]:
        name, first_line = None, 0
        sentences: list[list[tuple[str, str, int]]] = []
        current: list[tuple[str, str, int]] = []
        for lineno, line in self._lines():
            where = {"file": str(self.path), "line": lineno}
            stripped = line.strip()
            if stripped.startswith("#begin document"):
                if name is not None:
                    raise SuiteError("'#begin document' before the previous document's "
                                     "'#end document'", **where)
                name, first_line, sentences, current = stripped[len("#begin document"):].strip(), \
                    lineno, [], []
                continue
            if stripped.startswith("#end document"):
                if name is None:
                    raise SuiteError("'#end document' without '#begin document'", **where)
                if current:
                    sentences.append(current)
                yield from self._conll_units(name, first_line, sentences)
                name = None
                continue
            if not stripped:
                if current:
                    sentences.append(current)
                    current = []
                continue
            if stripped.startswith("#"):
                continue
            if name is None:
                raise SuiteError("a token line outside '#begin document' … '#end document'",
                                 **where)
            cols = stripped.split()
            if len(cols) < 5:
                raise SuiteError(f"expected the CoNLL-2012 columns (document, part, word number, "
                                 f"word, …, coreference last), got {stripped[:60]!r}", **where)
            coref = cols[-1]
            if coref != "-" and not re.fullmatch(r"(\(\d+\)|\(\d+|\d+\))(\|(\(\d+\)|\(\d+|\d+\)))*",
                                                 coref):
                raise SuiteError(f"coreference column {coref!r} is not '-' or brackets like "
                                 f"'(3', '3)', '(3)', '(3)|(5'", **where)
            current.append((cols[3], coref, lineno))
        if name is not None:
            raise SuiteError(f"document {name!r} has no '#end document'", file=str(self.path),
                             line=first_line)

    def _conll_units(self, name: str, first_line: int,
                     sentences: list[list[tuple[str, str, int]]]) -> Iterator[CorefDocument]:
        units = [sentences] if self.unit == "document" else [[s] for s in sentences]
        for k, unit in enumerate(units):
            if not unit:
                continue
            tokens = [t for s in unit for t in s]
            text, offsets = "", []
            for i, (tok, _, _) in enumerate(tokens):
                if i and tok not in NO_SPACE_BEFORE and tokens[i - 1][0] not in NO_SPACE_AFTER:
                    text += " "
                offsets.append((len(text), len(text) + len(tok)))
                text += tok
            line = unit[0][0][2]
            self._check_length(text, line)
            clusters: dict[int, list[Mention]] = {}
            open_: dict[int, list[int]] = {}
            for (tok, coref, lineno), (start, end) in zip(tokens, offsets):
                if coref == "-":
                    continue
                for part in _COREF_PART.findall(coref):
                    cid = int(part.strip("()"))
                    if part.startswith("("):
                        open_.setdefault(cid, []).append(start)
                    if part.endswith(")"):
                        if not open_.get(cid):
                            raise SuiteError(f"mention {cid} closes without opening",
                                             file=str(self.path), line=lineno)
                        clusters.setdefault(cid, []).append(Mention(open_[cid].pop(), end))
            left = [cid for cid, starts in open_.items() if starts]
            if left:
                raise SuiteError(f"mention(s) {', '.join(map(str, left))} open but never closed "
                                 f"in this {self.unit}", file=str(self.path), line=line)
            suffix = f"#{k}" if self.unit == "sentence" else ""
            yield CorefDocument(id=f"{name}{suffix}", text=text,
                                gold=CorefPrediction(normalise_clusters(clusters.values())),
                                origin=f"{self.path.name}:{line}")


def _mentions_by_text(clusters: object, text: str) -> object:
    """The clusters with each mention written as its text replaced by ``[start, end]`` (the text
    must occur exactly once as whole words); other mentions are left for
    :func:`prediction_from_json` to check."""
    if not isinstance(clusters, list):
        return clusters
    out = []
    for k, cluster in enumerate(clusters):
        if not isinstance(cluster, list):
            out.append(cluster)
            continue
        ms = []
        for j, m in enumerate(cluster):
            if isinstance(m, str):
                try:
                    m = list(locate_once(text, m, f"clusters[{k}][{j}]"))
                except InlineError as exc:
                    raise CorefInputError(str(exc).replace("mark it inline ([E1 …], [E2 …])",
                                                           "write the mention as [start, end]")) \
                        from None
            ms.append(m)
        out.append(ms)
    return out
