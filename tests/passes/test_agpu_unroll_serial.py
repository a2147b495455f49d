"""agpu-unroll-serial keeps results bit for bit: examples and C snippets run by the interpreter
before and after unrolling, with trip counts that the factor divides and does not (0, 1, 7, ...),
runtime and constant bounds, negative and extreme bounds, loop-carried values; invalid options
are clear errors."""

from __future__ import annotations

import numpy as np
import pytest
from pass_differential import check_equivalent, example, module_of, run_both, transformed
from xdsl.dialects import scf

from autogpu.diagnostics import CompileError
from autogpu.passes.agpu_unroll_serial import AgpuUnrollSerialPass

INT_MIN = -(2**31)


def serial_loops(module) -> int:
    return sum(isinstance(op, scf.ForOp) for op in module.walk())


def matmul(m, n, p):
    return {"m": m, "n": n, "p": p, "A": m * n, "B": m * p, "C": p * n}


def conv2d(n, m, t):
    padded = max(n + t - 1, 0) * max(m + t - 1, 0)
    return {"n": n, "m": m, "t": t, "out": n * m, "in": max(padded, 1), "tmpl": max(t * t, 1)}


@pytest.mark.parametrize("factor", [1, 2, 3, 4, 5])
def test_matmul_k_loop(factor):
    before = module_of(example("matmul.c"))
    after = transformed(before, AgpuUnrollSerialPass(factor=factor))
    # factor 1 leaves the loop; otherwise a main loop and a remainder loop
    assert serial_loops(after) == (1 if factor == 1 else 2)
    check_equivalent(before, after, "matmul",
                     [matmul(3, 2, p) for p in (0, 1, 3, 4, 7, 11)], seeds=1)


@pytest.mark.parametrize("loops", [(), ("u",), ("v",), ("u", "v")])
def test_conv2d_loop_selection(loops):
    before = module_of(example("conv2d.c"))
    after = transformed(before, AgpuUnrollSerialPass(factor=3, loops=loops))
    # v unrolled by 3: a main v loop with 3 copies of the u loop, a remainder v loop with one
    expected = {(): 3, ("u",): 3, ("v",): 6, ("u", "v"): 10}[loops]
    assert serial_loops(after) == expected
    check_equivalent(before, after, "conv2d",
                     [conv2d(4, 3, t) for t in (0, 1, 2, 3, 4, 7)], seeds=1)


@pytest.mark.parametrize("name, function, cases", [
    ("saxpy.c", "saxpy", [{"n": 9, "a": 0.5, "x": 9, "y": 9}]),
    ("dot.c", "dot", [{"x": 9, "y": 9, "result": 1, "n": 9}]),
    ("stencil2d.c", "jacobi2d", [{"n": 6, "m": 5, "in": (6, 5), "out": (6, 5)}]),
])
def test_examples_without_serial_loops_unchanged(name, function, cases):
    before = module_of(example(name))
    after = transformed(before, AgpuUnrollSerialPass())
    assert str(after) == str(before)
    check_equivalent(before, after, function, cases, seeds=1)


STRIDED = """
void f(int *y, int lo, int hi, int s) {
  for (int k = lo; k < hi; k += s) {
    y[0] += 1;
    y[1] = y[1] * 31 + k;
  }
}
"""


@pytest.mark.parametrize("factor", [2, 3, 4])
@pytest.mark.parametrize("lo, hi, s", [
    (0, 0, 1), (0, 1, 1), (0, 7, 1), (-5, 17, 3), (3, 20, 4), (5, 2, 2), (-9, -1, 2),
    # ub - lb overflows i32 (read unsigned: exact) while no induction value does:
    (INT_MIN, 2**31 - 2**28 - 1, 2**28),
])
def test_runtime_bounds_and_step(factor, lo, hi, s):
    before = module_of(STRIDED)
    after = transformed(before, AgpuUnrollSerialPass(factor=factor))
    assert serial_loops(after) == 2
    run_both(before, after, "f", [np.zeros(2, np.int32), lo, hi, s])


CONSTANT_TRIPS = """
void f(float *y, const float *x) {
  for (int k = -3; k < TRIPS - 3; k++)
    y[0] = y[0] * 0.5f + x[k + 3];
  for (long k = 2; k <= 2 + 3 * (TRIPS - 1); k += 3)
    y[1] = y[1] * 0.25f - x[(k - 2) / 3];
}
"""


@pytest.mark.parametrize("trips", [0, 1, 7, 16, 17, 50])
@pytest.mark.parametrize("factor, limit", [(4, 16), (4, 0), (1, 8), (5, 4)])
def test_constant_trip_counts(trips, factor, limit):
    before = module_of(CONSTANT_TRIPS.replace("TRIPS", str(trips)))
    after = transformed(before, AgpuUnrollSerialPass(factor=factor, full_unroll_limit=limit))
    if trips <= limit:
        assert serial_loops(after) == 0
    elif factor == 1 or trips < factor:
        assert serial_loops(after) == 2
    else:  # main loops; the remainders are straight-line code
        assert serial_loops(after) == 2
    check_equivalent(before, after, "f", [{"y": 2, "x": max(trips, 1)}])


SNIPPETS = {
    "decreasing_and_inclusive": ("""
void f(int n, const float *x, float *y) {
  for (int i = n - 1; i >= 0; i--)
    y[i] = y[i] * 0.5f + x[i];
  for (int i = n; i > 0; i -= 3)
    y[i - 1] += 1.0f;
  for (int i = 0; i <= n - 1; i += 2)
    y[i] -= x[n - 1 - i];
}
""", [{"n": n, "x": max(n, 1), "y": max(n, 1)} for n in (0, 1, 2, 7, 8, 13)], ()),
    "induction_variable_used_after": ("""
void f(int n, float *y, int *last) {
  int i;
  for (i = 0; i < n; i += 2)
    y[i] = (float)i;
  last[0] = i;
}
""", [{"n": n, "y": max(n, 1), "last": 1} for n in (0, 1, 6, 9)], ()),
    # The k loop contains a while loop, so it is not innermost: selected by name.
    "conditional_body_and_nested_while": ("""
void f(int n, const int *x, int *y) {
  for (int k = 0; k < n; k++) {
    if (x[k] > 0)
      y[k] = x[k];
    else {
      int j = 0;
      while (j < 3 && x[j] != k) j++;
      y[k] = -j;
    }
  }
}
""", [{"n": n, "x": max(n, 3), "y": max(n, 1)} for n in (0, 1, 5, 11)], ("k",)),
    "parallel_loop_inside_out": ("""
void f(int n, int t, const float *a, float *b) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int k = 0; k < t; k++)
      s += a[i * t + k] * (float)k;
    b[i] = s;
  }
}
""", [{"n": 3, "t": t, "a": max(3 * t, 1), "b": 3} for t in (0, 1, 5, 8)], ()),
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
@pytest.mark.parametrize("factor", [2, 3])
def test_snippet(name, factor):
    source, cases, loops = SNIPPETS[name]
    before = module_of(source)
    after = transformed(before, AgpuUnrollSerialPass(factor=factor, loops=loops))
    assert str(after) != str(before)
    check_equivalent(before, after, "f", cases, seeds=1)


ITER_ARGS_IR = """
func.func @f(%x: memref<?xf32>, %lb: index, %ub: index, %st: index, %init: f32) -> f32 {
  %r = scf.for %k = %lb to %ub step %st iter_args(%acc = %init) -> (f32) {
    %1 = memref.load %x[%k] : memref<?xf32>
    %2 = arith.mulf %acc, %1 : f32
    %3 = arith.addf %2, %1 : f32
    scf.yield %3 : f32
  }
  func.return %r : f32
}
"""


@pytest.mark.parametrize("lb, ub, st", [(0, 0, 1), (0, 1, 1), (2, 19, 3), (0, 20, 1), (5, 3, 1)])
def test_loop_carried_values_index_loop(lb, ub, st):
    before = module_of(ITER_ARGS_IR)
    after = transformed(before, AgpuUnrollSerialPass(factor=4))
    x = np.random.default_rng(0).uniform(-1, 1, 24).astype(np.float32)
    run_both(before, after, "f", [x, lb, ub, st, 0.25])


def test_loop_carried_values_full_unroll():
    before = module_of(ITER_ARGS_IR.replace("%lb to %ub step %st", "%c2 to %c9 step %c3")
                       .replace("{\n  %r", "{\n  %c2 = arith.constant 2 : index\n"
                                "  %c9 = arith.constant 9 : index\n"
                                "  %c3 = arith.constant 3 : index\n  %r"))
    after = transformed(before, AgpuUnrollSerialPass())
    assert serial_loops(after) == 0
    x = np.random.default_rng(1).uniform(-1, 1, 12).astype(np.float32)
    run_both(before, after, "f", [x, 0, 0, 1, 0.5])


def test_unrolling_twice_multiplies():
    before = module_of(STRIDED)
    after = transformed(before, AgpuUnrollSerialPass(factor=2), AgpuUnrollSerialPass(factor=3))
    run_both(before, after, "f", [np.zeros(2, np.int32), -4, 29, 1])


@pytest.mark.parametrize("options, message", [
    ({"factor": 0}, "factor must be at least 1, got 0"),
    ({"factor": -3}, "factor must be at least 1, got -3"),
    ({"full_unroll_limit": -1}, "full_unroll_limit must be at least 0, got -1"),
])
def test_invalid_options(options, message):
    with pytest.raises(CompileError, match=message):
        AgpuUnrollSerialPass(**options)


def test_loops_that_do_not_exist_are_an_error_naming_those_that_do():
    with pytest.raises(CompileError, match=r"no serial loop has the induction variable 'q', 'w' "
                                           r"\(loops=u,q,w; the serial loops at this point: v, u\)"):
        transformed(module_of(example("conv2d.c")), AgpuUnrollSerialPass(loops=("u", "q", "w")))


@pytest.mark.parametrize("options, copies", [
    ({"factor": 5000}, "5000 copies"),  # matmul's k loop: 16 operations
    ({"factor": 10**6}, "1000000 copies"),
    ({"factor": 1, "full_unroll_limit": 10**6, "loops": ("k",)}, None),  # p is not constant
])
def test_unrolling_is_bounded_by_the_operations_it_makes(options, copies):
    module = module_of(example("matmul.c"))
    if copies is None:
        transformed(module, AgpuUnrollSerialPass(**options))
        return
    with pytest.raises(CompileError, match=f"loop 'k' unrolled {options['factor']} times: "
                                           f"{copies} of its 16 operations would make .*, more "
                                           "than the limit of 65536: use a smaller factor"):
        transformed(module, AgpuUnrollSerialPass(**options))


def test_full_unrolling_is_bounded_too():
    module = module_of(CONSTANT_TRIPS.replace("TRIPS", "20000"))
    with pytest.raises(CompileError, match="loop 'k' unrolled completely: 20000 copies"):
        transformed(module, AgpuUnrollSerialPass(full_unroll_limit=10**6))


def test_options_from_pipeline_spec():
    from autogpu.api import parse_pipeline

    (p,) = parse_pipeline("agpu-unroll-serial{factor=8 loops=k,v full_unroll_limit=0}").passes
    assert p == AgpuUnrollSerialPass(factor=8, loops=("k", "v"), full_unroll_limit=0)
    with pytest.raises(CompileError, match="factor must be at least 1"):
        parse_pipeline("agpu-unroll-serial{factor=0}")


@pytest.mark.parametrize("m, n, p", [(3, 2, 0), (3, 2, 1), (3, 2, 6), (3, 2, 7)])
def test_any_order_with_staging(m, n, p):
    """Unrolling before staging stages the main and the remainder loop separately; either
    order keeps the results."""
    from autogpu.passes.agpu_stage_accumulations import AgpuStageAccumulationsPass

    stage = AgpuStageAccumulationsPass(assume_no_alias=True)
    unroll = AgpuUnrollSerialPass(factor=3)
    before = module_of(example("matmul.c"))
    for passes in ((stage, unroll), (unroll, stage)):
        after = transformed(before, *passes)
        assert "_acc" in str(after)
        check_equivalent(before, after, "matmul", [matmul(m, n, p)], seeds=1)
