"""Loop facts: constant bounds and trip counts, invariance, and hoisting of invariant values."""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.traits import is_side_effect_free

from autogpu.dialects.agpu import ParallelForOp
from autogpu.passes.analysis.integers import ceil_div, constant_int

LOOP_OPS = (scf.ForOp, scf.WhileOp, ParallelForOp)


def constant_trip_count(loop: scf.ForOp) -> int | None:
    """How many times `loop` runs, when its bounds and step are constants (step > 0)."""
    lb, ub, step = (constant_int(v) for v in (loop.lb, loop.ub, loop.step))
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return max(0, ceil_div(ub - lb, step))


def defined_inside(value: SSAValue, op: Operation) -> bool:
    """Whether `value` is defined by an op nested in `op` or is a block argument of its regions."""
    owner = value.owner
    if isinstance(owner, Block):
        parent = owner.parent_op()
        return parent is not None and op.is_ancestor(parent)
    return op.is_ancestor(owner)


def is_invariant(value: SSAValue, loop: Operation) -> bool:
    """`value` has the same value in every iteration of `loop` and can be computed before it:
    it is defined outside, or by side-effect free ops (no regions) of invariant operands."""
    if not defined_inside(value, loop):
        return True
    owner = value.owner
    if isinstance(owner, Block) or isinstance(value, BlockArgument):
        return False
    if owner.regions or not is_side_effect_free(owner):
        return False
    return all(is_invariant(operand, loop) for operand in owner.operands)


def hoist(
    value: SSAValue,
    loop: Operation,
    rewriter: PatternRewriter,
    mapping: dict[SSAValue, SSAValue],
) -> SSAValue:
    """A value equal to the invariant `value`, computed just before `loop` (the defining ops
    inside the loop are cloned there; `mapping` shares clones between calls)."""
    if not defined_inside(value, loop):
        return value
    if (known := mapping.get(value)) is not None:
        return known
    owner = value.owner
    assert isinstance(owner, Operation), "hoist() needs an invariant value"
    for operand in owner.operands:
        hoist(operand, loop, rewriter, mapping)
    clone = owner.clone(mapping)
    rewriter.insert(clone, InsertPoint.before(loop))
    return mapping[value]


def contains_loop(op: Operation) -> bool:
    """Whether a loop op is nested in `op` (not counting `op` itself)."""
    return any(isinstance(nested, LOOP_OPS) for nested in op.walk() if nested is not op)
