"""Versions of cached code decided at run time, by block-uniform conditions.

Tiles sized by the `max_extent` option: the cached code runs only when the window's trip
counts are within the bound the tile was sized for, the original code otherwise.

    if (t <= MAX && ...) { <cooperative load>; __syncthreads(); <p_op on the tile>; ... }
    else                 { <p_op as it was> }

The condition is block-uniform (trip counts of uniform loops), so the barriers in the first
branch are reached by all threads of the block or by none.

Whole tiles (option `full_tiles`): the cooperative load of a tile copies every element without
a test where every load of the group reads its whole box (`full_tile_condition`), and the loop
over one tile of a strip-mined loop runs a constant trip count where the tile is complete
(`version_whole_tile_loop`); the ragged edge keeps the guarded code. Neither branch holds a
barrier, and both conditions are block-uniform.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, UnitAttr, i1
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from autogpu.passes.analysis.integers import constant_int
from autogpu.passes.gpu_cache_shared.facts import KernelFacts
from autogpu.passes.gpu_cache_shared.footprint import Group
from autogpu.passes.gpu_cache_shared.materialize import Emitter, Materializer


class AccessBounds(Protocol):
    """What one access of a group reads at run time (`tiling._Bounds`)."""

    runs: SSAValue | None
    low: list[SSAValue]
    high: list[SSAValue]


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


# ---------------------------------------------------------------------------------------------
# Full tiles (option `full_tiles`): a guard-free version for blocks whose tiles are whole
# ---------------------------------------------------------------------------------------------

TILE_LOOP = "gpu_cache_shared.tile_loop"
"""Discardable attribute on the loop over one tile of a strip-mined loop: the iterations of a
whole tile times the step (removed by the pass)."""


def nominal_boxes(group: Group) -> list[list[tuple[int, int]]] | None:
    """Per access, the offsets of the tile it reads along each dimension when all its loops
    run their whole tile and every thread of the block takes part; None when a loop has no
    static bound."""
    boxes: list[list[tuple[int, int]]] = []
    for k in range(len(group.accesses)):
        box: list[tuple[int, int]] = []
        for d, dim in enumerate(group.dims):
            low = group.deltas[k].get(d, 0) - dim.min_delta
            span = group.span(k, d)
            if span is None:
                return None
            box.append((low, low + span))
        boxes.append(box)
    return boxes


def covers_tile(group: Group, boxes: list[list[tuple[int, int]]]) -> bool:
    """Whether the boxes together cover every element of the tile (no holes between the
    offsets of the loads), so that a load of the whole tile reads only elements they read."""
    covered = numpy.zeros([max(dim.extent, 1) for dim in group.dims] or [1], dtype=bool)
    for box in boxes:
        covered[tuple(slice(low, high) for low, high in box)] = True
    return bool(covered.all())


def full_tile_condition(
    at: Emitter, facts: KernelFacts, group: Group, bounds: Sequence[AccessBounds]
) -> SSAValue | None:
    """A block-uniform condition under which the loads of `group` read every element of its
    tile: each access runs and reads at least its nominal box (`bounds`: what it reads at run
    time, as the guarded cooperative load computes it). None when no such condition exists
    (holes between the loads, a bound that is never whole)."""
    boxes = nominal_boxes(group)
    if boxes is None or not covers_tile(group, boxes):
        return None
    key = facts.polys.atom_id
    terms: dict[tuple[str, int, int], tuple[SSAValue, int]] = {}  # the same test once
    for reads, box in zip(bounds, boxes):
        if reads.runs is not None:
            terms.setdefault(("runs", key(reads.runs), 0), (reads.runs, 0))
        for d, (low, high) in enumerate(box):
            terms.setdefault(("low", key(reads.low[d]), low), (reads.low[d], low))
            terms.setdefault(("high", key(reads.high[d]), high), (reads.high[d], high))
    full: SSAValue | None = None
    for (kind, _, _), (value, bound) in terms.items():
        if kind == "runs":
            condition = value
        elif kind == "low":
            condition = at.le(value, at.const(bound))
        else:
            condition = at.le(at.const(bound), value)
        full = at.and_(full, condition)
        if constant_int(full) == 0:
            return None
    return at.true() if full is None else full


def version_whole_tile_loop(loop: scf.ForOp, span: int) -> None:
    """`for (k = first; k < end; k += s)` over one tile of a strip-mined loop becomes

        if (end - first >= span) for (kr = 0; kr < span; kr += s) body(first + kr)
        else                     for (k = first; k < end; k += s) body(k)

    so that whole tiles (all but the last) run a loop of constant trip count, which
    agpu-unroll-serial can unroll completely and whose shared offsets (`k - first`, as the
    redirected reads compute them) become `kr`."""
    index = IndexType()
    at = Emitter(loop)
    length = at.sub(at.cast(loop.ub, index), at.cast(loop.lb, index))
    whole = at.le(at.const(span), length, "whole_tile")
    iv = loop.body.block.args[0]
    body = Block(arg_types=[index])
    offset = body.args[0]
    offset.name_hint = iv.name_hint
    narrow = arith.IndexCastOp(offset, iv.type)
    shifted = arith.AddiOp(loop.lb, narrow.result)
    shifted.result.name_hint = iv.name_hint
    body.add_ops([narrow, shifted])
    mapper: dict[SSAValue, SSAValue] = {iv: shifted.result}
    for op in loop.body.block.ops:
        body.add_op(op.clone(mapper))
    start = arith.ConstantOp(IntegerAttr(0, index))
    end = arith.ConstantOp(IntegerAttr(span, index))
    step = arith.ConstantOp(IntegerAttr(constant_int(loop.step) or 1, index))
    whole_loop = scf.ForOp(start.result, end.result, step.result, [], body)
    for key, value in loop.attributes.items():
        if key != TILE_LOOP:
            whole_loop.attributes[key] = value
    _rebase_offsets(shifted.result, loop.lb, offset)
    if _always_whole(loop, span):  # sizes compiled in: strip_mine made whole tiles only
        Rewriter.replace_op(loop, [start, end, step, whole_loop])
        return
    then_block = Block([start, end, step, whole_loop, scf.YieldOp()])
    else_block = Block([scf.YieldOp()])
    version = scf.IfOp(whole, [], Region(then_block), Region(else_block))
    Rewriter.insert_op(version, InsertPoint.before(loop))
    loop.detach()
    else_block.insert_op_before(loop, else_block.first_op)  # pyright: ignore
    loop.attributes.pop(TILE_LOOP, None)


def _always_whole(loop: scf.ForOp, span: int) -> bool:
    """Whether the tile loop runs from `(T)first` to `(T)(first + span)`."""
    end = _uncast(loop.ub).owner
    if not isinstance(end, arith.AddiOp) or constant_int(end.rhs) != span:
        return False
    return end.lhs is _uncast(loop.lb)


def _rebase_offsets(shifted: SSAValue, first: SSAValue, offset: SSAValue) -> None:
    """`(first + offset) - first` (in `index`, as the redirected reads subtract a tile's
    start) becomes `offset` itself."""
    for cast_use in list(shifted.uses):
        cast = cast_use.operation
        if not isinstance(cast, arith.IndexCastOp) or cast.result.type != IndexType():
            continue
        for use in list(cast.result.uses):
            sub = use.operation
            if isinstance(sub, arith.SubiOp) and use.index == 0 and _uncast(sub.rhs) is first:
                sub.result.replace_all_uses_with(offset)
                Rewriter.erase_op(sub)


def _uncast(value: SSAValue) -> SSAValue:
    owner = value.owner
    if isinstance(owner, arith.IndexCastOp):
        return owner.input
    return value
