"""Evaluating the launch description's size expressions (docs/ir.md, "The launch description").

The grid, block and shared-memory sizes of a launch are C integer expressions over the host
function's scalar parameters. This module reads exactly that language, with C semantics on two
types. `long long` (literals, the results of `(int)`, `(unsigned)` and `(long long)`, which
convert as C does, and parameters of signed or 32-bit types): division truncates toward zero,
`%` takes the dividend's sign, and a value outside the signed 64-bit range is an error, never
wrapped silently (C leaves signed overflow undefined). `unsigned long long` (the result of
`(unsigned long long)` and a parameter passed as a NumPy `uint64`, or as an int beyond 2^63 - 1):
as in C, an operator with such an operand converts the other one to it (C's usual arithmetic
conversions) and computes modulo 2^64, dividing and comparing (`min`, `max`, `<`, ...)
unsigned, so `n - lo` on `unsigned long` parameters is their distance even beyond 2^63.
Comparisons, `!`, `&&` and `||` give 0 or 1 (a `long long`, C's `int`); `&&` and `||`
short-circuit as in C (the operand they skip may not even be computable, e.g. `n != 0 && m / n`).
They are what the conditions of a function's host program (its `if` steps) need:

    cond    := and ('||' and)*
    and     := eq ('&&' eq)*
    eq      := rel (('==' | '!=') rel)*
    rel     := expr (('<' | '<=' | '>' | '>=') expr)*
    expr    := term (('+' | '-') term)*
    term    := unary (('*' | '/' | '%') unary)*
    unary   := ('-' | '+' | '!') unary | '(' TYPE ')' unary | primary
    primary := INTEGER | NAME | '(' cond ')' | ('min' | 'max') '(' cond ',' cond ')'
    TYPE    := 'int' | 'unsigned' | 'long long' | 'unsigned long long'

Anything else is rejected with a ValueError; strings are never handed to Python's `eval`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from numbers import Integral
from typing import Any

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(<=|>=|==|!=|&&|\|\||\S))")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_CASTS = {"int": (32, True), "unsigned": (32, False), "long long": (64, True),
          "unsigned long long": (64, False)}  # fmt: skip
"""The cast types: (bits, signed)."""


def _tokenize(expr: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(expr):
        number, name, other = match.groups()
        if number is not None:
            tokens.append(("int", number))
        elif name is not None:
            tokens.append(("name", name))
        elif other is not None:
            if other not in _OPERATORS:
                raise ValueError(f"launch expression {expr!r}: unexpected character {other!r}")
            tokens.append(("op", other))
    return tokens


_U64 = 1 << 64
_OPERATORS = {*"+-*/%(),<>!", "<=", ">=", "==", "!=", "&&", "||"}
_COMPARISONS: dict[str, Callable[[int, int], bool]] = {
    "<": lambda x, y: x < y, "<=": lambda x, y: x <= y, ">": lambda x, y: x > y,
    ">=": lambda x, y: x >= y, "==": lambda x, y: x == y, "!=": lambda x, y: x != y,
}  # fmt: skip


class _Value:
    """An integer of the language with its C type: `unsigned long long` or `long long`."""

    __slots__ = ("unsigned", "value")

    def __init__(self, value: int, unsigned: bool):
        self.value = value
        self.unsigned = unsigned


def _check(value: int, expr: str) -> int:
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ValueError(f"launch expression {expr!r} overflows 64-bit integers")
    return value


def _c_div(a: int, b: int, expr: str) -> int:
    if b == 0:
        raise ValueError(f"launch expression {expr!r} divides by zero")
    q = abs(a) // abs(b)
    return _check(q if (a < 0) == (b < 0) else -q, expr)


def _c_rem(a: int, b: int, expr: str) -> int:
    return a - b * _c_div(a, b, expr)


def c_convert(value: int, bits: int, signed: bool) -> int:
    """C's conversion of an integer to a type of `bits` bits (modulo 2^bits)."""
    value %= 1 << bits
    return value - (1 << bits) if signed and value >= 1 << (bits - 1) else value


def _binary(op: str, a: _Value, b: _Value, expr: str) -> _Value:
    """`a op b` after C's usual arithmetic conversions (unsigned if either operand is)."""
    if op in _COMPARISONS:
        unsigned = a.unsigned or b.unsigned
        x, y = (a.value % _U64, b.value % _U64) if unsigned else (a.value, b.value)
        return _Value(int(_COMPARISONS[op](x, y)), False)
    if not (a.unsigned or b.unsigned):
        x, y = a.value, b.value
        if op == "/":
            return _Value(_c_div(x, y, expr), False)
        if op == "%":
            return _Value(_c_rem(x, y, expr), False)
        if op in ("min", "max"):
            return _Value(min(x, y) if op == "min" else max(x, y), False)
        result = x + y if op == "+" else x - y if op == "-" else x * y
        return _Value(_check(result, expr), False)
    x, y = a.value % _U64, b.value % _U64
    if op in ("/", "%") and y == 0:
        raise ValueError(f"launch expression {expr!r} divides by zero")
    results = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y,
               "/": lambda: x // y, "%": lambda: x % y, "min": lambda: min(x, y),
               "max": lambda: max(x, y)}  # fmt: skip
    return _Value(results[op]() % _U64, True)


def _name_value(value: Any) -> _Value | None:
    """A parameter's value with its type: a NumPy uint64, or an int beyond the signed range,
    is `unsigned long long`; other integers are `long long`. None if it is no integer."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        return None
    number = int(value)
    dtype = getattr(value, "dtype", None)  # a NumPy scalar of the parameter's C type
    unsigned = (dtype is not None and dtype.kind == "u" and dtype.itemsize == 8) \
        or number > _INT64_MAX
    if unsigned and 0 <= number < _U64:
        return _Value(number, True)
    if _INT64_MIN <= number <= _INT64_MAX:
        return _Value(number, False)
    return None


class _Parser:
    def __init__(self, expr: str, scalars: Mapping[str, Any]):
        self.expr = expr
        self.scalars = scalars
        self.tokens = _tokenize(expr)
        self.pos = 0
        self.skipping = 0  # inside an operand `&&`/`||` does not evaluate

    def combine(self, op: str, a: _Value, b: _Value) -> _Value:
        """`a op b`; in an unevaluated operand its arithmetic errors are none (its value is
        never used)."""
        try:
            return _binary(op, a, b, self.expr)
        except ValueError:
            if self.skipping:
                return _Value(0, False)
            raise

    def error(self, what: str) -> ValueError:
        return ValueError(f"launch expression {self.expr!r}: {what}")

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise self.error("unexpected end")
        self.pos += 1
        return token

    def expect(self, op: str) -> None:
        token = self.peek()
        if token != ("op", op):
            found = "the end" if token is None else repr(token[1])
            raise self.error(f"expected {op!r}, found {found}")
        self.pos += 1

    def parse(self) -> int:
        value = self.logical_or()
        if (token := self.peek()) is not None:
            raise self.error(f"unexpected {token[1]!r}")
        return value.value

    def logical_or(self) -> _Value:
        value = self.logical_and()
        while self.peek() == ("op", "||"):
            self.pos += 1
            value = self.short_circuit(value, self.logical_and, stop_at=True)
        return value

    def logical_and(self) -> _Value:
        value = self.binaries(("==", "!="), self.relational)
        while self.peek() == ("op", "&&"):
            self.pos += 1
            value = self.short_circuit(
                value, lambda: self.binaries(("==", "!="), self.relational), stop_at=False
            )
        return value

    def short_circuit(self, left: _Value, right: Callable[[], _Value], stop_at: bool) -> _Value:
        """`left || right` (`stop_at` true) or `left && right`: the right operand is parsed
        but, when the left one decides, it is not computed (its arithmetic cannot fail)."""
        if bool(left.value) == stop_at:
            self.skipping += 1
            try:
                right()
            finally:
                self.skipping -= 1
            return _Value(int(stop_at), False)
        return _Value(int(bool(right().value)), False)

    def relational(self) -> _Value:
        return self.binaries(("<", "<=", ">", ">="), self.additive)

    def binaries(self, ops: tuple[str, ...], operand: Callable[[], _Value]) -> _Value:
        value = operand()
        while (token := self.peek()) is not None and token[0] == "op" and token[1] in ops:
            self.pos += 1
            value = self.combine(token[1], value, operand())
        return value

    def additive(self) -> _Value:
        value = self.term()
        while (token := self.peek()) in (("op", "+"), ("op", "-")):
            self.pos += 1
            value = self.combine(token[1], value, self.term())
        return value

    def term(self) -> _Value:
        value = self.unary()
        while (token := self.peek()) in (("op", "*"), ("op", "/"), ("op", "%")):
            self.pos += 1
            value = self.combine(token[1], value, self.unary())
        return value

    def unary(self) -> _Value:
        token = self.peek()
        if token == ("op", "!"):
            self.pos += 1
            return _Value(int(not self.unary().value), False)
        if token in (("op", "-"), ("op", "+")):
            self.pos += 1
            operand = self.unary()
            if token[1] == "+":
                return operand
            if operand.unsigned:
                return _Value(-operand.value % _U64, True)
            return self.combine("-", _Value(0, False), operand)
        cast = self.cast_type()
        if cast is not None:
            bits, signed = _CASTS[cast]
            value = c_convert(self.unary().value, bits, signed)
            return _Value(value, unsigned=bits == 64 and not signed)
        return self.primary()

    def cast_type(self) -> str | None:
        """The type of a cast at this point, `(unsigned)`, consumed; None if there is none."""
        if self.peek() != ("op", "("):
            return None
        end = self.pos + 1
        while end < len(self.tokens) and self.tokens[end][0] == "name":
            end += 1
        words = " ".join(text for _, text in self.tokens[self.pos + 1 : end])
        if words not in _CASTS or end >= len(self.tokens) or self.tokens[end] != ("op", ")"):
            return None
        self.pos = end + 1
        return words

    def primary(self) -> _Value:
        kind, text = self.take()
        if kind == "int":
            # Literals above INT64_MAX only appear negated: `-9223372036854775807 - 1` is
            # how the most negative value is spelled, so plain range checking suffices.
            return _Value(_check(int(text), self.expr), False)
        if kind == "name":
            if text in ("min", "max") and self.peek() == ("op", "("):
                self.pos += 1
                a = self.logical_or()
                self.expect(",")
                b = self.logical_or()
                self.expect(")")
                return self.combine(text, a, b)
            if text not in self.scalars:
                raise self.error(f"unknown name {text!r}")
            value = _name_value(self.scalars[text])
            if value is None:
                given = self.scalars[text]
                if isinstance(given, Integral) and not isinstance(given, bool):  # pyright: ignore[reportUnnecessaryIsInstance]  # bool is an Integral at run time (int is registered)
                    raise ValueError(f"launch expression {self.expr!r} overflows 64-bit integers")
                raise self.error(f"{text} = {given!r} is not an integer")
            return value
        if (kind, text) == ("op", "("):
            value = self.logical_or()
            self.expect(")")
            return value
        raise self.error(f"unexpected {text!r}")


def evaluate(expr: object, scalars: Mapping[str, Any]) -> int:
    """The value of a launch size expression given the scalar parameters' values (an
    `unsigned long long` result is returned as its value in [0, 2^64))."""
    if not isinstance(expr, str):
        raise ValueError(f"launch expression must be a string, got {expr!r}")
    return _Parser(expr, scalars).parse()


def launch_config(
    launch: Mapping[str, Any], scalars: Mapping[str, Any]
) -> tuple[tuple[int, int, int], tuple[int, int, int], int]:
    """(grid, block, dynamic shared bytes) of one entry of a function's `launches`.

    Values are returned as computed; a grid with a zero or negative size means the loop it
    covers is empty, and it is the executor's business not to launch it.
    """
    grid = tuple(evaluate(e, scalars) for e in launch["grid"])
    block = tuple(evaluate(e, scalars) for e in launch["block"])
    if len(grid) != 3 or len(block) != 3:
        raise ValueError(f"launch of {launch.get('kernel')!r}: grid and block need 3 sizes")
    shared = evaluate(launch.get("dynamic_shared_bytes", "0"), scalars)
    return grid, block, shared
