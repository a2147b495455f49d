"""char, short and _Bool (and the <stdint.h>/<stdbool.h>/<stddef.h> names) against gcc: the
frontend's IR on the reference interpreter, and the CUDA of both pipelines on the CPU emulation,
leave gcc's outputs bit for bit on values that cover each type's whole range (promotions to
int, wrap-around on narrowing stores, `_Bool` conversion); nvcc compiles the CUDA; what stays
refused is a located error."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from lowered_differential import cuda_of, gcc_reference, one_translation_unit, parsed_c

import autogpu
from autogpu.diagnostics import CompileError
from autogpu.interpreters import run_function
from autogpu.runtime.arguments import KernelArgumentError
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.testing import assert_same_outputs, copy_args
from autogpu.testing.nvcc import assert_compiles_with_nvcc

SOURCE = """
#include <stdint.h>
#include <stdbool.h>

void threshold(int n, const unsigned char *img, unsigned char t, unsigned char *out) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    out[i] = img[i] > t ? 255 : 0;
}

void conv(int n, const short *x, const short *w, short *y, int *acc) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    int s = 0;
    for (int k = 0; k < 3; k++)
      s += x[i + k] * w[k];
    acc[i] = s;
    y[i] = s >> 2;
  }
}

void mask(int n, const float *x, const int *v, _Bool *m, bool *keep, float *out) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    m[i] = x[i];
    keep[i] = v[i] * 256;
    out[i] = m[i] && keep[i] ? 1.5f : 2.0f + keep[i] - m[i];
    if (!keep[i]) m[i] = !m[i];
  }
}

void wrap(int n, signed char *c, char *d, unsigned short *u, short *s) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    c[i] = c[i] * 3;
    d[i] += d[i] / 3 - 100;
    u[i] = u[i] * u[i] + 1;
    signed char t = (signed char)(s[i] + 200);
    t--;
    s[i] = -s[i] + t + (unsigned char)c[i] % 7;
  }
}

void bytes(int n, const uint8_t *a, const int8_t *b, uint16_t *sum, int64_t *wide,
           size_t *count) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    uint8_t x = a[i] + b[i];
    sum[i] = (uint16_t)(a[i] << 8) | (uint8_t)b[i];
    wide[i] = (int64_t)x * b[i] - (true + false);
    count[i] = (size_t)(a[i] ^ (unsigned char)~b[i]) + (a[i] > b[i]);
  }
}

void casts(int n, const float *f, const double *d, signed char *c, unsigned char *u,
           short *s, unsigned short *us, bool *b) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    c[i] = (signed char)(int)f[i];
    u[i] = (unsigned char)(f[i] * 0.5f + 64.0f);
    s[i] = (short)d[i];
    us[i] = (unsigned short)(d[i] * 0.25 + 8192.0);
    b[i] = (bool)d[i] + (float)c[i] * 0.0f;
  }
}

void scalars(int n, _Bool b, unsigned char u, signed char c, unsigned short w, bool *o,
             int *r) {
  _Bool any = 0;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    o[i] = b + i - 1;
    r[i] = u + c * b - w + (unsigned char)(u * 2) + (signed char)(c - 1) + -c;
  }
  for (int i = 0; i < n; i++)
    any += o[i];
  r[0] += any;
}

void counts(int n, const unsigned char *x, int *out) {
  int total = 0;
  for (char k = -5; k < 5; k++)
    total += k;
  out[0] = total;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    unsigned char c = x[i];
    int bits = 0;
    while (c) {
      bits += c & 1;
      c >>= 1;
    }
    out[i + 1] = bits;
  }
}
"""

FUNCTIONS = ("threshold", "conv", "mask", "wrap", "bytes", "casts", "scalars", "counts")
PIPELINES = ("autogpu-vanilla{block_size=64}", "autogpu-optimize{block_size=32 unroll_x=2}")


def full_range(dtype: npt.DTypeLike, size: int, rng: np.random.Generator) -> np.ndarray:
    """Values over the whole range of `dtype`, its limits included."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(size) < 0.5
    if dtype.kind == "f":
        values = rng.uniform(-300.0, 300.0, size).astype(dtype)
        values[::7] = 0.0
        values[3::11] = np.nan
        return values
    info = np.iinfo(dtype)
    values = rng.integers(info.min, info.max, size, dtype=dtype, endpoint=True)
    values[:4] = [info.min, info.max, 0, -1 if info.min < 0 else 1][:size]
    return values


def arguments(function: str, n: int, seed: int) -> list[Any]:
    rng = np.random.default_rng(seed)
    if function == "threshold":
        return [n, full_range(np.uint8, n, rng), np.uint8(100 + seed), np.zeros(n, np.uint8)]
    if function == "conv":
        return [n, full_range(np.int16, n + 2, rng), full_range(np.int16, 3, rng),
                np.zeros(n, np.int16), np.zeros(n, np.int32)]
    if function == "mask":
        x = full_range(np.float32, n, rng)
        return [n, x, full_range(np.int32, n, rng) % 3 * (1 << 23), np.zeros(n, bool),
                np.zeros(n, bool), np.zeros(n, np.float32)]
    if function == "wrap":
        return [n, full_range(np.int8, n, rng), full_range(np.int8, n, rng),
                full_range(np.uint16, n, rng), full_range(np.int16, n, rng)]
    if function == "bytes":
        return [n, full_range(np.uint8, n, rng), full_range(np.int8, n, rng),
                np.zeros(n, np.uint16), np.zeros(n, np.int64), np.zeros(n, np.uint64)]
    if function == "casts":
        f = rng.uniform(-128.0, 127.0, n).astype(np.float32)
        d = rng.uniform(-32768.0, 32767.0, n)
        d[::5] = 0.0
        return [n, f, d, np.zeros(n, np.int8), np.zeros(n, np.uint8), np.zeros(n, np.int16),
                np.zeros(n, np.uint16), np.zeros(n, bool)]
    if function == "scalars":
        limits = [(True, 255, -128, 65535), (False, 0, 127, 0), (True, 7, -1, 300)][seed % 3]
        b, u, c, w = limits
        return [n, np.bool_(b), np.uint8(u), np.int8(c), np.uint16(w), np.zeros(n, bool),
                np.zeros(n, np.int32)]
    assert function == "counts"
    return [n, full_range(np.uint8, n, rng), np.zeros(n + 1, np.int32)]


@pytest.mark.parametrize("function", FUNCTIONS)
def test_interpreter_agrees_with_gcc(function: str):
    for n, seed in ((1, 0), (67, 1), (300, 2)):
        args = arguments(function, n, seed)
        expected, actual = copy_args(args), copy_args(args)
        gcc_reference(SOURCE, function)(*expected)
        run_function(parsed_c(SOURCE), function, actual)
        assert_same_outputs(actual, expected)


@pytest.mark.parametrize("pipeline", PIPELINES, ids=["vanilla", "optimize"])
def test_cuda_on_the_emulation_agrees_with_gcc(pipeline: str):
    program = cuda_of(SOURCE, pipeline)
    runner = CpuProgram(program.source, program.launch, threads=2, thread_order="random")
    for function in FUNCTIONS:
        for n, seed in ((1, 0), (67, 1), (300, 2)):
            args = arguments(function, n, seed)
            expected, actual = copy_args(args), copy_args(args)
            gcc_reference(SOURCE, function)(*expected)
            runner.run(function, *actual)
            assert_same_outputs(actual, expected)


def test_nvcc_compiles_the_small_types():
    assert_compiles_with_nvcc(one_translation_unit([cuda_of(SOURCE, p) for p in PIPELINES]))


def test_the_names_work_without_their_include():
    """The typedef names and true/false need no #include (the preprocessor skips includes)."""
    kernel = autogpu.compile(
        "void f(int n, uint8_t *a, bool *b, ptrdiff_t d, int32_t *c) {\n"
        "  a[0] = 300; b[0] = true; b[1] = false; c[0] = d;\n}\n"
    )
    a, b, c = np.zeros(1, np.uint8), np.zeros(2, bool), np.zeros(1, np.int32)
    kernel(1, a, b, -7, c, backend="cpu")
    assert (a[0], b[0], b[1], c[0]) == (44, True, False, -7)


def test_numpy_small_arrays_and_scalars_are_bound_and_range_checked():
    kernel = autogpu.compile(
        "void f(int n, signed char c, unsigned short u, _Bool b, signed char *x, "
        "unsigned char *y, bool *z) {\n"
        "#pragma omp parallel for\n"
        "  for (int i = 0; i < n; i++) { x[i] = c * i; y[i] = u + i; z[i] = b ^ (i & 1); }\n}\n"
    )
    x, y, z = np.zeros(5, np.int8), np.zeros(5, np.uint8), np.zeros(5, bool)
    kernel(5, -100, 65535, True, x, y, z, backend="cpu")
    assert x.tolist() == [0, -100, 56, -44, 112]
    assert y.tolist() == [255, 0, 1, 2, 3]
    assert z.tolist() == [True, False, True, False, True]
    with pytest.raises(KernelArgumentError, match="out of range"):
        kernel(5, 128, 0, True, x, y, z, backend="cpu")
    with pytest.raises(KernelArgumentError, match="out of range"):
        kernel(5, 0, -1, True, x, y, z, backend="cpu")
    with pytest.raises(KernelArgumentError):
        kernel(5, 0, 0, 2, x, y, z, backend="cpu")
    with pytest.raises(KernelArgumentError, match="dtype"):
        kernel(5, 0, 0, True, x.astype(np.uint8), y, z, backend="cpu")


REFUSED = {
    "bool-sub": ("void f(int n, const int *x, _Bool *o) {\n  _Bool s = 1;\n"
                 "#pragma omp parallel for reduction(-: s)\n"
                 "  for (int i = 0; i < n; i++)\n    s -= x[i];\n  o[0] = s;\n}\n",
                 (5, 7), "this update of the _Bool 's' of 'reduction(-: s)' is not 's -= e'"),
    "loop-variable": ("void f(int n, int *a) {\n#pragma omp parallel for\n"
                      "  for (short i = 0; i < n; i++)\n    a[i] = i;\n}\n",
                      (3, 3), "its variable 'i' is a short, which C compares with the bound in int"),
    "char-int": ("void f(char int x) {}\n", (1, 8), "invalid type 'char int'"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_what_stays_refused_is_a_located_error(name: str):
    source, (line, column), message = REFUSED[name]
    with pytest.raises(CompileError) as info:
        _ = autogpu.compile(source).cuda_source
    error = info.value
    assert message in error.format()
    assert error.location is not None, error.format()
    assert (error.location.line, error.location.column) == (line, column), error.format()
