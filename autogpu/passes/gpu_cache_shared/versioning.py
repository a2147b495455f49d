"""Tiles sized by the `max_extent` option: the cached code runs only when the window's trip
counts are within the bound the tile was sized for, the original code otherwise.

    if (t <= MAX && ...) { <cooperative load>; __syncthreads(); <p_op on the tile>; ... }
    else                 { <p_op as it was> }

The condition is block-uniform (trip counts of uniform loops), so the barriers in the first
branch are reached by all threads of the block or by none.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, UnitAttr, i1
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from autogpu.passes.gpu_cache_shared.facts import KernelFacts
from autogpu.passes.gpu_cache_shared.footprint import Group
from autogpu.passes.gpu_cache_shared.materialize import Materializer


def version_on_extents(facts: KernelFacts, group: Group, p_op: Operation, skip: str) -> Operation:
    """Puts `p_op` under `if (every checked trip count <= its bound)` with an untouched copy
    in the else branch (its loads tagged `skip`); returns `p_op`, now in the first branch."""
    at = Materializer(facts, p_op)
    index = IndexType()
    key_of = facts.polys.atom_id
    ok = None
    seen: set[object] = set()
    for _, var in group.checked_vars:
        assert var.loop is not None
        assert var.bound is not None
        assert var.step is not None
        key = (key_of(var.loop.lb), key_of(var.loop.ub), var.step, var.bound)
        if key in seen:
            continue
        seen.add(key)
        lb = at.cast(at.get(var.loop.lb), index)
        ub = at.cast(at.get(var.loop.ub), index)
        span = at.max(at.sub(ub, lb), at.const(0))
        trips = at.div(at.add(span, at.const(var.step - 1)), var.step, "trips")
        ok = at.and_(ok, at.le(trips, at.const(var.bound)), "fits")
    assert ok is not None
    fallback = p_op.clone()
    for nested in fallback.walk():
        if nested.name == "memref.load":
            nested.attributes[skip] = UnitAttr()
    then_block = Block([scf.YieldOp()])
    else_block = Block([fallback, scf.YieldOp()])
    version = scf.IfOp(ok, [], Region(then_block), Region(else_block))
    Rewriter.insert_op(version, InsertPoint.before(p_op))
    p_op.detach()
    first = then_block.first_op
    assert first is not None  # it ends with its yield
    then_block.insert_op_before(p_op, first)
    _assume(then_block, ok, True, facts)
    _assume(else_block, ok, False, facts)
    return p_op


def _assume(block: Block, cond: SSAValue, holds: bool, facts: KernelFacts) -> None:
    """Inside a branch of `if (cond)`, a nested `if` on the same condition (an earlier tile's
    version check) is decided."""
    key = facts.polys.atom_id(cond)
    for op in list(block.walk()):
        if isinstance(op, scf.IfOp) and facts.polys.atom_id(op.cond) == key:
            known = arith.ConstantOp(IntegerAttr(1 if holds else 0, i1))
            Rewriter.insert_op(known, InsertPoint.before(op))
            op.operands[0] = known.result
