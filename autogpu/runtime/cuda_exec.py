"""Runs the emitted CUDA C on an NVIDIA GPU (nvcc and memory through pycuda, launches through the
driver API on the caller's stream: `driver_kernels.py`), from the same launch description and
with the same argument checks as the CPU emulation (`cpu_exec`).

pycuda is imported only inside functions, so autogpu imports and works without it (install the
`gpu` extra where there is a GPU). `CudaProgram.run` copies every NumPy array argument to the
device (outputs may be read-modify-written, as in `y += a * x`), launches the function's kernels in
order and copies the non-const arrays back, unless OpenMP maps say otherwise (docs/ir.md, "Data
mapping"); device arrays (CuPy, PyTorch, `__cuda_array_interface__`, DLPack) are used in place,
the launches ordered after their producers' streams and on the caller's stream, without a wait
on the host when every array is on the device (`caller_stream.py`, docs/executors.md).
`CudaProgram.time` measures with CUDA events: the launches alone on device-resident data, and
the launches with the copies; outputs are restored from a
device copy of their initial state before each repetition (not timed), so kernels that accumulate
into their output are timed on the same input every time, and the caller's arrays end up holding
the result of exactly one run. `__device__` globals are not restored: a function must reset
what it accumulates there (as the reduction kernels the cuda target emits do).

nvcc contracts `a * b + c` into a fused multiply-add by default; pass `fmad=False` to get the
unfused, bitwise C results that the CPU emulation computes.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib
import statistics
import time
from collections.abc import Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from autogpu.dialects.signature import BY_DTYPE, C_TYPES
from autogpu.runtime.arguments import (
    BoundCall,
    Function,
    KernelArgumentError,
    KernelCompileError,
    KernelLaunchError,
    Launch,
    LaunchConfig,
    LaunchDescriptionError,
    LaunchEntry,
    array_values,
    bind_arguments,
    call_arguments,
    find_function,
    kernel_names,
    launch_trace,
    launches,
    parse_launch_description,
)
from autogpu.runtime.array_arguments import POISON_BYTE, Buffer, DeviceArray, Memory
from autogpu.runtime.array_views import LEGACY_STREAM, ArrayView
from autogpu.runtime.caller_stream import caller_stream
from autogpu.runtime.driver_kernels import DriverError, DriverModule, error_text, libcuda
from autogpu.target.cuda_limits import SHARED_BYTES_PER_BLOCK

if TYPE_CHECKING:
    from autogpu.runtime.cluster import PartSlice


class GpuUnavailableError(RuntimeError):
    """pycuda is not installed, or no CUDA device can be used."""


def _driver() -> Any:
    """pycuda.driver, initialised."""
    try:
        driver: Any = importlib.import_module("pycuda.driver")  # GPU hosts only, untyped
    except ImportError as e:
        raise GpuUnavailableError(
            f"running kernels on the GPU needs pycuda ({e}); install it with"
            " `pip install -e '.[gpu]'` on a machine with an NVIDIA GPU"
        ) from None
    try:
        driver.init()
        count = driver.Device.count()
    except driver.Error as e:  # no driver, no device
        raise GpuUnavailableError(f"no usable CUDA device: {e}") from None
    if count == 0:
        raise GpuUnavailableError("no usable CUDA device: the driver sees no GPU")
    return driver


_primary_contexts: dict[int, Any] = {}


@contextlib.contextmanager
def _on_device(device: int) -> Generator[Any]:
    """Makes the device's primary context (retained once per process, shared with other CUDA
    libraries) current for the duration; yields pycuda.driver."""
    driver = _driver()
    if device not in _primary_contexts:
        if not 0 <= device < driver.Device.count():
            raise GpuUnavailableError(
                f"no CUDA device {device}: there are {driver.Device.count()}"
            )
        _primary_contexts[device] = driver.Device(device).retain_primary_context()
    context = _primary_contexts[device]
    context.push()
    try:
        yield driver
    finally:
        driver.Context.pop()


def gpu_unavailable_reason(device: int = 0) -> str | None:
    """None where kernels can run on the GPU, else why not (for skipping tests)."""
    try:
        with _on_device(device):
            pass
    except GpuUnavailableError as e:
        return str(e)
    return None


def device_count() -> int:
    """The number of CUDA devices this process sees."""
    return int(_driver().Device.count())


def device_arch(device: int = 0) -> str:
    """The device's architecture as nvcc names it, e.g. sm_90 (no context is created)."""
    major, minor = _driver().Device(device).compute_capability()
    return f"sm_{major}{minor}"


def nvcc_options(options: Sequence[str] = (), fmad: bool = True) -> list[str]:
    return [*options, *([] if fmad else ["--fmad=false"])]


def _compile_error(e: Exception) -> KernelCompileError:
    command = " ".join(getattr(e, "command_line", None) or ["nvcc"])
    log = getattr(e, "stderr", None) or str(e)
    return KernelCompileError(f"nvcc rejected the CUDA source ({command})", log)


def prebuild(
    cuda_source: str,
    *,
    options: Sequence[str] = (),
    arch: str | None = None,
    fmad: bool = True,
    device: int = 0,
) -> None:
    """Compiles the source into pycuda's on-disk cache (e.g. in a tuner's compile worker, ahead
    of measuring), so that a later `CudaProgram` with the same options loads it at once. With
    `arch` given it does not touch the GPU (no CUDA context in compile workers)."""
    try:
        compile_cubin: Any = importlib.import_module("pycuda.compiler").compile  # GPU hosts only
        compile_error: Any = importlib.import_module("pycuda.driver").CompileError  # untyped
    except ImportError as e:
        raise GpuUnavailableError(f"compiling for the GPU needs pycuda ({e})") from None
    try:
        compile_cubin(
            cuda_source,
            options=nvcc_options(options, fmad),
            no_extern_c=True,
            arch=arch or device_arch(device),
        )
    except compile_error as e:
        raise _compile_error(e) from None


def prepared_format(function: Function, entry: LaunchEntry) -> str:
    """The struct format of a launch's arguments: a pointer per array, the C type per scalar."""
    codes: list[str] = []
    for name in entry.args:
        p = function.param(name)
        codes.append("P" if p.is_array else BY_DTYPE[p.dtype.name].struct)
    return "".join(codes)


@dataclass(frozen=True)
class Timing:
    """Times in seconds from CUDA events; iterating gives the kernel samples."""

    kernel_s: float  # median: the launches alone, data already on the device
    kernel_samples_s: tuple[float, ...]
    with_copies_s: float | None  # median: host-to-device copies + launches + copies back
    with_copies_samples_s: tuple[float, ...] = ()

    def __iter__(self) -> Iterator[float]:
        return iter(self.kernel_samples_s)


class CudaProgram:
    """The kernels of one CUDA source, compiled by nvcc (through pycuda) for the current GPU.

    `run(function_name, *args, **named)` and `time(function_name, args, named, ...)` take NumPy
    arrays and Python scalars, checked exactly as the CPU emulation checks them.
    """

    def __init__(
        self,
        cuda_source: str,
        launch: Mapping[str, Any],
        *,
        options: Sequence[str] = (),
        arch: str | None = None,
        fmad: bool = True,
        device: int = 0,
        memory_budget: int | None = None,
        devices: int | Sequence[int] | None = None,
        cluster: Any = None,
    ):
        from autogpu.runtime.lanes import check_devices

        self.functions: dict[str, Function] = parse_launch_description(launch)
        self.source, self._launch_description = cuda_source, launch
        # what a cluster's workers build the same program from, each on its own GPU
        self._worker_options: dict[str, Any] = {"options": tuple(options), "arch": arch,
                                                "fmad": fmad}
        self._client: Any = None  # Dask: functions in parts run their parts on the cluster
        self._own_client = False
        if devices is not None:  # functions in parts spread their parts over these devices
            self.devices = check_devices(devices, _driver().Device.count())
            device = self.devices[0]  # in-core calls run on the first
        else:
            self.devices = (device,)
        self.device = device
        self.memory_budget = memory_budget  # bytes for functions in parts; None: free memory
        self.timeline: list[tuple[str, int, float, float]] | None = None  # set: parts record
        self.last_plan: Any = None  # runtime.parts.PartPlan of the last call in parts
        self.last_plans: list[Any] = []  # all of its plans: one per nest run (time loops)
        self.last_lanes: list[list[Any]] = []  # per plan run in parts: a LaneRecord per device
        self.kept: Any = None  # runtime.parts.KeepHooks of the last call in parts (its copies)
        self._pins: Any = None  # runtime.pipeline.HostPins: arrays kept page-locked
        self.options = nvcc_options(options, fmad)
        with _on_device(device):  # a device the driver does not have: GpuUnavailableError
            self.arch = arch or device_arch(device)
        self._kernels_on: dict[int, dict[str, Any]] = {}  # device -> its module's kernels
        for ordinal in dict.fromkeys((device, *self.devices)):
            self._kernels_on[ordinal] = self._load(cuda_source, ordinal)
        self._kernels = self._kernels_on[device]
        self._prepared: dict[tuple[int, str], str] = {}  # (device, kernel) -> its format
        self._formats: dict[tuple[str, str], str] = {}
        for function in self.functions.values():
            for entry in function.launches:
                self._formats[(function.name, entry.kernel)] = prepared_format(function, entry)
        if cluster is not None:
            from autogpu.runtime.cluster import connect

            self._client, self._own_client = connect(cluster)

    def _load(self, cuda_source: str, device: int) -> dict[str, Any]:
        """The kernels compiled into a module of the device's context (a module belongs to
        one context; nvcc runs once, pycuda caches the binary for the other devices)."""
        with _on_device(device) as driver:
            compile_cubin: Any = importlib.import_module("pycuda.compiler").compile  # untyped

            try:
                image = compile_cubin(cuda_source, options=self.options, no_extern_c=True,
                                      arch=self.arch)
            except driver.CompileError as e:
                raise _compile_error(e) from None
            # loaded by the driver API, not pycuda: kernels launch on the caller's stream
            module = DriverModule(image, lambda: _on_device(device))
            if device == self.device:
                self.module = module
            kernels: dict[str, Any] = {}
            for k in kernel_names(self.functions):
                kernel = module.function(k)
                if kernel is None:
                    raise LaunchDescriptionError(
                        f"the launch description launches {k}, which the CUDA source does not"
                        ' define (or defines without extern "C")'
                    )
                kernels[k] = kernel
            return kernels

    # -- running ------------------------------------------------------------------------------
    def run(self, function_name: str, /, *args: Any, stream: Any = None, **named: Any) -> None:
        """Runs the function's launches in order; the non-const arrays receive the results.
        `run(name, x, y, n=3)` or `run(name, (x, y), {"n": 3})`. The launches go to the
        caller's stream (`stream=`, else the device arrays' library's current stream:
        `caller_stream.py`; the legacy default stream for NumPy arrays); with device arrays
        only, `run` returns without waiting for them."""
        args, named = call_arguments(args, named)
        function = find_function(self.functions, function_name)
        if function.parts is not None:  # agpu-out-of-core: in parts within memory_budget
            self._run_parts(function, args, named)
            return
        caller = caller_stream(array_values(function, args, named), stream)
        # DLPack producers order their pending work before the stream they are asked for
        self._run_call(bind_arguments(function, args, named, consumer_stream=caller), caller)

    __call__ = run

    def _run_parts(self, function: Function, args: Sequence[Any], named: Mapping[str, Any]
                   ) -> None:
        from autogpu.runtime import pipeline
        from autogpu.runtime.parts import bind_part_call, run_nests

        call = bind_part_call(function, function.parts, args, named, bind_arguments)
        with _on_device(self.device) as driver:
            budget = self.memory_budget
            if budget is None:  # each device's parts fit the one with the least free memory
                budget = min(self._free_memory(d) for d in self.devices)
            launch = pipeline.stream_launcher(self, driver)
            if self._pins is None:
                device = self.device
                self._pins = pipeline.HostPins(context=lambda: _on_device(device))

            self.last_lanes = []

            def run_plan(plan: Any, positions: tuple[int, ...]) -> None:
                if self._client is not None:
                    from autogpu.runtime.cluster import run_plan_on_cluster

                    worker_program = functools.partial(cluster_worker_program,
                                                       **self._worker_options)
                    self.last_lanes.append(run_plan_on_cluster(
                        self._client, worker_program, self.source, self._launch_description,
                        plan, call, positions))
                    return
                if len(self.devices) == 1:
                    pipeline.run_parts(driver, plan, call, launch, self.timeline,
                                       positions=positions, pins=self._pins)
                    return
                self.last_lanes.append(pipeline.run_parts_on_devices(
                    self.devices, _on_device, plan, call,
                    lambda d, drv: pipeline.stream_launcher(self, drv, d), self.timeline,
                    positions=positions, pins=self._pins))

            self.kept = pipeline.keep_hooks(driver, launch)
            self.last_plans = run_nests(call, function.parts, budget, self._run_call, run_plan,
                                        self.kept)
            self.last_plan = self.last_plans[-1] if self.last_plans else None

    @staticmethod
    def _free_memory(device: int) -> int:
        with _on_device(device) as driver:
            return int(driver.mem_get_info()[0])

    def _time_parts(self, function: Function, args: Sequence[Any], named: Mapping[str, Any],
                    repetitions: int, warmup: int) -> Timing:
        """Seconds of whole calls of a function in parts: the part pipeline, copies between the
        caller's (page-locked) arrays and the device included, so both times are the same.
        Outputs are restored before each call; afterwards they hold one call's result."""
        from autogpu.runtime.parts import bind_part_call

        call = bind_part_call(function, function.parts, args, named, bind_arguments)
        arrays = call.host_arrays()
        written = {p.name: arrays[p.name] for p in function.params
                   if p.is_array and not p.const and p.name in arrays}
        pristine = {name: array.copy() for name, array in written.items()}
        samples: list[float] = []
        for r in range(warmup + repetitions):
            for name, array in written.items():
                np.copyto(array, pristine[name])
            start = time.perf_counter()
            self._run_parts(function, args, named)
            if r >= warmup:
                samples.append(time.perf_counter() - start)
        median = statistics.median(samples)
        return Timing(kernel_s=median, kernel_samples_s=tuple(samples), with_copies_s=median,
                      with_copies_samples_s=tuple(samples))

    def close(self) -> None:
        """Lets go of what the program keeps across calls: the caller's arrays page-locked for
        calls in parts (out-of-core) are unlocked."""
        if self._pins is not None:
            self._pins.close()
            self._pins = None
        if self._own_client:
            self._client.close()
            self._own_client = False

    def run_slices(self, call: BoundCall, whole: Mapping[str, np.ndarray],
                   slices: Sequence[PartSlice], positions: Sequence[int]) -> None:
        """One part's launches (those at `positions`) on a cluster worker's GPU: the slices and
        the arrays read whole copied to device allocations, each slice passed through a pointer
        shifted back to its array's element 0, the range each slice writes copied back into its
        buffer (`runtime.cluster.run_part`). The arrays read whole travel with every part."""
        from autogpu.runtime.parts import shifted_pointer
        from autogpu.runtime.pipeline import stream_launcher

        trace = launch_trace(call)
        configs = [trace[p] for p in positions]
        with _on_device(self.device) as driver:
            memory = DeviceMemory(driver, self.device)
            allocations: list[Any] = []

            def upload(array: np.ndarray) -> int:
                allocations.append(memory.allocate(array.nbytes))
                if array.nbytes:
                    memory.upload(allocations[-1], np.ascontiguousarray(array))
                return memory.pointer(allocations[-1])

            try:
                pointers = {name: upload(array) for name, array in whole.items()}
                starts = {name: upload(buffer) for name, _, buffer, _ in slices}
                pointers.update({name: shifted_pointer(starts[name], first, buffer.itemsize)
                                 for name, first, buffer, _ in slices})
                stream_launcher(self, driver)(call, configs, pointers, None)
                driver.Context.synchronize()
                for name, first, buffer, written in slices:
                    if written is not None and written[1] > written[0]:
                        lo, hi = written[0] - first, written[1] - first
                        memory.download(buffer[lo:hi], starts[name] + lo * buffer.itemsize)
            except driver.Error as e:
                raise KernelLaunchError(
                    f"a part of '{call.function.name}' failed on a cluster worker's GPU: {e}"
                ) from None
            finally:
                for allocation in allocations:
                    memory.release(allocation)

    def _run_call(self, call: BoundCall, caller: int = LEGACY_STREAM) -> None:
        """The call's launches on the caller's stream, after its producers' streams (and after
        the copies of NumPy arrays, on the legacy default stream)."""
        configs = self._trace(call)
        with _on_device(self.device) as driver:
            self._ready(driver, call, configs or ())
            device = _DeviceArrays(DeviceMemory(driver, self.device), call)
            try:
                on_device = all(isinstance(a, DeviceArray) for a in call.arrays())
                _wait_for_producers(call, caller, copies=not on_device)
                self._launch_all(driver, call, self._launches(driver, call, configs, caller),
                                 device, caller)
                if on_device and not device.scratch:
                    return  # the caller's stream holds the launches; the host does not wait
                if on_device:  # the scratch is freed below: its launches must be done
                    self._synchronize(driver, call.function)
                    return
                self._synchronize(driver, call.function)
                device.copy_back()
            finally:
                device.free()

    @staticmethod
    def _trace(call: BoundCall) -> list[Launch] | None:
        """The call's launches, listed ahead; None for a host program that reads values the
        kernels compute (a convergence loop), whose launches are known only as it runs."""
        return None if call.function.reads_device else launch_trace(call)

    def _launches(self, driver: Any, call: BoundCall, configs: list[Launch] | None,
                  stream: int = LEGACY_STREAM) -> Iterator[Launch]:
        """`configs`, or the launches of a program that reads the device, each prepared as the
        host program reaches it; a read waits for the stream and copies one scalar back."""
        if configs is not None:
            yield from configs
            return
        for launch in launches(call, lambda name, ctype: self._read(name, ctype, stream)):
            self._ready(driver, call, [launch])
            yield launch

    def _read(self, variable: str, ctype: str, stream: int) -> Any:
        """A `__device__` variable of the program's module (a condition a kernel computed),
        after the launches on `stream` so far."""
        cuda = libcuda()
        address, size = ctypes.c_void_p(), ctypes.c_size_t()  # a CUdeviceptr: 64 bits
        holder = np.zeros(1, np.dtype(C_TYPES[ctype].dtype))
        for call, status in (
            ("cuModuleGetGlobal", lambda: cuda.cuModuleGetGlobal_v2(
                ctypes.byref(address), ctypes.byref(size), self.module.handle,
                variable.encode())),
            ("cuStreamSynchronize", lambda: cuda.cuStreamSynchronize(ctypes.c_void_p(stream))),
            ("cuMemcpyDtoH", lambda: cuda.cuMemcpyDtoH_v2(
                ctypes.c_void_p(holder.ctypes.data), address, ctypes.c_size_t(holder.nbytes))),
        ):
            code = status()
            if code != 0:
                raise KernelLaunchError(
                    f"reading the device variable '{variable}' ({call}): {error_text(code)} "
                    "(a kernel before it may have failed)")
        return holder[0]

    def time(
        self,
        function_name: str,
        args: Sequence[Any] = (),
        named: Mapping[str, Any] | None = None,
        *,
        repetitions: int = 20,
        warmup: int = 3,
        copies: bool = True,
    ) -> Timing:
        """Median times of the function's launches over `repetitions` (after `warmup`), with
        outputs restored before each; afterwards the arrays hold the result of one run. The
        copies are from and to pageable host memory."""
        if repetitions < 1 or warmup < 0:
            raise ValueError("time() needs repetitions >= 1 and warmup >= 0")
        function = find_function(self.functions, function_name)
        if function.parts is not None:  # agpu-out-of-core: the whole pipeline of parts
            return self._time_parts(function, args, named or {}, repetitions, warmup)
        call = bind_arguments(function, args, named or {})
        configs = self._trace(call)
        with _on_device(self.device) as driver:
            self._ready(driver, call, configs or ())
            device = _DeviceArrays(DeviceMemory(driver, self.device), call)
            pristine: dict[str, Any] = {}
            start, end = driver.Event(), driver.Event()
            try:
                _wait_for_producers(call, LEGACY_STREAM)
                pristine.update(device.snapshot())
                kernel_samples: list[float] = []
                for r in range(warmup + repetitions):
                    device.restore(pristine)
                    start.record()
                    self._launch_all(driver, call, self._launches(driver, call, configs),
                                     device)
                    end.record()
                    self._synchronize(driver, call.function, end)
                    if r >= warmup:
                        kernel_samples.append(start.time_till(end) / 1000)
                copy_samples: list[float] = []
                if copies and any(b.copies_in or b.copies_back for b in device.arrays.values()):
                    staging = device.staging()
                    for r in range(warmup + repetitions):
                        start.record()
                        device.copy_in()
                        device.clear_scratch()
                        self._launch_all(driver, call, self._launches(driver, call, configs),
                                         device)
                        device.copy_back(staging)
                        end.record()
                        self._synchronize(driver, call.function, end)
                        if r >= warmup:
                            copy_samples.append(start.time_till(end) / 1000)
                device.restore(pristine)
                self._launch_all(driver, call, self._launches(driver, call, configs), device)
                self._synchronize(driver, call.function)
                device.copy_back()
            finally:
                device.free()
                for allocation in pristine.values():
                    allocation.free()
        return Timing(
            kernel_s=statistics.median(kernel_samples),
            kernel_samples_s=tuple(kernel_samples),
            with_copies_s=statistics.median(copy_samples) if copy_samples else None,
            with_copies_samples_s=tuple(copy_samples),
        )

    # -- launching ----------------------------------------------------------------------------
    def _ready(self, driver: Any, call: BoundCall, configs: Sequence[Launch],
               device: int | None = None) -> None:
        """Checks the resources of every launch and prepares its kernel (the device's: the
        program's first by default), once before launching (so that timed launches follow each
        other without host work in between)."""
        device = self.device if device is None else device
        kernels = self._kernels_on[device]
        checked: set[tuple[str, LaunchConfig]] = set()  # a time loop repeats its launches
        for launch in configs:
            entry, config = launch.entry, launch.config
            if config.empty or (entry.kernel, config) in checked:
                continue
            checked.add((entry.kernel, config))
            kernel = kernels[entry.kernel]
            _check_resources(driver, kernel, entry.kernel, config)
            fmt = self._formats[(call.function.name, entry.kernel)]
            if self._prepared.get((device, entry.kernel)) != fmt:
                kernel.prepare(fmt)
                self._prepared[(device, entry.kernel)] = fmt

    def _launch_all(
        self,
        driver: Any,
        call: BoundCall,
        configs: Iterable[Launch],
        device: _DeviceArrays,
        stream: int = LEGACY_STREAM,
    ) -> None:
        for launch in configs:
            entry, config = launch.entry, launch.config
            if config.empty:
                continue
            values = [
                device.pointer(name) if device.holds(name) else launch.argument(name, call)
                for name in entry.args
            ]
            try:
                self._kernels[entry.kernel].launch(config.grid, config.block, values, stream,
                                                   config.dynamic_shared_bytes)
            except DriverError as e:
                raise KernelLaunchError(
                    f"kernel '{entry.kernel}' (grid {config.grid}, block {config.block}) could"
                    f" not be launched: {e}"
                ) from None

    @staticmethod
    def _synchronize(driver: Any, function: Function, event: Any = None) -> None:
        try:
            (event.synchronize if event is not None else driver.Context.synchronize)()
        except driver.Error as e:
            raise KernelLaunchError(
                f"a kernel of '{function.name}' failed on the GPU: {e} (after an illegal address"
                " or a trap, the CUDA context is unusable until the process ends)"
            ) from None


def cluster_worker_program(cuda_source: str, launch: Mapping[str, Any], **options: Any
                           ) -> CudaProgram:
    """The program a Dask worker builds for `CudaProgram(cluster=)`: the same source and nvcc
    options, on the worker's own GPU (`runtime.cluster.worker_device`)."""
    from autogpu.runtime.cluster import worker_device

    return CudaProgram(cuda_source, launch, device=worker_device(device_count()),
                       **options)


def _check_resources(driver: Any, kernel: Any, name: str, config: LaunchConfig) -> None:
    """What the launch would be refused for, said before launching."""
    attribute = driver.function_attribute
    where = f"kernel '{name}' (grid {config.grid}, block {config.block})"
    threads = config.block[0] * config.block[1] * config.block[2]
    most = kernel.get_attribute(attribute.MAX_THREADS_PER_BLOCK)
    if threads > most:
        registers = kernel.get_attribute(attribute.NUM_REGS)
        raise KernelLaunchError(
            f"{where}: too many resources requested: {threads} threads per block, but with"
            f" {registers} registers per thread (and its __launch_bounds__) at most {most} fit"
        )
    static = kernel.get_attribute(attribute.SHARED_SIZE_BYTES)
    dynamic = config.dynamic_shared_bytes
    device = driver.Context.get_device()
    limit = device.get_attribute(driver.device_attribute.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
    if static + dynamic > limit:
        raise KernelLaunchError(
            f"{where}: too many resources requested: {static} bytes of static and {dynamic} of"
            f" dynamic shared memory, the device allows {limit} per block"
        )
    if static + dynamic > SHARED_BYTES_PER_BLOCK:  # beyond it a kernel must opt in
        kernel.set_attribute(attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, dynamic)


class DeviceMemory(Memory):
    """pycuda's device memory; device arrays are used where they are, on this device only."""

    def __init__(self, driver: Any, device: int):
        self.driver = driver
        self.device = device

    def allocate(self, nbytes: int) -> Any:
        try:
            return self.driver.mem_alloc(max(nbytes, 1))
        except self.driver.Error as e:
            raise KernelLaunchError(f"cannot allocate {nbytes} bytes of device memory: {e}") \
                from None

    def pointer(self, allocation: Any) -> int:
        return int(allocation)

    def upload(self, allocation: Any, array: np.ndarray) -> None:
        self.driver.memcpy_htod(allocation, array)

    def download(self, array: np.ndarray, allocation: Any) -> None:
        self.driver.memcpy_dtoh(array, allocation)

    def poison(self, allocation: Any, nbytes: int) -> None:
        self.driver.memset_d8(allocation, POISON_BYTE, nbytes)

    def release(self, allocation: Any) -> None:
        allocation.free()

    def adopt(self, argument: DeviceArray) -> int:
        view = argument.view
        if view.nbytes == 0:
            return view.pointer
        device = view.device if view.device is not None else _pointer_device(view.pointer)
        if device is None:
            raise KernelArgumentError(
                f"argument '{argument.param.name}' ({view.kind}) points to memory the CUDA"
                " driver does not know as device memory"
            )
        if device != self.device:
            raise KernelArgumentError(
                f"argument '{argument.param.name}' is on CUDA device {device}, but the kernels run"
                f" on device {self.device}: pass CudaProgram(..., device={device}) or move it"
            )
        return view.pointer


def copy_to_host(view: ArrayView) -> np.ndarray:
    """A host copy of a (C-contiguous) device array, after the work pending on its stream
    (for the tuner's inputs: its measurement process cannot share the caller's memory)."""
    device = view.device if view.device is not None else 0
    with _on_device(device) as driver:
        if view.nbytes == 0:
            return np.empty(view.shape, view.dtype)
        if view.stream not in (None, LEGACY_STREAM):
            libcuda().cuStreamSynchronize(ctypes.c_void_p(view.stream))
        driver.Context.synchronize()
        host = np.empty(view.shape, view.dtype)
        driver.memcpy_dtoh(host, view.pointer)
    return host


def _pointer_device(pointer: int) -> int | None:
    """The device ordinal of a device pointer (None where the driver does not know it)."""
    ordinal = ctypes.c_int(-1)
    status = libcuda().cuPointerGetAttribute(
        ctypes.byref(ordinal), _CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ctypes.c_void_p(pointer))
    return ordinal.value if status == 0 else None


_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9
_CU_EVENT_DISABLE_TIMING = 2


def _wait_for_producers(call: BoundCall, caller: int, copies: bool = False) -> None:
    """Orders the launches on the caller's stream after the work queued on the streams the
    producers of the device arrays still write them on (CUDA array interface v3 `stream`) and,
    with `copies`, after the copies of host arrays (on the legacy default stream): an event
    recorded on each such stream, waited for by the caller's. DLPack producers did this
    themselves when asked for their tensor on the caller's stream."""
    streams = {a.view.stream for a in call.arrays()} | ({LEGACY_STREAM} if copies else set[int]())
    for stream in streams - {None, caller}:
        assert stream is not None
        if not _order(stream, caller):
            raise KernelLaunchError(f"cannot order the launches on stream {caller:#x} after "
                                    f"stream {stream:#x} of a device array or of the copies")


def _order(first: int, then: int) -> bool:
    """Work queued on stream `then` from now on runs after the work queued on `first` so far."""
    cuda = libcuda()
    event = ctypes.c_void_p()
    if cuda.cuEventCreate(ctypes.byref(event), _CU_EVENT_DISABLE_TIMING) != 0:
        raise KernelLaunchError("cannot create a CUDA event to order the launches")
    ordered = (cuda.cuEventRecord(event, ctypes.c_void_p(first)) == 0
               and cuda.cuStreamWaitEvent(ctypes.c_void_p(then), event, 0) == 0)
    cuda.cuEventDestroy_v2(event)
    return ordered


class _DeviceArrays:
    """The buffers of a call's arrays in device memory, staged on creation (`Buffer`)."""

    def __init__(self, memory: DeviceMemory, call: BoundCall):
        self.memory = memory
        self.buffers: dict[str, Buffer] = {}
        self.scratch: dict[str, tuple[Any, int]] = {}  # the call's scratch: allocation, bytes
        try:
            for argument in call.arrays():
                self.buffers[argument.param.name] = argument.stage(memory)
            for name, elements in call.scratch_elements().items():
                nbytes = elements * call.function.param(name).dtype.itemsize
                self.scratch[name] = (memory.allocate(nbytes), nbytes)
            self.clear_scratch()
        except BaseException:
            self.free()
            raise

    @property
    def arrays(self) -> dict[str, Buffer]:
        return self.buffers

    def holds(self, name: str) -> bool:
        return name in self.buffers or name in self.scratch

    def pointer(self, name: str) -> int:
        if name in self.scratch:
            return int(self.scratch[name][0])
        return self.buffers[name].pointer

    def clear_scratch(self) -> None:
        """Scratch starts every run zero-filled (launch description: `scratch`)."""
        for allocation, nbytes in self.scratch.values():
            if nbytes:
                self.memory.driver.memset_d8(allocation, 0, nbytes)

    def written(self) -> list[Buffer]:
        """The buffers the kernels may write (not const)."""
        return [b for b in self.buffers.values() if not b.argument.param.const]

    def staging(self) -> dict[str, np.ndarray]:
        """Host arrays to copy the outputs into when timing the copies."""
        return {b.argument.param.name: np.empty_like(b.argument.host)
                for b in self.buffers.values() if b.copies_back}

    def copy_in(self) -> None:
        for buffer in self.buffers.values():
            buffer.copy_in()

    def copy_back(self, into: Mapping[str, np.ndarray] | None = None) -> None:
        for buffer in self.buffers.values():
            buffer.copy_back(into)

    def snapshot(self) -> dict[str, Any]:
        """Device copies of the written buffers' initial state."""
        copies: dict[str, Any] = {}
        for b in self.written():
            copies[b.argument.param.name] = self.memory.allocate(b.nbytes)
            if b.nbytes:
                self.memory.driver.memcpy_dtod(copies[b.argument.param.name], b.pointer, b.nbytes)
        return copies

    def restore(self, snapshot: Mapping[str, Any]) -> None:
        self.clear_scratch()
        for name, copy in snapshot.items():
            buffer = self.buffers[name]
            if buffer.nbytes:
                self.memory.driver.memcpy_dtod(buffer.pointer, copy, buffer.nbytes)

    def free(self) -> None:
        for buffer in self.buffers.values():
            buffer.release()
        self.buffers = {}
        for allocation, _ in self.scratch.values():
            self.memory.release(allocation)
        self.scratch = {}
