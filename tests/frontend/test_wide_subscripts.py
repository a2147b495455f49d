"""`A[i][j]` with `int` subscripts into arrays of 2^31 and more elements, against gcc.

C computes `A[i][j]` as pointer arithmetic, scaled in `ptrdiff_t`: `int` subscripts into a
matrix of 2^31 or more elements are valid C, and gcc reads the right element. The frontend used to
flatten `i * n + j` in `int`, so every pipeline read a wrapped (negative) address there: a wrong
answer on the CPU emulation and an illegal address on the GPU (an out-of-core matmul of 393216 x
8192). The rows these kernels touch lie across 2^31 and 2^32 elements; the arrays are mapped
lazily (`lazy_arrays`), so only those pages exist. Each pipeline (the direct translation, the
default, the tiled one with its shared-memory copies, and with narrowed indices) must leave
exactly gcc's values in every window and nothing else written."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from lazy_arrays import run_on_windows
from lowered_differential import cuda_of, gcc_reference, one_translation_unit

from autogpu.runtime import cuda_exec
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.testing.nvcc import assert_compiles_with_nvcc

MATMUL_ROWS = """
void mm_rows(int lo, int hi, int m, int p, const float A[][p], const float B[p][m],
             float C[][m]) {
#pragma omp parallel for collapse(2)
  for (int i = lo; i < hi; i++)
    for (int j = 0; j < m; j++) {
      float s = 0.0f;
      for (int k = 0; k < p; k++)
        s += A[i][k] * B[k][j];
      C[i][j] = s;
    }
}
"""

STENCIL_ROWS = """
void blur_rows(int lo, int hi, int m, const float in[][m], float out[][m]) {
#pragma omp parallel for collapse(2)
  for (int i = lo; i < hi; i++)
    for (int j = 1; j < m - 1; j++)
      out[i][j] = in[i - 1][j] + in[i][j - 1] + in[i][j] + in[i][j + 1] + in[i + 1][j];
}
"""

Windows = Sequence[tuple[int, Sequence[tuple[int, int]]]]
Case = tuple[dict[str, int], Windows, list[str]]
"""Scalars, the lazily mapped arrays (elements, windows), the parameter order."""

PAD = 8
"""Elements either side of each window, which no kernel may write."""


def matmul_rows(first_element: int, rows: int, m: int, p: int) -> Case:
    """Rows `lo..lo+rows` of A (p wide) and C (m wide), the first at or past `first_element`."""
    lo = first_element // p + 1
    hi = lo + rows
    scalars = {"lo": lo, "hi": hi, "m": m, "p": p}
    arrays = [(hi * p + PAD, [(lo * p - PAD, hi * p + PAD)]),
              (p * m, [(0, p * m)]),
              (hi * m + PAD, [(lo * m - PAD, hi * m + PAD)])]
    return scalars, arrays, ["lo", "hi", "m", "p", "A", "B", "C"]


def stencil_rows(first_element: int, rows: int, m: int) -> Case:
    lo = first_element // m + 1
    hi = lo + rows
    scalars = {"lo": lo, "hi": hi, "m": m}
    window = [((lo - 1) * m - PAD, (hi + 1) * m + PAD)]
    arrays = [((hi + 1) * m + PAD, window)] * 2
    return scalars, arrays, ["lo", "hi", "m", "in", "out"]


PIPELINES = [
    "autogpu-vanilla",
    "autogpu-optimize",
    "autogpu-tiled",
    "autogpu-tiled{narrow_indices=true}",
    "autogpu-optimize{block_size=32 block_y=2 unroll_x=2 unroll_y=2 unroll_serial=4 "
    "narrow_indices=true}",
]

CASES = [
    ("matmul-across-2^31", MATMUL_ROWS, "mm_rows", matmul_rows(2**31 - 3 * 37, 7, 37, 37)),
    ("matmul-across-2^32", MATMUL_ROWS, "mm_rows", matmul_rows(2**32 - 2 * 19, 5, 19, 23)),
    ("stencil-across-2^31", STENCIL_ROWS, "blur_rows", stencil_rows(2**31 - 2 * 41, 6, 41)),
    ("stencil-across-2^32", STENCIL_ROWS, "blur_rows", stencil_rows(2**32 - 3 * 29, 5, 29)),
]


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("source, function, case", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_int_subscripts_past_2_pow_31_match_gcc(source: str, function: str, case: Case,
                                                 pipeline: str):
    scalars, arrays, order = case
    program = cuda_of(source, pipeline)
    runner = CpuProgram(program.source, program.launch, threads=2)
    expected = run_on_windows(gcc_reference(source, function), scalars, arrays, order, 5)
    actual = run_on_windows(lambda *a: runner.run(function, *a), scalars, arrays, order, 5)
    for got, wanted in zip(actual, expected, strict=True):
        assert (got == wanted).all(), f"{function} through {pipeline}"


def test_tiled_kernel_still_caches_both_operands():
    """The 64-bit subscripts are still affine to the tiling: both operands go through
    `__shared__` (the analysis sees through the sign extension of `int` loop variables)."""
    source = cuda_of(MATMUL_ROWS, "autogpu-tiled").source
    assert "A_sh[" in source
    assert "B_sh[" in source


def test_every_kernel_compiles_with_nvcc():
    programs = [cuda_of(source, pipeline) for _, source, _, _ in CASES[::2]
                for pipeline in PIPELINES]
    assert_compiles_with_nvcc(one_translation_unit(programs))


NO_GPU = cuda_exec.gpu_unavailable_reason()


@pytest.mark.skipif(NO_GPU is not None, reason=f"needs a CUDA GPU: {NO_GPU}")
@pytest.mark.parametrize("pipeline", ["autogpu-tiled", "autogpu-optimize"])
def test_gpu_reads_rows_past_2_pow_31(pipeline: str):
    """On the GPU the wrapped address was an illegal memory access (8.6 GB per matrix)."""
    source, function, case = CASES[0][1:]
    scalars, arrays, order = case
    program = cuda_of(source, pipeline)
    runner = cuda_exec.CudaProgram(program.source, program.launch, fmad=False)
    expected = run_on_windows(gcc_reference(source, function), scalars, arrays, order, 5)
    actual = run_on_windows(lambda *a: runner.run(function, *a), scalars, arrays, order, 5)
    for got, wanted in zip(actual, expected, strict=True):
        assert (got == wanted).all(), f"{function} through {pipeline}"
