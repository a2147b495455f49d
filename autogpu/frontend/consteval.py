"""Integer constant expressions, evaluated with C semantics on typed ASTs.

Used for array extents and `collapse(n)`, to recognise constant loop steps, and to fold
constants in the IR (`-1`, `N * N` with `#define N 64`).
"""

from __future__ import annotations

from autogpu.frontend import ast
from autogpu.frontend.types import Scalar, fold_convert, wrap


def const_int(expr: ast.Expr) -> int | None:
    """The value of a typed integer constant expression, or None if it is not one (or C leaves
    it undefined, like a division by zero)."""
    ctype = expr.ctype
    if not isinstance(ctype, Scalar) or not ctype.is_int:
        return None
    if isinstance(expr, ast.IntLit):
        return wrap(expr.value, ctype)
    if isinstance(expr, ast.Unary):
        value = const_int(expr.operand)
        if value is None:
            return None
        if expr.op == "-":
            return wrap(-value, ctype)
        if expr.op == "+":
            return value
        if expr.op == "~":
            return wrap(~value, ctype)
        if expr.op == "!":
            return int(value == 0)
        return None
    if isinstance(expr, ast.Cast):
        source = expr.operand.ctype
        if isinstance(source, Scalar) and source.is_int:
            value = const_int(expr.operand)
            return None if value is None else wrap(value, ctype)
        if isinstance(expr.operand, ast.FloatLit):
            folded = fold_convert(expr.operand.value, expr.operand.type, ctype)
            return None if folded is None else int(folded)
        return None
    if isinstance(expr, ast.Binary) and expr.operand_type is not None:
        lhs, rhs = const_int(expr.lhs), const_int(expr.rhs)
        if lhs is None or rhs is None:
            return None
        t = expr.operand_type
        if not t.is_int:
            return None
        if expr.op in ("<<", ">>"):
            lhs = wrap(lhs, t)
            if not 0 <= rhs < t.bits:
                return None
            return wrap(lhs << rhs, t) if expr.op == "<<" else lhs >> rhs
        lhs, rhs = wrap(lhs, t), wrap(rhs, t)
        return fold_binary(expr.op, lhs, rhs, t)
    if isinstance(expr, ast.Conditional):
        cond = const_int(expr.cond)
        if cond is None:
            return None
        chosen = const_int(expr.then if cond else expr.otherwise)
        return None if chosen is None else wrap(chosen, ctype)
    return None


def fold_binary(op: str, lhs: int, rhs: int, t: Scalar) -> int | None:
    """`lhs op rhs` in integer type `t` (operands already in range), or None if undefined."""
    if op in ("/", "%"):
        if rhs == 0:
            return None
        quotient = abs(lhs) // abs(rhs) * (1 if (lhs < 0) == (rhs < 0) else -1)  # truncates
        return wrap(quotient, t) if op == "/" else wrap(lhs - quotient * rhs, t)
    results = {
        "+": lambda: lhs + rhs,
        "-": lambda: lhs - rhs,
        "*": lambda: lhs * rhs,
        "&": lambda: lhs & rhs,
        "|": lambda: lhs | rhs,
        "^": lambda: lhs ^ rhs,
        "<": lambda: int(lhs < rhs),
        ">": lambda: int(lhs > rhs),
        "<=": lambda: int(lhs <= rhs),
        ">=": lambda: int(lhs >= rhs),
        "==": lambda: int(lhs == rhs),
        "!=": lambda: int(lhs != rhs),
        "&&": lambda: int(bool(lhs) and bool(rhs)),
        "||": lambda: int(bool(lhs) or bool(rhs)),
    }
    if op not in results:
        return None
    value = results[op]()
    return value if op in ("<", ">", "<=", ">=", "==", "!=", "&&", "||") else wrap(value, t)
