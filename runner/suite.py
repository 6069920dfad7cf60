"""Load a suite: YAML with positions → JSON Schema validation → cross-checks → defaults filled.

Nothing is imported or loaded beyond PyYAML and jsonschema until the suite is known to be valid,
and every problem is reported with file, line and column, the key, and what was expected.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.errors import SuiteError
from runner.yaml_reader import Path_, dotted, parse_yaml, read_suite_text, short, yaml_type


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
                          key=dotted(at) or None, hint=hint)


def load_suite(path: str | Path) -> Suite:
    path = Path(path)
    data, marks = parse_yaml(read_suite_text(path), str(path))
    if data is None:
        raise SuiteError("the suite is empty; expected a mapping with at least the keys name, task, "
                         "sut, corpus and transformations", file=str(path))
    if not isinstance(data, dict):
        raise SuiteError(f"a suite is a mapping of keys to values, not a {yaml_type(data)}",
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
    where = dotted(at)
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
            out.append((kl, kc, f"{dotted(at + (key,))}: unknown key{hint} (allowed here: "
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
        got = "null" if inst is None else f"{yaml_type(inst)} {short(inst)}"
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
                            f"name → find_all / keep_type, got {yaml_type(inst)} {short(inst)}")]
    if v == "oneOf":
        return [(line, col, f"{prefix}expected a number or a mapping of transformation type → "
                            f"number, got {yaml_type(inst)} {short(inst)}")]
    return [(line, col, f"{prefix}{err.message}")]


def follow_up_cap(cfg: dict[str, Any], transformation: str) -> int:
    """``limits.max_follow_ups_per_source`` for one transformation (a number, or a mapping of
    transformation names with ``default`` for the rest; the schema's default without one)."""
    from runner.types import by_transformation

    return int(by_transformation(cfg["limits"]["max_follow_ups_per_source"], transformation, 20))


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
    # A task's stages after the cases (NER's `attacks:`) may be all a suite runs.
    if not types and not any(cfg.get(k) for k in task.stage_sections):
        raise suite.error("needs at least one transformation" + "".join(
            f" (or, for a suite of {k} only, a `{k}:` list)" for k in task.stage_sections
            if k in cfg), ("transformations",))
    seen: set[str] = set()
    for i, t in enumerate(types):
        if t in seen:
            raise suite.error(f"transformation {t!r} is listed twice; give each a different "
                              "`name` (or list it once with the parameters you want)",
                              ("transformations", i, "name" if "name" in suite.raw[
                                  "transformations"][i] else "type"))
        seen.add(t)

    def per_transformation(mapping: Any, at: tuple) -> None:
        """A mapping of transformation names (with ``default`` for the rest) names only this
        suite's transformations."""
        if isinstance(mapping, dict):
            for name in mapping:
                if name != "default" and name not in seen:
                    raise suite.error(f"{name!r} is not a transformation of this suite; expected "
                                      f"'default' or one of: {', '.join(types)}", at + (name,),
                                      hint=_close(name, types + ["default"]))

    per_transformation(cfg["limits"]["max_follow_ups_per_source"],
                       ("limits", "max_follow_ups_per_source"))

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
        per_transformation(rel.get("mode"), ("relations", i, "mode"))

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
        per_transformation(flt.get("SynThreshold"), ("filters", i, "SynThreshold"))
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




def _article(kind: str) -> str:
    names = {"object": "a mapping", "array": "a list", "integer": "an integer", "string": "a string",
             "number": "a number", "boolean": "true or false", "null": "null"}
    return " or ".join(names.get(k.strip(), k) for k in kind.split(" or "))

