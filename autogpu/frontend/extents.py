"""C99 array parameter extents that are expressions of earlier parameters: `double A[n+1][m+1]`.

C evaluates such an extent once, when the function is entered (C11 6.9.1p10), so irgen computes
it from the parameters' entry values wherever a subscript needs it. The launch description, the
runtime and the tuner need it too, as text in the language of `autogpu.target.launch.evaluate`
(64-bit integers, casts that wrap as C converts): `extent_text` writes the typed expression so
that evaluator computes what C computes, with a cast wherever C's type is unsigned (so `n - 1`
of an `unsigned n` is `(unsigned)(n - 1)`, 4294967295 for n = 0, as in C). Signed arithmetic is
taken not to overflow, as C takes it.
"""

from __future__ import annotations

from autogpu.frontend import ast
from autogpu.frontend.types import Scalar

OPERATORS = ("+", "-", "*", "/", "%")


def extent_text(expr: ast.Expr) -> str | None:
    """`expr` (typed by sema) as an evaluator expression; None where it has another form (an
    operator other than + - * / %, a call, a non-parameter, a float)."""
    text = _text(expr)
    if text is None:
        return None
    return text[1:-1] if text.startswith("(") and _balanced(text[1:-1]) else text


def _text(e: ast.Expr) -> str | None:
    t = e.ctype
    if not isinstance(t, Scalar) or t.is_float:
        return None
    if isinstance(e, ast.IntLit):
        return str(e.value)
    if isinstance(e, ast.Name):
        var = e.var
        if var is None or var.param_index is None or var.is_array:
            return None
        return e.name
    if isinstance(e, ast.Cast):
        inner = _text(e.operand)
        return None if inner is None else f"{_cast(t)}({inner})"
    if isinstance(e, ast.Unary) and e.op in ("-", "+"):
        inner = _as(e.operand, t)
        return None if inner is None else _wrapped(f"({e.op}{inner})", t)
    if isinstance(e, ast.Binary) and e.op in OPERATORS:
        lhs, rhs = _as(e.lhs, t), _as(e.rhs, t)
        if lhs is None or rhs is None:
            return None
        return _wrapped(f"({lhs} {e.op} {rhs})", t)
    return None


def _as(e: ast.Expr, t: Scalar) -> str | None:
    """An operand converted to the operation's type `t` (C's usual arithmetic conversions)."""
    text = _text(e)
    if text is None or e.ctype == t or t.signed:
        return text  # a signed result holds every operand's value: no conversion changes it
    return f"{_cast(t)}({text})"


def _wrapped(text: str, t: Scalar) -> str:
    return text if t.signed else f"{_cast(t)}{text}"


def _cast(t: Scalar) -> str:
    if t.bits == 64:
        return "(long long)" if t.signed else "(unsigned long long)"
    return "(int)" if t.signed else "(unsigned)"


def _balanced(text: str) -> bool:
    depth = 0
    for c in text:
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth < 0:
            return False
    return depth == 0
