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

from runner.errors import SuiteError

Path_ = tuple[Any, ...]  # a location inside the document: keys and list indices

_CORPUS_EXTENSIONS = {".txt": "text", ".text": "text", ".jsonl": "jsonl", ".ndjson": "jsonl",
                      ".conll": "conll", ".bio": "conll", ".iob": "conll", ".iob2": "conll"}


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

    schema = build_schema()
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
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise SuiteError(f"the file is not valid UTF-8 (byte 0x{data[exc.start]:02x}); save it as "
                         "UTF-8", file=str(path), line=line) from None


def _parse_yaml(text: str, filename: str) -> tuple[Any, dict[Path_, tuple[int, int]]]:
    """yaml.safe_load, plus the (line, column) of every key and value, and duplicate keys caught."""
    import yaml

    loader = yaml.SafeLoader(text)
    try:
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
    except yaml.YAMLError as exc:
        raise SuiteError(f"invalid YAML: {exc}", file=filename) from None
    finally:
        loader.dispose()
    return data, marks


def _construct(loader: Any, node: Any, at: Path_, marks: dict, filename: str) -> Any:
    import yaml

    marks[at] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        loader.flatten_mapping(node)  # YAML merge keys (<<)
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
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
    return loader.construct_object(node, deep=True)


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
            out.append((kl, kc, f"{_dotted(at + (key,))}: unknown key{hint} (allowed here: "
                                f"{', '.join(allowed)})"))
        return out
    if v == "required":
        missing = [k for k in sch.get("required", []) if k not in inst]
        return [(line, col, f"{prefix}missing required key {k!r}" +
                 (f" ({_hint_for_key(k)})" if _hint_for_key(k) else "")) for k in missing]
    if v == "enum" and at and at[-1] == "type":
        kind = _kind_of(at)
        return [(line, col, f"{prefix}unknown {kind} type {inst!r}; available: "
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
                "starting with a letter or digit"}.get(str(at[-1]) if at else "", err.validator_value)
        return [(line, col, f"{prefix}expected {what}, got {inst!r}")]
    if v == "minItems":
        return [(line, col, f"{prefix}needs at least {err.validator_value} item(s)")]
    if v == "minLength":
        return [(line, col, f"{prefix}must not be empty")]
    if v == "uniqueItems":
        return [(line, col, f"{prefix}items must be unique, got {inst!r}")]
    if v == "oneOf":
        return [(line, col, f"{prefix}expected a number or a mapping of transformation type → "
                            f"number, got {_yaml_type(inst)} {_short(inst)}")]
    return [(line, col, f"{prefix}{err.message}")]


def _cross_check(suite: Suite) -> None:
    """Checks JSON Schema cannot express: references between sections, files, and what this
    version of mtrun can build."""
    from runner.catalog import TRANSFORMATIONS

    cfg = suite.config
    types = [t["type"] for t in cfg["transformations"]]
    if not types and not cfg["attacks"]:
        raise suite.error("needs at least one transformation (or, for an attack-only suite, "
                          "an `attacks:` list)", ("transformations",))
    _check_attacks(suite)
    seen: set[str] = set()
    for i, t in enumerate(types):
        if t in seen:
            raise suite.error(f"transformation {t!r} is listed twice; give it once with the "
                              "parameters you want", ("transformations", i, "type"))
        seen.add(t)

    if "relations" not in suite.raw:
        by_relation: dict[str, list[str]] = {}
        for t in types:
            by_relation.setdefault(TRANSFORMATIONS.get(t).extra["relation"], []).append(t)
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
                rel["applies_to"] = [t for t in types
                                     if TRANSFORMATIONS.get(t).extra["relation"] == rel["type"]]
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
    for i, t in enumerate(cfg["transformations"]):
        if t.get("sense2vec"):
            folder = (suite.path.parent / t["sense2vec"]).resolve()
            if not folder.is_dir():
                raise suite.error(f"sense2vec folder not found: {folder}",
                                  ("transformations", i, "sense2vec"),
                                  hint="paths are relative to the suite file's folder")
            t["sense2vec"] = str(folder)
        if t["type"] == "phrase_np" and t.get("source") == "sense2vec" and not t.get("sense2vec"):
            raise suite.error("source sense2vec needs the `sense2vec:` folder of its vectors",
                              ("transformations", i, "source"))

    fmt = cfg["corpus"]["format"]
    corpus = suite.corpus_path
    if fmt == "auto":
        fmt = _CORPUS_EXTENSIONS.get(corpus.suffix.lower())
        if fmt is None:
            raise suite.error(f"cannot tell the corpus format from the extension {corpus.suffix!r}; "
                              "set corpus.format to text, jsonl or conll", ("corpus", "path"))
        cfg["corpus"]["format"] = fmt
    if not corpus.exists():
        raise suite.error(f"corpus file not found: {corpus}", ("corpus", "path"),
                          hint="paths are relative to the suite file's folder")
    if not corpus.is_file():
        raise suite.error(f"corpus path is not a file: {corpus}", ("corpus", "path"))


def _check_attacks(suite: Suite) -> None:
    cfg = suite.config
    names: set[str] = set()
    for i, a in enumerate(cfg["attacks"]):
        if a["type"] in names:
            raise suite.error(f"attack {a['type']!r} is listed twice", ("attacks", i, "type"))
        names.add(a["type"])
        for key in ("vectors_file", "pool_file"):
            if a.get(key):
                path = (suite.path.parent / a[key]).resolve()
                if not path.is_file():
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
            "task": "ner", "sut": "the system under test, e.g. {type: spacy}",
            "corpus": "e.g. {path: data/news.txt}",
            "transformations": "e.g. [{type: structural_question}, {type: entity_shuffle}]",
            "path": "the corpus file, relative to the suite", "type": "the component's type name",
            "model": "a model name or folder"}.get(key, "")


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
