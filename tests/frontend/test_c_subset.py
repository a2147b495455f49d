"""The C that users write (issue #16) against gcc: function-like macros, `static inline` helpers
and `static` kernels, local arrays with initializers (private per iteration, at function level,
file-scope `static const` tables), `restrict` local pointers and math.h's constants, in kernels
as written in PolyBench and stencil codes.

The frontend's IR on the reference interpreter, and the CUDA of both pipelines on the CPU
emulation, leave gcc's outputs bit for bit; nvcc compiles the CUDA.
"""

from __future__ import annotations

import pytest
from lowered_differential import (
    check_against_gcc,
    cuda_of,
    interpreter_agrees_with_gcc,
    one_translation_unit,
    parsed_c,
)
from xdsl.dialects import func

from autogpu.testing.nvcc import assert_compiles_with_nvcc

SOURCE = r"""
#include <math.h>
#define IDX(i, j) ((i) * n + (j))
#define AT(A, i, j) A[IDX(i, j)]
#define SQ(x) ((x) * (x))
#define CLAMP(v, lo, hi) \
  ((v) < (lo) ? (lo) : \
   (v) > (hi) ? (hi) : (v))
#define TAPS 5
#define SCALE 3.0
#undef SCALE
#define SCALE 2.0
#ifndef SCALE
#define SCALED(v) (v)
#else
#define SCALED(v) ((v) * SCALE)
#endif

static const float WEIGHTS[TAPS] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
static const int OFFSETS[2][2] = {{-1, 1}, {2, -2}};

static inline float sq(float x) { return x * x; }
static inline int wrap(int i, int n) {
  if (i < 0) return i + n;
  return i >= n ? i - n : i;
}
static float dot_row(const float *A, const float *x, int n, int i) {
  float s = 0.0f;
  for (int k = 0; k < n; k++)
    s += AT(A, i, k) * x[k];
  return s;
}
static void axpy_at(float *y, int i, float a, float v) { y[i] = a * v + y[i]; }

/* PolyBench style: a static kernel with a function-like macro for 2-D indexing. */
static void kernel_gemv(int n, float alpha, const float *A, const float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    float d = dot_row(A, x, n, i);
    axpy_at(y, i, alpha, d);
  }
}

/* A stencil with a file-scope table, a helper and a clamp macro. */
void blur(int n, const float *in, float *out) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int t = 0; t < TAPS; t++)
      s += WEIGHTS[t] * in[wrap(i + t - 2, n)];
    out[i] = CLAMP(s, 0.0f, 0.75f) + sq(s) * 0.0f;
  }
}

/* Per-iteration scratch arrays: a 2x2 accumulator and a lookup table. */
void scratch(int n, const int *x, int *out) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    int acc[2][2] = {{0}, {x[i], 1}};
    const int lut[] = {3, 1, 4, 1, 5, 9, 2, 6};
    for (int k = 0; k < 4; k++)
      acc[k / 2][k % 2] += lut[(x[i] + k) & 7] * SQ(k);
    out[i] = acc[0][0] - acc[0][1] + acc[1][0] * acc[1][1] + OFFSETS[i % 2][i % 2];
  }
}

/* A function-level table read by every iteration, and math.h beyond the old list. */
void shade(int n, const float *x, float *y) {
  const float levels[4] = {0.5f, 1.5f, 2.5f, 3.5f};
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    float v = tanhf(x[i]) + roundf(x[i] * 3.0f) + fmodf(x[i], 0.75f);
    y[i] = v * levels[abs(i) % 4] + copysignf(1.0f, x[i]) + (float)signbit(x[i]);
  }
}

/* restrict on local pointers that name whole arrays, and the constants of math.h. */
void aliases(int n, const float *x, float *y, double *z) {
  const float *restrict in = x;
  float *restrict out = y;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    out[i] = in[i] > 0.5f ? NAN : in[i] < -0.5f ? -INFINITY : HUGE_VALF * in[i];
    z[i] = (in[i] > 0 ? HUGE_VAL : -HUGE_VAL) + signbit(NAN) + isinf(-INFINITY) + SCALED(in[i]);
  }
}
"""

CASES = {
    "kernel_gemv": [{"n": n, "alpha": 1.5, "A": max(n * n, 1), "x": max(n, 1), "y": max(n, 1)}
                    for n in (1, 7, 33)],
    "blur": [{"n": n, "in": n, "out": n} for n in (3, 5, 70)],  # wrap: n >= 2
    "scratch": [{"n": n, "x": n, "out": n} for n in (1, 9, 66)],
    "shade": [{"n": n, "x": n, "y": n} for n in (1, 40)],
    "aliases": [{"n": n, "x": n, "y": n, "z": n} for n in (1, 40)],
}  # fmt: skip
PIPELINES = ("autogpu-vanilla{block_size=32}",
             "autogpu-optimize{block_size=32 unroll_x=2 unroll_serial=4}")  # fmt: skip


@pytest.mark.parametrize("function", CASES)
def test_interpreter_agrees_with_gcc(function: str):
    interpreter_agrees_with_gcc(SOURCE, function, CASES[function])


@pytest.mark.parametrize("pipeline", PIPELINES, ids=["vanilla", "optimize"])
@pytest.mark.parametrize("function", CASES)
def test_cuda_on_the_emulation_agrees_with_gcc(function: str, pipeline: str):
    check_against_gcc(SOURCE, function, pipeline, CASES[function])


def test_nvcc_compiles_the_subset():
    assert_compiles_with_nvcc(one_translation_unit([cuda_of(SOURCE, p) for p in PIPELINES]),
                              allow_warnings=False)  # fmt: skip


def test_helpers_are_not_kernels():
    """A static helper is inlined, not compiled on its own; the static kernel is."""
    ops = list(parsed_c(SOURCE).ops)
    names = [op.sym_name.data for op in ops if isinstance(op, func.FuncOp)]
    assert len(names) == len(ops)
    assert names == ["kernel_gemv", "blur", "scratch", "shade", "aliases"]
