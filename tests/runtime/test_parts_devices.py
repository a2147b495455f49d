"""Parts over several devices (issue #15) on the CPU emulation: `CpuProgram(devices=N)` runs
the multi-lane schedule of the GPU executor (one lane per device, each pulling the next part
from one queue, slots of its own) and must leave gcc's results: several parts per device, an
uneven last part, halos, several nests, a time loop around nests, parts finishing out of
order."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import autogpu
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.runtime.lanes import LaneRecord, PartQueue, check_devices, part_bytes, run_lanes
from autogpu.runtime.parts import SLOTS, Part, Slice
from autogpu.testing.gcc_reference import compile_c_reference
from tests.paths import EXAMPLES

JACOBI_2D = (EXAMPLES / "omp" / "jacobi_2d.c").read_text()
MM2 = (EXAMPLES / "omp" / "mm2.c").read_text()
STENCIL = """
void jacobi(long n, long m, const double in[n][m], double out[n][m]) {
#pragma omp parallel for collapse(2)
  for (long i = 1; i < n - 1; i++)
    for (long j = 1; j < m - 1; j++)
      out[i][j] = 0.25 * (in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1]);
}
"""


def _run(source: str, name: str, args: list[np.ndarray | float], budget: int, devices: int,
         pipeline: str = "autogpu-optimize") -> CpuProgram:
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    compile_c_reference(source, name)(*expected)
    kernel = autogpu.compile(source, pipeline=f"agpu-out-of-core,{pipeline}")
    program = kernel.program("cpu", memory_budget=budget, devices=devices)
    program.run(name, *args)
    for got, want in zip(args, expected, strict=True):
        if isinstance(got, np.ndarray):
            np.testing.assert_allclose(got, want, rtol=1e-12)
    return program


def _each_part_once(program: CpuProgram) -> None:
    for plan, records in zip(program.last_plans, program.last_lanes, strict=True):
        assert len(records) == len(program.devices)
        taken = sorted(index for record in records for index in record.parts)
        assert taken == list(range(len(plan.parts)))


@pytest.mark.parametrize("devices", [2, 3])
@pytest.mark.parametrize("pipeline", ["autogpu-vanilla", "autogpu-optimize"])
def test_a_stencil_over_emulated_devices_matches_gcc(devices: int, pipeline: str):
    n, m = 61, 17
    rng = np.random.default_rng(devices)
    a, out = rng.random((n, m)), rng.random((n, m))
    budget = SLOTS * 8 * m * 8  # 3 rows computed per part: 5 rows in (2 of halo), 3 out
    program = _run(STENCIL, "jacobi", [n, m, a, out], budget, devices, pipeline)
    (plan,) = program.last_plans
    assert len(plan.parts) >= 3 * devices
    assert (n - 2) % plan.rows  # an uneven last part
    read, written = plan.parts[1].slices
    assert read.first < written.first  # a halo row above the part, re-read from the host
    _each_part_once(program)
    (records,) = program.last_lanes
    itemsize = {"in": 8, "out": 8}
    assert sum(r.bytes_in for r in records) == sum(part_bytes(p, itemsize)[0] for p in plan.parts)
    assert sum(r.bytes_out for r in records) == (n - 2) * m * 8


@pytest.mark.parametrize(("steps", "n"), [(0, 23), (3, 40), (2, 23)])
def test_a_time_loop_of_two_nests_over_emulated_devices_matches_gcc(steps: int, n: int):
    rng = np.random.default_rng(steps * 10 + n)
    a, b = rng.random((n, n)), rng.random((n, n))
    budget = SLOTS * 8 * n * 5
    program = _run(JACOBI_2D, "jacobi_2d", [steps, n, a, b], budget, 2)
    assert len(program.last_plans) == 2 * steps
    assert all(len(p.parts) >= 6 for p in program.last_plans)
    _each_part_once(program)


def test_several_nests_with_a_resident_array_over_emulated_devices_match_gcc():
    ni, nj, nk, nl = 37, 11, 13, 9
    rng = np.random.default_rng(7)
    arrays = [rng.random(shape) for shape in ((ni, nj), (ni, nk), (nk, nj), (nj, nl), (ni, nl))]
    budget = 8 * (nk * nj + SLOTS * 4 * (nj + nk))  # B resident and 4 rows of tmp and A
    program = _run(MM2, "mm2", [ni, nj, nk, nl, 1.5, 1.2, *arrays], budget, 2)
    assert len(program.last_plans) == 2
    assert [len(p.parts) for p in program.last_plans] == [10, 8]  # >= 3 per device
    _each_part_once(program)


def test_a_kernel_builds_a_program_for_a_device_list_once():
    kernel = autogpu.compile(STENCIL, pipeline="agpu-out-of-core,autogpu-optimize")
    program = kernel.program("cpu", devices=[0, 1])
    assert program.devices == (0, 1)
    assert kernel.program("cpu", devices=[0, 1]) is program


def test_one_emulated_device_runs_the_parts_in_order():
    n, m = 40, 8
    program = _run(STENCIL, "jacobi", [n, m, np.ones((n, m)), np.zeros((n, m))],
                   SLOTS * 8 * m * 6, 1)
    (records,) = program.last_lanes
    assert [r.device for r in records] == [0]
    assert records[0].parts == list(range(len(program.last_plan.parts)))


def _fake_parts(count: int) -> list[Part]:
    return [Part(k, k, k + 1, (Slice("x", k, k + 1, (k, k + 1)),)) for k in range(count)]


def test_a_slow_lane_takes_fewer_parts_and_parts_finish_out_of_order():
    finished: list[int] = []
    lock = threading.Lock()

    def lane(device: int, queue: PartQueue, record: LaneRecord) -> None:
        while (part := queue.take()) is not None:
            time.sleep(0.05 if device == 0 else 0.002)  # device 0 is 25 times slower
            with lock:
                finished.append(part.index)
            record.parts.append(part.index)

    slow, fast = run_lanes([0, 1], lane, _fake_parts(12))
    assert sorted(slow.parts + fast.parts) == list(range(12))
    assert len(slow.parts) < len(fast.parts)  # the measured weights, not an even deal
    assert finished != sorted(finished)  # part 0 (the slow lane's) finishes after later parts


def test_an_error_in_one_lane_stops_the_others_and_is_raised():
    def lane(device: int, queue: PartQueue, record: LaneRecord) -> None:
        while (part := queue.take()) is not None:
            if device == 1:
                raise RuntimeError(f"device {device} failed on part {part.index}")
            time.sleep(0.001)
            record.parts.append(part.index)

    with pytest.raises(RuntimeError, match="device 1 failed"):
        run_lanes([0, 1], lane, _fake_parts(50))


@pytest.mark.parametrize(("devices", "message"), [
    ([], "at least one device"),
    (0, "at least one device"),
    ([0, 0], "names a device twice"),
    ([-1], "not a device ordinal"),
    (["0"], "not a device ordinal"),
    ("01", "a device count or a list"),
    ([0, 2], "there is no device 2: there are 2"),
])
def test_bad_devices_are_refused_clearly(devices: object, message: str):
    with pytest.raises(ValueError, match=message):
        check_devices(devices, 2)


def test_a_cpu_program_refuses_an_empty_device_list():
    kernel = autogpu.compile(STENCIL, pipeline="agpu-out-of-core,autogpu-optimize")
    with pytest.raises(ValueError, match="at least one device"):
        CpuProgram(kernel.cuda_source, kernel.launch_description, devices=[])
