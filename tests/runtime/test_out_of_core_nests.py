"""Out-of-core execution beyond one nest: several nests per function and nests inside a host
time loop (each run of a nest planned and pipelined in turn), a matmul through the tuned
pipelines, arrays kept page-locked across calls, timing and tuning functions in parts. The CPU
emulation runs the GPU's schedule under a small budget and must leave gcc's results."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import autogpu
from autogpu.runtime import cuda_exec
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.runtime.parts import ROW_ALIGN, SLOTS
from autogpu.runtime.pipeline import HostPins
from autogpu.testing.gcc_reference import compile_c_reference
from tests.paths import EXAMPLES

NO_GPU = cuda_exec.gpu_unavailable_reason()
needs_gpu = pytest.mark.skipif(NO_GPU is not None, reason=f"needs a CUDA GPU: {NO_GPU}")

JACOBI_2D = (EXAMPLES / "omp" / "jacobi_2d.c").read_text()
MM2 = (EXAMPLES / "omp" / "mm2.c").read_text()
MATMUL = (EXAMPLES / "matmul_rows.c").read_text()


def _run(source: str, name: str, args: list[np.ndarray | float], budget: int | None, pipeline: str,
         exact: bool = True) -> CpuProgram:
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    compile_c_reference(source, name)(*expected)
    kernel = autogpu.compile(source, pipeline=f"agpu-out-of-core,{pipeline}")
    program = CpuProgram(kernel.cuda_source, kernel.launch_description, memory_budget=budget)
    program.run(name, *args)
    for got, want in zip(args, expected, strict=True):
        if isinstance(got, np.ndarray):
            if exact:
                np.testing.assert_array_equal(got, want)
            else:
                np.testing.assert_allclose(got, want, rtol=1e-5)
    return program


@pytest.mark.parametrize("pipeline", ["autogpu-vanilla", "autogpu-optimize"])
@pytest.mark.parametrize(("steps", "n"), [(0, 23), (1, 5), (3, 23), (2, 40)])
def test_a_time_loop_of_two_stencils_in_parts_matches_gcc(pipeline: str, steps: int, n: int):
    rng = np.random.default_rng(steps * 100 + n)
    a, b = rng.random((n, n)), rng.random((n, n))
    budget = SLOTS * 8 * n * 7  # 5 rows computed per part, 2 of halo
    program = _run(JACOBI_2D, "jacobi_2d", [steps, n, a, b], budget, pipeline)
    plans = program.last_plans
    assert len(plans) == 2 * steps  # each step runs each nest in parts, in turn
    if n == 23 and steps:
        assert all(len(p.parts) >= 3 for p in plans)
        assert not any(p.in_core for p in plans)
        assert (n - 2) % plans[0].rows  # an uneven last part
        assert {s.name for s in plans[0].parts[1].slices} == {"A", "B"}


def test_two_nests_each_with_a_resident_matrix_in_parts_match_gcc():
    ni, nj, nk, nl = 37, 11, 13, 9
    rng = np.random.default_rng(2)
    args = [ni, nj, nk, nl, 1.5, 0.5, rng.random((ni, nj)), rng.random((ni, nk)),
            rng.random((nk, nj)), rng.random((nj, nl)), rng.random((ni, nl))]
    budget = 8 * (nk * nj + SLOTS * 4 * (nj + nk))  # B resident and 4 rows of tmp and A
    program = _run(MM2, "mm2", args, budget, "autogpu-optimize")
    first, second = program.last_plans
    assert (first.resident, second.resident) == (("B",), ("C",))
    assert len(first.parts) >= 3
    assert len(second.parts) >= 3
    assert first.parts[-1].hi - first.parts[-1].lo < first.rows


def test_everything_fits_one_whole_call_runs_in_core():
    n = 9
    a, b = np.ones((n, n)), np.zeros((n, n))
    program = _run(JACOBI_2D, "jacobi_2d", [4, n, a, b], None, "autogpu-vanilla")
    assert [p.in_core for p in program.last_plans] == [True, True]  # one plan per nest


@pytest.mark.parametrize("pipeline", ["autogpu-optimize", "autogpu-tiled"])
def test_a_matmul_in_parts_of_whole_row_tiles_matches_gcc(pipeline: str):
    n, m, p = 600, 37, 19
    rng = np.random.default_rng(5)
    a, b = rng.random((n, p), np.float32), rng.random((p, m), np.float32)
    c = rng.random((n, m), np.float32)
    budget = 4 * (p * m + SLOTS * 140 * (p + m))  # room for 140 rows: 128 (whole tiles) taken
    program = _run(MATMUL, "mm", [n, m, p, a, b, c], budget, pipeline, exact=False)
    plan = program.last_plan
    assert plan.resident == ("B",)
    assert plan.rows == ROW_ALIGN
    assert [(q.lo, q.hi) for q in plan.parts][-1] == (512, 600)


def test_the_tuner_tunes_and_verifies_a_function_in_parts():
    kernel = autogpu.tune(MATMUL, "agpu-out-of-core,autogpu-optimize",
                          sizes={"n": 40, "m": 16, "p": 8}, backend="cpu", budget=2, cache="",
                          space={"unroll_x": [1], "unroll_y": [1], "unroll_serial": [1, 2]})
    assert all(v["status"] == "ok" for v in kernel.tuning.variants)
    program = kernel.program("cpu", memory_budget=4 * (8 * 16 + SLOTS * 8 * 24))
    rng = np.random.default_rng(1)
    a, b, c = rng.random((40, 8), np.float32), rng.random((8, 16), np.float32), \
        np.zeros((40, 16), np.float32)
    program.run("mm", 40, 16, 8, a, b, c)
    assert len(program.last_plan.parts) == 5
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


class _Driver:
    """Counts registrations (the driver's calls replaced)."""

    def __init__(self):
        self.registered: list[int] = []
        self.unregistered: list[int] = []

    def register(self, address: int, nbytes: int) -> int:
        self.registered.append(address)
        return 0

    def unregister(self, address: int) -> int:
        self.unregistered.append(address)
        return 0


def test_arrays_stay_page_locked_across_calls_until_collected_or_closed():
    driver = _Driver()
    pins = HostPins(driver.register, driver.unregister)
    a, b = np.ones(1000), np.ones((10, 10))
    for _ in range(3):
        pins.pin("a", a)
        pins.pin("b", b)
        pins.pin("a row", b[2])  # inside a range already locked
    assert pins.registrations == 2
    address = a.ctypes.data
    del a
    gc.collect()
    assert driver.unregistered == [address]  # collected: unlocked before NumPy frees it
    assert pins.pinned == 1
    pins.close()
    assert sorted(driver.unregistered) == sorted([address, b.ctypes.data])
    assert pins.pinned == 0


def test_a_failed_registration_is_a_launch_error():
    from autogpu.runtime.arguments import KernelLaunchError

    pins = HostPins(lambda address, nbytes: 712, lambda address: 0)
    with pytest.raises(KernelLaunchError, match="overlaps an array locked before"):
        pins.pin("x", np.ones(4))


@needs_gpu
def test_on_the_gpu_time_loops_register_once_and_time_covers_the_pipeline():
    n, steps = 301, 3
    rng = np.random.default_rng(7)
    a, b = rng.random((n, n)), rng.random((n, n))
    inputs = [a.copy(), b.copy()]
    expected = [a.copy(), b.copy()]
    compile_c_reference(JACOBI_2D, "jacobi_2d")(steps, n, *expected)
    kernel = autogpu.compile(JACOBI_2D, pipeline="agpu-out-of-core,autogpu-optimize")
    gpu = cuda_exec.CudaProgram(kernel.cuda_source, kernel.launch_description, fmad=False,
                                memory_budget=SLOTS * 8 * n * 40)
    gpu.run("jacobi_2d", steps, n, a, b)
    np.testing.assert_array_equal(a, expected[0])
    np.testing.assert_array_equal(b, expected[1])
    assert len(gpu.last_plans) == 2 * steps
    assert len(gpu.last_plan.parts) >= 3
    assert gpu._pins.registrations == 2  # pyright: ignore[reportPrivateUsage]  # A and B, once for 6 pipelines
    timing = gpu.time("jacobi_2d", [steps, n, *inputs], repetitions=2, warmup=1)
    assert gpu._pins.registrations == 4  # pyright: ignore[reportPrivateUsage]  # the two new arrays, once for 3 calls
    assert timing.kernel_s > 0
    assert timing.with_copies_s == timing.kernel_s
    np.testing.assert_array_equal(inputs[0], expected[0])  # restored before each call
    np.testing.assert_array_equal(inputs[1], expected[1])
    gpu.close()
    assert gpu._pins is None  # pyright: ignore[reportPrivateUsage]  # close() unpins
