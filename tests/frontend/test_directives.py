"""OpenMP directives (autogpu/frontend/directives.py) against gcc: a parallel region and every
combined spelling of a parallel loop, compiled to CUDA and run on the CPU emulation, leave what
gcc's build of the serial C leaves (and, for the region, what gcc -fopenmp's threads leave),
for sizes 0, 1 and non-multiples of the block."""

from __future__ import annotations

import shutil
from typing import Any

import numpy as np
import pytest
from lowered_differential import check_against_gcc, cuda_of, gcc_reference

from autogpu.diagnostics import CompileError
from autogpu.dialects.agpu import ParallelForOp
from autogpu.frontend import parse_c
from autogpu.frontend.directives import DIRECTIVES, PARALLEL, TEAMS, Construct, Kind, classify
from autogpu.frontend.preprocess import Pragma
from autogpu.numeric import is_ndarray
from autogpu.testing import compile_c_reference, copy_args, random_args

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

PIPELINES = ["autogpu-vanilla{block_size=32}", "autogpu-optimize"]

REGION = """
void region(int n, const float *x, float *y, float *z, int *count) {
  int c = 0;
#pragma omp parallel reduction(+: c) num_threads(4)
  {
    float two = 2.0f, scale;
#pragma omp for
    for (int i = 0; i < n; i++) y[i] = two * x[i] + 1.0f;
#pragma omp single copyprivate(scale)
    {
      scale = 0.5f;
      if (n > 0) z[0] = y[n - 1] * 3.0f;
      else z[0] = -1.0f;
    }
#pragma omp for nowait
    for (int i = 0; i < n; i++) {
      z[i + 1] = (y[i] - x[i]) * scale;
      if (z[i + 1] > 1.5f) c++;
    }
#pragma omp barrier
#pragma omp master
    z[n + 1] = z[0] + 42.0f;
  }
  count[0] = c;
}
"""
"""Two work-sharing loops (the second reads what the first wrote), a single between them that
reads the first loop's last element and broadcasts a private variable, a master after a barrier,
a reduction on the region."""


def region_cases() -> list[dict[str, int]]:
    return [{"n": n, "x": n, "y": n, "z": n + 2, "count": 1} for n in (0, 1, 45, 100)]


def reductions_per_parallel_loop(source: str) -> list[int]:
    """How many reductions each outermost agpu.parallel_for of the source has, in order."""
    loops = [op for op in parse_c(source).walk() if isinstance(op, ParallelForOp)]
    outermost = [op for op in loops if not isinstance(op.parent_op(), ParallelForOp)]
    return [len(op.reduction_vars) for op in outermost]


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_region_matches_serial_gcc(pipeline: str):
    assert reductions_per_parallel_loop(REGION) == [0, 1]
    check_against_gcc(REGION, "region", pipeline, region_cases())


REGION_PRIVATE = """
void mv(int n, int m, const float *A, const float *x, float *y, float *z, float c0) {
  int i, j;
  float t, c = c0 * 2.0f;
#pragma omp parallel private(i, j, t) firstprivate(c) shared(A, x, y, z)
  {
#pragma omp for
    for (i = 0; i < n; i++) {
      t = 0.0f;
      for (j = 0; j < m; j++) t += A[i * m + j] * x[j];
      y[i] = t * c;
    }
#pragma omp for
    for (j = 0; j < m; j++) {
      t = c;
      for (i = 0; i < n; i++) t += A[i * m + j] * y[i];
      z[j] = t;
    }
  }
}
"""
"""PolyBench's spelling: the loop variables and a temporary private to the region, declared
before it; a firstprivate coefficient read by both loops."""


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_region_private_variables_are_each_loops_own(pipeline: str):
    cases = [{"n": n, "m": m, "A": n * m, "x": m, "y": n, "z": m, "c0": 0.75}
             for n, m in ((0, 3), (1, 1), (45, 7), (33, 100))]  # fmt: skip
    check_against_gcc(REGION_PRIVATE, "mv", pipeline, cases)


def loop_spellings() -> list[str]:
    """Every spelling of the table that makes a loop parallel."""
    return [c.spelling for c in DIRECTIVES if c.kind is Kind.LOOP]


def kernel_with(spelling: str) -> str:
    """A loop with a reduction under `spelling`, inside the region the spelling needs; the
    target spellings map the arrays."""
    construct = next(c for c in DIRECTIVES if c.spelling == spelling)
    maps = " map(to: x[0:n]) map(tofrom: y[0:n])" if "target" in construct.words else ""
    pragma = f"#pragma omp {spelling} reduction(+: h){maps}"
    opening: dict[str | None, str] = {PARALLEL: "#pragma omp parallel\n  {",
                                      TEAMS: "#pragma omp target teams\n  {"}
    before = opening.get(construct.needs, "{")
    return f"""
void k(int n, float a, const float *x, float *y, int *hits) {{
  int h = 0;
  {before}
{pragma}
  for (int i = 0; i < n; i++) {{
    y[i] = a * x[i] + y[i];
    if (y[i] > 0.0f) h++;
  }}
  }}
  hits[0] = h;
}}
"""


@pytest.mark.parametrize("spelling", loop_spellings())
def test_each_loop_spelling_is_a_parallel_loop_matching_gcc(spelling: str):
    source = kernel_with(spelling)
    assert reductions_per_parallel_loop(source) == [1]
    cases = [{"n": n, "a": 1.5, "x": n, "y": n, "hits": 1} for n in (0, 1, 33, 100)]
    program = check_against_gcc(source, "k", PIPELINES[0], cases)
    assert "__global__" in program.source


TARGET_REGIONS = """
void staged(int n, float *a, const float *b, double *out) {
  double s = 0;
#pragma omp target data map(tofrom: a[0:n]) map(to: b[0:n])
  {
#pragma omp target
    {
      if (n > 0) a[0] = 7.0f;
#pragma omp teams distribute parallel for
      for (int i = 1; i < n; i++) a[i] = b[i] * 0.5f;
    }
#pragma omp target teams reduction(+: s) thread_limit(64)
    {
#pragma omp distribute parallel for
      for (int i = 0; i < n; i++) a[i] += b[i];
#pragma omp distribute
      for (int i = 0; i < n; i++) s += a[i];
    }
  }
  out[0] = s;
}
"""
"""A target data region with a target region (a serial statement, then a teams loop) and a
target teams region whose teams reduction goes to the distribute loop that updates it."""


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_target_regions_match_gcc(pipeline: str):
    def close(actual: list[Any], expected: list[Any]) -> None:
        for a, e in zip(actual, expected):
            if is_ndarray(e):
                np.testing.assert_allclose(a, e, rtol=1e-9, atol=1e-9)

    assert reductions_per_parallel_loop(TARGET_REGIONS) == [0, 0, 1]
    cases = [{"n": n, "a": n, "b": n, "out": 1} for n in (0, 1, 45, 100)]
    check_against_gcc(TARGET_REGIONS, "staged", pipeline, cases, compare=close)


@pytest.mark.parametrize("source, function, cases", [
    (REGION, "region", region_cases()),
    (TARGET_REGIONS, "staged", [{"n": n, "a": n, "b": n, "out": 1} for n in (0, 1, 45, 100)]),
], ids=["region", "target-regions"])  # fmt: skip
def test_the_serial_reading_is_what_gcc_openmp_computes(
    source: str, function: str, cases: list[dict[str, int]]
):
    """The serial reading of the regions is OpenMP's: gcc -fopenmp's threads (and its host
    fallback of the target constructs) leave the same, up to the order of a float sum."""
    threaded = compile_c_reference(source, function, openmp=True)
    serial = gcc_reference(source, function)
    module = parse_c(source)
    for sizes in cases:
        args = random_args(module, sizes, 0, function=function)
        expected, actual = copy_args(args), copy_args(args)
        serial(*expected)
        threaded(*actual)
        for a, e in zip(actual, expected):
            if is_ndarray(e):
                np.testing.assert_allclose(a, e, rtol=1e-9, atol=1e-9)


def test_a_region_becomes_the_kernels_of_separate_parallel_loops():
    """The region and the same code written as two `parallel for`s and plain statements
    compile to the same CUDA."""
    separate = (REGION.replace("#pragma omp parallel reduction(+: c) num_threads(4)\n", "")
                .replace("#pragma omp for\n", "#pragma omp parallel for\n")
                .replace("#pragma omp for nowait\n", "#pragma omp parallel for reduction(+: c)\n")
                .replace("#pragma omp single copyprivate(scale)\n", "").replace("#pragma omp barrier\n", "")
                .replace("#pragma omp master\n", ""))  # fmt: skip
    assert "omp for" not in separate
    assert "omp single" not in separate
    assert cuda_of(REGION, PIPELINES[0]).source == cuda_of(separate, PIPELINES[0]).source


@pytest.mark.parametrize("construct", DIRECTIVES, ids=lambda c: c.spelling)
def test_table_spellings_classify_to_their_row(construct: Construct):
    text = f"omp  {construct.spelling.replace(' ', '   ')} nowait"
    pragma = Pragma(1, text, tuple(range(9, 9 + len(text) + 1)))
    if construct.kind is Kind.REFUSED:
        with pytest.raises(CompileError, match="not supported"):
            classify(pragma, "t.c", "#pragma " + text)
        return
    directive = classify(pragma, "t.c", "#pragma " + text)
    assert directive is not None
    assert directive.construct is construct
    assert text[directive.clauses_start :].strip() == "nowait"


@pytest.mark.parametrize("text", ["unroll 4", "omp simd", "omp atomic", "omp critical",
                                  "omp parallelfor", "GCC ivdep"])  # fmt: skip
def test_other_pragmas_are_not_directives(text: str):
    assert classify(Pragma(1, text, tuple(range(9, 10 + len(text)))), "t.c", text) is None
