"""The Python API: `autogpu.compile(...)` turns serial C into a callable kernel.

    kernel = autogpu.compile("examples/saxpy.c", pipeline="autogpu-vanilla", block_size=128)
    kernel(n, 2.0, x, y)                      # CPU emulation of the CUDA kernel (no GPU needed)
    kernel(n, 2.0, x, y, backend="cuda")      # on the GPU through pycuda
    print(kernel.cuda_source, kernel.launch)
    kernel.program("cpu", thread_order="reverse").run("saxpy", n, 2.0, x, y)  # another order

The CPU emulation runs blocks and threads in a seeded pseudo-random order by default, so that a
race shows (docs/executors.md); `program("cpu", thread_order=..., seed=...)` picks another.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, SupportsInt, cast

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.transforms import get_all_passes as get_xdsl_passes
from xdsl.utils.exceptions import ArgSpecParseError

from autogpu.context import make_context
from autogpu.diagnostics import CompileError, read_source
from autogpu.nesting import deep_recursion

BACKENDS = ("cpu", "cuda")


def available_passes() -> dict[str, Any]:
    """xDSL's passes and autogpu's (ours win on a name clash)."""
    from autogpu.passes import get_all_passes

    return get_xdsl_passes() | get_all_passes()


def pipeline_spec(pipeline: str, pass_options: Mapping[str, Any]) -> str:
    """`pipeline` with `pass_options` appended as `{name=value ...}` options of its last pass.

    `compile(src, "autogpu-vanilla", block_size=128)` runs `autogpu-vanilla{block_size=128}`.
    """
    if not pass_options:
        return pipeline
    if pipeline.rstrip().endswith("}"):
        raise CompileError(
            f"pipeline '{pipeline}' already has options: give them in the string or as keyword "
            "arguments, not both"
        )
    return f"{pipeline}{{{options_text(pass_options)}}}"


def option_value(value: Any) -> str:
    """A pass option's value as a pipeline string spells it: true/false, lists with commas,
    strings quoted (`sizes="m=64,n=64"`: unquoted, its `=` and `,` would end the option)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(option_value(v) for v in cast("Sequence[object]", value))
    if isinstance(value, str):
        return '"' + "".join(_STRING_ESCAPES.get(c, c) for c in value) + '"'
    return str(value)


#: The escapes of a quoted string in a pipeline (xDSL's lexer reads exactly these).
_STRING_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r",
                   "\f": "\\f", "\v": "\\v"}


def options_text(options: Mapping[str, Any]) -> str:
    """`name=value ...`, the inside of a pass's braces (also how the tuner shows parameters)."""
    return " ".join(f"{name}={option_value(value)}" for name, value in options.items())


def parse_pipeline(spec: str) -> PassPipeline:
    """Parse a `-p` style pipeline, turning xDSL's errors into CompileErrors."""
    try:
        return PassPipeline.parse_spec(available_passes(), spec)
    except CompileError:
        raise
    except (ValueError, ArgSpecParseError) as e:  # xDSL's errors for bad passes and options
        raise CompileError(f"invalid pipeline '{spec}': {e}") from None


def load_source(path_or_source: str | os.PathLike[str]) -> tuple[str, str]:
    """(C source text, file name for diagnostics) from a path or from source text.

    A path-like object is a path. A string is source text if it has a newline or a `{` (every
    C function has a body), and otherwise a path, which must name an existing `.c` file: a
    mistyped or a `.cu` path is an error, not C source that fails to parse.
    """
    text = str(path_or_source)
    if not isinstance(path_or_source, os.PathLike) and ("\n" in text or "{" in text):
        return text, "<source>"
    path = Path(text)
    if path.suffix != ".c" and not path.is_dir():
        raise CompileError(f"{path} is not a C file: autogpu compiles serial C from a .c file, "
                           "or from source text")
    if not path.exists():
        raise CompileError(f"no such C file: {path}")
    return read_source(path), str(path)  # a folder, unreadable or not UTF-8: a file error


def run_pipeline(module: ModuleOp, spec: str) -> ModuleOp:
    """Apply a pipeline to `module` in place, verifying the result."""
    if spec:
        parse_pipeline(spec).apply(make_context(), module)
    module.verify()
    return module


@dataclass
class Kernel:
    """A compiled C function: its IR, its CUDA source and launch description, and runners."""

    name: str
    module: ModuleOp
    pipeline: str
    source_file: str
    c_module: ModuleOp | None = None
    """The module as the frontend produced it (before the pipeline): the reference for the
    arrays' sizes (`autogpu.passes.analysis.extents`)."""
    _programs: dict[tuple[object, ...], Any] = field(default_factory=dict[tuple[object, ...], Any],
                                                     repr=False)
    _touched: dict[tuple[tuple[str, int], ...], dict[str, Any]] = field(
        default_factory=dict[tuple[tuple[str, int], ...], dict[str, Any]], repr=False)

    @cached_property
    def ir(self) -> str:
        return str(self.module)

    @cached_property
    def _cuda(self):
        from autogpu.target.cuda_target import emit_cuda

        return emit_cuda(self.module)

    @property
    def cuda_source(self) -> str:
        return self._cuda.source

    @property
    def launch_description(self) -> dict[str, Any]:
        """The module's whole launch description (`{"functions": [...]}`), what the executors
        take with `cuda_source`."""
        return self._cuda.launch

    @property
    def launch(self) -> dict[str, Any]:
        """This function's entry of the launch description (params and launches)."""
        for entry in self.launch_description["functions"]:
            if entry["name"] == self.name:
                return entry
        raise CompileError(f"function '{self.name}' has no kernel launches after '{self.pipeline}'")

    @property
    def params(self) -> list[dict[str, Any]]:
        return self.launch["params"]

    def launch_config(self, **scalars: int) -> list[dict[str, Any]]:
        """Grid, block and dynamic shared memory of each launch the function runs (its host
        program: a time loop of T steps lists its launches T times; one that reads the device, a
        convergence loop, each launch once) for the given scalar sizes,
        each read as its parameter's C type (an `unsigned long` of 5 is unsigned, not -5's
        neighbour)."""
        from autogpu.runtime.arguments import bind_scalars, find_function, parse_launch_description
        from autogpu.target.launch import launch_config
        from autogpu.target.launch_steps import each_launch_once, has_reads, steps_of, trace

        function = find_function(parse_launch_description(self.launch_description), self.name)
        typed = bind_scalars(function, scalars)
        configs: list[dict[str, Any]] = []
        steps = steps_of(self.launch)  # a program that reads the device: each launch once
        runs = each_launch_once(steps, typed) if has_reads(steps) else trace(steps, typed)
        for index, env in runs:
            entry = self.launch["launches"][index]
            grid, block, shared = launch_config(entry, env)
            configs.append({"kernel": entry["kernel"], "grid": grid, "block": block,
                            "shared": shared})
        return configs

    def program(self, backend: str, **options: Any):
        """The executor of the emitted CUDA for `backend` ("cpu" or "cuda"), built once per
        `options`, its constructor's: e.g. `thread_order="reverse"` or `seed=3` on the CPU
        (`cpu_exec.CpuProgram`; the default order is pseudo-random, from seed 0)."""
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend '{backend}': choose one of {', '.join(BACKENDS)}")
        key = (backend, *sorted((name, _hashable(value)) for name, value in options.items()))
        if key not in self._programs:
            if backend == "cpu":
                from autogpu.runtime.cpu_exec import CpuProgram as Program
            else:
                from autogpu.runtime.cuda_exec import CudaProgram as Program
            self._programs[key] = Program(self.cuda_source, self.launch_description, **options)
        return self._programs[key]

    def __call__(self, *args: Any, backend: str = "cpu", **named_args: Any) -> None:
        """Run the kernel on arrays and scalars (C parameter order, or by name); outputs are
        written back into the arrays. On backend="cuda" device arrays (CuPy, PyTorch CUDA
        tensors, any `__cuda_array_interface__` or DLPack object) are used in place, without
        host copies. An array shorter than the C function indexes for the given sizes is
        rejected first (`KernelArgumentError`)."""
        self.check_array_sizes(*args, **named_args)
        self.program(backend).run(self.name, *args, **named_args)

    @cached_property
    def _c_function(self) -> func.FuncOp | None:
        """The C-level function (before the pipeline), the reference for array sizes."""
        from autogpu.passes.analysis.extents import find_function

        return find_function(self.c_module, self.name) if self.c_module else None

    def touched_ranges(self, sizes: Mapping[str, int]) -> dict[str, Any]:
        """For these scalar sizes, each array's range of indices (`IndexRange`, or None when the
        analysis cannot bound it), from the C-level function; cached per sizes."""
        from autogpu.passes.analysis.extents import touched_ranges

        key = tuple(sorted(sizes.items()))
        if key not in self._touched:
            function = self._c_function
            self._touched[key] = {} if function is None else touched_ranges(function, sizes)
        return self._touched[key]

    def check_array_sizes(self, *args: Any, **named_args: Any) -> None:
        """Raise `KernelArgumentError` if an array argument (NumPy or device) has fewer elements
        than the
        kernel indexes for the call's scalar sizes, or would be indexed below 0. Arguments that
        do not match the parameters are left to the executors' own checks."""
        import numpy as np

        from autogpu.runtime.arguments import KernelArgumentError, call_arguments
        from autogpu.runtime.array_views import ArrayInterfaceError, array_view, is_array

        if self._c_function is None:
            return
        args, named_args = call_arguments(args, named_args)
        names = self._parameter_names
        given = dict(zip(names, args)) | dict(named_args)
        sizes = {
            name: int(cast("SupportsInt", value))
            for name, value in given.items()
            if isinstance(value, (int, np.integer))  # bools too: C's _Bool
        }
        ranges = self.touched_ranges(sizes)
        for name in names:
            array, touched = given.get(name), ranges.get(name)
            if touched is None or not is_array(array):
                continue
            try:
                view = array_view(array)  # NumPy or a device array: its size, no copy
            except ArrayInterfaceError:
                continue  # the executors say what is wrong with it
            if view is None:
                continue
            if touched.lo < 0 and touched.lo <= touched.hi:
                raise KernelArgumentError(
                    f"argument '{name}' of {self.name}() would be indexed at element {touched.lo}"
                    f" (before its start) with {self._relevant_sizes(name, sizes)}"
                )
            if view.size < touched.extent:
                raise KernelArgumentError(
                    f"argument '{name}' of {self.name}() has {view.size} elements but "
                    f"{self._relevant_sizes(name, sizes)} index up to element {touched.hi}: "
                    f"pass at least {touched.extent}"
                )

    @cached_property
    def _parameter_names(self) -> list[str]:
        from autogpu.passes.analysis.extents import parameter_names

        function = self._c_function
        assert function is not None  # read only once a C function was found
        return parameter_names(function)

    def _relevant_sizes(self, array: str, sizes: Mapping[str, int]) -> str:
        """`m=10, n=12`: the sizes without which the array's range is unknown (all of them if
        none stands out), for error messages."""
        from autogpu.passes.analysis.extents import touched_ranges

        function = self._c_function  # the analyses of this error path are not kept
        relevant = [
            name
            for name in sizes
            if function is not None
            and touched_ranges(function, {k: v for k, v in sizes.items() if k != name}).get(array)
            is None
        ]
        shown = relevant or list(sizes)
        return ", ".join(f"{name}={sizes[name]}" for name in shown) or "these sizes"


def select_function(module: ModuleOp, filename: str, function: str | None,
                    how_to_choose: str) -> func.FuncOp:
    """The C function `function` of the frontend's module, or its only one; `how_to_choose`
    ("pass function=NAME to choose one") ends the error when there are several."""
    funcs = [op for op in module.ops if isinstance(op, func.FuncOp)]
    names = [op.sym_name.data for op in funcs]
    if function is None:
        if len(names) != 1:
            raise CompileError(
                f"{filename} defines {len(names)} functions ({', '.join(names)}): "
                + how_to_choose
            )
        return funcs[0]
    if function not in names:
        raise CompileError(
            f"{filename} has no function '{function}' (it defines: {', '.join(names)})"
        )
    return funcs[names.index(function)]


def compile(
    path_or_source: str | os.PathLike[str],
    pipeline: str = "autogpu-vanilla",
    function: str | None = None,
    *,
    werror: bool = False,
    warn: Callable[[CompileError], None] | None = None,
    **pass_options: Any,
) -> Kernel:
    """Compile serial C (a path to a `.c` file, or source text: see `load_source`) through
    `pipeline`; `pass_options` are options of its last pass (`sizes="m=64,n=64"`). The
    frontend's warnings go to `warn` (default: printed on stderr); with `werror` they are
    errors."""
    from autogpu.frontend import parse_c

    source, filename = load_source(path_or_source)
    try:
        with deep_recursion():
            module = parse_c(source, filename, warn, werror=werror)
            function = select_function(module, filename, function,
                                       "pass function=NAME to choose one").sym_name.data
            spec = pipeline_spec(pipeline, pass_options)
            c_module = module.clone()
            run_pipeline(module, spec)
    except CompileError as e:  # a pass error on source given as text: quote its line
        e.quoting(filename, source)
        raise
    return Kernel(function, module, spec, filename, c_module)


def _hashable(option: Any) -> Any:
    """An executor option as part of a dict key: a list (`devices=[0, 1]`) as a tuple."""
    if isinstance(option, list):
        return tuple(cast(list[Any], option))
    return option
