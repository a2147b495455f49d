"""Out-of-core runs keep arrays on the device between nests (runtime.keep, issue #13): where a
function's data exceed the budget but one run of a nest fits it, the run goes in-core on device
copies that stay for the next runs; only what a run wrote is copied back, when evicted or at
the end. The CPU emulation keeps them in buffers of its own; every result must be gcc's."""

from __future__ import annotations

import numpy as np
import pytest

import autogpu
from autogpu.runtime import cuda_exec
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.runtime.keep import HostBuffers, KeptArrays
from autogpu.testing.gcc_reference import compile_c_reference
from tests.paths import EXAMPLES

NO_GPU = cuda_exec.gpu_unavailable_reason()
needs_gpu = pytest.mark.skipif(NO_GPU is not None, reason=f"needs a CUDA GPU: {NO_GPU}")

MM2 = (EXAMPLES / "omp" / "mm2.c").read_text()
ROTATE = """
void rotate(int t, int n, double *a, double *b, double *c) {
  for (int s = 0; s < t; s++) {
#pragma omp parallel for
    for (int i = 1; i < n - 1; i++)
      b[i] = 0.5 * (a[i - 1] + a[i + 1]) + s;
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      c[i] = b[i] * 0.25 + c[i];
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      a[i] = c[i] - a[i];
  }
}
"""


def _run(source: str, name: str, args: list, budget: int,
         pipeline: str = "autogpu-optimize") -> CpuProgram:
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    compile_c_reference(source, name)(*expected)
    kernel = autogpu.compile(source, pipeline=f"agpu-out-of-core,{pipeline}")
    program = CpuProgram(kernel.cuda_source, kernel.launch_description, memory_budget=budget)
    program.run(name, *args)
    for got, want in zip(args, expected, strict=True):
        if isinstance(got, np.ndarray):
            np.testing.assert_allclose(got, want, rtol=1e-12)
    return program


def _mm2_args(seed: int = 2) -> list:
    ni, nj, nk, nl = 37, 11, 13, 9
    rng = np.random.default_rng(seed)
    return [ni, nj, nk, nl, 1.5, 0.5, rng.random((ni, nj)), rng.random((ni, nk)),
            rng.random((nk, nj)), rng.random((nj, nl)), rng.random((ni, nl))]


def test_the_second_nest_reads_tmp_where_the_first_left_it():
    args = _mm2_args()
    nbytes = {name: a.nbytes for name, a in zip(["tmp", "A", "B", "C", "D"], args[6:])}
    first, second = (sum(nbytes[n] for n in names.split()) for names in ("tmp A B", "tmp C D"))
    budget = max(first, second) + 8  # each nest fits, not both
    assert budget < sum(nbytes.values())
    program = _run(MM2, "mm2", args, budget)
    kept = program.kept.last
    assert kept.copied_in == ["A", "B", "tmp", "C", "D"]  # tmp once: the second nest reuses it
    assert sorted(kept.copied_out) == ["D", "tmp"]  # only what the nests wrote comes back
    assert [p.in_core for p in program.last_plans] == [True, True]


def test_a_nest_in_parts_between_kept_runs_sees_their_writes():
    args = _mm2_args(3)
    tmp, a, b, c, d = (x.nbytes for x in args[6:])
    budget = tmp + c + d + 8  # the second nest fits, the first runs in parts
    assert budget < tmp + a + b
    program = _run(MM2, "mm2", args, budget)
    first, second = program.last_plans
    assert not first.in_core
    assert len(first.parts) >= 3
    assert second.in_core
    assert program.kept.last.copied_in == ["C", "D", "tmp"]


@pytest.mark.parametrize(("steps", "n"), [(0, 9), (1, 1), (3, 0), (4, 37)])
def test_a_time_loop_keeps_two_of_three_arrays_on_the_device(steps, n):
    rng = np.random.default_rng(n)
    a, b, c = rng.random(n), rng.random(n), rng.random(n)
    budget = max(2 * 8 * n, 1)  # two of the three arrays
    program = _run(ROTATE, "rotate", [steps, n, a, b, c], budget)
    if n > 1 and steps:
        kept = program.kept.last
        assert len(program.last_plans) == 3 * steps
        # each run brings in the one array it lacks; without keeping, each copied two
        assert len(kept.copied_in) == 2 + 3 * steps - 1
        assert len(kept.copied_out) < len(kept.copied_in)


def test_eviction_copies_back_only_written_arrays():
    arrays = {name: np.full(4, value) for name, value in (("x", 1.0), ("y", 2.0), ("z", 3.0))}
    kept = KeptArrays(arrays, 64, HostBuffers())
    kept.prepare(["x", "y"], written=["y"])
    kept.prepare(["y", "z"], written=[])  # x is evicted: it was only read, nothing copied
    assert (kept.copied_in, kept.copied_out) == (["x", "y", "z"], [])
    kept.prepare(["x"], written=["x"])  # y (written) is the least recently used: copied out
    assert kept.copied_out == ["y"]
    kept.flush()
    assert kept.copied_out == ["y", "x"]
    assert not kept.kept


@needs_gpu
def test_the_gpu_keeps_tmp_between_the_nests_of_mm2():
    args = _mm2_args(4)
    expected = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    compile_c_reference(MM2, "mm2")(*expected)
    tmp, a, b = (x.nbytes for x in args[6:9])
    kernel = autogpu.compile(MM2, pipeline="agpu-out-of-core,autogpu-optimize")
    gpu = cuda_exec.CudaProgram(kernel.cuda_source, kernel.launch_description, fmad=False,
                                memory_budget=tmp + a + b + 8)
    gpu.run("mm2", *args)
    assert gpu.kept.last.copied_in == ["A", "B", "tmp", "C", "D"]
    for got, want in zip(args, expected, strict=True):
        if isinstance(got, np.ndarray):
            np.testing.assert_allclose(got, want, rtol=1e-12)


def test_the_gpu_launcher_passes_null_for_arrays_the_nest_does_not_touch():
    """A kernel of one nest of mm2 receives every array parameter; those outside the nest's
    footprint have no device copy and go as null pointers (they were once packed as the
    caller's host arrays, which pycuda refuses)."""
    from types import SimpleNamespace as Ns

    from autogpu.runtime.pipeline import stream_launcher

    calls = []
    kernel = Ns(prepared_async_call=lambda grid, block, stream, *values, shared_size:
                calls.append(values))
    program = Ns(_ready=lambda *_: None, device=0, _kernels_on={0: {"k": kernel}})
    params = [Ns(name="n", is_array=False), Ns(name="x", is_array=True),
              Ns(name="y", is_array=True)]
    call = Ns(function=Ns(params=params), values={"n": 7})
    one = Ns(config=Ns(empty=False, grid=(1, 1, 1), block=(32, 1, 1), dynamic_shared_bytes=0),
             entry=Ns(kernel="k", args=["n", "x", "y"]),
             argument=lambda name, c: c.values[name])
    stream_launcher(program, None)(call, [one], {"x": 4096}, None)
    assert calls == [(7, 4096, 0)]
