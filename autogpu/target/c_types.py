"""C types of the `cuda` target: IR type → C type, literals, conversions (the table of C types
and the users' spellings is `autogpu.dialects.signature`'s).

Integer IR types are signless; a C expression for an `iN` value has one of the C types below
and denotes that value under this invariant: either its type has N bits (the C value, reduced
modulo 2^N, gives the bits), or it is narrower and its C value *is* the value (e.g. `threadIdx.x`,
an `unsigned`, standing for an `index`; an `int` literal standing for an `i64`). Conversions
below only ever print a cast where C's implicit conversion would not give exactly that value.

Canonical spellings (no header needed, same in nvcc and g++ on LP64):
  i1 bool, i8 signed char, i16 short, i32 int, i64 and index long long,
  their unsigned views unsigned char, unsigned short, unsigned, unsigned long long;
  f32 float, f64 double.
"""

from __future__ import annotations

from enum import Enum, auto
from typing import TypeGuard

import numpy as np
from xdsl.dialects.builtin import Float32Type, Float64Type
from xdsl.ir import Attribute

from autogpu.dialects.signature import C_TYPES, UnsupportedType, ir_width, of_ir
from autogpu.target.c_expr import Cast, Expr, IntLiteral, Literal, Unary

__all__ = ["UnsupportedType", "ir_width"]

INTEGER_CTYPES: dict[str, tuple[bool, int]] = {
    t.name: (t.signed, t.bits) for t in C_TYPES.values() if not t.is_float
}
FLOAT_CTYPES: dict[str, int] = {t.name: t.bits for t in C_TYPES.values() if t.is_float}


def is_float_type(type: Attribute) -> bool:
    return isinstance(type, Float32Type | Float64Type)


def ctype_of(type: Attribute, *, unsigned: bool = False) -> str:
    """The canonical C type of an IR scalar type (its unsigned view with `unsigned=True`)."""
    return of_ir(type, unsigned=unsigned).name


def is_float(ctype: str | None) -> bool:
    return ctype in FLOAT_CTYPES


def is_integer(ctype: str | None) -> TypeGuard[str]:
    return ctype in INTEGER_CTYPES


def width(ctype: str) -> int:
    return FLOAT_CTYPES[ctype] if ctype in FLOAT_CTYPES else INTEGER_CTYPES[ctype][1]


def is_signed(ctype: str) -> bool:
    return INTEGER_CTYPES[ctype][0]


def value_preserving(src: str | None, dst: str) -> bool:
    """True if C converts every value of `src` to `dst` unchanged, and in a binary operation
    with a `dst` operand the usual arithmetic conversions turn `src` into `dst`."""
    if src == dst:
        return True
    if src in FLOAT_CTYPES or dst in FLOAT_CTYPES:
        return src == "float" and dst == "double"
    if src not in INTEGER_CTYPES:
        return False
    src_signed, src_width = INTEGER_CTYPES[src]
    dst_signed, dst_width = INTEGER_CTYPES[dst]
    if dst_width < 32 or src_width >= dst_width:
        return False  # narrow types promote to int; equal widths may change sign
    return dst_signed or not src_signed


def int_range(ctype: str) -> tuple[int, int]:
    signed, bits = INTEGER_CTYPES[ctype]
    if ctype == "bool":
        return 0, 1
    return (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)


def wrap(value: int, ctype: str) -> int:
    """`value` converted to `ctype` as C (two's complement) does."""
    signed, bits = INTEGER_CTYPES[ctype]
    if ctype == "bool":
        return int(value != 0)
    value &= (1 << bits) - 1
    if signed and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def int_literal(value: int, ctype: str) -> Expr:
    """A literal of exactly type `ctype` holding `value` (converted to it as C does)."""
    value = wrap(value, ctype)
    if ctype == "bool":
        return Literal("true" if value else "false", "bool")
    if ctype in ("int", "unsigned", "long long", "unsigned long long"):
        return IntLiteral(value, ctype)
    return Cast(ctype, IntLiteral(value, "int"))


def constant_literal(value: int, type: Attribute) -> Expr:
    """The most readable literal for an integer constant of IR type `type` (value is signed):
    a plain int literal when the value fits (exact by the invariant), else a suffixed one."""
    width = ir_width(type)
    if width == 1:
        return Literal("true" if value & 1 else "false", "bool")
    value = wrap(value, ctype_of(type))
    if -(2**31) <= value < 2**31:
        return IntLiteral(value, "int")
    return IntLiteral(value, "long long")


def float_literal(value: float, ctype: str) -> Expr:
    """A literal whose value is exactly `value` (already representable in `ctype`)."""
    f = "f" if ctype == "float" else ""
    if np.isnan(value):
        nan = Literal(f"__builtin_nan{f}(\"\")", ctype)
        return Unary("-", nan, ctype) if np.signbit(value) else nan
    if np.isinf(value):  # a division, not __builtin_huge_val: NVRTC knows no such builtin
        inf = Literal(f"(1.0{f} / 0.0{f})", ctype)
        return Unary("-", inf, ctype) if value < 0 else inf
    text = _shortest_float32(value) if ctype == "float" else repr(float(value))
    if not any(c in text for c in ".en"):
        text += ".0"
    return Literal(text + f, ctype)


def _shortest_float32(value: float) -> str:
    """The shortest decimal that C rounds to exactly this float, else a hex float."""
    v32 = np.float32(value)
    if v32 == 0 or 1e-4 <= abs(v32) < 1e16:  # where Python's repr of doubles is positional
        text = np.format_float_positional(v32, unique=True, trim="-")
    else:
        text = np.format_float_scientific(v32, unique=True, trim="-")
    if _decimal_rounds_to_float32(text, v32):
        return text
    return float(v32).hex()


def _decimal_rounds_to_float32(text: str, v32: np.float32) -> bool:
    """True if `text` is strictly nearer to `v32` than to either float neighbour, so that
    C's correctly rounded decimal → float conversion gives exactly `v32` (no double rounding)."""
    from fractions import Fraction

    exact = Fraction(text)
    target = Fraction(float(v32))
    for toward in (np.inf, -np.inf):
        with np.errstate(over="ignore"):
            neighbour = np.nextafter(v32, np.float32(toward))
        if np.isinf(neighbour):  # past the largest float: as if the exponent range went on
            other = Fraction(float(np.nextafter(v32, np.float32(-toward))))
            neighbour_value = target + (target - other)
        else:
            neighbour_value = Fraction(float(neighbour))
        if abs(exact - target) >= abs(exact - neighbour_value):
            return False
    return True


class Mode(Enum):
    """How an operand must be converted to the type its consumer wants."""

    EXACT = auto()  # its type must be exactly the wanted type (calls, casts' operands)
    PRESERVE = auto()  # implicit conversion allowed where it keeps the value (binary operands)
    ASSIGN = auto()  # implicit integer→integer / float→float conversion (stores, assignments)


def convert(e: Expr, want: str, mode: Mode) -> Expr:
    """`e` as a value of C type `want` (same IR value), with a cast only where needed."""
    have = e.ctype
    if have == want:
        return e
    if isinstance(e, IntLiteral) and want in INTEGER_CTYPES and want != "bool":
        low, high = int_range(want)
        if low <= e.value <= high:
            if mode is Mode.ASSIGN:
                return e
            if mode is Mode.PRESERVE and is_signed(want) and value_preserving(have, want):
                return e
        return int_literal(e.value, want)
    if isinstance(e, Literal) and have == "bool" and want in INTEGER_CTYPES and want != "bool":
        return int_literal(1 if e.text == "true" else 0, want)
    if mode is Mode.PRESERVE and value_preserving(have, want):
        return e
    if mode is Mode.ASSIGN and have is not None:
        if (is_integer(have) and is_integer(want) and "bool" not in (have, want)) or (
            is_float(have) and is_float(want)
        ):
            return e
    return Cast(want, _recast_source(e, want))


def _recast_source(e: Expr, want: str) -> Expr:
    """`(unsigned)(int)x` is `(unsigned)x` for an integer `x` at least 32 bits wide: both keep
    its low 32 bits. The operand of a same-width integer cast, where that holds, else `e`."""
    if not isinstance(e, Cast) or "bool" in (e.ctype, want):
        return e
    inner = e.operand.ctype
    if not (is_integer(e.ctype) and is_integer(want) and is_integer(inner)) or inner == "bool":
        return e
    if width(e.ctype) == width(want) and width(inner) >= width(want):
        return e.operand
    return e
