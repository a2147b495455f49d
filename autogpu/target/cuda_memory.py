"""Memrefs as C sees them: address spaces, layouts, how an access is spelled, and the shared
memory a kernel declares."""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import gpu, memref
from xdsl.dialects.builtin import (
    IntAttr,
    IntegerAttr,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    StringAttr,
)
from xdsl.ir import Attribute
from xdsl.utils.hints import isa

from autogpu.dialects.signature import of_ir
from autogpu.target.c_expr import Expr
from autogpu.target.cuda_limits import DYNAMIC_OFFSET_ATTR

# NVVM's numbering, which is what plain xDSL can parse (`memref<256xf32, 3 : i32>`), as
# convert-agpu-to-gpu writes workgroup memory.
_NVVM_ADDRESS_SPACES = {0: "global", 1: "global", 3: "workgroup", 5: "private"}


def address_space(memory_space: Attribute) -> str | None:
    """"global", "workgroup" or "private" for the memory spaces this target knows: none
    (global), NVVM's integers, the strings themselves, and `#gpu.address_space<...>` where a
    dialect defines it (xDSL 0.74 does not)."""
    if isinstance(memory_space, NoneAttr):
        return "global"
    if isinstance(memory_space, IntegerAttr):
        return _NVVM_ADDRESS_SPACES.get(memory_space.value.data)
    if isinstance(memory_space, StringAttr):
        return memory_space.data
    if getattr(memory_space, "name", None) == "gpu.address_space":
        data = getattr(memory_space, "data", None)
        return str(getattr(data, "value", data))
    return None


def is_workgroup(memory_space: Attribute) -> bool:
    return address_space(memory_space) == "workgroup"


def is_global(memory_space: Attribute) -> bool:
    return address_space(memory_space) == "global"


@dataclass
class Memory:
    """How a memref is addressed in C: a pointer (flat, row-major) or a local/shared array."""

    base: Expr
    shape: tuple[int, ...]
    element: str  # C type of the elements
    is_pointer: bool


def static_shared_bytes(kernel: gpu.FuncOp) -> int:
    """Bytes of the `__shared__` arrays a kernel declares: its workgroup attributions and
    workgroup `memref.alloca`s (what gpu-cache-shared and the reductions allocate)."""
    entry = kernel.body.blocks.first
    inputs = len(kernel.function_type.inputs.data)
    types = [arg.type for arg in entry.args[inputs:]] if entry is not None else []
    types += [op.memref.type for op in kernel.walk() if isinstance(op, memref.AllocaOp)
              and DYNAMIC_OFFSET_ATTR not in op.attributes]  # gpu-dynamic-shared's: dynamic
    return sum(
        math.prod(type.get_shape()) * of_ir(type.element_type).size
        for type in types
        if isa(type, MemRefType) and is_workgroup(type.memory_space)
        and all(size >= 0 for size in type.get_shape())  # dynamic: the launch's bytes
    )


def identity_layout(type: MemRefType) -> bool:
    layout = type.layout
    if isinstance(layout, NoneAttr):
        return True
    return isinstance(layout, StridedLayoutAttr) and _is_identity(layout, type)


def _is_identity(layout: StridedLayoutAttr, type: MemRefType) -> bool:
    shape = type.get_shape()
    expected: list[int] = []
    stride = 1
    for size in reversed(shape):
        expected.append(stride)
        stride *= max(size, 1)
    strides = [s.data if isinstance(s, IntAttr) else s for s in layout.strides.data]
    offset = layout.offset
    offset_value = offset.data if isinstance(offset, IntAttr) else offset
    return offset_value == 0 and strides == list(reversed(expected))
