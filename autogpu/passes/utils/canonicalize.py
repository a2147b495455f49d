"""xDSL's `canonicalize`, without its cubic cost on deep loop nests.

xDSL 0.74's `RehoistConstInLoops` moves the constants of an `scf.for` body one level out each
time the loop is matched, and the greedy driver matches each loop once per sweep: a constant `d`
loops deep takes `d` sweeps to leave the nest, and every sweep asks each loop whether it is dead,
which walks the loop's whole body (its memory effects). A C function of 200 nested `for` loops
(the frontend puts each loop's bound constants in the body of the loop around it) took minutes.
Hoisting those constants to where the sweeps would leave them, in one walk beforehand, leaves
`canonicalize` a single sweep with the same result.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import builtin, scf
from xdsl.ir import Operation
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import ConstantLike
from xdsl.transforms.canonicalize import CanonicalizePass


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


__all__ = ["HoistingCanonicalizePass", "hoist_loop_constants"]
