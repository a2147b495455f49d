"""Backward slices through pure operations, and their cloning elsewhere.

Moving a loop nest into a kernel (or computing its launch size on the host) needs the values its
bounds and body use: pure scalar code (`int pn = n + t - 1;`, `m - 1`) is simply recomputed where
it is needed, by cloning its pure defining operations; what is not pure (a block argument, a
load, an allocation) is a *leaf* that the caller decides how to provide.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.traits import is_side_effect_free


def is_pure(op: Operation) -> bool:
    """No memory effects (recursively, for ops with regions): safe to recompute anywhere.
    `arith.extsi` is, though xDSL 0.74 forgets its trait: the bound of `for (long i = 0; i < n;
    i++)` is an `extsi` of `n`, which the host must recompute for the launch size."""
    return isinstance(op, arith.ExtSIOp) or is_side_effect_free(op)


def is_recomputable(op: Operation) -> bool:
    """Whether a slice may compute `op` again elsewhere (the host's launch sizes): a pure op, or
    an `arith.remui`, as pure as `remsi` though xDSL declares no trait on it. (Only here: jam
    keeps reading `remui` as an effect, which its decisions, and gpu-cache-shared's tiles of
    unrolled matmul, rely on for now.)"""
    return is_pure(op) or isinstance(op, arith.RemUIOp)


def is_inside(value: SSAValue, op: Operation) -> bool:
    """Whether `value` is defined inside `op` (a result of `op` itself does not count)."""
    if isinstance(value, BlockArgument):
        parent = value.block.parent_op()
    else:
        assert isinstance(value.owner, Operation)
        parent = value.owner.parent_op()
    while parent is not None:
        if parent is op:
            return True
        parent = parent.parent_op()
    return False


def external_operands(ops: Iterable[Operation]) -> list[SSAValue]:
    """The values `ops` (and the ops nested in them) use without defining them, in first-use
    order."""
    ops = list(ops)
    defined: set[SSAValue] = set()
    for op in ops:
        for inner in op.walk():
            defined.update(inner.results)
            for region in inner.regions:
                for block in region.blocks:
                    defined.update(block.args)
    seen: dict[SSAValue, None] = {}
    for op in ops:
        for inner in op.walk():
            for operand in inner.operands:
                if operand not in defined:
                    seen.setdefault(operand, None)
    return list(seen)


def slice_leaves(
    values: Iterable[SSAValue], is_leaf: Callable[[SSAValue], bool] = lambda v: False
) -> tuple[list[Operation], list[SSAValue]]:
    """The pure operations `values` are computed by (in dependence order) and the leaves they
    start from: block arguments, results of impure ops, and values `is_leaf` accepts."""
    ops: dict[Operation, None] = {}
    leaves: dict[SSAValue, None] = {}
    visiting: set[SSAValue] = set()

    def visit(value: SSAValue) -> None:
        if value in visiting:
            return
        visiting.add(value)
        owner = value.owner
        if is_leaf(value) or not isinstance(owner, Operation) or not is_pure(owner):
            leaves.setdefault(value, None)
            return
        for operand in external_operands([owner]):
            visit(operand)
        ops.setdefault(owner, None)

    for value in values:
        visit(value)
    return list(ops), list(leaves)


class SliceCloner:
    """Provides values at a builder's insertion point: mapped values as they are, pure
    computations by cloning them (and what they use), leaves through the `leaf` callback.

    `accept` may reject a pure op (e.g. one the host cannot compute) by returning an error
    message; `get` then raises it through `on_reject`.
    """

    def __init__(
        self,
        builder: Builder,
        value_map: dict[SSAValue, SSAValue],
        leaf: Callable[[SSAValue], SSAValue],
        accept: Callable[[Operation], bool] = lambda op: True,
        on_reject: Callable[[Operation, SSAValue], Exception] | None = None,
    ):
        self.builder = builder
        self.value_map = value_map
        self.leaf = leaf
        self.accept = accept
        self.on_reject = on_reject

    def get(self, value: SSAValue) -> SSAValue:
        if (mapped := self.value_map.get(value)) is not None:
            return mapped
        owner = value.owner
        if not isinstance(owner, Operation) or not is_recomputable(owner):
            mapped = self.leaf(value)
            self.value_map[value] = mapped
            return mapped
        if not self.accept(owner):
            assert self.on_reject is not None
            raise self.on_reject(owner, value)
        for operand in external_operands([owner]):
            self.get(operand)
        self.builder.insert(owner.clone(value_mapper=self.value_map))
        return self.value_map[value]
