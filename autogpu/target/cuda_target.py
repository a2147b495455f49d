"""The `cuda` target: readable CUDA C from a GPU-level module (docs/ir.md, "GPU level").

`emit_cuda(module)` prints every `gpu.func ... kernel` of every `gpu.module` as an
`extern "C" __global__` function (see `cuda_kernel`) and describes every host `func.func` as
a launch description (see `cuda_host`). `autogpu-opt -t cuda` prints the description as a
one-line JSON comment, `// autogpu-launch: {...}`, followed by the source.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import IO, Any

from xdsl.context import Context
from xdsl.dialects import func, gpu, memref
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, NoneAttr
from xdsl.utils.target import Target

from autogpu.diagnostics import CompileError, location_of
from autogpu.target.c_expr import Name
from autogpu.target.c_names import sanitize
from autogpu.target.c_types import UnsupportedType, ctype_of, float_literal, int_literal
from autogpu.target.cuda_exprs import HELPER_ORDER
from autogpu.target.cuda_host import describe_module
from autogpu.target.cuda_kernel import KernelEmitter
from autogpu.target.cuda_memory import Memory

LAUNCH_COMMENT = "// autogpu-launch: "


@dataclass(frozen=True)
class CudaProgram:
    source: str  # CUDA C: helper device functions, then the kernels
    launch: dict[str, Any]  # the launch description


def emit_cuda(module: ModuleOp) -> CudaProgram:
    kernels: dict[str, gpu.FuncOp] = {}
    globals: dict[str, Memory] = {}
    declarations: list[str] = []
    for op in module.ops:
        if isinstance(op, gpu.ModuleOp):
            for inner in op.body.block.ops:
                if isinstance(inner, memref.GlobalOp):
                    declarations.append(device_global(inner, globals))
                    continue
                if not isinstance(inner, gpu.FuncOp):
                    raise CompileError(
                        f"cuda target: cannot print '{inner.name}' in gpu.module "
                        f"@{op.sym_name.data}",
                        location_of(inner),
                    )
                if inner.kernel is None and "gpu.kernel" not in inner.attributes:
                    raise CompileError(
                        f"cuda target: cannot print gpu.func @{inner.sym_name.data}: "
                        "only kernels (gpu.kernel) are supported",
                        location_of(inner),
                    )
                name = inner.sym_name.data
                if sanitize(name) != name:
                    raise CompileError(
                        f"cuda target: kernel @{name}: the name is not a valid C identifier or "
                        "is reserved (a keyword, CUDA builtin or math function)",
                        location_of(inner),
                    )
                if name in kernels or name in globals:
                    raise CompileError(
                        f"cuda target: two kernels or globals named @{name}", location_of(inner)
                    )
                kernels[name] = inner
        elif not isinstance(op, func.FuncOp):
            raise CompileError(
                f"cuda target: cannot print '{op.name}' at module level", location_of(op)
            )
    helpers: dict[str, str] = {}
    bodies = [KernelEmitter(kernel, helpers, globals).emit() for kernel in kernels.values()]
    launch = describe_module(module, kernels)
    # Scalar helpers first (atomic helpers may call them), in a stable order.
    def rank(key: str) -> tuple[int, str]:
        base = key.split(" ", 1)[0]
        return (HELPER_ORDER.index(base) if base in HELPER_ORDER else len(HELPER_ORDER), key)

    ordered = [helpers[key] for key in sorted(helpers, key=rank)]
    parts = ordered + (["\n".join(declarations)] if declarations else []) + bodies
    return CudaProgram("\n\n".join(parts) + "\n" if parts else "", launch)


def device_global(op: memref.GlobalOp, globals: dict[str, Memory]) -> str:
    """`memref.global` in the gpu.module: a `__device__` variable (`__constant__` if constant)."""
    name = op.sym_name.data
    where = f"memref.global @{name}"
    if sanitize(name) != name:
        raise CompileError(
            f"cuda target: {where}: the name is not a valid C identifier or is reserved",
            location_of(op),
        )
    type = op.type
    shape = type.get_shape()
    if any(size < 0 for size in shape) or not isinstance(type.layout, NoneAttr):
        raise CompileError(f"cuda target: cannot print {where} of type {type}", location_of(op))
    try:
        element = ctype_of(type.element_type)
    except UnsupportedType:
        raise CompileError(
            f"cuda target: cannot print {where} of type {type}", location_of(op)
        ) from None
    globals[name] = Memory(Name(name), tuple(shape), element, False)
    extents = "".join(f"[{size}]" for size in shape)
    initializer = ""
    initial = op.initial_value
    if isinstance(initial, DenseIntOrFPElementsAttr):
        values: list[int | float] = []
        for v in initial.get_values():
            assert not isinstance(v, tuple), "complex: ctype_of refused it above"
            values.append(v)
        if initial.is_splat() and len(values) == 1:
            count = 1
            for size in shape:
                count *= size
            values = values * count
        literals = [
            (float_literal(v, element) if isinstance(v, float) else int_literal(v, element))
            for v in values
        ]
        text = ", ".join(str(lit) for lit in literals)
        initializer = f" = {{{text}}}" if shape else f" = {text}"
    space = "__constant__" if op.constant is not None else "__device__"
    return f"{space} {element} {name}{extents}{initializer};"


def launch_comment(launch: dict[str, Any]) -> str:
    return LAUNCH_COMMENT + json.dumps(launch, separators=(", ", ": "))


def parse_launch_comment(text: str) -> dict[str, Any]:
    """The launch description from `autogpu-opt -t cuda` output (its first line)."""
    first = text.split("\n", 1)[0]
    if not first.startswith(LAUNCH_COMMENT):
        raise ValueError("not autogpu-opt -t cuda output: no launch description comment")
    return json.loads(first[len(LAUNCH_COMMENT) :])


@dataclass(frozen=True)
class CudaTarget(Target):
    name = "cuda"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        program = emit_cuda(module)
        output.write(launch_comment(program.launch) + "\n")
        output.write(program.source)
