"""`#pragma omp atomic` and `#pragma omp critical` in the `agpu` dialect.

An atomic update whose operator MLIR names (`+ - * & | ^` in the element's own type, a write)
is a `memref.atomic_rmw`; any other (`/`, shifts, `x = e - x`, an update computed in a wider
type, a read) is an `agpu.atomic_update`: MLIR's `memref.generic_atomic_rmw`, which xDSL 0.74
lacks. Its region computes the new value from the current one (the block argument) with pure
ops only, so that it can be retried, and yields it; the op's result is the value it replaced.
The `cuda` target prints it as a compare-and-swap loop (a read, whose region yields the current
value unchanged, as one volatile load). Neither op is a load or a store, so no pass reorders,
splits, caches or stages it.

`agpu.critical` runs its region under mutual exclusion with every other `agpu.critical` of the
same `name`, in every thread of every block (docs/ir.md, "Atomics and critical sections").
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloatConstr,
    IndexType,
    MemRefType,
    SignlessIntegerConstraint,
    StringAttr,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import (
    HasParent,
    IsTerminator,
    MemoryReadEffect,
    MemoryWriteEffect,
    Pure,
    RecursiveMemoryEffect,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.hints import isa

_COMPUTING = ("arith.", "math.")


@irdl_op_definition
class AtomicYieldOp(IRDLOperation):
    """The new value of an `agpu.atomic_update`."""

    name = "agpu.atomic_yield"

    value = operand_def()

    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(AtomicUpdateOp), Pure()))

    def __init__(self, value: SSAValue | Operation):
        super().__init__(operands=[value])


@irdl_op_definition
class AtomicUpdateOp(IRDLOperation):
    """`memref[indices] = body(memref[indices])` atomically; the result is the old value."""

    name = "agpu.atomic_update"

    T: ClassVar = VarConstraint("T", AnyFloatConstr | SignlessIntegerConstraint)

    memref = operand_def(MemRefType.constr(T))
    indices = var_operand_def(IndexType)
    result = result_def(T)
    body = region_def("single_block")

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, memref: SSAValue, indices: list[SSAValue], body: Region):
        assert isa(memref.type, MemRefType)
        super().__init__(
            operands=[memref, indices], result_types=[memref.type.element_type], regions=[body]
        )

    @property
    def current(self) -> SSAValue:
        return self.body.block.args[0]

    @property
    def yielded(self) -> SSAValue:
        terminator = self.body.block.last_op
        assert isinstance(terminator, AtomicYieldOp)
        return terminator.value

    @property
    def is_read(self) -> bool:
        """Leaves the element as it is: an atomic read."""
        return self.yielded is self.current

    def verify_(self) -> None:
        assert isa(self.memref.type, MemRefType)
        element = self.memref.type.element_type
        block = self.body.block
        if len(block.args) != 1 or block.args[0].type != element:
            raise VerifyException(
                f"agpu.atomic_update body must take one argument of the element type {element}"
            )
        if len(self.indices) != len(self.memref.type.get_shape()):
            raise VerifyException("agpu.atomic_update needs one index per dimension")
        terminator = block.last_op
        if not isinstance(terminator, AtomicYieldOp) or terminator.value.type != element:
            raise VerifyException(
                f"agpu.atomic_update body must end with agpu.atomic_yield of a {element}"
            )
        for op in block.ops:
            if op is not terminator and (op.regions or not op.name.startswith(_COMPUTING)):
                raise VerifyException(
                    f"agpu.atomic_update body may only compute (arith, math), got {op.name}: a "
                    "compare-and-swap loop may run it several times"
                )


@irdl_op_definition
class CriticalEndOp(IRDLOperation):
    """Ends the body of an `agpu.critical`."""

    name = "agpu.critical_end"

    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(CriticalOp), Pure()))

    def __init__(self):
        super().__init__()


@irdl_op_definition
class CriticalOp(IRDLOperation):
    """`#pragma omp critical (name)`: one thread at a time runs a body of this name."""

    name = "agpu.critical"

    lock = prop_def(StringAttr)
    body = region_def("single_block")

    traits = traits_def(RecursiveMemoryEffect())

    def __init__(self, lock: str, body: Region | Block):
        if isinstance(body, Block):
            body = Region(body)
        super().__init__(regions=[body], properties={"lock": StringAttr(lock)})

    def verify_(self) -> None:
        if not isinstance(self.body.block.last_op, CriticalEndOp):
            raise VerifyException("agpu.critical body must end with agpu.critical_end")


SYNC_OPS = [AtomicUpdateOp, AtomicYieldOp, CriticalOp, CriticalEndOp]


def is_atomic(op: Operation) -> bool:
    return op.name in ("memref.atomic_rmw", AtomicUpdateOp.name)


def critical_around(op: Operation) -> CriticalOp | None:
    """The innermost `agpu.critical` whose body holds `op`."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, CriticalOp):
        parent = parent.parent_op()
    return parent


def is_synchronized(op: Operation) -> bool:
    """`op` accesses memory that other threads access at the same time without a race: it is
    an atomic, or it runs inside a critical section."""
    return is_atomic(op) or critical_around(op) is not None
