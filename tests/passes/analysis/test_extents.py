"""touched_extents: the elements of each array a C function indexes, and the API's size checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from paths import EXAMPLES
from xdsl.dialects import func

import autogpu
from autogpu.api import Kernel
from autogpu.dialects.signature import CSignature
from autogpu.frontend import parse_c
from autogpu.passes.analysis.extents import (
    IndexRange,
    find_function,
    touched_extents,
    touched_ranges,
)
from autogpu.runtime.arguments import KernelArgumentError


def function_of(source: str, name: str | None = None) -> func.FuncOp:
    module = parse_c(source, "test.c")
    if name is None:
        (function,) = list(module.ops)
        assert isinstance(function, func.FuncOp)
        return function
    function = find_function(module, name)
    assert function is not None
    return function


def example(name: str, function: str | None = None) -> func.FuncOp:
    return function_of((EXAMPLES / f"{name}.c").read_text(), function)


def extents(source: str, **sizes: int) -> dict[str, int | None]:
    return touched_extents(function_of(source), sizes)


# --- the examples --------------------------------------------------------------------------------
@pytest.mark.parametrize("m, n, p", [(10, 12, 7), (1, 1, 1), (33, 5, 64)])
def test_matmul(m: int, n: int, p: int):
    assert touched_extents(example("matmul"), {"m": m, "n": n, "p": p}) == {
        "A": m * n,
        "B": m * p,
        "C": p * n,
    }


def test_matmul_empty_loops_touch_nothing():
    # n = 0: the j loop never runs, so neither does anything inside it.
    assert touched_extents(example("matmul"), {"m": 10, "n": 0, "p": 3}) == {
        "A": 0,
        "B": 0,
        "C": 0,
    }


def test_missing_size_gives_none_for_the_arrays_that_need_it():
    assert touched_extents(example("matmul"), {"m": 10, "n": 2}) == {
        "A": 20,
        "B": None,
        "C": None,
    }


@pytest.mark.parametrize("n, m, t", [(5, 6, 3), (16, 9, 1)])
def test_conv2d(n: int, m: int, t: int):
    # `in` is the zero-padded (n + t - 1) x (m + t - 1) image: the window reaches its last element.
    assert touched_extents(example("conv2d"), {"n": n, "m": m, "t": t}) == {
        "out": n * m,
        "in": (n + t - 1) * (m + t - 1),
        "tmpl": t * t,
    }


@pytest.mark.parametrize("n, m", [(5, 6), (3, 3), (40, 17)])
def test_stencil2d_within_its_c99_extents(n: int, m: int):
    function = example("stencil2d")
    ranges = touched_ranges(function, {"n": n, "m": m})
    # The interior sweep: in[i±1][j±1] for 1 <= i < n-1, 1 <= j < m-1.
    assert ranges == {"in": IndexRange(1, n * m - 2), "out": IndexRange(m + 1, (n - 1) * m - 2)}
    for param in CSignature.of(function).params:
        if param.extents is None:
            continue
        total = math.prod({"n": n, "m": m}[str(e)] for e in param.extents)
        touched = ranges[param.name]
        assert touched is not None, param.name
        assert 0 <= touched.lo, param.name
        assert touched.extent <= total, param.name


def test_saxpy_and_dot():
    assert touched_extents(example("saxpy"), {"n": 9}) == {"x": 9, "y": 9}
    assert touched_extents(example("dot"), {"n": 9}) == {"x": 9, "y": 9, "result": 1}
    assert touched_extents(example("dot"), {"n": 0}) == {"x": 0, "y": 0, "result": 1}


# --- what bounds an index, and what does not -----------------------------------------------------
def test_data_dependent_index_is_unbounded():
    source = """
    void gather(float *out, const float *in, const int *idx, int n) {
      for (int i = 0; i < n; i++) out[i] = in[idx[i]];
    }"""
    assert extents(source, n=8) == {"out": 8, "in": None, "idx": 8}


def test_while_loop_variable_is_unbounded():
    source = """
    void fill(float *A, float *B, int n) {
      int i = 0;
      while (i < n) { A[i] = 1.0f; i++; }
      B[n - 1] = 0.0f;
    }"""
    assert extents(source, n=8) == {"A": None, "B": 8}


def test_slot_stored_once_before_is_its_value():
    source = """
    void f(float *A, float *B, int n) {
      int k;
      k = 2 * n + 1;
      A[k] = 0.0f;
      int j = 0;
      j = n;
      B[j] = 0.0f;
    }"""
    # k is stored once before its load; j is stored twice, so its value is unknown.
    assert extents(source, n=4) == {"A": 10, "B": None}


def test_guards_narrow_the_index():
    source = """
    void f(float *A, const float *B, float *C, int n) {
      for (int i = 0; i < n + 5; i++) {
        if (i < n && B[i] > 0.0f) A[i] = 1.0f;
        if (i > 0) C[i - 1] = 2.0f;
      }
    }"""
    assert touched_ranges(function_of(source), {"n": 10}) == {
        "A": IndexRange(0, 9),
        "B": IndexRange(0, 9),
        "C": IndexRange(0, 13),
    }


TRIANGULAR = """
void trsv(int n, const float *L, const float *b, float *x) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int k = 0; k <= i; k++)
      s += L[k] * b[i - k];
    x[i] = s;
  }
}"""


def test_triangular_bound_keeps_the_index_in_range():
    # Intervals alone give i - k over [0, n-1] - [0, n-1]; k <= i makes it [0, n-1].
    assert touched_ranges(function_of(TRIANGULAR), {"n": 200}) == {
        "L": IndexRange(0, 199),
        "b": IndexRange(0, 199),
        "x": IndexRange(0, 199),
    }


def test_triangular_bounds_in_both_directions():
    source = """
    void f(float *A, float *B, float *C, float *D, int n) {
      for (int i = 0; i < n; i++) {
        for (int k = i; k < n; k++) A[k - i] = 0.0f;          /* lower bound i */
        for (int k = i; k >= 0; k--) B[i - k] = 0.0f;         /* decreasing from i */
        for (int k = 0; k < i; k++) C[i - k - 1] = 0.0f;      /* k < i */
        for (int k = 0; k <= i; k++) D[2 * (i - k) + k] = 0.0f;
      }
    }"""
    # D[2i - k] over 0 <= k <= i < n: from 2i - i = i >= 0 up to 2(n - 1).
    assert touched_ranges(function_of(source), {"n": 10}) == {
        "A": IndexRange(0, 9),
        "B": IndexRange(0, 9),
        "C": IndexRange(0, 8),
        "D": IndexRange(0, 18),
    }


def test_triangular_bounds_still_find_real_out_of_range_indices():
    source = """
    void f(const float *b, float *x, float *y, int n) {
      for (int i = 0; i < n; i++) {
        for (int k = 0; k <= i; k++) x[i - k - 1] = b[k + 1];
        for (int k = i; k <= n; k++) y[k] = 0.0f;
      }
    }"""
    # i = k = 0 reads x[-1]; k = i = n - 1 reads b[n]; k <= n writes y[n].
    assert touched_ranges(function_of(source), {"n": 10}) == {
        "b": IndexRange(1, 10),
        "x": IndexRange(-1, 8),
        "y": IndexRange(0, 10),
    }


def test_stepped_decreasing_and_nested_loops():
    source = """
    void f(float *A, float *B, float *C, int n) {
      for (int i = 0; i < n; i += 4) A[i] = 0.0f;
      for (int i = n - 1; i >= 0; i--) B[i] = 0.0f;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) C[i * n + j] = 0.0f;
    }"""
    # i = 0, 4, 8 for n = 10: A[8] is the last element touched.
    assert extents(source, n=10) == {"A": 9, "B": 10, "C": 99}


def test_integer_operators():
    source = """
    void f(float *A, float *B, float *C, float *D, unsigned *E, int n, unsigned u) {
      for (int i = 0; i < n; i++) {
        A[i / 2 + i % 3] = 0.0f;
        B[i > 3 ? 3 : i] += B[min(i, 2)];
        C[max(i, 5) - (i << 1) + 2 * n] = 1.0f;
        D[(long)i * n] = 1.0f;
      }
      for (unsigned k = 0; k < u; k++) E[k / 3u + k % 4u] = k;
    }"""
    # A: i/2 <= 4, i%3 <= 2 for n = 10 (an over-approximation: the largest real index is 6).
    # C: max(i,5) - 2i + 2n over 0 <= i < 10 is within [5 - 18 + 20, 9 - 0 + 20].
    assert extents(source, n=10, u=12) == {"A": 7, "B": 4, "C": 30, "D": 91, "E": 7}


def test_wrapping_arithmetic_is_unbounded():
    source = """
    void f(float *A, int n) {
      for (int i = 0; i < n; i++) A[i * 1000000] = 0.0f;
    }"""
    assert extents(source, n=100) == {"A": 99000001}
    assert extents(source, n=10000) == {"A": None}  # 9999 * 10^6 overflows int


def test_unsigned_indices_are_zero_extended():
    """a[off + i] on unsigned values reads element off + i modulo 2^32: beyond 2^31 (no negative
    index), or wrapped around to the start."""
    source = """
    void f(float *A, float *B, unsigned n, unsigned off) {
      for (unsigned i = 1; i < n; i++) { A[off + i] = 0.0f; B[i - 2u] = 0.0f; }
    }"""
    assert touched_ranges(function_of(source), {"n": 5, "off": 2**31}) == {
        "A": IndexRange(2**31 + 1, 2**31 + 4),
        "B": IndexRange(0, 2**32 - 1),  # i - 2u: 2^32 - 1 for i = 1, then 0, 1, 2
    }
    assert extents(source, n=3, off=2**32 - 1) == {"A": 2, "B": 2**32}


def test_negative_index_is_reported_as_the_lower_bound():
    source = """
    void shift(float *A, const float *B, int n) {
      for (int i = 0; i < n; i++) A[i] = B[i - 1];
    }"""
    assert touched_ranges(function_of(source), {"n": 5}) == {
        "A": IndexRange(0, 4),
        "B": IndexRange(-1, 3),
    }


# --- the Python API ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def matmul() -> Kernel:
    return autogpu.compile(str(EXAMPLES / "matmul.c"), "autogpu-vanilla")


def test_kernel_keeps_the_c_level_module(matmul: Kernel):
    assert matmul.c_module is not None
    c_ops = {op.name for op in matmul.c_module.walk()}
    assert "agpu.parallel_for" in c_ops
    assert "gpu.launch_func" not in c_ops
    assert "gpu.launch_func" in {op.name for op in matmul.module.walk()}


def test_too_small_array_raises_before_anything_runs(matmul: Kernel):
    a = np.zeros(100, np.float32)
    b = np.ones(70, np.float32)
    c = np.ones(84, np.float32)
    with pytest.raises(KernelArgumentError) as error:
        matmul(a, b, c, 10, 12, 7)
    assert str(error.value) == (
        "argument 'A' of matmul() has 100 elements but m=10, n=12 index up to element 119: "
        "pass at least 120"
    )
    with pytest.raises(KernelArgumentError, match=r"argument 'C' of matmul.*pass at least 84"):
        matmul(np.zeros(120, np.float32), b, c[:83], m=10, n=12, p=7)
    with pytest.raises(KernelArgumentError, match="argument 'B'"):
        matmul((np.zeros(120, np.float32), b[:69], c, 10), {"n": 12, "p": 7})
    assert matmul._programs == {}  # pyright: ignore[reportPrivateUsage]  # no executor was even built
    assert not a.any()
    assert len(matmul._touched) == 1  # pyright: ignore[reportPrivateUsage]  # one analysis for the one sizes tuple


def test_large_enough_arrays_run(matmul: Kernel):
    m, n, p = 4, 3, 5
    rng = np.random.default_rng(0)
    b = rng.uniform(-1, 1, m * p).astype(np.float32)
    c = rng.uniform(-1, 1, p * n).astype(np.float32)
    a = np.zeros(m * n + 3, np.float32)  # longer than needed is fine
    matmul(a, b, c, m, n, p)
    expected = b.reshape(p, m).T @ c.reshape(n, p).T
    np.testing.assert_allclose(a[: m * n].reshape(n, m).T, expected, rtol=1e-5)


def test_negative_index_raises():
    kernel = autogpu.compile(
        "void shift(float *A, const float *B, int n) {\n"
        "  for (int i = 0; i < n; i++) A[i] = B[i - 1];\n}\n",
        "autogpu-vanilla",
    )
    with pytest.raises(KernelArgumentError, match=r"'B' of shift.*indexed at element -1.*n=4"):
        kernel(np.zeros(4, np.float32), np.zeros(4, np.float32), 4)


def test_triangular_kernel_runs_with_arrays_of_its_extent():
    """The size check used to refuse this correct kernel ('b' indexed at element -199)."""
    kernel = autogpu.compile(TRIANGULAR, "autogpu-vanilla")
    n = 200
    rng = np.random.default_rng(0)
    lower, b = rng.uniform(-1, 1, (2, n)).astype(np.float32)
    x = np.zeros(n, np.float32)
    kernel(n, lower, b, x)
    expected = [sum(float(lower[k]) * float(b[i - k]) for k in range(i + 1)) for i in range(n)]
    np.testing.assert_allclose(x, expected, rtol=1e-4, atol=1e-4)
    with pytest.raises(KernelArgumentError, match=r"'b' of trsv.* has 199 elements.*at least 200"):
        kernel(n, lower, b[:199], x)
