"""Tables: function-level arrays whose every element is a constant stored before any read and
never written again (file-scope `static const float W[5] = {...};`, which the frontend declares
again in each function that reads it, or a local `const int lut[] = {...};`).

Such an array needs no kernel to initialise it: it becomes a global with its values as the
initializer, in CUDA's `__constant__` memory while the module's tables fit the 64 KiB constant
bank (`CONSTANT_BANK_BYTES`), an initialised `__device__` array beyond (with a remark). The
constant cache serves one address per warp per cycle: a uniform read (`W[k]` with `k` the same
for every thread) costs as little as a register, a read whose index differs between the
threads of a warp is serialised, one address after another (docs/c-subset.md).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    TensorType,
)
from xdsl.ir import Block, Operation, SSAValue
from xdsl.utils.hints import isa

from autogpu.diagnostics import CompileError, location_of

CONSTANT_BANK_BYTES = 64 * 1024
"""The constant memory a CUDA module may declare (every architecture since sm_20)."""


@dataclass
class Table:
    """A table's values, and whether it goes to `__constant__` memory (else `__device__`)."""

    values: DenseIntOrFPElementsAttr
    in_constant_memory: bool = True

    @property
    def bytes(self) -> int:
        element = self.values.get_element_type()
        assert isinstance(element, IntegerType | AnyFloat), "C arrays hold integers or floats"
        width = element.width.data if isinstance(element, IntegerType) else element.bitwidth
        return max(1, (width + 7) // 8) * len(self.values)


def take_tables(body: Block) -> dict[SSAValue, Table]:
    """The tables of a function body (its top-level allocas), their initialising stores erased:
    the global's initializer holds the values."""
    position = {op: index for index, op in enumerate(body.ops)}
    tables: dict[SSAValue, Table] = {}
    for op in list(body.ops):
        if isinstance(op, memref.AllocaOp):
            stores = _initialising_stores(op, body, position)
            if stores is None:
                continue
            tables[op.memref] = Table(_values(op.memref.type, stores))
            for store in stores:
                store.detach()
                store.erase()
    return tables


class ConstantBank:
    """The module's `__constant__` bytes: tables are admitted in program order while they fit
    together; a table that does not stays a `__device__` array, with a remark at its
    declaration."""

    def __init__(self) -> None:
        self.used = 0

    def admit(self, alloca: memref.AllocaOp, table: Table) -> None:
        if self.used + table.bytes <= CONSTANT_BANK_BYTES:
            self.used += table.bytes
            return
        table.in_constant_memory = False
        remark = CompileError(
            f"convert-agpu-to-gpu: table '{alloca.memref.name_hint or '?'}' ({table.bytes} "
            f"bytes) is a __device__ array: the module's tables exceed the {CONSTANT_BANK_BYTES}"
            " bytes of __constant__ memory", location_of(alloca), None, severity="remark")
        print(remark.format(), file=sys.stderr)


def _initialising_stores(
    alloca: memref.AllocaOp, body: Block, position: dict[Operation, int]
) -> list[memref.StoreOp] | None:
    """The stores that set elements of the array to constants, all in `body` before any other
    use of it, when its other uses are loads; else None. An element no store sets is read
    uninitialised (the frontend stores every element of an initializer): zero is as good a
    value as any."""
    memref_type = alloca.memref.type
    if not isinstance(memref_type, MemRefType) or len(memref_type.get_shape()) != 1:  # pyright: ignore[reportUnnecessaryIsInstance]  # defensive
        return None
    size = memref_type.get_shape()[0]
    stores: list[memref.StoreOp] = []
    first_read = len(position)
    for use in alloca.memref.uses:
        user = use.operation
        if isinstance(user, memref.StoreOp) and user.parent_block() is body:
            if user.memref is not alloca.memref or _constant(user.value) is None:
                return None
            index = _constant(user.indices[0]) if len(user.indices) == 1 else None
            if not isinstance(index, int) or not 0 <= index < size:
                return None
            stores.append(user)
        elif isinstance(user, memref.LoadOp) and user.memref is alloca.memref:
            first_read = min(first_read, position[_top_level(user, body)])
        else:
            return None  # another write (in a loop, an atomic, a reduction) or an escape
    if size < 1 or any(position[s] > first_read for s in stores):
        return None
    return sorted(stores, key=lambda s: position[s])


def _values(memref_type: MemRefType, stores: list[memref.StoreOp]) -> DenseIntOrFPElementsAttr:
    values: dict[int, int | float] = {}
    for store in stores:  # in program order: the last store of an element wins, as in C
        index, value = _constant(store.indices[0]), _constant(store.value)
        assert isinstance(index, int), "_initialising_stores checked the index"
        assert value is not None, "_initialising_stores checked the value"
        values[index] = value
    shape, element = memref_type.get_shape(), memref_type.element_type
    if isa(element, IntegerType):
        ints = [int(values.get(i, 0)) for i in range(shape[0])]
        return DenseIntOrFPElementsAttr.from_list(TensorType(element, shape), ints)
    assert isinstance(element, AnyFloat), "C arrays hold integers or floats"
    floats = [float(values.get(i, 0.0)) for i in range(shape[0])]
    return DenseIntOrFPElementsAttr.from_list(TensorType(element, shape), floats)


def _constant(value: SSAValue) -> int | float | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr | FloatAttr):
        return owner.value.value.data
    return None


def _top_level(op: Operation, body: Block) -> Operation:
    while op.parent_block() is not body:
        parent = op.parent_op()
        assert parent is not None, "a use of a body's alloca is inside the body"
        op = parent
    return op
