"""agpu-stage-accumulations keeps results bit for bit: the examples and C snippets run by the
interpreter before and after the pass, on random inputs and awkward sizes (zero-trip loops,
one iteration). Each positive case also asserts that staging happened, so the comparison is
not vacuous; the aliasing cases show why the legality rules exist."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from pass_differential import check_equivalent, example, module_of, run_both, transformed
from xdsl.dialects.builtin import ModuleOp

from autogpu.diagnostics import CompileError
from autogpu.interpreters import run_function
from autogpu.passes.agpu_stage_accumulations import AgpuStageAccumulationsPass

STAGE = AgpuStageAccumulationsPass()
STAGE_NO_ALIAS = AgpuStageAccumulationsPass(assume_no_alias=True)


def slots(module: ModuleOp) -> list[str | None]:
    """Names of the staging slots in a module."""
    return [
        op.results[0].name_hint
        for op in module.walk()
        if op.name == "memref.alloca" and (op.results[0].name_hint or "").endswith("_acc")
    ]


def matmul(m: int, n: int, p: int) -> dict[str, int]:
    return {"m": m, "n": n, "p": p, "A": m * n, "B": m * p, "C": p * n}


MATMUL_SIZES = [matmul(17, 13, 11), matmul(1, 1, 1), matmul(3, 4, 0), matmul(4, 5, 7),
                matmul(0, 3, 2)]


def test_matmul_staged_under_assume_no_alias():
    before = module_of(example("matmul.c"))
    after = transformed(before, STAGE_NO_ALIAS)
    assert slots(after) == ["A_acc"]
    check_equivalent(before, after, "matmul", MATMUL_SIZES)


def test_matmul_not_staged_by_default():
    """`const float *B` may alias A in C: without restrict or the option, nothing changes."""
    before = module_of(example("matmul.c"))
    after = transformed(before, STAGE)
    assert slots(after) == []
    assert str(after) == str(before)


def test_matmul_restrict_staged_by_default():
    source = example("matmul.c").replace("float *A", "float *restrict A")
    before = module_of(source)
    after = transformed(before, STAGE)
    assert slots(after) == ["A_acc"]
    check_equivalent(before, after, "matmul", MATMUL_SIZES)


def test_matmul_called_with_aliasing_arguments():
    """matmul(A, A, C) is legal C. The default pass leaves it alone (same results); staging it
    anyway, as assume_no_alias asserts is fine, changes the results: the rule is needed."""
    before = module_of(example("matmul.c"))
    m = n = p = 4
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, m * n).astype(np.float32)
    c = rng.uniform(-1, 1, p * n).astype(np.float32)

    def run(module: ModuleOp) -> np.ndarray:
        a_copy = a.copy()
        run_function(module, "matmul", [a_copy, a_copy, c.copy(), m, n, p])
        return a_copy

    expected = run(before)
    assert np.array_equal(run(transformed(before, STAGE)), expected)
    assert not np.array_equal(run(transformed(before, STAGE_NO_ALIAS)), expected)


@pytest.mark.parametrize("name, function, cases", [
    ("conv2d.c", "conv2d", [
        {"n": 7, "m": 5, "t": 3, "out": 35, "in": 63, "tmpl": 9},
        {"n": 2, "m": 2, "t": 0, "out": 4, "in": 1, "tmpl": 1},
    ]),
    ("stencil2d.c", "jacobi2d", [{"n": 6, "m": 5, "in": (6, 5), "out": (6, 5)}]),
    ("saxpy.c", "saxpy", [{"n": 17, "a": 0.5, "x": 17, "y": 17}]),
    ("dot.c", "dot", [{"x": 9, "y": 9, "result": 1, "n": 9}]),
])
def test_examples_without_array_accumulations_unchanged(name: str, function: str,
                                                        cases: list[dict[str, Any]]):
    """conv2d accumulates into a local `sum` (a register already): nothing to stage."""
    before = module_of(example(name))
    after = transformed(before, STAGE_NO_ALIAS)
    assert slots(after) == []
    check_equivalent(before, after, function, cases, seeds=1)


# C snippets: (source, function, staged slots under each option, size cases).
SNIPPETS = {
    "nest_outermost": ("""
void f(float *restrict out, const float *in, int n, int t) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int v = 0; v < t; v++)
      for (int u = 0; u < t; u++)
        out[i] += in[(i + u) + v * (n + t)] * 0.5f;
}
""", ["out_acc"], [{"out": 5, "in": 64, "n": 5, "t": 3}, {"out": 5, "in": 64, "n": 5, "t": 0},
                   {"out": 1, "in": 4, "n": 1, "t": 1}]),
    "out_of_bounds_when_empty": ("""
void f(float *restrict out, const float *x, int n) {
  for (int k = 0; k < n; k++)
    out[n - 1] += x[k];
}
""", ["out_acc"], [{"out": 7, "x": 7, "n": 7}, {"out": 1, "x": 1, "n": 0},
                   {"out": 1, "x": 1, "n": 1}]),
    "neighbours_and_two_accumulators": ("""
void f(double *restrict h, const double *x, int n, int b) {
  for (int k = 0; k < n; k++) {
    h[b] += x[k];
    h[b + 1] = h[b + 1] * 0.5 + h[b - 1];
  }
}
""", ["h_acc", "h_acc"], [{"h": 8, "x": 9, "n": 9, "b": 3}, {"h": 8, "x": 1, "n": 0, "b": 3}]),
    "decreasing_loop_integer": ("""
void f(int *restrict s, const int *x, int n, int j) {
  for (int k = n - 1; k >= 0; k -= 2)
    s[j] = s[j] * 3 + x[k];
}
""", ["s_acc"], [{"s": 4, "x": 11, "n": 11, "j": 2}, {"s": 4, "x": 1, "n": 0, "j": 0}]),
    "triangular": ("""
void f(float *restrict out, const float *x, int n) {
  for (int v = 0; v < n; v++)
    for (int u = 0; u < v; u++)
      out[v] += x[u] * x[v];
}
""", ["out_acc"], [{"out": 9, "x": 9, "n": 9}, {"out": 1, "x": 1, "n": 1}]),
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet(name: str):
    source, expected_slots, cases = SNIPPETS[name]
    before = module_of(source)
    after = transformed(before, STAGE)
    assert slots(after) == expected_slots
    check_equivalent(before, after, "f", cases)


LOCAL_ARRAY_IR = """
func.func @f(%x: memref<?xi32> {agpu.name = "x", agpu.ctype = "int", agpu.const},
             %counts: memref<?xi32> {agpu.name = "counts", agpu.ctype = "int"},
             %n: i32 {agpu.name = "n", agpu.ctype = "int"}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %i2 = arith.constant 2 : index
  %h = memref.alloca() : memref<4xi32>
  scf.for %b = %c0 to %c4 step %c1 : i32 {
    %bi = arith.index_cast %b : i32 to index
    memref.store %c0, %h[%bi] : memref<4xi32>
  }
  scf.for %k = %c0 to %n step %c1 : i32 {
    %ki = arith.index_cast %k : i32 to index
    %xk = memref.load %x[%ki] : memref<?xi32>
    %old = memref.load %h[%i2] : memref<4xi32>
    %new = arith.addi %old, %xk : i32
    memref.store %new, %h[%i2] : memref<4xi32>
    memref.store %new, %counts[%ki] : memref<?xi32>
  }
  scf.for %b = %c0 to %c4 step %c1 : i32 {
    %bi = arith.index_cast %b : i32 to index
    %hb = memref.load %h[%bi] : memref<4xi32>
    %cb = memref.load %counts[%bi] : memref<?xi32>
    %sum = arith.addi %cb, %hb : i32
    memref.store %sum, %counts[%bi] : memref<?xi32>
  }
  func.return
}
"""


def test_local_array_never_aliases_parameters():
    """A local array element is staged although a non-restrict parameter is stored to."""
    before = module_of(LOCAL_ARRAY_IR)
    after = transformed(before, STAGE)
    assert slots(after) == ["h_acc"]
    check_equivalent(before, after, "f", [{"x": 10, "counts": 10, "n": 10},
                                          {"x": 4, "counts": 4, "n": 0}])


def test_aliasing_store_blocks_staging():
    """y may point at x's element (f(x, x, n)): staging x[0] would lose the store through y."""
    source = """
void f(float *x, float *y, int n) {
  for (int k = 0; k < n; k++) {
    x[0] += 1.0f;
    y[k] = 10.0f;
  }
}
"""
    before = module_of(source)
    assert slots(transformed(before, STAGE)) == []
    unsafe = transformed(before, STAGE_NO_ALIAS)
    assert slots(unsafe) == ["x_acc"]
    shared = np.zeros(4, dtype=np.float32)
    expected, actual = shared.copy(), shared.copy()
    run_function(before, "f", [expected, expected, 4])
    run_function(unsafe, "f", [actual, actual, 4])
    assert not np.array_equal(actual, expected)
    # Distinct arrays: the staged version is exact.
    run_both(before, unsafe, "f", [np.zeros(4, np.float32), np.zeros(4, np.float32), 4])


def test_staging_then_staging_again_is_stable():
    before = module_of(example("matmul.c"))
    once = transformed(before, STAGE_NO_ALIAS)
    twice = transformed(once, STAGE_NO_ALIAS)
    assert str(twice) == str(once)


def test_option_parsing_from_pipeline_spec():
    from autogpu.api import parse_pipeline

    (p,) = parse_pipeline("agpu-stage-accumulations{assume_no_alias=true}").passes
    assert p == STAGE_NO_ALIAS
    with pytest.raises(CompileError, match="assume_no_alias"):
        parse_pipeline("agpu-stage-accumulations{assume_no_alias=7}")
