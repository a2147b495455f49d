"""The import graph of autogpu's modules, read from their source (no module is imported).

An edge `a -> b` is every `import b` / `from b import x` in `a`, at the top or inside a function
(a deferred import is still a dependence: it only hides a cycle until the call), except those
under `if TYPE_CHECKING:`, which never run. `from pkg import name` is an edge to `pkg.name` when
that is a module, else to `pkg`. Importing `a.b` also runs `a/__init__.py`; those implicit edges
are left out, or every package importing one of its modules would be a cycle.

    python3 -m autogpu.testing.import_graph     # prints the cycles, exit status 1 if any
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

#: autogpu's folder, found without importing it (this module is autogpu's too).
PACKAGE_ROOT = Path(__file__).resolve().parent.parent


def module_names(root: Path = PACKAGE_ROOT) -> dict[str, Path]:
    """Every module of the package under `root`, by dotted name (packages by their own)."""
    names: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def _is_type_checking(test: ast.expr) -> bool:
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _import_nodes(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements of a module, skipping `if TYPE_CHECKING:` blocks."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The dotted name a (possibly relative) `from ... import` refers to."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def imports_of(module: str, path: Path, known: set[str]) -> set[str]:
    """The modules of `known` that `module` (source at `path`) imports."""
    tree = ast.parse(path.read_text(), str(path))
    targets: set[str] = set()
    for node in _import_nodes(tree):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
            continue
        base = _absolute(module, path.name == "__init__.py", node)
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            targets.add(submodule if submodule in known else base)
    return {t for t in targets if t in known and t != module}


def import_graph(root: Path = PACKAGE_ROOT) -> dict[str, set[str]]:
    """module -> the package's modules it imports."""
    names = module_names(root)
    known = set(names)
    return {name: imports_of(name, path, known) for name, path in names.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan), as a path
    `a -> b -> ... -> a` through the component."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component: list[str] = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(component)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph) + 100))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return [_path_through(sorted(c), graph) for c in components]


def _path_through(component: list[str], graph: dict[str, set[str]]) -> list[str]:
    """A cycle from the component's first module back to it (breadth-first, so shortest)."""
    members, start = set(component), component[0]
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for v in frontier:
            for w in sorted(graph[v] & members):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [*reversed(path), start]
                if w not in previous:
                    previous[w] = v
                    following.append(w)
        frontier = following
    return component


def main() -> int:
    found = cycles(import_graph())
    for cycle in found:
        print(" -> ".join(cycle))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
