"""The split of a serial accumulation over row-walkers (issue #12, column sums): against gcc's
serial result on the CPU emulation (blocks in shuffled orders), for every operator it takes,
sizes that divide nothing, integers wrapping past INT_MAX, both store forms; what it leaves
alone; the deterministic option keeps the unsplit (deterministic) kernel; nvcc builds it."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from lowered_differential import cuda_of, gcc_reference

from autogpu.dialects.agpu import ParallelForOp
from autogpu.frontend import parse_c
from autogpu.passes.agpu_split_accumulations import find_accumulation, split_accumulations
from autogpu.runtime import cuda_exec
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.testing.nvcc import assert_compiles_with_nvcc

SOURCE = """
void colsum(int m, int n, const float *A, float *out) {
#pragma omp parallel for
  for (int j = 0; j < n; j++) {
    float s = 0.0f;
    for (int i = 0; i < m; i++) s += A[(long long)i * n + j];
    out[j] = s;
  }
}
void colsum_acc(int m, int n, const int *A, int *out) {
#pragma omp parallel for
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) out[j] += A[i * n + j];
}
void colmax_u(int m, int n, const unsigned *A, unsigned *out) {
#pragma omp parallel for
  for (int j = 0; j < n; j++) {
    unsigned s = 5u;
    for (int i = 1; i < m; i += 2) {
      unsigned a = A[i * n + j];
      s = a < s ? s : a;
    }
    out[j] = s;
  }
}
void colxor_prod(int m, int n, const long *A, long *x, long *p) {
#pragma omp parallel for
  for (int j = 0; j < n; j++) {
    long s = 3;
    for (int i = 0; i < m; i++) s ^= A[i * n + j];
    x[j] ^= s;
  }
#pragma omp parallel for
  for (int j = 0; j < n; j++) {
    long s = 1;
    for (int i = 0; i < m; i++) s *= A[i * n + j];
    p[j] = s;
  }
}
void colmin_f(int m, int n, const double *A, double *out) {
#pragma omp parallel for
  for (int j = 0; j < n; j++) {
    double s = 1e300;
    for (int i = 0; i < m; i++) s = fmin(s, A[i * n + j]);
    out[j] = s;
  }
}
"""

PIPELINES = {
    "split": "autogpu-optimize{block_size=32 block_y=4 split_walkers=5 unroll_serial=2}",
    "split_1d_block": "autogpu-optimize{block_size=64 split_walkers=3}",
    "split_unrolled": "autogpu-optimize{block_size=32 block_y=2 unroll_x=2 split_walkers=7 "
                      "unroll_serial=4}",
    "vanilla": "autogpu-vanilla{block_size=32 block_y=4 split_walkers=9 assume_no_alias=true}",
}
SIZES = [(0, 0), (0, 5), (5, 0), (1, 1), (33, 70), (257, 31)]
ORDERS = [("forward", 0), ("reverse", 0), ("random", 1), ("random", 2)]


@functools.cache
def program(pipeline: str, order: str = "random", seed: int = 7) -> CpuProgram:
    cuda = cuda_of(SOURCE, PIPELINES[pipeline])
    return CpuProgram(cuda.source, cuda.launch, thread_order=order, seed=seed)


def test_the_pipelines_split_every_loop():
    """Every function above qualifies: each nest becomes an initialising kernel and the split
    one, whose grid has walkers on y (so the differential tests below test the split);
    colsum_acc's staged `out[j] +=` needs no initialising kernel (and is left unsplit by
    autogpu-vanilla, which does not stage it)."""
    for pipeline in PIPELINES:
        launches = cuda_of(SOURCE, PIPELINES[pipeline]).launch["functions"]
        counts = {f["name"]: len(f["launches"]) for f in launches}
        assert counts == {"colsum": 2, "colsum_acc": 1, "colmax_u": 2, "colxor_prod": 4,
                          "colmin_f": 2}, pipeline
        unstaged = {"colsum_acc"} if pipeline == "vanilla" else set()  # vanilla does not stage
        assert all(f["launches"][-1]["grid"][1] != "1" for f in launches
                   if f["name"] not in unstaged), pipeline


@pytest.mark.parametrize("pipeline", list(PIPELINES))
@pytest.mark.parametrize("m, n", SIZES)
def test_float_column_sums_match_gcc(pipeline, m, n):
    """Integer-valued floats: every order of the sum is exact, so bitwise equal (out starts
    as garbage: `out[j] = s` must discard it)."""
    a = np.random.default_rng(m * n + 1).integers(-1000, 1000, m * n).astype(np.float32)
    expected = np.full(n, 7.5, np.float32)
    out = expected.copy()
    gcc_reference(SOURCE, "colsum")(m, n, a.copy(), expected)
    program(pipeline).run("colsum", m, n, a.copy(), out)
    assert out.tobytes() == expected.tobytes()


@pytest.mark.parametrize("pipeline", list(PIPELINES))
@pytest.mark.parametrize("m, n", SIZES)
def test_integer_operators_match_gcc(pipeline, m, n):
    """`+=` into the output (staged first) wrapping past INT_MAX, unsigned max above INT_MAX
    over a loop of step 2 from 1, `^=` into the output, a wrapping `long` product."""
    rng = np.random.default_rng(m + 3 * n)
    ints = rng.integers(-2**31, 2**31, m * n).astype(np.int32)
    pool = np.array([3000000000, 4294967295, 5, 0, 2147483648, 17], np.uint32)
    uns = pool[rng.integers(0, len(pool), m * n)]
    longs = rng.integers(-2**62, 2**62, m * n).astype(np.int64) | 1
    for name, args in (
        ("colsum_acc", (ints, rng.integers(-2**31, 2**31, n).astype(np.int32))),
        ("colmax_u", (uns, np.zeros(n, np.uint32))),
    ):
        expected, out = args[1].copy(), args[1].copy()
        gcc_reference(SOURCE, name)(m, n, args[0].copy(), expected)
        program(pipeline).run(name, m, n, args[0].copy(), out)
        assert out.tolist() == expected.tolist(), name
    x0 = rng.integers(-2**62, 2**62, n).astype(np.int64)
    ex, ep = x0.copy(), np.zeros(n, np.int64)
    ax, ap = x0.copy(), np.zeros(n, np.int64)
    gcc_reference(SOURCE, "colxor_prod")(m, n, longs.copy(), ex, ep)
    program(pipeline).run("colxor_prod", m, n, longs.copy(), ax, ap)
    assert ax.tolist() == ex.tolist()
    assert ap.tolist() == ep.tolist()


@pytest.mark.parametrize("order, seed", ORDERS)
def test_float_min_matches_gcc_in_every_block_order(order, seed):
    """min is exact whatever order the walkers' atomics land in; NaNs are ignored as fmin
    ignores them."""
    m, n = 300, 45
    a = np.random.default_rng(11).standard_normal(m * n)
    a[::17] = np.nan
    expected, out = np.zeros(n), np.zeros(n)
    gcc_reference(SOURCE, "colmin_f")(m, n, a.copy(), expected)
    program("split", order, seed).run("colmin_f", m, n, a.copy(), out)
    assert out.tobytes() == expected.tobytes()


def test_deterministic_keeps_the_unsplit_kernel_bitwise_identical():
    """deterministic=true: no split (one launch), and random floats give the same bits in
    every block order, equal to the serial sum's (each column in one thread, in order)."""
    cuda = cuda_of(SOURCE, "autogpu-optimize{block_size=32 split_walkers=8 deterministic=true}")
    (function,) = [f for f in cuda.launch["functions"] if f["name"] == "colsum"]
    assert len(function["launches"]) == 1
    m, n = 500, 37
    a = np.random.default_rng(2).standard_normal(m * n).astype(np.float32)
    expected = np.zeros(n, np.float32)
    gcc_reference(SOURCE, "colsum")(m, n, a.copy(), expected)
    for order, seed in ORDERS:
        out = np.zeros(n, np.float32)
        CpuProgram(cuda.source, cuda.launch, thread_order=order, seed=seed).run(
            "colsum", m, n, a.copy(), out)
        assert out.tobytes() == expected.tobytes()


NOT_SPLIT = """
void other_store(int n, const float *A, float *out, float *t) {
#pragma omp parallel for
  for (int j = 0; j < n; j++) {
    float s = 0.0f;
    for (int i = 0; i < n; i++) { s += A[i * n + j]; t[j] = s; }
    out[j] = s;
  }
}
void other_op(int n, const float *A, float *out) {
#pragma omp parallel for
  for (int j = 0; j < n; j++) {
    float s = 1.0f;
    for (int i = 0; i < n; i++) s += A[i * n + j];
    out[j] *= s;
  }
}
void not_associative(int n, const float *A, float *out) {
#pragma omp parallel for
  for (int j = 0; j < n; j++) {
    float s = 1.0f;
    for (int i = 0; i < n; i++) s = s / A[i * n + j];
    out[j] = s;
  }
}
void wider_update(int n, const float *A, float *out) {
#pragma omp parallel for
  for (int j = 0; j < n; j++) {
    float s = 0.0f;
    for (int i = 0; i < n; i++) s += A[i * n + j] * 0.5;
    out[j] = s;
  }
}
"""


def test_what_does_not_qualify_is_left_alone():
    """A store in the loop, a final combine with another operator,
    a non-associative update, an update C computes in double: nothing split."""
    module = parse_c(NOT_SPLIT, "<test>")
    for loop in [o for o in module.walk() if isinstance(o, ParallelForOp)]:
        assert find_accumulation(loop, assume_no_alias=True) is None
    assert split_accumulations(module, 4, assume_no_alias=True) == 0


def test_aliasing_pointers_are_not_split_without_assume_no_alias():
    """The loops' reads could be the output's elements (no `restrict`); colsum_acc qualifies
    only once agpu-stage-accumulations has put out[j] in a register (the pipelines)."""
    from autogpu.context import make_context
    from autogpu.passes.agpu_stage_accumulations import AgpuStageAccumulationsPass

    staged = parse_c(SOURCE, "<test>")
    AgpuStageAccumulationsPass(assume_no_alias=True).apply(make_context(), staged)
    assert split_accumulations(staged, 4, assume_no_alias=True) == 6
    module = parse_c(SOURCE, "<test>")
    assert split_accumulations(module.clone(), 4) == 0
    assert split_accumulations(module, 4, assume_no_alias=True) == 5


@pytest.mark.parametrize("pipeline", list(PIPELINES))
def test_split_kernels_compile_with_nvcc(pipeline):
    assert_compiles_with_nvcc(cuda_of(SOURCE, PIPELINES[pipeline]).source)


NO_GPU = cuda_exec.gpu_unavailable_reason()


@pytest.mark.skipif(NO_GPU is not None, reason=f"needs a CUDA GPU: {NO_GPU}")
def test_split_column_sums_on_the_gpu():
    import autogpu

    m, n = 4099, 1031
    a = np.random.default_rng(4).standard_normal(m * n).astype(np.float32)
    exact = a.astype(np.float64).reshape(m, n).sum(axis=0)
    kernel = autogpu.compile(SOURCE, function="colsum", pipeline="autogpu-optimize",
                             block_size=64, block_y=4, split_walkers=64, unroll_serial=8)
    out = np.full(n, 3.0, np.float32)
    kernel.program("cuda").run("colsum", m, n, a, out)
    assert np.abs(out - exact).max() < 1e-3 * np.sqrt(m)
