"""What threads need to combine a reduction's values, in the `agpu` dialect (`reductions.py`).

`agpu.shuffle_down`: MLIR's `gpu.shuffle`, which xDSL 0.74 lacks, restricted to what the block
combine of a reduction needs (`reductions.py`): `%r = agpu.shuffle_down %v, offset` is the
value `%v` of the
thread `offset` lanes further in the same warp of 32 (the linear thread index divided by 32),
or the thread's own `%v` when that lane is past the warp's end: CUDA's
`__shfl_down_sync(0xffffffff, v, offset)`. Every thread of the warp must execute it together
(a block whose size is a multiple of 32, all its threads reaching the op): like a barrier it is
never moved into a branch, which is why it declares memory effects although it touches no
memory.

`agpu.thread_fence`: CUDA's `__threadfence()`, MLIR's `gpu` dialect has none: the thread's
writes to device memory before it are seen by every thread of the grid before its writes after
it (the deterministic combine's partial results before its count of finished blocks).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import AnyFloatConstr, IntegerAttr, SignlessIntegerConstraint, i32
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

WARP_SIZE = 32


@irdl_op_definition
class ShuffleDownOp(IRDLOperation):
    """The value of the thread `offset` lanes down the warp (own value past the warp's end)."""

    name = "agpu.shuffle_down"

    T: ClassVar = VarConstraint("T", AnyFloatConstr | SignlessIntegerConstraint)

    value = operand_def(T)
    offset = prop_def(IntegerAttr)
    result = result_def(T)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, value: SSAValue, offset: int):
        super().__init__(
            operands=[value], result_types=[value.type],
            properties={"offset": IntegerAttr(offset, i32)},
        )

    @property
    def lanes(self) -> int:
        return self.offset.value.data

    def verify_(self) -> None:
        if not 0 < self.lanes < WARP_SIZE:
            raise VerifyException(
                f"agpu.shuffle_down offset must be in [1, {WARP_SIZE - 1}], got {self.lanes}"
            )


@irdl_op_definition
class ThreadFenceOp(IRDLOperation):
    """`__threadfence()`: orders the thread's device-memory writes for the whole grid."""

    name = "agpu.thread_fence"

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self):
        super().__init__()


COMBINE_OPS = [ShuffleDownOp, ThreadFenceOp]
