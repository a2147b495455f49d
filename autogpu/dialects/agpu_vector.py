"""Vector loads and stores of neighbouring elements, in the `agpu` dialect (`gpu-vectorize`).

`%a, %b, %c, %d = agpu.vector_load %mem[%i]` reads the `width` (2 or 4) elements `mem[i]` ...
`mem[i + width - 1]` in one access, and `agpu.vector_store %a, %b, %c, %d, %mem[%i]` writes
them: CUDA's `float4`/`float2`/`double2`/`int4`/`int2` accesses, one LDS.128/LDG.128/STS.128
instead of four scalar ones. The op promises what the hardware needs: the element address of
`mem[i]` is a multiple of `width` elements' bytes (the pass that makes one proves it), unless
the load is `checked`: then the address is tested at run time and a misaligned one read
element by element (the scalar fallback). The values are separate scalar results and
operands, not a vector type, so every other pass and the `cuda` target see ordinary scalars.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    UnitAttr,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.hints import isa

ALIGN_ATTR = "agpu.align"
"""Discardable attribute of a `memref.alloca`: the bytes its array is aligned to (`__align__`),
so that vector accesses of it at indices the pass proves multiples of their width are aligned."""

VECTOR_TYPES: dict[tuple[str, int], str] = {
    ("f32", 2): "float2", ("f32", 4): "float4", ("f64", 2): "double2",
    ("i32", 2): "int2", ("i32", 4): "int4",
}
"""(element, width) -> the CUDA vector type of one access (8 or 16 bytes)."""


def element_key(type: Attribute) -> str | None:
    """"f32", "f64" or "i32" for the element types a vector access supports, else None."""
    if isinstance(type, Float32Type):
        return "f32"
    if isinstance(type, Float64Type):
        return "f64"
    if isa(type, IntegerType) and type.width.data == 32:
        return "i32"
    return None


def vector_type(element: Attribute, width: int) -> str | None:
    """The CUDA vector type of `width` elements of `element` (None: no such access)."""
    key = element_key(element)
    return None if key is None else VECTOR_TYPES.get((key, width))


def vector_bytes(element: Attribute, width: int) -> int:
    """Bytes of one access of `width` elements of `element` (a supported vector type)."""
    return width * (8 if element_key(element) == "f64" else 4)


def _verify_access(name: str, memref: SSAValue, values: Sequence[Attribute]) -> None:
    type = memref.type
    assert isa(type, MemRefType)
    if len(type.get_shape()) != 1:
        raise VerifyException(f"{name} accesses a rank-1 memref, got rank {len(type.get_shape())}")
    element = type.element_type
    for value in values:
        if value != element:
            raise VerifyException(
                f"{name} values must have the memref's element type {element}, got {value}"
            )
    if vector_type(element, len(values)) is None:
        raise VerifyException(
            f"{name} of {len(values)} x {element}: expected 2 or 4 x f32, 2 x f64, 2 or 4 x i32 "
            "(an 8- or 16-byte access)"
        )


@irdl_op_definition
class VectorLoadOp(IRDLOperation):
    """`width` neighbouring elements from `mem[index]` on, in one aligned access."""

    name = "agpu.vector_load"

    memref = operand_def(MemRefType)
    index = operand_def(IndexType)
    values = var_result_def()
    checked = opt_prop_def(UnitAttr)
    """The alignment is tested at run time: a misaligned address reads the elements one by
    one (global memory, whose alignment depends on the caller's pointer)."""

    traits = traits_def(MemoryReadEffect())

    def __init__(self, memref: SSAValue, index: SSAValue, width: int, checked: bool = False):
        type = memref.type
        assert isa(type, MemRefType)
        super().__init__(operands=[memref, index], result_types=[[type.element_type] * width],
                         properties={"checked": UnitAttr()} if checked else {})

    def verify_(self) -> None:
        _verify_access(self.name, self.memref, [v.type for v in self.values])


@irdl_op_definition
class VectorStoreOp(IRDLOperation):
    """Stores `values` to `mem[index]` on, in one aligned access."""

    name = "agpu.vector_store"

    values = var_operand_def()
    memref = operand_def(MemRefType)
    index = operand_def(IndexType)

    traits = traits_def(MemoryWriteEffect())

    def __init__(self, values: Sequence[SSAValue], memref: SSAValue, index: SSAValue):
        super().__init__(operands=[list(values), memref, index])

    def verify_(self) -> None:
        _verify_access(self.name, self.memref, [v.type for v in self.values])


@irdl_op_definition
class AsyncCopyOp(IRDLOperation):
    """`dst[dst_index] = src[src_index]`, asynchronously (`cp.async`, sm_80+): the element
    goes from global to shared memory without passing through a register; the issuing thread
    sees it after an `agpu.async_wait`, the others after that and a barrier."""

    name = "agpu.async_copy"

    dst = operand_def(MemRefType)
    dst_index = operand_def(IndexType)
    src = operand_def(MemRefType)
    src_index = operand_def(IndexType)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, dst: SSAValue, dst_index: SSAValue, src: SSAValue, src_index: SSAValue):
        super().__init__(operands=[dst, dst_index, src, src_index])

    def verify_(self) -> None:
        dst, src = self.dst.type, self.src.type
        assert isa(dst, MemRefType)
        assert isa(src, MemRefType)
        if dst.element_type != src.element_type:
            raise VerifyException(f"{self.name} copies between arrays of one element type, "
                                  f"got {src.element_type} to {dst.element_type}")
        if vector_bytes(dst.element_type, 1) not in (4, 8) \
                or element_key(dst.element_type) is None:
            raise VerifyException(f"{self.name} copies 4- or 8-byte elements (f32, f64, i32), "
                                  f"got {dst.element_type}")


@irdl_op_definition
class AsyncWaitOp(IRDLOperation):
    """Waits for every `agpu.async_copy` the thread issued (`cp.async.wait_all`)."""

    name = "agpu.async_wait"

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self):
        super().__init__()


VECTOR_OPS = [VectorLoadOp, VectorStoreOp, AsyncCopyOp, AsyncWaitOp]
