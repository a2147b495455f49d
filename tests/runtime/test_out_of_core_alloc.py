"""Out-of-core parts allocate, not copy in, the rows they overwrite whole (`alloc`, issue #13):
the CPU emulation poisons such buffers instead of copying them in, so a part that left an
element unwritten would show in the result; every result must be gcc's."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

import autogpu
from autogpu.runtime import cuda_exec
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.runtime.parts import SLOTS
from autogpu.testing.gcc_reference import compile_c_reference
from tests.paths import EXAMPLES

NO_GPU = cuda_exec.gpu_unavailable_reason()
needs_gpu = pytest.mark.skipif(NO_GPU is not None, reason=f"needs a CUDA GPU: {NO_GPU}")

MATMUL = (EXAMPLES / "matmul_rows.c").read_text()
COPY3 = """
void copy3(int n, int p, int q, const double x[n][p][q], double y[n][p][q]) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int k = 0; k < q; k++)
      for (int j = 0; j < p; j++)
        y[i][j][k] = 2.0 * x[i][j][k] + i;
}
"""
RELU = """
void relu(int n, int m, const float x[n][m], float y[n][m]) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      if (x[i][j] > 0.5f)
        y[i][j] = x[i][j];
}
"""


def _program(source: str, budget: int | None, pipeline: str = "autogpu-optimize",
             edit: Callable[[dict[str, Any]], None] | None = None) -> CpuProgram:
    kernel = autogpu.compile(source, pipeline=f"agpu-out-of-core,{pipeline}")
    description = kernel.launch_description
    if edit is not None:
        description = copy.deepcopy(description)
        edit(description)
    return CpuProgram(kernel.cuda_source, description, memory_budget=budget)


def _expected(source: str, name: str, args: Sequence[np.ndarray | int]) -> list[np.ndarray | int]:
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    compile_c_reference(source, name)(*expected)
    return expected


def _copied_in(program: CpuProgram, name: str) -> set[bool]:
    return {s.copied_in for p in program.last_plan.parts for s in p.slices if s.name == name}


@pytest.mark.parametrize("pipeline", ["autogpu-optimize", "autogpu-tiled"])
@pytest.mark.parametrize("n", [0, 1, 300])
def test_a_matmul_in_parts_allocates_c_and_matches_gcc(pipeline: str, n: int):
    m, p = 37, 19
    rng = np.random.default_rng(n)
    a, b = rng.random((n, p), np.float32), rng.random((p, m), np.float32)
    c = rng.random((n, m), np.float32)  # the caller's C: overwritten, never read
    args = [n, m, p, a, b, c]
    expected = _expected(MATMUL, "mm", args)
    budget = 4 * (p * m + SLOTS * 70 * (p + m))  # 70 rows a part: 300 = 4 x 70 + 20
    program = _program(MATMUL, budget, pipeline)
    program.run("mm", *args)
    np.testing.assert_allclose(c, expected[5], rtol=1e-5)
    if n == 300:
        plan = program.last_plan
        assert len(plan.parts) >= 3
        assert plan.parts[-1].hi - plan.parts[-1].lo < plan.rows  # an uneven last part
        assert _copied_in(program, "C") == {False}
        assert _copied_in(program, "A") == {True}


@pytest.mark.parametrize("n", [1, 2, 29])
def test_three_dimensional_rows_written_whole_are_allocated(n: int):
    p, q = 5, 3
    rng = np.random.default_rng(n)
    args = [n, p, q, rng.random((n, p, q)), rng.random((n, p, q))]
    expected = _expected(COPY3, "copy3", args)
    program = _program(COPY3, SLOTS * 8 * p * q * 2 * 4)  # 4 rows of x and y a part
    program.run("copy3", *args)
    np.testing.assert_array_equal(args[4], expected[4])
    if n == 29:
        assert len(program.last_plan.parts) == 8
        assert _copied_in(program, "y") == {False}


def test_a_conditional_store_copies_its_rows_in():
    n, m = 41, 13
    rng = np.random.default_rng(3)
    args = [n, m, rng.random((n, m), np.float32), rng.random((n, m), np.float32)]
    expected = _expected(RELU, "relu", args)
    program = _program(RELU, SLOTS * 4 * m * 2 * 5)
    program.run("relu", *args)
    np.testing.assert_array_equal(args[3], expected[3])  # the elements left alone kept
    assert len(program.last_plan.parts) >= 3
    assert _copied_in(program, "y") == {True}


def test_the_emulation_shows_an_allocation_the_kernel_does_not_fill():
    """The proof matters: were `y` of the conditional store allocated, the emulation's poisoned
    buffer would reach the result where the `if` is false."""

    def allocate_y(description: dict[str, Any]) -> None:
        for function in description["functions"]:
            for array in function["parts"]["arrays"]:
                if array["name"] == "y":
                    array["alloc"] = True

    n, m = 41, 13
    rng = np.random.default_rng(3)
    args = [n, m, rng.random((n, m), np.float32), rng.random((n, m), np.float32)]
    expected = _expected(RELU, "relu", args)
    program = _program(RELU, SLOTS * 4 * m * 2 * 5, edit=allocate_y)
    program.run("relu", *args)
    assert not np.array_equal(args[3], expected[3])


@needs_gpu
def test_the_gpu_pipeline_allocates_c_of_a_matmul():
    n, m, p = 1000, 256, 64
    rng = np.random.default_rng(9)
    a, b = rng.random((n, p), np.float32), rng.random((p, m), np.float32)
    c = np.full((n, m), np.nan, np.float32)
    kernel = autogpu.compile(MATMUL, pipeline="agpu-out-of-core,autogpu-optimize")
    gpu = cuda_exec.CudaProgram(kernel.cuda_source, kernel.launch_description,
                                memory_budget=4 * (p * m + SLOTS * 256 * (p + m)))
    gpu.run("mm", n, m, p, a, b, c)
    assert len(gpu.last_plan.parts) >= 3
    assert {s.copied_in for q in gpu.last_plan.parts for s in q.slices if s.name == "C"} \
        == {False}
    np.testing.assert_allclose(c, a @ b, rtol=1e-4)
