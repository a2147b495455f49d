"""A small, safe expression language for restrictions, value generators and array lengths.

Users write expressions in space files and on the command line (`--restrict "block_size *
unroll <= 2048"`, `--array A=m*n`, `block_size = "pow2(32, 512)"`). They are parsed with
Python's `ast` and only a whitelist of nodes is accepted: numbers, booleans, strings, names
bound by the caller, arithmetic, comparisons, `and`/`or`/`not` (also C's `&&`, `||`, `!`),
`x if c else y`, lists and tuples, and calls of the functions the caller provides. Nothing
else (attributes, subscripts, lambdas, comprehensions, dunder names) is evaluated, so a space
file can never run code. `**` is limited to small exponents so an expression cannot hang.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from autogpu.diagnostics import CompileError
from autogpu.narrowing import is_sequence


class ExprError(CompileError):
    """A malformed expression, or one that names something unknown."""


_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: operator.mod,
    ast.BitAnd: lambda a, b: a & b,
    ast.BitOr: lambda a, b: a | b,
    ast.BitXor: lambda a, b: a ^ b,
    ast.LShift: lambda a, b: a << b,
    ast.RShift: lambda a, b: a >> b,
}
_CMPOPS: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_MAX_EXPONENT = 64
_LITERAL_NAMES = frozenset({"true", "false", "True", "False"})
_MAX_SHIFT = 64
#: The largest integer `**` may make, in bits (nested powers would otherwise grow without end).
_MAX_POWER_BITS = 1024
#: The longest list or string an expression may build (`[0] * 10**9` would exhaust the memory).
MAX_LENGTH = 10_000


def _is_power_of_two(x: object) -> bool:  # an expression may pass any value
    return isinstance(x, int) and x > 0 and (x & (x - 1)) == 0


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _log2(x: float) -> float:
    return math.log2(x)


BASE_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "min": min,
    "max": max,
    "abs": abs,
    "ceil_div": _ceil_div,
    "is_power_of_two": _is_power_of_two,
    "log2": _log2,
    "int": int,
    "len": len,
    "prod": math.prod,
}


def _c_to_python(text: str) -> str:
    """Accept C's boolean operators too: `a && b`, `a || b`, `!a` (but not `!=`)."""
    text = text.replace("&&", " and ").replace("||", " or ")
    return re.sub(r"!(?!=)", " not ", text)


@dataclass(frozen=True)
class Expr:
    """A parsed, validated expression; `names` are the free names it reads."""

    text: str
    tree: ast.Expression = field(repr=False, compare=False)
    names: frozenset[str] = frozenset()

    def __call__(
        self, env: Mapping[str, Any], functions: Mapping[str, Callable[..., Any]] | None = None
    ) -> Any:
        return evaluate(self, env, functions)

    def __str__(self) -> str:
        return self.text


def parse(text: object, functions: Mapping[str, Callable[..., Any]] | None = None) -> Expr:
    """Parse and validate `text`; raise ExprError naming the offending construct."""
    if not isinstance(text, str) or not text.strip():
        raise ExprError(f"empty expression: {text!r}")
    try:
        tree = ast.parse(_c_to_python(text.strip()), mode="eval")
    except SyntaxError as e:
        raise ExprError(f"invalid expression '{text}': {e.msg}") from None
    known = set(BASE_FUNCTIONS) | set(functions or {})
    names: set[str] = set()
    for node in ast.walk(tree):
        _check_node(node, text, known, names)
    return Expr(text.strip(), tree, frozenset(names))


_ALLOWED = (
    ast.Expression, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Constant,
    ast.Name, ast.Load, ast.Call, ast.List, ast.Tuple, ast.And, ast.Or, ast.Not, ast.USub,
    ast.UAdd, ast.Invert, ast.Pow, *_BINOPS, *_CMPOPS,
)


def _check_node(node: ast.AST, text: str, known: set[str], names: set[str]) -> None:
    if not isinstance(node, _ALLOWED):
        raise ExprError(f"'{text}': {type(node).__name__} is not allowed in expressions")
    if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float, str, bool)):
        raise ExprError(f"'{text}': constant {node.value!r} is not allowed")
    if isinstance(node, ast.Name):
        if node.id.startswith("_"):
            raise ExprError(f"'{text}': names starting with '_' are not allowed")
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in known:
            fn = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
            raise ExprError(
                f"'{text}': unknown function '{fn}' (known: {', '.join(sorted(known))})"
            )
        if node.keywords and any(k.arg is None for k in node.keywords):
            raise ExprError(f"'{text}': '**' arguments are not allowed")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise ExprError(f"'{text}': '*' arguments are not allowed")
    elif isinstance(node, ast.Name) and node.id not in _LITERAL_NAMES:
        names.add(node.id)
    # Names used as call targets are functions, not free variables.
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        names.discard(node.func.id)


def evaluate(
    expr: Expr | str,
    env: Mapping[str, Any],
    functions: Mapping[str, Callable[..., Any]] | None = None,
) -> Any:
    """Evaluate `expr` with the names in `env` and the whitelisted `functions`."""
    if isinstance(expr, str):
        expr = parse(expr, functions)
    fns = {**BASE_FUNCTIONS, **(functions or {})}
    try:
        return _eval(expr.tree.body, env, fns, expr.text)
    except ExprError:
        raise
    except ZeroDivisionError:
        raise ExprError(f"'{expr.text}': division by zero") from None
    except (TypeError, ValueError, OverflowError) as e:
        raise ExprError(f"'{expr.text}': {e}") from None


def _check_power(a: Any, b: Any, text: str) -> None:
    if isinstance(b, (int, float)) and abs(b) > _MAX_EXPONENT:
        raise ExprError(f"'{text}': exponent {b} is too large")
    if isinstance(a, int) and isinstance(b, int) and b > 0 and \
            a.bit_length() * b > _MAX_POWER_BITS:
        raise ExprError(f"'{text}': {a} ** {b} is too large (more than {_MAX_POWER_BITS} bits)")


def _check_repetition(a: Any, b: Any, text: str) -> None:
    """`[x] * n` and `"s" * n` build at most MAX_LENGTH elements."""
    for sequence, count in ((a, b), (b, a)):
        if (is_sequence(sequence) or isinstance(sequence, str)) and isinstance(count, int) and \
                len(sequence) * count > MAX_LENGTH:
            raise ExprError(f"'{text}': the repetition would have {len(sequence) * count} "
                            f"elements, more than the limit of {MAX_LENGTH}")


def _eval(
    node: ast.AST, env: Mapping[str, Any], fns: Mapping[str, Callable[..., Any]], text: str
) -> Any:
    match node:
        case ast.Constant(value=value):
            return value
        case ast.Name(id=name):
            if name in env:
                return env[name]
            if name in ("true", "True"):
                return True
            if name in ("false", "False"):
                return False
            raise ExprError(
                f"'{text}': unknown name '{name}' (known: {', '.join(sorted(env)) or 'none'})"
            )
        case ast.BinOp(left=left, op=op, right=right):
            a, b = _eval(left, env, fns, text), _eval(right, env, fns, text)
            if isinstance(op, ast.Pow):
                _check_power(a, b, text)
                return a**b
            if isinstance(op, ast.Mult):
                _check_repetition(a, b, text)
            if isinstance(op, (ast.LShift, ast.RShift)) and abs(b) > _MAX_SHIFT:
                raise ExprError(f"'{text}': shift by {b} is too large")
            return _BINOPS[type(op)](a, b)
        case ast.UnaryOp(op=op, operand=operand):
            v = _eval(operand, env, fns, text)
            if isinstance(op, ast.Not):
                return not v
            if isinstance(op, ast.USub):
                return -v
            if isinstance(op, ast.Invert):
                return ~v
            return +v
        case ast.BoolOp(op=op, values=values):
            if isinstance(op, ast.And):
                result: Any = True
                for v in values:
                    result = _eval(v, env, fns, text)
                    if not result:
                        return result
                return result
            result = False
            for v in values:
                result = _eval(v, env, fns, text)
                if result:
                    return result
            return result
        case ast.Compare(left=left, ops=ops, comparators=comparators):
            a = _eval(left, env, fns, text)
            for op, right in zip(ops, comparators):
                b = _eval(right, env, fns, text)
                if not _CMPOPS[type(op)](a, b):
                    return False
                a = b
            return True
        case ast.IfExp(test=test, body=body, orelse=orelse):
            cond = _eval(test, env, fns, text)
            return _eval(body if cond else orelse, env, fns, text)
        case ast.List(elts=elts) | ast.Tuple(elts=elts):
            return [_eval(e, env, fns, text) for e in elts]
        case ast.Call(func=ast.Name(id=fn), args=args, keywords=keywords):
            values = [_eval(a, env, fns, text) for a in args]
            kwargs: dict[str, Any] = {}
            for k in keywords:
                assert k.arg is not None  # parse() refuses `**` arguments
                kwargs[k.arg] = _eval(k.value, env, fns, text)
            return fns[fn](*values, **kwargs)
        case _:
            pass  # any other node: the error below
    raise ExprError(f"'{text}': cannot evaluate {type(node).__name__}")
