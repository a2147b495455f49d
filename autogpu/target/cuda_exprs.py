"""C expressions for the pure ops of a kernel: arith, math and the gpu index builtins.

`build_expression(op, operands, helpers)` gets the C expressions of the op's operands and
returns the one of its result; unsigned ops compute on the unsigned view of their operands
(`divui` on i32: `(unsigned)a / (unsigned)b`), float ops call the math function of the right
precision (`sqrtf` for f32, `sqrt` for f64). A few ops have no C operator or CUDA function; they
call small device functions (`agpu_floordiv`, ...) whose definitions `helper()` registers and
which are printed before the kernels when used.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.arith import (
    CMPF_COMPARISON_OPERATIONS,
    CMPI_COMPARISON_OPERATIONS,
    IntegerOverflowAttr,
    IntegerOverflowFlag,
)
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.dialects.gpu import DimensionAttr
from xdsl.ir import Attribute, Operation

from autogpu.dialects.agpu_math import MathCallOp
from autogpu.target.c_expr import (
    Binary,
    Cast,
    Conditional,
    Expr,
    IntLiteral,
    Literal,
    Name,
    Unary,
    call,
)
from autogpu.target.c_types import (
    INTEGER_CTYPES,
    Mode,
    constant_literal,
    convert,
    ctype_of,
    float_literal,
    int_literal,
    ir_width,
    is_float_type,
    is_integer,
    width,
)

INTEGER_WIDTHS = {name: bits for name, (_, bits) in INTEGER_CTYPES.items()}
_UNSIGNED_BY_WIDTH = {32: "unsigned", 64: "unsigned long long"}


class Unsupported(Exception):
    """The op (or this use of it) has no C translation here; the emitter names the op."""


# Device functions for ops without a C operator, one definition per C type, printed once before
# the kernels when used (only the overloads used: nvcc warns about unused static functions).
_HELPER_BODIES: dict[str, str] = {
    "agpu_floordiv": "{T} a, {T} b) {{\n  return a / b - (a % b != 0 && (a < 0) != (b < 0));\n}}",
    "agpu_ceildiv": "{T} a, {T} b) {{\n  return a / b + (a % b != 0 && (a < 0) == (b < 0));\n}}",
    "agpu_ceildivu": "{T} a, {T} b) {{\n  return a / b + (a % b != 0);\n}}",
    "agpu_minimum": "{T} a, {T} b) {{\n"
    "  return isnan(a) || isnan(b) ? a + b : a == b ? (signbit(a) ? a : b) : {fmin}(a, b);\n}}",
    "agpu_maximum": "{T} a, {T} b) {{\n"
    "  return isnan(a) || isnan(b) ? a + b : a == b ? (signbit(a) ? b : a) : {fmax}(a, b);\n}}",
    "agpu_cttz": "{T} x) {{\n  return x == 0 ? {bits} : {ffs}(x) - 1;\n}}",
}
HELPER_ORDER = tuple(_HELPER_BODIES)


def helper(helpers: dict[str, str], name: str, ctype: str) -> str:
    """Register the definition of helper `name` for C type `ctype`; returns the name to call
    (C++ overloads: `agpu_ceildivu` is the unsigned `agpu_ceildiv`; callers pass operands of
    exactly `ctype`, so overload resolution is never ambiguous)."""
    called = "agpu_ceildiv" if name == "agpu_ceildivu" else name
    suffix = "f" if ctype == "float" else ""
    body = _HELPER_BODIES[name].format(
        T=ctype,
        fmin=f"fmin{suffix}",
        fmax=f"fmax{suffix}",
        bits=64 if ctype == "long long" else 32,
        ffs="__ffsll" if ctype == "long long" else "__ffs",
    )
    helpers[f"{name} {ctype}"] = f"static __device__ inline {ctype} {called}({body}"
    return called


DIMENSIONS = ("x", "y", "z")
_GPU_BUILTINS = {
    "gpu.thread_id": "threadIdx",
    "gpu.block_id": "blockIdx",
    "gpu.block_dim": "blockDim",
    "gpu.grid_dim": "gridDim",
}


def gpu_builtin(op: Operation) -> Expr:
    """`threadIdx.x` and friends: `unsigned` in CUDA, exact as `index` values."""
    dimension = op.properties["dimension"]
    assert isinstance(dimension, DimensionAttr)  # the property of gpu.thread_id and friends
    dim = dimension.data.value
    if op.name == "gpu.global_id":
        block = Name(f"blockIdx.{dim}", "unsigned", is_variable=False)
        size = Name(f"blockDim.{dim}", "unsigned", is_variable=False)
        thread = Name(f"threadIdx.{dim}", "unsigned", is_variable=False)
        product = Binary("*", Cast("long long", block), size, "long long")
        return Binary("+", product, thread, "long long")
    return Name(f"{_GPU_BUILTINS[op.name]}.{dim}", "unsigned", is_variable=False)


def is_gpu_builtin(op: Operation) -> bool:
    return op.name in _GPU_BUILTINS or op.name == "gpu.global_id"


def needs_atomic_operands(op: Operation) -> bool:
    """Ops whose C form mentions an operand twice: operands must be names, not expressions."""
    if op.name == "arith.cmpf":
        predicate = CMPF_COMPARISON_OPERATIONS[_predicate(op)]
        return predicate in ("one", "ueq")
    return False


def _predicate(op: Operation) -> int:
    predicate = op.properties["predicate"]
    assert isinstance(predicate, IntegerAttr)
    return predicate.value.data


# ---------------------------------------------------------------------------------------------
# Operand conversions
# ---------------------------------------------------------------------------------------------


def _retypable(e: Expr) -> bool:
    return isinstance(e, IntLiteral)


def pair(lhs: Expr, rhs: Expr, want: str) -> tuple[Expr, Expr]:
    """Both operands of a binary operation computing in C type `want`: implicit conversions
    where they keep the value, and at least one operand of exactly `want` so that the usual
    arithmetic conversions make the operation compute in `want`."""
    a = convert(lhs, want, Mode.PRESERVE)
    b = convert(rhs, want, Mode.PRESERVE)
    if a.ctype != want and b.ctype != want:
        if _retypable(b) and not _retypable(a):
            b = convert(b, want, Mode.EXACT)
        else:
            a = convert(a, want, Mode.EXACT)
    return a, b


def _narrow_result(e: Expr, want: str) -> Expr:
    """Arithmetic on types narrower than int computes in int: convert back."""
    return Cast(want, e) if width(want) < 32 else e


_RING = ("+", "-", "*", "&", "|", "^")
_MAY_OVERFLOW = frozenset({"arith.addi", "arith.subi", "arith.muli", "arith.shli"})


def wraps(op: Operation) -> bool:
    """True for an `addi`/`subi`/`muli`/`shli` without `overflow<nsw>`: its overflow wraps, so
    C's signed operators (undefined on overflow) must not print it (docs/ir.md)."""
    if op.name not in _MAY_OVERFLOW:
        return False
    flags = op.properties.get("overflowFlags")
    return not (isinstance(flags, IntegerOverflowAttr) and IntegerOverflowFlag.NSW in flags.data)


def _wrapping_operand(e: Expr, want: str) -> Expr:
    """An operand of a ring operation computed modulo 2^N in the unsigned type `want`: C
    converts any integer to it exactly modulo 2^N (a narrower C value is the value, by the
    invariant of c_types), so it needs no cast; a literal is spelled in `want` (`7u`), and a
    truncating cast to the signed type of that width becomes one to `want` (`(unsigned)gid_x`,
    not `(int)gid_x`)."""
    if isinstance(e, IntLiteral):
        return int_literal(e.value, want)
    if isinstance(e, Cast) and e.ctype != want and is_integer(e.ctype) and e.ctype != "bool":
        inner = e.operand.ctype
        if width(e.ctype) == width(want) and is_integer(inner) and width(inner) >= width(want):
            return Cast(want, e.operand)
    return e


def _fits_long_long(c_op: str, lhs: Expr, rhs: Expr) -> bool:
    """Whether `lhs op rhs` on two C values of at most 32 bits fits `long long`, so that the
    signed 64-bit operation is exact: a sum or difference always, a product unless both are
    `unsigned` (up to (2^32 - 1)^2)."""
    widths = [x.ctype for x in (lhs, rhs)]
    if not all(is_integer(c) and c != "bool" and width(c) <= 32 for c in widths):
        return False
    return c_op != "*" or not all(c == "unsigned" for c in widths)


def _wrapping_binary(c_op: str, lhs: Expr, rhs: Expr, type: Attribute) -> Expr:
    """`lhs op rhs` modulo 2^N: computed in the unsigned type of the width, which C defines
    to wrap (`(unsigned)gid_x + 7u`), unless the operands' ranges prove the signed operation
    exact (`tx + 1` on an `index`); consumers that read it signed convert it back."""
    if ir_width(type) == 64 and _fits_long_long(c_op, lhs, rhs):
        return _int_binary(c_op, lhs, rhs, type)
    want = ctype_of(type, unsigned=True)
    a, b = (_wrapping_operand(x, want) for x in (lhs, rhs))
    if not all(is_integer(x.ctype) for x in (a, b)):
        a, b = pair(a, b, want)
    elif want not in (a.ctype, b.ctype):  # one operand of exactly `want` decides the type
        a = convert(a, want, Mode.EXACT)
    return Binary(c_op, a, b, want)


def _int_binary(c_op: str, lhs: Expr, rhs: Expr, type: Attribute, unsigned: bool = False) -> Expr:
    want = ctype_of(type, unsigned=unsigned)
    if c_op in _RING and not unsigned:
        # Wrapping ring operations give the same bits signed or not: stay unsigned when an
        # operand already is (as C would), rather than casting it back to signed.
        unsigned_view = ctype_of(type, unsigned=True)
        if unsigned_view in (lhs.ctype, rhs.ctype):
            want = unsigned_view
    if width(want) < 32:
        a, b = convert(lhs, want, Mode.EXACT), convert(rhs, want, Mode.EXACT)
        return _narrow_result(Binary(c_op, a, b, "int"), want)
    a, b = pair(lhs, rhs, want)
    return Binary(c_op, a, b, want)


def _bool(e: Expr) -> Expr:
    return convert(e, "bool", Mode.EXACT)


def _is_true(e: Expr) -> bool:
    return isinstance(e, Literal) and e.text == "true"


def _is_false(e: Expr) -> bool:
    return isinstance(e, Literal) and e.text == "false"


def negate(e: Expr) -> Expr:
    """`!e`, or the operand of a negation."""
    if isinstance(e, Unary) and e.op == "!":
        return e.operand
    return Unary("!", e, "bool")


# ---------------------------------------------------------------------------------------------
# Op families
# ---------------------------------------------------------------------------------------------

_INT_BINARY = {
    "arith.addi": ("+", False),
    "arith.subi": ("-", False),
    "arith.muli": ("*", False),
    "arith.divsi": ("/", False),
    "arith.remsi": ("%", False),
    "arith.divui": ("/", True),
    "arith.remui": ("%", True),
    "arith.andi": ("&", False),
    "arith.ori": ("|", False),
    "arith.xori": ("^", False),
}

# On i1, signless integer ops are logic.
_BOOL_BINARY = {
    "arith.andi": "&&",
    "arith.ori": "||",
    "arith.xori": "!=",
    "arith.addi": "!=",
    "arith.subi": "!=",
    "arith.muli": "&&",
    "arith.minui": "&&",
    "arith.maxui": "||",
    "arith.minsi": "||",  # as signed i1, true is -1
    "arith.maxsi": "&&",
}

_MIN_MAX = {
    "arith.minsi": ("min", False),
    "arith.maxsi": ("max", False),
    "arith.minui": ("min", True),
    "arith.maxui": ("max", True),
}

_CMPI = {
    "eq": ("==", False),
    "ne": ("!=", False),
    "slt": ("<", False),
    "sle": ("<=", False),
    "sgt": (">", False),
    "sge": (">=", False),
    "ult": ("<", True),
    "ule": ("<=", True),
    "ugt": (">", True),
    "uge": (">=", True),
}
_SWAPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}

# Ordered predicates are C's operators; unordered ones negate the opposite ordered one.
_CMPF_ORDERED = {"oeq": "==", "ogt": ">", "oge": ">=", "olt": "<", "ole": "<=", "une": "!="}
_CMPF_UNORDERED = {"ugt": "<=", "uge": "<", "ult": ">=", "ule": ">"}

_FLOAT_BINARY = {"arith.addf": "+", "arith.subf": "-", "arith.mulf": "*", "arith.divf": "/"}

_MATH_UNARY = {
    "math.absf": "fabs",
    "math.sqrt": "sqrt",
    "math.rsqrt": "rsqrt",
    "math.exp": "exp",
    "math.exp2": "exp2",
    "math.expm1": "expm1",
    "math.log": "log",
    "math.log2": "log2",
    "math.log10": "log10",
    "math.log1p": "log1p",
    "math.sin": "sin",
    "math.cos": "cos",
    "math.tan": "tan",
    "math.sinh": "sinh",
    "math.cosh": "cosh",
    "math.tanh": "tanh",
    "math.asin": "asin",
    "math.acos": "acos",
    "math.atan": "atan",
    "math.asinh": "asinh",
    "math.acosh": "acosh",
    "math.atanh": "atanh",
    "math.cbrt": "cbrt",
    "math.erf": "erf",
    "math.floor": "floor",
    "math.ceil": "ceil",
    "math.trunc": "trunc",
    "math.round": "round",  # half away from zero, like C's round
    "math.roundeven": "rint",  # the default rounding mode is to nearest even
}
_MATH_BINARY = {
    "math.powf": "pow",
    "math.atan2": "atan2",
    "math.copysign": "copysign",
    "arith.maxnumf": "fmax",
    "arith.minnumf": "fmin",
}


def _math_name(base: str, ctype: str) -> str:
    return base + ("f" if ctype == "float" else "")


Builder = Callable[[Operation, Sequence[Expr], dict[str, str]], Expr]


def _constant(op: Operation, _: Sequence[Expr], __: dict[str, str]) -> Expr:
    value = op.properties["value"]
    type = op.results[0].type
    if isinstance(value, IntegerAttr):
        return constant_literal(value.value.data, type)
    if isinstance(value, FloatAttr):
        return float_literal(value.value.data, ctype_of(type))
    raise Unsupported(f"constant {value}")


def _int_op(op: Operation, args: Sequence[Expr], _: dict[str, str]) -> Expr:
    type = op.results[0].type
    if ir_width(type) == 1:
        if op.name not in _BOOL_BINARY:
            raise Unsupported("on i1")
        a, b = _bool(args[0]), _bool(args[1])
        if op.name == "arith.xori" and (_is_true(a) or _is_true(b)):
            return negate(b if _is_true(a) else a)
        return Binary(_BOOL_BINARY[op.name], a, b, "bool")
    c_op, unsigned = _INT_BINARY[op.name]
    if wraps(op) and ir_width(type) >= 32:
        return _wrapping_binary(c_op, args[0], args[1], type)
    return _int_binary(c_op, args[0], args[1], type, unsigned)


def _shift(op: Operation, args: Sequence[Expr], _: dict[str, str]) -> Expr:
    type = op.results[0].type
    if ir_width(type) == 1:
        raise Unsupported("on i1")
    # A wrapping `shli` shifts the unsigned view: C's `<<` on a signed value is undefined
    # when the result does not fit (or the value is negative).
    unsigned = op.name == "arith.shrui" or (wraps(op) and ir_width(type) >= 32)
    want = ctype_of(type, unsigned=unsigned)
    c_op = "<<" if op.name == "arith.shli" else ">>"
    left = convert(args[0], want, Mode.EXACT)
    return _narrow_result(Binary(c_op, left, args[1], want), want)


def _min_max(op: Operation, args: Sequence[Expr], _: dict[str, str]) -> Expr:
    type = op.results[0].type
    if ir_width(type) == 1:
        return Binary(_BOOL_BINARY[op.name], _bool(args[0]), _bool(args[1]), "bool")
    function, unsigned = _MIN_MAX[op.name]
    want = ctype_of(type, unsigned=unsigned)
    call_type = want if width(want) >= 32 else ("unsigned" if unsigned else "int")
    a, b = (convert(convert(x, want, Mode.PRESERVE), call_type, Mode.EXACT) for x in args)
    return _narrow_result(call(function, (a, b), call_type), want)


def _div_helper(op: Operation, args: Sequence[Expr], helpers: dict[str, str]) -> Expr:
    type = op.results[0].type
    unsigned = op.name == "arith.ceildivui"
    want = ctype_of(type, unsigned=unsigned)
    if width(want) < 32:
        raise Unsupported(f"on {type}")
    name = {
        "arith.floordivsi": "agpu_floordiv",
        "arith.ceildivsi": "agpu_ceildiv",
        "arith.ceildivui": "agpu_ceildivu",
    }[op.name]
    called = helper(helpers, name, want)
    return call(called, [convert(a, want, Mode.EXACT) for a in args], want)


def _cmpi(op: Operation, args: Sequence[Expr], _: dict[str, str]) -> Expr:
    predicate = CMPI_COMPARISON_OPERATIONS[_predicate(op)]
    c_op, unsigned = _CMPI[predicate]
    type = op.operands[0].type
    if ir_width(type) == 1:
        a, b = _bool(args[0]), _bool(args[1])
        signed_order = predicate[0] == "s"  # as signed i1 values, true (-1) < false (0)
        return Binary(_SWAPPED[c_op] if signed_order else c_op, a, b, "bool")
    want = ctype_of(type, unsigned=unsigned)
    if width(want) < 32:
        a, b = convert(args[0], want, Mode.EXACT), convert(args[1], want, Mode.EXACT)
    else:
        a, b = pair(args[0], args[1], want)
    return Binary(c_op, a, b, "bool")


def _cmpf(op: Operation, args: Sequence[Expr], _: dict[str, str]) -> Expr:
    predicate = CMPF_COMPARISON_OPERATIONS[_predicate(op)]
    want = ctype_of(op.operands[0].type)
    a, b = pair(args[0], args[1], want)
    if predicate in _CMPF_ORDERED:
        return Binary(_CMPF_ORDERED[predicate], a, b, "bool")
    if predicate in _CMPF_UNORDERED:
        return negate(Binary(_CMPF_UNORDERED[predicate], a, b, "bool"))
    if predicate in ("false", "true"):
        return Literal(predicate, "bool")
    if predicate == "ord":
        not_nan = [negate(call("isnan", [x], "bool")) for x in (a, b)]
        return Binary("&&", not_nan[0], not_nan[1], "bool")
    if predicate == "uno":
        return Binary("||", call("isnan", [a], "bool"), call("isnan", [b], "bool"), "bool")
    # one / ueq: mention each operand twice (the emitter made them names).
    ordered_ne = Binary("||", Binary("<", a, b, "bool"), Binary(">", a, b, "bool"), "bool")
    return ordered_ne if predicate == "one" else negate(ordered_ne)


def _select(op: Operation, args: Sequence[Expr], _: dict[str, str]) -> Expr:
    return select(_bool(args[0]), args[1], args[2], op.results[0].type)


def select(cond: Expr, if_true: Expr, if_false: Expr, type: Attribute) -> Expr:
    """`cond ? if_true : if_false` with a result of IR type `type` (arith.select, scf.if with
    one result and no statements): both branches converted to it exactly."""
    if ir_width(type) == 1:
        return conditional_bool(cond, _bool(if_true), _bool(if_false))
    want = ctype_of(type)
    if width(want) < 32:
        a, b = convert(if_true, want, Mode.EXACT), convert(if_false, want, Mode.EXACT)
    else:
        a, b = pair(if_true, if_false, want)
    return Conditional(cond, a, b, want)


def conditional_bool(cond: Expr, if_true: Expr, if_false: Expr) -> Expr:
    """`c ? x : false` reads better as `c && x`, `c ? true : x` as `c || x`."""
    if _is_false(if_false):
        return Binary("&&", cond, if_true, "bool")
    if _is_true(if_true):
        return Binary("||", cond, if_false, "bool")
    return Conditional(cond, if_true, if_false, "bool")


def _float_binary(op: Operation, args: Sequence[Expr], _: dict[str, str]) -> Expr:
    want = ctype_of(op.results[0].type)
    a, b = pair(args[0], args[1], want)
    return Binary(_FLOAT_BINARY[op.name], a, b, want)


def _negf(op: Operation, args: Sequence[Expr], _: dict[str, str]) -> Expr:
    want = ctype_of(op.results[0].type)
    return Unary("-", convert(args[0], want, Mode.EXACT), want)


def _math_call(op: Operation, args: Sequence[Expr], helpers: dict[str, str]) -> Expr:
    type = op.results[0].type
    if not is_float_type(type):
        raise Unsupported(f"on {type}")
    want = ctype_of(type)
    operands = [convert(a, want, Mode.EXACT) for a in args]
    if op.name in ("arith.minimumf", "arith.maximumf"):
        name = "agpu_minimum" if op.name == "arith.minimumf" else "agpu_maximum"
        return call(helper(helpers, name, want), operands, want)
    if op.name == "math.fma":
        return call(_math_name("fma", want), operands, want)
    base = _MATH_UNARY.get(op.name) or _MATH_BINARY[op.name]
    return call(_math_name(base, want), operands, want)


def _library_call(op: Operation, args: Sequence[Expr], _: dict[str, str]) -> Expr:
    """`agpu.math_call`: CUDA's device function of the C name (`erfcf` on f32, `erfc` on
    f64), each argument in its parameter's C type."""
    assert isinstance(op, MathCallOp)
    name = op.facts.c_name(op.single)
    operands = [convert(a, ctype_of(v.type), Mode.EXACT) for a, v in zip(args, op.operands)]
    return call(name, operands, ctype_of(op.result.type))


def _fpowi(op: Operation, args: Sequence[Expr], _: dict[str, str]) -> Expr:
    want = ctype_of(op.results[0].type)
    exponent = convert(args[1], ctype_of(op.operands[1].type), Mode.PRESERVE)
    base = convert(args[0], want, Mode.EXACT)
    return call(_math_name("pow", want), [base, Cast(want, exponent)], want)


def _int_math(op: Operation, args: Sequence[Expr], helpers: dict[str, str]) -> Expr:
    type = op.results[0].type
    bits = ir_width(type)
    if bits not in (32, 64):
        raise Unsupported(f"on {type}")
    wide = bits == 64
    if op.name == "math.absi":
        want = ctype_of(type)
        return call("llabs" if wide else "abs", [convert(args[0], want, Mode.EXACT)], want)
    if op.name == "math.ctpop":
        operand = convert(args[0], ctype_of(type, unsigned=True), Mode.EXACT)
        return call("__popcll" if wide else "__popc", [operand], "int")
    operand = convert(args[0], ctype_of(type), Mode.EXACT)
    if op.name == "math.ctlz":
        return call("__clzll" if wide else "__clz", [operand], "int")
    return call(helper(helpers, "agpu_cttz", ctype_of(type)), [operand], ctype_of(type))


# --- casts -----------------------------------------------------------------------------------


def _widen(e: Expr, source: Attribute, target: Attribute, unsigned: bool) -> Expr:
    if ir_width(source) == 1 and not unsigned:
        return Unary("-", convert(_bool(e), ctype_of(target), Mode.EXACT), ctype_of(target))
    # The operand's C value read as the source type (signed or not) is the widened value.
    return convert(e, ctype_of(source, unsigned=unsigned), Mode.PRESERVE)


def _narrow(e: Expr, target: Attribute) -> Expr:
    bits = ir_width(target)
    if bits == 1:
        if e.ctype == "bool":
            return e
        low_bit = Binary("&", e, IntLiteral(1), e.ctype)
        return Binary("!=", low_bit, IntLiteral(0), "bool")
    if e.ctype is not None and width(e.ctype) <= bits:
        return e  # exact (narrower) or the same bits (same width)
    narrowed = _narrow_unsigned_ring(e, bits)
    if narrowed is not None:
        return narrowed
    return Cast(ctype_of(target), e)


def _narrow_unsigned_ring(e: Expr, bits: int) -> Expr | None:
    """Truncation commutes with + - * & | ^: `(int)((long long)blockIdx.x * blockDim.x +
    threadIdx.x)` is `blockIdx.x * blockDim.x + threadIdx.x` computed in 32-bit unsigned
    arithmetic (which wraps, unlike int). Only done when an operand is already unsigned of
    that width, so the narrow computation is unsigned; None where it does not apply."""
    if bits < 32:
        return None
    unsigned = _UNSIGNED_BY_WIDTH[bits]

    def narrow(x: Expr) -> Expr | None:
        if x.ctype is not None and x.ctype in INTEGER_WIDTHS and INTEGER_WIDTHS[x.ctype] <= bits:
            return x
        if isinstance(x, Cast) and x.ctype in INTEGER_WIDTHS and x.operand.ctype in INTEGER_WIDTHS:
            if INTEGER_WIDTHS[x.operand.ctype] <= bits:  # an integer widening cast: drop it
                return x.operand
        if isinstance(x, IntLiteral):
            return int_literal(x.value, unsigned)
        if isinstance(x, Binary) and x.op in _RING:
            lhs, rhs = narrow(x.lhs), narrow(x.rhs)
            if lhs is None or rhs is None or unsigned not in (lhs.ctype, rhs.ctype):
                return None
            a, b = pair(lhs, rhs, unsigned)
            return Binary(x.op, a, b, unsigned)
        return None

    return narrow(e) if isinstance(e, Binary) else None


def _int_cast(op: Operation, args: Sequence[Expr], _: dict[str, str]) -> Expr:
    source, target = op.operands[0].type, op.results[0].type
    unsigned = op.name in ("arith.extui", "arith.index_castui")
    if ir_width(target) > ir_width(source):
        return _widen(args[0], source, target, unsigned)
    if ir_width(target) < ir_width(source):
        return _narrow(args[0], target)
    return args[0]


def _int_to_float(op: Operation, args: Sequence[Expr], _: dict[str, str]) -> Expr:
    source = op.operands[0].type
    unsigned = op.name == "arith.uitofp"
    operand = args[0]
    if ir_width(source) == 1:
        operand = _bool(operand)
        if not unsigned:  # as a signed i1, true is -1
            operand = Unary("-", convert(operand, "int", Mode.EXACT), "int")
    else:
        operand = convert(operand, ctype_of(source, unsigned=unsigned), Mode.PRESERVE)
    return Cast(ctype_of(op.results[0].type), operand)


def _float_to_int(op: Operation, args: Sequence[Expr], _: dict[str, str]) -> Expr:
    target = op.results[0].type
    if ir_width(target) == 1:
        raise Unsupported("to i1")
    return Cast(ctype_of(target, unsigned=op.name == "arith.fptoui"), args[0])


def _float_cast(op: Operation, args: Sequence[Expr], _: dict[str, str]) -> Expr:
    if op.name == "arith.extf":
        return args[0]  # a float is exact as a double
    return Cast(ctype_of(op.results[0].type), args[0])


_BITCASTS = {
    ("float", "int"): "__float_as_int",
    ("int", "float"): "__int_as_float",
    ("double", "long long"): "__double_as_longlong",
    ("long long", "double"): "__longlong_as_double",
}


def _bitcast(op: Operation, args: Sequence[Expr], _: dict[str, str]) -> Expr:
    source, target = ctype_of(op.operands[0].type), ctype_of(op.results[0].type)
    if source == target:
        return args[0]
    function = _BITCASTS.get((source, target))
    if function is None:
        raise Unsupported(f"from {op.operands[0].type} to {op.results[0].type}")
    return call(function, [convert(args[0], source, Mode.EXACT)], target)


_BUILDERS: dict[str, Builder] = {
    "arith.constant": _constant,
    **{name: _int_op for name in _INT_BINARY},
    "arith.shli": _shift,
    "arith.shrsi": _shift,
    "arith.shrui": _shift,
    **{name: _min_max for name in _MIN_MAX},
    "arith.floordivsi": _div_helper,
    "arith.ceildivsi": _div_helper,
    "arith.ceildivui": _div_helper,
    "arith.cmpi": _cmpi,
    "arith.cmpf": _cmpf,
    "arith.select": _select,
    **{name: _float_binary for name in _FLOAT_BINARY},
    "arith.negf": _negf,
    "arith.minimumf": _math_call,
    "arith.maximumf": _math_call,
    **{name: _math_call for name in _MATH_UNARY},
    **{name: _math_call for name in _MATH_BINARY},
    "math.fma": _math_call,
    "agpu.math_call": _library_call,
    "math.fpowi": _fpowi,
    "math.absi": _int_math,
    "math.ctlz": _int_math,
    "math.cttz": _int_math,
    "math.ctpop": _int_math,
    "arith.extsi": _int_cast,
    "arith.extui": _int_cast,
    "arith.trunci": _int_cast,
    "arith.index_cast": _int_cast,
    "arith.index_castui": _int_cast,
    "arith.sitofp": _int_to_float,
    "arith.uitofp": _int_to_float,
    "arith.fptosi": _float_to_int,
    "arith.fptoui": _float_to_int,
    "arith.extf": _float_cast,
    "arith.truncf": _float_cast,
    "arith.bitcast": _bitcast,
}


def is_expression_op(op: Operation) -> bool:
    """Ops with one result and no side effect that `build_expression` translates."""
    return op.name in _BUILDERS or is_gpu_builtin(op)


def build_expression(op: Operation, operands: Sequence[Expr], helpers: dict[str, str]) -> Expr:
    """The C expression of `op`'s result, given its operands' expressions."""
    if is_gpu_builtin(op):
        return gpu_builtin(op)
    return _BUILDERS[op.name](op, operands, helpers)

