"""Load a suite: YAML with positions → JSON Schema validation → cross-checks → defaults filled.

Nothing is imported or loaded beyond PyYAML and jsonschema until the suite is known to be valid,
and every problem is reported with file, line and column, the key, and what was expected.
"""
from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.errors import MtrunError, SuiteError

Path_ = tuple[Any, ...]  # a location inside the document: keys and list indices

@dataclass
class Suite:
    path: Path
    raw: dict[str, Any]                  # as written
    config: dict[str, Any]               # validated, every default explicit
    marks: dict[Path_, tuple[int, int]] = field(repr=False, default_factory=dict)

    @property
    def name(self) -> str:
        return self.config["name"]

    @property
    def task(self) -> Any:
        """The :class:`~runner.tasks.base.Task` this suite tests."""
        from runner.tasks import get_task

        return get_task(self.config["task"])

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    @property
    def corpus_path(self) -> Path:
        return (self.base_dir / self.config["corpus"]["path"]).resolve()

    @property
    def corpus_format(self) -> str:
        return self.config["corpus"]["format"]

    def report_dir(self, override: str | Path | None = None) -> Path:
        if override is not None:
            return Path(override)
        configured = self.config["report"]["dir"]
        return Path(configured) if configured else Path("reports") / self.name

    def error(self, message: str, at: Path_, *, hint: str | None = None) -> SuiteError:
        line, col = _position(self.marks, at)
        return SuiteError(message, file=str(self.path), line=line, column=col,
                          key=_dotted(at) or None, hint=hint)


def load_suite(path: str | Path) -> Suite:
    path = Path(path)
    text = _read_suite_text(path)
    data, marks = _parse_yaml(text, str(path))
    if data is None:
        raise SuiteError("the suite is empty; expected a mapping with at least the keys name, task, "
                         "sut, corpus and transformations", file=str(path))
    if not isinstance(data, dict):
        raise SuiteError(f"a suite is a mapping of keys to values, not a {_yaml_type(data)}",
                         file=str(path), line=1, column=1)
    from runner.schema import build_schema, fill_defaults
    from runner.tasks import DEFAULT_TASK, TASKS

    # The task decides which keys and components are allowed. A missing or unknown task is
    # reported with the other problems, found against the default task's schema.
    task = data.get("task")
    schema = build_schema(task if isinstance(task, str) and task in TASKS else DEFAULT_TASK)
    _validate(schema, data, marks, str(path))
    suite = Suite(path=path, raw=data, config=fill_defaults(schema, data), marks=marks)
    _cross_check(suite)
    return suite


# -- reading -----------------------------------------------------------------------------------

def _read_suite_text(path: Path) -> str:
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


def _parse_yaml(text: str, filename: str) -> tuple[Any, dict[Path_, tuple[int, int]]]:
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
                raise SuiteError(f"keys must be text, not {_yaml_type(key)} {key!r}", file=filename,
                                 line=key_node.start_mark.line + 1,
                                 column=key_node.start_mark.column + 1)
            if key in out:
                first = marks.get(at + (key,), (None, None))[0]
                raise SuiteError(f"duplicate key (first given on line {first}); a later value "
                                 "would silently replace the earlier one", file=filename,
                                 line=key_node.start_mark.line + 1,
                                 column=key_node.start_mark.column + 1, key=_dotted(at + (key,)))
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
        raise SuiteError(f"cannot read {_short(str(node.value))} as {tag}"
                         + (f" ({exc})" if isinstance(exc, ValueError) else ""),
                         file=filename, line=node.start_mark.line + 1,
                         column=node.start_mark.column + 1) from None


# -- validation --------------------------------------------------------------------------------

def _validate(schema: dict, data: dict, marks: dict, filename: str) -> None:
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(schema)
    problems = []
    for err in validator.iter_errors(data):
        problems.extend(_explain(err, data, marks))
    if not problems:
        return
    # one line per problem, in document order, without repeats
    problems = sorted(set(problems), key=lambda p: (p[0] or 0, p[1] or 0, p[2]))
    first = problems[0]
    lines = [SuiteError(msg, file=filename, line=ln, column=col).args[0] for ln, col, msg in problems]
    err = SuiteError(first[2], file=filename, line=first[0], column=first[1])
    err.args = ("\n".join(lines),)
    err.problems = problems  # type: ignore[attr-defined]
    raise err


def _explain(err: Any, data: dict, marks: dict) -> list[tuple[int | None, int | None, str]]:
    """Turn one jsonschema error into located, plain-language messages."""
    at = tuple(err.absolute_path)
    where = _dotted(at)
    prefix = f"{where}: " if where else ""
    line, col = _position(marks, at)
    v, inst, sch = err.validator, err.instance, err.schema

    if v == "additionalProperties" and isinstance(inst, dict):
        allowed = sorted(sch.get("properties", {}))
        out = []
        for key in sorted(k for k in inst if k not in sch.get("properties", {})):
            kl, kc = _position(marks, at + (key, "<key>"))
            close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
            hint = f" — did you mean {close[0]!r}?" if close else ""
            if not at:  # a top-level section another task owns (e.g. NER's repair): no typo
                hint = _owner("section", key, data.get("task")) or hint
            out.append((kl, kc, f"{_dotted(at + (key,))}: unknown key{hint} (allowed here: "
                                f"{', '.join(allowed)})"))
        return out
    if v == "required":
        missing = [k for k in sch.get("required", []) if k not in inst]
        return [(line, col, f"{prefix}missing required key {k!r}" +
                 (f" ({_hint_for_key(k)})" if _hint_for_key(k) else "")) for k in missing]
    if v == "enum" and at and at[-1] == "type":
        kind = _kind_of(at)
        return [(line, col, f"{prefix}unknown {kind} type {inst!r}"
                            f"{_owner(str(at[0]), str(inst), data.get('task'))}; available: "
                            f"{', '.join(map(str, err.validator_value))}" + _did_you_mean(inst, err.validator_value))]
    if v == "enum":
        return [(line, col, f"{prefix}expected one of {', '.join(map(repr, err.validator_value))}, "
                            f"got {inst!r}" + _did_you_mean(inst, err.validator_value))]
    if v == "const":
        return [(line, col, f"{prefix}expected {err.validator_value!r}, got {inst!r}")]
    if v == "type":
        expected = err.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        got = "null" if inst is None else f"{_yaml_type(inst)} {_short(inst)}"
        return [(line, col, f"{prefix}expected {_article(expected)}, got {got}")]
    if v in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        sign = {"minimum": "≥", "maximum": "≤", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}[v]
        return [(line, col, f"{prefix}must be {sign} {err.validator_value}, got {inst!r}")]
    if v == "pattern":
        what = {"device": "auto, cpu, cuda or cuda:N", "name": "letters, digits, '.', '_' or '-', "
                "starting with a letter or digit",
                "callable": "module:function, e.g. mymodel.api:predict"}.get(
                    str(at[-1]) if at else "", err.validator_value)
        return [(line, col, f"{prefix}expected {what}, got {inst!r}")]
    if v == "minItems":
        return [(line, col, f"{prefix}needs at least {err.validator_value} item(s)")]
    if v == "minLength":
        return [(line, col, f"{prefix}must not be empty")]
    if v == "uniqueItems":
        return [(line, col, f"{prefix}items must be unique, got {inst!r}")]
    if v == "oneOf" and at and at[-1] == "mode":
        return [(line, col, f"{prefix}expected find_all, keep_type or a mapping of transformation "
                            f"name → find_all / keep_type, got {_yaml_type(inst)} {_short(inst)}")]
    if v == "oneOf":
        return [(line, col, f"{prefix}expected a number or a mapping of transformation type → "
                            f"number, got {_yaml_type(inst)} {_short(inst)}")]
    return [(line, col, f"{prefix}{err.message}")]


def _cross_check(suite: Suite) -> None:
    """Checks JSON Schema cannot express: references between sections, files, and what this
    version of mtrun can build."""
    task = suite.task
    TRANSFORMATIONS = task.registries()["transformations"]
    cfg = suite.config
    # A transformation is known in the suite (applies_to, reports, thresholds) by its `name`,
    # which defaults to its type: one type can be listed several times with different
    # parameters (e.g. upper- and lower-case) when each has a name of its own.
    for t in cfg["transformations"]:
        t.setdefault("name", t["type"])
    types = [t["name"] for t in cfg["transformations"]]
    kind_of = {t["name"]: t["type"] for t in cfg["transformations"]}
    if not types and not cfg.get("attacks"):
        raise suite.error("needs at least one transformation" + (
            " (or, for an attack-only suite, an `attacks:` list)" if "attacks" in cfg else ""),
            ("transformations",))
    _check_attacks(suite)
    seen: set[str] = set()
    for i, t in enumerate(types):
        if t in seen:
            raise suite.error(f"transformation {t!r} is listed twice; give each a different "
                              "`name` (or list it once with the parameters you want)",
                              ("transformations", i, "name" if "name" in suite.raw[
                                  "transformations"][i] else "type"))
        seen.add(t)

    if "relations" not in suite.raw:
        by_relation: dict[str, list[str]] = {}
        for t in types:
            by_relation.setdefault(TRANSFORMATIONS.get(kind_of[t]).extra["relation"], []).append(t)
        cfg["relations"] = [{"type": r, "applies_to": ts} for r, ts in sorted(by_relation.items())]
    else:
        covered: set[str] = set()
        rel_types: set[str] = set()
        for i, rel in enumerate(cfg["relations"]):
            if rel["type"] in rel_types:
                raise suite.error(f"relation {rel['type']!r} is listed twice; list every "
                                  "transformation it checks in one applies_to",
                                  ("relations", i, "type"))
            rel_types.add(rel["type"])
            if "applies_to" not in rel:
                rel["applies_to"] = [t for t in types if TRANSFORMATIONS.get(kind_of[t])
                                     .extra["relation"] == rel["type"]]
                if not rel["applies_to"]:
                    raise suite.error(f"relation {rel['type']} applies to none of this suite's "
                                      f"transformations ({', '.join(types)}); add applies_to",
                                      ("relations", i))
            for j, name in enumerate(rel["applies_to"]):
                if name not in seen:
                    raise suite.error(f"{name!r} is not a transformation of this suite; "
                                      f"expected one of: {', '.join(types)}",
                                      ("relations", i, "applies_to", j),
                                      hint=_close(name, types))
            covered.update(rel["applies_to"])
        for i, t in enumerate(types):
            if t not in covered:
                raise suite.error(f"no relation checks transformation {t!r}; add it to a "
                                  "relation's applies_to or remove it", ("transformations", i))

    relation_names = [r["type"] for r in cfg["relations"]]
    for rel in cfg["report"]["fail_on"]["relations"]:
        if rel not in relation_names:
            raise suite.error(f"threshold for relation {rel!r}, which this suite does not check; "
                              f"its relations: {', '.join(relation_names)}",
                              ("report", "fail_on", "relations", rel, "<key>"),
                              hint=_close(rel, relation_names))

    groups = sorted({TRANSFORMATIONS.get(t["type"]).extra.get("group", "research")
                     for t in cfg["transformations"]})
    for group in cfg["report"]["fail_on"].get("groups") or {}:
        if group not in groups:
            raise suite.error(f"threshold for the group {group!r}, which none of this suite's "
                              f"transformations belongs to; its groups: {', '.join(groups)}",
                              ("report", "fail_on", "groups", group, "<key>"),
                              hint=_close(group, groups))
    for i, rel in enumerate(cfg["relations"]):
        modes = rel.get("mode")
        if isinstance(modes, dict):
            for name in modes:
                if name != "default" and name not in seen:
                    raise suite.error(f"{name!r} is not a transformation of this suite; expected "
                                      f"'default' or one of: {', '.join(types)}",
                                      ("relations", i, "mode", name),
                                      hint=_close(name, types + ["default"]))

    filter_types: set[str] = set()
    for i, flt in enumerate(cfg["filters"]):
        if flt["type"] in filter_types:
            raise suite.error(f"filter {flt['type']!r} is listed twice", ("filters", i, "type"))
        filter_types.add(flt["type"])
        for j, name in enumerate(flt.get("applies_to") or []):
            if name not in seen:
                raise suite.error(f"{name!r} is not a transformation of this suite; expected one "
                                  f"of: {', '.join(types)}", ("filters", i, "applies_to", j),
                                  hint=_close(name, types))
        thresholds = flt.get("SynThreshold")
        if isinstance(thresholds, dict):
            for name in thresholds:
                if name != "default" and name not in seen:
                    raise suite.error(f"{name!r} is not a transformation of this suite; expected "
                                      f"'default' or one of: {', '.join(types)}",
                                      ("filters", i, "SynThreshold", name),
                                      hint=_close(name, types + ["default"]))
    for at in (("report", "dir"), ("cache", "path")):
        value = cfg.get(at[0], {}).get(at[1])
        if isinstance(value, str):
            usable_path(suite, value, at)
    task.cross_check(suite)

    triage = cfg["report"].get("triage")
    if triage:
        path = (suite.path.parent / triage).resolve()
        if not path.is_file():
            raise suite.error(f"triage file not found: {path}", ("report", "triage"),
                              hint="paths are relative to the suite file's folder; export the "
                                   "file from a report's violation table")
        from runner.report.triage import load_triage

        load_triage(path)   # a file that does not parse is reported now, before any model loads
        cfg["report"]["triage"] = str(path)

    fmt = cfg["corpus"]["format"]
    corpus = usable_path(suite, cfg["corpus"]["path"], ("corpus", "path"))
    if fmt == "auto":
        fmt = task.corpus_extensions.get(corpus.suffix.lower())
        if fmt is None:
            formats = [f for f in task.corpus_schema()["properties"]["format"]["enum"]
                       if f != "auto"]
            choices = " or ".join([", ".join(formats[:-1]), formats[-1]] if len(formats) > 1
                                  else formats)
            raise suite.error(f"cannot tell the corpus format from the extension {corpus.suffix!r}; "
                              f"set corpus.format to {choices}", ("corpus", "path"))
        cfg["corpus"]["format"] = fmt
    if not probe(suite, ("corpus", "path"), corpus.exists):
        raise suite.error(f"corpus file not found: {corpus}", ("corpus", "path"),
                          hint="paths are relative to the suite file's folder")
    if not probe(suite, ("corpus", "path"), corpus.is_file):
        raise suite.error(f"corpus path is not a file: {corpus}", ("corpus", "path"))


def usable_path(suite: Suite, value: str, at: Path_) -> Path:
    """A path from the suite, resolved against the suite's folder: one the system cannot take
    (a NUL character, a name too long) is the suite's error, located, not an OSError."""
    if "\x00" in value:
        raise suite.error("the path contains a NUL character", at)
    return probe(suite, at, lambda: (suite.base_dir / value).resolve())


def probe(suite: Suite, at: Path_, check: Any) -> Any:
    try:
        return check()
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise suite.error(f"cannot use this path: {reason}", at) from None


def _check_attacks(suite: Suite) -> None:
    cfg = suite.config
    names: set[str] = set()
    for i, a in enumerate(cfg.get("attacks") or []):
        if a["type"] in names:
            raise suite.error(f"attack {a['type']!r} is listed twice", ("attacks", i, "type"))
        names.add(a["type"])
        for key in ("vectors_file", "pool_file"):
            if a.get(key):
                path = usable_path(suite, a[key], ("attacks", i, key))
                if not probe(suite, ("attacks", i, key), path.is_file):
                    raise suite.error(f"file not found: {path}", ("attacks", i, key),
                                      hint="paths are relative to the suite file's folder")
                a[key] = str(path)
        if a.get("candidates") == "vectors_file" and not a.get("vectors_file"):
            raise suite.error("candidates vectors_file needs `vectors_file:` (a word-vector text "
                              "file)", ("attacks", i, "candidates"))
    if cfg["report"]["fail_on"].get("max_attack_success_rate") is not None and not names:
        raise suite.error("a threshold on the attack success rate, but the suite has no "
                          "`attacks:`", ("report", "fail_on", "max_attack_success_rate"))


# -- helpers -----------------------------------------------------------------------------------

def _position(marks: dict, at: Path_) -> tuple[int | None, int | None]:
    """The nearest known position: the value itself, else its closest ancestor."""
    at = tuple(at)
    while True:
        if at in marks:
            return marks[at]
        if not at:
            return (None, None)
        at = at[:-1]


def _dotted(at: Path_) -> str:
    out = ""
    for part in at:
        if part == "<key>":
            continue
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _kind_of(at: Path_) -> str:
    return {"sut": "sut", "transformations": "transformation", "relations": "relation",
            "filters": "filter", "parser": "parser", "attacks": "attack"}.get(str(at[0]),
                                                                              "component")


def _did_you_mean(value: Any, options: Any) -> str:
    close = difflib.get_close_matches(str(value), [str(o) for o in options], n=1, cutoff=0.6)
    return f" — did you mean {close[0]!r}?" if close else ""


def _close(value: str, options: list[str]) -> str | None:
    close = difflib.get_close_matches(value, options, n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else None


def _hint_for_key(key: str) -> str:
    return {"name": "a short name for the suite, e.g. ner_spacy",
            "task": _task_choices(), "sut": "the system under test, e.g. {type: spacy}",
            "corpus": "e.g. {path: data/news.txt}",
            "transformations": "e.g. [{type: structural_question}, {type: entity_shuffle}]",
            "path": "the corpus file, relative to the suite", "type": "the component's type name",
            "model": "a model name or folder"}.get(key, "")


def _task_choices() -> str:
    from runner.tasks import task_names

    names = task_names()
    return " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def _owner(kind: str, name: str, task: Any) -> str:
    """" (a key of task: re suites)" when ``name`` is unknown to this suite's task but known to
    another one: a component or section of another task, not a typo."""
    from runner.tasks import all_tasks

    owners = []
    for t in all_tasks():
        if t.name == task:
            continue
        known = (t.sections() if kind == "section" else
                 t.registries().get(kind, {}) if kind in ("sut", "transformations", "relations",
                                                          "filters") else {})
        if name in known:
            owners.append(t.name)
    if not owners:
        return ""
    what = "a key" if kind == "section" else "a component"
    return f" ({what} of task: {' / task: '.join(owners)} suites)"


def _yaml_type(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "list",
            dict: "mapping"}.get(type(value), type(value).__name__)


def _article(kind: str) -> str:
    names = {"object": "a mapping", "array": "a list", "integer": "an integer", "string": "a string",
             "number": "a number", "boolean": "true or false", "null": "null"}
    return " or ".join(names.get(k.strip(), k) for k in kind.split(" or "))


def _short(value: Any) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."
