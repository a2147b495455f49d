"""C's arithmetic types on LP64 (what gcc targets on Linux) and the rules that combine them.

The frontend types every expression with these rules before generating IR, so the IR computes
exactly what gcc would: integer promotions, the usual arithmetic conversions, the type of each
literal, and the value conversions between types (all of which `fold_convert` also evaluates
exactly, for constant folding).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerType, f32, f64
from xdsl.ir import Attribute

if TYPE_CHECKING:
    from autogpu.frontend import ast


@dataclass(frozen=True)
class Scalar:
    """An arithmetic C type. `name` is its canonical spelling, used as `agpu.ctype`."""

    name: str
    is_float: bool
    bits: int
    signed: bool

    @property
    def is_int(self) -> bool:
        return not self.is_float

    @property
    def ir(self) -> Attribute:
        if self.is_float:
            return f32 if self.bits == 32 else f64
        return IntegerType(self.bits)  # _Bool is i1, char i8, short i16

    @property
    def int_ir(self) -> IntegerType:
        """`ir` of an integer type."""
        assert self.is_int, f"{self.name} is not an integer type"
        return IntegerType(self.bits)

    @property
    def float_ir(self) -> Float32Type | Float64Type:
        """`ir` of a floating type."""
        assert self.is_float, f"{self.name} is not a floating type"
        return f32 if self.bits == 32 else f64

    @property
    def rank(self) -> int:
        """Integer conversion rank (_Bool < char < short < int < long) or float rank."""
        return self.bits

    @property
    def is_bool(self) -> bool:
        return self.bits == 1

    def __str__(self) -> str:
        return self.name


BOOL = Scalar("_Bool", False, 1, False)
SCHAR = Scalar("signed char", False, 8, True)  # also plain `char`: signed on x86-64 gcc
UCHAR = Scalar("unsigned char", False, 8, False)
SHORT = Scalar("short", False, 16, True)
USHORT = Scalar("unsigned short", False, 16, False)
INT = Scalar("int", False, 32, True)
UINT = Scalar("unsigned", False, 32, False)
LONG = Scalar("long", False, 64, True)
ULONG = Scalar("unsigned long", False, 64, False)
FLOAT = Scalar("float", True, 32, True)
DOUBLE = Scalar("double", True, 64, True)


@dataclass(frozen=True)
class ArrayType:
    """A pointer or C99 array parameter: flat `memref<?xT>` in the IR.

    `extents` are the C extents as written (a parameter name, an integer, an expression of
    earlier parameters as `frontend/extents.py` writes it, or None where the array's first
    extent is left out); a plain pointer has the single extent None. `expressions` holds the
    typed syntax of each extent that is an expression (None for the others), which irgen
    computes.
    """

    element: Scalar
    extents: tuple[str | int | None, ...] = (None,)
    const: bool = False
    restrict: bool = False
    expressions: tuple[ast.Expr | None, ...] = field(default=(), compare=False, repr=False)
    local: bool = False  # a local array (constant extents): `memref.alloca`, not a parameter

    @property
    def size(self) -> int:
        """The element count of a local array (its extents are constants)."""
        count = 1
        for extent in self.extents:
            assert isinstance(extent, int)
            count *= extent
        return count

    @property
    def dims(self) -> int:
        return len(self.extents)


@dataclass(frozen=True)
class RowType:
    """`A[i]` of a 2-D array `A`: only valid as the base of a further subscript."""

    array: ArrayType
    remaining: int = field(default=1)


CType = Scalar | ArrayType | RowType


def promote(t: Scalar) -> Scalar:
    """Integer promotions (C11 6.3.1.1): `_Bool`, `char` and `short`, signed or not, become
    `int`, which holds all their values."""
    return INT if t.is_int and t.bits < INT.bits else t


def usual_arithmetic(a: Scalar, b: Scalar) -> Scalar:
    """The common type of a binary arithmetic operation (C11 6.3.1.8) on LP64."""
    if a.is_float or b.is_float:
        return DOUBLE if DOUBLE in (a, b) else FLOAT
    a, b = promote(a), promote(b)
    if a == b:
        return a
    if a.signed == b.signed:
        return a if a.rank > b.rank else b
    unsigned, signed = (a, b) if not a.signed else (b, a)
    if unsigned.rank >= signed.rank:
        return unsigned
    return signed  # LP64: the signed type (long) represents every unsigned (32-bit) value


# ---- literals ---------------------------------------------------------------------------------


class LiteralError(ValueError):
    pass


def int_literal(text: str) -> tuple[int, Scalar]:
    """The value and C type of an integer literal (C11 6.4.4.1, LP64)."""
    body = text.rstrip("uUlL")
    suffix = text[len(body) :].lower()
    if suffix not in ("", "u", "l", "ul", "lu", "ll", "ull", "llu"):
        raise LiteralError(f"invalid suffix '{text[len(body):]}' on integer literal")
    if body[:2] in ("0x", "0X"):
        value, decimal = int(body[2:], 16), False
    elif len(body) > 1 and body[0] == "0":
        if any(c in "89" for c in body):
            raise LiteralError(f"invalid digit in octal literal '{text}'")
        value, decimal = int(body, 8), False
    else:
        value, decimal = int(body), True
    unsigned = "u" in suffix
    is_long = "l" in suffix
    if unsigned:
        candidates = [ULONG] if is_long else [UINT, ULONG]
    elif decimal:
        candidates = [LONG] if is_long else [INT, LONG]
    else:
        candidates = [LONG, ULONG] if is_long else [INT, UINT, LONG, ULONG]
    for candidate in candidates:
        if value <= max_value(candidate):
            return value, candidate
    raise LiteralError(f"integer literal '{text}' is too large for any integer type")


def float_literal(text: str) -> tuple[float, Scalar, bool]:
    """Value, type and whether it was `long double` (`L`, computed as double) of a literal."""
    suffix = text[-1] if text[-1] in "fFlL" else ""  # exponents end in a decimal digit
    body = text[: len(text) - len(suffix)]
    if body[:2].lower() == "0x":
        mantissa, exponent = body[2:].lower().split("p")
        whole, _, frac = mantissa.partition(".")
        digits = int((whole or "0") + frac, 16)
        exact = Fraction(digits) * Fraction(2) ** (int(exponent) - 4 * len(frac))
    else:
        exact = Fraction(body)
    if suffix in ("f", "F"):
        return round_to_f32(exact), FLOAT, False
    return round_to_f64(exact), DOUBLE, suffix in ("l", "L")


def round_to_f64(exact: Fraction) -> float:
    try:
        return float(exact)
    except OverflowError:
        return math.inf if exact > 0 else -math.inf


def round_to_f32(exact: Fraction) -> float:
    """`exact` rounded to the nearest float32 (ties to even), as a Python float.

    Rounding straight from the exact value avoids the double rounding of decimal -> double ->
    float, so `0.1f`-style literals are the float gcc produces.
    """
    if exact == 0:
        return 0.0
    sign = -1.0 if exact < 0 else 1.0
    magnitude = abs(exact)
    exponent = max(math.floor(math.log2(magnitude)), -126)
    while Fraction(2) ** exponent > magnitude and exponent > -126:
        exponent -= 1
    while Fraction(2) ** (exponent + 1) <= magnitude:
        exponent += 1
    scaled = magnitude / Fraction(2) ** (exponent - 23)  # in [2^23, 2^24) unless subnormal
    mantissa = round(scaled)  # Fraction rounding is ties-to-even
    if mantissa == 2**24:
        mantissa, exponent = 2**23, exponent + 1
    if exponent > 127:
        return sign * math.inf
    return sign * float(Fraction(mantissa) * Fraction(2) ** (exponent - 23))


# ---- value conversions (for constant folding; the IR ops are chosen in irgen) ---------------


def max_value(t: Scalar) -> int:
    return 2 ** (t.bits - 1) - 1 if t.signed else 2**t.bits - 1


def wrap(value: int, t: Scalar) -> int:
    """`value` reduced modulo 2^bits into the range of integer type `t` (for `_Bool`: C's
    conversion, `value != 0`)."""
    if t.is_bool:
        return int(value != 0)
    value &= (1 << t.bits) - 1
    if t.signed and value >= 1 << (t.bits - 1):
        value -= 1 << t.bits
    return value


def fold_convert(value: int | float, source: Scalar, target: Scalar) -> int | float | None:
    """The C conversion of a constant, or None where C leaves it undefined (out-of-range
    float -> integer) so that it is not folded."""
    if target.is_int and target.is_bool:
        return int(value != 0)  # (_Bool)x is x != 0 (NaN included: NaN != 0)
    if target.is_int:
        if source.is_int:
            return wrap(int(value), target)
        if math.isnan(value) or math.isinf(value):
            return None
        truncated = int(value)
        if truncated != wrap(truncated, target):
            return None
        return truncated
    if isinstance(value, float) and math.isnan(value):
        return value
    if isinstance(value, float) and math.isinf(value):
        return value
    exact = Fraction(value)
    return round_to_f32(exact) if target.bits == 32 else round_to_f64(exact)


def ir_int_value(value: int, t: Scalar) -> int:
    """The signless attribute value of an integer constant (two's complement, signed view)."""
    return wrap(value, Scalar("", False, t.bits, True))


SCALARS = (BOOL, SCHAR, UCHAR, SHORT, USHORT, INT, UINT, LONG, ULONG, FLOAT, DOUBLE)
"""Every arithmetic type, one per (kind, width, signedness): `long long` is `long` on LP64."""


def scalar_of(is_float: bool, bits: int, signed: bool) -> Scalar:
    """The arithmetic type of this kind, width and signedness (a C type table entry's)."""
    for t in SCALARS:
        if t.is_float == is_float and t.bits == bits and (is_float or t.signed == signed):
            return t
    raise KeyError((is_float, bits, signed))
