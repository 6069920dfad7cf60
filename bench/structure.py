"""The structure of ``runner/`` drawn from its own imports: import circles and arrows that run back up.

Every ``import runner.x`` and ``from runner.x import y`` counts, at module level, inside a
function (a lazy import still ties the two modules together) or under ``if TYPE_CHECKING:`` (a
type a module names is a dependency too), and so does a string that names a module of runner
(``"runner.tasks.ner.task:NerTask"``, a registry entry imported by name). A package's ``__init__.py`` is a module of its own, and importing
``runner.a.b`` also imports ``runner.a`` — that implicit arrow is not drawn, since every module
imports its parents.

Floors: the graph's circles (strongly connected components) are shrunk to one room each and the
rooms stacked so that every arrow points to a lower floor; an arrow inside a circle runs back up.

    python bench/structure.py            # summary, circles and arrows back up
    python bench/structure.py --json     # the same as JSON
    python bench/structure.py --files    # files over 600 lines in runner/ too
"""
from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "runner"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(tree: ast.AST, here: str, is_package: bool, modules: set[str]) -> set[str]:
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = here.split(".") if is_package else here.split(".")[:-1]
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in modules else base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {m for m in found if m in modules and m != here}


def graph() -> dict[str, set[str]]:
    files = {module_name(p): p for p in sorted((ROOT / PACKAGE).rglob("*.py"))}
    modules = set(files)
    return {m: _imports(ast.parse(p.read_text(encoding="utf-8")), m,
                        p.name == "__init__.py", modules)
            for m, p in files.items()}


def circles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for start in sorted(g):
        if start in index:
            continue
        work = [(start, iter(sorted(g[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(g[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def floors(g: dict[str, set[str]], comps: list[list[str]]) -> dict[str, int]:
    """Floor of each module: 0 for modules that import nothing of runner, else one above the
    highest floor it imports (a circle is one room)."""
    room = {m: m for m in g}
    for comp in comps:
        for m in comp:
            room[m] = comp[0]
    rooms: dict[str, set[str]] = {}
    for m, targets in g.items():
        rooms.setdefault(room[m], set()).update(room[t] for t in targets if room[t] != room[m])
    level: dict[str, int] = {}

    def height(r: str) -> int:
        if r not in level:
            level[r] = -1                       # guard; the room graph has no circles
            level[r] = 1 + max((height(t) for t in rooms.get(r, ())), default=-1)
        return level[r]

    return {m: height(room[m]) for m in g}


def back_up(g: dict[str, set[str]], comps: list[list[str]]) -> list[tuple[str, str]]:
    """The arrows inside a circle: each one runs back up some floor of the circle."""
    inside = {m: i for i, comp in enumerate(comps) for m in comp}
    return sorted((a, b) for a, targets in g.items() for b in targets
                  if a in inside and inside.get(b) == inside[a])


def long_files(limit: int = 600) -> list[tuple[str, int]]:
    rows = []
    for p in sorted((ROOT / PACKAGE).rglob("*.py")):
        n = len(p.read_text(encoding="utf-8").splitlines())
        if n > limit:
            rows.append((str(p.relative_to(ROOT)), n))
    return rows


def summary() -> dict:
    g = graph()
    comps = circles(g)
    fl = floors(g, comps)
    return {"modules": len(g), "arrows": sum(len(t) for t in g.values()),
            "floors": 1 + max(fl.values(), default=-1), "circles": comps,
            "arrows_back_up": [list(a) for a in back_up(g, comps)],
            "files_over_600_lines": [list(r) for r in long_files()]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--files", action="store_true", help="list files over 600 lines too")
    args = ap.parse_args(argv)
    s = summary()
    if args.json:
        print(json.dumps(s, indent=2))
        return 0
    print(f"{s['modules']} modules on {s['floors']} floors, {s['arrows']} arrows, "
          f"{len(s['circles'])} circles, {len(s['arrows_back_up'])} arrows back up")
    for comp in s["circles"]:
        print("  circle: " + " ⇄ ".join(comp))
    for a, b in s["arrows_back_up"]:
        print(f"  back up: {a} → {b}")
    if args.files:
        for path, n in s["files_over_600_lines"]:
            print(f"  {n:5d} lines  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
