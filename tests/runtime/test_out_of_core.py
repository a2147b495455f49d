"""Out-of-core execution (agpu-out-of-core + runtime.parts): the CPU emulation runs the GPU's
schedule of parts under a small memory budget (separate part buffers, shifted pointers, copies)
and must leave exactly gcc's results; the GPU pipeline is checked against it where there is a
GPU."""

from __future__ import annotations

import numpy as np
import pytest

import autogpu
from autogpu.diagnostics import CompileError
from autogpu.runtime import cuda_exec
from autogpu.runtime.arguments import KernelArgumentError, KernelLaunchError
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.runtime.parts import SLOTS
from autogpu.testing.gcc_reference import compile_c_reference

NO_GPU = cuda_exec.gpu_unavailable_reason()
needs_gpu = pytest.mark.skipif(NO_GPU is not None, reason=f"needs a CUDA GPU: {NO_GPU}")

SAXPY = """
void saxpy(int n, float a, const float *restrict x, float *restrict y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}
"""
STENCIL = """
void jacobi(int n, int m, const double in[n][m], double out[n][m]) {
#pragma omp parallel for collapse(2)
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++)
      out[i][j] = 0.25 * (in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1]);
}
"""
STENCIL_LONG = STENCIL.replace("int", "long")  # 64-bit loops: the frontend normalises them
GEMV = """
void gemv(int n, int m, const float A[n][m], const float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      y[i] = y[i] + A[i][j] * x[j];
}
"""
SHIFTED = """
void shifted(int n, const float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i + 2] = x[i] * 2.0f;
}
"""


def _program(source: str, budget: int | None, pipeline: str = "autogpu-vanilla") -> CpuProgram:
    kernel = autogpu.compile(source, pipeline=f"agpu-out-of-core,{pipeline}")
    return CpuProgram(kernel.cuda_source, kernel.launch_description, memory_budget=budget)


def _check(source: str, name: str, args: list, budget: int | None,
           pipeline: str = "autogpu-vanilla") -> CpuProgram:
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    compile_c_reference(source, name)(*expected)
    program = _program(source, budget, pipeline)
    program.run(name, *args)
    for got, want in zip(args, expected, strict=True):
        if isinstance(got, np.ndarray):
            np.testing.assert_array_equal(got, want)
    return program


@pytest.mark.parametrize("n", [0, 1, 2, 3, 37, 1001])
def test_saxpy_in_parts_matches_gcc(n):
    rng = np.random.default_rng(n)
    x, y = rng.random(n, np.float32), rng.random(n, np.float32)
    budget = max(SLOTS * 8 * 7, 1)  # 7 rows of x and y per part: 1001 = 143 parts of 7
    program = _check(SAXPY, "saxpy", [n, np.float32(1.5), x, y], budget)
    plan = program.last_plan
    if n >= 37:
        assert not plan.in_core
        assert len(plan.parts) >= 3
        assert plan.parts[-1].hi - plan.parts[-1].lo <= plan.rows


@pytest.mark.parametrize(("n", "m"), [(0, 5), (1, 1), (2, 9), (3, 3), (13, 7), (101, 37)])
@pytest.mark.parametrize("pipeline", ["autogpu-vanilla", "autogpu-optimize"])
def test_stencil_with_halos_in_parts_matches_gcc(n, m, pipeline):
    rng = np.random.default_rng(n * 100 + m)
    a, out = rng.random((n, m)), rng.random((n, m))
    budget = SLOTS * 8 * m * 6  # 6 rows per part: 4 computed, 2 of halo
    program = _check(STENCIL, "jacobi", [n, m, a, out], budget, pipeline)
    plan = program.last_plan
    if n >= 13:
        assert not plan.in_core
        assert len(plan.parts) >= 3
        sizes = {p.hi - p.lo for p in plan.parts}
        assert (n - 2) % plan.rows
        assert len(sizes) == 2
        # each part's buffer of `in` holds its rows and one row of halo on each side
        first = plan.parts[1].slices[0]
        assert (first.first, first.end) == ((plan.parts[1].lo - 1) * m, (plan.parts[1].hi + 1) * m)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 40])
def test_a_normalised_64_bit_loop_in_parts_matches_gcc(n):
    rng = np.random.default_rng(n)
    m = 9
    a, out = rng.random((n, m)), rng.random((n, m))
    program = _check(STENCIL_LONG, "jacobi", [n, m, a, out], SLOTS * 8 * m * 5)
    if n == 40:
        assert len(program.last_plan.parts) >= 3


def test_a_vector_read_whole_stays_resident():
    rng = np.random.default_rng(3)
    n, m = 50, 11
    A, x, y = rng.random((n, m), np.float32), rng.random(m, np.float32), rng.random(n, np.float32)
    program = _check(GEMV, "gemv", [n, m, A, x, y], 4 * m + SLOTS * 4 * (m + 1) * 8)
    assert program.last_plan.resident == ("x",)
    assert len(program.last_plan.parts) >= 3


def test_shifted_writes_land_once():
    rng = np.random.default_rng(4)
    x, y = rng.random(40, np.float32), rng.random(42, np.float32)
    program = _check(SHIFTED, "shifted", [40, x, y], SLOTS * 4 * 10)
    assert len(program.last_plan.parts) >= 3


def test_without_a_budget_it_runs_in_core_on_the_callers_arrays():
    x, y = np.ones(100, np.float32), np.zeros(100, np.float32)
    program = _check(SAXPY, "saxpy", [100, np.float32(2.0), x, y], None)
    assert program.last_plan.in_core
    assert len(program.last_plan.parts) == 1


def test_a_budget_below_one_row_is_refused():
    x, y = np.ones(100, np.float32), np.zeros(100, np.float32)
    with pytest.raises(KernelLaunchError, match="cannot run in parts within a memory budget"):
        _program(SAXPY, 10).run("saxpy", 100, 2.0, x, y)


def test_the_part_bounds_are_not_the_callers():
    x, y = np.ones(10, np.float32), np.zeros(10, np.float32)
    with pytest.raises(KernelArgumentError, match="set by the part scheduler"):
        _program(SAXPY, None).run("saxpy", 10, 2.0, x, y, agpu_part_lo=0)


def test_the_cpu_schedule_records_a_timeline():
    program = _program(SAXPY, SLOTS * 8 * 10)
    program.timeline = []
    program.run("saxpy", 35, 2.0, np.ones(35, np.float32), np.zeros(35, np.float32))
    stages = [(stage, part) for stage, part, _, _ in program.timeline]
    assert stages[:3] == [("copy-in", 0), ("kernel", 0), ("copy-out", 0)]
    assert len(stages) == 3 * 4


REFUSED = {
    "a row no extents bound": ("""
void f(int n, int m, const float *a, float *b) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      b[i * m + j] = a[i * m + j];
}""", "6:22", "no extents bound"),
    "a subscript of the time loop's counter": ("""
void f(int t, int n, float *a) {
  for (int s = 0; s < t; s++) {
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      a[i + s] = 1.0f;
  }
}""", "6:16", "the subscript of 'a' depends on a value"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_what_cannot_be_split_is_refused_with_its_location(case):
    source, where, why = REFUSED[case]
    with pytest.raises(CompileError) as error:
        autogpu.compile(source, pipeline="agpu-out-of-core,autogpu-vanilla")
    assert f":{where}: error: out-of-core: " in str(error.value)
    assert why in str(error.value)


@needs_gpu
@pytest.mark.parametrize(("source", "name", "shape"), [(SAXPY, "saxpy", None),
                                                        (STENCIL, "jacobi", (301, 257))])
def test_the_gpu_pipeline_matches_the_cpu_schedule(source, name, shape):
    rng = np.random.default_rng(7)
    kernel = autogpu.compile(source, pipeline="agpu-out-of-core,autogpu-optimize")
    if shape is None:
        n = 100_003
        args = [n, np.float32(0.5), rng.random(n, np.float32), rng.random(n, np.float32)]
        budget = SLOTS * 8 * 9_000
    else:
        args = [*shape, rng.random(shape), rng.random(shape)]
        budget = SLOTS * 8 * shape[1] * 40
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    compile_c_reference(source, name)(*expected)
    gpu = cuda_exec.CudaProgram(kernel.cuda_source, kernel.launch_description, fmad=False,
                                memory_budget=budget)
    gpu.timeline = []
    gpu.run(name, *args)
    assert len(gpu.last_plan.parts) >= 3
    assert {stage for stage, *_ in gpu.timeline} == {"copy-in", "kernel", "copy-out"}
    for got, want in zip(args, expected, strict=True):
        if isinstance(got, np.ndarray):
            np.testing.assert_array_equal(got, want)


TIMELINE = [("copy-in", 0, 0.0, 0.002), ("kernel", 0, 0.002, 0.003), ("copy-in", 1, 0.002, 0.004),
            ("copy-out", 0, 0.003, 0.004), ("kernel", 1, 0.004, 0.005),
            ("copy-out", 1, 0.005, 0.006)]


def test_the_gantt_chart_is_drawn(tmp_path):
    pytest.importorskip("matplotlib")
    from autogpu.runtime.pipeline import draw_timeline

    assert draw_timeline(TIMELINE, str(tmp_path / "t.png"), "two parts")
    assert (tmp_path / "t.png").read_bytes()[:4] == b"\x89PNG"


def test_without_matplotlib_no_chart_is_drawn(tmp_path, monkeypatch):
    import sys

    from autogpu.runtime.pipeline import draw_timeline

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert not draw_timeline(TIMELINE, str(tmp_path / "t.png"))
    assert not (tmp_path / "t.png").exists()


def test_the_budget_is_an_option_of_the_api_program():
    kernel = autogpu.compile(SAXPY, pipeline="agpu-out-of-core,autogpu-vanilla")
    x, y = np.ones(100, np.float32), np.full(100, 2.0, np.float32)
    program = kernel.program("cpu", memory_budget=SLOTS * 8 * 30)
    program.run("saxpy", 100, 3.0, x, y)
    assert len(program.last_plan.parts) == 4
    assert np.all(y == 5.0)
    kernel(100, 1.0, x, y)  # the default program: no budget, in-core
    assert np.all(y == 6.0)
