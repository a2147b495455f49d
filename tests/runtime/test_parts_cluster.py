"""Parts over several hosts through Dask distributed (issue #15), on a `LocalCluster` of two
worker processes: `CpuProgram(cluster=)` and `CudaProgram(cluster=)` send each part's slices to
a worker (its CPU, or its GPU) and land its outputs in the caller's arrays; results must be
gcc's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import autogpu
from autogpu.runtime import cuda_exec
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.runtime.parts import SLOTS
from autogpu.testing.gcc_reference import compile_c_reference
from tests.paths import EXAMPLES
from tests.runtime.test_parts_devices import STENCIL

distributed = pytest.importorskip(
    "distributed", reason="Dask distributed, the 'cluster' extra: pip install -e '.[cluster]'")

JACOBI_2D = (EXAMPLES / "omp" / "jacobi_2d.c").read_text()
MM2 = (EXAMPLES / "omp" / "mm2.c").read_text()


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:  # a distributed.LocalCluster (untyped)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as local:
        yield local


NO_GPU = cuda_exec.gpu_unavailable_reason()
needs_gpu = pytest.mark.skipif(NO_GPU is not None, reason=f"needs a CUDA GPU: {NO_GPU}")


def _run(cluster: Any, source: str, name: str, args: list[np.ndarray | float], budget: int,
         program_class: type[CpuProgram | cuda_exec.CudaProgram] = CpuProgram):
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    compile_c_reference(source, name)(*expected)
    kernel = autogpu.compile(source, pipeline="agpu-out-of-core,autogpu-optimize")
    program = program_class(kernel.cuda_source, kernel.launch_description,
                            memory_budget=budget, cluster=cluster)
    try:
        program.run(name, *args)
    finally:
        program.close()
    for got, want in zip(args, expected, strict=True):
        if isinstance(got, np.ndarray):
            np.testing.assert_allclose(got, want, rtol=1e-12)
    for plan, records in zip(program.last_plans, program.last_lanes, strict=True):
        assert sorted(i for r in records for i in r.parts) == list(range(len(plan.parts)))
    return program


def test_a_stencil_on_a_local_cluster_matches_gcc(cluster: Any):
    n, m = 61, 17
    rng = np.random.default_rng(3)
    program = _run(cluster, STENCIL, "jacobi", [n, m, rng.random((n, m)), rng.random((n, m))],
                   SLOTS * 8 * m * 8)
    (plan,) = program.last_plans
    assert len(plan.parts) >= 6
    assert (n - 2) % plan.rows  # an uneven last part


def test_a_time_loop_on_a_local_cluster_matches_gcc(cluster: Any):
    n = 23
    rng = np.random.default_rng(4)
    program = _run(cluster, JACOBI_2D, "jacobi_2d", [2, n, rng.random((n, n)),
                                                     rng.random((n, n))], SLOTS * 8 * n * 5)
    assert len(program.last_plans) == 4


def test_two_nests_with_resident_matrices_on_a_local_cluster_match_gcc(cluster: Any):
    ni, nj, nk, nl = 37, 11, 13, 9
    rng = np.random.default_rng(5)
    arrays = [rng.random(shape) for shape in ((ni, nj), (ni, nk), (nk, nj), (nj, nl), (ni, nl))]
    program = _run(cluster, MM2, "mm2", [ni, nj, nk, nl, 1.5, 1.2, *arrays],
                   8 * (nk * nj + SLOTS * 4 * (nj + nk)))
    assert [p.resident for p in program.last_plans] == [("B",), ("C",)]


@needs_gpu
def test_gpu_workers_run_a_stencil_and_resident_matrices_on_a_local_cluster(cluster: Any):
    """`CudaProgram(cluster=)`: each worker builds the program on its own GPU (worker i takes
    device i mod count) and runs its parts there; the caller's call is the one-GPU call."""
    n, m = 61, 17
    rng = np.random.default_rng(6)
    program = _run(cluster, STENCIL, "jacobi", [n, m, rng.random((n, m)), rng.random((n, m))],
                   SLOTS * 8 * m * 8, cuda_exec.CudaProgram)
    (plan,) = program.last_plans
    assert len(plan.parts) >= 6
    (records,) = program.last_lanes
    assert len(records) == 2  # both workers took parts (the tasks outnumber them)
    ni, nj, nk, nl = 37, 11, 13, 9
    arrays = [rng.random(shape) for shape in ((ni, nj), (ni, nk), (nk, nj), (nj, nl), (ni, nl))]
    program = _run(cluster, MM2, "mm2", [ni, nj, nk, nl, 1.5, 1.2, *arrays],
                   8 * (nk * nj + SLOTS * 4 * (nj + nk)), cuda_exec.CudaProgram)
    assert [p.resident for p in program.last_plans] == [("B",), ("C",)]


def test_an_unreachable_scheduler_is_a_clear_error():
    kernel = autogpu.compile(STENCIL, pipeline="agpu-out-of-core,autogpu-optimize")
    with pytest.raises(ConnectionError,
                       match=r"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9"):
        CpuProgram(kernel.cuda_source, kernel.launch_description, cluster="tcp://127.0.0.1:9")


def test_a_cluster_of_the_wrong_kind_is_refused():
    kernel = autogpu.compile(STENCIL, pipeline="agpu-out-of-core,autogpu-optimize")
    with pytest.raises(ValueError, match="cluster must be a scheduler address"):
        CpuProgram(kernel.cuda_source, kernel.launch_description, cluster=8786)
