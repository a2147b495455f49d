"""May two memrefs overlap, and which memory does a region touch?

C lets two pointer parameters point into the same array unless one of them is `restrict`
(`const` does not help: `const float *B` may still point at `A`'s elements). The frontend keeps
that knowledge as the `agpu.restrict` argument attribute (docs/ir.md). Local allocations
(`memref.alloca`/`memref.alloc`) are objects of their own and overlap nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import DictionaryAttr, StringAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import MemoryEffectKind, RecursiveMemoryEffect, get_effects

from autogpu.dialects.signature import NAME, RESTRICT


def function_argument(value: SSAValue) -> tuple[func.FuncOp, int] | None:
    """(function, position) when `value` is an argument of a `func.func`."""
    block = value.owner
    if isinstance(block, Block) and isinstance(fn := block.parent_op(), func.FuncOp):
        if block is fn.body.blocks.first:
            return fn, block.args.index(value)
    return None


def argument_attrs(value: SSAValue) -> dict[str, object]:
    """The argument-attribute dictionary of a function argument ({} otherwise)."""
    if (arg := function_argument(value)) is None:
        return {}
    fn, position = arg
    if fn.arg_attrs is None:
        return {}
    attrs = fn.arg_attrs.data[position]
    assert isinstance(attrs, DictionaryAttr)
    return dict(attrs.data)


def is_restrict(value: SSAValue) -> bool:
    return RESTRICT in argument_attrs(value)


def is_local_allocation(value: SSAValue) -> bool:
    return isinstance(value.owner, (memref.AllocaOp, memref.AllocOp))


def c_name(value: SSAValue) -> str | None:
    """The C name of a memref: its `agpu.name` argument attribute or its SSA name hint."""
    name = argument_attrs(value).get(NAME)
    if isinstance(name, StringAttr):
        return name.data
    return value.name_hint


def may_alias(a: SSAValue, b: SSAValue, assume_no_alias: bool = False) -> bool:
    """Whether memrefs `a` and `b` may share an element.

    `assume_no_alias` asserts that distinct pointer parameters never overlap (as if all were
    `restrict`), the AutoGPU paper's assumption.
    """
    if a is b:
        return True
    if is_local_allocation(a) or is_local_allocation(b):
        return False
    if function_argument(a) is not None and function_argument(b) is not None:
        return not (assume_no_alias or is_restrict(a) or is_restrict(b))
    return True


@dataclass(frozen=True)
class Access:
    """A `memref.load` or `memref.store`."""

    op: memref.LoadOp | memref.StoreOp

    @property
    def memref(self) -> SSAValue:
        return self.op.memref

    @property
    def indices(self) -> Sequence[SSAValue]:
        return self.op.indices


def memory_accesses(op: Operation) -> list[Access] | None:
    """Every load and store nested in `op` (itself included), or None when some nested op may
    touch memory in another way (a call, a copy, an unknown op)."""
    accesses: list[Access] = []
    for nested in op.walk():
        if isinstance(nested, (memref.LoadOp, memref.StoreOp)):
            accesses.append(Access(nested))
            continue
        if nested.has_trait(RecursiveMemoryEffect):
            continue  # its effects are those of the ops inside, which the walk visits
        effects = get_effects(nested)
        if effects is None:
            return None
        if any(e.kind != MemoryEffectKind.ALLOC for e in effects):
            return None
    return accesses
