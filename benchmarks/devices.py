"""Where variants are compiled and run.

`build` is the one adapter to the compiler: `autogpu.compile` through a variant's pipeline,
turning "this pass or option does not exist yet" into `Unavailable` (a row that says so) and
leaving real compile errors as `CompileError` (a FAILED row).

Our kernels run on the GPU through CuPy: `cupy.RawModule` compiles `kernel.cuda_source` (NVRTC,
or nvcc on request) and each launch of `kernel.launch` is issued with the grid, block and shared
memory of `kernel.launch_config(**sizes)`: the same source and launch description pycuda's
executor uses. CuPy rather than pycuda because our kernels, cuBLAS (through CuPy or PyTorch) and
cupyx then share one CUDA context, one stream, one event clock and the very same device
buffers: the data stays resident, outputs are checked on the device, and nothing but launches
lies between the events. The CPU device runs the kernel's CPU emulation (`backend="cpu"`) with
NumPy/SciPy peers and a wall clock: a correctness smoke run, and the tests' device.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from autogpu.diagnostics import CompileError
from autogpu.target.cuda_limits import SHARED_BYTES_PER_BLOCK
from autogpu.target.launch import evaluate, launch_config
from autogpu.target.launch_steps import has_reads, iterate_steps, steps_of, trace
from benchmarks.peers import Peer, cpu_peer, extra_gpu_peers, gpu_peer
from benchmarks.roofline import Roofline, gpu_roofline
from benchmarks.timing import Timer, cuda_event_timer, wall_timer

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DEFAULT_SHARED_LIMIT = SHARED_BYTES_PER_BLOCK  # dynamic shared memory a launch gets without opt-in


class Unavailable(Exception):
    """The variant needs a pass, an option or a compiler stage that does not exist yet."""


def missing_feature(pipeline: str) -> str | None:
    """Why `pipeline` cannot run yet (an unregistered pass, an unknown option), or None."""
    from xdsl.utils.arg_spec import parse_pipeline
    from xdsl.utils.exceptions import ArgSpecParseError

    from autogpu.api import available_passes

    passes = available_passes()
    try:
        specs = list(parse_pipeline(pipeline))
    except (ArgSpecParseError, ValueError) as e:  # ArgSpecParseError is a BaseException
        raise CompileError(f"invalid pipeline '{pipeline}': {e}") from None
    for spec in specs:
        if spec.name not in passes:
            return f"pass '{spec.name}' is not registered"
        options = {f.name for f in dataclasses.fields(passes[spec.name]())}
        for option in spec.normalize_parameter_names().parameters:
            if option not in options:
                return f"pass '{spec.name}' has no option '{option}'"
    return None


def build(example: str, pipeline: str) -> Any:
    """Compile examples/`example` through `pipeline` into an `autogpu.Kernel` whose CUDA source
    and launch description exist. Raises Unavailable or CompileError."""
    import autogpu

    reason = missing_feature(pipeline)
    if reason is not None:
        raise Unavailable(reason)
    try:
        kernel = autogpu.compile(EXAMPLES / example, pipeline=pipeline)
        _ = kernel.cuda_source, kernel.launch  # emit now: a missing target is unavailable too
    except ImportError as e:
        raise Unavailable(f"not implemented yet: {e}") from None
    return kernel


def bind_launches(
    kernel: Any, get_function: Callable[[str], Any], arrays: dict[str, Any], sizes: dict[str, int],
    zeros: Callable[[int, np.dtype], Any] = np.zeros,
    read: Callable[[str, str], Any] | None = None,
) -> Callable[[], None]:
    """A callable issuing every launch of `kernel` on `arrays` (device buffers by parameter
    name) for the scalar `sizes`, as the launch description says. `get_function(name)` returns
    a CuPy RawKernel-like callable `f(grid, block, args, shared_mem=...)`; `zeros(n, dtype)`
    allocates the function's scratch buffers (zero-filled once, at binding, as the executors
    fill them before the timed runs); `read(variable, ctype)` a device variable's value, for a
    host program that reads one back (a convergence loop: its launches are found as it runs)."""
    params = {p["name"]: p for p in kernel.params}
    typed = {name: np.dtype(params[name]["dtype"]).type(v) for name, v in sizes.items()
             if name in params and params[name]["kind"] == "scalar"}
    for scratch in kernel.launch.get("scratch", []):
        elements = evaluate(scratch["elements"], typed)
        arrays = {**arrays, scratch["name"]: zeros(elements, np.dtype(scratch["dtype"]))}
        params[scratch["name"]] = {"kind": "array"}
    if has_reads(steps_of(kernel.launch)):
        assert read is not None, "a host program that reads the device needs `read`"
        return _bind_reading_program(kernel, get_function, arrays, typed, read)
    runs = trace(steps_of(kernel.launch), typed)  # a time loop's launches, T times
    calls: list[tuple[Any, tuple[int, ...], tuple[int, ...], tuple[Any, ...], int]] = []
    for (index, env), config in zip(runs, kernel.launch_config(**sizes), strict=True):
        entry = kernel.launch["launches"][index]
        grid, block, shared = tuple(config["grid"]), tuple(config["block"]), config["shared"]
        if 0 in grid or 0 in block:
            continue  # an empty launch: the C loop has no iterations
        args: list[Any] = []
        for name in entry["args"]:
            param = params.get(name)
            if param is not None and param["kind"] == "array":
                args.append(arrays[name])
            else:  # a scalar parameter, or a loop counter of the host program
                args.append(env[name])
        function = get_function(entry["kernel"])
        if shared > DEFAULT_SHARED_LIMIT:
            function.max_dynamic_shared_size_bytes = shared
        calls.append((function, grid, block, tuple(args), shared))

    def launch() -> None:
        for function, grid, block, args, shared in calls:
            function(grid, block, args, shared_mem=shared)

    return launch


def _bind_reading_program(
    kernel: Any, get_function: Callable[[str], Any], arrays: dict[str, Any],
    typed: dict[str, Any], read: Callable[[str, str], Any],
) -> Callable[[], None]:
    """`bind_launches` of a host program that reads the device: each launch's configuration
    evaluated as the program reaches it, its reads between the launches."""
    params = {p["name"]: p for p in kernel.params}

    def launch() -> None:
        for index, env in iterate_steps(steps_of(kernel.launch), typed, read):
            entry = kernel.launch["launches"][index]
            grid, block, shared = launch_config(entry, env)
            if 0 in grid or 0 in block:
                continue  # an empty launch: the C loop has no iterations
            args = [arrays[name] if params.get(name, {}).get("kind") == "array" else env[name]
                    for name in entry["args"]]
            function = get_function(entry["kernel"])
            if shared > DEFAULT_SHARED_LIMIT:
                function.max_dynamic_shared_size_bytes = shared
            function(grid, block, tuple(args), shared_mem=shared)

    return launch


class CudaDevice:
    """The GPU through CuPy (see the module docstring)."""

    name = "cuda"

    def __init__(self, gemm_peer: str = "cupy", compiler: str = "nvrtc", copy_bytes: int = 1 << 30,
                 options: tuple[str, ...] = ()):
        try:
            import cupy  # pyright: ignore[reportMissingImports]  # on the GPU machine only
        except ImportError as e:
            raise RuntimeError(
                f"the cuda device needs CuPy ({e}); install cupy-cuda13x, or use --device cpu"
            ) from None
        self.cupy: Any = cupy  # untyped (and absent where CI runs): Any, not Unknown
        self.xp: Any = cupy
        self.gemm_peer, self.compiler, self.options = gemm_peer, compiler, options
        self.copy_bytes = copy_bytes
        self.timer: Timer = cuda_event_timer(cupy)

    def describe(self) -> dict[str, Any]:
        props = self.cupy.cuda.runtime.getDeviceProperties(self.cupy.cuda.Device().id)
        name = props["name"]
        return {"name": name.decode() if isinstance(name, bytes) else name,
                "compute_capability": self.cupy.cuda.Device().compute_capability,
                "compiler": self.compiler, "cupy": self.cupy.__version__}

    def roofline(self, peak_flops: float | None = None, bandwidth: float | None = None) -> Roofline:
        return gpu_roofline(self.cupy, self.timer, self.copy_bytes, peak_flops, bandwidth)

    def put(self, host: np.ndarray) -> Any:
        return self.cupy.asarray(host)

    def get(self, array: Any) -> np.ndarray:
        return self.cupy.asnumpy(array)

    def load(self, kernel: Any, arrays: dict[str, Any], sizes: dict[str, int]
             ) -> Callable[[], None]:
        module = self.cupy.RawModule(code=kernel.cuda_source, options=self.options,
                                     backend=self.compiler)
        cupy = self.cupy

        def read(variable: str, ctype: str) -> Any:  # one scalar back: .get() waits for it
            from autogpu.dialects.signature import C_TYPES

            dtype = np.dtype(C_TYPES[ctype].dtype)
            return cupy.ndarray((1,), dtype, module.get_global(variable)).get()[0]

        return bind_launches(kernel, module.get_function, arrays, sizes,
                             lambda n, dtype: cupy.zeros(n, dtype), read)

    def peer(self, problem: str) -> Peer:
        return gpu_peer(problem, self.gemm_peer)

    def extra_peers(self, problem: str) -> list[Callable[[], Peer]]:
        return extra_gpu_peers(problem)

    def synchronize(self) -> None:
        self.cupy.cuda.Device().synchronize()


class CpuDevice:
    """The CPU emulation of the emitted CUDA: checks every variant without a GPU. Its times
    and roofline figures are wall-clock placeholders, not GPU performance."""

    name = "cpu"
    xp = np

    def __init__(self, timer: Timer = wall_timer, roofline: Roofline | None = None):
        self.timer = timer
        self._roofline = roofline or Roofline(1e12, 1e11, "placeholder (cpu device)",
                                              "placeholder (cpu device)")

    def describe(self) -> dict[str, Any]:
        return {"name": "CPU emulation of the CUDA kernels (times are not GPU times)"}

    def roofline(self, peak_flops: float | None = None, bandwidth: float | None = None) -> Roofline:
        r = self._roofline
        return Roofline(peak_flops or r.peak_flops, bandwidth or r.bandwidth,
                        "given" if peak_flops else r.peak_source,
                        "given" if bandwidth else r.bandwidth_source)

    def put(self, host: np.ndarray) -> np.ndarray:
        return host.copy()

    def get(self, array: np.ndarray) -> np.ndarray:
        return array

    def load(self, kernel: Any, arrays: dict[str, Any], sizes: dict[str, int]
             ) -> Callable[[], None]:
        named = {p["name"]: arrays[p["name"]] if p["kind"] == "array" else sizes[p["name"]]
                 for p in kernel.params}
        return lambda: kernel(backend="cpu", **named)

    def peer(self, problem: str) -> Peer:
        return cpu_peer(problem)

    def extra_peers(self, problem: str) -> list[Callable[[], Peer]]:
        return []  # the GPU's further peers (cuDNN) have no CPU stand-in

    def synchronize(self) -> None:
        pass
