"""Unsigned and 64-bit indices and loops, against gcc's build of the serial C.

C reads `a[e]` at element `(size_t)e` for an unsigned `e` (zero-extended) and `(ptrdiff_t)e` for
a signed one; unsigned arithmetic wraps modulo 2^32 (`a[i + off]` with `off = 4294967295u` is
`a[i - 1]`), and `long`/`size_t` arithmetic is 64-bit. Every kernel here runs on the frontend's
IR and after the agpu passes (the interpreter), and lowered by autogpu-vanilla and
autogpu-optimize (with and without specialised sizes) on the CPU emulation: each must leave what
gcc's serial build leaves. `test_indices_beyond_2_pow_31` indexes an array of 2^31 + 16 floats
(mapped lazily: only the pages touched are ever allocated) at 2^31 and up.
"""

from __future__ import annotations

import functools
import mmap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from lowered_differential import agree_with_gcc, cuda_of, gcc_reference, one_translation_unit
from pass_differential import parsed_c, transformed
from xdsl.dialects.builtin import ModuleOp

import autogpu
from autogpu.interpreters import run_function
from autogpu.passes.agpu_stage_accumulations import AgpuStageAccumulationsPass
from autogpu.runtime.arguments import KernelArgumentError, KernelLaunchError
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.testing.nvcc import assert_compiles_with_nvcc

SHIFT = """
void shift(unsigned n, unsigned k, unsigned off, const float *x, float *y) {
  #pragma omp parallel for
  for (unsigned i = k; i < n; i++)
    y[i] = x[i + off] + 1.0f;
}
"""
"""`off = 2^32 - k` reads x[i - k] through unsigned wrap-around."""

REVERSE = """
void reverse(unsigned n, unsigned stride, unsigned last, const float *x, float *y) {
  #pragma omp parallel for
  for (unsigned i = 0; i < n; i++)
    y[i * stride + last] = x[i] * 2.0f;
}
"""
"""`stride = 4294967295u` (-1) and `last = n - 1`: y[n - 1 - i], a product that wraps."""

FROM = """
void from(unsigned n, unsigned k, unsigned m, const float *x, float *y) {
  #pragma omp parallel for
  for (unsigned i = n + k; i < m; i++)
    y[i] = x[i] * 3.0f;
}
"""
"""A start that wraps (n + k = 1): the launch must count m - 1 iterations, not m - 2^32 - 1."""

DOWN = """
void down(unsigned n, const float *x, float *y) {
  #pragma omp parallel for
  for (unsigned i = n; i > 0; i--)
    y[i - 1u] = x[n - i] + (float)i;
}
"""
"""A decreasing unsigned loop down to 1, indexing with i - 1u."""

DOWN_STEP = """
void down_step(unsigned n, unsigned s, float *y) {
  #pragma omp parallel for
  for (unsigned i = n; i >= s; i -= s)
    y[i - s] = (float)i;
}
"""

WRAP_DOWN = """
void wrap_down(unsigned n, const float *x, float *y) {
  #pragma omp parallel for
  for (unsigned i = n - 1u; i != 4294967295u; i--)
    y[i] = x[n - 1u - i] * 0.5f;
}
"""
"""`i != -1u`: the reverse loop idiom, wrapping from 0 to 4294967295 to stop (n iterations)."""

SIZE_T_DOWN = """
void size_t_down(size_t n, size_t s, const float *x, float *y) {
  #pragma omp parallel for
  for (size_t i = n; i >= s; i -= s)
    y[i - s] = x[i % 7] + 1.0f;
}
"""
"""A decreasing size_t loop: once refused ('arith.select' in the launch size)."""

LONG_INT_BOUND = """
void long_int(int n, int m, const float *x, float *y) {
  #pragma omp parallel for collapse(2)
  for (long i = 0; i < n; i++)
    for (size_t j = 0; j < (size_t)m; j++)
      y[i * m + j] = x[j * n + i] - 1.0f;
}
"""
"""`long`/`size_t` loops with `int` bounds: the launch size is computed from casts of n, m."""

SIGNED_64 = """
void mirror(long n, long stride, long last, const float *x, float *y) {
  #pragma omp parallel for
  for (long i = 0; i < n; i++)
    y[i * stride + last] = x[i];
}
"""

STENCIL = """
void stencil(unsigned n, unsigned m, const float *in, float *out) {
  #pragma omp parallel for collapse(2)
  for (unsigned i = 1; i < n - 1; i++)
    for (unsigned j = 1; j < m - 1; j++)
      out[i * m + j] = in[(i - 1u) * m + j] + in[(i + 1u) * m + j] + in[i * m + j - 1u]
                     + in[i * m + j + 1u];
}
"""
"""Unsigned rows and columns: gpu-cache-shared tiles these loads (zero-extended)."""

MATMUL = """
void matmul(unsigned m, unsigned n, unsigned p, const float *A, const float *B, float *C) {
  #pragma omp parallel for collapse(2)
  for (unsigned i = 0; i < m; i++)
    for (unsigned j = 0; j < n; j++) {
      float acc = 0.0f;
      for (unsigned k = 0; k < p; k++)
        acc += A[i * p + k] * B[k * n + j];
      C[i * n + j] = acc;
    }
}
"""

WRAP = 2**32


def shift(n: int, k: int) -> dict[str, int]:
    return {"n": n, "k": k, "off": (WRAP - k) % WRAP, "x": max(n, 1), "y": max(n, 1)}


def reverse(n: int) -> dict[str, int]:
    return {"n": n, "stride": WRAP - 1, "last": max(n - 1, 0), "x": max(n, 1), "y": max(n, 1)}


def stencil(n: int, m: int) -> dict[str, int]:
    return {"n": n, "m": m, "in": max(n * m, 1), "out": max(n * m, 1)}


def matmul(m: int, n: int, p: int) -> dict[str, int]:
    return {"m": m, "n": n, "p": p, "A": max(m * p, 1), "B": max(p * n, 1), "C": max(m * n, 1)}


KERNELS: list[tuple[str, str, str, list[dict[str, int]]]] = [
    ("shift", SHIFT, "shift", [shift(10, 1), shift(300, 4), shift(0, 1), shift(1, 1),
                               shift(5, 0), shift(3, 7)]),
    ("reverse", REVERSE, "reverse", [reverse(9), reverse(1), reverse(0), reverse(260)]),
    ("from", FROM, "from", [{"n": n, "k": k, "m": m, "x": max(m, 1), "y": max(m, 1)}
                            for n, k, m in ((WRAP - 3, 4, 300), (0, 5, 10), (7, 0, 0),
                                            (WRAP - 1, 1, 1))]),
    ("down", DOWN, "down", [{"n": n, "x": max(n, 1), "y": max(n, 1)} for n in (0, 1, 7, 300)]),
    ("down-step", DOWN_STEP, "down_step",
     [{"n": n, "s": s, "y": n + 1} for n, s in ((10, 3), (9, 3), (1, 1), (0, 5), (300, 7))]),
    ("wrap-down", WRAP_DOWN, "wrap_down",
     [{"n": n, "x": max(n, 1), "y": max(n, 1)} for n in (0, 1, 5, 300)]),
    ("size-t-down", SIZE_T_DOWN, "size_t_down",
     [{"n": n, "s": s, "x": 7, "y": n + 1} for n, s in ((10, 3), (9, 3), (2, 3), (300, 1))]),
    ("long-int", LONG_INT_BOUND, "long_int",
     [{"n": n, "m": m, "x": max(n * m, 1), "y": max(n * m, 1)}
      for n, m in ((3, 5), (1, 1), (0, 4), (-2, 3), (17, 33))]),
    ("signed-64", SIGNED_64, "mirror",
     [{"n": n, "stride": -1, "last": max(n - 1, 0), "x": max(n, 1), "y": max(n, 1)}
      for n in (0, 1, 9, 300)]),
    ("stencil", STENCIL, "stencil", [stencil(n, m) for n, m in ((7, 9), (3, 3), (1, 5), (40, 37),
                                                              (2, 300))]),
    ("matmul", MATMUL, "matmul", [matmul(5, 7, 3), matmul(1, 1, 1), matmul(0, 3, 2),
                                  matmul(33, 40, 17)]),
]  # fmt: skip

PIPELINES = [
    "autogpu-vanilla",
    "autogpu-optimize",
    "autogpu-optimize{block_size=32 block_y=4 unroll_x=2 unroll_y=2 unroll_serial=4}",
]
KERNEL_IDS = [name for name, *_ in KERNELS]


class Interpreted:
    """The reference interpreter as a runner of `agree_with_gcc`."""

    def __init__(self, module: ModuleOp):
        self.module = module

    def run(self, function: str, *args: Any) -> None:
        run_function(self.module, function, list(args))


@pytest.mark.parametrize("name, source, function, cases", KERNELS, ids=KERNEL_IDS)
def test_interpreter_agrees_with_gcc(
    name: str, source: str, function: str, cases: list[dict[str, int]]
):
    """The frontend's IR, and after agpu-stage-accumulations, compute what gcc does."""
    staged = transformed(parsed_c(source), AgpuStageAccumulationsPass(assume_no_alias=True))
    for module in (parsed_c(source), staged):
        agree_with_gcc(Interpreted(module), source, function, cases)


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("name, source, function, cases", KERNELS, ids=KERNEL_IDS)
def test_cpu_emulation_agrees_with_gcc(
    name: str, source: str, function: str, cases: list[dict[str, int]], pipeline: str
):
    program = cuda_of(source, pipeline)
    runner = CpuProgram(program.source, program.launch, threads=2)
    agree_with_gcc(runner, source, function, cases)


@pytest.mark.parametrize(
    "source, function, case",
    [(SHIFT, "shift", shift(300, 4)), (REVERSE, "reverse", reverse(260)),
     (FROM, "from", {"n": WRAP - 3, "k": 4, "m": 300, "x": 300, "y": 300}),
     (STENCIL, "stencil", stencil(40, 37)), (MATMUL, "matmul", matmul(33, 40, 17))],
    ids=["shift", "reverse", "from", "stencil", "matmul"],
)  # fmt: skip
def test_specialised_sizes_agree_with_gcc(source: str, function: str, case: dict[str, int]):
    """Sizes compiled in (agpu-specialize): unsigned constants such as 4294967295u stay
    unsigned in the kernels and in the launch sizes."""
    scalars = {k: v for k, v in case.items() if k in ("n", "m", "p", "k", "off", "stride", "last")}
    sizes = ",".join(f"{k}={v}" for k, v in scalars.items())
    program = cuda_of(source, f'autogpu-optimize{{sizes="{sizes}"}}')
    agree_with_gcc(CpuProgram(program.source, program.launch, threads=2), source, function, [case])


def test_every_kernel_compiles_with_nvcc():
    programs = [cuda_of(source, pipeline) for _, source, _, _ in KERNELS for pipeline in PIPELINES]
    assert_compiles_with_nvcc(one_translation_unit(programs))


def test_specialised_unsigned_size_launches_every_block():
    """n = 4294967295u compiled in: the grid covers all of it (it once read n as -1: 1 block)."""
    program = cuda_of(SHIFT, 'autogpu-optimize{sizes="n=4294967295"}')
    (entry,) = program.launch["functions"][0]["launches"]
    assert entry["grid"][0] == "max((4294967295 - k + 255) / 256, 1)"


# --- indices at 2^31 and beyond -----------------------------------------------------------------

BIG = 2**31 + 16
"""Elements of the big arrays: indices 2^31 .. 2^31 + 15 are in range."""

OFFSET = """
void offset(unsigned n, unsigned off, float *a) {
  #pragma omp parallel for
  for (unsigned i = 0; i < n; i++)
    a[off + i] = (float)(i + 1u);
}
"""

HIGH_DOWN = """
void high_down(unsigned n, unsigned top, float *a) {
  #pragma omp parallel for
  for (unsigned i = n; i > 0; i--)
    a[top - i] = (float)i;
}
"""


def lazy_zeros(count: int) -> np.ndarray:
    """A zero float32 array whose pages are only allocated when touched (no reservation)."""
    flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_NORESERVE", 0)
    buffer = mmap.mmap(-1, count * 4, flags=flags)
    return np.frombuffer(buffer, dtype=np.float32)


def touched(array: np.ndarray, windows: Sequence[tuple[int, int]]) -> list[np.ndarray]:
    return [array[lo:hi].copy() for lo, hi in windows]


WINDOWS = [(0, 64), (2**30, 2**30 + 64), (2**31 - 64, BIG)]


def run_big(run: Callable[..., Any], scalars: Mapping[str, int]) -> list[np.ndarray]:
    """The windows of a big array after `run(*scalars, array)` (scanning all 8 GiB would take
    seconds: a write to a[-2^31] faults before the array instead)."""
    a = lazy_zeros(BIG)
    run(*scalars.values(), a)
    return touched(a, WINDOWS)


@pytest.mark.parametrize(
    "source, function, scalars",
    [(OFFSET, "offset", {"n": 4, "off": 2**31}),
     (OFFSET, "offset", {"n": 16, "off": 2**31}),
     (OFFSET, "offset", {"n": 3, "off": 2**31 - 1}),
     (HIGH_DOWN, "high_down", {"n": 5, "top": 2**31 + 5})],
    ids=["off-2^31", "off-2^31-n16", "across-2^31", "down-to-2^31"],
)  # fmt: skip
def test_indices_beyond_2_pow_31(source: str, function: str, scalars: dict[str, int]):
    """An unsigned index of 2^31 and more is a[2^31 + ...], not a[-2^31 + ...] (the CPU
    emulation once wrote 8 GiB before the array)."""
    expected = run_big(gcc_reference(source, function), scalars)
    runners: list[Any] = [Interpreted(parsed_c(source))]
    for pipeline in ("autogpu-vanilla", "autogpu-optimize"):
        program = cuda_of(source, pipeline)
        runners.append(CpuProgram(program.source, program.launch, threads=2))
    for runner in runners:
        run = functools.partial(runner.run, function)
        for actual, wanted in zip(run_big(run, scalars), expected):
            np.testing.assert_array_equal(actual, wanted)


def test_api_checks_array_sizes_beyond_2_pow_31(tmp_path: Path):
    """The API's size check reads a[off + i] as C does: off = 2^31 needs 2^31 + n elements (it
    once asked for 2^32, rejecting a big enough array)."""
    path = tmp_path / "offset.c"
    path.write_text(OFFSET)
    kernel = autogpu.compile(str(path), pipeline="autogpu-vanilla")
    big = lazy_zeros(BIG)
    kernel(4, 2**31, big)
    np.testing.assert_array_equal(big[2**31 - 1 : 2**31 + 5], [0, 1, 2, 3, 4, 0])
    with pytest.raises(KernelArgumentError, match="pass at least 2147483652"):
        kernel(4, 2**31, np.zeros(8, np.float32))


def test_grid_beyond_cuda_limits_is_refused():
    """A long loop of 2^40 iterations needs more than 2^31 - 1 blocks of 256: refused before
    anything runs, never launched with a truncated grid."""
    program = cuda_of(SIGNED_64, "autogpu-vanilla")
    runner = CpuProgram(program.source, program.launch, threads=2)
    x = np.zeros(1, np.float32)
    with pytest.raises(KernelLaunchError, match="grid extents"):
        runner.run("mirror", 2**40, 1, 0, x, x.copy())


# --- unsigned long loops beyond 2^63 ------------------------------------------------------------

HIGH_UL = """
void ul(unsigned long lo, unsigned long n, float *restrict a) {
  #pragma omp parallel for
  for (unsigned long i = lo; i < n; i++)
    a[i - lo] = 1.0f;
}
"""


@pytest.mark.parametrize(
    "lo, n",
    [(2**63 + 2, 2**63 + 10), (2**64 - 5, 2**64 - 1), (2**63 + 9, 2**63 + 3)],
    ids=["above-2^63", "below-2^64", "n<lo"],
)  # fmt: skip
def test_unsigned_long_loop_beyond_2_pow_63(lo: int, n: int):
    """The launch computes `n - lo` in unsigned long as C does (it once refused 8 iterations
    from 2^63 + 2: 'overflows 64-bit integers'); every element written, nothing else."""
    expected = gcc_reference(HIGH_UL, "ul")
    wanted = np.zeros(8, np.float32)
    expected(lo, n, wanted)
    for pipeline in PIPELINES:
        program = cuda_of(HIGH_UL, pipeline)
        actual = np.zeros(8, np.float32)
        CpuProgram(program.source, program.launch, threads=2).run("ul", lo, n, actual)
        np.testing.assert_array_equal(actual, wanted)
    assert (wanted == 1.0).sum() == max(n - lo, 0)


UL_FORMS = """
void up(unsigned long lo, unsigned long n, unsigned long s, float *restrict a) {
  #pragma omp parallel for
  for (unsigned long i = lo; i < n; i += s)
    a[(i - lo) / s] = (float)((i - lo) % 1000u) + 1.0f;
}

void up_inclusive(unsigned long lo, unsigned long n, float *restrict a) {
  #pragma omp parallel for
  for (unsigned long i = lo; i <= n; i++)
    a[i - lo] = (float)(i & 255u) + 1.0f;
}

void down(unsigned long hi, unsigned long n, unsigned long s, float *restrict a) {
  #pragma omp parallel for
  for (unsigned long i = hi; i > n; i -= s)
    a[(hi - i) / s] = (float)((hi - i) % 1000u) + 1.0f;
}

void down_inclusive(unsigned long hi, unsigned long n, float *restrict a) {
  #pragma omp parallel for
  for (unsigned long i = hi; i >= n; i--)
    a[hi - i] = (float)(i & 255u) + 1.0f;
}

void until(unsigned long lo, unsigned long n, float *restrict a) {
  #pragma omp parallel for
  for (size_t i = lo; i != n; i++)
    a[i - lo] = 2.0f;
}

void exit_value(unsigned long lo, unsigned long n, unsigned long s, unsigned long *out) {
  unsigned long i;
  for (i = lo; i < n; i += s)
    out[1] += 1u;
  out[0] = i;
}
"""
"""64-bit unsigned loops whose bounds straddle 2^63, where a signed i64 comparison inverts
(2^63 - 3 < 2^63 + 5 as unsigned, not as signed), with steps that divide nothing. (A step that
carries the variable past the largest value wraps it in C and the loop goes on: canonical loops
assume it does not, docs/ir.md; no case here does.)"""

TOP = 2**63
UL_CASES: list[tuple[str, list[tuple[int, ...]]]] = [
    ("up", [(TOP - 3, TOP + 5, 1), (TOP - 3, TOP + 5, 3), (TOP + 5, TOP - 3, 1), (TOP, TOP, 1),
            (2**64 - 7, 2**64 - 1, 3), (2**62 - 1, 2**64 - 1, 2**62), (0, 1, 1), (TOP - 1, TOP, 2)]),
    ("up_inclusive", [(TOP - 3, TOP + 5), (TOP + 5, TOP - 3), (TOP, TOP), (2**64 - 8, 2**64 - 2)]),
    ("down", [(TOP + 5, TOP - 3, 1), (TOP + 5, TOP - 3, 3), (TOP - 3, TOP + 5, 1),
              (2**64 - 1, 2**64 - 9, 2), (2**64 - 1, 2**62 + 5, 2**62), (TOP, TOP, 1), (1, 0, 1)]),
    ("down_inclusive", [(TOP + 5, TOP - 3), (TOP - 3, TOP + 5), (TOP, TOP), (7, 1)]),
    ("until", [(TOP - 3, TOP + 5), (TOP, TOP), (2**64 - 2, 2**64 - 1)]),
]  # fmt: skip


@pytest.mark.parametrize("function, cases", UL_CASES, ids=[f for f, _ in UL_CASES])
def test_unsigned_long_loops_across_2_pow_63(function: str, cases: list[tuple[int, ...]]):
    """Each form of 64-bit unsigned loop counts its iterations in unsigned arithmetic: the
    frontend's IR (interpreted) and both pipelines on the CPU emulation leave what gcc leaves
    (they once ran none of 8 iterations from 2^63 - 3, or wrote past the array)."""
    calls = [dict(zip(("lo", "n", "s") if function.startswith("up") or function == "until"
                       else ("hi", "n", "s"), case)) | {"a": 16} for case in cases]
    runners: list[Any] = [Interpreted(parsed_c(UL_FORMS))]
    for pipeline in PIPELINES:
        program = cuda_of(UL_FORMS, pipeline)
        runners.append(CpuProgram(program.source, program.launch, threads=2))
    for runner in runners:
        agree_with_gcc(runner, UL_FORMS, function, calls)


def test_unsigned_long_exit_value_across_2_pow_63():
    """A serial 64-bit unsigned loop leaves C's exit value in its variable (start + trip *
    step, with the trip counted in unsigned) after crossing 2^63."""
    cases = [{"lo": lo, "n": n, "s": s, "out": 2}
             for lo, n, s in ((TOP - 3, TOP + 5, 3), (TOP + 5, TOP - 3, 1), (TOP - 1, TOP, 1))]
    runners: list[Any] = [Interpreted(parsed_c(UL_FORMS))]
    for pipeline in ("autogpu-vanilla", "autogpu-optimize"):
        program = cuda_of(UL_FORMS, pipeline)
        runners.append(CpuProgram(program.source, program.launch, threads=2))
    for runner in runners:
        agree_with_gcc(runner, UL_FORMS, "exit_value", cases)


LONG_STEP = """
void long_step(long lo, long n, long s, float *restrict a) {
  #pragma omp parallel for
  for (long i = lo; i < n; i += s)
    a[((i - lo) / s) & 15] = 1.0f;
}
"""
"""A `long` loop whose last iterations lie near LONG_MAX or whose step is near 2^62: the
threads of the last block beyond the trip count would compute lo + gid * s past LONG_MAX,
wrapped below the bound (a guard `i < n` let them write a[15] or a[11..15])."""


def test_long_loop_threads_beyond_the_trip_count_stay_idle():
    """The kernels count k from 0 to the trip count and test k, not i = lo + k * s: both
    pipelines, dense and sparse indexing, leave what gcc leaves (no case steps i past
    LONG_MAX, which C leaves undefined). Bounds whose difference exceeds LONG_MAX are refused
    at launch with a clear error, never launched with a wrong grid."""
    top = 2**63 - 1
    cases = [{"lo": lo, "n": n, "s": s, "a": 16}
             for lo, n, s in ((0, 2**62 + 1, 2**62 - 1), (top - 10, top, 1), (top - 41, top - 6, 7),
                              (-(2**61), 2**62, 2**61 + 1), (5, 5, 1), (-3, 4, 2))]
    runners: list[Any] = [Interpreted(parsed_c(LONG_STEP))]
    for pipeline in [*PIPELINES, "autogpu-optimize{dense_mode=sparse}"]:
        program = cuda_of(LONG_STEP, pipeline)
        runners.append(CpuProgram(program.source, program.launch, threads=2))
    for runner in runners:
        agree_with_gcc(runner, LONG_STEP, "long_step", cases)


def test_launch_config_reads_sizes_in_their_c_types(tmp_path: Path):
    """`Kernel.launch_config` and the tuner read each size as its parameter's C type: lo and n
    straddling 2^63 give 8 iterations, one block; lo = -1 for an `unsigned long` is refused
    (it was evaluated as a signed -1, a launch for a call C cannot make)."""
    from autogpu.tuner import adapter

    path = tmp_path / "ul.c"
    path.write_text(UL_FORMS)
    kernel = autogpu.compile(str(path), function="up", pipeline="autogpu-vanilla")
    sizes = {"lo": TOP - 3, "n": TOP + 5, "s": 3}
    (config,) = kernel.launch_config(**sizes)
    assert config["grid"] == (1, 1, 1)
    with pytest.raises(KernelArgumentError, match="out of range"):
        kernel.launch_config(lo=-1, n=5, s=1)
    with pytest.raises(KernelArgumentError, match="no parameter 'm'"):
        kernel.launch_config(m=5)
    artifact = adapter.compile_variant(UL_FORMS, str(path), "up", "autogpu-vanilla")
    assert adapter.launch_config(artifact, sizes)[0]["grid"] == [1, 1, 1]
    program = cuda_of(LONG_STEP, "autogpu-vanilla")
    runner = CpuProgram(program.source, program.launch, threads=2)
    with pytest.raises(KernelLaunchError, match="overflows 64-bit integers"):
        runner.run("long_step", 7 - 2**63, 2**62, 2**62, np.zeros(16, np.float32))
