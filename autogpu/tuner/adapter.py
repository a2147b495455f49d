"""The one place where the tuner touches the rest of autogpu: a typed facade.

Every call the tuner makes into the frontend, the passes, the cuda target and the executors
goes through this module, and only through their public API (`autogpu.api`, the analyses of
`autogpu.passes.analysis`, the executors' classes): the tuner computes no fact about the IR
itself. Everything returned from here is plain data (strings, dicts, tuples), so it crosses
process boundaries (compile pool, measurement process) by pickling.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import platform
import shutil
import subprocess
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import NoneType, UnionType
from typing import Any, Protocol

from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, MemRefType, StringAttr
from xdsl.utils.hints import isa

from autogpu.api import Kernel
from autogpu.api import compile as compile_c
from autogpu.diagnostics import CompileError
from autogpu.dialects.agpu import ParallelForOp
from autogpu.dialects.signature import LEFT_OUT
from autogpu.numeric import is_integer
from autogpu.passes.analysis import iterations
from autogpu.passes.analysis.extents import touched_extents
from autogpu.passes.analysis.subscript_arrays import SubscriptValues, subscript_arrays
from autogpu.tuner.values import Argument, DeviceInfo, LaunchConfig, SizeValue

#: The package whose code `compiler_fingerprint` hashes.
PACKAGE_ROOT = Path(__file__).resolve().parent.parent


# --- passes and pipelines --------------------------------------------------------------------


@dataclass(frozen=True)
class OptionInfo:
    """One option of a pass: its field name, kind, default and the pass's own tuning hints."""

    name: str
    kind: str  # "int" | "float" | "bool" | "str" | "tuple"
    default: Any
    element_kind: str | None = None  # for tuples: the kind of the elements
    tuning_values: Any = None  # from the pass's TUNING_SPACE, if it declares one
    pass_declares_space: bool = False  # then only the options it names are tuned by default


@dataclass(frozen=True)
class PassSpec:
    """A pass of a pipeline as written: its name and the options given explicitly."""

    name: str
    options: dict[str, tuple[Any, ...]]


def parse_pipeline_spec(spec: str) -> list[PassSpec]:
    """Split `a,b{x=1 y=2}` into passes with their explicit options (xDSL's parser)."""
    from xdsl.utils.arg_spec import parse_pipeline

    try:
        specs = list(parse_pipeline(spec))
    except ValueError as e:  # xDSL's ArgSpecParseError is one
        raise CompileError(f"invalid pipeline '{spec}': {e}") from None
    available = _available_passes()
    result: list[PassSpec] = []
    for s in specs:
        if s.name not in available:
            raise CompileError(
                f"unknown pass '{s.name}' in pipeline '{spec}' "
                f"(autogpu's passes: {', '.join(sorted(_autogpu_pass_names())) or 'none yet'})"
            )
        s = s.normalize_parameter_names()
        result.append(PassSpec(s.name, dict(s.parameters)))
    return result


def format_pipeline(passes: list[PassSpec]) -> str:
    """The inverse of parse_pipeline_spec: `name{opt=v ...}` joined by commas."""
    from xdsl.utils.arg_spec import ArgSpec, ParameterListType

    parts: list[str] = []
    for p in passes:
        params: dict[str, ParameterListType] = {k: tuple(v) if isinstance(v, tuple | list) else (v,)  # pyright: ignore[reportUnnecessaryIsInstance]  # a hand-built PassSpec
                  for k, v in p.options.items()}
        parts.append(str(ArgSpec(p.name, params)))
    return ",".join(parts)


def _available_passes():
    from autogpu.api import available_passes

    return available_passes()


def _autogpu_pass_names() -> list[str]:
    from autogpu.passes import get_all_passes

    return list(get_all_passes())


def pass_class(name: str):
    passes = _available_passes()
    if name not in passes:
        raise CompileError(f"unknown pass '{name}'")
    return passes[name]()


def _kind_of(tp: Any) -> tuple[str, str | None]:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, UnionType):
        args = [a for a in typing.get_args(tp) if a is not NoneType]
        return _kind_of(args[0]) if args else ("str", None)
    if origin is tuple:
        args = [a for a in typing.get_args(tp) if a is not Ellipsis]
        return "tuple", (_kind_of(args[0])[0] if args else "int")
    for kind, py in (("bool", bool), ("int", int), ("float", float), ("str", str)):
        if tp is py:
            return kind, None
    return "str", None


def pass_options(name: str) -> list[OptionInfo]:
    """The options of pass `name` (its dataclass fields), with the pass's tuning hints.

    A pass may declare `TUNING_SPACE: ClassVar[dict[str, str | list]]` (option name -> values or
    a generator expression such as "pow2(32, 512)") and `TUNING_RESTRICTIONS:
    ClassVar[tuple[str, ...]]` (expressions over its options and the sizes); the tuner uses them
    instead of its own defaults table: a pass that declares a space knows which of its options
    are worth tuning.
    """
    cls = pass_class(name)
    hints = typing.get_type_hints(cls)
    declared = getattr(cls, "TUNING_SPACE", {}) or {}
    infos: list[OptionInfo] = []
    for f in dataclasses.fields(cls):
        if f.name == "name" or not f.init:
            continue
        kind, element = _kind_of(hints.get(f.name, str))
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = None
        infos.append(
            OptionInfo(f.name, kind, default, element, declared.get(f.name), bool(declared))
        )
    return infos


def pass_restrictions(name: str) -> tuple[str, ...]:
    return tuple(getattr(pass_class(name), "TUNING_RESTRICTIONS", ()) or ())


# --- the kernel's signature ------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    """A C parameter of the kernel function (the launch description's `params` entry)."""

    name: str
    kind: str  # "array" | "scalar"
    dtype: str  # numpy dtype name
    ctype: str
    const: bool = False
    extents: tuple[str, ...] | None = None

    @property
    def full_extents(self) -> tuple[str, ...] | None:
        """The C99 extents when they give the array's length: all of them written (`float
        A[][n]` leaves the first out, recorded as `LEFT_OUT`), else None."""
        if not self.extents or LEFT_OUT in self.extents:
            return None
        return self.extents


def param_from_launch(p: dict[str, Any]) -> Param:
    ext = p.get("extents")
    return Param(p["name"], p["kind"], p["dtype"], p.get("ctype", ""), bool(p.get("const")),
                 tuple(str(e) for e in ext) if ext else None)


def c_function(source: str, filename: str, function: str | None):
    """The frontend's `func.func` of the C function to tune (the only one when `function` is
    None), parsed once for everything `prepare` reads off it before anything is compiled."""
    from autogpu.api import select_function
    from autogpu.frontend import parse_c

    return select_function(parse_c(source, filename), filename, function,
                           "choose one with --function NAME")


def kernel_signature(func: Any) -> list[Param]:
    """The parameters of a frontend function (name, array or scalar, dtype, C type, const,
    C99 extents), so that sizes can be checked before anything is compiled."""
    from autogpu.dialects.signature import CSignature

    return [Param(p.name, "array" if p.is_array else "scalar", p.dtype.name, p.spelling or "",
                  p.const, tuple(str(e) for e in p.extents) if p.extents is not None else None)
            for p in CSignature.of(func).params]


def _integer_sizes(sizes: Mapping[str, object]) -> dict[str, int]:
    """The integer sizes (the analyses evaluate integer arithmetic only)."""
    return {k: int(v) for k, v in sizes.items() if is_integer(v)}


def array_reductions(function: func.FuncOp) -> int:
    """How many array reductions the parallel loops of a frontend function have (their
    strategy is tuned: convert-agpu-to-gpu's `array_reduction`)."""
    return sum(1 for op in function.walk() if isinstance(op, ParallelForOp)
               for _, var in op.reduction_list
               if isa(var.type, MemRefType) and var.type.get_shape())


def scalar_reductions(function: func.FuncOp) -> int:
    """How many scalar reductions the parallel loops of a frontend function have (their grid
    limit is tuned: convert-agpu-to-gpu's `reduce_blocks`)."""
    return sum(1 for op in function.walk() if isinstance(op, ParallelForOp)
               for _, var in op.reduction_list if not var.type.get_shape())  # pyright: ignore


def split_accumulations(function: func.FuncOp, assume_no_alias: bool = True) -> int:
    """How many parallel loops of a frontend function the split of accumulations takes (their
    split is tuned: convert-agpu-to-gpu's `split_walkers`), as autogpu-optimize stages them
    (`assume_no_alias` its default; the split's own predicate)."""
    from autogpu.passes.agpu_split_accumulations import splittable_loops

    return splittable_loops(function, assume_no_alias)


def parallel_depth(function: func.FuncOp) -> int:
    """How many `agpu.parallel_for` are nested in a frontend function (its parallel
    dimensions)."""
    return iterations.parallel_depth(function)


def thread_limit(function: func.FuncOp, sizes: Mapping[str, object] | None = None) -> int | None:
    """The smallest OpenMP `thread_limit(N)` recorded on the function's parallel loops
    (`agpu.thread_limit`, docs/ir.md): the threads per block the user allows, None if no limit.
    A `thread_limit(e)` of the parameters is evaluated with `sizes` (skipped without them)."""
    from autogpu.target.launch import evaluate

    limits: list[int] = []
    for op in function.walk():
        limit = op.attributes.get("agpu.thread_limit")
        if isinstance(limit, IntegerAttr):
            limits.append(limit.value.data)
        elif isinstance(limit, StringAttr) and sizes is not None:
            try:
                value = evaluate(limit.data, _integer_sizes(sizes))
            except ValueError as e:  # a size it reads is not given
                raise CompileError(f"thread_limit({limit.data}) cannot be evaluated for the "
                                   f"tuned sizes: {e}") from None
            limits.append(max(value, 1))
    return min(limits, default=None)


def touched_lengths(function: func.FuncOp, sizes: Mapping[str, object]) -> dict[str, int | None]:
    """Elements each array of a frontend function needs for these sizes (1 + the largest index
    its accesses may use); None where no bound is found."""
    return touched_extents(function, _integer_sizes(sizes))


def subscript_values(
    function: func.FuncOp, sizes: Mapping[str, object], lengths: Mapping[str, int]
) -> dict[str, SubscriptValues | str]:
    """For each integer array whose values are subscripts (`x[col[i]]`): the values that keep
    the accesses in bounds for these sizes and lengths, or why none can be derived."""
    return subscript_arrays(function, _integer_sizes(sizes), lengths)


def reduction_length(function: func.FuncOp, sizes: Mapping[str, object]) -> int | None:
    """K of the verification tolerance: the most terms any value accumulates for these sizes
    (`iterations.longest_accumulation`); None where a trip count cannot be evaluated (the caller
    falls back)."""
    return iterations.longest_accumulation(function, _integer_sizes(sizes))


def parallel_iterations(function: func.FuncOp, sizes: Mapping[str, object]) -> int | None:
    """How many iterations the parallel loops of a frontend function run for these sizes; None
    where a trip count cannot be evaluated or there is no parallel loop."""
    return iterations.parallel_iterations(function, _integer_sizes(sizes))


# --- compiling a variant ---------------------------------------------------------------------


@dataclass(frozen=True)
class Artifact:
    """What compiling one variant produces: CUDA source and the launch description."""

    cuda_source: str
    launch: dict[str, Any]  # the whole launch description ({"functions": [...]})
    function: str

    @property
    def entry(self) -> dict[str, Any]:
        for f in self.launch["functions"]:
            if f["name"] == self.function:
                return f
        raise CompileError(f"function '{self.function}' has no kernel launches")

    @property
    def digest(self) -> str:
        text = self.cuda_source + json.dumps(self.launch, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _already_shown(_warning: CompileError) -> None:
    """The frontend's warnings about the source: `prepare` showed them once, variants don't."""


def compile_variant(source: str, filename: str, function: str, pipeline: str) -> Artifact:
    """Run the frontend, `pipeline` and the cuda target: the variant as plain data."""
    kernel = compile_kernel(source, filename, function, pipeline)
    artifact = Artifact(kernel.cuda_source, kernel.launch_description, function)
    artifact.entry  # noqa: B018  (fails early if the function has no launches)
    return artifact


def compile_kernel(source: str, filename: str, function: str, pipeline: str) -> Kernel:
    """The user-facing `Kernel` of a pipeline (what autogpu.tune returns)."""
    kernel = compile_c(source if "\n" in source else source + "\n", pipeline, function,
                       warn=_already_shown)
    kernel.source_file = filename
    return kernel


def launch_config(artifact: Artifact, scalars: Mapping[str, SizeValue]) -> list[LaunchConfig]:
    """Grid, block and dynamic shared bytes of each launch the function's host program runs,
    evaluated for `scalars`, and the
    static shared bytes its kernel declares (the cuda target counts them)."""
    from autogpu.runtime.arguments import bind_scalars, parse_launch_description
    from autogpu.target.launch import evaluate as evaluate_expression
    from autogpu.target.launch import launch_config as evaluate
    from autogpu.target.launch_steps import each_launch_once, has_reads, steps_of, trace

    (function,) = parse_launch_description({"functions": [artifact.entry]}).values()
    names = {p.name for p in function.params if not p.is_array}
    typed = bind_scalars(function, {k: v for k, v in scalars.items() if k in names})
    for spec in function.parts or ():  # agpu-out-of-core: the whole loops, as in-core runs
        typed = bind_scalars(function, {**typed, spec.lo: evaluate_expression(spec.lb, typed),
                                        spec.hi: evaluate_expression(spec.ub, typed)})
    configs: list[LaunchConfig] = []
    steps = steps_of(artifact.entry)  # a program that reads the device: each launch once
    runs = each_launch_once(steps, typed) if has_reads(steps) else trace(steps, typed)
    for index, env in runs:
        entry = artifact.entry["launches"][index]
        grid, block, shared = evaluate(entry, env)
        configs.append({"kernel": entry["kernel"], "grid": list(grid), "block": list(block),
                        "shared": int(shared),
                        "static_shared": int(entry.get("static_shared_bytes", 0))})
    return configs


# --- executors -------------------------------------------------------------------------------


class Executor(Protocol):
    """What the tuner needs of an executor (`CpuProgram`, `CudaProgram`, a test's fake): run a
    function's launches on arguments in C parameter order, outputs in place. `CudaProgram` also
    has `time` (CUDA-event timing, see `time_program`)."""

    def run(
        self, function_name: str, /, *args: Argument | tuple[Argument, ...] | dict[str, Argument]
    ) -> None:
        """`run(fn, *args)`, or `run(fn, args, named)` where the executor takes no varargs."""


def make_program(artifact: Artifact, backend: str, device: int = 0,
                 memory_budget: int | None = None) -> Executor:
    """The executor for `backend` over the artifact's CUDA source and launch description;
    `memory_budget` bounds the device memory of functions that run in parts."""
    if backend == "cpu":
        from autogpu.runtime.cpu_exec import CpuProgram

        return CpuProgram(artifact.cuda_source, artifact.launch, memory_budget=memory_budget)
    if backend == "cuda":
        from autogpu.runtime.cuda_exec import CudaProgram

        # The GPU is chosen by select_gpu() (CUDA_VISIBLE_DEVICES) before CUDA starts.
        return CudaProgram(artifact.cuda_source, artifact.launch, memory_budget=memory_budget)
    raise CompileError(f"unknown backend '{backend}': choose cpu or cuda")


#: The thread orders of the CPU emulation every variant is verified under (see cpu_exec's
#: `thread_order`): a variant whose result depends on the order (a race between threads, a
#: missing barrier) disagrees with the serial reference under at least one of them.
CPU_VERIFY_ORDERS = ("random", "reverse")


def verification_programs(artifact: Artifact, backend: str, device: int = 0,
                          memory_budget: int | None = None) -> list[tuple[str | None, Executor]]:
    """(thread order, executor) pairs a variant is verified with: one per order of
    CPU_VERIFY_ORDERS on the CPU emulation; on the GPU one, in the GPU's own order (None)."""
    if backend != "cpu":
        return [(None, make_program(artifact, backend, device, memory_budget))]
    from autogpu.runtime.cpu_exec import CpuProgram

    return [(order, CpuProgram(artifact.cuda_source, artifact.launch, thread_order=order,
                               memory_budget=memory_budget))
            for order in CPU_VERIFY_ORDERS]


def _takes_varargs(method: Callable[..., object]) -> bool:
    import inspect

    try:
        params = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params)


def run_program(program: Executor, function: str, args: Sequence[Argument]) -> None:
    """Run the function's launches on `args` (outputs in place), whichever calling convention
    the executor has: run(fn, *args) or run(fn, args, named)."""
    if _takes_varargs(program.run):
        program.run(function, *args)
    else:
        program.run(function, tuple(args), {})


class BuildError(Exception):
    """The executor could not build a variant (g++ or nvcc failed)."""

    stage = "build"


def prebuild(artifact: Artifact, backend: str, arch: str | None = None) -> None:
    """Build the variant's binary in a compile worker, so that the measurement process finds it
    in the executor's on-disk cache instead of compiling serially: g++ for the CPU emulation,
    nvcc into pycuda's compiler cache for the GPU (`cuda_exec.prebuild`: the same options as
    `CudaProgram`, so the same cache entry), without touching the GPU."""
    try:
        if backend == "cpu":
            from autogpu.runtime.cpu_exec import CpuProgram

            CpuProgram(artifact.cuda_source, artifact.launch)
        elif backend == "cuda" and arch:
            from autogpu.runtime import cuda_exec

            try:
                cuda_exec.prebuild(artifact.cuda_source, arch=arch)
            except cuda_exec.GpuUnavailableError:  # no pycuda: the measurer reports it
                return
    except ImportError:
        return
    except Exception as e:  # noqa: BLE001
        raise BuildError(str(e).strip() or type(e).__name__) from None


def time_program(program: Executor, function: str, args: Sequence[Argument], *, warmup: int,
                 repetitions: int) -> list[float] | None:
    """Seconds per run of the kernels alone (data resident on the device, outputs restored
    before each run) from the executor's CUDA-event timer, or None if it has none (the CPU
    emulation: the caller times it by the wall clock)."""
    timer = getattr(program, "time", None)
    if timer is None:
        return None
    timing = timer(function, tuple(args), {}, warmup=warmup, repetitions=repetitions,
                   copies=False)
    return list(timing.kernel_samples_s)


# --- devices and versions (part of the cache key) ---------------------------------------------


def cache_folder(kind: str):
    """Where autogpu keeps what it made, by kind: the one rule of the CPU executor
    ($AUTOGPU_CACHE/kind, else ~/.cache/autogpu/kind)."""
    from autogpu.runtime.cpu_exec import cache_dir

    return cache_dir(kind)


#: The files whose contents make up the compiler (hashed by compiler_fingerprint).
COMPILER_SUFFIXES = (".py", ".lark", ".h")


@cache
def compiler_fingerprint() -> str:
    """A hash of autogpu's own code (every .py, .lark and .h file of the package, by path and
    contents) and of the xDSL and lark it runs on, computed once per process: results measured
    with code that another compiler generated are never reused."""
    from importlib.metadata import PackageNotFoundError, version
    root = PACKAGE_ROOT
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.suffix in COMPILER_SUFFIXES):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    for dependency in ("xdsl", "lark"):
        try:
            h.update(f"{dependency}=={version(dependency)}\0".encode())
        except PackageNotFoundError:
            h.update(f"{dependency} missing\0".encode())
    return h.hexdigest()[:24]


@cache
def _command_version(cmd: tuple[str, ...]) -> str:
    if shutil.which(cmd[0]) is None:
        return "none"
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=20, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    lines = [line for line in out.splitlines() if line.strip()]
    return lines[-1].strip() if cmd[0] == "nvcc" else (lines[0].strip() if lines else "unknown")


def cpu_device_key() -> DeviceInfo:
    """The CPU "device": the machine, and the compiler the CPU executor uses."""
    import os

    compiler = os.environ.get("CXX") or "g++"  # what cpu_exec.CpuProgram builds with
    return {"backend": "cpu", "machine": platform.machine(), "cpu": _cpu_model(),
            "compiler": _command_version((str(compiler), "--version"))}


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def nvcc_version() -> str:
    return _command_version(("nvcc", "--version"))


def select_gpu(device: int) -> None:
    """Make GPU `device` the only one this process sees (before CUDA is initialised), so the
    executor's default context lands on it."""
    import os

    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible:
        ids = [v.strip() for v in visible.split(",") if v.strip()]
        if device >= len(ids):
            raise CompileError(f"GPU {device} does not exist (CUDA_VISIBLE_DEVICES={visible})")
        os.environ["CUDA_VISIBLE_DEVICES"] = ids[device]
    else:
        os.environ["CUDA_VISIBLE_DEVICES"] = str(device)


def cuda_device_info(device: int) -> DeviceInfo:
    """Name, compute capability, driver version and limits of the GPU (in the measurement
    process, after select_gpu: it initialises CUDA)."""
    try:
        drv: Any = importlib.import_module("pycuda.driver")  # GPU hosts only, untyped
    except ImportError:
        raise CompileError("the cuda backend needs pycuda and an NVIDIA GPU (pip install -e "
                           "'.[gpu]'); --backend cpu tunes on the CPU emulation instead") from None
    try:
        drv.init()
        dev = drv.Device(0)
    except Exception as e:  # noqa: BLE001 — pycuda.driver.Error: no driver, no device
        raise CompileError(f"no usable CUDA device {device}: {e}") from None
    attrs = dev.get_attributes()
    a = drv.device_attribute
    major, minor = dev.compute_capability()
    return {
        "backend": "cuda",
        "gpu": dev.name(),
        "pci_bus_id": dev.pci_bus_id(),
        "arch": f"sm_{major}{minor}",
        "compute_capability": f"{major}.{minor}",
        "driver": str(drv.get_driver_version()),
        "nvcc": nvcc_version(),
        "max_threads_per_block": int(attrs[a.MAX_THREADS_PER_BLOCK]),
        # the opt-in maximum: tiles beyond 48 KiB live in dynamic shared memory
        # (gpu-dynamic-shared) and the launchers raise the kernel's limit
        "max_shared_per_block": int(attrs[a.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN]),
    }
