"""Scalar reductions at library speed (issue #12): the warp-shuffle block combine, the
`reduce_blocks` grid-stride x loop and the `deterministic` last-block combine of
convert-agpu-to-gpu, against gcc's serial result on the CPU emulation (blocks and threads in
shuffled orders), bitwise identity of the deterministic combine whatever the block order, nvcc
builds, and the same on a GPU (skipped without one).

The operator x type matrix runs through these paths too (tests/passes/test_reduction_matrix.py,
its `deterministic` pipeline)."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from lowered_differential import cuda_of, gcc_reference

from autogpu.runtime import cuda_exec
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.testing.nvcc import assert_compiles_with_nvcc

SOURCE = """
void fsum(int n, const float *x, float *out) {
  float s = 0.0f;
#pragma omp parallel for reduction(+: s)
  for (int i = 0; i < n; i++) s += x[i];
  out[0] = s;
}
void isum_umax_all(int n, const unsigned *x, unsigned *out) {
  int s = 3;
  unsigned m = 7u;
  int ok = 1;
#pragma omp parallel for reduction(+: s) reduction(max: m) reduction(&&: ok)
  for (int i = 0; i < n; i++) {
    s += (int)x[i];
    m = x[i] > m ? x[i] : m;
    ok = ok && x[i] != 5u;
  }
  out[0] = (unsigned)s;
  out[1] = m;
  out[2] = (unsigned)ok;
}
void dmin_2d(int n, int m, const double *x, double *out) {
  double s = 1e300;
#pragma omp parallel for reduction(min: s)
  for (int j = 0; j < m; j++)
#pragma omp parallel for reduction(min: s)
    for (int i = 0; i < n; i++)
      s = x[i + j * n] < s ? x[i + j * n] : s;
  out[0] = s;
}
"""

PIPELINES = {
    "warps": "autogpu-optimize{block_size=96 unroll_x=2}",
    "grid_stride": "autogpu-optimize{block_size=64 unroll_x=4 reduce_blocks=3}",
    "deterministic": "autogpu-optimize{block_size=96 unroll_x=2 deterministic=true}",
    "deterministic_strided": "autogpu-optimize{block_size=64 unroll_x=4 reduce_blocks=5 "
                             "deterministic=true}",
    "deterministic_tree": "autogpu-vanilla{block_size=48 deterministic=true}",
}
ORDERS = [("forward", 0), ("reverse", 0), ("random", 1), ("random", 2), ("random", 3)]
SIZES = (0, 1, 31, 33, 1000, 1000003)


@functools.cache
def program(pipeline: str, order: str = "random", seed: int = 7, threads: int = 1) -> CpuProgram:
    cuda = cuda_of(SOURCE, PIPELINES[pipeline])
    return CpuProgram(cuda.source, cuda.launch, threads=threads, thread_order=order, seed=seed)


def unsigned_inputs(n: int) -> np.ndarray:
    rng = np.random.default_rng(n)
    pool = np.array([3000000000, 4294967295, 5, 0, 1, 2147483648, 17], dtype=np.uint32)
    return pool[rng.integers(0, len(pool), n)] if n else np.zeros(0, np.uint32)


@pytest.mark.parametrize("pipeline", list(PIPELINES))
@pytest.mark.parametrize("n", SIZES)
def test_integer_reductions_match_gcc(pipeline: str, n: int):
    """Sum (wrapping past INT_MAX), unsigned max (values above INT_MAX) and `&&`, three
    clauses on one loop, bit for bit."""
    x = unsigned_inputs(n)
    expected, out = np.zeros(3, np.uint32), np.zeros(3, np.uint32)
    gcc_reference(SOURCE, "isum_umax_all")(n, x.copy(), expected)
    program(pipeline).run("isum_umax_all", n, x.copy(), out)
    assert out.tolist() == expected.tolist()


@pytest.mark.parametrize("pipeline", list(PIPELINES))
@pytest.mark.parametrize("n", SIZES)
def test_float_sum_matches_gcc(pipeline: str, n: int):
    """Integer-valued floats: every order of the sum is exact, so bitwise equal."""
    x = np.random.default_rng(n).integers(-1000, 1000, n).astype(np.float32)
    expected, out = np.zeros(1, np.float32), np.zeros(1, np.float32)
    gcc_reference(SOURCE, "fsum")(n, x.copy(), expected)
    program(pipeline).run("fsum", n, x.copy(), out)
    assert out.tobytes() == expected.tobytes()


@pytest.mark.parametrize("pipeline", ["warps", "grid_stride", "deterministic_strided"])
@pytest.mark.parametrize("n, m", [(0, 3), (1, 1), (33, 70), (200, 300)])
def test_2d_nest_min_matches_gcc(pipeline: str, n: int, m: int):
    """A reduction over a 2D nest: the y grid-stride loop and (deterministic) the partials of
    a 2D grid."""
    x = np.random.default_rng(n + m).standard_normal(n * m)
    expected, out = np.zeros(1), np.zeros(1)
    gcc_reference(SOURCE, "dmin_2d")(n, m, x.copy(), expected)
    program(pipeline).run("dmin_2d", n, m, x.copy(), out)
    assert out.tobytes() == expected.tobytes()


@pytest.mark.parametrize("pipeline", ["deterministic", "deterministic_strided",
                                      "deterministic_tree"])
def test_deterministic_sum_is_bitwise_identical_in_every_block_order(pipeline: str):
    """Random floats (rounding depends on the order): the same bits whatever order the blocks
    run and finish in, also with blocks on two OS threads at once."""
    n = 100003
    x = np.random.default_rng(5).standard_normal(n).astype(np.float32)
    results: set[bytes] = set()
    for order, seed in ORDERS:
        for threads in (1, 2):
            out = np.zeros(1, np.float32)
            program(pipeline, order, seed, threads).run("fsum", n, x.copy(), out)
            results.add(out.tobytes())
    assert len(results) == 1
    (bits,) = results
    total = np.frombuffer(bits, np.float32)[0]
    assert abs(total - x.astype(np.float64).sum()) < 1e-3 * np.abs(x).sum() ** 0.5


def test_atomic_sum_depends_on_the_block_order():
    """The check above has teeth: with one atomic per block, the orders give other roundings."""
    n = 100003
    x = np.random.default_rng(5).standard_normal(n).astype(np.float32)
    results: set[bytes] = set()
    for order, seed in ORDERS:
        out = np.zeros(1, np.float32)
        program("warps", order, seed).run("fsum", n, x.copy(), out)
        results.add(out.tobytes())
    assert len(results) > 1


@pytest.mark.parametrize("pipeline", list(PIPELINES))
def test_reductions_compile_with_nvcc(pipeline: str):
    assert_compiles_with_nvcc(cuda_of(SOURCE, PIPELINES[pipeline]).source)


NO_GPU = cuda_exec.gpu_unavailable_reason()


@pytest.mark.skipif(NO_GPU is not None, reason=f"needs a CUDA GPU: {NO_GPU}")
def test_deterministic_sum_on_the_gpu_is_bitwise_identical_run_to_run():
    """On a GPU, blocks finish in whatever order the hardware runs them: the deterministic
    combine still gives one result, and the atomic one the right sum."""
    import autogpu

    n = (1 << 24) + 3
    x = np.random.default_rng(9).standard_normal(n).astype(np.float32)
    exact = x.astype(np.float64).sum()
    for deterministic in (True, False):
        kernel = autogpu.compile(SOURCE, function="fsum", pipeline="autogpu-optimize",
                                 block_size=256, unroll_x=8, reduce_blocks=1056,
                                 deterministic=deterministic)
        results: set[bytes] = set()
        for _ in range(5):
            out = np.zeros(1, np.float32)
            kernel.program("cuda").run("fsum", n, x, out)
            results.add(out.tobytes())
            assert abs(out[0] - exact) < 1e-2 * np.sqrt(n)
        if deterministic:
            assert len(results) == 1
