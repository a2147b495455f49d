"""The data-sharing clauses of a parallel loop, applied to its body (OpenMP 5.x).

`private(x)`, `firstprivate(x)` and `lastprivate(x)` give the loop body its own variable `x`
(one per iteration, so one per GPU thread): every name `x` in the body refers to the copy, which
irgen declares at the top of the innermost collapsed loop's body, uninitialised (private,
lastprivate) or from the original's value (firstprivate); a local array `w` (private and
firstprivate only) gets a local array of the same extents, firstprivate's copied element by
element; for lastprivate the sequentially last
iteration (with collapse: the last of the collapsed space) copies it back to the original.
The loop variables of the collapsed loops are private already: listing one of them makes no
copy (it keeps the value C leaves in it, which is also lastprivate's). `shared(x)` changes
nothing. `default(none)`: every variable the loop uses that is declared outside it must be
listed (`check_default_none`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from autogpu.diagnostics import CompileError
from autogpu.frontend import ast
from autogpu.frontend.openmp import ParallelInfo, PrivateCopy
from autogpu.frontend.symbols import Var, walk_expr

Error = Callable[[str, ast.Pos], CompileError]


def loop_variable_names(loop: ast.For, depth: int) -> set[str]:
    """The names the `depth` perfectly nested loops from `loop` inward count with (as written in
    their `init`); the nest's shape is checked elsewhere."""
    names: set[str] = set()
    current: ast.Stmt | None = loop
    for _ in range(depth):
        if not isinstance(current, ast.For):
            break
        init = current.init
        if isinstance(init, ast.Decl):
            names.update(d.declarator.name for d in init.declarators if d.declarator.name)
        elif isinstance(init.expr, ast.Assign) and isinstance(init.expr.target, ast.Name):
            names.add(init.expr.target.name)
        body = current.body
        while isinstance(body, ast.Block) and len(body.items) == 1:
            body = body.items[0]
        current = body
    return names


def make_copies(info: ParallelInfo, loop_names: set[str]) -> dict[str, Var]:
    """The body's own variables for the private, firstprivate and lastprivate ones (recorded in
    `info.copies`), by name: the scope the loop body is analysed in."""
    copies: dict[Var, PrivateCopy] = {}
    for item in info.listed:
        if item.clause not in ("private", "firstprivate", "lastprivate"):
            continue
        if item.var.name in loop_names:
            continue
        original = item.var
        copy = copies.get(original)
        if copy is None:
            var = Var(original.name, original.type, original.pos, original.spelling,
                      const=original.const)  # fmt: skip
            copy = copies[original] = PrivateCopy(original, var)
        copy.first |= item.clause == "firstprivate"
        copy.last |= item.clause == "lastprivate"
    for copy in copies.values():
        if not copy.first and not copy.copy.is_array:
            copy.copy.needs_slot = copy.copy.unassigned = True  # as `T x;` in the body
    info.copies = list(copies.values())
    return {copy.original.name: copy.copy for copy in info.copies}


def check_default_none(loop: ast.For, info: ParallelInfo, loop_names: set[str],
                       error: Error) -> None:  # fmt: skip
    """`default(none)`: the first use (in source order) of a variable declared outside the
    loop that no clause lists and that is not one of its loop variables is an error."""
    listed = {item.var for item in info.listed}
    unlisted = [
        name
        for name in _names(loop)
        if name.var in info.visible and name.var not in listed and name.name not in loop_names
    ]
    if unlisted:
        first = min(unlisted, key=lambda n: n.pos)
        raise error(
            f"'{first.name}' is not listed in a data-sharing clause of this loop, which has "
            f"default(none): add shared({first.name}) (or private, firstprivate, ...)",
            first.pos,
        )


def _names(stmt: ast.Stmt) -> Iterator[ast.Name]:
    """Every name `stmt` uses, at any depth."""
    stack: list[ast.Stmt] = [stmt]
    while stack:
        s = stack.pop()
        exprs: list[ast.Expr | None] = []
        if isinstance(s, ast.ExprStmt):
            exprs = [s.expr]
        elif isinstance(s, ast.Decl):
            exprs = [d.init for d in s.declarators if isinstance(d.init, ast.Expr)]
        elif isinstance(s, ast.If):
            exprs = [s.cond]
            stack += [x for x in (s.then, s.otherwise) if x is not None]
        elif isinstance(s, ast.While | ast.DoWhile):
            exprs = [s.cond]
            stack.append(s.body)
        elif isinstance(s, ast.For):
            exprs = [s.cond, s.step]
            stack += [s.init, s.body]
        elif isinstance(s, ast.Block):
            stack += s.items
        for expr in exprs:
            if expr is not None:
                yield from (e for e in walk_expr(expr) if isinstance(e, ast.Name))
