"""C's arithmetic on Python values: what gcc on x86-64 computes, op by op.

The interpreter represents an `iN`/`index` value as a Python int in two's-complement *signed*
canonical form (`-2**(N-1) <= v < 2**(N-1)`; an `i1` true is -1), an `f32` as a NumPy
`float32` scalar (so every operation rounds to single precision, as C does for `float`) and an
`f64` as a Python float (IEEE double, exactly C's `double`). Math functions call the system's
libm through ctypes, the same functions gcc's code calls, so transcendental results agree to
the bit (NumPy's own vectorised `exp` does not always agree with glibc's `expf`).

Undefined behaviour that C programs must not rely on (division by zero, `INT_MIN / -1`, shifts
by the width or more) raises an error instead of producing a value, so that a transformation
that introduces it is caught. Out-of-range float-to-int conversions give what x86-64 gives
(the "integer indefinite" value), since gcc's code computes exactly that.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from autogpu.dialects.c_math import FLOATING, MathFunction
from autogpu.dialects.signature import C_TYPES

F32 = np.float32
# An `f32` or `f64` value as the interpreter holds it (see the module docstring).
FloatValue = np.float32 | float

UNDEFINED_SHIFT = "shift amount {amount} out of range for i{width}"


class InterpreterError(Exception):
    """The IR cannot be executed (unsupported op or type, bad arguments)."""


class OutOfBoundsError(InterpreterError, IndexError):
    """A memref.load or memref.store outside its memref: never silently read garbage."""


class UndefinedBehaviorError(InterpreterError, ArithmeticError):
    """The program did something C leaves undefined (division by zero, INT_MIN / -1, ...)."""


def wrap(value: int, width: int) -> int:
    """`value` modulo 2**width, in signed canonical form."""
    half = 1 << (width - 1)
    return ((value + half) & ((1 << width) - 1)) - half


def unsigned(value: int, width: int) -> int:
    return value & ((1 << width) - 1)


def divsi(a: int, b: int, width: int, site: str) -> int:
    """C's `/` on signed integers: truncates toward zero."""
    if b == 0:
        raise UndefinedBehaviorError(f"{site}: integer division by zero")
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    if q >= 1 << (width - 1):
        raise UndefinedBehaviorError(f"{site}: signed division overflow ({a} / {b})")
    return q


def remsi(a: int, b: int, width: int, site: str) -> int:
    """C's `%` on signed integers: the result has the sign of the dividend."""
    if b == 0:
        raise UndefinedBehaviorError(f"{site}: integer remainder by zero")
    if b == -1 and a == -(1 << (width - 1)):
        raise UndefinedBehaviorError(f"{site}: signed remainder overflow ({a} % {b})")
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def divui(a: int, b: int, width: int, site: str) -> int:
    mask = (1 << width) - 1
    if b == 0:
        raise UndefinedBehaviorError(f"{site}: integer division by zero")
    return wrap((a & mask) // (b & mask), width)


def remui(a: int, b: int, width: int, site: str) -> int:
    mask = (1 << width) - 1
    if b == 0:
        raise UndefinedBehaviorError(f"{site}: integer remainder by zero")
    return wrap((a & mask) % (b & mask), width)


def floordivsi(a: int, b: int, width: int, site: str) -> int:
    if b == 0:
        raise UndefinedBehaviorError(f"{site}: integer division by zero")
    q = a // b
    if q >= 1 << (width - 1):
        raise UndefinedBehaviorError(f"{site}: signed division overflow ({a} / {b})")
    return q


def ceildivsi(a: int, b: int, width: int, site: str) -> int:
    if b == 0:
        raise UndefinedBehaviorError(f"{site}: integer division by zero")
    q = -((-a) // b)
    if q >= 1 << (width - 1):
        raise UndefinedBehaviorError(f"{site}: signed division overflow ({a} / {b})")
    return q


def ceildivui(a: int, b: int, width: int, site: str) -> int:
    mask = (1 << width) - 1
    if b == 0:
        raise UndefinedBehaviorError(f"{site}: integer division by zero")
    return wrap(-(-(a & mask) // (b & mask)), width)


def shift_amount(b: int, width: int, site: str) -> int:
    """The shift amount as C sees it; shifting by the width or more is undefined."""
    amount = b & ((1 << width) - 1)
    if amount >= width:
        raise UndefinedBehaviorError(
            f"{site}: " + UNDEFINED_SHIFT.format(amount=amount, width=width)
        )
    return amount


def int_to_f32(v: int) -> np.float32:
    """Correctly rounded int -> float (cvtsi2ss), avoiding double rounding through double."""
    if -(1 << 53) <= v <= 1 << 53:
        return F32(v)  # exact as a double first, so one rounding
    return F32(np.int64(v)) if v < 0 else F32(np.uint64(v))


def _truncate_or_indefinite(x: float, width: int) -> int:
    """cvttss2si/cvttsd2si with a `width`-bit destination: truncation, or INT_MIN if it does
    not fit (NaN and infinities included)."""
    if math.isnan(x) or math.isinf(x):
        return -(1 << (width - 1))
    t = math.trunc(x)
    if -(1 << (width - 1)) <= t < 1 << (width - 1):
        return t
    return -(1 << (width - 1))


def fptosi(x: FloatValue, width: int) -> int:
    """C's float -> signed integer conversion as gcc emits it on x86-64 (narrow types go
    through a 32-bit conversion)."""
    if width <= 32:
        return wrap(_truncate_or_indefinite(float(x), 32), width)
    return _truncate_or_indefinite(float(x), 64)


def fptoui(x: FloatValue, width: int) -> int:
    """C's float -> unsigned conversion as gcc emits it on x86-64: through a 32-bit signed
    conversion below 32 bits, through a 64-bit signed one for 32 bits, and with gcc's
    subtract-2**63 sequence for 64 bits."""
    xf = float(x)
    if width < 32:
        return wrap(_truncate_or_indefinite(xf, 32), width)
    if width == 32:
        return wrap(_truncate_or_indefinite(xf, 64), 32)
    if not xf >= 2.0**63:
        return _truncate_or_indefinite(xf, 64)
    # The subtraction is exact in the source precision: x >= 2**63 is a multiple of its ulp.
    return wrap(_truncate_or_indefinite(xf - 2.0**63, 64) ^ (1 << 63), 64)


def divf64(a: float, b: float) -> float:
    """IEEE division: Python raises on a zero divisor where C gives inf or NaN."""
    if b == 0.0:
        return float(np.float64(a) / np.float64(b))
    return a / b


def minimumf(a: FloatValue, b: FloatValue) -> FloatValue:
    """arith.minimumf: NaN-propagating, -0.0 below +0.0."""
    if math.isnan(a):
        return a
    if math.isnan(b):
        return b
    if a == b:
        return a if math.copysign(1.0, float(a)) < 0 else b
    return a if a < b else b


def maximumf(a: FloatValue, b: FloatValue) -> FloatValue:
    """arith.maximumf: NaN-propagating, +0.0 above -0.0."""
    if math.isnan(a):
        return a
    if math.isnan(b):
        return b
    if a == b:
        return b if math.copysign(1.0, float(a)) < 0 else a
    return a if a > b else b


def minui(a: int, b: int, width: int) -> int:
    mask = (1 << width) - 1
    return a if (a & mask) <= (b & mask) else b


def maxui(a: int, b: int, width: int) -> int:
    mask = (1 << width) - 1
    return a if (a & mask) >= (b & mask) else b


def ipowi(a: int, b: int, width: int) -> int:
    """math.ipowi: integer power with wraparound; a negative exponent gives 0 except for
    bases 1 and -1 (MLIR's definition; division by zero for base 0)."""
    if b < 0:
        if a == 0:
            raise UndefinedBehaviorError("math.ipowi: zero to a negative power")
        if a == 1:
            return 1
        if a == -1:
            return -1 if b % 2 else 1
        return 0
    return wrap(pow(a, b, 1 << width), width)


def ctlz(a: int, width: int) -> int:
    return width - unsigned(a, width).bit_length()


def cttz(a: int, width: int) -> int:
    u = unsigned(a, width)
    return width if u == 0 else (u & -u).bit_length() - 1


def ctpop(a: int, width: int) -> int:
    return bin(unsigned(a, width)).count("1")


def bitcast_f32_to_int(x: FloatValue) -> int:
    return int(np.array(x, np.float32).view(np.int32))


def bitcast_int_to_f32(v: int) -> np.float32:
    bits = np.array(v, np.int32).view(np.float32)[()]
    assert isinstance(bits, np.floating)  # a 0-d array's [()] is its scalar
    return bits


def bitcast_f64_to_int(x: FloatValue) -> int:
    return int(np.array(x, np.float64).view(np.int64))


def bitcast_int_to_f64(v: int) -> float:
    return float(np.array(v, np.int64).view(np.float64))


# ---------------------------------------------------------------------------------------------
# libm: the functions gcc's code calls. Each `math.*` op maps to (float name, double name).
# ---------------------------------------------------------------------------------------------

_LIBM = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")

MATH_FUNCTIONS: dict[str, tuple[str, int]] = {
    # op name: (C double function name, arity)
    "math.sqrt": ("sqrt", 1),
    "math.exp": ("exp", 1),
    "math.exp2": ("exp2", 1),
    "math.expm1": ("expm1", 1),
    "math.log": ("log", 1),
    "math.log2": ("log2", 1),
    "math.log10": ("log10", 1),
    "math.log1p": ("log1p", 1),
    "math.sin": ("sin", 1),
    "math.cos": ("cos", 1),
    "math.tan": ("tan", 1),
    "math.asin": ("asin", 1),
    "math.acos": ("acos", 1),
    "math.atan": ("atan", 1),
    "math.sinh": ("sinh", 1),
    "math.cosh": ("cosh", 1),
    "math.tanh": ("tanh", 1),
    "math.asinh": ("asinh", 1),
    "math.acosh": ("acosh", 1),
    "math.atanh": ("atanh", 1),
    "math.erf": ("erf", 1),
    "math.cbrt": ("cbrt", 1),
    "math.floor": ("floor", 1),
    "math.ceil": ("ceil", 1),
    "math.trunc": ("trunc", 1),
    "math.round": ("round", 1),
    "math.roundeven": ("roundeven", 1),
    "math.atan2": ("atan2", 2),
    "math.powf": ("pow", 2),
    "math.copysign": ("copysign", 2),
    "math.fma": ("fma", 3),
}


def libm_function(c_name: str, arity: int, single: bool) -> Callable[..., FloatValue]:
    """The libm function `c_name` (its `f`-suffixed variant when `single`), with the result
    converted to the interpreter's representation (np.float32 or float)."""
    ctype = C_TYPES["float" if single else "double"].ctypes
    function = getattr(_LIBM, c_name + ("f" if single else ""))
    function.restype = ctype
    function.argtypes = [ctype] * arity
    if single:
        return lambda *xs: F32(function(*xs))
    return function


def libm_call(function: MathFunction, single: bool) -> Callable[..., Any]:
    """The libm function of `agpu.math_call` (c_math.CALLED): its float form when `single`,
    with each parameter's C type from the table (`ldexp(double, int)`)."""
    floating = C_TYPES["float" if single else "double"].ctypes
    kinds = {FLOATING: floating, "int": ctypes.c_int, "long": ctypes.c_long}
    c_function = getattr(_LIBM, function.c_name(single))
    c_function.restype = kinds[function.result]
    c_function.argtypes = [kinds[k] for k in function.params]
    if single and function.result == FLOATING:
        return lambda *xs: F32(c_function(*xs))
    return c_function


# fmin/fmax (arith.minnumf/maxnumf): libm's, so signed zeros come out exactly as in C.
FMINF = libm_function("fmin", 2, single=True)
FMAXF = libm_function("fmax", 2, single=True)
FMIN = libm_function("fmin", 2, single=False)
FMAX = libm_function("fmax", 2, single=False)
