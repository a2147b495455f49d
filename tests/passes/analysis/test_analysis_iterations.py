"""Trip counts and the work of loops for concrete sizes (`passes.analysis.iterations`): the
facts the tuner reads off a kernel before compiling it, in C's integer arithmetic."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from xdsl.dialects import func
from xdsl.ir import SSAValue
from xdsl.parser import Parser

from autogpu.context import make_context
from autogpu.frontend import parse_c
from autogpu.passes.analysis.extents import find_function
from autogpu.passes.analysis.iterations import (
    integer_value,
    longest_accumulation,
    parallel_depth,
    parallel_iterations,
    size_arguments,
)

IR = """
func.func @f(%n: i32 {agpu.name = "n"}, %m: i32 {agpu.name = "m"}) {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %big = arith.constant 2147483647 : i32
  %sum = arith.addi %n, %c2 : i32
  %wrapped = arith.addi %big, %n : i32
  %half = arith.divsi %n, %c2 : i32
  %by_zero = arith.divsi %n, %c0 : i32
  %neg = arith.subi %c0, %n : i32
  %umax = arith.maxui %neg, %n : i32
  %smax = arith.maxsi %neg, %n : i32
  %wide = arith.extui %neg : i32 to i64
  %narrow = arith.trunci %wide : i64 to i32
  %x = arith.index_cast %sum : i32 to index
  %ceil = arith.ceildivsi %n, %m : i32
  func.return
}
"""


def _values() -> tuple[func.FuncOp, Mapping[str, SSAValue]]:
    module = Parser(make_context(), IR).parse_module()
    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    named = {r.name_hint: r for op in function.walk() for r in op.results if r.name_hint}
    return function, named


def test_integer_values_follow_c_arithmetic_at_the_result_width():
    function, v = _values()
    known = size_arguments(function, {"n": 7, "m": 2})
    assert [integer_value(v[name], known) for name in ("sum", "half", "x", "ceil", "smax")] == [
        9, 3, 9, 4, 7]
    assert integer_value(v["wrapped"], known) == -2147483642  # i32 wraps, as C's int does
    assert integer_value(v["umax"], known) == -7  # unsigned max: 0xFFFFFFF9 > 7
    assert integer_value(v["wide"], known) == (1 << 32) - 7  # zero extension
    assert integer_value(v["narrow"], known) == -7
    assert integer_value(v["by_zero"], known) is None  # undefined: no value
    assert integer_value(v["sum"], size_arguments(function, {"m": 2})) is None  # n unknown


def _function(source: str, name: str = "f") -> func.FuncOp:
    function = find_function(parse_c(source, "f.c"), name)
    assert function is not None
    return function


MATMUL = """void f(float *C, const float *A, const float *B, int m, int n, int p) {
#pragma omp parallel for
  for (int i = 0; i < m; i++)
#pragma omp parallel for
    for (int j = 0; j < n; j++) {
      float acc = 0.0f;
      for (int k = 0; k < p; k += 2) acc += A[i * p + k] * B[k * n + j];
      C[i * n + j] = acc;
    }
}
"""


def test_depth_iterations_and_accumulation_of_a_nest():
    function = _function(MATMUL)
    assert parallel_depth(function) == 2
    assert parallel_iterations(function, {"m": 3, "n": 5, "p": 9}) == 15
    assert longest_accumulation(function, {"m": 3, "n": 5, "p": 9}) == 5  # step 2: 0..8
    assert parallel_iterations(function, {"m": 0, "n": 5, "p": 9}) == 0
    assert longest_accumulation(function, {"m": 3, "n": 5}) is None  # p unknown


def test_nests_are_summed_and_reductions_accumulate():
    source = """void f(float *a, const float *b, float *out, int n, int t) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) a[i] = b[i];
  float s = 0.0f;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n * t; i++) s += b[i % n];
  out[0] = s;
}
"""
    function = _function(source)
    assert parallel_depth(function) == 1
    assert parallel_iterations(function, {"n": 10, "t": 3}) == 10 + 30
    assert longest_accumulation(function, {"n": 10, "t": 3}) == 30


@pytest.mark.parametrize("loop", ["while (k < n) { a[i] += 1.0f; k++; }",
                                  "for (int j = 0; j < (int)a[0]; j++) a[i] += 1.0f;"])
def test_what_does_not_evaluate_gives_none(loop: str):
    source = ("void f(float *a, int n) {\n#pragma omp parallel for\n"
              f"  for (int i = 0; i < n; i++) {{ int k = 0; {loop} }}\n}}\n")
    assert longest_accumulation(_function(source), {"n": 8}) is None
    assert parallel_iterations(_function(source), {"n": 8}) == 8
