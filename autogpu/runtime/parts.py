"""The part scheduler: a function made by `agpu-out-of-core` runs its nest in parts of the
outermost parallel loop whose data fit a device-memory budget (docs/out-of-core.md).

The launch description's `parts` entry gives the loop's bounds and, per array, the elements
`[first, end)` a part `[lo, hi)` reads and writes, as launch-language expressions over the
scalar parameters and the part's bounds. `plan_parts` picks the most rows per part such that
the arrays read whole (resident, copied once) plus `SLOTS` part buffers (part k+1 copied in and part
k-1 out while part k computes) fit the budget; the last part takes what is left.
Each part copies in what it reads or writes (a written row is copied back whole, so the
elements of it the kernel leaves alone must hold the caller's values; rows it provably
overwrites whole, `alloc`, are not copied in), runs the function's
launches with `agpu_part_lo/hi` set and every array passed as its part buffer's address minus
`first` elements, so the kernel's own indexing of the whole array lands in the buffer, and
copies out what it writes. Parts write disjoint rows, so their order does not matter.

Where everything fits, the plan is one part over the whole loop on the caller's arrays: the
program runs in-core exactly as it would without parts. `memory_budget` is an option of the
executors (`CpuProgram`, `CudaProgram`, `Kernel.program`), not of a pass: the kernels do not
depend on it. The GPU's default is its free memory; the CPU emulation's is unlimited, and a
small budget makes it run the very schedule the GPU runs (separate per-part buffers, offsets,
copies), which is how CI tests it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from autogpu.runtime.arguments import (
    BoundCall,
    Function,
    KernelArgumentError,
    KernelLaunchError,
)
from autogpu.runtime.errors import LaunchDescriptionError
from autogpu.runtime.keep import KeptArrays
from autogpu.runtime.parts_spec import ArrayParts as ArrayParts
from autogpu.runtime.parts_spec import PartsSpec as PartsSpec
from autogpu.target.launch import evaluate
from autogpu.target.launch_steps import run_steps

SLOTS = 3
"""Part buffers per array and device: part k+1 is copied in and part k-1 out while part k
computes."""
ROW_ALIGN = 128
"""Rows per part are a multiple of this where there are more: a tiled kernel's row tiles (up to
128 rows: `autogpu-tiled`'s block times its register tile) then start on a part's first row
and are whole in every part but the last, so the guard-free whole-tile path runs."""
MAX_PART_BYTES = 1 << 30
"""A part's buffers hold at most this much (when the budget allows more): many parts keep the
pipeline's fill and drain (the first copy in, the last copy out) small against its length,
and copies of hundreds of MiB already run at the link's full speed."""


@dataclass(frozen=True)
class Slice:
    """Elements `[first, end)` of one array in one part: what is read or written, the buffer's
    contents, copied in unless `copied_in` is False (rows the part overwrites whole and never
    reads: `alloc`); `copy_out` (what is written; None if nothing)."""

    name: str
    first: int
    end: int
    copy_out: tuple[int, int] | None
    copied_in: bool = True

    @property
    def count(self) -> int:
        return self.end - self.first


@dataclass(frozen=True)
class Part:
    """Rows `[lo, hi)` of the split loop and the slice of each partitioned array."""

    index: int
    lo: int
    hi: int
    slices: tuple[Slice, ...]


@dataclass(frozen=True)
class PartPlan:
    """What the executors run: `parts` (empty: nothing to do), the arrays copied whole once
    (`resident`), and `in_core` when one part on the caller's arrays does it all."""

    spec: PartsSpec
    rows: int
    parts: tuple[Part, ...]
    resident: tuple[str, ...]
    in_core: bool
    part_bytes: int  # the largest part's buffers, for one slot
    resident_bytes: int
    budget: int | None
    buffer_elements: Mapping[str, int] = field(default_factory=dict[str, int])

    @property
    def device_bytes(self) -> int:
        """What the plan keeps on a device at most."""
        return self.resident_bytes + SLOTS * self.part_bytes


def bind_part_call(function: Function, specs: Sequence[PartsSpec], call_args: Sequence[Any],
                   named: Mapping[str, Any], bind: Any) -> BoundCall:
    """Binds the caller's arguments (without the part bounds, which the scheduler sets)."""
    bounds = {name: 0 for spec in specs for name in (spec.lo, spec.hi)}
    for name in bounds:
        if name in named:
            raise KernelArgumentError(f"{function.name}(): '{name}' is set by the part scheduler, "
                                      "not by the caller")
    return bind(function, call_args, {**named, **bounds})


def with_part(call: BoundCall, spec: PartsSpec, lo: int, hi: int) -> BoundCall:
    """The call with the part's bounds as its `agpu_part_lo/hi` arguments."""
    values = dict(call.values)
    for name, value in ((spec.lo, lo), (spec.hi, hi)):
        values[name] = call.function.param(name).dtype.type(value)
    return BoundCall(call.function, values)


def _scalars(call: BoundCall) -> dict[str, Any]:
    return {p.name: call.values[p.name] for p in call.function.params if not p.is_array}


@dataclass(frozen=True)
class NestRun:
    """One run of one nest as the function's host program reaches it: the nest's `spec`, the
    positions of its launches in the call's launch trace (`launch_trace`), and the host loop
    counters in scope (a time loop's step)."""

    spec: PartsSpec
    positions: tuple[int, ...]
    counters: Mapping[str, Any]


def nest_runs(call: BoundCall, specs: Sequence[PartsSpec]) -> list[NestRun]:
    """The runs of the function's nests, in the order its host program runs them: consecutive
    launches of one nest in one pass over it (each launch after the previous one, the same
    counters) are one run; a time loop around a nest runs it once per step."""
    scalars = _scalars(call)
    names = {p.name for p in call.function.params}
    launches = call.function.launches
    runs: list[tuple[int, list[int], dict[str, Any], int]] = []  # nest, positions, counters, last
    position = 0

    def launch(index: int, env: Mapping[str, Any]) -> None:
        nonlocal position
        nest = 0 if len(specs) == 1 else launches[index].part_nest
        if nest is None or not 0 <= nest < len(specs):
            raise LaunchDescriptionError(
                f"launch {index} of '{call.function.name}' runs none of the nests in parts (its "
                "'part_nest' is missing or out of range)")
        counters = {k: v for k, v in env.items() if k not in names}
        if runs and runs[-1][0] == nest and runs[-1][2] == counters and runs[-1][3] < index:
            runs[-1][1].append(position)
            runs[-1] = (nest, runs[-1][1], counters, index)
        else:
            runs.append((nest, [position], counters, index))
        position += 1

    try:
        run_steps(call.function.steps or [{"launch": i} for i in range(len(launches))],
                  scalars, launch)
    except ValueError as e:
        raise KernelLaunchError(f"the host program of '{call.function.name}': {e}") from None
    return [NestRun(specs[nest], tuple(positions), counters)
            for nest, positions, counters, _ in runs]


def whole_call(call: BoundCall, specs: Sequence[PartsSpec]) -> BoundCall:
    """The call with every nest's part bounds set to the nest's whole loop (in-core)."""
    scalars = _scalars(call)
    for spec in specs:
        try:
            lb, ub = evaluate(spec.lb, scalars), evaluate(spec.ub, scalars)
        except ValueError as e:
            raise KernelLaunchError(f"the parts of '{call.function.name}': {e}") from None
        call = with_part(call, spec, lb, ub)
    return call


def used_bytes(call: BoundCall, specs: Sequence[PartsSpec]) -> int:
    """The bytes of every array some nest touches."""
    arrays = call.host_arrays()
    used = {a.name for spec in specs for a in spec.arrays}
    return sum(arrays[name].nbytes for name in used if name in arrays)


def run_nests(call: BoundCall, specs: Sequence[PartsSpec], budget: int | None,
              run_whole: Callable[[BoundCall], None],
              run_plan: Callable[[PartPlan, tuple[int, ...]], None],
              keep: KeepHooks | None = None) -> list[PartPlan]:
    """Runs a call of a function made by `agpu-out-of-core`: in-core (`run_whole`, every
    nest's bounds its whole loop) when everything its nests touch fits `budget`, else each run
    of each nest in turn (`nest_runs`): in-core on arrays kept on the device between runs
    (`keep`, runtime.keep) where the run's own arrays fit, else as a plan of parts,
    `run_plan(plan, positions)` running the launches at those positions of the trace for each
    part. Returns the plans."""
    if budget is None or used_bytes(call, specs) <= budget:
        plans = [plan_parts(call, spec, budget) for spec in specs]
        run_whole(whole_call(call, specs))
        return plans
    plans: list[PartPlan] = []
    kept = keep.arrays(call.host_arrays(), budget) if keep is not None else None
    try:
        for run in nest_runs(call, specs):
            names = [a.name for a in run.spec.arrays]
            if keep is not None and kept is not None and kept.fits(names):
                pointers = kept.prepare(names, [a.name for a in run.spec.arrays if a.write])
                keep.run(whole_call(call, specs), run.positions, pointers)
                plans.append(plan_parts(call, run.spec, budget, run.counters))
                continue
            if kept is not None:
                kept.flush()  # the parts read and write the caller's arrays
            plan = plan_parts(call, run.spec, budget, run.counters, in_core=False)
            run_plan(plan, run.positions)
            plans.append(plan)
        if kept is not None:
            kept.flush()
    finally:
        if keep is not None and kept is not None:
            keep.last = kept
            kept.release()
    return plans


@dataclass
class KeepHooks:
    """How an executor keeps arrays on its device between the runs of nests: `arrays(host,
    budget)` makes the `KeptArrays`, `run(call, positions, pointers)` runs the launches at
    `positions` on the kept arrays' device addresses; `last` is the last call's (its copies)."""

    arrays: Callable[[Mapping[str, np.ndarray], int], KeptArrays]
    run: Callable[[BoundCall, tuple[int, ...], Mapping[str, int]], None]
    last: KeptArrays | None = None


def plan_parts(call: BoundCall, spec: PartsSpec, budget: int | None,
               counters: Mapping[str, Any] | None = None, in_core: bool = True) -> PartPlan:
    """The parts of `call`'s nest `spec` under `budget` bytes of device memory (None: no
    limit), `counters` the host loop counters in scope; with `in_core` False the plan runs on
    part buffers even where everything fits (one nest of several, whose data does not stay on
    the device)."""
    scalars = {**_scalars(call), **(counters or {})}
    arrays = call.host_arrays()
    known = {a.name for a in spec.arrays}
    if unknown := known - set(arrays):
        raise LaunchDescriptionError(f"'parts' names no array {', '.join(sorted(unknown))}")
    try:
        lb, ub = evaluate(spec.lb, scalars), evaluate(spec.ub, scalars)
    except ValueError as e:
        raise KernelLaunchError(f"the parts of '{call.function.name}': {e}") from None
    total = max(0, ub - lb)
    resident = tuple(a.name for a in spec.arrays if a.whole)
    # arrays the nest does not touch are not copied; arrays read whole go once
    resident_bytes = sum(arrays[n].nbytes for n in resident)
    everything = sum(arrays[a.name].nbytes for a in spec.arrays)
    split = [a for a in spec.arrays if not a.whole]

    def slices(lo: int, hi: int, clip: bool) -> tuple[Slice, ...]:
        env = {**scalars, spec.lo: lo, spec.hi: hi}
        result: list[Slice] = []
        for a in split:
            size = arrays[a.name].size
            ranges = [tuple(evaluate(e, env) for e in r) for r in (a.read, a.write) if r]
            first, end = min(r[0] for r in ranges), max(r[1] for r in ranges)
            out = (evaluate(a.write[0], env), evaluate(a.write[1], env)) if a.write else None
            if clip:
                first, end = max(0, first), min(size, end)
                end = max(first, end)
                if out is not None:
                    out = (max(0, out[0]), max(max(0, out[0]), min(size, out[1])))
            result.append(Slice(a.name, first, end, out, not (a.alloc and a.read is None)))
        return tuple(result)

    def part_bytes(rows: int) -> int:
        return sum(s.count * arrays[s.name].itemsize for s in slices(lb, lb + rows, False))

    def whole_part() -> Part:
        return Part(0, lb, ub, slices(lb, ub, True))

    if total == 0:
        return PartPlan(spec, 0, (), resident, True, 0, resident_bytes, budget)
    if budget is None or (in_core and everything <= budget):
        return PartPlan(spec, total, (whole_part(),), resident, True, everything,
                        resident_bytes, budget)
    def fits(rows: int) -> bool:
        return resident_bytes + SLOTS * part_bytes(rows) <= budget and (
            rows == 1 or part_bytes(rows) <= MAX_PART_BYTES)

    if not fits(1):
        raise KernelLaunchError(
            f"'{call.function.name}' cannot run in parts within a memory budget of {budget} "
            f"bytes: the arrays read whole take {resident_bytes} and {SLOTS} buffers of one "
            f"row {SLOTS * part_bytes(1)}")
    low, high = 1, total  # the most rows that fit: binary search (the bytes grow with rows)
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if fits(middle) else (low, middle - 1)
    rows = low - low % ROW_ALIGN if low > ROW_ALIGN else low
    parts = tuple(
        Part(k, lo, min(lo + rows, ub), slices(lo, min(lo + rows, ub), True))
        for k, lo in enumerate(range(lb, ub, rows))
    )
    elements: dict[str, int] = {}
    for part in parts:
        for s in part.slices:
            elements[s.name] = max(elements.get(s.name, 0), s.count)
    return PartPlan(spec, rows, parts, resident, False, part_bytes(rows), resident_bytes,
                    budget, elements)


def shifted_pointer(address: int, first: int, itemsize: int) -> int:
    """The address the kernel gets for an array whose elements from `first` on live at
    `address`: its indexing of the whole array then lands in the buffer."""
    return address - first * itemsize


@dataclass
class CpuPartRunner:
    """Runs a plan on the CPU emulation with the GPU's schedule: per-slot part buffers of
    their own (NumPy), copies in and out, shifted pointers; `launch(call, pointers)` runs the
    function's launches of one part. With `devices` > 1 it emulates that many devices: one lane
    each (a thread with its own slots), pulling parts from one queue (`runtime.lanes`), as the
    GPU executor's lanes do; `records` then holds what each lane did."""

    plan: PartPlan
    call: BoundCall
    timeline: list[tuple[str, int, float, float]] | None = None  # (stage, part, start, end)
    devices: int = 1
    records: list[Any] = field(default_factory=list[Any])  # runtime.lanes.LaneRecord per device

    def run(self, launch: Callable[[BoundCall, dict[str, int]], None]) -> None:
        from autogpu.runtime.lanes import LaneRecord, part_bytes, run_lanes

        arrays = self.call.host_arrays()
        itemsize = {name: array.itemsize for name, array in arrays.items()}
        pointers = {name: arrays[name].ctypes.data for name in self.plan.resident}
        lock = threading.Lock()  # the timeline is shared by the lanes

        def stage(what: str, part: Part, work: Any) -> tuple[float, float]:
            start = time.perf_counter()
            work()
            end = time.perf_counter()
            if self.timeline is not None:
                with lock:
                    self.timeline.append((what, part.index, start, end))
            return start, end

        def run_part(part: Part, buffers: dict[str, np.ndarray], record: LaneRecord) -> None:
            part_pointers = dict(pointers)

            def copy_in() -> None:
                for s in part.slices:
                    if s.copied_in:
                        buffers[s.name][: s.count] = arrays[s.name].reshape(-1)[s.first : s.end]
                    else:  # poisoned: an element the kernel failed to write shows in the result
                        buffers[s.name][: s.count].view(np.uint8).fill(0xA5)

            def copy_out() -> None:
                for s in part.slices:
                    if s.copy_out is not None:
                        first, end = s.copy_out
                        arrays[s.name].reshape(-1)[first:end] = \
                            buffers[s.name][first - s.first : end - s.first]

            for s in part.slices:
                part_pointers[s.name] = shifted_pointer(
                    buffers[s.name].ctypes.data, s.first, itemsize[s.name])
            began, _ = stage("copy-in", part, copy_in)
            part_call = with_part(self.call, self.plan.spec, part.lo, part.hi)
            stage("kernel", part, lambda: launch(part_call, part_pointers))
            _, ended = stage("copy-out", part, copy_out)
            copied_in, copied_out = part_bytes(part, itemsize)
            record.parts.append(part.index)
            record.bytes_in += copied_in
            record.bytes_out += copied_out
            record.seconds += ended - began

        def slots() -> list[dict[str, np.ndarray]]:
            return [{name: np.empty(max(count, 1), arrays[name].dtype)
                     for name, count in self.plan.buffer_elements.items()}
                    for _ in range(SLOTS)]

        if self.devices == 1:  # one device: the parts in order, in this thread
            record = LaneRecord(0)
            buffers = slots()
            for part in self.plan.parts:
                run_part(part, buffers[part.index % SLOTS], record)
            self.records = [record]
            return

        def lane(device: int, queue: Any, record: LaneRecord) -> None:
            buffers = slots()
            while (part := queue.take()) is not None:
                run_part(part, buffers[len(record.parts) % SLOTS], record)

        self.records = run_lanes(range(self.devices), lane, self.plan.parts)
