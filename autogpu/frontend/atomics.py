"""`#pragma omp atomic` and `#pragma omp critical` (OpenMP 5.2, 15.8.4 and 15.2): the statement
forms they accept, checked here with located errors, and what irgen needs to know of them.

atomic (clauses: `update` (default), `read`, `write`, `capture`; memory orders and `hint` are
accepted, `compare` refused):

    update:  x binop= e;  x = x binop e;  x = e binop x;  x++;  ++x;  x--;  --x;
    read:    v = x;
    write:   x = e;
    capture: v = x++;  v = x--;  v = ++x;  v = --x;  v = x binop= e;
             {v = x; update;}  {update; v = x;}  {v = x; x = e;}   (update: an update form)

with `binop` one of `+ * - / & ^ | << >>`, `x` an array element or a scalar of an arithmetic
type, `e` not reading `x`.
In serial code, and on a scalar declared inside the parallel loop (private to an iteration),
the statement is ordinary: no other thread can see `x`.

critical: `#pragma omp critical [(name)]` on a statement; no `return` may leave it (sema
refuses `goto`, `break` and `continue` everywhere), and a section may not contain one of the
same name (it would wait for itself).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeGuard

from autogpu.frontend import ast
from autogpu.frontend.preprocess import Pragma
from autogpu.frontend.symbols import describe, walk_expr
from autogpu.frontend.types import INT, Scalar
from autogpu.narrowing import is_list

if TYPE_CHECKING:
    from autogpu.frontend.sema import Sema

ATOMIC_BINOPS = ("+", "*", "-", "/", "&", "^", "|", "<<", ">>")
_ATOMIC_CLAUSES = ("update", "read", "write", "capture")
_MEMORY_ORDERS = ("seq_cst", "acq_rel", "release", "acquire", "relaxed")
_FORMS = {
    "update": "'x binop= e', 'x = x binop e', 'x = e binop x', 'x++', '++x', 'x--' or '--x'",
    "read": "'v = x'",
    "write": "'x = e'",
    "capture": "'v = x++', 'v = ++x', 'v = x--', 'v = --x', 'v = x binop= e', "
               "'{v = x; x binop= e;}', '{x binop= e; v = x;}' or '{v = x; x = e;}'",
}


_BLOCK_FORMS = "'{v = x; x binop= e;}', '{x binop= e; v = x;}' or '{v = x; x = e;}'"


@dataclass(eq=False)
class AtomicInfo:
    """An atomic statement: `x = x op value` (`value op x` when `reversed`), computed in
    `operand_type`; a read has no op, a write no op either (`x = value`). A capture also
    assigns `v` the value of `x` before (after, with `captures_new`) the update."""

    clause: str
    x: ast.Expr
    op: str | None = None
    value: ast.Expr | None = None
    reversed: bool = False
    operand_type: Scalar | None = None
    v: ast.Expr | None = None
    captures_new: bool = False
    shared: bool = True  # False: serial code, or x private to an iteration (a plain statement)


@dataclass(eq=False)
class CriticalInfo:
    name: str
    shared: bool = True  # False in serial code: a plain block


def synchronization(sema: Sema, pragma: Pragma, stmt: ast.Stmt) -> AtomicInfo | CriticalInfo:
    """Types `stmt` (through `sema`) and checks it against the pragma's forms."""
    directive = pragma.text.split("(")[0].split()[1]
    if directive == "critical":
        return _critical(sema, pragma, stmt)
    if directive == "flush":
        raise sema.error(
            "'#pragma omp flush' is not supported: use '#pragma omp atomic' or "
            "'#pragma omp critical' to share values between iterations",
            (pragma.line, pragma.column),
        )
    return _atomic(sema, pragma, stmt)


# ---- atomic -------------------------------------------------------------------------------------


def _atomic(sema: Sema, pragma: Pragma, stmt: ast.Stmt) -> AtomicInfo:
    clause = _atomic_clause(sema, pragma)
    where = (pragma.line, pragma.column)
    if clause == "capture" and isinstance(stmt, ast.Block):
        info = _capture_block(sema, stmt)
        _check_location(sema, info)
        info.shared = sema.shared_across_iterations(info.x)
        return info
    if not isinstance(stmt, ast.ExprStmt) or stmt.expr is None:
        raise sema.error(
            f"'#pragma omp atomic {clause}' must be followed by an expression statement "
            f"of the form {_FORMS[clause]}",
            where,
        )
    expr = stmt.expr
    if clause == "capture":
        info = _capture(sema, expr, where)
    else:
        sema.effect(expr)
        info = {"update": _update, "read": _read, "write": _write}[clause](sema, expr, where)
    _check_location(sema, info)
    info.shared = sema.shared_across_iterations(info.x)
    return info


def _atomic_clause(sema: Sema, pragma: Pragma) -> str:
    text = pragma.text
    found = re.match(r"omp\s+atomic", text)
    assert found is not None, "synchronization() dispatched an `omp atomic` pragma here"
    position = found.end()
    clause = None
    for match in re.finditer(r"[A-Za-z_]\w*(\s*\([^)]*\))?|[^\s,]", text[position:]):
        word = match.group(0).split("(")[0].strip()
        where = (pragma.line, pragma.column_of(position + match.start()))
        if word in _ATOMIC_CLAUSES:
            if clause is not None:
                raise sema.error("'#pragma omp atomic' takes one of update, read, write and "
                                 f"capture, got both '{clause}' and '{word}'", where)
            clause = word
        elif word in _MEMORY_ORDERS or word == "hint":
            continue  # each atomic is one relaxed device-wide operation (docs/ir.md)
        else:
            raise sema.error(
                f"clause '{word}' is not supported on '#pragma omp atomic': use update, "
                "read, write or capture (with an optional memory order)",
                where,
            )
    return clause or "update"


def _update(sema: Sema, expr: ast.Expr, where: ast.Pos) -> AtomicInfo:
    if isinstance(expr, ast.IncDec):
        return AtomicInfo("update", expr.target, "+" if expr.op == "++" else "-",
                          _one(expr.pos), operand_type=expr.operand_type)  # fmt: skip
    if isinstance(expr, ast.Assign) and expr.op != "=":
        op = expr.op[:-1]
        if op not in ATOMIC_BINOPS:
            raise sema.error(f"'{expr.op}' is not an atomic update: binop must be one of "
                             f"{' '.join(ATOMIC_BINOPS)}", expr.pos)  # fmt: skip
        return _checked(sema, AtomicInfo("update", expr.target, op, expr.value,
                                         operand_type=expr.operand_type))  # fmt: skip
    if isinstance(expr, ast.Assign) and isinstance(expr.value, ast.Binary):
        b = expr.value
        if b.op in ATOMIC_BINOPS:
            if same_lvalue(b.lhs, expr.target):
                info = AtomicInfo("update", expr.target, b.op, b.rhs, operand_type=b.operand_type)
                return _checked(sema, info)
            if same_lvalue(b.rhs, expr.target):
                info = AtomicInfo("update", expr.target, b.op, b.lhs, reversed=True,
                                  operand_type=b.operand_type)  # fmt: skip
                return _checked(sema, info)
    raise sema.error(f"'#pragma omp atomic update' needs a statement of the form "
                     f"{_FORMS['update']}", expr.pos)  # fmt: skip


def _read(sema: Sema, expr: ast.Expr, where: ast.Pos) -> AtomicInfo:
    if (isinstance(expr, ast.Assign) and expr.op == "=" and _is_lvalue(expr.value)
            and not same_lvalue(expr.target, expr.value)):  # fmt: skip
        return AtomicInfo("read", expr.value, v=expr.target)
    raise sema.error("'#pragma omp atomic read' needs a statement of the form 'v = x', with "
                     "v and x two different variables or array elements", expr.pos)  # fmt: skip


def _write(sema: Sema, expr: ast.Expr, where: ast.Pos) -> AtomicInfo:
    if isinstance(expr, ast.Assign) and expr.op == "=":
        return _checked(sema, AtomicInfo("write", expr.target, value=expr.value))
    raise sema.error("'#pragma omp atomic write' needs a statement of the form 'x = e'",
                     expr.pos)  # fmt: skip


def _capture(sema: Sema, expr: ast.Expr, where: ast.Pos) -> AtomicInfo:
    if isinstance(expr, ast.Assign) and expr.op == "=":
        inner = expr.value
        if isinstance(inner, ast.IncDec) or (isinstance(inner, ast.Assign) and inner.op != "="):
            sema.effect(inner)
            info = _update(sema, inner, where)
            info.clause = "capture"
            info.v = expr.target
            info.captures_new = isinstance(inner, ast.Assign) or inner.prefix
            v_type = sema.target(expr.target, "=")
            if not isinstance(v_type, Scalar):  # pragma: no cover  # pyright: ignore[reportUnnecessaryIsInstance]  # defensive: target() refuses arrays
                raise sema.error("the captured value needs a scalar variable", expr.pos)
            if same_lvalue(expr.target, info.x):
                raise sema.error("'#pragma omp atomic capture': v and x must differ", expr.pos)
            return info
    raise sema.error(f"'#pragma omp atomic capture' needs a statement of the form "
                     f"{_FORMS['capture']}", expr.pos)  # fmt: skip


def _capture_block(sema: Sema, block: ast.Block) -> AtomicInfo:
    """`{v = x; x op= e;}` (v gets the old value), `{x op= e; v = x;}` (the new one), or
    `{v = x; x = e;}` (an exchange)."""
    items = [item.expr for item in block.items
             if isinstance(item, ast.ExprStmt) and item.expr is not None]  # fmt: skip
    if len(items) != 2 or len(block.items) != 2:
        raise sema.error("'#pragma omp atomic capture' on a block needs exactly two expression "
                         f"statements: {_BLOCK_FORMS}", block.pos)  # fmt: skip
    first, second = items
    sema.effect(first)
    sema.effect(second)
    if _is_read(first) and same_lvalue(_updated(second), first.value):
        v, x = first.target, first.value
        if (isinstance(second, ast.Assign) and second.op == "=" and same_lvalue(second.target, x)
                and not _mentions(second.value, x)):  # fmt: skip
            info = _checked(sema, AtomicInfo("capture", x, value=second.value, v=v))
        else:
            info = _update(sema, second, second.pos)
            info.clause, info.v = "capture", v
    elif _is_read(second):
        info = _update(sema, first, first.pos)
        info.clause, info.v, info.captures_new = "capture", second.target, True
        v, x = second.target, second.value
    else:
        raise sema.error("'#pragma omp atomic capture' on a block needs one of "
                         f"{_BLOCK_FORMS}, with one location x", block.pos)  # fmt: skip
    if not same_lvalue(x, info.x) or same_lvalue(v, info.x):
        raise sema.error(
            f"'#pragma omp atomic capture': '{describe(v)} = {describe(x)}' must read the "
            f"location the other statement updates, '{describe(info.x)}', into another one",
            block.pos,
        )
    return info


def _updated(e: ast.Expr) -> ast.Expr | None:
    return e.target if isinstance(e, ast.Assign | ast.IncDec) else None


def _is_read(e: ast.Expr) -> TypeGuard[ast.Assign]:
    return isinstance(e, ast.Assign) and e.op == "=" and _is_lvalue(e.value)


def _mentions(e: ast.Expr, x: ast.Expr) -> bool:
    return any(_reads(sub, x) for sub in walk_expr(e))


def _checked(sema: Sema, info: AtomicInfo) -> AtomicInfo:
    """`e` must not read `x` (OpenMP: it may not access x's storage)."""
    if info.value is not None:
        for sub in walk_expr(info.value):
            if _reads(sub, info.x):
                raise sema.error(
                    f"the expression of an atomic {info.clause} must not read "
                    f"'{describe(info.x)}', the location it updates",
                    sub.pos,
                )
    return info


def _check_location(sema: Sema, info: AtomicInfo) -> None:
    x = info.x
    if not _is_lvalue(x):
        raise sema.error("an atomic location must be a variable or an array element", x.pos)
    if not isinstance(x.ctype, Scalar):
        raise sema.error(f"an atomic location must be of an arithmetic type, not "
                         f"'{x.ctype}'", x.pos)  # fmt: skip


def _reads(sub: ast.Expr, x: ast.Expr) -> bool:
    if isinstance(x, ast.Name):
        return isinstance(sub, ast.Name) and sub.var is x.var
    return same_lvalue(sub, x)


def _one(pos: ast.Pos) -> ast.IntLit:
    one = ast.IntLit(pos, 1, INT, "1")
    one.ctype = INT
    return one


def _is_lvalue(e: ast.Expr) -> bool:
    return isinstance(e, ast.Name) or (isinstance(e, ast.Index) and isinstance(e.ctype, Scalar))


def same_lvalue(a: ast.Expr | None, b: ast.Expr | None) -> bool:
    """Whether two expressions name one location: the same variable, or one array element
    by structurally equal subscripts (which read no location they could change)."""
    if isinstance(a, ast.Name) and isinstance(b, ast.Name):
        return a.var is not None and a.var is b.var
    if isinstance(a, ast.Index) and isinstance(b, ast.Index):
        return same_lvalue(a.base, b.base) and _same_expr(a.index, b.index)
    return False


def _same_expr(a: ast.Expr, b: ast.Expr) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, ast.Name | ast.Index):
        return same_lvalue(a, b)
    # b has a's type (above): each isinstance of b only tells pyright so.
    if isinstance(a, ast.IntLit | ast.FloatLit) and isinstance(b, ast.IntLit | ast.FloatLit):
        return a.value == b.value and a.type == b.type
    if isinstance(a, ast.Binary) and isinstance(b, ast.Binary):
        return a.op == b.op and _same_expr(a.lhs, b.lhs) and _same_expr(a.rhs, b.rhs)
    if isinstance(a, ast.Unary) and isinstance(b, ast.Unary):
        return a.op == b.op and _same_expr(a.operand, b.operand)
    if isinstance(a, ast.Cast) and isinstance(b, ast.Cast):
        return a.ctype == b.ctype and _same_expr(a.operand, b.operand)
    return False


# ---- critical -----------------------------------------------------------------------------------


def _critical(sema: Sema, pragma: Pragma, stmt: ast.Stmt) -> CriticalInfo:
    text = pragma.text
    match = re.fullmatch(r"omp\s+critical\s*(?:\(\s*([A-Za-z_]\w*)\s*\))?\s*(.*)", text)
    if match is None or match.group(2):
        raise sema.error("'#pragma omp critical' takes an optional '(name)' and no clause "
                         "(hint is not supported)", (pragma.line, pragma.column))  # fmt: skip
    name = match.group(1) or ""
    _no_exit(sema, stmt, name)
    info = CriticalInfo(name, shared=sema.in_parallel_loop())
    with sema.critical_section(name, pragma):
        sema.statement(stmt)
    return info


def _no_exit(sema: Sema, stmt: ast.Stmt, name: str) -> None:
    """A `return` would leave the lock held (`goto`, `break` and `continue` are refused
    everywhere)."""
    for inner in _statements(stmt):
        if isinstance(inner, ast.Return):
            raise sema.error(
                f"'return' cannot leave the critical section{f' ({name})' if name else ''}: "
                "a critical section must run to its end",
                inner.pos,
            )


def _statements(stmt: ast.Stmt) -> Iterator[ast.Stmt]:
    yield stmt
    for child in (getattr(stmt, f, None) for f in ("items", "then", "otherwise", "body")):
        if is_list(child):
            for item in child:
                if isinstance(item, ast.Stmt):
                    yield from _statements(item)
        elif isinstance(child, ast.Stmt):
            yield from _statements(child)
