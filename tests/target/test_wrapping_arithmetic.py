"""Wrapping integer arithmetic in the emitted CUDA: never a signed overflow where C has none.

`arith.addi/subi/muli/shli` wrap unless they carry `overflow<nsw>` (docs/ir.md, "Integer
overflow"): the frontend puts `nsw` on C's own signed arithmetic only, passes on what they can
prove, and the `cuda` target prints the rest in unsigned C types, which wrap. These tests run
unsigned kernels whose 32-bit values cross 2^31 through the pipelines, on the CPU emulation
built with `-fsanitize=signed-integer-overflow -fno-sanitize-recover` (so a signed overflow
aborts instead of wrapping as `-fwrapv` would let it), and compare with gcc's serial build.
"""

from __future__ import annotations

import pytest
from lowered_differential import cuda_of
from pass_differential import parsed_c
from paths import EXAMPLES
from sanitized_emulation import run_sanitized
from test_unsigned_indices import FROM, MATMUL, REVERSE, SHIFT, STENCIL, matmul, reverse, shift
from test_unsigned_indices import stencil as stencil_sizes
from xdsl.dialects import arith

from autogpu.passes.gpu_infer_nsw import has_nsw

PIPELINES = [
    "autogpu-vanilla",
    "autogpu-optimize{unroll_x=2}",
    "autogpu-optimize{block_size=32 block_y=4 unroll_x=4 unroll_y=2 unroll_serial=4}",
]

NEAR = """
void near(unsigned k, unsigned n, float *a) {
  #pragma omp parallel for
  for (unsigned i = k; i < n; i++)
    a[i + 7u] = (float)(i - k) + 1.0f;
}
"""
"""`i + 7u` crosses 2^31: printed as `(int)i + 7` it overflowed (undefined in CUDA)."""

SCALED = """
void scaled(unsigned n, unsigned s, float *a) {
  #pragma omp parallel for
  for (unsigned i = 0; i < n; i++)
    a[i * s + 1u] = (float)i + 1.0f;
}
"""
"""`i * s` reaches 2^31 for i = 2, s = 2^30."""

ROWS = """
void rows(unsigned n, unsigned m, unsigned base, const float *x, float *a) {
  #pragma omp parallel for
  for (unsigned i = 0; i < n; i++) {
    float s = 0.0f;
    for (unsigned k = 0; k < m; k++)
      s += x[base + k] * (float)(k + 1u);
    a[base + i] = s;
  }
}
"""
"""Every thread reads x[base + k]: gpu-cache-shared tiles it (its tile bases cross 2^31)."""

BIG_JOBS: dict[str, tuple[str, str, list[int], list[dict[int, float]]]] = {
    "near": (NEAR, "near", [2**31 - 12, 2**31 + 4], [{}]),
    "scaled": (SCALED, "scaled", [3, 2**30], [{}]),
    "rows": (ROWS, "rows", [8, 9, 2**31 - 5],
             [{2**31 - 5 + k: float(k + 1) for k in range(9)}, {}]),
}  # fmt: skip


@pytest.mark.parametrize("name", list(BIG_JOBS))
def test_values_crossing_2_pow_31_never_overflow_signed(name: str):
    source, function, scalars, arrays = BIG_JOBS[name]
    run_sanitized({"kind": "big", "source": source, "function": function, "scalars": scalars,
                   "arrays": arrays, "pipelines": PIPELINES})


@pytest.mark.parametrize(
    "source, function, cases",
    [(SHIFT, "shift", [shift(300, 4), shift(3, 7)]),
     (REVERSE, "reverse", [reverse(260), reverse(1)]),
     (FROM, "from", [{"n": 2**32 - 3, "k": 4, "m": 300, "x": 300, "y": 300}]),
     (STENCIL, "stencil", [stencil_sizes(40, 37)]),
     (MATMUL, "matmul", [matmul(33, 40, 17)])],
    ids=["shift", "reverse", "from", "stencil", "matmul"],
)  # fmt: skip
def test_unsigned_wrap_around_never_overflows_signed(
    source: str, function: str, cases: list[dict[str, int]]
):
    """The wrap-around kernels of test_unsigned_indices (`x[i + off]` with off = -k, `i * -1u`)
    under the sanitizer: their unsigned arithmetic is printed as unsigned."""
    run_sanitized({"kind": "cases", "source": source, "function": function, "cases": cases,
                   "pipelines": PIPELINES[2:]})


def test_example_from_the_issue_prints_unsigned_arithmetic():
    """`a[i + 7u]` on an unsigned i: `(unsigned)gid_x + 7u`, never `(int)gid_x + 7`."""
    source = """
void u(unsigned n, unsigned off, float *restrict a) {
#pragma omp parallel for
  for (unsigned i = 0; i < n; i++) a[i + 7u] = 1.0f;
}
"""
    for pipeline in ("autogpu-vanilla", "autogpu-optimize{unroll_x=2}"):
        text = cuda_of(source, pipeline).source
        assert "a[(unsigned)gid_x + 7u] = 1.0f;" in text, text
        assert "(int)gid_x" not in text


def test_frontend_marks_signed_arithmetic_only():
    """C's `+ - * <<` on int and long carry nsw; on unsigned types, and the frontend's own loop
    arithmetic, none."""
    module = parsed_c("""
void f(int a, unsigned b, long c, unsigned long d, int *x) {
  x[0] = a + 1; x[1] = (int)(b + 1u); x[2] = (int)(c * 3); x[3] = (int)(d * 3u);
  x[4] = a << 2; x[5] = (int)(b << 2); x[6] = -a; x[7] = (int)(c - 1);
}
""")
    ops = [op for op in module.walk()
           if isinstance(op, arith.AddiOp | arith.SubiOp | arith.MuliOp | arith.ShLIOp)]
    assert [has_nsw(op) for op in ops] == [True, False, True, False, True, False, True, True]


@pytest.mark.parametrize(
    "example, function, cases",
    [("matmul.c", "matmul", [{"m": 37, "n": 5, "p": 19, "A": 37 * 5, "B": 37 * 19, "C": 19 * 5}]),
     ("conv2d.c", "conv2d", [{"n": 35, "m": 6, "t": 3, "out": 35 * 6, "in": 37 * 8,
                              "tmpl": 9}])],
    ids=["matmul", "conv2d"],
)  # fmt: skip
def test_signed_examples_never_overflow(
    example: str, function: str, cases: list[dict[str, int]]
):
    """The paper's signed kernels, cached and unrolled: the `nsw` the passes and gpu-infer-nsw
    put on index arithmetic is never wrong (the sanitizer would abort)."""
    source = (EXAMPLES / example).read_text()
    run_sanitized({"kind": "cases", "source": source, "function": function, "cases": cases,
                   "pipelines": PIPELINES[1:]})
