"""Integer constant expressions, evaluated with C semantics on typed ASTs.

Used for array extents and `collapse(n)`, to recognise constant loop steps, and to fold
constants in the IR (`-1`, `N * N` with `#define N 64`).
"""

from __future__ import annotations

from autogpu.frontend import ast
from autogpu.frontend.types import Scalar, fold_convert, max_value, wrap


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
        # The right operand first: in a long left-associative chain `a + b + ... + 1` it is
        # the leaf, so a chain that is not constant is recognised at once, not by a descent.
        rhs = const_int(expr.rhs)
        lhs = None if rhs is None else const_int(expr.lhs)
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


def undefined_operation(op: str, lhs: int | None, rhs: int | None, t: Scalar) -> str | None:
    """Why C leaves `lhs op rhs` in integer type `t` undefined, from the operands known to be
    constants (None: not constant; values already in `t`'s range), or None if it is defined
    (unsigned arithmetic wraps; shifting 1 into the sign bit is accepted, as gcc does)."""
    if op in ("/", "%") and rhs == 0:
        return "division by zero" if op == "/" else "remainder by zero"
    if op in ("<<", ">>") and rhs is not None and not 0 <= rhs < t.bits:
        return f"shift count {rhs} is out of range for '{t}'"
    if lhs is None or rhs is None or not t.signed:
        return None
    if op == "<<":
        if lhs < 0:
            return f"left shift of the negative value {lhs}"
        exact, limit = lhs << rhs, 2**t.bits
    elif op in ("+", "-", "*"):
        exact, limit = {"+": lhs + rhs, "-": lhs - rhs, "*": lhs * rhs}[op], max_value(t) + 1
    elif op in ("/", "%"):  # INT_MIN / -1: the quotient overflows (also for %)
        exact, limit = _truncating_quotient(lhs, rhs), max_value(t) + 1
    else:
        return None
    if -(max_value(t) + 1) <= exact < limit:
        return None
    return f"integer overflow: the exact value {exact} does not fit in '{t}'"


def fold_binary(op: str, lhs: int, rhs: int, t: Scalar) -> int | None:
    """`lhs op rhs` in integer type `t` (operands already in range), or None if undefined."""
    if op in ("/", "%"):
        if rhs == 0:
            return None
        quotient = _truncating_quotient(lhs, rhs)
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


def _truncating_quotient(lhs: int, rhs: int) -> int:
    """C's integer division: the quotient rounded toward zero."""
    return abs(lhs) // abs(rhs) * (1 if (lhs < 0) == (rhs < 0) else -1)
