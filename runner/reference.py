"""The suite reference, written from the same source as the JSON Schema: every top-level key, and
every component a suite may name (systems, transformations, filters, relations, a task's own
sections such as NER's repair and attacks) with its parameters, defaults and descriptions. It
cannot drift from what mtrun accepts: ``tests/test_reference.py`` fails when the committed pages
and this generator disagree.

    python -m runner.reference --write      # rewrites docs/pages/reference/<task>.md
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REFERENCE_DIR = Path(__file__).resolve().parent.parent / "docs" / "pages" / "reference"


def _md(text: Any) -> str:
    """A table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _type(prop: dict[str, Any]) -> str:
    if "const" in prop:
        return f"`{json.dumps(prop['const'])}`"
    if "enum" in prop:
        return " · ".join(f"`{json.dumps(v)}`" for v in prop["enum"])
    if "oneOf" in prop or "anyOf" in prop:
        return " or ".join(_type(p) for p in prop.get("oneOf") or prop.get("anyOf"))
    kind = prop.get("type", "")
    kinds = kind if isinstance(kind, list) else [kind] if kind else []
    out = []
    for k in kinds:
        if k == "array" and isinstance(prop.get("items"), dict):
            inner = prop["items"]
            out.append(f"list of {_type(inner) if 'type' in inner or 'enum' in inner else 'items'}")
        elif k == "object":
            out.append("mapping")
        else:
            out.append(k)
    bounds = []
    if "minimum" in prop:
        bounds.append(f"≥ {prop['minimum']}")
    if "maximum" in prop:
        bounds.append(f"≤ {prop['maximum']}")
    return " or ".join(out) + (f" ({', '.join(bounds)})" if bounds else "")


def _default(prop: dict[str, Any]) -> str:
    if "default" not in prop:
        return "required"
    value = prop["default"]
    if value == {} and prop.get("type") == "object":
        return "–"
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def _param_table(props: dict[str, Any], required: set[str]) -> list[str]:
    rows = ["| key | type | default | what it does |", "|---|---|---|---|"]
    for key, prop in props.items():
        if key == "type":
            continue
        default = "required" if key in required else _default(prop)
        rows.append(f"| `{key}` | {_md(_type(prop))} | {_md(default)} | "
                    f"{_md(prop.get('description', ''))} |")
    return rows if len(rows) > 2 else ["No parameters."]


def _components(registry: Any, heading: str) -> list[str]:
    out = []
    for entry in registry.entries():
        out += ["", f"{heading} `{entry.name}`", "", _md(entry.description)]
        extra = []
        if entry.extra.get("relation"):
            extra.append(f"relation by default: `{entry.extra['relation']}`")
        if entry.extra.get("group"):
            extra.append(f"group: `{entry.extra['group']}`")
        if entry.extra.get("violation"):
            extra.append(f"a violation means: {_md(entry.extra['violation'])}")
        if extra:
            out += ["", "; ".join(extra) + "."]
        out += ["", *_param_table(entry.params, set(entry.required))]
    return out


def render(task_name: str) -> str:
    """The reference page of ``task: <task_name>`` suites (Markdown)."""
    from runner.schema import build_schema
    from runner.tasks import get_task

    task = get_task(task_name)
    schema = build_schema(task_name)
    registries = task.registries()
    by_kind = {r.kind: r for r in registries.values()}
    lines = [f"# Suite reference: `task: {task_name}`", "",
             "Written by `python -m runner.reference --write` from the registrations the suite "
             "schema is generated from; what a suite may say is exactly what is listed here.",
             "", "## Top-level keys", "",
             "| key | type | default | what it is |", "|---|---|---|---|"]
    required = set(schema.get("required", []))
    for key, prop in schema["properties"].items():
        kind = ("component" if "allOf" in prop else
                "list of components" if isinstance(prop.get("items"), dict)
                and "allOf" in prop["items"] else "")
        what = prop.get("description") or (prop.get("items") or {}).get("description", "")
        shown = kind or _type(prop)
        lines.append(f"| `{key}` | {_md(shown)} | "
                     f"{'required' if key in required else _md(_default(prop))} | {_md(what)} |")
    for key, prop in schema["properties"].items():
        component = prop if "allOf" in prop else prop.get("items") if isinstance(
            prop.get("items"), dict) and "allOf" in prop["items"] else None
        if component is not None:
            kind = component["properties"]["type"]["description"].removeprefix("The ").removesuffix(
                " to use.")
            registry = by_kind.get(kind)
            if registry is None:
                continue
            lines += ["", f"## `{key}`", ""]
            lines += [f"Each item names its `type`: one of {', '.join(f'`{n}`' for n in registry.names())}."
                      if component is not prop else
                      f"`type`: one of {', '.join(f'`{n}`' for n in registry.names())}."]
            lines += _components(registry, "###")
        elif prop.get("type") == "object" and prop.get("properties"):
            lines += ["", f"## `{key}`", ""]
            if prop.get("description"):
                lines += [_md(prop["description"]), ""]
            lines += _param_table(prop["properties"], set(prop.get("required", [])))
    return "\n".join(lines) + "\n"


def pages() -> dict[str, str]:
    from runner.tasks import task_names

    return {f"{name}.md": render(name) for name in task_names()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Write the suite reference pages of the docs site.")
    ap.add_argument("--write", action="store_true", help=f"write them into {REFERENCE_DIR}")
    args = ap.parse_args(argv)
    if not args.write:
        for name, text in pages().items():
            print(f"--- {name}\n{text}")
        return 0
    REFERENCE_DIR.mkdir(parents=True, exist_ok=True)
    for name, text in pages().items():
        (REFERENCE_DIR / name).write_text(text, encoding="utf-8")
        print(f"wrote {REFERENCE_DIR / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
