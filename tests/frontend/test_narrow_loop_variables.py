"""Parallel loops whose variable is a `_Bool`, `char` or `short` (autogpu/frontend/loops.py):
C compares the promoted variable with the bound in `int` and converts each step back, wrapping.
Where the bound's type or constant keeps every value the loop takes (plus its step) in the
variable's range, the loop runs as C's does, counted in `int`: checked against gcc's serial
build on the CPU emulation under both pipelines, with bounds below the start, at the type's
limits, and negative. Where it does not, the loop may never end in C: a located error."""

from __future__ import annotations

import pytest
from lowered_differential import check_against_gcc, cuda_of, one_translation_unit

import autogpu
from autogpu.diagnostics import CompileError
from autogpu.testing.nvcc import assert_compiles_with_nvcc

PIPELINES = ["autogpu-vanilla{block_size=64}", "autogpu-optimize{block_size=32 unroll_x=2}"]

LOOPS = """
void narrow(unsigned char n, signed char lo, short m, unsigned short w, int *a, int *b,
            int *c, int *d, int *e) {
#pragma omp parallel for
  for (unsigned char i = 0; i < n; i++)
    a[i] = i * 3 + 1;
#pragma omp parallel for
  for (signed char j = 127; j > lo; j--)
    b[j + 128] = j;
#pragma omp parallel for
  for (short k = -300; k <= 250; k += 7)
    c[k + 300] = k * k;
#pragma omp parallel for
  for (unsigned short u = w; u != 3; u++)
    d[(unsigned short)(u - w)] = u;
  char x;
#pragma omp parallel for lastprivate(x)
  for (x = 97; x <= 122; x++)
    e[x - 97] = x;
  e[26] = x;
}
"""
"""`d` gets `(3 - w) mod 2^16` elements: the cases keep `w` within a few hundred of 3 by
choosing it (`w` near 0 or just below 2^16, wrapping past the largest value)."""


@pytest.mark.parametrize("pipeline", PIPELINES, ids=["vanilla", "optimize"])
@pytest.mark.parametrize("n, lo, m, w", [(0, 127, 0, 3), (1, 126, 5, 2), (255, -128, -7, 65500),
                                         (200, -3, 300, 0)])  # fmt: skip
def test_narrow_loops_match_gcc(pipeline: str, n: int, lo: int, m: int, w: int):
    case = {"n": n, "lo": lo, "m": m, "w": w, "a": 256, "b": 256, "c": 560, "d": 65536, "e": 27}
    check_against_gcc(LOOPS, "narrow", pipeline, [case], seeds=1)


def test_narrow_loops_compile_with_nvcc():
    programs = [cuda_of(LOOPS, pipeline) for pipeline in PIPELINES]
    assert_compiles_with_nvcc(one_translation_unit(programs), allow_warnings=False)


REFUSED = {
    "int-bound": ("void f(int n, int *a) {\n#pragma omp parallel for\n"
                  "  for (unsigned char i = 0; i < n; i++)\n    a[i] = i;\n}\n",
                  "the loop ends only if the bound is at most 255, but the bound has type 'int'"),
    "constant-too-large": ("void f(int *a) {\n#pragma omp parallel for\n"
                           "  for (signed char i = 0; i < 200; i++)\n    a[i] = i;\n}\n",
                           "the bound is at most 127, but the bound is 200"),
    "inclusive-limit": ("void f(unsigned char n, int *a) {\n#pragma omp parallel for\n"
                        "  for (unsigned char i = 0; i <= n; i++)\n    a[i] = i;\n}\n",
                        "the bound is at most 254, but the bound has type 'unsigned char'"),
    "step-overshoots": ("void f(int *a) {\n#pragma omp parallel for\n"
                        "  for (unsigned char i = 1; i < 254; i += 3)\n    a[i] = i;\n}\n",
                        "the bound is at most 253, but the bound is 254"),
    "decreasing": ("void f(short m, int *a) {\n#pragma omp parallel for\n"
                   "  for (short i = 100; i >= m; i--)\n    a[i + 40000] = i;\n}\n",
                   "the bound is at least -32767, but the bound has type 'short'"),
    "variable-step": ("void f(short s, int *a) {\n#pragma omp parallel for\n"
                      "  for (short i = 0; i < 100; i += s)\n    a[i] = i;\n}\n",
                      "its variable 'i' is a short and its step is not a constant"),
    "unsigned-bound": ("void f(unsigned n, int *a) {\n#pragma omp parallel for\n"
                       "  for (short i = 0; i < n; i++)\n    a[i] = i;\n}\n",
                       "so C compares them as 'unsigned'"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_loops_that_may_not_end_are_located_errors(name: str):
    source, message = REFUSED[name]
    with pytest.raises(CompileError) as info:
        _ = autogpu.compile(source).cuda_source
    error = info.value
    assert message in error.format(), error.format()
    assert error.location is not None
    assert (error.location.line, error.location.column) == (3, 3), error.format()
    assert "'#pragma omp parallel for' needs a canonical for loop" in error.format()


def test_a_serial_loop_that_may_not_end_keeps_c_semantics():
    """Not canonical, a serial loop is a `while` loop: C's wrapping, as written."""
    source = ("void f(int n, int *a) {\n  int k = 0;\n"
              "  for (unsigned char i = 250; i != 4 && k < n; i++) {\n    a[k] = i;\n"
              "    k++;\n  }\n}\n")
    case = {"n": 12, "a": 12}
    check_against_gcc(source, "f", PIPELINES[0], [case], seeds=1)
