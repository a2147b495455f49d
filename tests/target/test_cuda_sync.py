"""`#pragma omp atomic` and `#pragma omp critical` down to CUDA (autogpu/target/cuda_sync.py,
cuda_atomics.py): run on the CPU emulation (blocks on 2 OS threads, threads in a shuffled
order) against gcc's build of the serial C, under both pipelines; nvcc accepts the CUDA; and on
a GPU (skipped without one, saying why) the kernels agree with gcc too.

Integer results are compared bit for bit. Floating-point sums of atomics and critical sections
add in the order the threads arrive, so they are compared within rtol 1e-4 (the values summed
are in [-1, 1), a few hundred of them per element, in float); `*=` on double by a power of two
is exact in any order and is compared bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from lowered_differential import (
    agree_with_gcc,
    check_against_gcc,
    close_sums,
    cuda_of,
    one_translation_unit,
)
from sync_kernels import CAS_FORMS, CRITICAL, HISTOGRAM, SCALAR_SUM

from autogpu.runtime import cuda_exec
from autogpu.testing import assert_same_outputs
from autogpu.testing.nvcc import assert_compiles_with_nvcc

PIPELINES = ["autogpu-vanilla", "autogpu-optimize"]

MATVEC_T = """
void atax(int m, int n, float A[m][n], const float *t, float *y) {
  #pragma omp parallel for
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      #pragma omp atomic
      y[j] += A[i][j] * t[i];
    }
}
"""

CAPTURE = """
void tickets(int n, int *next, int *seen, int *value, int *even, int *down) {
  #pragma omp parallel for
  for (int i = 0; i < n; i++) {
    int mine;
    #pragma omp atomic capture
    mine = next[0]++;
    #pragma omp atomic capture
    { even[i] = next[1]; next[1] += 2; }
    #pragma omp atomic capture
    { next[2] -= 1; down[i] = next[2]; }
    #pragma omp atomic write
    seen[mine] = 1;
    int v;
    #pragma omp atomic read
    v = seen[mine];
    value[i] = v;
  }
}
"""


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_histograms_int_unsigned_float(pipeline: str):
    cases = [{"n": n, "k": k, "x": n, "h": k, "u": k, "hf": k} for n, k in [(1, 1), (300, 7), (1000, 3)]]
    check_against_gcc(HISTOGRAM, "histogram", pipeline, cases)  # sums of 0.5: exact


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_transposed_matrix_vector_product(pipeline: str):
    cases = [{"m": m, "n": n, "A": m * n, "t": m, "y": n} for m, n in [(1, 1), (200, 13), (33, 70)]]
    check_against_gcc(MATVEC_T, "atax", pipeline, cases, compare=close_sums)


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_scalar_sum_shared_by_the_iterations(pipeline: str):
    cases = [{"n": n, "x": n, "c": n, "out": 1, "count": 1} for n in (1, 500, 1027)]
    check_against_gcc(SCALAR_SUM, "total", pipeline, cases, compare=close_sums)


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_compare_and_swap_forms(pipeline: str):
    cases = [{"n": n, "k": 5, "x": n, "p": 5, "bits": 5, "d": 5, "r": 5} for n in (1, 40)]
    check_against_gcc(CAS_FORMS, "cas", pipeline, cases)


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_critical_section_updates_two_variables_consistently(pipeline: str):
    cases = [{"n": n, "x": n, "count": 2, "sum": 1} for n in (1, 300, 1000)]
    check_against_gcc(CRITICAL, "stats", pipeline, cases, compare=close_sums)


def test_replicated_threads_keep_each_atomic_and_critical_section():
    """`unroll_x` replicates the loop body in each thread (jam.py): every replica keeps its own
    atomics and critical sections."""
    pipeline = "autogpu-optimize{unroll_x=4 block_size=64}"
    cases = [{"n": n, "k": 5, "x": n, "p": 5, "bits": 5, "d": 5, "r": 5} for n in (1, 301)]
    check_against_gcc(CAS_FORMS, "cas", pipeline, cases)
    cases = [{"n": n, "x": n, "count": 2, "sum": 1} for n in (1, 300)]
    check_against_gcc(CRITICAL, "stats", pipeline, cases, compare=close_sums)


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_capture_read_write(pipeline: str):
    """Every iteration draws a distinct ticket: the old value of `next[0]` and `next[1]`, the
    new one of `next[2]` (also by the structured-block forms)."""
    from autogpu.runtime.cpu_exec import CpuProgram

    program = cuda_of(CAPTURE, pipeline)
    runner = CpuProgram(program.source, program.launch, threads=2, thread_order="random")
    n = 700
    next_, seen, value = np.zeros(3, np.int32), np.zeros(n, np.int32), np.zeros(n, np.int32)
    even, down = np.zeros(n, np.int32), np.zeros(n, np.int32)
    runner.run("tickets", n, next_, seen, value, even, down)
    assert next_.tolist() == [n, 2 * n, -n]
    assert seen.tolist() == [1] * n
    assert value.tolist() == [1] * n
    assert sorted(even.tolist()) == list(range(0, 2 * n, 2))
    assert sorted(down.tolist()) == list(range(-n, 0))




TYPED = """
void typed(int n, int k, const unsigned *x, const T *v, T *a, T *b, T *c, T *d) {
  #pragma omp parallel for
  for (int i = 0; i < n; i++) {
    #pragma omp atomic
    a[x[i] % k] += v[i];
    #pragma omp atomic
    b[x[i] % k] -= v[i];
    #pragma omp atomic
    c[x[i] % k] += 0.5;
    #pragma omp atomic
    d[x[i] % k] /= 2;
  }
}
"""
"""Native atomics (`+=`, `-=` as an addition) and compare-and-swap loops (`+= 0.5` computed
in double, `/=`) on every arithmetic type; each element's result does not depend on the order
of its updates (integer sums wrap, halving and adding 0.5 repeat one operation)."""


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("ctype", ["int", "unsigned", "long", "unsigned long", "float", "double",
                                   "signed char", "unsigned char", "short", "unsigned short",
                                   "_Bool"])  # fmt: skip
def test_every_arithmetic_type(ctype: str, pipeline: str):
    """8/16-bit elements: a compare-and-swap on the 32-bit word that holds each (its
    neighbours, updated by other threads at the same time, are kept); on a _Bool `+=` is `||`,
    `-=` toggles, `+= 0.5` sets and `/= 2` clears, each order-independent too."""
    source = TYPED.replace("T *", f"{ctype} *")
    cases = [{"n": n, "k": k, "x": n, "v": n, "a": k, "b": k, "c": k, "d": k}
             for n, k in ((1, 3), (257, 3), (1000, 7))]
    exact = ctype not in ("float", "double")
    check_against_gcc(source, "typed", pipeline, cases,
                      compare=assert_same_outputs if exact else close_sums)


SMALL_CAPTURE = """
void small_tickets(int n, unsigned short *next, unsigned char *seen, short *value,
                   unsigned short *even, signed char *flags) {
  #pragma omp parallel for
  for (int i = 0; i < n; i++) {
    unsigned short mine;
    #pragma omp atomic capture
    mine = next[0]++;
    #pragma omp atomic capture
    { even[i] = next[1]; next[1] += 2; }
    #pragma omp atomic write
    seen[mine] = 1;
    short v;
    #pragma omp atomic read
    v = seen[mine];
    value[i] = v;
    #pragma omp atomic
    flags[i % 4] |= 1 << (i % 7);
  }
}
"""
"""Captures, writes and reads of 16- and 8-bit elements; `next[0]` and `next[1]` share one
32-bit word, as do the four `flags`, so each CAS competes with its neighbour's."""


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_capture_read_write_small_types(pipeline: str):
    from autogpu.runtime.cpu_exec import CpuProgram

    program = cuda_of(SMALL_CAPTURE, pipeline)
    runner = CpuProgram(program.source, program.launch, threads=2, thread_order="random")
    n = 700
    next_, seen = np.zeros(2, np.uint16), np.zeros(n, np.uint8)
    value, even, flags = np.zeros(n, np.int16), np.zeros(n, np.uint16), np.zeros(4, np.int8)
    runner.run("small_tickets", n, next_, seen, value, even, flags)
    assert next_.tolist() == [n, 2 * n]
    assert seen.tolist() == [1] * n
    assert value.tolist() == [1] * n
    assert sorted(even.tolist()) == list(range(0, 2 * n, 2))
    expected = np.zeros(4, np.int8)
    for i in range(n):
        expected[i % 4] |= np.int8(np.uint8(1 << (i % 7)).view(np.int8))
    assert flags.tolist() == expected.tolist()


def test_nvcc_compiles_every_form():
    typed = [TYPED.replace("T *", f"{t} *") for t in ("int", "unsigned", "long", "unsigned long",
                                                        "float", "double", "signed char",
                                                        "unsigned short", "_Bool")]  # fmt: skip
    programs = [cuda_of(source, pipeline) for source in
                (HISTOGRAM, MATVEC_T, SCALAR_SUM, CAS_FORMS, CRITICAL, CAPTURE, SMALL_CAPTURE,
                 *typed)
                for pipeline in PIPELINES]  # fmt: skip
    assert_compiles_with_nvcc(one_translation_unit(programs), allow_warnings=False)


NO_GPU = cuda_exec.gpu_unavailable_reason()


@pytest.mark.skipif(NO_GPU is not None, reason=f"needs a CUDA GPU: {NO_GPU}")
@pytest.mark.parametrize(
    "source, function, cases, compare",
    [
        (HISTOGRAM, "histogram", [{"n": 100000, "k": 7, "x": 100000, "h": 7, "u": 7, "hf": 7}],
         assert_same_outputs),
        (SCALAR_SUM, "total", [{"n": 5000, "x": 5000, "c": 5000, "out": 1, "count": 1}],
         close_sums),
        (CAS_FORMS, "cas", [{"n": 40, "k": 5, "x": 40, "p": 5, "bits": 5, "d": 5, "r": 5}],
         assert_same_outputs),
        (CRITICAL, "stats", [{"n": 20000, "x": 20000, "count": 2, "sum": 1}], close_sums),
    ],
    ids=["histogram", "scalar", "cas", "critical"],
)
def test_gpu_matches_gcc(
    source: str, function: str, cases: list[dict[str, int]],
    compare: Callable[[list[Any], list[Any]], None],
):
    """On a real GPU, where the threads of a warp do contend for one element or one lock."""
    program = cuda_of(source, "autogpu-optimize")
    gpu_program = cuda_exec.CudaProgram(program.source, program.launch, fmad=False)
    agree_with_gcc(gpu_program, source, function, cases, compare=compare, seeds=(7,))
