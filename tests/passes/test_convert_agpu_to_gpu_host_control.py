"""Data-dependent host control around kernels (docs/ir.md, "Host control around kernels"): a
convergence loop `while (diff > tol)`, a capped `for (t = 0; t < T && diff > tol; t++)` and an
`if (x[0] > 0)` around parallel loops. A serial kernel computes each condition into a device
variable, the host reads that one value back between launches (a `read` step), and the data
stays on the device. Through `autogpu-vanilla` and `autogpu-optimize`, on the CPU emulation with
threads in random order, against gcc's serial build: 0, 1 and many trips, a tolerance never
reached within the cap, sizes that no block divides."""

from __future__ import annotations

import shutil
from typing import Any

import numpy as np
import pytest
from lowered_differential import check_against_gcc, cuda_of

from autogpu.runtime.arguments import (
    KernelLaunchError,
    bind_arguments,
    launch_trace,
    parse_launch_description,
)
from autogpu.runtime.cpu_exec import CpuProgram

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

PIPELINES = ["autogpu-vanilla{block_size=32}", "autogpu-optimize"]

CONVERGE = """
#include <math.h>
void converge(int n, float tol, float *a, float *b, int *trips, float *last) {
  float diff = 1e9f;
  trips[0] = 0;
  while (diff > tol) {
    diff = 0.0f;
#pragma omp parallel for reduction(max: diff)
    for (int i = 1; i < n - 1; i++) {
      b[i] = 0.5f * (a[i - 1] + a[i + 1]);
      diff = fmaxf(diff, fabsf(b[i] - a[i]));
    }
#pragma omp parallel for
    for (int i = 1; i < n - 1; i++)
      a[i] = b[i];
    trips[0] += 1;
  }
  last[0] = diff;
}
"""
"""The convergence loop of the issue: a max reduction decides whether the loop goes on."""

CAPPED = """
#include <math.h>
void capped(int T, int n, double tol, double *a, double *b, int *trips) {
  double diff = 1e30;
  int t;
  for (t = 0; t < T && diff > tol; t++) {
    diff = 0.0;
#pragma omp parallel for reduction(max: diff)
    for (int i = 1; i < n - 1; i++) {
      b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
      diff = fmax(diff, fabs(b[i] - a[i]));
    }
#pragma omp parallel for
    for (int i = 1; i < n - 1; i++)
      a[i] = b[i];
  }
  trips[0] = t;
}
"""
"""A `for` the frontend cannot count (its condition reads `diff`): a `while` to the host."""

ELEMENT_IF = """
void element_if(int tsteps, int n, float *x, float *y) {
  for (int t = 0; t < tsteps; t++) {
    if (x[0] > 0.0f) {
#pragma omp parallel for
      for (int i = 0; i < n; i++)
        y[i] = y[i] + x[i];
    } else {
#pragma omp parallel for
      for (int i = 0; i < n; i++)
        x[i] = x[i] + 0.25f;
    }
  }
}
"""
"""An `if` on an array element that a kernel of an earlier step writes."""


def _converge(n: int, tol: float) -> dict[str, int | float]:
    return {"n": n, "tol": tol, "a": max(n, 1), "b": max(n, 1), "trips": 1, "last": 1}


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_convergence_loop_matches_gcc(pipeline: str):
    """0 trips (tol above the start value), 1 (tol above any first difference of values in
    [-1, 1]), many (tol 1e-2 on 13 and 37 points: hundreds of trips), n = 0, 1, 2 (no
    iteration: diff stays 0 after the first trip)."""
    cases = [_converge(13, 1e10), _converge(37, 3.0), _converge(13, 1e-2),
             _converge(37, 1e-2), _converge(0, 0.5), _converge(1, 0.5), _converge(2, 0.5)]
    check_against_gcc(CONVERGE, "converge", pipeline, cases)


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_capped_loop_matches_gcc(pipeline: str):
    """A tolerance of -1 is never reached (diff >= 0): the cap ends the loop, after T trips;
    T = 0; a tolerance reached before the cap."""
    cases = [{"T": T, "n": n, "tol": tol, "a": max(n, 1), "b": max(n, 1), "trips": 1}
             for T, n, tol in ((7, 37, -1.0), (0, 37, -1.0), (1000, 19, 1e-3), (5, 1, -1.0))]
    check_against_gcc(CAPPED, "capped", pipeline, cases)


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_if_on_an_array_element_matches_gcc(pipeline: str):
    cases = [{"tsteps": t, "n": n, "x": max(n, 1), "y": max(n, 1)}
             for t in (0, 1, 9) for n in (37, 1)]
    check_against_gcc(ELEMENT_IF, "element_if", pipeline, cases)


def test_the_host_reads_one_condition_per_trip(monkeypatch: pytest.MonkeyPatch):
    """The description's program: one serial kernel computes the condition, a `read` step
    brings it back, the loop body launches its kernels; the arrays are not copied."""
    program = cuda_of(CONVERGE, "autogpu-vanilla")
    (entry,) = program.launch["functions"]
    (loop,) = [step["while"] for step in entry["steps"] if "while" in step]
    *kernels, read = loop["before"]
    assert read == {"read": {"var": "cond", "global": "converge_cond", "ctype": "bool"}}
    assert loop["cond"] == "cond"
    assert [entry["launches"][k["launch"]]["kernel"] for k in kernels] == ["converge_kernel1"]
    assert "__device__ bool converge_cond;" in program.source
    runner = CpuProgram(program.source, program.launch, threads=1)
    launched: list[str] = []
    run = CpuProgram._launch  # pyright: ignore[reportPrivateUsage]  # counts the launches the host program runs

    def counted(self: CpuProgram, launch: Any, *args: Any) -> None:
        launched.append(launch.entry.kernel)
        run(self, launch, *args)

    monkeypatch.setattr(CpuProgram, "_launch", counted)
    n = 9
    a = np.zeros(n, np.float32)
    a[0] = 1.0  # a boundary value that diffuses in: many trips
    trips, last = np.zeros(1, np.int32), np.zeros(1, np.float32)
    runner.run("converge", n, np.float32(1e-3), a, np.zeros(n, np.float32), trips, last)
    body = ["converge_kernel2", "converge_kernel3", "converge_kernel4", "converge_kernel5"]
    assert trips[0] > 10
    assert launched == ["converge_kernel0", *(["converge_kernel1", *body] * int(trips[0])),
                        "converge_kernel1", "converge_kernel6"]


def test_a_program_that_reads_the_device_has_no_trace_ahead():
    program = cuda_of(CONVERGE, "autogpu-vanilla")
    (function,) = parse_launch_description(program.launch).values()
    z = np.zeros(4, np.float32)
    call = bind_arguments(function, (4, 0.5, z, z.copy(), np.zeros(1, np.int32),
                                     np.zeros(1, np.float32)), {})
    with pytest.raises(KernelLaunchError, match="reads values the kernels compute"):
        launch_trace(call)


def _gpu_unavailable() -> str | None:
    from autogpu.runtime import cuda_exec

    return cuda_exec.gpu_unavailable_reason()


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_convergence_loops_on_the_gpu_match_gcc(pipeline: str):
    """pycuda runs the same host program, reading each condition back from the device (nvcc
    without fused multiply-adds: the same trips and bits as gcc)."""
    if (why := _gpu_unavailable()) is not None:
        pytest.skip(f"needs a CUDA GPU: {why}")
    from lowered_differential import agree_with_gcc

    from autogpu.runtime.cuda_exec import CudaProgram

    for source, function, cases in (
        (CONVERGE, "converge", [_converge(1000, 1e10), _converge(37, 3.0),
                                _converge(37, 1e-2), _converge(1, 0.5)]),
        (CAPPED, "capped", [{"T": T, "n": 5000, "tol": tol, "a": 5000, "b": 5000, "trips": 1}
                            for T, tol in ((20, -1.0), (0, -1.0), (2000, 1e-3))]),
        (ELEMENT_IF, "element_if", [{"tsteps": 9, "n": 1000, "x": 1000, "y": 1000}]),
    ):
        program = cuda_of(source, pipeline)
        agree_with_gcc(CudaProgram(program.source, program.launch, fmad=False), source,
                       function, cases)


def test_timing_a_convergence_loop_leaves_one_runs_result():
    """`CudaProgram.time` runs the whole program each repetition, reads included, on the
    restored inputs: the arrays end up holding gcc's result of one call."""
    if (why := _gpu_unavailable()) is not None:
        pytest.skip(f"needs a CUDA GPU: {why}")
    from lowered_differential import gcc_reference

    from autogpu.runtime.cuda_exec import CudaProgram

    program = cuda_of(CAPPED, "autogpu-optimize")
    runner = CudaProgram(program.source, program.launch, fmad=False)
    n, rng = 3000, np.random.default_rng(5)
    a, b, trips = rng.uniform(-1, 1, n), np.zeros(n), np.zeros(1, np.int32)
    expected = [500, n, 1e-4, a.copy(), b.copy(), trips.copy()]
    gcc_reference(CAPPED, "capped")(*expected)
    timing = runner.time("capped", (500, n, 1e-4, a, b, trips), repetitions=3, warmup=1)
    assert len(timing.kernel_samples_s) == 3
    assert isinstance(expected[5], np.ndarray)
    assert 0 < trips[0] == expected[5][0]
    np.testing.assert_array_equal(a, expected[3])
