"""The GPU side of out-of-core execution: a plan of parts (`runtime.parts`) run as a pipeline
over CUDA streams, so that copying part k+1 in and part k-1 out overlap computing part k.

Each device gets a lane: three streams (copies in, kernels, copies out, so both copy engines
and the SMs work at once), `SLOTS` part buffers per array, and the arrays read whole copied
once. The caller's arrays are page-locked in place (`cuMemHostRegister`, portable) and kept
so across calls (`HostPins`), so the asynchronous copies go straight from and to them, with no
staging copy. Events order the work: a part's kernels wait for its copy in, its copy out for its
kernels, and the copy in of part k + SLOTS for the copy out of part k (it reuses that buffer).
Parts write disjoint rows, so lanes need no ordering between them: with several devices
(`run_parts_on_devices`, issue #15) each has a lane in a host thread of its own, and a lane takes
the next part from one queue when one of its slots frees. With a `timeline` list, every stage's
start and end events are read back as (stage, part, start s, end s) from the (lane's) first
event.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from autogpu.runtime.arguments import BoundCall, KernelLaunchError, Launch, launch_trace
from autogpu.runtime.lanes import LaneRecord, PartQueue, part_bytes, run_lanes
from autogpu.runtime.parts import SLOTS, Part, PartPlan, shifted_pointer, with_part


class _Lane:
    """One device's streams and buffers."""

    def __init__(self, driver: Any, plan: PartPlan, arrays: Mapping[str, np.ndarray]):
        self.driver = driver
        self.copy_in, self.compute, self.copy_out = (driver.Stream() for _ in range(3))
        self.allocations: list[Any] = []
        self.resident: dict[str, int] = {}
        self.slots: list[dict[str, int]] = []
        self.freed: list[Any] = [None] * SLOTS  # the event after a slot's last copy out
        try:
            for name in plan.resident:
                buffer = self._allocate(arrays[name].nbytes)
                if arrays[name].nbytes:
                    driver.memcpy_htod(buffer, arrays[name])
                self.resident[name] = int(buffer)
            for _ in range(SLOTS):
                self.slots.append({
                    name: int(self._allocate(count * arrays[name].itemsize))
                    for name, count in plan.buffer_elements.items()})
        except driver.Error as e:
            self.free()
            raise KernelLaunchError(f"cannot allocate the part buffers on the device: {e}") \
                from None

    def _allocate(self, nbytes: int) -> Any:
        allocation = self.driver.mem_alloc(max(nbytes, 1))
        self.allocations.append(allocation)
        return allocation

    def free(self) -> None:
        for allocation in self.allocations:
            allocation.free()
        self.allocations = []


_PORTABLE = 1  # CU_MEMHOSTREGISTER_PORTABLE: pinned for every context (one per device)


@functools.cache
def _libcuda() -> Any:
    """The driver library, for cuMemHostRegister (pycuda's register_host_memory fails with
    NumPy 2: "returned a result with an exception set")."""
    library = ctypes.CDLL("libcuda.so.1")
    library.cuMemHostRegister_v2.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint]
    library.cuMemHostRegister_v2.restype = ctypes.c_int
    library.cuMemHostUnregister.argtypes = [ctypes.c_void_p]
    library.cuMemHostUnregister.restype = ctypes.c_int
    return library


_ALREADY_REGISTERED = 712  # CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED


def _cuda_register(address: int, nbytes: int) -> int:
    return _libcuda().cuMemHostRegister_v2(address, nbytes, _PORTABLE)


def _cuda_unregister(address: int) -> int:
    return _libcuda().cuMemHostUnregister(address)


def _owner(array: np.ndarray) -> np.ndarray:
    """The array that owns `array`'s memory (the end of its chain of views)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


class HostPins:
    """The caller's arrays page-locked in place (`cuMemHostRegister`) across calls, so that
    repeated calls on the same buffers pay the registration (a second or more for tens of GiB)
    once. Keyed by address and size; a range inside one already locked is not locked again. A
    registration ends when the array that owns the memory is collected (a weakref finalizer,
    which runs before NumPy frees the memory) or at `close()` (`CudaProgram.close`).
    `register`/`unregister` are the driver's (replaceable, to count them); `context` makes the
    device's context current for an unregistration that a collection triggers."""

    def __init__(self, register: Callable[[int, int], int] = _cuda_register,
                 unregister: Callable[[int], int] = _cuda_unregister,
                 context: Callable[[], contextlib.AbstractContextManager[Any]] =
                 contextlib.nullcontext):
        self._register, self._unregister, self._context = register, unregister, context
        self._pinned: dict[tuple[int, int], weakref.finalize[[tuple[int, int]], np.ndarray]] = {}
        self.registrations = 0

    def pin(self, name: str, array: np.ndarray) -> np.ndarray:
        """`array` page-locked, as a flat view."""
        address, nbytes = array.ctypes.data, array.nbytes
        if not any(first <= address and address + nbytes <= first + size
                   for (first, size), alive in self._pinned.items() if alive.alive):
            status = self._register(address, nbytes)
            if status != 0:
                why = " (it overlaps an array locked before)" \
                    if status == _ALREADY_REGISTERED else ""
                raise KernelLaunchError(f"cannot page-lock the array '{name}' ({nbytes} bytes) "
                                        f"for copies: CUDA error {status}{why}")
            self.registrations += 1
            key = (address, nbytes)
            self._pinned[key] = weakref.finalize(_owner(array), self._release, key)
        return array.reshape(-1)

    def _release(self, key: tuple[int, int]) -> None:
        self._pinned.pop(key, None)
        try:
            with self._context():
                self._unregister(key[0])
        except Exception:  # noqa: BLE001 - at exit the driver may be gone: nothing to release
            pass

    @property
    def pinned(self) -> int:
        """How many ranges are locked now."""
        return sum(1 for f in self._pinned.values() if f.alive)

    def close(self) -> None:
        """Unlocks every range."""
        for finalizer in list(self._pinned.values()):
            finalizer()


def stream_launcher(program: Any, driver: Any, device: int | None = None
                    ) -> Callable[..., None]:
    """`launch(call, configs, pointers, stream)` for a `CudaProgram`: one part's kernels on a
    stream, each array argument the given (shifted) device address; the kernels of `device`'s
    module (the program's first device by default), whose context must be current. An array
    left out of `pointers` is null (a kernel of one nest of several receives every array
    parameter, and the nest's footprint names all it touches)."""
    device = program.device if device is None else device
    kernels = program._kernels_on[device]

    def launch(call: BoundCall, configs: Sequence[Launch], pointers: Mapping[str, int],
               stream: Any) -> None:
        program._ready(driver, call, configs, device)  # resources checked, kernels prepared
        arrays = {p.name for p in call.function.params if p.is_array}
        for one in configs:
            if one.config.empty:
                continue
            values = [pointers.get(name, 0) if name in arrays else one.argument(name, call)
                      for name in one.entry.args]
            kernels[one.entry.kernel].prepared_async_call(
                one.config.grid, one.config.block, stream, *values,
                shared_size=one.config.dynamic_shared_bytes)

    return launch


class DeviceBuffers:
    """`runtime.keep.DeviceMemory` on the GPU: device allocations, synchronous copies."""

    def __init__(self, driver: Any):
        self.driver = driver

    def allocate(self, nbytes: int) -> tuple[Any, int]:
        try:
            buffer = self.driver.mem_alloc(nbytes)
        except self.driver.Error as e:
            raise KernelLaunchError(f"cannot keep an array on the device: {e}") from None
        return buffer, int(buffer)

    def copy_in(self, address: int, array: np.ndarray) -> None:
        self.driver.memcpy_htod(address, np.ascontiguousarray(array))

    def copy_out(self, array: np.ndarray, address: int) -> None:
        self.driver.memcpy_dtoh(array, address)

    def free(self, buffer: Any) -> None:
        buffer.free()


def keep_hooks(driver: Any, launch: Callable[..., None]) -> Any:
    """The `parts.KeepHooks` of a GPU call: arrays kept in device allocations, a run's
    launches (those at its positions of the trace) issued on them and waited for."""
    from autogpu.runtime.keep import KeptArrays
    from autogpu.runtime.parts import KeepHooks

    def run(call: BoundCall, positions: Sequence[int], pointers: Mapping[str, int]) -> None:
        configs = launch_trace(call)
        launch(call, [configs[p] for p in positions], pointers, None)
        driver.Context.synchronize()

    return KeepHooks(lambda arrays, budget: KeptArrays(arrays, budget, DeviceBuffers(driver)),
                     run)


def run_parts(
    driver: Any,
    plan: PartPlan,
    call: BoundCall,
    launch: Callable[[BoundCall, Any, Mapping[str, int], Any], None],
    timeline: list[tuple[str, int, float, float]] | None = None,
    positions: Sequence[int] | None = None,
    pins: HostPins | None = None,
) -> None:
    """Runs the plan's parts; `launch(call, configs, pointers, stream)` issues one part's
    kernels on a stream: those at `positions` of the call's launch trace (the nest's), all by
    default. The arrays stay page-locked in `pins` after the call (a `HostPins` of the
    program's); without one they are unlocked at the end. One device, in this thread, every
    part issued ahead in order; `run_parts_on_devices` runs several."""
    used = {*plan.resident, *plan.buffer_elements}
    arrays = {name: a for name, a in call.host_arrays().items() if name in used}
    own_pins = pins is None
    pins = HostPins() if pins is None else pins
    lane = None
    try:
        pinned = {name: pins.pin(name, array) for name, array in arrays.items() if array.nbytes}
        lane = _Lane(driver, plan, arrays)
        start = driver.Event()
        start.record(lane.copy_in)
        marks: list[tuple[str, int, Any, Any]] = []
        for part in plan.parts:
            _issue(driver, lane, part, call, plan, pinned, launch, marks, positions)
        driver.Context.synchronize()
        if timeline is not None:
            for stage, index, begin, end in marks:
                timeline.append((stage, index, begin.time_since(start) / 1000,
                                 end.time_since(start) / 1000))
    except driver.Error as e:
        raise KernelLaunchError(f"a part of '{call.function.name}' failed on the GPU: {e}") \
            from None
    finally:
        if lane is not None:
            lane.free()
        if own_pins:
            pins.close()


def run_parts_on_devices(
    devices: Sequence[int],
    on_device: Callable[[int], contextlib.AbstractContextManager[Any]],
    plan: PartPlan,
    call: BoundCall,
    launcher: Callable[[int, Any], Callable[[BoundCall, Any, Mapping[str, int], Any], None]],
    timeline: list[tuple[str, int, float, float]] | None = None,
    positions: Sequence[int] | None = None,
    pins: HostPins | None = None,
) -> list[LaneRecord]:
    """Runs the plan's parts over several devices (issue #15): one lane per device, in a host
    thread of its own with the device's context current (`on_device(device)` yields the
    driver), and its own streams, slots and resident arrays. A lane takes the next part from
    the shared queue only when one of its slots is free (the copy out of the part that used it
    has finished), so each device takes parts at the rate it runs them. `launcher(device,
    driver)` gives the device's `launch` (its module's kernels). The caller's arrays are
    page-locked once (portable: for every device's context) by the caller's thread, whose
    context is current. Returns a `LaneRecord` per device; a timeline gets each lane's stages
    in seconds from that lane's first event."""
    used = {*plan.resident, *plan.buffer_elements}
    arrays = {name: a for name, a in call.host_arrays().items() if name in used}
    own_pins = pins is None
    pins = HostPins() if pins is None else pins
    lock = threading.Lock()

    def lane_on(device: int, queue: PartQueue, record: LaneRecord) -> None:
        with on_device(device) as driver:
            launch = launcher(device, driver)
            lane = None
            try:
                lane = _Lane(driver, plan, arrays)
                start = driver.Event()
                start.record(lane.copy_in)
                marks: list[tuple[str, int, Any, Any]] = []
                taken = 0
                while True:
                    freed = lane.freed[taken % SLOTS]
                    if freed is not None:
                        freed.synchronize()  # a slot is free: take the next part
                    part = queue.take()
                    if part is None:
                        break
                    _issue(driver, lane, part, call, plan, pinned, launch, marks, positions,
                           slot=taken % SLOTS)
                    taken += 1
                    copied_in, copied_out = part_bytes(part, itemsize)
                    record.parts.append(part.index)
                    record.bytes_in += copied_in
                    record.bytes_out += copied_out
                driver.Context.synchronize()
                if marks:
                    record.seconds = max(end.time_since(start) for *_, end in marks) / 1000
                if timeline is not None:
                    with lock:
                        timeline.extend(_read_marks(marks, start))
                del marks, start, freed  # pycuda objects go while the context is current
            except driver.Error as e:
                raise KernelLaunchError(
                    f"a part of '{call.function.name}' failed on GPU {device}: {e}") from None
            finally:
                if lane is not None:
                    lane.free()
                    del lane

    try:
        pinned = {name: pins.pin(name, array) for name, array in arrays.items() if array.nbytes}
        itemsize = {name: array.itemsize for name, array in arrays.items()}
        return run_lanes(devices, lane_on, plan.parts)
    finally:
        if own_pins:
            pins.close()


def _read_marks(marks: Sequence[tuple[str, int, Any, Any]], start: Any
                ) -> list[tuple[str, int, float, float]]:
    """Stage, part, start and end seconds from `start` of recorded events (a function of its
    own, so no loop variable keeps an event alive after the lane's context is popped)."""
    return [(stage, index, begin.time_since(start) / 1000, end.time_since(start) / 1000)
            for stage, index, begin, end in marks]


def _issue(driver: Any, lane: _Lane, part: Part, call: BoundCall, plan: PartPlan,
           pinned: Mapping[str, np.ndarray], launch: Callable[..., None],
           marks: list[tuple[str, int, Any, Any]], positions: Sequence[int] | None,
           slot: int | None = None) -> None:
    slot = part.index % SLOTS if slot is None else slot
    buffers = lane.slots[slot]
    itemsize = {name: pinned[name].itemsize if name in pinned else 1 for name in buffers}

    def stage(name: str, stream: Any, wait: Any, work: Callable[[], None]) -> Any:
        if wait is not None:
            stream.wait_for_event(wait)
        begin, end = driver.Event(), driver.Event()
        begin.record(stream)
        work()
        end.record(stream)
        marks.append((name, part.index, begin, end))
        return end

    def copy_in() -> None:
        for s in part.slices:
            if s.count and s.name in pinned and s.copied_in:
                driver.memcpy_htod_async(buffers[s.name], pinned[s.name][s.first : s.end],
                                         lane.copy_in)

    def copy_out() -> None:
        for s in part.slices:
            if s.copy_out is not None and s.copy_out[1] > s.copy_out[0]:
                first, end = s.copy_out
                source = buffers[s.name] + (first - s.first) * itemsize[s.name]
                driver.memcpy_dtoh_async(pinned[s.name][first:end], source, lane.copy_out)

    pointers = dict(lane.resident)
    for s in part.slices:
        pointers[s.name] = shifted_pointer(buffers[s.name], s.first, itemsize[s.name])
    part_call = with_part(call, plan.spec, part.lo, part.hi)
    configs = launch_trace(part_call)
    if positions is not None:
        configs = [configs[p] for p in positions]
    copied = stage("copy-in", lane.copy_in, lane.freed[slot], copy_in)
    computed = stage("kernel", lane.compute, copied,
                     lambda: launch(part_call, configs, pointers, lane.compute))
    lane.freed[slot] = stage("copy-out", lane.copy_out, computed, copy_out)


def draw_timeline(timeline: Sequence[tuple[str, int, float, float]], path: str,
                  title: str = "") -> bool:
    """A Gantt chart of a recorded timeline (one row per stream: copies in, kernels, copies
    out), saved to `path`; False (nothing drawn) where matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rows = {"copy-in": 2, "kernel": 1, "copy-out": 0}
    colours = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]
    figure, axes = plt.subplots(figsize=(9, 2.4), dpi=100)
    for stage, part, begin, end in timeline:
        axes.barh(rows[stage], (end - begin) * 1e3, left=begin * 1e3, height=0.6,  # pyright: ignore[reportUnknownMemberType]  # matplotlib's stub: **kwargs untyped
                  color=colours[part % len(colours)], edgecolor="black", linewidth=0.3)
        if end - begin > 0:
            axes.text((begin + end) / 2 * 1e3, rows[stage], str(part), ha="center",  # pyright: ignore[reportUnknownMemberType]  # matplotlib's stub: **kwargs untyped
                      va="center", fontsize=6)
    axes.set_yticks(list(rows.values()), list(rows))  # pyright: ignore[reportUnknownMemberType]  # matplotlib's stub: **kwargs untyped
    axes.set_xlabel("ms")  # pyright: ignore[reportUnknownMemberType]  # matplotlib's stub: **kwargs untyped
    if title:
        axes.set_title(title, fontsize=9)  # pyright: ignore[reportUnknownMemberType]  # matplotlib's stub: **kwargs untyped
    figure.tight_layout()
    figure.savefig(path)  # pyright: ignore[reportUnknownMemberType]  # matplotlib's stub: PathLike without its parameter
    plt.close(figure)
    return True
