"""OpenMP clauses against gcc: kernels with data-sharing clauses (private, firstprivate,
lastprivate, shared, default), clauses that only say how to run the loop, and a scalar first
assigned in a serial loop with constant bounds, through `autogpu-vanilla` and
`autogpu-optimize` down to CUDA, run by the CPU emulation with threads in random order, against
gcc's serial build (and `gcc -fopenmp` where OpenMP's meaning differs from the serial C's), at
sizes 0, 1 and sizes that are not multiples of the block. Also the PolyBench-style kernels of
examples/omp/."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from lowered_differential import check_against_gcc, cuda_of
from paths import EXAMPLES as EXAMPLES_DIR
from xdsl.dialects import func

from autogpu.dialects.signature import CSignature
from autogpu.frontend import parse_c
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.target.launch import evaluate
from autogpu.testing import assert_same_outputs, compile_c_reference, copy_args, random_args

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

PIPELINES = ["autogpu-vanilla", "autogpu-optimize"]
SIZES = [0, 1, 3, 257, 300]

PRIVATE = """
void private_vars(int n, int m, const double *a, double *b, double *c) {
  double t;
  int j;
#pragma omp parallel for private(t, j) shared(a, b) schedule(guided)
  for (int i = 0; i < n; i++) {
    t = 0;
    for (j = 0; j < m; j++)
      t += a[i] * j;
    b[i] = t;
  }
#pragma omp parallel for private(t) default(none) shared(n, b, c)
  for (int i = 0; i < n; i++) {
    t = b[i] * 2;
    c[i] = t + 1;
  }
}
"""

FIRSTPRIVATE = """
void first(int n, double scale, const double *a, double *b, double *out) {
  double s = scale * 2;
  int k = 3;
#pragma omp parallel for firstprivate(s, k) num_threads(4)
  for (int i = 0; i < n; i++)
    b[i] = a[i] * s + k;
  s = s + 1;
  out[0] = s;
}
"""

# Every iteration assigns the lastprivate variables, so the serial C leaves the last one's values
# in them, as OpenMP does.
LASTPRIVATE = """
void last(int n, int m, const int *a, int *b, int *out) {
  int v = -7, w = -8, i;
#pragma omp parallel for lastprivate(v, i)
  for (i = 0; i < n; i += 3) {
    v = a[i] * 2;
    b[i] = v;
  }
#pragma omp parallel for lastprivate(w)
  for (int k = n - 1; k >= 0; k--)
    w = a[k] + k;
  out[0] = v;
  out[1] = i;
  out[2] = w;
}

void last_collapsed(int n, int m, const int *a, int *out) {
  int x = 11;
#pragma omp parallel for collapse(2) lastprivate(x) proc_bind(close)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      x = a[i * m + j] - j;
  out[0] = x;
}
"""

# if(0): the loop runs serially, so a loop-carried dependence is no race.
IF_FALSE = """
void serial_if(int n, double *a) {
#pragma omp parallel for if(0)
  for (int i = 1; i < n; i++)
    a[i] = a[i - 1] + a[i];
#pragma omp parallel for simd if(n > 100) nowait
  for (int i = 0; i < n; i++)
    a[i] = a[i] * 2;
}
"""

# t is assigned in a serial loop that runs 4 times before the iteration reads it, and is also
# used by the next parallel loop: no private clause is needed.
SERIAL_FIRST = """
void serial_first(int n, double *a, double *b) {
  double t;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < 4; j++)
      t = a[i] * j;
    a[i] = t;
  }
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    t = b[i];
    b[i] = t * 2;
  }
}
"""


# Every read of t follows a store in the same trip of the inner loop (whose trip count is
# unknown), and the next loop assigns t first; the triangular loop `j <= i` runs at least once,
# so u is assigned before the iteration reads it. No private clause is needed for either.
SERIAL_WRITTEN_FIRST = """
void written_first(int n, int m, const double *x, double *y, double *z) {
  double t, u;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++) {
      t = x[j] * i;
      y[i * m + j] = t + 1.0;
    }
    for (int j = 0; j <= i; j++)
      u = x[j] - i;
    z[i] = u;
  }
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    t = z[i];
    z[i] = t * 2.0;
  }
}
"""


CASES = [
    ("private", PRIVATE, "private_vars",
     [{"n": n, "m": m, "a": max(n, 1), "b": max(n, 1), "c": max(n, 1)}
      for n, m in ((0, 2), (1, 0), (3, 1), (257, 3), (300, 2))]),
    ("firstprivate", FIRSTPRIVATE, "first",
     [{"n": n, "scale": 1.5, "a": max(n, 1), "b": max(n, 1), "out": 1} for n in SIZES]),
    ("lastprivate", LASTPRIVATE, "last",
     [{"n": n, "m": 0, "a": max(n, 1), "b": max(n, 1), "out": 3} for n in SIZES]),
    ("lastprivate-collapse", LASTPRIVATE, "last_collapsed",
     [{"n": n, "m": m, "a": max(n * m, 1), "out": 1}
      for n, m in ((0, 3), (3, 0), (1, 1), (17, 19), (5, 300))]),
    ("if-false", IF_FALSE, "serial_if", [{"n": n, "a": max(n, 1)} for n in SIZES]),
    ("serial-first", SERIAL_FIRST, "serial_first",
     [{"n": n, "a": max(n, 1), "b": max(n, 1)} for n in SIZES]),
    ("serial-written-first", SERIAL_WRITTEN_FIRST, "written_first",
     [{"n": n, "m": m, "x": max(n, m, 1), "y": max(n * m, 1), "z": max(n, 1)}
      for n, m in ((0, 2), (1, 0), (5, 1), (40, 0), (70, 9))]),
]  # fmt: skip


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize(
    "source, function, cases", [pytest.param(*case[1:], id=case[0]) for case in CASES]
)
def test_clauses_match_gcc(
    source: str, function: str, cases: list[dict[str, Any]], pipeline: str
):
    check_against_gcc(source, function, pipeline, cases, thread_order="random")


# OpenMP's private(t) leaves the original t alone (the serial C leaves the last iteration's
# value in it); lastprivate(u) copies the last iteration's value out, as the serial C does.
OPENMP_MEANING = """
void meaning(int n, const int *a, int *b, int *out) {
  int t = 5, u = 6;
#pragma omp parallel for private(t) lastprivate(u)
  for (int i = 0; i < n; i++) {
    t = a[i] * 3;
    u = t + i;
    b[i] = u;
  }
  out[0] = t;
  out[1] = u;
}
"""


def _has_libgomp() -> bool:
    probe = subprocess.run(["gcc", "-fopenmp", "-x", "c", "-", "-o", "/dev/null"],
                           input="int main(void) { return 0; }", capture_output=True, text=True, check=False)
    return probe.returncode == 0


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_private_and_lastprivate_match_gcc_openmp(pipeline: str):
    if not _has_libgomp():
        pytest.skip("gcc -fopenmp cannot link here (libgomp missing)")
    reference = compile_c_reference(OPENMP_MEANING, "meaning", openmp=True)
    program = cuda_of(OPENMP_MEANING, pipeline)
    runner = CpuProgram(program.source, program.launch, threads=2, thread_order="random")
    module = parse_c(OPENMP_MEANING)
    # Not n = 0: with no iteration gcc copies an uninitialised u out (OpenMP leaves it
    # unspecified); autogpu keeps the original value there, as the serial C does.
    for n in SIZES[1:]:
        args = random_args(module, {"n": n, "a": max(n, 1), "b": max(n, 1), "out": 2}, n)
        expected, actual = copy_args(args), copy_args(args)
        reference(*expected)
        runner.run("meaning", *actual)
        assert_same_outputs(actual, expected)
        assert actual[3][0] == 5  # the original t, untouched
    serial = compile_c_reference(OPENMP_MEANING, "meaning")
    args = random_args(module, {"n": 4, "a": 4, "b": 4, "out": 2}, 0)
    serial(*args)
    assert args[3][0] != 5  # the serial C differs: this test needs -fopenmp


EXAMPLES = sorted((EXAMPLES_DIR / "omp").glob("*.c"))


def _sizes(source: str, function: str, scalars: dict[str, Any]) -> dict[str, Any]:
    """Every array parameter sized by its C99 extents at these scalar values (at least 1)."""
    (fn,) = [f for f in parse_c(source).ops
             if isinstance(f, func.FuncOp) and f.sym_name.data == function]
    sizes = dict(scalars)
    for p in CSignature.of(fn).params:
        if p.name in sizes:
            continue
        total = 1
        for extent in p.extents or ("1",):
            total *= max(evaluate(str(extent), scalars), 0)
        sizes[p.name] = max(total, 1)
    return sizes


EXAMPLE_SCALARS = {
    "atax": [dict(m=m, n=n) for m, n in ((0, 3), (1, 1), (7, 300), (258, 5))],
    "mm2": [dict(ni=a, nj=b, nk=c, nl=d, alpha=1.5, beta=0.5)
            for a, b, c, d in ((0, 1, 1, 1), (1, 1, 1, 1), (5, 7, 3, 9), (3, 260, 2, 4))],
    "jacobi2d": [dict(n=n) for n in (0, 1, 3, 20, 259)],
    "blur_padded": [dict(n=n, m=m) for n, m in ((0, 3), (1, 1), (5, 33), (130, 7))],
    "jacobi_2d": [dict(tsteps=t, n=n) for t, n in ((0, 5), (1, 1), (1, 37), (7, 19), (7, 3))],
    "gemver": [dict(n=n, alpha=1.5, beta=1.25) for n in (0, 1, 9, 257)],
    "covariance": [dict(m=m, n=n, float_n=float(n) + 0.5) for m, n in ((0, 2), (1, 1), (6, 9),
                                                                         (259, 3))],
}  # fmt: skip


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_match_gcc(path: Path, pipeline: str):
    source = path.read_text()
    function = path.stem
    cases = [_sizes(source, function, scalars) for scalars in EXAMPLE_SCALARS[function]]
    compare = assert_same_outputs
    if function == "gemver":  # its norm is a reduction, summed in another order
        from lowered_differential import close_sums
        compare = close_sums
    check_against_gcc(source, function, pipeline, cases, compare=compare,
                      thread_order="random")
