"""Loop facts: constant bounds and trip counts, invariance, hoisting of invariant values, and
bounds of index polynomials over the loops around them."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import scf
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.traits import is_side_effect_free

from autogpu.dialects.agpu import ParallelForOp
from autogpu.passes.analysis.integers import ceil_div, constant_int
from autogpu.passes.analysis.polynomial import Polynomial, PolynomialAnalysis
from autogpu.passes.utils.errors import error_at

LOOP_OPS = (scf.ForOp, scf.WhileOp, ParallelForOp)

#: The most operations one unrolling may make: copies of a loop body times its operations. Real
#: kernels stay below (matmul unrolled 2 x 8 over threads and 16 deep: 1,520; the largest of the
#: tuner's default space, a stencil at 4 x 8 and 16 deep: 29,536); a factor of 4000 took a
#: minute and 10**6 never ended.
MAX_UNROLLED_OPERATIONS = 1 << 16


def check_unrolled_size(loop: Operation, copies: int, what: str) -> None:
    """A PassError at `loop` if `copies` copies of its body would pass the limit."""
    body = max(1, sum(1 for _ in loop.walk()) - 1)
    if copies * body > MAX_UNROLLED_OPERATIONS:
        raise error_at(loop, f"{what}: {copies} copies of its {body} operations would make "
                             f"{copies * body}, more than the limit of {MAX_UNROLLED_OPERATIONS}"
                             ": use a smaller factor")


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


def inside_parallel_loop(op: Operation) -> bool:
    """Whether an `agpu.parallel_for` encloses `op`."""
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, ParallelForOp):
            return True
        parent = parent.parent_op()
    return False


def enclosing_loops(op: Operation, outermost: Operation | None) -> list[scf.ForOp | ParallelForOp]:
    """The `scf.for` and `agpu.parallel_for` loops around `op`, innermost first, up to and
    including `outermost` (or up to the function, if `outermost` does not enclose `op`)."""
    loops: list[scf.ForOp | ParallelForOp] = []
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, (scf.ForOp, ParallelForOp)):
            loops.append(parent)
        if parent is outermost:
            break
        parent = parent.parent_op()
    return loops


def bound_over_loops(
    poly: Polynomial,
    loops: list[scf.ForOp | ParallelForOp],
    polys: PolynomialAnalysis,
    sign: Callable[[Polynomial], int | None],
    upper: bool,
) -> Polynomial | None:
    """A polynomial free of the induction variables of `loops` (innermost first) that is at
    most (`upper`: at least) `poly` wherever the loops run: each variable in turn becomes the
    bound of its loop that minimises (maximises) it, `lb` or `ub - 1` (exactly the last value
    for a step of 1, beyond it otherwise), which may bring in the variables of outer loops: over
    `for (k = 0; k <= i; k++)`, `i - k` is at least `i - i = 0`. `sign` tells the sign of a
    coefficient (1 or -1, None if unknown). None when `poly` is not affine in a variable or
    the sign of its coefficient is unknown (or its bounds are wider than `poly`). Exact in the
    integers when nothing wraps."""
    for loop in loops:
        split = poly.split(polys.atom_id(loop.body.block.args[0]))
        if split is None:
            return None
        coefficient, rest = split
        if not coefficient.terms:
            continue
        direction = sign(coefficient)
        if direction is None:
            return None
        if (direction > 0) == upper:
            ub = polys.poly(loop.ub)
            bound = ub.minus(Polynomial.constant_of(ub.type, 1))
        else:
            bound = polys.poly(loop.lb)
        if bound.width > poly.width:
            return None
        poly = coefficient.times(bound.widened(poly.type)).plus(rest)
    return poly
