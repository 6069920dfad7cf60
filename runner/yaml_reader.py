"""Reading a suite file: bounded in size, UTF-8, YAML parsed with a budget on what aliases may
expand to, every value's line and column kept (``marks``) for the error messages."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from runner.errors import MtrunError, SuiteError

Path_ = tuple[Any, ...]  # a location inside the document: keys and list indices


# -- reading -----------------------------------------------------------------------------------

def read_suite_text(path: Path) -> str:
    if not path.exists():
        raise SuiteError("no such suite file", file=str(path))
    if path.is_dir():
        raise SuiteError("is a folder; give the path of a suite .yaml file", file=str(path))
    limit = max_suite_bytes()
    # checked before reading: a suite is a few kilobytes, and a huge file must not be read whole
    size = path.stat().st_size
    if size > limit:
        raise SuiteError(f"the suite file is {size:,} bytes; the limit is {limit:,} "
                         f"(set {SUITE_BYTES_ENV} to raise it)", file=str(path))
    with path.open("rb") as handle:
        data = handle.read(limit + 1)  # a file that grew since stat() is still bounded
    if len(data) > limit:
        raise SuiteError(f"the suite file is over {limit:,} bytes (set {SUITE_BYTES_ENV} to raise "
                         "it)", file=str(path))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise SuiteError(f"the file is not valid UTF-8 (byte 0x{data[exc.start]:02x}); save it as "
                         "UTF-8", file=str(path), line=line) from None


# -- limits on what a suite may make the loader build ------------------------------------------
# YAML aliases let a few hundred bytes stand for billions of nodes ("billion laughs"): nine levels
# of nine aliases each. PyYAML composes such a document cheaply (an alias is a reference to the
# anchored node), but every later step copies the tree. So the composer counts, for every alias,
# how many nodes its expansion stands for, and the expanded size of the whole document, and
# refuses before anything is copied. A real suite has a few hundred nodes.
SUITE_BYTES_ENV = "MTRUN_MAX_SUITE_BYTES"
DEFAULT_MAX_SUITE_BYTES = 5_000_000
MAX_ALIAS_NODES = 10_000       # nodes one alias may stand for
MAX_DOCUMENT_NODES = 100_000   # nodes of the whole document, every alias expanded
MAX_DEPTH = 100                # nesting of lists and mappings


def max_suite_bytes() -> int:
    """The largest suite file mtrun reads: ``$MTRUN_MAX_SUITE_BYTES``, else 5 MB."""
    import os

    raw = os.environ.get(SUITE_BYTES_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_SUITE_BYTES
    try:
        value = int(raw.replace("_", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise MtrunError(f"{SUITE_BYTES_ENV}={raw!r}: expected a positive number of bytes")
    return value


def _budgeted_loader(text: str, filename: str) -> Any:
    """A yaml.SafeLoader whose composer counts expanded nodes and nesting depth (see above)."""
    import yaml

    class Loader(yaml.SafeLoader):
        def __init__(self, stream: str) -> None:
            super().__init__(stream)
            self.sizes: dict[int, int] = {}   # id(node) → nodes its expansion stands for
            self.total = 0                    # nodes of the document so far, aliases expanded
            self.depth = 0
            self.open_anchors: set[str] = set()

        def _refuse(self, message: str, mark: Any) -> SuiteError:
            return SuiteError(message, file=filename, line=mark.line + 1, column=mark.column + 1)

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                if event.anchor in self.open_anchors:
                    raise self._refuse(f"alias *{event.anchor} refers to a node that contains it "
                                       "(a recursive structure); a suite is a tree",
                                       event.start_mark)
                node = super().compose_node(parent, index)  # undefined alias: ComposerError
                size = self.sizes.get(id(node), 1)
                if size > MAX_ALIAS_NODES:
                    raise self._refuse(f"alias *{event.anchor} expands to {size:,} nodes; the "
                                       f"limit is {MAX_ALIAS_NODES:,} per alias (nested aliases "
                                       "multiply: is this a \"billion laughs\" document?)",
                                       event.start_mark)
                self._count(size, event.start_mark, f"alias *{event.anchor}")
                return node
            event = self.peek_event()
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise self._refuse(f"lists and mappings nested more than {MAX_DEPTH} levels deep",
                                   event.start_mark)
            if event.anchor is not None:
                self.open_anchors.add(event.anchor)
            node = super().compose_node(parent, index)
            if event.anchor is not None:
                self.open_anchors.discard(event.anchor)
            self.depth -= 1
            if isinstance(node, yaml.SequenceNode):
                size = 1 + sum(self.sizes.get(id(item), 1) for item in node.value)
            elif isinstance(node, yaml.MappingNode):
                size = 1 + sum(self.sizes.get(id(k), 1) + self.sizes.get(id(v), 1)
                               for k, v in node.value)
            else:
                size = 1
            self.sizes[id(node)] = size
            self._count(1, event.start_mark, "this node")
            return node

        def _count(self, n: int, mark: Any, what: str) -> None:
            self.total += n
            if self.total > MAX_DOCUMENT_NODES:
                raise self._refuse(f"the document has more than {MAX_DOCUMENT_NODES:,} nodes "
                                   f"(every alias expanded) by {what}; a suite has a few hundred",
                                   mark)

    return Loader(text)


def parse_yaml(text: str, filename: str) -> tuple[Any, dict[Path_, tuple[int, int]]]:
    """yaml.safe_load with limits (size, aliases, depth), plus the (line, column) of every key and
    value, and duplicate keys caught."""
    import yaml

    loader = None
    try:
        loader = _budgeted_loader(text, filename)  # reads the whole text: may raise ReaderError
        node = loader.get_single_node()
        marks: dict[Path_, tuple[int, int]] = {}
        data = None if node is None else _construct(loader, node, (), marks, filename)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        context = exc.context or ""
        if context and exc.context_mark is not None and exc.context_mark is not mark:
            # where the unclosed bracket or block began is usually where the mistake is
            context += (f" (started at line {exc.context_mark.line + 1}, column "
                        f"{exc.context_mark.column + 1})")
        problem = "; ".join(p for p in (context, exc.problem) if p)
        raise SuiteError(f"invalid YAML: {problem}", file=filename,
                         line=mark.line + 1 if mark else None,
                         column=mark.column + 1 if mark else None) from None
    except yaml.reader.ReaderError as exc:
        # a character YAML does not allow (a control character such as NUL)
        before = text[:exc.position]
        raise SuiteError(f"invalid YAML: character U+{exc.character:04X} is not allowed in a YAML "
                         "file", file=filename, line=before.count("\n") + 1,
                         column=exc.position - (before.rfind("\n") + 1) + 1) from None
    except yaml.YAMLError as exc:
        raise SuiteError(f"invalid YAML: {exc}", file=filename) from None
    finally:
        if loader is not None:
            loader.dispose()
    return data, marks


def _construct(loader: Any, node: Any, at: Path_, marks: dict, filename: str) -> Any:
    import yaml

    marks[at] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        loader.flatten_mapping(node)  # YAML merge keys (<<)
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = _scalar(loader, key_node, filename)
            if not isinstance(key, str):
                raise SuiteError(f"keys must be text, not {yaml_type(key)} {key!r}", file=filename,
                                 line=key_node.start_mark.line + 1,
                                 column=key_node.start_mark.column + 1)
            if key in out:
                first = marks.get(at + (key,), (None, None))[0]
                raise SuiteError(f"duplicate key (first given on line {first}); a later value "
                                 "would silently replace the earlier one", file=filename,
                                 line=key_node.start_mark.line + 1,
                                 column=key_node.start_mark.column + 1, key=dotted(at + (key,)))
            out[key] = _construct(loader, value_node, at + (key,), marks, filename)
            # the key's own position is more useful than the value's for "unknown key" errors
            marks[at + (key, "<key>")] = (key_node.start_mark.line + 1,
                                          key_node.start_mark.column + 1)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_construct(loader, item, at + (i,), marks, filename)
                for i, item in enumerate(node.value)]
    return _scalar(loader, node, filename)


def _scalar(loader: Any, node: Any, filename: str) -> Any:
    """A scalar as safe_load reads it; a value its tag cannot read (``!!int abc``, the date
    2001-13-45) is a located error, not a traceback from inside PyYAML."""
    import yaml

    try:
        return loader.construct_object(node, deep=True)
    except yaml.YAMLError:
        raise
    except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as exc:
        tag = str(node.tag).rsplit(":", 1)[-1]
        raise SuiteError(f"cannot read {short(str(node.value))} as {tag}"
                         + (f" ({exc})" if isinstance(exc, ValueError) else ""),
                         file=filename, line=node.start_mark.line + 1,
                         column=node.start_mark.column + 1) from None


# -- validation --------------------------------------------------------------------------------


# -- what an error message says of a place and a value ----------------------------------------

def dotted(at: Path_) -> str:
    out = ""
    for part in at:
        if part == "<key>":
            continue
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def yaml_type(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "list",
            dict: "mapping"}.get(type(value), type(value).__name__)


def short(value: Any) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."
