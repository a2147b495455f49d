"""The frontend's IR, run by the interpreter, computes exactly what gcc's build of the same C
computes: every example at several sizes (awkward ones, one element, zero-trip loops), and
small snippets for the constructs the frontend lowers in less obvious ways.

Floats are compared bit for bit: both sides perform the same IEEE operations in the same order
(the interpreter rounds f32 after every op; gcc is run with -O0 -ffp-contract=off and glibc's
libm is called by both), so any difference is a bug, not noise.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import pytest
from paths import EXAMPLES
from xdsl.dialects.builtin import ModuleOp

from autogpu.frontend import parse_c
from autogpu.interpreters import run_function
from autogpu.testing import (
    assert_same_outputs,
    compile_c_reference,
    copy_args,
    random_args,
    signature_of,
)


@pytest.fixture(autouse=True, scope="module")
def private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AUTOGPU_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


def saxpy(n: int) -> dict[str, Any]:
    return {"n": n, "a": 0.75, "x": n, "y": n}


def dot(n: int) -> dict[str, Any]:
    return {"x": n, "y": n, "result": 1, "n": n}


def matmul(m: int, n: int, p: int) -> dict[str, Any]:
    return {"m": m, "n": n, "p": p, "A": m * n, "B": m * p, "C": p * n}


def matmul_rows(n: int, m: int, p: int) -> dict[str, Any]:
    return {"n": n, "m": m, "p": p, "A": (n, p), "B": (p, m), "C": (n, m)}


def conv2d(n: int, m: int, t: int) -> dict[str, Any]:
    padded = max(n + t - 1, 0) * max(m + t - 1, 0)
    return {"n": n, "m": m, "t": t, "out": n * m, "in": padded, "tmpl": t * t}


def jacobi2d(n: int, m: int) -> dict[str, Any]:
    return {"n": n, "m": m, "in": (n, m), "out": (n, m)}


# Example file -> (function, argument sizes per case). Every example must be listed here.
EXAMPLE_CASES = {
    "saxpy.c": ("saxpy", [saxpy(17), saxpy(1), saxpy(0), saxpy(64)]),
    "dot.c": ("dot", [dot(37), dot(1), dot(0)]),
    "matmul.c": ("matmul", [matmul(17, 13, 11), matmul(1, 1, 1), matmul(3, 0, 2), matmul(4, 5, 0)]),
    "dmatmul.c": ("dmatmul", [matmul(17, 13, 11), matmul(1, 1, 1), matmul(3, 0, 2),
                              matmul(4, 5, 0)]),
    "matmul_rows.c": ("mm", [matmul_rows(17, 13, 11), matmul_rows(1, 1, 1), matmul_rows(3, 0, 2),
                             matmul_rows(4, 5, 0)]),
    "conv2d.c": ("conv2d", [conv2d(19, 23, 5), conv2d(1, 1, 1), conv2d(0, 3, 2), conv2d(4, 3, 0),
                            conv2d(7, 2, 3)]),
    "stencil2d.c": ("jacobi2d", [jacobi2d(6, 5), jacobi2d(17, 13), jacobi2d(2, 9), jacobi2d(1, 1),
                                 jacobi2d(3, 3)]),
}


def test_every_example_has_test_cases():
    assert sorted(EXAMPLE_CASES) == sorted(p.name for p in EXAMPLES.glob("*.c"))


@functools.cache
def lowered(source: str, filename: str) -> ModuleOp:
    return parse_c(source, filename)


def check_against_gcc(
    source: str, function: str, sizes: dict[str, Any], filename: str, seed: int = 0
) -> None:
    """Run the frontend's IR and gcc's build on the same random inputs; outputs must match."""
    module = lowered(source, filename)
    reference = compile_c_reference(source, function, filename)
    names = [p.name for p in reference.signature.params]
    assert [p.name for p in signature_of(module, function).params] == names
    args = random_args(reference.signature, sizes, seed)
    interpreted, compiled = copy_args(args), copy_args(args)
    assert run_function(module, function, interpreted) is None
    assert reference(*compiled) is None
    assert_same_outputs(interpreted, compiled, names)


@pytest.mark.parametrize(
    "example, case",
    [(name, i) for name, (_, cases) in sorted(EXAMPLE_CASES.items()) for i in range(len(cases))],
)
def test_example_interpreted_matches_gcc(example: str, case: int):
    function, cases = EXAMPLE_CASES[example]
    source = (EXAMPLES / example).read_text()
    for seed in range(2):
        check_against_gcc(source, function, cases[case], example, seed)


# --- constructs the frontend lowers in less obvious ways --------------------------------------

SNIPPETS = {
    "decreasing_loops": ("""
void f(int n, const float *x, float *y) {
  for (int i = n - 1; i >= 0; i--)
    y[i] = y[i] * 0.5f + x[i];
  for (int i = n; i > 0; i -= 3)
    y[i - 1] += 1.0f;
  for (int i = n - 1; i != -1; --i)
    y[i] = y[i] - x[n - 1 - i];
}
""", [{"n": 17, "x": 17, "y": 17}, {"n": 0, "x": 1, "y": 1}, {"n": 1, "x": 1, "y": 1}]),
    "while_with_guarded_load": ("""
void f(int n, const float *x, float *y, int *count) {
  int i = 0;
  while (i < n && x[i] > -0.9f) {
    y[i] = 2.0f * x[i];
    i++;
  }
  count[0] = i;
}
""", [{"n": 17, "x": 17, "y": 17, "count": 1}, {"n": 0, "x": 1, "y": 1, "count": 1},
      {"n": 3, "x": 3, "y": 3, "count": 1}]),
    "do_while": ("""
void f(int n, float *y) {
  int k = 0;
  do {
    y[k] += 1.0f;
    k += 3;
  } while (k < n);
}
""", [{"n": 17, "y": 17}, {"n": 1, "y": 1}, {"n": 0, "y": 1}]),
    "induction_variable_declared_outside": ("""
void f(int n, float *y, int *last) {
  int i;
  for (i = 0; i < n; i += 2)
    y[i] = (float)i;
  last[0] = i;
}
""", [{"n": 17, "y": 17, "last": 1}, {"n": 0, "y": 1, "last": 1}]),
    "casts": ("""
void f(int n, const float *x, int *q, float *r, double *d, unsigned *u) {
  for (int i = 0; i < n; i++) {
    q[i] = (int)(x[i] * 100.0f);
    r[i] = (float)i / 3 + (float)q[i];
    d[i] = (double)x[i] * 0.1;
    u[i] = (unsigned)(x[i] * 1000.0f + 1000.0f) + (unsigned)q[i];
  }
}
""", [{"n": 17, "x": 17, "q": 17, "r": 17, "d": 17, "u": 17}]),
    "unsigned_arithmetic": ("""
void f(int n, const unsigned *a, unsigned *out, int *cmp) {
  for (int i = 0; i < n; i++) {
    unsigned v = a[i] * 2654435761u + (unsigned)i;
    out[i] = (v >> 7) ^ (v / 3u) ^ (v % 5u);
    cmp[i] = (v > 2147483648u) + (a[i] - 8u < 4u);
  }
}
""", [{"n": 17, "a": 17, "out": 17, "cmp": 17}]),
    "signed_division": ("""
void f(int n, const int *a, int *out) {
  for (int i = 0; i < n; i++)
    out[i] = a[i] / 3 + a[i] % 3 * 10 + (a[i] >> 1) * 100 - (-a[i] / 2);
}
""", [{"n": 17, "a": 17, "out": 17}]),
    "ternary_with_guarded_load": ("""
void f(int n, const float *x, float *y) {
  for (int i = 0; i < n; i++)
    y[i] = (i + 1 < n) ? x[i + 1] : 0.0f;
  for (int i = 0; i < n; i++)
    y[i] += (i > 0 && x[i - 1] > 0.0f) ? 1.0f : -1.0f;
  for (int i = 0; i < n; i++)
    y[i] += (i == 0 || x[i - 1] < 0.0f) ? 0.5f : 0.25f;
}
""", [{"n": 17, "x": 17, "y": 17}, {"n": 1, "x": 1, "y": 1}]),
    "math_calls": ("""
void f(int n, const float *x, float *y, double *z, int *k) {
  for (int i = 0; i < n; i++) {
    float v = x[i];
    y[i] = sqrtf(fabsf(v)) + expf(v) - logf(1.0f + v * v) + powf(fabsf(v), 1.5f)
           + fminf(v, 0.25f) * fmaxf(v, -0.25f) + floorf(v * 4.0f) + ceilf(v) + sinf(v) * cosf(v)
           + min(v, 0.5f) + max(v, -0.5f);
    z[i] = sin((double)v) + exp(v) + sqrt(fabs(v)) + log(2.0 + v) * pow(v, 3.0) + cos(v);
    k[i] = min(i, 7) + max(i - n, -3);
  }
}
""", [{"n": 17, "x": 17, "y": 17, "z": 17, "k": 17}]),
    "reduction_max": ("""
void f(int n, const float *x, float *out) {
  float m = -1000.0f;
#pragma omp parallel for reduction(max : m)
  for (int i = 0; i < n; i++)
    m = fmaxf(m, x[i]);
  out[0] = m;
}
""", [{"n": 17, "x": 17, "out": 1}, {"n": 0, "x": 1, "out": 1}]),
    "long_and_size_t_indices": ("""
void f(long n, size_t m, const double *x, double *y) {
  for (long i = 0; i < n; i++)
    for (size_t j = 0; j < m; j++)
      y[i * m + j] = x[j * n + i] * 2.0;
}
""", [{"n": 5, "m": 3, "x": 15, "y": 15}, {"n": 0, "m": 3, "x": 1, "y": 1}]),
    "integer_overflow_wraps": ("""
void f(int n, const int *a, int *out) {
  for (int i = 0; i < n; i++)
    out[i] = a[i] * 1000003 * 1000003 + 2147483647;
}
""", [{"n": 17, "a": 17, "out": 17}]),
    "if_else_accumulation": ("""
void f(int n, const int *a, int *total) {
  int s = 0;
  for (int i = 0; i < n; i++)
    if (a[i] > 0)
      s += a[i];
    else if (a[i] < -4)
      s -= 2 * a[i];
    else
      s = s * 3 - 1;
  total[0] = s;
}
""", [{"n": 17, "a": 17, "total": 1}, {"n": 0, "a": 1, "total": 1}]),
    "decreasing_to_negative_bounds": ("""
void f(int n, int *out) {
  int k = 0;
  for (int i = n; i >= -5; i -= 3) {
    out[k] = i;
    k++;
  }
  out[9] = k;
}
""", [{"n": 20, "out": 10}, {"n": -5, "out": 10}, {"n": -9, "out": 10}, {"n": 0, "out": 10}]),
    "not_equal_and_runtime_step_loops": ("""
void f(int n, int s, int *out) {
  for (int i = 0; i != n; i++)
    out[i] = i * i;
  int k = 0;
  for (int i = 1; i <= n; i += s) {
    out[k] += i;
    k++;
  }
}
""", [{"n": 13, "s": 3, "out": 13}, {"n": 0, "s": 2, "out": 1}]),
    "compound_assignment_conversions": ("""
void f(int n, float *x, float *y) {
  for (int i = 0; i < n; i++) {
    x[i] *= 0.1;
    y[i] += i;
    y[i] /= 3;
    x[i] -= 0.1f;
  }
}
""", [{"n": 17, "x": 17, "y": 17}]),
    "usual_arithmetic_conversions": ("""
void f(int n, unsigned m, const int *a, int *out, long *wide, unsigned *u) {
  for (int i = 0; i < n; i++) {
    out[i] = (a[i] < m) + (a[i] < (int)m) * 2 + (a[i] * 3u > 10u) * 4;
    wide[i] = a[i] * 1000000000 + (long)a[i] * 1000000000 + a[i] + 2147483648;
    u[i] = a[i] + 0x80000000;
    out[i] += (a[i] < 0x80000000) * 8;
  }
}
""", [{"n": 17, "m": 5, "a": 17, "out": 17, "wide": 17, "u": 17}]),
    "logical_and_bitwise_values": ("""
void f(int n, const int *a, const int *b, int *out) {
  for (int i = 0; i < n; i++)
    out[i] = ((a[i] > 0) && (b[i] < 0)) + ((a[i] == 0) || (b[i] > 2)) * 2 + (!a[i]) * 4
             + (~a[i]) * 8 + (-(unsigned)b[i] > 5u) * 16;
}
""", [{"n": 17, "a": 17, "b": 17, "out": 17}]),
    "guarded_division": ("""
void f(int n, const int *a, int *out, int *big) {
  for (int i = 0; i < n; i++) {
    out[i] = a[i] != 0 ? 100 / a[i] : -1;
    big[i] = a[i] != 0 && 100 / a[i] > 20;
  }
}
""", [{"n": 17, "a": 17, "out": 17, "big": 17}]),
    "nan_comparisons": ("""
void f(int n, const float *x, int *out) {
  for (int i = 0; i < n; i++) {
    float v = x[i] / (x[i] - x[i]);
    out[i] = (v < 1) + (v != v) * 2 + (v >= 0) * 4 + !(v > 0) * 8;
  }
}
""", [{"n": 17, "x": 17, "out": 17}]),
    "min_max_and_math_promotions": ("""
void f(int n, const int *a, const unsigned *b, const float *x, int *out, float *y, double *z) {
  for (int i = 0; i < n; i++) {
    out[i] = min(a[i], b[i]) + max(a[i], 3) * 100;
    y[i] = max(x[i], a[i]) + min(x[i], 0.5) + fabs(x[i]) + pow(x[i], 2) + expf(z[i]) + sqrt(i);
    z[i] = sqrtf(i) + floor(x[i] * 3);
  }
}
""", [{"n": 17, "a": 17, "b": 17, "x": 17, "out": 17, "y": 17, "z": 17}]),
    "collapse_with_reductions": ("""
void f(int n, int m, const float *x, float *out, int *cnt) {
  float s = 0.0f;
  int c = 0;
#pragma omp parallel for collapse(2) reduction(+: s, c)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      s += x[i * m + j];
      c += x[i * m + j] > 0;
    }
  out[0] = s;
  cnt[0] = c;
}
""", [{"n": 5, "m": 7, "x": 35, "out": 1, "cnt": 1}, {"n": 0, "m": 7, "x": 1, "out": 1, "cnt": 1}]),
    "every_reduction_operator": ("""
void f(int n, const int *a, int *out) {
  int p = 1, mn = 100, mx = -100, x = 0, o = 0, an = -1, l = 1, lo = 0;
#pragma omp parallel for reduction(*: p) reduction(min: mn) reduction(max: mx) reduction(^: x) \\
    reduction(|: o) reduction(&: an) reduction(&&: l) reduction(||: lo)
  for (int i = 0; i < n; i++) {
    p *= a[i] | 1;
    mn = min(mn, a[i]);
    mx = max(mx, a[i]);
    x ^= a[i];
    o |= a[i];
    an &= a[i];
    l = l && a[i];
    lo = lo || a[i] > 5;
  }
  out[0] = p; out[1] = mn; out[2] = mx; out[3] = x;
  out[4] = o; out[5] = an; out[6] = l; out[7] = lo;
}
""", [{"n": 17, "a": 17, "out": 8}, {"n": 0, "a": 1, "out": 8}]),
    "scalar_parameter_reassigned": ("""
void f(int n, float a, float *y) {
  while (n > 0) {
    n--;
    y[n] = a;
    a = a * 0.5f;
  }
}
""", [{"n": 5, "a": 1.5, "y": 5}, {"n": 0, "a": 1.5, "y": 1}]),
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_construct_interpreted_matches_gcc(name: str):
    source, cases = SNIPPETS[name]
    for sizes in cases:
        for seed in range(2):
            check_against_gcc(source, "f", sizes, f"{name}.c", seed)


def test_unsigned_loop_bounds_across_2_pow_31():
    """An unsigned loop whose bounds lie on both sides of 2**31 runs as in C (the frontend counts
    32-bit unsigned loops in i64, since scf.for compares signed)."""
    source = """
void f(unsigned n, int *out) {
  int k = 0;
  for (unsigned i = n - 3; i < n; i++) {
    out[k] = (int)i;
    k++;
  }
}
"""
    check_against_gcc(source, "f", {"n": 2**31 + 1, "out": 3}, "unsigned_loop.c")
