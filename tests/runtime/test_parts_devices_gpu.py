"""Parts over two GPUs of a host (issue #15): `CudaProgram(devices=[0, 1])` runs one lane per
device and must leave gcc's results; both devices take parts. Skips without two CUDA GPUs."""

from __future__ import annotations

import numpy as np
import pytest

import autogpu
from autogpu.runtime import cuda_exec
from autogpu.runtime.parts import SLOTS
from autogpu.testing.gcc_reference import compile_c_reference
from tests.paths import EXAMPLES
from tests.runtime.test_parts_devices import STENCIL


def _two_gpus() -> str | None:
    reason = cuda_exec.gpu_unavailable_reason()
    if reason is not None:
        return reason
    count = cuda_exec._driver().Device.count()  # pyright: ignore[reportPrivateUsage]  # the driver the executor uses
    return None if count >= 2 else f"there is {count} GPU"


NO_TWO_GPUS = _two_gpus()
needs_two_gpus = pytest.mark.skipif(NO_TWO_GPUS is not None,
                                    reason=f"needs two CUDA GPUs: {NO_TWO_GPUS}")
JACOBI_2D = (EXAMPLES / "omp" / "jacobi_2d.c").read_text()


def _run(source: str, name: str, args: list[np.ndarray | int],
         budget: int) -> cuda_exec.CudaProgram:
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    compile_c_reference(source, name)(*expected)
    kernel = autogpu.compile(source, pipeline="agpu-out-of-core,autogpu-optimize")
    program = kernel.program("cuda", memory_budget=budget, devices=[0, 1])
    program.run(name, *args)
    for got, want in zip(args, expected, strict=True):
        if isinstance(got, np.ndarray):
            np.testing.assert_allclose(got, want, rtol=1e-12)
    return program


@needs_two_gpus
def test_a_stencil_over_two_gpus_matches_gcc():
    n, m = 4001, 515
    rng = np.random.default_rng(1)
    program = _run(STENCIL, "jacobi", [n, m, rng.random((n, m)), rng.random((n, m))],
                   SLOTS * 8 * m * 300)
    (plan,) = program.last_plans
    (records,) = program.last_lanes
    assert len(plan.parts) >= 6
    assert sorted(i for r in records for i in r.parts) == list(range(len(plan.parts)))
    assert [r.device for r in records] == [0, 1]
    assert all(r.parts and r.seconds > 0 for r in records)


@needs_two_gpus
def test_a_time_loop_over_two_gpus_matches_gcc():
    n = 301
    rng = np.random.default_rng(2)
    program = _run(JACOBI_2D, "jacobi_2d", [3, n, rng.random((n, n)), rng.random((n, n))],
                   SLOTS * 8 * n * 40)
    assert len(program.last_plans) == 6
    assert all(len(p.parts) >= 6 for p in program.last_plans)


@needs_two_gpus
def test_an_unknown_gpu_is_refused():
    kernel = autogpu.compile(STENCIL, pipeline="agpu-out-of-core,autogpu-optimize")
    with pytest.raises(ValueError, match="there is no device 99"):
        kernel.program("cuda", devices=[0, 99])
