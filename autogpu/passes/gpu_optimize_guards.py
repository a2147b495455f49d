"""`gpu-optimize-guards`: test each bounds guard as rarely as possible (AutoGPU 2.3.5).

The lowering already places its guards well (one test per tile of replicas, none where the
grid covers the domain exactly: `convert_agpu_to_gpu/coverage.py`); this pass moves the guards that
other code leaves inside loops — the x guard inside the grid-stride loop over y of an unrolled-1
kernel, guards written in the C source, guards left by later transformations — to where they
are tested once:

- **hoisting**: `for (...) { <pure code>; if (c) { B } }` with `c` invariant in the loop becomes
  `if (c) { for (...) { <pure code>; B } }`. Legal because when `c` is false the loop only
  computes values nobody uses (the pure code has no effect — local slots it allocates are only
  used under the guard — and an `scf.for` always terminates), and when it is true nothing
  changes. Only ifs without else branch or results, and loops
  without loop-carried values, are hoisted; the computation of `c`, if it is inside the loop,
  is copied before it when it cannot trap (no division or remainder).
- **merging**: `if (c) { A } <pure code> if (c) { B }` (neither with results or an else branch)
  becomes `<pure code> if (c) { A; B }`: one test per condition rather than per statement.
  The conditions are the same SSA value, or computed alike from the same values without
  reading memory (`PolynomialAnalysis.atom_id`), so `A` cannot change the second one.

Both apply repeatedly, everywhere in the module (kernels and C-level functions alike), so a
guard climbs out of a whole loop nest. A `gpu.barrier` under a hoisted guard is still reached by
the same threads the same number of times.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import MemoryEffectKind, get_effects

from autogpu.passes.analysis.loops import defined_inside, hoist, is_invariant
from autogpu.passes.analysis.polynomial import PolynomialAnalysis
from autogpu.passes.options import DeclaredOptionsPass
from autogpu.passes.utils.slices import is_pure


def _no_effect_when_unused(op: Operation) -> bool:
    """Running `op` or not makes no difference once nothing uses its results: side-effect free,
    or only allocating (a local slot the skipped code would have used)."""
    if is_pure(op):
        return True
    if op.regions:
        return False
    effects = get_effects(op)
    return effects is not None and all(e.kind == MemoryEffectKind.ALLOC for e in effects)


def _plain_guard(op: Operation) -> bool:
    """An `scf.if` with no results and no else branch."""
    return isinstance(op, scf.IfOp) and not op.results and not op.false_region.blocks


def _cannot_trap(value: SSAValue, loop: Operation) -> bool:
    """The ops computing `value` inside `loop` can run before it without new failures."""
    if not defined_inside(value, loop):
        return True
    owner = value.owner
    assert isinstance(owner, Operation)
    if "div" in owner.name or "rem" in owner.name:
        return False
    return all(_cannot_trap(operand, loop) for operand in owner.operands)


class HoistInvariantGuard(RewritePattern):
    """`for { pure; if (c) B }` -> `if (c) { for { pure; B } }` for a loop-invariant `c`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, loop: scf.ForOp, rewriter: PatternRewriter) -> None:
        if loop.iter_args or loop.results:
            return
        body = list(loop.body.block.ops)[:-1]
        guards = [op for op in body if isinstance(op, scf.IfOp)]
        if len(guards) != 1 or not _plain_guard(guard := guards[0]):
            return
        assert isinstance(guard, scf.IfOp)
        if not all(_no_effect_when_unused(op) for op in body if op is not guard):
            return
        if not is_invariant(guard.cond, loop) or not _cannot_trap(guard.cond, loop):
            return
        cond = hoist(guard.cond, loop, rewriter, {})
        outer = scf.IfOp(cond, [], Region(Block()))
        rewriter.insert(outer, InsertPoint.before(loop))
        loop.detach()
        rewriter.insert(loop, InsertPoint.at_end(outer.true_region.block))
        rewriter.insert(scf.YieldOp(), InsertPoint.at_end(outer.true_region.block))
        then = guard.true_region.block
        terminator = then.last_op
        assert isinstance(terminator, scf.YieldOp)
        rewriter.erase(terminator)
        rewriter.inline_block(then, InsertPoint.before(guard))
        rewriter.erase(guard)


class MergeAdjacentGuards(RewritePattern):
    """`if (c) A; <pure code>; if (c) B` -> `<pure code>; if (c) { A; B }`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, first: scf.IfOp, rewriter: PatternRewriter) -> None:
        if not _plain_guard(first):
            return
        between: list[Operation] = []
        second = first.next_op
        while second is not None and not second.regions and is_pure(second):
            between.append(second)
            second = second.next_op
        if second is None or not _plain_guard(second):
            return
        assert isinstance(second, scf.IfOp)
        if second.cond is not first.cond:
            analysis = PolynomialAnalysis()
            if analysis.atom_id(second.cond) != analysis.atom_id(first.cond):
                return
        for op in between:  # pure, and `first` has no results: they can come before it
            op.detach()
            rewriter.insert(op, InsertPoint.before(first))
        block = first.true_region.block
        terminator = block.last_op
        assert terminator is not None
        then = second.true_region.block
        last = then.last_op
        assert isinstance(last, scf.YieldOp)
        rewriter.erase(last)
        rewriter.inline_block(then, InsertPoint.before(terminator))
        rewriter.erase(second)


@dataclass(frozen=True)
class GpuOptimizeGuardsPass(DeclaredOptionsPass):
    """Hoist loop-invariant guards out of loops and merge adjacent guards on one condition."""

    name = "gpu-optimize-guards"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([MergeAdjacentGuards(), HoistInvariantGuard()]),
            apply_recursively=True,
        ).rewrite_module(op)
