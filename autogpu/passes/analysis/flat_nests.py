"""Which levels of a parallel nest can become one flat loop (`agpu-flatten-nest`).

The *flat chain* of a nest is its outermost `agpu.parallel_for` and the parallel loops perfectly
nested in it (each level's body holds only pure scalar code besides the next level), as long as
each level's bounds are known functions of the loop directly around it:

- **rectangular**: bounds and step invariant in the nest (what `collapse(n)` makes of
  `for (j = 0; j < m; j++)`);
- **parallelogram**: both bounds the enclosing variable plus an invariant (`j = i; j < i + w`),
  so the trip count is invariant although the start moves;
- **triangular**: one bound the enclosing variable plus an invariant, the other invariant
  (`j < i`, `j <= i`, i.e. `j < i + 1`, `j >= i`), both steps 1, the enclosing loop's bounds
  invariant; at most one such pair per chain, since its iteration space is no product.

Bounds are decomposed as `a * i + x` with `a` in {0, 1} and `x` invariant in the nest
(`Bound`). The chain stops above the first level that fits none of these shapes (that loop then
runs inside each flat iteration, as the innermost body does), and `Chain.stopped` says why.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Operation, SSAValue

from autogpu.dialects.agpu import ParallelForOp
from autogpu.passes.analysis.integers import constant_int
from autogpu.passes.utils.slices import is_inside, is_pure, slice_leaves


@dataclass(frozen=True)
class Bound:
    """A loop bound `a * iv + sign * x`: `iv` the enclosing level's variable (`a` 0 or 1), `x`
    invariant in the nest (None: 0)."""

    a: int
    x: SSAValue | None
    sign: int = 1


@dataclass(frozen=True)
class FlatLevel:
    """One level of a flat chain: its loop and its bounds relative to the level around it."""

    loop: ParallelForOp
    lower: Bound
    upper: Bound

    @property
    def triangular(self) -> bool:
        """The trip count moves with the enclosing variable (one bound does, the other not)."""
        return self.lower.a != self.upper.a

    @property
    def moves(self) -> bool:
        """The bounds depend on the enclosing variable (triangle or parallelogram)."""
        return self.lower.a == 1 or self.upper.a == 1


@dataclass(frozen=True)
class Chain:
    levels: tuple[FlatLevel, ...]
    stopped: tuple[Operation, str] | None  # the loop the chain stops above, and why

    @property
    def triangle(self) -> int | None:
        """The position of the triangular level (its enclosing level is the one before)."""
        return next((k for k, level in enumerate(self.levels) if level.triangular), None)


SUPPORTED_TYPES = (IntegerType(32), IntegerType(64), IndexType())


def _invariant(value: SSAValue, nest: ParallelForOp) -> bool:
    """Computed by pure ops from values defined outside the nest."""
    _, leaves = slice_leaves([value], is_leaf=lambda v: not is_inside(v, nest))
    return not any(is_inside(leaf, nest) for leaf in leaves)


def decompose(value: SSAValue, iv: SSAValue | None, nest: ParallelForOp) -> Bound | None:
    """`value` as `a * iv + sign * x` with `x` invariant in `nest`, or None."""
    if _invariant(value, nest):
        return Bound(0, value)
    if iv is None:
        return None
    if value is iv:
        return Bound(1, None)
    owner = value.owner
    if isinstance(owner, arith.AddiOp):
        for this, other in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
            if this is iv and _invariant(other, nest):
                return Bound(1, other)
    if isinstance(owner, arith.SubiOp) and owner.lhs is iv and _invariant(owner.rhs, nest):
        return Bound(1, owner.rhs, -1)
    return None


def _name(loop: ParallelForOp) -> str:
    hint = loop.induction_var.name_hint
    return f"the loop over '{hint}'" if hint else "a loop"


def _inner_loop(level: ParallelForOp) -> tuple[ParallelForOp | None, str | None]:
    """The parallel loop perfectly nested in `level`, or why there is none to add."""
    body = [op for op in level.body.block.ops if op is not level.body.block.last_op]
    inner = [op for op in body if isinstance(op, ParallelForOp)]
    if len(inner) != 1:
        return None, None  # the innermost parallel level (or several loops side by side)
    if not all(is_pure(op) for op in body if op is not inner[0]):
        return None, f"{_name(level)} runs code with effects around {_name(inner[0])}"
    return inner[0], None


def _level(loop: ParallelForOp, outer: FlatLevel | None, nest: ParallelForOp,
           has_triangle: bool) -> FlatLevel | str:
    """`loop` as the next level of the chain below `outer`, or why it cannot be."""
    if loop.lb.type not in SUPPORTED_TYPES:
        return f"{_name(loop)} counts in {loop.lb.type} (only i32, i64 and index are flattened)"
    iv = outer.loop.induction_var if outer is not None else None
    lower, upper = decompose(loop.lb, iv, nest), decompose(loop.ub, iv, nest)
    step = decompose(loop.step, None, nest)
    if lower is None or upper is None or step is None:
        return (f"the bounds of {_name(loop)} are no invariant, nor the variable of the loop "
                "around it plus an invariant")
    level = FlatLevel(loop, lower, upper)
    if level.triangular:
        assert outer is not None
        if has_triangle:
            return f"{_name(loop)} makes a second triangle in one nest"
        if outer.moves:
            return f"{_name(loop)} is triangular inside {_name(outer.loop)}, whose bounds move"
        if constant_int(loop.step) != 1 or constant_int(outer.loop.step) != 1:
            return f"{_name(loop)} is triangular with a step that is not 1"
    return level


def flat_chain(nest: ParallelForOp) -> Chain:
    """The flat chain of `nest` (see the module docstring)."""
    first = _level(nest, None, nest, False)
    if isinstance(first, str):
        return Chain((), (nest, first))
    levels = [first]
    while True:
        inner, why = _inner_loop(levels[-1].loop)
        if inner is None:
            stopped = (levels[-1].loop, why) if why is not None else None
            return Chain(tuple(levels), stopped)
        level = _level(inner, levels[-1], nest, any(lv.triangular for lv in levels))
        if isinstance(level, str):
            return Chain(tuple(levels), (inner, level))
        levels.append(level)
