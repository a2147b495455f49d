"""gpu-narrow-indices against gcc's build of the serial C: a wrong narrowing is a silent wrong
answer, so the narrowed kernels (autogpu-tiled and autogpu-optimize with narrow_indices=true)
run on the CPU emulation at sizes that divide nothing, 0 and 1, and at global offsets
and row strides whose products pass 2^31 and 2^32 (arrays of up to 2^32 + 2^10 elements, mapped
lazily: only the pages touched are allocated), where the indices that may not fit must have
stayed 64-bit. nvcc compiles every kernel; on a GPU (skipped without one) they agree too."""

from __future__ import annotations

import re

import numpy as np
import pytest
from lazy_arrays import run_on_windows
from lowered_differential import check_against_gcc, cuda_of, gcc_reference, one_translation_unit
from pass_differential import example

from autogpu.runtime import cuda_exec
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.testing.nvcc import assert_compiles_with_nvcc

GEMM = """
void gemm(const float *A, const float *B, float *C, int m, int n, int p) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      float s = 0;
      for (int k = 0; k < p; k++)
        s += A[i * p + k] * B[k * n + j];
      C[i * n + j] = s;
    }
}
"""

GEMM_AT = """
void gemm_at(long off, const float *A, const float *B, float *C, int m, int n, int p) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      float s = 0;
      for (int k = 0; k < p; k++)
        s += A[off + i * p + k] * B[off + k * n + j];
      C[off + i * n + j] = s;
    }
}
"""
"""Each matrix starts at element `off`: 2^31 - 40 puts them across 2^31, 2^32 - 40 across 2^32.
The shared tiles' subscripts are small, their global bases are not."""

ROWS = """
void rows(int n, int m, long stride, const float *x, float *y) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      y[i * stride + j] = x[i * stride + j] * 2.0f + (float)(i * m + j);
}
"""
"""Rows `stride` elements apart: `i * stride` passes 2^31 and 2^32 for i = 1, 2."""

STENCIL = """
void blur(int n, long off, const float *in, float *out) {
#pragma omp parallel for
  for (int i = 1; i < n - 1; i++)
    out[off + i] = in[off + i - 1] + in[off + i] + in[off + i + 1];
}
"""

#: autogpu-tiled with the paper's cyclic replicas and scalar tile copies (the layout before the
#: fragment knobs of issue #14): the structural checks below name its `(int)tx`.
CYCLIC = "unroll_distribution=cyclic vector_width=0 cache_copy_width=1 cache_pad=0"
TILED = f"autogpu-tiled{{block_size=4 block_y=4 tm=2 tn=3 bk=5 {CYCLIC} narrow_indices=true}}"
OPTIMIZE = ("autogpu-optimize{block_size=32 block_y=2 unroll_x=2 unroll_y=2 unroll_serial=4 "
            "narrow_indices=true}")


def gemm_sizes(m: int, n: int, p: int) -> dict[str, int]:
    return {"m": m, "n": n, "p": p, "A": max(m * p, 1), "B": max(p * n, 1), "C": max(m * n, 1)}


def colmajor(m: int, n: int, p: int) -> dict[str, int]:
    return {"m": m, "n": n, "p": p, "A": max(m * n, 1), "B": max(m * p, 1), "C": max(p * n, 1)}


ODD = [(17, 65, 130), (65, 17, 1), (1, 1, 1), (9, 5, 0), (0, 4, 3), (31, 33, 39)]

CASES = [
    ("tiled-gemm", GEMM, "gemm", TILED, [gemm_sizes(*s) for s in ODD]),
    ("tiled-default-matmul", example("matmul.c"), "matmul", "autogpu-tiled{narrow_indices=true}",
     [colmajor(*s) for s in ((130, 129, 17), (1, 1, 1), (0, 3, 2))]),
    ("optimize-gemm", GEMM, "gemm", OPTIMIZE, [gemm_sizes(*s) for s in ODD]),
    ("optimize-stencil", STENCIL, "blur", OPTIMIZE,
     [{"n": n, "off": 3, "in": n + 3, "out": n + 3} for n in (0, 1, 2, 3, 130, 257)]),
]  # fmt: skip


@pytest.mark.parametrize("source, function, spec, cases", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_narrowed_kernels_match_gcc(source: str, function: str, spec: str,
                                    cases: list[dict[str, int]]):
    assert "narrow_indices=true" in spec
    check_against_gcc(source, function, spec, cases)


def kernel_body(source: str) -> str:
    return source[source.index("__global__"):]


def test_tiled_matmul_computes_its_indices_in_int():
    """The tiled matmul's thread indices, shared tile subscripts and copy loops are `int`;
    what may pass 2^31 (the block's first row `blockIdx.x * blockDim.x * 8`, the k-tile loop up
    to `p`, whose last step may pass it) stays `long long`."""
    narrowed = kernel_body(cuda_of(example("matmul.c"),
                                   f"autogpu-tiled{{{CYCLIC} narrow_indices=true}}").source)
    wide = kernel_body(cuda_of(example("matmul.c"),
                               f"autogpu-tiled{{{CYCLIC} narrow_indices=false}}").source)
    assert "const long long tx = threadIdx.x;" in wide
    assert re.search(r"const int \w+ = \(int\)tx;", narrowed)
    assert re.search(r"for \(long long e = thread;", wide)
    assert re.search(r"for \(int e = thread;", narrowed)
    assert re.search(r"const long long gid_x = ", narrowed)
    assert re.search(r"for \(long long k_tile = 0; k_tile < p;", narrowed)
    shared = re.findall(r"\w+_sh\[([^\]]*)\]", narrowed)
    assert shared
    assert not [s for s in shared if "long long" in s]
    assert narrowed.count("long long") < 0.6 * wide.count("long long")


def test_off_by_default_in_autogpu_optimize_and_on_in_autogpu_tiled():
    """autogpu-optimize runs the pass only when asked; autogpu-tiled by default (it pays on
    its default tiles; its tuner asks both ways)."""
    default = OPTIMIZE.replace(" narrow_indices=true", "")
    assert "(int)tx" not in kernel_body(cuda_of(GEMM, default).source)
    assert "(int)tx" in kernel_body(cuda_of(GEMM, OPTIMIZE).source)
    default = TILED.replace(" narrow_indices=true", "")
    assert "(int)tx" in kernel_body(cuda_of(GEMM, default).source)
    assert "(int)tx" not in kernel_body(cuda_of(GEMM, TILED.replace("=true", "=false")).source)


# --- offsets and strides past 2^31 and 2^32 -----------------------------------------------------


WindowedCase = tuple[dict[str, int], list[tuple[int, list[tuple[int, int]]]], list[str]]
"""A call's scalars, its arrays (length, windows that may be touched) and parameter order."""


def gemm_at(off: int, m: int, n: int, p: int) -> WindowedCase:
    scalars = {"off": off, "m": m, "n": n, "p": p}
    pad = 8  # elements either side, which nothing may write
    arrays = [(off + size + pad, [(off - pad, off + size + pad)])
              for size in (m * p, p * n, m * n)]
    return scalars, arrays, ["off", "A", "B", "C", "m", "n", "p"]


def rows(n: int, m: int, stride: int) -> WindowedCase:
    scalars = {"n": n, "m": m, "stride": stride}
    windows = [(i * stride, i * stride + m + 4) for i in range(n)]
    count = (n - 1) * stride + m + 4
    return scalars, [(count, windows), (count, windows)], ["n", "m", "stride", "x", "y"]


def blur(n: int, off: int) -> WindowedCase:
    scalars = {"n": n, "off": off}
    windows = [(off, off + n + 4)]
    return scalars, [(off + n + 4, windows)] * 2, ["n", "off", "in", "out"]


BIG_CASES = [
    ("gemm-across-2^31", GEMM_AT, "gemm_at", TILED, gemm_at(2**31 - 40, 13, 11, 9)),
    ("gemm-across-2^32", GEMM_AT, "gemm_at", TILED, gemm_at(2**32 - 40, 13, 11, 9)),
    ("gemm-optimize-2^31", GEMM_AT, "gemm_at", OPTIMIZE, gemm_at(2**31 - 40, 13, 11, 9)),
    ("rows-past-2^31", ROWS, "rows", TILED, rows(3, 37, 2**30 + 3)),
    ("rows-past-2^32", ROWS, "rows", OPTIMIZE, rows(3, 37, 2**31 + 5)),
    ("stencil-across-2^31", STENCIL, "blur", OPTIMIZE, blur(300, 2**31 - 150)),
]  # fmt: skip


@pytest.mark.parametrize("source, function, spec, case", [c[1:] for c in BIG_CASES],
                         ids=[c[0] for c in BIG_CASES])
def test_offsets_past_2_pow_31_and_2_pow_32(source: str, function: str, spec: str,
                                            case: WindowedCase):
    scalars, arrays, order = case
    program = cuda_of(source, spec)
    runner = CpuProgram(program.source, program.launch, threads=2)
    expected = run_on_windows(gcc_reference(source, function), scalars, arrays, order, 3)
    actual = run_on_windows(lambda *a: runner.run(function, *a), scalars, arrays, order, 3)
    for got, wanted in zip(actual, expected):
        np.testing.assert_array_equal(got, wanted)


def test_every_kernel_compiles_with_nvcc():
    programs = [cuda_of(source, spec) for _, source, _, spec, _ in [*CASES, *BIG_CASES]]
    assert_compiles_with_nvcc(one_translation_unit(programs))


NO_GPU = cuda_exec.gpu_unavailable_reason()


@pytest.mark.skipif(NO_GPU is not None, reason=f"needs a CUDA GPU: {NO_GPU}")
@pytest.mark.parametrize("spec", ["autogpu-tiled{narrow_indices=true}",
                                  "autogpu-tiled{min_blocks=2 narrow_indices=true}"])
def test_gpu_matches_gcc(spec: str):
    """The default tiles at a size that divides nothing, on a real GPU."""
    from lowered_differential import agree_with_gcc

    program = cuda_of(example("matmul.c"), spec)
    gpu_program = cuda_exec.CudaProgram(program.source, program.launch, fmad=False)
    agree_with_gcc(gpu_program, example("matmul.c"), "matmul",
                   [colmajor(300, 257, 129)], seeds=(7,))
