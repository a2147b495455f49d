"""The C99 `<math.h>` functions of the subset: the one table of each function's facts.

Every stage reads it: the frontend (which names exist, their parameter and result types, which
op computes them), the `agpu.math_call` verifier, the `cuda` target and the interpreter (the
function each calls), and the differential tests (the tolerance of each function).

A function is computed by the `math` (or `arith`) op that MLIR has for it where xDSL 0.74 has
that op (`sin` -> `math.sin`), and otherwise by `agpu.math_call` naming it (`erfc`). Its CUDA
name and its glibc libm name are its C name: CUDA's device library provides every function
here under the C99 spelling (double form `erfc`, float form `erfcf`), and so does libm.

`ulp_float`/`ulp_double` are the maximum errors, in units in the last place of a correctly
rounded result, that the CUDA C++ Programming Guide states for the device functions (appendix
"Mathematical Functions", tables "Single-Precision Mathematical Standard Library Functions with
Maximum ULP Error" and its double-precision twin; `sqrtf` assumes the default `-prec-sqrt=true`).
`bounded_range` notes where a bound holds only on part of the domain.
"""

from __future__ import annotations

from dataclasses import dataclass

# Parameter and result kinds: "F" is the function's floating-point type (double for `erfc`,
# float for `erfcf`); "int" and "long" are those C integer types.
FLOATING = "F"


@dataclass(frozen=True)
class MathFunction:
    name: str  # the double form's C name; the float form appends `f`
    params: tuple[str, ...]
    result: str
    # The op computing it at type F: a `math`/`arith` op name, or None for `agpu.math_call`.
    # With an integer result, the op computes at F and the value is converted (`lround`).
    op: str | None
    ulp_float: int
    ulp_double: int
    bounded_range: str = ""

    @property
    def arity(self) -> int:
        return len(self.params)

    def c_name(self, single: bool) -> str:
        """The C (and CUDA, and libm) name of the float or double form."""
        return self.name + ("f" if single else "")


def _f(name: str, arity: int, op: str | None, ulp_float: int, ulp_double: int,
       bounded_range: str = "", params: tuple[str, ...] | None = None,
       result: str = FLOATING) -> MathFunction:
    return MathFunction(name, params or (FLOATING,) * arity, result, op, ulp_float, ulp_double,
                        bounded_range)  # fmt: skip


_TABLE = (
    # roots and powers
    _f("sqrt", 1, "math.sqrt", 0, 0),
    _f("cbrt", 1, "math.cbrt", 1, 1),
    _f("hypot", 2, None, 3, 2),
    _f("pow", 2, "math.powf", 4, 2),
    # exponentials and logarithms
    _f("exp", 1, "math.exp", 2, 1),
    _f("exp2", 1, "math.exp2", 2, 1),
    _f("expm1", 1, "math.expm1", 1, 1),
    _f("log", 1, "math.log", 1, 1),
    _f("log2", 1, "math.log2", 1, 1),
    _f("log10", 1, "math.log10", 2, 1),
    _f("log1p", 1, "math.log1p", 1, 1),
    _f("logb", 1, None, 0, 0),
    _f("ilogb", 1, None, 0, 0, result="int"),
    _f("ldexp", 2, None, 0, 0, params=(FLOATING, "int")),
    _f("scalbn", 2, None, 0, 0, params=(FLOATING, "int")),
    _f("scalbln", 2, None, 0, 0, params=(FLOATING, "long")),
    # trigonometric and hyperbolic
    _f("sin", 1, "math.sin", 2, 2),
    _f("cos", 1, "math.cos", 2, 2),
    _f("tan", 1, "math.tan", 4, 2),
    _f("asin", 1, "math.asin", 2, 2),
    _f("acos", 1, "math.acos", 2, 2),
    _f("atan", 1, "math.atan", 2, 2),
    _f("atan2", 2, "math.atan2", 3, 2),
    _f("sinh", 1, "math.sinh", 3, 2),
    _f("cosh", 1, "math.cosh", 2, 1),
    _f("tanh", 1, "math.tanh", 2, 1),
    _f("asinh", 1, "math.asinh", 3, 3),
    _f("acosh", 1, "math.acosh", 4, 3),
    _f("atanh", 1, "math.atanh", 3, 2),
    # error and gamma functions
    _f("erf", 1, "math.erf", 2, 2),
    _f("erfc", 1, None, 4, 5),
    _f("tgamma", 1, None, 5, 10),
    _f("lgamma", 1, None, 6, 4,
       "outside [-10.001, -2.264] (float) and [-11.0001, -2.2637] (double), larger inside"),
    # rounding (rint and nearbyint round to nearest even: the default rounding mode)
    _f("floor", 1, "math.floor", 0, 0),
    _f("ceil", 1, "math.ceil", 0, 0),
    _f("trunc", 1, "math.trunc", 0, 0),
    _f("round", 1, "math.round", 0, 0),
    _f("rint", 1, "math.roundeven", 0, 0),
    _f("nearbyint", 1, "math.roundeven", 0, 0),
    _f("lround", 1, "math.round", 0, 0, result="long"),
    _f("llround", 1, "math.round", 0, 0, result="long"),
    _f("lrint", 1, "math.roundeven", 0, 0, result="long"),
    _f("llrint", 1, "math.roundeven", 0, 0, result="long"),
    # remainders, and the rest
    _f("fmod", 2, None, 0, 0),
    _f("remainder", 2, None, 0, 0),
    _f("fabs", 1, "math.absf", 0, 0),
    _f("fmin", 2, "arith.minnumf", 0, 0),
    _f("fmax", 2, "arith.maxnumf", 0, 0),
    _f("fdim", 2, None, 0, 0),
    _f("fma", 3, "math.fma", 0, 0),
    _f("copysign", 2, "math.copysign", 0, 0),
    _f("nextafter", 2, None, 0, 0),
)  # fmt: skip

MATH_FUNCTIONS: dict[str, MathFunction] = {f.name: f for f in _TABLE}

# The functions `agpu.math_call` computes (no `math` op in xDSL 0.74).
CALLED: dict[str, MathFunction] = {f.name: f for f in _TABLE if f.op is None}

# Classification macros of <math.h>: type-generic (float or double argument), int result,
# exact. The frontend computes them with `arith` (`isnan(x)` is `cmpf uno x, x`).
CLASSIFICATION = ("isnan", "isinf", "isfinite", "signbit")

# Integer absolute values (<stdlib.h>): `math.absi` on the argument's type.
INTEGER_ABS = {"abs": "int", "labs": "long", "llabs": "long"}

# Functions of <math.h> outside the subset, each with what to write instead.
_THROUGH_POINTER = "it stores a second result through a pointer, which the subset has no way to do"
REFUSED = {
    "frexp": f"{_THROUGH_POINTER}: use logb (or ilogb) and ldexp",
    "modf": f"{_THROUGH_POINTER}: use trunc(x) and x - trunc(x)",
    "remquo": f"{_THROUGH_POINTER}: use remainder, and round(x / y) for the quotient",
    "sincos": f"{_THROUGH_POINTER}: call sin and cos (nvcc fuses them)",
    "lgamma_r": f"{_THROUGH_POINTER}: use lgamma, and tgamma for the sign",
    "nan": "it parses a string: write NAN or 0.0 / 0.0",
}
REFUSED.update({name + "f": why for name, why in REFUSED.items()})


def lookup(c_name: str) -> tuple[MathFunction, bool] | None:
    """The function a C name calls and whether it is the float form (`erfcf`), or None."""
    if c_name in MATH_FUNCTIONS:
        return MATH_FUNCTIONS[c_name], False
    if c_name.endswith("f") and c_name[:-1] in MATH_FUNCTIONS:
        return MATH_FUNCTIONS[c_name[:-1]], True
    return None


def long_double_form(c_name: str) -> str | None:
    """The double function whose `long double` form `c_name` is (`sinl` -> `sin`), or None."""
    if c_name.endswith("l") and c_name[:-1] in MATH_FUNCTIONS:
        return c_name[:-1]
    return None
