"""Runs the emitted CUDA C on the CPU with CUDA's thread semantics, so that machines without a GPU
(CI) can prove every kernel correct.

The CUDA source is compiled unchanged by g++ against `cpu_runtime.h`, which defines the CUDA names
and runs a grid as CUDA would: blocks spread over OpenMP threads in any order, the threads of a
block as fibers with `__syncthreads()` a real barrier, `__shared__` memory per block, locals per
thread (see the header for the design). Floating point follows C: `-ffp-contract=off` (no fused
multiply-add), no fast math; signed integers wrap (`-fwrapv`). To compare a GPU's results bitwise,
build the GPU code with `--fmad=false` (nvcc contracts `a * b + c` by default), otherwise compare
with a tolerance; CUDA's math functions (expf, sinf, ...) are not correctly rounded, glibc's are
closer, so those always need a tolerance.

The order in which blocks and threads run is chosen, so that a race cannot hide behind a lucky
order: by default a pseudo-random permutation from a seed (`thread_order="random"`, `seed=0`),
the same run after run; "forward" and "reverse" are the others. It orders the blocks of the grid
and, anew for each block and for each pass between two barriers, the threads of the block. With
`threads=1` the blocks run exactly in that order; with several OS threads, each takes the next
block of the order, so they interleave as the machine schedules them.

Each distinct source is compiled once: the shared library is cached under `$AUTOGPU_CACHE/cpu`
(default `~/.cache/autogpu/cpu`) by a hash of the source, the header, the flags and the compiler,
written to a temporary file and renamed into place, so parallel test workers never race. Each
program loads the library (dlopen) and unloads it when closed or garbage collected, with the fiber
stacks it mapped: a process may try thousands of variants (the tuner) without running out of
memory maps. Failures of the machine rather than the kernel (no memory or memory map left, a
compiler killed) raise `KernelEnvironmentError`, which a caller may retry.
"""

from __future__ import annotations

import _ctypes
import ctypes
import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import weakref
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from autogpu.dialects.signature import BY_DTYPE, C_TYPES
from autogpu.runtime.arguments import (
    BoundCall,
    Function,
    KernelCompileError,
    KernelEnvironmentError,
    KernelLaunchError,
    Launch,
    LaunchDescriptionError,
    LaunchEntry,
    bind_arguments,
    call_arguments,
    find_function,
    kernel_names,
    launch_trace,
    launches,
    parse_launch_description,
)
from autogpu.runtime.array_arguments import Buffer, HostMemory
from autogpu.target.launch_steps import reads as device_reads

if TYPE_CHECKING:
    import numpy as np

    from autogpu.runtime.cluster import PartSlice

HEADER = Path(__file__).with_name("cpu_runtime.h")
CXXFLAGS = (
    "-std=c++17",
    "-O2",
    "-fPIC",
    "-shared",
    "-fopenmp",
    "-fvisibility=hidden",  # only the launch entry points are exported (see cpu_runtime.h)
    "-fno-gnu-unique",
    "-ffp-contract=off",
    "-fno-fast-math",
    "-fwrapv",
    "-fno-strict-aliasing",
    "-Wl,-z,defs",  # an undefined symbol fails the link, not the load (see _load)
)
LIBRARIES = ("-ldl",)  # dladdr and dlopen (cpu_runtime.h), in libc since glibc 2.34
COMPILER = os.environ.get("CXX") or "g++"  # the C++ compiler used unless one is given
THREAD_ORDERS = {"forward": 0, "reverse": 1, "random": 2}
SOURCE_NAME = "kernels.cu"
_ERROR_BYTES = 2048
_ENVIRONMENT_FAILED = 2  # a launch's Status (cpu_runtime.h): 0 ok, 1 the kernel failed
# The compiler failing for lack of memory, disk or processes rather than on the source.
_COMPILER_STARVED = re.compile(
    r"out of memory|virtual memory exhausted|Cannot allocate memory|No space left on device"
    r"|Killed signal terminated program|Resource temporarily unavailable"
)


def cache_dir(kind: str = "cpu") -> Path:
    """Where autogpu keeps what it compiled, by kind ("cpu" for these kernels, "c_reference",
    "nvcc"): $AUTOGPU_CACHE/kind, else ~/.cache/autogpu/kind."""
    root = os.environ.get("AUTOGPU_CACHE") or os.path.join(Path.home(), ".cache", "autogpu")
    return Path(root) / kind


@functools.cache
def _compiler_identity(cxx: str) -> str:
    if shutil.which(cxx) is None:
        raise KernelCompileError(
            f"the CPU executor needs a C++17 compiler with OpenMP: '{cxx}' was not found"
            " (install g++ or set $CXX)"
        )
    return subprocess.run([cxx, "--version"], capture_output=True, text=True, check=False).stdout


# --------------------------------------------------------------------------------------------
# Source preparation
# --------------------------------------------------------------------------------------------
# Headers the emulation replaces: the CUDA ones, and assert's (its abort would kill the process;
# the runtime's assert fails the launch instead).
_REPLACED_INCLUDE = re.compile(
    r'^[ \t]*#[ \t]*include[ \t]*[<"]'
    r'(cuda_runtime\.h|cuda\.h|device_launch_parameters\.h|assert\.h|cassert)[>"]',
    re.MULTILINE,
)
_EXTERN_SHARED = re.compile(
    r"\bextern\s+__shared__\s+(?P<type>[^;\[\]{}()]*?(?:__align__\s*\(\s*\d+\s*\)[^;\[\]{}()]*?)?)"
    r"\s*\b(?P<name>[A-Za-z_]\w*)\s*\[\s*\]\s*;"
)


def _rewrite_extern_shared(source: str) -> str:
    """`extern __shared__ T name[];` (dynamic shared memory) has no C++ equivalent: inside a
    function it becomes a pointer to the block's dynamic shared buffer, at file scope a macro."""
    out, last = list[str](), 0
    for m in _EXTERN_SHARED.finditer(source):
        ctype = re.sub(r"__align__\s*\(\s*\d+\s*\)", " ", m["type"]).strip()
        ctype = " ".join(ctype.split())
        pointer = f"(reinterpret_cast<{ctype}*>(agpu::dynamic_shared()))"
        depth = source.count("{", 0, m.start()) - source.count("}", 0, m.start())
        line = source.count("\n", 0, m.end()) + 1
        if depth > 0:
            text = f"{ctype}* const {m['name']} = {pointer};"
        else:
            text = f'\n#define {m["name"]} {pointer}\n#line {line} "{SOURCE_NAME}"\n'
        out.append(source[last : m.start()] + text)
        last = m.end()
    out.append(source[last:])
    return "".join(out)


_STATIC_SHARED = re.compile(
    r"(?<![\w#])__shared__\s+(?:__align__\s*\(\s*\d+\s*\)\s*)?[A-Za-z_][\w\s\*]*?"
    r"\b(?P<name>[A-Za-z_]\w*)\s*(?:\[[^\]\[;{}]*\]\s*)*;"
)


def _poison_static_shared(source: str) -> str:
    """After each `__shared__ T name[...];` inside a function, a call that fills it with 0xFF
    bytes once per block (see agpu::poison_shared in the header); on the same line, so line
    numbers stay."""
    out, last = list[str](), 0
    for m in _STATIC_SHARED.finditer(source):
        depth = source.count("{", 0, m.start()) - source.count("}", 0, m.start())
        line_start = source.rfind("\n", 0, m.start()) + 1
        if depth <= 0 or source[line_start:m.start()].lstrip().startswith("#"):
            continue
        out.append(source[last : m.end()])
        out.append(f" agpu::poison_shared(&{m['name']}, sizeof({m['name']}));")
        last = m.end()
    out.append(source[last:])
    return "".join(out)


def prepare_source(cuda_source: str, kernels: Sequence[str], reads: Sequence[str] = ()) -> str:
    """The C++ translation unit: the header, the CUDA source (line numbers kept for errors), a
    C-linkage entry point and signature query per launched kernel, and a copy-out per device
    variable the host programs read back (`reads`: a convergence loop's condition)."""
    body = _REPLACED_INCLUDE.sub(lambda m: "// " + m.group(0).lstrip(), cuda_source)
    body = _poison_static_shared(_rewrite_extern_shared(body))
    wrappers = [f'#line 1 "<launch wrappers of {SOURCE_NAME}>"']
    for k in kernels:
        wrappers.append(
            f'extern "C" __attribute__((visibility("default"))) int agpu_launch__{k}('
            "const long long* config, void** argv, char* err, unsigned long errlen)"
            f" {{ return agpu::launch(&{k}, config, argv, err, errlen); }}"
        )
        wrappers.append(
            f'extern "C" __attribute__((visibility("default"))) int agpu_signature__{k}('
            f"char* out, unsigned long len) {{ return agpu::signature(&{k}, out, len); }}"
        )
    for variable in reads:
        wrappers.append(
            f'extern "C" __attribute__((visibility("default"))) void agpu_read__{variable}('
            f"void* out) {{ __builtin_memcpy(out, &{variable}, sizeof({variable})); }}"
        )
    return "\n".join(
        ['#include "cpu_runtime.h"', f'#line 1 "{SOURCE_NAME}"', body, *wrappers, ""]
    )


# --------------------------------------------------------------------------------------------
# Compilation and the cache
# --------------------------------------------------------------------------------------------
def compile_library(
    cpp_source: str, cache: Path, cxx: str, extra_flags: Sequence[str] = ()
) -> tuple[Path, bool]:
    """Compiles (or finds in the cache) the shared library; returns its path and whether it was
    compiled now."""
    try:
        return _compile_library(cpp_source, cache, cxx, extra_flags)
    except OSError as e:  # no process, no disk space, no memory
        raise KernelEnvironmentError(
            f"cannot compile for the CPU emulation: {e.strerror or e}"
        ) from None


def _compile_library(
    cpp_source: str, cache: Path, cxx: str, extra_flags: Sequence[str]
) -> tuple[Path, bool]:
    flags = (*CXXFLAGS, *extra_flags)
    key = hashlib.sha256(
        "\0".join(
            [cpp_source, HEADER.read_text(), " ".join(flags), _compiler_identity(cxx)]
        ).encode()
    ).hexdigest()[:32]
    library = cache / f"kernels-{key}.so"
    if library.exists():
        return library, False
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="autogpu-cpu-") as work:
        source_path = Path(work) / "kernels.cpp"
        source_path.write_text(cpp_source)
        built = Path(work) / "kernels.so"
        result = subprocess.run(
            [cxx, *flags, "-I", str(HEADER.parent), str(source_path), *LIBRARIES, "-o",
             str(built)],
            capture_output=True,
            text=True, check=False,
        )
        if result.returncode < 0 or _COMPILER_STARVED.search(result.stderr):
            raise KernelEnvironmentError(
                "the compiler of the CPU emulation ran out of resources"
                f" ({_exit_description(result.returncode)})",
                result.stderr.strip(),
            )
        if result.returncode != 0:
            raise KernelCompileError(
                "the CUDA source did not compile for the CPU emulation"
                " (g++ against autogpu/runtime/cpu_runtime.h)",
                result.stderr.strip(),
            )
        # Same directory as the target, so the rename is atomic: a concurrent compile of the same
        # source by another process just replaces it with an identical library.
        fd, staging = tempfile.mkstemp(prefix=library.name + ".", suffix=".tmp", dir=cache)
        os.close(fd)
        shutil.copyfile(built, staging)
        os.replace(staging, library)
    return library, True


def _exit_description(returncode: int) -> str:
    return f"killed by signal {-returncode}" if returncode < 0 else f"exit status {returncode}"


def _load(library: Path) -> ctypes.CDLL:
    """dlopen. The library links with -z defs, so its loading fails only for want of memory or
    memory maps (or a cache emptied meanwhile): the environment's failure."""
    try:
        return ctypes.CDLL(str(library))
    except OSError as e:
        raise KernelEnvironmentError(f"cannot load the compiled kernels: {e}") from None


def _unload(handle: int) -> None:
    """dlclose: glibc unloads the library once no program holds it (dlopen counts), and its
    static destructor unmaps the fiber stacks it pooled."""
    _ctypes.dlclose(handle)


# --------------------------------------------------------------------------------------------
# The program
# --------------------------------------------------------------------------------------------
class CpuProgram:
    """The kernels of one CUDA source, runnable on the CPU from its launch description.

    `run(function_name, *args, **named)` (or `run(function_name, args, named)`) takes NumPy
    arrays and Python scalars in the C parameter order (or by name), runs the function's
    launches in order and leaves the results in the arrays. `threads` caps the OS threads that
    run blocks (default: all cores). `thread_order` is the order of the blocks of a grid and of
    the threads of a block between barriers: "random" (the default), a pseudo-random permutation
    chosen by `seed`, the same on every run; "forward"; "reverse". A correct kernel gives the
    same results in every order, so running it in several (e.g. two seeds and "reverse") exposes
    races; `threads=1` makes the order of the blocks exact, so a race shows deterministically.
    Two programs of one source share the compiled library: one per order costs no compile.
    `compiled_now` says whether the constructor compiled or found the library cached.

    `close()` unloads the kernels and their fiber stacks (once no other program of the same
    source holds them); a program is closed anyway when garbage collected.
    """

    def __init__(
        self,
        cuda_source: str,
        launch: Mapping[str, Any],
        *,
        threads: int | None = None,
        thread_order: str = "random",
        seed: int = 0,
        cache: str | os.PathLike[str] | None = None,
        cxx: str | None = None,
        extra_flags: Sequence[str] = (),
        memory_budget: int | None = None,
        devices: int | Sequence[int] = 1,
        cluster: Any = None,
    ):
        from autogpu.runtime.lanes import check_devices

        self.devices = check_devices(devices)  # emulated devices: lanes of functions in parts
        self._launch_description = launch
        self._client: Any = None  # Dask: functions in parts run their parts on the cluster
        self._own_client = False
        if cluster is not None:
            from autogpu.runtime.cluster import connect

            self._client, self._own_client = connect(cluster)
        if thread_order not in THREAD_ORDERS:
            raise ValueError(
                f"thread_order must be one of {', '.join(THREAD_ORDERS)}, not {thread_order!r}"
            )
        self.functions: dict[str, Function] = parse_launch_description(launch)
        self.threads = threads
        self.thread_order = thread_order
        self.seed = seed
        self.memory_budget = memory_budget  # bytes; functions in parts run within it
        self.timeline: list[tuple[str, int, float, float]] | None = None  # set: parts record
        self.last_plan: Any = None  # runtime.parts.PartPlan of the last call in parts
        self.last_plans: list[Any] = []  # all of its plans: one per nest run (time loops)
        self.last_lanes: list[list[Any]] = []  # per plan run in parts: a LaneRecord per device
        self.kept: Any = None  # runtime.parts.KeepHooks of the last call in parts (its copies)
        self.source = cuda_source
        kernels = kernel_names(self.functions)
        reads = {g: c for f in self.functions.values() for g, c in device_reads(f.steps).items()}
        self.cpp_source = prepare_source(cuda_source, kernels, list(reads))
        try:
            self.library_path, self.compiled_now = compile_library(
                self.cpp_source,
                Path(cache) / "cpu" if cache is not None else cache_dir(),
                cxx or COMPILER,
                extra_flags,
            )
        except KernelCompileError as e:
            missing = [k for k in kernels if not re.search(rf"\b{re.escape(k)}\s*\(", cuda_source)]
            if missing:
                raise LaunchDescriptionError(
                    f"the launch description launches {', '.join(missing)}, which the CUDA"
                    " source does not define"
                ) from e
            raise
        library = _load(self.library_path)
        self._release = weakref.finalize(self, _unload, library._handle)
        self._release.atexit = False  # the process unmaps everything as it exits
        self._entries: dict[str, Any] = {}
        self.kernel_signatures: dict[str, tuple[str, ...]] = {}
        for k in kernels:
            entry = getattr(library, f"agpu_launch__{k}")
            entry.restype = ctypes.c_int
            entry.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_ulong]
            self._entries[k] = entry
            query = getattr(library, f"agpu_signature__{k}")
            query.restype = ctypes.c_int
            query.argtypes = [ctypes.c_char_p, ctypes.c_ulong]
            buffer = ctypes.create_string_buffer(4096)
            query(buffer, len(buffer))
            text = buffer.value.decode()
            self.kernel_signatures[k] = tuple(text.split(",")) if text else ()
        for function in self.functions.values():
            for entry in function.launches:
                _check_signature(function, entry, self.kernel_signatures[entry.kernel])
        self._reads: dict[str, Any] = {}
        for variable in reads:
            copy_out = getattr(library, f"agpu_read__{variable}")
            copy_out.restype = None
            copy_out.argtypes = [ctypes.c_void_p]
            self._reads[variable] = copy_out

    def _read(self, variable: str, ctype: str) -> Any:
        """A device variable's value (the launches before it have run: they are
        synchronous here)."""
        holder = np.zeros(1, np.dtype(C_TYPES[ctype].dtype))
        self._reads[variable](holder.ctypes.data)
        return holder[0]

    def close(self) -> None:
        """Unloads the kernels now (not while another thread runs them); running the program
        afterwards raises KernelLaunchError."""
        self._entries.clear()
        self._release()
        if self._own_client:
            self._client.close()
            self._own_client = False

    def run(self, function_name: str, /, *args: Any, **named: Any) -> None:
        """Runs the function's launches (its host program) on the given arguments (outputs in
        place): `run(name, x, y, n=3)` or `run(name, (x, y), {"n": 3})`."""
        if not self._release.alive:
            raise KernelLaunchError("the CPU program was closed: its kernels are unloaded")
        args, named = call_arguments(args, named)
        function = find_function(self.functions, function_name)
        if function.parts is not None:  # agpu-out-of-core: in parts within memory_budget
            self._run_parts(function, args, named)
            return
        self._run_call(bind_arguments(function, args, named))

    __call__ = run

    def _run_call(self, call: BoundCall, pointers: Mapping[str, int] | None = None,
                  positions: Collection[int] | None = None) -> None:
        """The launches of one call (those at `positions` of its trace, if given: one nest's
        part); `pointers` are part buffers (runtime.parts) that replace their arrays. With
        `pointers`, the arrays they leave out are null, as on the GPU: the nest never touches
        them (its footprint names every array it does)."""
        if pointers is not None:
            pointers = {**{a.param.name: 0 for a in call.arrays()}, **pointers}
        # the call's scratch buffers, zero-filled, alive until the call returns
        scratch = {name: np.zeros(elements, call.function.param(name).dtype)
                   for name, elements in call.scratch_elements().items()}  # fmt: skip
        pointers = {**(pointers or {}), **{name: a.ctypes.data for name, a in scratch.items()}}
        memory = HostMemory()
        buffers = {a.param.name: a.stage(memory, in_place=True) for a in call.arrays()
                   if a.param.name not in pointers}
        trace = launches(call, self._read) if call.function.reads_device \
            else launch_trace(call)
        for position, launch in enumerate(trace):
            if not launch.config.empty and (positions is None or position in positions):
                self._launch(launch, call, buffers, pointers)
        for buffer in buffers.values():
            buffer.copy_back()

    def run_slices(self, call: BoundCall, whole: Mapping[str, np.ndarray],
                   slices: Sequence[PartSlice], positions: Collection[int]) -> None:
        """One part's launches (those at `positions`) on a cluster worker: each slice's buffer
        in place of its array (through a pointer shifted back to the array's element 0), the
        arrays read whole as they are (`runtime.cluster.run_part`)."""
        from autogpu.runtime.parts import shifted_pointer

        pointers = {name: shifted_pointer(buffer.ctypes.data, first, buffer.itemsize)
                    for name, first, buffer, _ in slices}
        pointers.update({name: array.ctypes.data for name, array in whole.items()})
        self._run_call(call, pointers, positions)

    def _run_parts(self, function: Function, args: Sequence[Any], named: Mapping[str, Any]
                   ) -> None:
        from autogpu.runtime.keep import HostBuffers, KeptArrays
        from autogpu.runtime.parts import CpuPartRunner, KeepHooks, bind_part_call, run_nests

        call = bind_part_call(function, function.parts, args, named, bind_arguments)

        self.last_lanes = []

        def run_plan(plan: Any, positions: tuple[int, ...]) -> None:
            if self._client is not None:
                from autogpu.runtime.cluster import run_plan_on_cluster

                self.last_lanes.append(run_plan_on_cluster(
                    self._client, type(self), self.source, self._launch_description, plan, call,
                    positions))
                return
            runner = CpuPartRunner(plan, call, self.timeline, len(self.devices))
            runner.run(lambda part_call, pointers: self._run_call(part_call, pointers, positions))
            self.last_lanes.append(runner.records)

        self.kept = KeepHooks(lambda arrays, budget: KeptArrays(arrays, budget, HostBuffers()),
                              lambda whole, positions, pointers:
                              self._run_call(whole, pointers, positions))
        self.last_plans = run_nests(call, function.parts, self.memory_budget, self._run_call,
                                    run_plan, self.kept)
        self.last_plan = self.last_plans[-1] if self.last_plans else None

    def _launch(self, launch: Launch, call: BoundCall, buffers: Mapping[str, Buffer],
                pointers: Mapping[str, int]) -> None:
        entry, config = launch.entry, launch.config
        holders: list[Any] = []  # ctypes scalars, kept alive for the call
        for name in entry.args:
            if name in pointers:  # a part buffer, shifted (runtime.parts)
                holders.append(ctypes.c_void_p(pointers[name]))
                continue
            if name in buffers:
                holders.append(ctypes.c_void_p(buffers[name].pointer))
                continue
            value = launch.argument(name, call)
            holders.append(BY_DTYPE[value.dtype.name].ctypes(value.item()))
        argv = (ctypes.c_void_p * max(len(holders), 1))(
            *[ctypes.addressof(h) for h in holders]
        )
        settings = (ctypes.c_longlong * 10)(
            *config.grid,
            *config.block,
            config.dynamic_shared_bytes,
            THREAD_ORDERS[self.thread_order],
            self.seed & (2**63 - 1),
            self.threads or 0,
        )
        error = ctypes.create_string_buffer(_ERROR_BYTES)
        status = self._entries[entry.kernel](settings, argv, error, _ERROR_BYTES)
        if status == 0:
            return
        message = (
            f"kernel '{entry.kernel}' (grid {config.grid}, block {config.block}) failed on the"
            f" CPU: {error.value.decode(errors='replace')}"
        )
        if status == _ENVIRONMENT_FAILED:
            raise KernelEnvironmentError(f"{message} (the machine's resources, not the kernel)")
        raise KernelLaunchError(message)


def _check_signature(function: Function, entry: LaunchEntry, signature: Sequence[str]) -> None:
    """The launch description must pass what the kernel takes: same count, same types."""
    where = f"launch of '{entry.kernel}' in '{function.name}'"
    if len(signature) != len(entry.args):
        raise LaunchDescriptionError(
            f"{where} passes {len(entry.args)} arguments, but the kernel takes"
            f" {len(signature)} ({', '.join(signature)})"
        )
    for position, (name, ktype) in enumerate(zip(entry.args, signature)):
        p = function.param(name)
        expected = f"{p.dtype.name}*" if p.is_array else p.dtype.name
        if ktype == expected or (p.is_array and ktype == "?*"):
            continue
        raise LaunchDescriptionError(
            f"{where}: argument {position} is '{name}', a {p.describe()}, but the kernel's"
            f" parameter {position} is {ktype}"
        )
