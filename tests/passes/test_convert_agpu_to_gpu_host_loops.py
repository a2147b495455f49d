"""Serial control flow around parallel loops, run by the host (convert-agpu-to-gpu's host steps,
docs/ir.md "Host control around kernels"): time-stepped kernels through `autogpu-vanilla` and
`autogpu-optimize`, on the CPU emulation with threads in random order, against gcc's serial
build; T = 0, 1, 7 steps and sizes that no block divides."""

from __future__ import annotations

import shutil
from typing import Any

import numpy as np
import pytest
from lowered_differential import check_against_gcc, cuda_of

from autogpu.numeric import is_ndarray
from autogpu.runtime.arguments import (
    KernelLaunchError,
    bind_arguments,
    launch_trace,
    parse_launch_description,
)
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.runtime.driver_kernels import DriverKernel

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

PIPELINES = ["autogpu-vanilla{block_size=32}", "autogpu-optimize"]
STEPS = (0, 1, 7)

JACOBI_1D = """
void jacobi_1d(int tsteps, int n, double *A, double *B) {
  int t, i;
  for (t = 0; t < tsteps; t++) {
#pragma omp parallel for
    for (i = 1; i < n - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
#pragma omp parallel for
    for (i = 1; i < n - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
}
"""

JACOBI_2D = """
void jacobi_2d(int tsteps, int n, double A[n][n], double B[n][n]) {
  for (int t = 0; t < tsteps; t++) {
#pragma omp parallel for collapse(2)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
#pragma omp parallel for collapse(2)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i + 1][j] + B[i - 1][j]);
  }
}
"""

ALTERNATING = """
void alternating(int tsteps, int n, float *x, float *y) {
  for (int t = 0; t < tsteps; t++) {
    if (t % 2) {
#pragma omp parallel for
      for (int i = 0; i < n; i++)
        x[i] = x[i] * 0.5f + y[i];
    } else {
#pragma omp parallel for
      for (int i = 0; i < n; i++)
        y[i] = y[i] - x[i] * (float)t;
    }
  }
}
"""
"""`if (t % 2)`: the host decides, each kernel takes t where its body uses it."""

SERIAL_BETWEEN = """
void serial_between(int tsteps, int n, double *A, double *B, double *trace, int *count) {
  int k;
  for (int t = 0; t < tsteps; t++) {
    double c = 1.0 / (t + 2);
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      B[i] = A[i] * c;
    if (t == 0) k = 0;
    k = k + 2;
    trace[t] = B[0] + B[n - 1] + k;
    count[0] = count[0] + 1;
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      A[i] = B[i] + trace[t];
  }
}
"""
"""A serial kernel (<<<1,1>>>) between the nests, launched in each step; `c`, computed from t in
the loop, recomputed in the kernel; `k`, used by that kernel alone, keeps its value from one
launch to the next (a device global, not a local of the kernel)."""

NESTED = """
void nested(int tsteps, int m, int n, float *x) {
  for (int t = tsteps - 1; t >= 0; t--)
    for (int s = 0; s < m; s += 3) {
      if (s > t && n > 2) {
#pragma omp parallel for
        for (int i = s; i < n; i++)
          x[i] = x[i] + (float)(s - t);
      }
#pragma omp parallel for
      for (int i = 0; i < n - t; i++)
        x[i] = x[i] * 0.75f;
    }
}
"""
"""Two host loops (the outer one decreasing), an `if` of a condition with `&&`, launch sizes
depending on the counters."""


def _jacobi_1d(t: int, n: int) -> dict[str, int]:
    return {"tsteps": t, "n": n, "A": max(n, 1), "B": max(n, 1)}


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_jacobi_1d_matches_gcc(pipeline: str):
    cases = [_jacobi_1d(t, n) for t in STEPS for n in (37, 3, 1, 300)]
    check_against_gcc(JACOBI_1D, "jacobi_1d", pipeline, cases)


@pytest.mark.parametrize("pipeline", [*PIPELINES, "autogpu-optimize{unroll_serial=4 cache=true}",
                                      "autogpu-optimize{unroll_serial=16}"])
def test_jacobi_2d_matches_gcc(pipeline: str):
    """Also with serial unrolling, which unrolls loops inside kernels, never the time loop
    that launches them (the tuner found it emitting host code the launch language lacks)."""
    cases = [{"tsteps": t, "n": n, "A": max(n * n, 1), "B": max(n * n, 1)}
             for t in STEPS for n in (19, 37, 2)]
    check_against_gcc(JACOBI_2D, "jacobi_2d", pipeline, cases)


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_alternating_if_matches_gcc(pipeline: str):
    cases = [{"tsteps": t, "n": n, "x": max(n, 1), "y": max(n, 1)}
             for t in STEPS for n in (37, 1, 0)]
    check_against_gcc(ALTERNATING, "alternating", pipeline, cases)


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_serial_kernel_between_nests_matches_gcc(pipeline: str):
    cases = [{"tsteps": t, "n": n, "A": n, "B": n, "trace": max(t, 1), "count": 1}
             for t in STEPS for n in (37, 1)]
    check_against_gcc(SERIAL_BETWEEN, "serial_between", pipeline, cases)


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_nested_host_loops_match_gcc(pipeline: str):
    cases = [{"tsteps": t, "m": m, "n": n, "x": max(n, 1)}
             for t in STEPS for m, n in ((7, 37), (1, 5), (0, 3))]
    check_against_gcc(NESTED, "nested", pipeline, cases)


def test_a_time_loop_launches_two_kernels_per_step():
    """T steps of two nests: 2T launches, data left on the device between them (one call)."""
    program = cuda_of(JACOBI_1D, "autogpu-vanilla")
    (function,) = parse_launch_description(program.launch).values()
    A, B = np.zeros(50), np.zeros(50)
    for tsteps in (0, 1, 7):
        call = bind_arguments(function, (tsteps, 50, A, B), {})
        kernels = [launch.entry.kernel for launch in launch_trace(call)]
        assert kernels == ["jacobi_1d_kernel0", "jacobi_1d_kernel1"] * tsteps


def test_counters_reach_the_kernels_with_their_values():
    """The `if (t % 2)` step runs the x update at t = 1, 3, 5 only, passing t to the kernel that
    reads it."""
    program = cuda_of(ALTERNATING, "autogpu-vanilla")
    (function,) = parse_launch_description(program.launch).values()
    x, y = np.zeros(4, np.float32), np.zeros(4, np.float32)
    runs = launch_trace(bind_arguments(function, (7, 4, x, y), {}))
    assert [(r.entry.kernel, int(r.counters["t"])) for r in runs] == [
        (f"alternating_kernel{1 - t % 2}", t) for t in range(7)]
    for run in runs:
        assert "t" in run.entry.args or run.entry.kernel == "alternating_kernel0"
        assert run.counters["t"].dtype == np.int32  # the counter's C type: int


def test_a_loop_step_of_zero_is_refused_when_the_call_runs():
    """A non-positive step in a hand-written description is refused when the call runs."""
    program = cuda_of(JACOBI_1D, "autogpu-vanilla")
    launch = program.launch
    launch["functions"][0]["steps"][0]["for"]["step"] = "0"
    runner = CpuProgram(program.source, launch, threads=1)
    with pytest.raises(KernelLaunchError, match="has step 0"):
        runner.run("jacobi_1d", 3, 10, np.zeros(10), np.zeros(10))


def _gpu_unavailable() -> str | None:
    from autogpu.runtime import cuda_exec

    return cuda_exec.gpu_unavailable_reason()


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_time_loops_on_the_gpu_match_gcc(pipeline: str):
    """pycuda runs the same host program: jacobi-2d and the alternating update against gcc
    (within rounding: nvcc contracts a * b + c into fused multiply-adds)."""
    if (why := _gpu_unavailable()) is not None:
        pytest.skip(f"needs a CUDA GPU: {why}")
    from lowered_differential import agree_with_gcc

    from autogpu.runtime.cuda_exec import CudaProgram

    def close(actual: list[Any], expected: list[Any]):
        for a, e in zip(actual, expected):
            if is_ndarray(e):
                np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-6)

    for source, function, cases in (
        (JACOBI_2D, "jacobi_2d", [{"tsteps": t, "n": n, "A": n * n, "B": n * n}
                                  for t in STEPS for n in (19, 300)]),
        (ALTERNATING, "alternating", [{"tsteps": t, "n": 1000, "x": 1000, "y": 1000}
                                      for t in STEPS]),
        (SERIAL_BETWEEN, "serial_between", [{"tsteps": 7, "n": 37, "A": 37, "B": 37,
                                             "trace": 7, "count": 1}]),
    ):
        program = cuda_of(source, pipeline)
        agree_with_gcc(CudaProgram(program.source, program.launch), source, function, cases,
                       compare=close)


def test_timing_a_time_loop_launches_every_step_and_leaves_one_runs_result(
        monkeypatch: pytest.MonkeyPatch):
    """`CudaProgram.time` (what the benchmarks' --pycuda rows and the Jacobi launch overhead
    use) times the whole function: 2T launches per repetition, with and without the copies, the
    outputs restored before each, so the arrays end up holding gcc's result of one call."""
    if (why := _gpu_unavailable()) is not None:
        pytest.skip(f"needs a CUDA GPU: {why}")
    from lowered_differential import gcc_reference

    from autogpu.runtime.cuda_exec import CudaProgram

    program = cuda_of(JACOBI_1D, "autogpu-optimize")
    runner = CudaProgram(program.source, program.launch, fmad=False)
    counts: dict[str, int] = {}
    launch = DriverKernel.launch

    def counted(kernel: DriverKernel, *args: Any, **kw: Any) -> None:
        counts[kernel.name] = counts.get(kernel.name, 0) + 1
        launch(kernel, *args, **kw)

    monkeypatch.setattr(DriverKernel, "launch", counted)
    tsteps, n, rng = 5, 1000, np.random.default_rng(3)
    A, B = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    expected = [tsteps, n, A.copy(), B.copy()]
    gcc_reference(JACOBI_1D, "jacobi_1d")(*expected)
    timing = runner.time("jacobi_1d", (tsteps, n, A, B), repetitions=3, warmup=1)
    runs = (1 + 3) * 2 + 1  # kernel-only and with-copies samples, then the final run
    assert counts == {"jacobi_1d_kernel0": runs * tsteps, "jacobi_1d_kernel1": runs * tsteps}
    assert len(timing.kernel_samples_s) == 3
    assert timing.with_copies_s is not None
    np.testing.assert_allclose(A, expected[2], rtol=1e-12, atol=0)
    np.testing.assert_allclose(B, expected[3], rtol=1e-12, atol=0)
