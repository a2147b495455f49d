"""The reference interpreter on hand-written C-level IR: every op family, and the corners where
C's semantics differ from Python's (f32 rounding, wraparound, signedness, truncation)."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from autogpu.context import make_context
from autogpu.interpreters import (
    InterpreterError,
    OutOfBoundsError,
    UndefinedBehaviorError,
    compile_module,
    run_function,
)

INT_MIN = -(2**31)
INT_MAX = 2**31 - 1


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def run(text: str, name: str, *args: Any) -> Any:
    return run_function(parse(text), name, list(args))


def unary(op: str, source: str, target: str, a: Any) -> Any:
    """Run `%r = <op> %a : source to target` (or `: type` when source == target)."""
    signature = f"{source} to {target}" if source != target else source
    text = f"""
    func.func @f(%a: {source}) -> {target} {{
      %r = {op} %a : {signature}
      func.return %r : {target}
    }}"""
    return run(text, "f", a)


def binary(op: str, type_: str, a: Any, b: Any, result: str | None = None) -> Any:
    result = result or type_
    text = f"""
    func.func @f(%a: {type_}, %b: {type_}) -> {result} {{
      %r = {op} %a, %b : {type_}
      func.return %r : {result}
    }}"""
    return run(text, "f", a, b)


def f32_bits(x: float | np.floating[Any]) -> int:
    return struct.unpack("<I", struct.pack("<f", float(x)))[0]


# --- the paper's smallest kernel, end to end --------------------------------------------------

SAXPY = """
func.func @saxpy(%n: i32 {agpu.name = "n", agpu.ctype = "int"},
                 %a: f32 {agpu.name = "a", agpu.ctype = "float"},
                 %x: memref<?xf32> {agpu.name = "x", agpu.ctype = "float", agpu.const},
                 %y: memref<?xf32> {agpu.name = "y", agpu.ctype = "float"}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    %0 = arith.index_cast %i : i32 to index
    %1 = memref.load %x[%0] : memref<?xf32>
    %2 = arith.mulf %a, %1 : f32
    %3 = memref.load %y[%0] : memref<?xf32>
    %4 = arith.addf %2, %3 : f32
    memref.store %4, %y[%0] : memref<?xf32>
  }
  func.return
}
"""


def test_saxpy_writes_the_callers_array_in_place_with_f32_rounding():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, 17).astype(np.float32)
    y = rng.uniform(-1, 1, 17).astype(np.float32)
    expected = np.float32(0.7) * x + y  # NumPy float32 arrays: one rounding per op
    assert run(SAXPY, "saxpy", 17, 0.7, x, y) is None
    assert np.array_equal(y.view(np.uint32), expected.view(np.uint32))


def test_saxpy_on_a_strided_view_updates_the_base_array():
    base = np.zeros(10, np.float32)
    x = np.ones(5, np.float32)
    run(SAXPY, "saxpy", 5, 2.0, x, base[::2])
    assert base.tolist() == [2, 0, 2, 0, 2, 0, 2, 0, 2, 0]


def test_zero_trip_parallel_loop_leaves_outputs_alone():
    y = np.full(3, 5.0, np.float32)
    run(SAXPY, "saxpy", 0, 2.0, np.ones(3, np.float32), y)
    assert y.tolist() == [5, 5, 5]


# --- floating point: f32 is rounded after every op, f64 is double ---------------------------

ROUNDING = """
func.func @f32(%a: f32, %b: f32) -> f32 {
  %s = arith.addf %a, %b : f32
  %d = arith.subf %s, %a : f32
  func.return %d : f32
}
func.func @f64(%a: f64, %b: f64) -> f64 {
  %s = arith.addf %a, %b : f64
  %d = arith.subf %s, %a : f64
  func.return %d : f64
}
"""


def test_f32_rounds_after_every_op_but_f64_does_not():
    module = parse(ROUNDING)
    # 1e8 + 1 is not representable in float: (a + b) - a is 0 in f32 and 1 in f64.
    f32_result = run_function(module, "f32", [1e8, 1.0])
    assert type(f32_result) is np.float32
    assert f32_result == 0.0
    assert run_function(module, "f64", [1e8, 1.0]) == 1.0


@pytest.mark.parametrize("op, symbol", [("addf", "+"), ("subf", "-"), ("mulf", "*"), ("divf", "/")])
def test_f32_binary_ops_agree_with_numpy_float32_bitwise(op: str, symbol: str):
    rng = np.random.default_rng(1)
    a, b = rng.uniform(-3, 3, (2, 20)).astype(np.float32)
    module = parse(binary_text := f"""
    func.func @f(%a: f32, %b: f32) -> f32 {{
      %r = arith.{op} %a, %b : f32
      func.return %r : f32
    }}""")
    assert binary_text
    for x, y in zip(a, b):
        got = run_function(module, "f", [x, y])
        expected = eval(f"x {symbol} y")  # np.float32 scalars
        assert f32_bits(got) == f32_bits(expected)


def test_float_division_by_zero_gives_ieee_results_not_exceptions():
    assert binary("arith.divf", "f64", 1.0, 0.0) == math.inf
    assert binary("arith.divf", "f64", -1.0, 0.0) == -math.inf
    assert math.isnan(binary("arith.divf", "f64", 0.0, 0.0))
    assert binary("arith.divf", "f32", 1.0, 0.0) == np.inf
    assert binary("arith.mulf", "f32", 3e38, 10.0) == np.inf  # overflow, no warning raised


def test_negf_and_absf_flip_and_clear_the_sign_bit():
    assert math.copysign(1, unary("arith.negf", "f32", "f32", 0.0)) == -1
    assert math.copysign(1, unary("math.absf", "f64", "f64", -0.0)) == 1
    assert unary("math.absf", "f32", "f32", -2.5) == 2.5


NAN = float("nan")
CMPF_CASES = [(1.0, 2.0), (2.0, 1.0), (1.0, 1.0), (NAN, 1.0), (1.0, NAN), (NAN, NAN)]
CMPF_EXPECTED: dict[str, Callable[[float, float], bool]] = {
    "false": lambda a, b: False,
    "oeq": lambda a, b: a == b,
    "ogt": lambda a, b: a > b,
    "oge": lambda a, b: a >= b,
    "olt": lambda a, b: a < b,
    "ole": lambda a, b: a <= b,
    "one": lambda a, b: not math.isnan(a) and not math.isnan(b) and a != b,
    "ord": lambda a, b: not math.isnan(a) and not math.isnan(b),
    "ueq": lambda a, b: math.isnan(a) or math.isnan(b) or a == b,
    "ugt": lambda a, b: math.isnan(a) or math.isnan(b) or a > b,
    "uge": lambda a, b: math.isnan(a) or math.isnan(b) or a >= b,
    "ult": lambda a, b: math.isnan(a) or math.isnan(b) or a < b,
    "ule": lambda a, b: math.isnan(a) or math.isnan(b) or a <= b,
    "une": lambda a, b: math.isnan(a) or math.isnan(b) or a != b,
    "uno": lambda a, b: math.isnan(a) or math.isnan(b),
    "true": lambda a, b: True,
}


@pytest.mark.parametrize("predicate", list(CMPF_EXPECTED))
@pytest.mark.parametrize("type_", ["f32", "f64"])
def test_cmpf_predicates_including_unordered(predicate: str, type_: str):
    module = parse(f"""
    func.func @f(%a: {type_}, %b: {type_}) -> i1 {{
      %r = arith.cmpf {predicate}, %a, %b : {type_}
      func.return %r : i1
    }}""")
    for a, b in CMPF_CASES:
        assert run_function(module, "f", [a, b]) is CMPF_EXPECTED[predicate](a, b), (a, b)


def test_minnumf_maxnumf_ignore_nan_like_fmin_fmax():
    assert binary("arith.minnumf", "f32", NAN, 2.0) == 2.0
    assert binary("arith.maxnumf", "f64", 1.0, NAN) == 1.0
    assert binary("arith.minnumf", "f64", -3.0, 2.0) == -3.0
    assert binary("arith.maxnumf", "f32", -3.0, 2.0) == 2.0


def test_minimumf_maximumf_propagate_nan_and_order_signed_zeros():
    assert math.isnan(binary("arith.minimumf", "f32", NAN, 2.0))
    assert math.isnan(binary("arith.maximumf", "f64", 1.0, NAN))
    assert math.copysign(1, binary("arith.minimumf", "f64", 0.0, -0.0)) == -1
    assert math.copysign(1, binary("arith.maximumf", "f64", -0.0, 0.0)) == 1
    assert binary("arith.maximumf", "f32", -3.0, 2.0) == 2.0


# --- integers: wraparound and signedness chosen by the op -------------------------------------


def test_i32_and_i64_arithmetic_wraps():
    assert binary("arith.addi", "i32", INT_MAX, 1) == INT_MIN
    assert binary("arith.subi", "i32", INT_MIN, 1) == INT_MAX
    assert binary("arith.muli", "i32", 65536, 65536) == 0
    assert binary("arith.muli", "i32", 65535, 65537) == -1  # 0xFFFFFFFF
    assert binary("arith.addi", "i64", 2**63 - 1, 1) == -(2**63)
    assert binary("arith.addi", "index", 2**63 - 1, 2) == -(2**63) + 1
    assert binary("arith.addi", "i1", 1, 1) is False  # true + true = 0 in i1


@pytest.mark.parametrize(
    "a, b, quotient, remainder",
    [(7, 2, 3, 1), (-7, 2, -3, -1), (7, -2, -3, 1), (-7, -2, 3, -1), (0, 5, 0, 0)],
)
def test_divsi_truncates_toward_zero_and_remsi_takes_the_dividends_sign(
    a: int, b: int, quotient: int, remainder: int
):
    assert binary("arith.divsi", "i32", a, b) == quotient
    assert binary("arith.remsi", "i32", a, b) == remainder
    assert binary("arith.divsi", "i64", a, b) == quotient


def test_floor_and_ceil_division():
    assert binary("arith.floordivsi", "i32", -7, 2) == -4
    assert binary("arith.ceildivsi", "i32", 7, 2) == 4
    assert binary("arith.ceildivsi", "i32", -7, 2) == -3
    assert binary("arith.ceildivui", "i32", -1, 2) == INT_MIN  # 0xFFFFFFFF / 2 rounded up


def test_unsigned_division_remainder_and_comparison_read_the_bits_as_unsigned():
    # -1 is 0xFFFFFFFF = 4294967295 when unsigned.
    assert binary("arith.divui", "i32", -1, 2) == INT_MAX
    assert binary("arith.remui", "i32", -1, 10) == 4294967295 % 10
    assert binary("arith.divui", "i64", -1, 2) == 2**63 - 1
    assert binary("arith.cmpi ult,", "i32", -1, 1, "i1") is False
    assert binary("arith.cmpi slt,", "i32", -1, 1, "i1") is True
    assert binary("arith.cmpi uge,", "i32", -1, 1, "i1") is True
    assert binary("arith.minui", "i32", -1, 1) == 1
    assert binary("arith.maxui", "i32", -1, 1) == -1
    assert binary("arith.minsi", "i32", -1, 1) == -1
    assert binary("arith.maxsi", "i32", -1, 1) == 1


@pytest.mark.parametrize(
    "predicate, a, b, expected",
    [
        ("eq", 3, 3, True), ("ne", 3, 3, False), ("slt", -2, 1, True), ("sle", 1, 1, True),
        ("sgt", -2, 1, False), ("sge", 1, 1, True), ("ult", 1, -2, True), ("ule", -2, -2, True),
        ("ugt", -2, 1, True), ("uge", 1, -2, False),
    ],
)
def test_cmpi_predicates(predicate: str, a: int, b: int, expected: bool):
    assert binary(f"arith.cmpi {predicate},", "i32", a, b, "i1") is expected
    assert binary(f"arith.cmpi {predicate},", "i64", a, b, "i1") is expected


def test_shifts_arithmetic_logical_and_wrapping():
    assert binary("arith.shrsi", "i32", -8, 1) == -4
    assert binary("arith.shrui", "i32", -8, 1) == (2**32 - 8) >> 1
    assert binary("arith.shli", "i32", 1, 31) == INT_MIN
    assert binary("arith.shli", "i32", 3, 31) == INT_MIN  # the high bit is shifted out
    assert binary("arith.shrui", "i64", -1, 63) == 1


def test_shift_by_the_width_is_undefined_and_raises():
    with pytest.raises(UndefinedBehaviorError, match="shift amount 32 out of range for i32"):
        binary("arith.shli", "i32", 1, 32)


def test_bitwise_ops():
    assert binary("arith.andi", "i32", -1, 0x0F0F) == 0x0F0F
    assert binary("arith.ori", "i32", INT_MIN, 1) == INT_MIN + 1
    assert binary("arith.xori", "i32", -1, 5) == ~5
    assert binary("arith.xori", "i1", 1, 1) is False
    assert binary("arith.ori", "i1", 0, 1) is True


@pytest.mark.parametrize("op", ["divsi", "remsi", "divui", "remui", "floordivsi", "ceildivsi"])
def test_integer_division_by_zero_raises(op: str):
    with pytest.raises(UndefinedBehaviorError, match="by zero"):
        binary(f"arith.{op}", "i32", 1, 0)


def test_int_min_divided_by_minus_one_raises():
    with pytest.raises(UndefinedBehaviorError, match="overflow"):
        binary("arith.divsi", "i32", INT_MIN, -1)
    with pytest.raises(UndefinedBehaviorError, match="overflow"):
        binary("arith.remsi", "i32", INT_MIN, -1)


# --- conversions ------------------------------------------------------------------------------


def test_integer_extensions_and_truncations():
    assert unary("arith.extsi", "i32", "i64", -1) == -1
    assert unary("arith.extui", "i32", "i64", -1) == 2**32 - 1
    assert unary("arith.extsi", "i1", "i32", 1) == -1
    assert unary("arith.extui", "i1", "i32", 1) == 1
    assert unary("arith.trunci", "i64", "i32", 2**32 + 5) == 5
    assert unary("arith.trunci", "i64", "i32", 2**31) == INT_MIN
    assert unary("arith.index_cast", "i32", "index", -3) == -3
    assert unary("arith.index_cast", "index", "i32", 2**32 - 1) == -1


def test_int_to_float_conversions_round_correctly():
    assert unary("arith.sitofp", "i32", "f32", -3) == -3.0
    assert unary("arith.uitofp", "i32", "f64", -1) == 4294967295.0
    assert unary("arith.sitofp", "i32", "f32", 16777217) == 16777216.0  # ties to even
    # Through double first would round twice (2**60 + 2**36 + 1 -> 2**60 + 2**36 -> 2**60).
    assert unary("arith.sitofp", "i64", "f32", 2**60 + 2**36 + 1) == np.float32(2**60 + 2**37)
    assert unary("arith.uitofp", "i64", "f32", -1) == np.float32(2**64)


@pytest.mark.parametrize(
    "x, expected", [(2.7, 2), (-2.7, -2), (-0.5, 0), (1e10, INT_MIN), (NAN, INT_MIN), (-1e10, INT_MIN)]
)
def test_fptosi_truncates_and_gives_x86_indefinite_out_of_range(x: float, expected: int):
    assert unary("arith.fptosi", "f32", "i32", x) == expected
    assert unary("arith.fptosi", "f64", "i32", x) == expected


def test_fptoui():
    assert unary("arith.fptoui", "f64", "i32", 3.9) == 3
    assert unary("arith.fptoui", "f64", "i32", 4e9) == int(4e9) - 2**32  # bits of 4000000000
    assert unary("arith.fptoui", "f64", "i64", 1.5 * 2**63) == int(1.5 * 2**63) - 2**64


def test_float_extension_and_truncation():
    assert unary("arith.truncf", "f64", "f32", 0.1) == np.float32(0.1)
    assert unary("arith.extf", "f32", "f64", 0.1) == float(np.float32(0.1))
    assert unary("arith.truncf", "f64", "f32", 1e300) == np.inf


def test_bitcast():
    assert unary("arith.bitcast", "f32", "i32", 1.0) == 0x3F800000
    assert unary("arith.bitcast", "i32", "f32", 0x40490FDB) == np.float32(3.14159274)
    assert unary("arith.bitcast", "f64", "i64", -0.0) == -(2**63)


def test_select():
    text = """
    func.func @f(%c: i1, %a: i32, %b: i32) -> i32 {
      %r = arith.select %c, %a, %b : i32
      func.return %r : i32
    }"""
    assert run(text, "f", True, 1, 2) == 1
    assert run(text, "f", False, 1, 2) == 2


# --- math --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "op, reference",
    [
        ("sqrt", np.sqrt), ("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc),
        ("absf", np.abs),
    ],
)
def test_exact_math_ops_agree_with_numpy(op: str, reference: Callable[[Any], Any]):
    for x in [0.3, 2.5, -2.5, 1e-3, 17.0]:
        x32 = np.float32(x)
        if op == "sqrt":
            x32 = abs(x32)
        got = unary(f"math.{op}", "f32", "f32", x32)
        assert type(got) is np.float32
        assert f32_bits(got) == f32_bits(reference(x32))
        assert unary(f"math.{op}", "f64", "f64", float(x32)) == reference(float(x32))


@pytest.mark.parametrize("op", ["exp", "log", "sin", "cos", "tanh", "exp2", "log2", "atan"])
def test_transcendental_math_ops_are_within_an_ulp_of_the_double_result(op: str):
    for x in [0.3, 2.5, 0.001, 7.0]:
        got = unary(f"math.{op}", "f32", "f32", x)
        exact = float(getattr(np, op if op != "exp2" else "exp2")(np.float64(np.float32(x))))
        assert type(got) is np.float32
        assert abs(float(got) - exact) <= abs(np.spacing(np.float32(exact)))


def test_binary_math_ops():
    assert binary("math.powf", "f32", 2.0, 10.0) == 1024.0
    assert binary("math.powf", "f64", 2.0, 0.5) == math.sqrt(2.0)
    assert binary("math.atan2", "f64", 1.0, 1.0) == math.atan2(1.0, 1.0)
    assert binary("math.copysign", "f32", 3.0, -0.0) == -3.0
    text = """
    func.func @f(%a: f64, %b: f64, %c: f64) -> f64 {
      %r = math.fma %a, %b, %c : f64
      func.return %r : f64
    }"""
    # fma rounds once: (1 + 2^-30)^2 - (1 + 2^-29) = 2^-60, lost if rounded twice.
    x = 1 + 2.0**-30
    assert run(text, "f", x, x, -(1 + 2.0**-29)) == 2.0**-60


def test_integer_math_ops():
    assert unary("math.absi", "i32", "i32", INT_MIN) == INT_MIN
    assert unary("math.absi", "i32", "i32", -5) == 5
    assert unary("math.ctlz", "i32", "i32", 1) == 31
    assert unary("math.cttz", "i32", "i32", 8) == 3
    assert unary("math.ctpop", "i32", "i32", -1) == 32
    assert binary("math.ipowi", "i32", 3, 21) == 3**21 - 2**32 * (3**21 // 2**32)


# --- control flow -----------------------------------------------------------------------------

NESTED = """
func.func @triangle(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %total = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
    %inner = scf.for %j = %c0 to %i step %c1 iter_args(%a = %acc) -> (i32) : i32 {
      %p = arith.muli %i, %j : i32
      %odd = arith.andi %j, %c1 : i32
      %is_odd = arith.cmpi ne, %odd, %c0 : i32
      %next = scf.if %is_odd -> (i32) {
        %s = arith.addi %a, %p : i32
        scf.yield %s : i32
      } else {
        %s = arith.subi %a, %p : i32
        scf.yield %s : i32
      }
      scf.yield %next : i32
    }
    scf.yield %inner : i32
  }
  func.return %total : i32
}
"""


@pytest.mark.parametrize("n", [0, 1, 2, 17])
def test_nested_loops_with_iter_args_and_if_results(n: int):
    expected = sum(i * j if j % 2 else -i * j for i in range(n) for j in range(i))
    assert run(NESTED, "triangle", n) == expected


SWAP = """
func.func @fib(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a, %b = scf.for %i = %c0 to %n step %c1 iter_args(%x = %c0, %y = %c1) -> (i32, i32) : i32 {
    %s = arith.addi %x, %y : i32
    scf.yield %y, %s : i32, i32
  }
  func.return %a : i32
}
"""


def test_loop_carried_values_are_updated_simultaneously():
    assert [run(SWAP, "fib", n) for n in range(8)] == [0, 1, 1, 2, 3, 5, 8, 13]


GCD = """
func.func @gcd(%a0: i32, %b0: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:3 = scf.while (%a = %a0, %b = %b0, %steps = %c0) : (i32, i32, i32) -> (i32, i32, i32) {
    %nonzero = arith.cmpi ne, %b, %c0 : i32
    scf.condition(%nonzero) %a, %b, %steps : i32, i32, i32
  } do {
  ^bb0(%x: i32, %y: i32, %k: i32):
    %m = arith.remsi %x, %y : i32
    %k1 = arith.addi %k, %c1 : i32
    scf.yield %y, %m, %k1 : i32, i32, i32
  }
  func.return %r#0, %r#2 : i32, i32
}
"""


def test_scf_while_runs_before_then_after_and_returns_the_condition_values():
    assert run(GCD, "gcd", 48, 18) == (6, 3)
    assert run(GCD, "gcd", 5, 0) == (5, 0)  # zero trips: the initial values come out


DO_WHILE_MEMORY = """
func.func @digits(%n: i32, %out: memref<?xi32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c10 = arith.constant 10 : i32
  %x = memref.alloca() : memref<i32>
  %count = memref.alloca() : memref<i32>
  memref.store %n, %x[] : memref<i32>
  memref.store %c0, %count[] : memref<i32>
  scf.while () : () -> () {
    %v = memref.load %x[] : memref<i32>
    %q = arith.divsi %v, %c10 : i32
    memref.store %q, %x[] : memref<i32>
    %k = memref.load %count[] : memref<i32>
    %k1 = arith.addi %k, %c1 : i32
    memref.store %k1, %count[] : memref<i32>
    %more = arith.cmpi ne, %q, %c0 : i32
    scf.condition(%more)
  } do {
    scf.yield
  }
  %result = memref.load %count[] : memref<i32>
  %zero = arith.constant 0 : index
  memref.store %result, %out[%zero] : memref<?xi32>
  func.return
}
"""


@pytest.mark.parametrize("n, digits", [(0, 1), (7, 1), (-12345, 5), (INT_MAX, 10)])
def test_do_while_over_memory_slots(n: int, digits: int):
    out = np.zeros(1, np.int32)
    run(DO_WHILE_MEMORY, "digits", n, out)
    assert out[0] == digits


DOT = """
func.func @dot(%x: memref<?xf32>, %y: memref<?xf32>, %result: memref<?xf32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  %s = memref.alloca() : memref<f32>
  memref.store %zero, %s[] : memref<f32>
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(add %s : memref<f32>) {
    %ix = arith.index_cast %i : i32 to index
    %a = memref.load %x[%ix] : memref<?xf32>
    %b = memref.load %y[%ix] : memref<?xf32>
    %p = arith.mulf %a, %b : f32
    %old = memref.load %s[] : memref<f32>
    %new = arith.addf %old, %p : f32
    memref.store %new, %s[] : memref<f32>
  }
  %total = memref.load %s[] : memref<f32>
  %c0i = arith.constant 0 : index
  memref.store %total, %result[%c0i] : memref<?xf32>
  func.return
}
"""


def test_parallel_for_reduction_accumulates_in_order_in_f32():
    rng = np.random.default_rng(2)
    x, y = rng.uniform(-1, 1, (2, 37)).astype(np.float32)
    result = np.zeros(1, np.float32)
    run(DOT, "dot", x, y, result, 37)
    expected = np.float32(0)
    for a, b in zip(x, y):
        expected = expected + a * b
    assert f32_bits(result[0]) == f32_bits(expected)


HISTOGRAM = """
func.func @histogram(%data: memref<?xi32>, %n: i32, %out: memref<?xi32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0 : i32
  %bins = memref.alloca() : memref<4xi32>
  %dyn = memref.alloca(%c4) : memref<?xi32>
  scf.for %b = %c0 to %c1 step %c1 : i32 {
    scf.for %k = %c0 to %c1 step %c1 : i32 {
    }
  }
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(add %bins : memref<4xi32>) {
    %ix = arith.index_cast %i : i32 to index
    %v = memref.load %data[%ix] : memref<?xi32>
    %bx = arith.index_cast %v : i32 to index
    %old = memref.load %bins[%bx] : memref<4xi32>
    %new = arith.addi %old, %c1 : i32
    memref.store %new, %bins[%bx] : memref<4xi32>
    memref.store %new, %dyn[%bx] : memref<?xi32>
  }
  %c2 = arith.constant 2 : i32
  scf.for %j = %c0 to %c2 step %c1 : i32 {
    %jx = arith.index_cast %j : i32 to index
    %count = memref.load %bins[%jx] : memref<4xi32>
    %d = memref.load %dyn[%jx] : memref<?xi32>
    %sum = arith.addi %count, %d : i32
    memref.store %sum, %out[%jx] : memref<?xi32>
  }
  func.return
}
"""


def test_rank1_array_reduction_and_allocas():
    data = np.array([0, 1, 1, 3, 0, 1], np.int32)
    out = np.zeros(2, np.int32)
    run(HISTOGRAM, "histogram", data, 6, out)
    assert out.tolist() == [4, 6]  # bins and dyn hold the same counts


def test_out_of_bounds_load_raises_index_error_naming_the_op():
    data = np.array([0, 1, 5], np.int32)  # 5 is not a bin
    with pytest.raises(OutOfBoundsError, match=r"memref.load .* index 5 out of bounds .* 4 elements"):
        run(HISTOGRAM, "histogram", data, 3, np.zeros(2, np.int32))


def test_out_of_bounds_store_and_negative_index_raise():
    with pytest.raises(IndexError, match=r"memref.store .*%out.* index 1 out of bounds .* 1 elem"):
        run(HISTOGRAM, "histogram", np.zeros(2, np.int32), 2, np.zeros(1, np.int32))
    x = np.ones(4, np.float32)
    with pytest.raises(IndexError, match="index 4 out of bounds for a memref of 4 elements"):
        run(SAXPY, "saxpy", 5, 1.0, x, np.ones(8, np.float32))
    negative = """
    func.func @f(%a: memref<?xf32>) -> f32 {
      %m = arith.constant -1 : index
      %v = memref.load %a[%m] : memref<?xf32>
      func.return %v : f32
    }"""
    with pytest.raises(IndexError, match="index -1 out of bounds"):
        run(negative, "f", np.ones(4, np.float32))


CALL = """
func.func @square(%x: f64) -> f64 {
  %r = arith.mulf %x, %x : f64
  func.return %r : f64
}
func.func @sum_squares(%a: f64, %b: f64) -> f64 {
  %x = func.call @square(%a) : (f64) -> f64
  %y = func.call @square(%b) : (f64) -> f64
  %r = arith.addf %x, %y : f64
  func.return %r : f64
}
"""


def test_function_calls():
    assert run(CALL, "sum_squares", 3.0, 4.0) == 25.0


def test_execute_region():
    text = """
    func.func @f(%a: i32) -> i32 {
      %r = scf.execute_region -> i32 {
        %b = arith.addi %a, %a : i32
        scf.yield %b : i32
      }
      func.return %r : i32
    }"""
    assert run(text, "f", 21) == 42


def test_unsigned_and_bool_arrays_are_read_and_written_by_their_bits():
    text = """
    func.func @f(%u: memref<?xi32>, %flags: memref<?xi1>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %v = memref.load %u[%c0] : memref<?xi32>
      %half = arith.constant 2 : i32
      %q = arith.divui %v, %half : i32
      memref.store %q, %u[%c1] : memref<?xi32>
      %f = memref.load %flags[%c0] : memref<?xi1>
      %true = arith.constant true
      %nf = arith.xori %f, %true : i1
      memref.store %nf, %flags[%c1] : memref<?xi1>
      func.return
    }"""
    u = np.array([4294967295, 0], np.uint32)
    flags = np.array([True, True])
    run(text, "f", u, flags)
    assert u[1] == 2147483647
    assert u.dtype == np.uint32
    assert flags.tolist() == [True, False]


def test_c99_2d_array_argument_is_seen_flat():
    grid = np.zeros((2, 3), np.float32)
    run(SAXPY, "saxpy", 6, 1.0, np.arange(6, dtype=np.float32), grid)
    assert grid.tolist() == [[0, 1, 2], [3, 4, 5]]


# --- bad input ---------------------------------------------------------------------------------


def test_argument_errors_are_clear():
    x = np.ones(4, np.float32)
    with pytest.raises(InterpreterError, match="takes 4 arguments, got 3"):
        run(SAXPY, "saxpy", 4, 1.0, x)
    with pytest.raises(InterpreterError, match=r"expected a float32 array .* got float64"):
        run(SAXPY, "saxpy", 4, 1.0, x, np.ones(4))
    with pytest.raises(InterpreterError, match="expected a NumPy array"):
        run(SAXPY, "saxpy", 4, 1.0, x, [1.0] * 4)
    with pytest.raises(InterpreterError, match="does not fit in i32"):
        run(SAXPY, "saxpy", 2**40, 1.0, x, x.copy())
    with pytest.raises(InterpreterError, match=r"no func.func @nope .*@saxpy"):
        run(SAXPY, "nope")


def test_unsupported_ops_are_reported_by_name():
    text = """
    func.func @f() -> index {
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      func.return %t : index
    }"""
    with pytest.raises(InterpreterError, match=r"does not support 'gpu.thread_id'"):
        run(text, "f")


def test_non_positive_dynamic_step_raises():
    text = """
    func.func @f(%s: i32) {
      %c0 = arith.constant 0 : i32
      %c9 = arith.constant 9 : i32
      scf.for %i = %c0 to %c9 step %s : i32 {
      }
      func.return
    }"""
    with pytest.raises(UndefinedBehaviorError, match=r"scf.for.* non-positive step 0"):
        run(text, "f", 0)
    run(text, "f", 3)


def test_negative_dynamic_alloca_size_raises():
    text = """
    func.func @f(%n: index) {
      %a = memref.alloca(%n) : memref<?xf32>
      func.return
    }"""
    with pytest.raises(UndefinedBehaviorError, match=r"memref.alloca.* negative size -2"):
        run(text, "f", -2)


def test_generated_source_is_available_for_debugging():
    source = compile_module(parse(SAXPY), "saxpy").source
    assert "def " in source
    assert "for " in source


# --- op by op against gcc: the same inputs give the same bits -----------------------------------

ELEMENTWISE_IR = """
func.func @k(%n: i32, %a: memref<?x{ta}>, %b: memref<?x{ta}>, %out: memref<?x{tr}>) {{
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {{
    %ix = arith.index_cast %i : i32 to index
    %x = memref.load %a[%ix] : memref<?x{ta}>
    %y = memref.load %b[%ix] : memref<?x{ta}>
    {body}
    memref.store %r, %out[%ix] : memref<?x{tr}>
  }}
  func.return
}}
"""
ELEMENTWISE_C = """
void k(int n, const {ca} *a, const {ca} *b, {cr} *out) {{
  for (int i = 0; i < n; i++) {{
    {ca} x = a[i], y = b[i];
    out[i] = {expr};
  }}
}}
"""
C_TYPES = {"f32": "float", "f64": "double", "i32": "int", "i64": "long"}
DTYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64}
# Inputs of one operand: n values from the generator.
Inputs = Callable[[np.random.Generator, int], npt.NDArray[Any]]


def _uniform(low: float, high: float) -> Inputs:
    return lambda rng, n: rng.uniform(low, high, n)


def _ints(low: int, high: int) -> Inputs:
    return lambda rng, n: rng.integers(low, high, n, endpoint=True)


def _nonzero(low: int, high: int) -> Inputs:
    return lambda rng, n: rng.choice([-1, 1], n) * rng.integers(1, high, n, endpoint=True)


# (id, operand type, result type, IR body defining %r, C expression, inputs of x, inputs of y)
AGAINST_GCC: list[tuple[str, str, str, str, str, Inputs, Inputs | None]] = [
    ("expf", "f32", "f32", "%r = math.exp %x : f32", "expf(x)", _uniform(-20, 20), None),
    ("logf", "f32", "f32", "%r = math.log %x : f32", "logf(x)", _uniform(1e-3, 1e3), None),
    ("sinf", "f32", "f32", "%r = math.sin %x : f32", "sinf(x)", _uniform(-100, 100), None),
    ("cosf", "f32", "f32", "%r = math.cos %x : f32", "cosf(x)", _uniform(-100, 100), None),
    ("tanf", "f32", "f32", "%r = math.tan %x : f32", "tanf(x)", _uniform(-3, 3), None),
    ("tanhf", "f32", "f32", "%r = math.tanh %x : f32", "tanhf(x)", _uniform(-5, 5), None),
    ("sqrtf", "f32", "f32", "%r = math.sqrt %x : f32", "sqrtf(x)", _uniform(0, 1e6), None),
    ("powf", "f32", "f32", "%r = math.powf %x, %y : f32", "powf(x, y)", _uniform(0, 4), _uniform(-8, 8)),
    ("atan2f", "f32", "f32", "%r = math.atan2 %x, %y : f32", "atan2f(x, y)", _uniform(-1, 1), _uniform(-1, 1)),
    ("erff", "f32", "f32", "%r = math.erf %x : f32", "erff(x)", _uniform(-3, 3), None),
    ("roundf", "f32", "f32", "%r = math.round %x : f32", "roundf(x)", lambda r, n: r.integers(-20, 20, n) / 2, None),
    ("fminf", "f32", "f32", "%r = arith.minnumf %x, %y : f32", "fminf(x, y)", _uniform(-1, 1), _uniform(-1, 1)),
    ("exp", "f64", "f64", "%r = math.exp %x : f64", "exp(x)", _uniform(-50, 50), None),
    ("log1p", "f64", "f64", "%r = math.log1p %x : f64", "log1p(x)", _uniform(-0.5, 10), None),
    ("pow", "f64", "f64", "%r = math.powf %x, %y : f64", "pow(x, y)", _uniform(0, 4), _uniform(-8, 8)),
    ("cbrt", "f64", "f64", "%r = math.cbrt %x : f64", "cbrt(x)", _uniform(-8, 8), None),
    ("f32 arithmetic", "f32", "f32",
     "%p = arith.mulf %x, %y : f32\n %q = arith.divf %p, %x : f32\n %r = arith.subf %q, %y : f32",
     "x * y / x - y", _uniform(-1, 1), _uniform(-1e3, 1e3)),
    ("f64 via f32", "f32", "f64",
     "%xd = arith.extf %x : f32 to f64\n %yd = arith.extf %y : f32 to f64\n"
     " %r = arith.divf %xd, %yd : f64", "(double)x / y", _uniform(-1, 1), _uniform(-1, 1)),
    ("divsi", "i32", "i32", "%r = arith.divsi %x, %y : i32", "x / y",
     _ints(-(2**31) + 1, 2**31 - 1), _nonzero(1, 1000)),
    ("remsi", "i32", "i32", "%r = arith.remsi %x, %y : i32", "x % y",
     _ints(-(2**31) + 1, 2**31 - 1), _nonzero(1, 1000)),
    ("muli wraps", "i32", "i32", "%r = arith.muli %x, %y : i32", "x * y",
     _ints(-(2**31), 2**31 - 1), _ints(-(2**31), 2**31 - 1)),
    ("divui", "i32", "i32", "%r = arith.divui %x, %y : i32", "(int)((unsigned)x / (unsigned)y)",
     _ints(-(2**31), 2**31 - 1), _nonzero(1, 2**31 - 1)),
    ("shrsi", "i32", "i32",
     "%c31 = arith.constant 31 : i32\n %s = arith.andi %y, %c31 : i32\n"
     " %r = arith.shrsi %x, %s : i32", "x >> (y & 31)",
     _ints(-(2**31), 2**31 - 1), _ints(0, 100)),
    ("fptosi", "f32", "i32", "%r = arith.fptosi %x : f32 to i32", "(int)x", _uniform(-3e9, 3e9), None),
    ("fptoui", "f64", "i32", "%r = arith.fptoui %x : f64 to i32", "(unsigned)x", _uniform(-1e3, 8e9), None),
    ("fptoui 64", "f64", "i64", "%r = arith.fptoui %x : f64 to i64", "(unsigned long)x", _uniform(0, 1.8e19), None),
    ("sitofp 64", "i64", "f32", "%r = arith.sitofp %x : i64 to f32", "(float)x",
     _ints(-(2**63), 2**63 - 1), None),
    ("uitofp 64", "i64", "f32", "%r = arith.uitofp %x : i64 to f32", "(float)(unsigned long)x",
     _ints(-(2**63), 2**63 - 1), None),
]


@pytest.mark.parametrize(
    "ta, tr, body, expr, make_x, make_y", [case[1:] for case in AGAINST_GCC],
    ids=[case[0] for case in AGAINST_GCC],
)
def test_ops_agree_with_gcc_bitwise(
    ta: str, tr: str, body: str, expr: str, make_x: Inputs, make_y: Inputs | None,
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
):
    from autogpu.testing import compile_c_reference, first_difference

    monkeypatch.setenv("AUTOGPU_CACHE", str(tmp_path))
    n = 300
    rng = np.random.default_rng(11)
    x = np.asarray(make_x(rng, n)).astype(DTYPES[ta])
    y = np.asarray(make_y(rng, n) if make_y else make_x(rng, n)).astype(DTYPES[ta])
    module = parse(ELEMENTWISE_IR.format(ta=ta, tr=tr, body=body))
    reference = compile_c_reference(
        ELEMENTWISE_C.format(ca=C_TYPES[ta], cr=C_TYPES[tr], expr=expr), "k"
    )
    interpreted = np.zeros(n, DTYPES[tr])
    compiled = np.zeros(n, DTYPES[tr])
    run_function(module, "k", [n, x, y, interpreted])
    reference(n, x, y, compiled)
    assert first_difference(interpreted, compiled) is None
