"""The host's integer IR as expressions of the launch language, exactly (docs/ir.md).

The launch language (`autogpu.target.launch`) computes on integers checked to fit 64 bits; the
IR on `iN` bit patterns. So each printed value stands for one *reading* of its bits: the signed
one, the unsigned one, or (after arithmetic that may wrap, or a truncation) only a number
congruent to them modulo 2^N. An op that needs a reading (an extension, a division, a min or
max) gets it with a cast, `(int)x` or `(unsigned)x`, where the printed value might differ:
`for (unsigned i = 0; i < n - 5; i++)` launches `((unsigned)(n - 5) + 255) / 256` blocks.

Two rules keep the usual sizes free of casts. A 64-bit value of C type `long long` is always its
signed reading: the evaluator rejects anything outside the signed 64-bit range, and within it a
congruent value is the signed reading. One of type `unsigned long long` (an `unsigned long`
parameter, or a `(unsigned long long)` cast, and arithmetic on them, which wraps modulo 2^64 as
in C) is its unsigned reading, and gets `(long long)` where the signed one is needed: an
`unsigned long` loop from `lo` to `n` launches `max(((long long)(n - min(lo, n)) + 255) / 256, 1)`.
Arithmetic on C `int` values is taken not to overflow, as C (and the kernels,
compiled without `-fwrapv`) takes it: `m - 1` on `int m` is printed as is.
"""

from __future__ import annotations

from dataclasses import dataclass

from autogpu.target.c_expr import Binary, Cast, Expr, Literal, Name, Unary, call
from autogpu.target.launch import c_convert

_SIGNED_TYPES = {32: "int", 64: "long long"}
_UNSIGNED_TYPES = {32: "unsigned", 64: "unsigned long long"}


class Inexpressible(Exception):
    """The value cannot be printed exactly (the caller names the op)."""


@dataclass(frozen=True)
class Size:
    """A launch expression for an integer IR value of `width` bits."""

    expr: Expr
    width: int
    signed: bool  # the expression's value is the signed reading of the bits
    unsigned: bool  # ... the unsigned reading
    constant: int | None = None  # the bits read as signed, for an `arith.constant`
    ull: bool = False  # the expression's C type is `unsigned long long` (arithmetic wraps)


def parameter(name: str, width: int, is_unsigned: bool) -> Size:
    """A scalar parameter: the executors pass its C value (of its signedness)."""
    ull = is_unsigned and width == 64
    return Size(Name(name), width, signed=not is_unsigned, unsigned=is_unsigned, ull=ull)


def constant(value: int, width: int) -> Size:
    """An integer constant of these bits (`value` read as signed or not)."""
    value = c_convert(value, width, signed=True)
    return Size(literal(value), width, signed=True, unsigned=value >= 0, constant=value)


def as_signed(size: Size) -> Expr:
    """The signed reading of the value's bits."""
    if size.signed or (size.width == 64 and not size.ull):
        return size.expr
    return _cast(size, _SIGNED_TYPES)


def as_unsigned(size: Size) -> Expr:
    """The unsigned reading of the value's bits."""
    return _unsigned(size)[0]


def _unsigned(size: Size) -> tuple[Expr, bool]:
    """The unsigned reading, and whether its C type is `unsigned long long`."""
    if size.unsigned:
        return size.expr, size.ull
    if size.constant is not None:
        value = size.constant % (1 << size.width)
        if value <= 2**63 - 1:
            return literal(value), False
        return Cast("unsigned long long", literal(size.constant)), True
    return _cast(size, _UNSIGNED_TYPES), size.width == 64


def _cast(size: Size, types: dict[int, str]) -> Expr:
    if size.width not in types:
        raise Inexpressible(f"a {size.width}-bit integer")
    return Cast(types[size.width], size.expr)


_RING = {"arith.addi": "+", "arith.subi": "-", "arith.muli": "*"}
_SIGNED_OPS = {"arith.divsi": "/", "arith.remsi": "%", "arith.ceildivsi": "ceil",
               "arith.minsi": "min", "arith.maxsi": "max"}  # fmt: skip
_UNSIGNED_OPS = {"arith.divui": "/", "arith.remui": "%", "arith.ceildivui": "ceil",
                 "arith.minui": "min", "arith.maxui": "max"}  # fmt: skip
_EXTENSIONS = {"arith.extsi": False, "arith.extui": True, "arith.index_castui": True,
               "arith.index_cast": False}  # fmt: skip
OPS = (*_RING, *_SIGNED_OPS, *_UNSIGNED_OPS, *_EXTENSIONS, "arith.trunci", "arith.shli")
"""The integer ops a launch size may be computed with (besides `arith.constant`)."""


def build(name: str, operands: list[Size], width: int) -> Size:
    """The size computed by op `name` (one of `OPS`) of result width `width`."""
    if name in _RING or name == "arith.shli":
        return _ring(name, operands, width)
    if name in _SIGNED_OPS:
        a, b = (as_signed(x) for x in operands)
        return Size(_combine(_SIGNED_OPS[name], a, b), width, signed=True, unsigned=False)
    if name in _UNSIGNED_OPS:
        (a, a_ull), (b, b_ull) = (_unsigned(x) for x in operands)
        ull = a_ull or b_ull  # C computes in unsigned long long: no false overflow
        expr = _combine(_UNSIGNED_OPS[name], a, b, ull)
        divisor = operands[1].constant
        halves = name == "arith.divui" and divisor is not None and divisor % (1 << width) >= 2
        signed = width == 64 and (not ull or halves)  # a quotient by 2 or more is below 2^63
        return Size(expr, width, signed=signed, unsigned=True, ull=ull)
    (x,) = operands
    if width < x.width or name == "arith.trunci":  # truncations keep the value congruent
        if x.constant is not None:
            return constant(x.constant, width)
        return Size(x.expr, width, signed=False, unsigned=False)
    if width == x.width:
        return x
    if _EXTENSIONS[name]:  # from fewer than 64 bits: never unsigned long long
        return Size(as_unsigned(x), width, signed=True, unsigned=True)
    return Size(as_signed(x), width, signed=True, unsigned=x.unsigned and x.signed)


_PREDICATES = ["==", "!=", "<", "<=", ">", ">=", "<", "<=", ">", ">="]
"""`arith.cmpi` predicates by number (eq ne slt sle sgt sge ult ule ugt uge)."""


def compare(predicate: int, operands: list[Size]) -> Size:
    """`arith.cmpi`: a comparison of the signed readings (slt...), the unsigned ones (ult...),
    or (eq, ne) of whichever reading both operands have; its value is 0 or 1."""
    a, b = operands
    if predicate >= 6 or (predicate < 2 and not (a.signed and b.signed)):
        x, y = as_unsigned(a), as_unsigned(b)
    else:
        x, y = as_signed(a), as_signed(b)
    return Size(Binary(_PREDICATES[predicate], x, y), 1, signed=False, unsigned=True)


def logical(name: str, operands: list[Size]) -> Size:
    """`arith.andi`/`ori`/`xori` on `i1` values (0 or 1): `&&`, `||`, and `!=` (`xori` with
    true is `!`)."""
    a, b = operands
    if name == "arith.xori" and b.constant is not None:
        expr = Unary("!", a.expr) if b.constant % 2 else a.expr
    else:
        expr = Binary({"arith.andi": "&&", "arith.ori": "||", "arith.xori": "!="}[name],
                      a.expr, b.expr)
    return Size(expr, 1, signed=False, unsigned=True)


def _ring(name: str, operands: list[Size], width: int) -> Size:
    a, b = operands
    if name == "arith.shli":
        if b.constant is None or not 0 <= b.constant < width:
            raise Inexpressible("a shift by a value that is not a constant")
        expr = Binary("*", a.expr, literal(2**b.constant))
    else:
        expr = Binary(_RING[name], a.expr, b.expr)
    # 64 bits: checked, so exact, or (unsigned long long) wrapping as the IR does;
    # C int arithmetic: no overflow; else it may wrap.
    ull = width == 64 and (a.ull or (b.ull and name != "arith.shli"))
    signed = (width == 64 and not ull) or (a.signed and b.signed and not ull)
    return Size(expr, width, signed=signed, unsigned=ull, ull=ull)


def _combine(kind: str, a: Expr, b: Expr, ull: bool = False) -> Expr:
    if kind in ("min", "max"):
        return call(kind, [a, b])
    if kind == "ceil" and ull:
        # a / b + (a % b + b - 1) / b: `a + b - 1` would wrap modulo 2^64 near the top.
        bumped = Binary("-", Binary("+", Binary("%", a, b), b), Literal("1"))
        return Binary("+", Binary("/", a, b), Binary("/", bumped, b))
    if kind == "ceil":
        # ceil(a / b) for a >= 0 and b > 0, the sizes launches divide.
        if isinstance(b, Literal) and b.text.isdigit():
            return Binary("/", Binary("+", a, Literal(str(int(b.text) - 1))), b)
        return Binary("/", Binary("-", Binary("+", a, b), Literal("1")), b)
    return Binary(kind, a, b)


def literal(value: int) -> Expr:
    if value < 0:
        if value == -(2**63):
            return Binary("-", Unary("-", Literal(str(2**63 - 1))), Literal("1"))
        return Unary("-", Literal(str(-value)))
    return Literal(str(value))
