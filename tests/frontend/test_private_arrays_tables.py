"""Issue #16's last C pieces against gcc: `private(w)` and `firstprivate(w)` on local arrays
(a per-thread array; firstprivate's copied from the original), and tables (file-scope `static
const` arrays, local arrays of constants) in CUDA `__constant__` memory, or initialised
`__device__` arrays once the module's tables pass the 64 KiB constant bank.

The frontend's IR on the reference interpreter, and the CUDA of both pipelines on the CPU
emulation, leave gcc's outputs bit for bit; nvcc compiles the CUDA.
"""

from __future__ import annotations

import re

import pytest
from lowered_differential import (
    check_against_gcc,
    cuda_of,
    interpreter_agrees_with_gcc,
    one_translation_unit,
)

from autogpu.testing.nvcc import assert_compiles_with_nvcc

BIG = 8200  # doubles: 65600 bytes, more than the 65536 of the constant bank

SOURCE = rf"""
static const float TAPS[4] = {{0.125f, 0.375f, 0.375f, 0.125f}};
static const double BIG[{BIG}] = {{7.5, -3.25, 11.0, 0.1}};
static const short SMALL[3] = {{-2, 5, 9}};

/* private(w): each iteration's own scratch array, written before it is read. */
void scratch(int n, const float *x, float *y) {{
  float w[4];
#pragma omp parallel for private(w)
  for (int i = 0; i < n; i++) {{
    for (int k = 0; k < 4; k++)
      w[k] = x[i] * TAPS[k] + (float)k;
    float s = 0.0f;
    for (int k = 0; k < 4; k++)
      s += w[k] * w[3 - k];
    y[i] = s;
  }}
}}

/* private(acc) with collapse(2): a 2-D array per iteration of the collapsed space. */
void tiles(int n, int m, const int *x, int *out) {{
  int acc[2][3];
#pragma omp parallel for collapse(2) private(acc)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {{
      for (int r = 0; r < 2; r++)
        for (int c = 0; c < 3; c++)
          acc[r][c] = x[i * m + j] * (r + 1) - c;
      out[i * m + j] = acc[1][2] * acc[0][1] + SMALL[(i + j) % 3];
    }}
}}

/* firstprivate(w): each iteration starts from the original's values (a table here), writes
   some elements of its own copy before reading them and reads the others as they started (gcc
   runs the serial C, whose loop writes the original: the same values). */
void start_from(int n, const float *x, float *y) {{
  float w[2][2] = {{{{1.5f, -2.0f}}, {{0.25f, 4.0f}}}};
#pragma omp parallel for firstprivate(w)
  for (int i = 0; i < n; i++) {{
    w[0][1] = x[i] * w[1][1];
    y[i] = w[0][0] + w[0][1] + w[1][0] * w[0][1];
  }}
  y[0] += w[1][0];
}}

/* firstprivate of an array computed at run time (no table): a device array a serial kernel
   fills, which each iteration copies. */
void start_from_runtime(int n, const int *x, int *y) {{
  int w[3] = {{n, 2 * n, -n}};
#pragma omp parallel for firstprivate(w)
  for (int i = 0; i < n; i++) {{
    w[i % 2] = x[i];
    y[i] = w[i % 2] - w[2] * w[(i + 1) % 2 + 1];
  }}
  y[0] += w[2];
}}

/* A table too large for the constant bank (a __device__ array) beside small ones that fit. */
void lookup(int n, const int *idx, double *out) {{
#pragma omp parallel for
  for (int i = 0; i < n; i++) {{
    int k = idx[i] % {BIG};
    k = k < 0 ? k + {BIG} : k;
    out[i] = BIG[k] + BIG[{BIG} - 1] * SMALL[i % 3];
  }}
}}
"""

CASES = {
    "scratch": [{"n": n, "x": n, "y": n} for n in (1, 37)],
    "tiles": [{"n": n, "m": m, "x": n * m, "out": n * m} for n, m in ((1, 1), (5, 7))],
    "start_from": [{"n": n, "x": n, "y": n} for n in (1, 2, 41)],
    "start_from_runtime": [{"n": n, "x": n, "y": n} for n in (1, 3, 40)],
    "lookup": [{"n": n, "idx": n, "out": n} for n in (1, 50)],
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


def test_nvcc_compiles_them():
    assert_compiles_with_nvcc(one_translation_unit([cuda_of(SOURCE, p) for p in PIPELINES]),
                              allow_warnings=False)  # fmt: skip


def test_tables_are_constant_memory_until_the_bank_is_full():
    """Each function's tables are initialised globals, in program order: `__constant__` while
    the module's fit in 64 KiB, `__device__` beyond; no kernel writes them."""
    source = cuda_of(SOURCE, PIPELINES[0]).source
    spaces = dict(
        (name, space)
        for space, name in re.findall(r"^(__constant__|__device__) \w+ (\w+)\[", source, re.M)
    )
    assert spaces == {
        "scratch_TAPS": "__constant__",
        "tiles_SMALL": "__constant__",
        "start_from_w": "__constant__",  # the original of firstprivate(w): all constants
        "start_from_runtime_w": "__device__",  # computed at run time: no table
        "lookup_BIG": "__device__",  # 65600 bytes: past the bank
        "lookup_SMALL": "__constant__",
    }
    assert "__constant__ float scratch_TAPS[4] = {0.125f, 0.375f, 0.375f, 0.125f};" in source
    for table in ("scratch_TAPS", "tiles_SMALL", "start_from_w", "lookup_BIG", "lookup_SMALL"):
        assert not re.search(rf"^ +{table}\[[^]]*\] =", source, re.M), f"a kernel writes {table}"


def test_a_table_past_the_bank_is_a_remark(capsys: pytest.CaptureFixture[str]):
    cuda_of(SOURCE, PIPELINES[0])
    err = capsys.readouterr().err
    assert re.search(
        r"<test>:3:21: remark: convert-agpu-to-gpu: table 'BIG' \(65600 bytes\) is a __device__ "
        r"array: the module's tables exceed the 65536 bytes of __constant__ memory", err
    )
