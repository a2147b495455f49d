"""The Python API: `autogpu.compile(...)` turns serial C into a callable kernel.

    kernel = autogpu.compile("examples/saxpy.c", pipeline="autogpu-vanilla", block_size=128)
    kernel(n, 2.0, x, y)                      # CPU emulation of the CUDA kernel (no GPU needed)
    kernel(n, 2.0, x, y, backend="cuda")      # on the GPU through pycuda
    print(kernel.cuda_source, kernel.launch)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.transforms import get_all_passes as get_xdsl_passes
from xdsl.utils.arg_spec import ArgSpecParseError

from autogpu.context import make_context
from autogpu.diagnostics import CompileError

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

    def fmt(value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (list, tuple)):
            return ",".join(fmt(v) for v in value)
        return str(value)

    options = " ".join(f"{name}={fmt(value)}" for name, value in pass_options.items())
    return f"{pipeline}{{{options}}}"


def parse_pipeline(spec: str) -> PassPipeline:
    """Parse a `-p` style pipeline, turning xDSL's errors into CompileErrors."""
    try:
        return PassPipeline.parse_spec(available_passes(), spec)
    except CompileError:
        raise
    except (ValueError, ArgSpecParseError) as e:  # xDSL's errors for bad passes and options
        raise CompileError(f"invalid pipeline '{spec}': {e}") from None


def load_source(path_or_source: str | os.PathLike[str]) -> tuple[str, str]:
    """(C source text, file name for diagnostics) from a path or from source text."""
    text = str(path_or_source)
    if isinstance(path_or_source, os.PathLike) or ("\n" not in text and text.endswith(".c")):
        path = Path(text)
        if not path.is_file():
            raise CompileError(f"no such C file: {path}")
        return path.read_text(), str(path)
    return text, "<source>"


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
    _programs: dict[str, Any] = field(default_factory=dict, repr=False)

    @cached_property
    def ir(self) -> str:
        return str(self.module)

    @cached_property
    def _cuda(self):
        from autogpu.backend.cuda_target import emit_cuda

        return emit_cuda(self.module)

    @property
    def cuda_source(self) -> str:
        return self._cuda.source

    @property
    def launch(self) -> dict[str, Any]:
        """This function's entry of the launch description (params and launches)."""
        for entry in self._cuda.launch["functions"]:
            if entry["name"] == self.name:
                return entry
        raise CompileError(f"function '{self.name}' has no kernel launches after '{self.pipeline}'")

    @property
    def params(self) -> list[dict[str, Any]]:
        return self.launch["params"]

    def launch_config(self, **scalars: int) -> list[dict[str, Any]]:
        """Grid, block and dynamic shared memory of each launch for the given scalar sizes."""
        from autogpu.backend.launch import launch_config

        configs = []
        for entry in self.launch["launches"]:
            grid, block, shared = launch_config(entry, scalars)
            configs.append({"kernel": entry["kernel"], "grid": grid, "block": block,
                            "shared": shared})
        return configs

    def program(self, backend: str):
        """The executor of the emitted CUDA for `backend` ("cpu" or "cuda"), built once."""
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend '{backend}': choose one of {', '.join(BACKENDS)}")
        if backend not in self._programs:
            if backend == "cpu":
                from autogpu.backend.cpu_exec import CpuProgram as Program
            else:
                from autogpu.backend.cuda_exec import CudaProgram as Program
            self._programs[backend] = Program(self.cuda_source, self._cuda.launch)
        return self._programs[backend]

    def __call__(self, *args: Any, backend: str = "cpu", **named_args: Any) -> None:
        """Run the kernel on NumPy arrays and scalars (C parameter order, or by name); outputs
        are written back into the arrays."""
        self.program(backend).run(self.name, *args, **named_args)


def compile(
    path_or_source: str | os.PathLike[str],
    pipeline: str = "autogpu-vanilla",
    function: str | None = None,
    **pass_options: Any,
) -> Kernel:
    """Compile serial C (a path to a `.c` file, or source text) through `pipeline`."""
    from autogpu.frontend import parse_c

    source, filename = load_source(path_or_source)
    module = parse_c(source, filename)
    names = [op.sym_name.data for op in module.ops if hasattr(op, "sym_name")]
    if function is None:
        if len(names) != 1:
            raise CompileError(
                f"{filename} defines {len(names)} functions ({', '.join(names)}): "
                "pass function=NAME to choose one"
            )
        function = names[0]
    elif function not in names:
        raise CompileError(
            f"{filename} has no function '{function}' (it defines: {', '.join(names)})"
        )
    spec = pipeline_spec(pipeline, pass_options)
    run_pipeline(module, spec)
    return Kernel(function, module, spec, filename)

