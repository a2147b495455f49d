"""xDSL's `canonicalize`, keeping overflow flags, and without its cubic cost on deep loop nests.

xDSL 0.74 moves a constant to the right of a commutative integer op (`7 + i` → `i + 7`) by
building a fresh op from the operands alone, which drops `overflow<nsw>`: harmless for
correctness (wrapping is always allowed), but the `cuda` target would then print the user's
signed `7 + i` as unsigned arithmetic. `CanonicalizePass` does that swap first
(`ConstantToTheRight`, copying the op's properties, attributes and location) and leaves the rest
to xDSL's patterns.

xDSL 0.74's `RehoistConstInLoops` moves the constants of an `scf.for` body one level out each
time the loop is matched, and the greedy driver matches each loop once per sweep: a constant `d`
loops deep takes `d` sweeps to leave the nest, and every sweep asks each loop whether it is dead,
which walks the loop's whole body (its memory effects). A C function of 200 nested `for` loops
(the frontend puts each loop's bound constants in the body of the loop around it) took minutes.
Hoisting those constants to where the sweeps would leave them, in one walk beforehand, leaves
`canonicalize` a single sweep with the same result (`HoistingCanonicalizePass`).
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, builtin, scf
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import Commutative, ConstantLike
from xdsl.transforms import canonicalize
from xdsl.transforms.canonicalization_patterns.utils import const_evaluate_operand
from xdsl.transforms.dead_code_elimination import region_dce


class ConstantToTheRight(RewritePattern):
    """`c op x` → `x op c` for a commutative integer op, flags and location kept."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: arith.SignlessIntegerBinaryOperation, rewriter: PatternRewriter, /
    ):
        if not op.has_trait(Commutative) or const_evaluate_operand(op.lhs) is None:
            return
        if const_evaluate_operand(op.rhs) is not None:
            return  # both constant: folded by xDSL's patterns
        swapped = type(op).create(
            operands=[op.rhs, op.lhs],
            result_types=[op.result.type],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )
        swapped.location = op.location
        swapped.result.name_hint = op.result.name_hint
        rewriter.replace(op, swapped)


class CanonicalizePass(canonicalize.CanonicalizePass):
    """`canonicalize`, with `ConstantToTheRight` tried before xDSL's own patterns."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        pattern = GreedyRewritePatternApplier(
            [ConstantToTheRight(), canonicalize.CanonicalizationRewritePattern()],
            ctx=ctx,
            folding_enabled=True,
        )
        PatternRewriteWalker(pattern, post_walk_func=region_dce).rewrite_module(op)


def hoist_loop_constants(root: Operation) -> None:
    """Move every constant-like op whose parent is an `scf.for` before the outermost loop of its
    chain of directly nested `scf.for`s, as repeated `RehoistConstInLoops` would: before that
    loop, shallower constants first, each depth in walk order."""
    moves: dict[Operation, list[tuple[int, int, Operation]]] = {}
    for position, op in enumerate(root.walk()):
        if not op.has_trait(ConstantLike):
            continue
        target, depth = op.parent_op(), 0
        while isinstance(target, scf.ForOp) and isinstance(outer := target.parent_op(), scf.ForOp):
            target, depth = outer, depth + 1
        if isinstance(target, scf.ForOp):
            moves.setdefault(target, []).append((depth, position, op))
    for loop, constants in moves.items():
        for _, _, constant in sorted(constants, key=lambda entry: (entry[0], entry[1])):
            constant.detach()
            Rewriter.insert_op(constant, InsertPoint.before(loop))


class HoistingCanonicalizePass(CanonicalizePass):
    """`canonicalize`, after `hoist_loop_constants` (same output, one sweep on deep nests)."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        hoist_loop_constants(op)
        super().apply(ctx, op)


__all__ = [
    "CanonicalizePass", "ConstantToTheRight", "HoistingCanonicalizePass", "hoist_loop_constants",
]
