"""`agpu-stage-accumulations`: keep an array element accumulated by serial loops in a register
(AutoGPU 2.3.2, the step from mm_0 to mm_1).

    for (k = 0; k < p; k++)                 if (0 < p) {
      A[i + j*m] += B[..] * C[..];   ==>      A_acc = A[i + j*m];
                                              for (k = 0; k < p; k++) A_acc += B[..] * C[..];
                                              A[i + j*m] = A_acc;
                                            }

An element `M[idx]` that is loaded and stored in the body of an `scf.for`, with `idx` invariant
in that loop, lives in a rank-0 `memref.alloca` slot named `M_acc` (a register, docs/ir.md)
across the outermost enclosing serial loop of a perfect chain whose iterations all use the same
`idx`. Legality, checked on every op nested in that loop:

1. the load and the store are directly in the innermost loop's body (not under an `scf.if`), so
   the element is accessed whenever the nest runs its body at all;
2. every other access to `M` in the loop is provably to the same element (redirected to the
   slot) or provably to a different one, by polynomials of the indices (`analysis.polynomial`);
3. no access to another memref that may alias `M` (`analysis.aliasing`): two distinct pointer
   parameters may alias unless one is `restrict` — `const` does not help — or the pass option
   `assume_no_alias` is set (the AutoGPU paper's assumption); local allocations never alias;
4. no op with unknown memory effects (calls, copies) and no `agpu.parallel_for` inside the loop
   (another thread could touch the element between the iterations), and the array is not a
   reduction variable of an enclosing `agpu.parallel_for` (the lowering privatises those);
5. the loop bounds of the chain are invariant in it, so that whether the body runs at all is
   known before the loop: the slot is loaded and written back under `scf.if (lb < ub && ...)`
   (omitted when the bounds are constants), so a loop that does not run does not touch the
   element — it could be out of bounds, or written by another thread.

Staging does not reorder floating-point operations: results are bitwise identical.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import MemRefType, ModuleOp, i1
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import is_side_effect_free
from xdsl.utils.hints import isa

from autogpu.dialects.agpu import ParallelForOp
from autogpu.passes.analysis.aliasing import c_name, may_alias, memory_accesses
from autogpu.passes.analysis.integers import constant_int
from autogpu.passes.analysis.loops import defined_inside, hoist, is_invariant
from autogpu.passes.analysis.polynomial import (
    Polynomial,
    PolynomialAnalysis,
    provably_distinct,
    provably_equal,
)
from autogpu.passes.options import DeclaredOptionsPass, option


@dataclass(frozen=True)
class Element:
    """One array element, `memref[indices]`, with the polynomials of its indices."""

    memref: SSAValue
    indices: Sequence[SSAValue]
    polys: Sequence[Polynomial]

    def same_as(self, polys: Sequence[Polynomial]) -> bool:
        return all(provably_equal(a, b) for a, b in zip(self.polys, polys, strict=True))

    def distinct_from(self, polys: Sequence[Polynomial]) -> bool:
        return any(provably_distinct(a, b) for a, b in zip(self.polys, polys, strict=True))


@dataclass
class StageAccumulation(RewritePattern):
    """Stages one accumulated element of the matched loop's body, if legal."""

    assume_no_alias: bool

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ForOp, rewriter: PatternRewriter) -> None:
        analysis = PolynomialAnalysis()
        for element in _accumulated_elements(op, analysis):
            chain = _invariant_chain(op, element)
            for outer_index in range(len(chain) - 1, -1, -1):
                nest = chain[: outer_index + 1]
                if _never_runs(nest):
                    break
                if self._legal(nest[-1], element, analysis):
                    _stage(element, nest, rewriter, analysis)
                    return

    def _legal(self, loop: scf.ForOp, element: Element, analysis: PolynomialAnalysis) -> bool:
        if any(isinstance(nested, ParallelForOp) for nested in loop.walk()):
            return False
        accesses = memory_accesses(loop)
        if accesses is None:
            return False
        for access in accesses:
            if access.memref is element.memref:
                polys = [analysis.index_poly(i) for i in access.indices]
                if not (element.same_as(polys) or element.distinct_from(polys)):
                    return False
            elif may_alias(access.memref, element.memref, self.assume_no_alias):
                return False
        return True


def _accumulated_elements(loop: scf.ForOp, analysis: PolynomialAnalysis) -> list[Element]:
    """Elements of arrays (rank >= 1) loaded and stored directly in `loop`'s body at indices
    invariant in `loop`."""
    body = loop.body.block
    loads = [o for o in body.ops if isinstance(o, memref.LoadOp)]
    elements: list[Element] = []
    for store in body.ops:
        if not isinstance(store, memref.StoreOp):
            continue
        mem = store.memref
        if not isa(mem.type, MemRefType) or not mem.type.get_shape():
            continue  # a rank-0 slot is a register already
        if defined_inside(mem, loop) or not all(is_invariant(i, loop) for i in store.indices):
            continue
        if _is_reduction_variable(mem, loop):
            continue
        polys = [analysis.index_poly(i) for i in store.indices]
        element = Element(mem, store.indices, polys)
        if any(
            load.memref is mem and element.same_as([analysis.index_poly(i) for i in load.indices])
            for load in loads
        ):
            elements.append(element)
    return elements


def _is_reduction_variable(mem: SSAValue, op: Operation) -> bool:
    """Whether `mem` is a reduction variable of a parallel loop around `op` (the lowering
    privatises those; their accesses are left for it to see as they are)."""
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, ParallelForOp) and any(v is mem for v in parent.reduction_vars):
            return True
        parent = parent.parent_op()
    return False


def _invariant_chain(loop: scf.ForOp, element: Element) -> list[scf.ForOp]:
    """`loop` and the enclosing `scf.for`s, innermost first, while each directly contains the
    previous one and nothing else but pure ops (a perfect chain: its body runs exactly when every
    loop runs, which is what the guard of `_stage` tests), and the element's indices and all
    inner bounds stay invariant."""
    chain = [loop]
    while True:
        inner = chain[-1]
        parent = inner.parent_op()
        if not isinstance(parent, scf.ForOp) or inner.parent_block() is not parent.body.block:
            return chain
        body = parent.body.block
        beside = [o for o in body.ops if o is not inner and o is not body.last_op]
        if not all(not o.regions and is_side_effect_free(o) for o in beside):
            return chain  # e.g. `y[i] -= 7` beside the inner loop runs when that loop does not
        if defined_inside(element.memref, parent):
            return chain
        needed = [*element.indices, *(v for l in chain for v in (l.lb, l.ub))]
        if not all(is_invariant(v, parent) for v in needed):
            return chain
        chain.append(parent)


def _never_runs(nest: Sequence[scf.ForOp]) -> bool:
    return any(
        (lb := constant_int(l.lb)) is not None
        and (ub := constant_int(l.ub)) is not None
        and lb >= ub
        for l in nest
    )


def _stage(
    element: Element,
    nest: Sequence[scf.ForOp],
    rewriter: PatternRewriter,
    analysis: PolynomialAnalysis,
) -> None:
    outer = nest[-1]
    mem_type = element.memref.type
    assert isa(mem_type, MemRefType)
    slot = memref.AllocaOp.get(mem_type.element_type, shape=())
    slot.memref.name_hint = f"{c_name(element.memref) or 'array'}_acc"
    rewriter.insert(slot, InsertPoint.before(outer))

    mapping: dict[SSAValue, SSAValue] = {}
    guard = _guard(nest, rewriter, mapping)
    if guard is not None:
        _move_into_if(outer, guard, rewriter)
    indices = [hoist(i, outer, rewriter, mapping) for i in element.indices]
    initial = memref.LoadOp.get(element.memref, indices)
    rewriter.insert(
        [initial, memref.StoreOp.get(initial.res, slot.memref, ())], InsertPoint.before(outer)
    )
    final = memref.LoadOp.get(slot.memref, ())
    rewriter.insert(
        [final, memref.StoreOp.get(final.res, element.memref, indices)], InsertPoint.after(outer)
    )
    _redirect(element, outer, slot.memref, rewriter, analysis)


def _redirect(
    element: Element,
    loop: scf.ForOp,
    slot: SSAValue,
    rewriter: PatternRewriter,
    analysis: PolynomialAnalysis,
) -> None:
    """Turn every access to the element inside `loop` into an access to `slot`, and erase the
    index computations that only served them."""
    accesses = memory_accesses(loop)
    assert accesses is not None
    for access in accesses:
        polys = [analysis.index_poly(i) for i in access.indices]
        if access.memref is not element.memref or not element.same_as(polys):
            continue
        old_indices = list(access.indices)
        if isinstance(access.op, memref.LoadOp):
            new = memref.LoadOp.get(slot, ())
            new.res.name_hint = access.op.res.name_hint
        else:
            new = memref.StoreOp.get(access.op.value, slot, ())
        rewriter.replace(access.op, new)
        for index in old_indices:
            _erase_if_dead(index, rewriter)


def _erase_if_dead(value: SSAValue, rewriter: PatternRewriter) -> None:
    owner = value.owner
    if (
        isinstance(owner, Operation)
        and not owner.regions
        and is_side_effect_free(owner)
        and all(not r.uses for r in owner.results)
    ):
        operands = list(owner.operands)
        rewriter.erase(owner)
        for operand in operands:
            _erase_if_dead(operand, rewriter)


def _guard(
    nest: Sequence[scf.ForOp], rewriter: PatternRewriter, mapping: dict[SSAValue, SSAValue]
) -> SSAValue | None:
    """`lb < ub` for every loop of the nest whose bounds are not constants, computed before the
    outermost loop (None when every loop is known to run)."""
    outer = nest[-1]
    condition: SSAValue | None = None
    tested: set[tuple[SSAValue, SSAValue]] = set()
    for loop in reversed(nest):
        if constant_int(loop.lb) is not None and constant_int(loop.ub) is not None:
            continue  # runs: _never_runs excluded the empty case
        if (loop.lb, loop.ub) in tested:
            continue
        tested.add((loop.lb, loop.ub))
        lb, ub = (hoist(v, outer, rewriter, mapping) for v in (loop.lb, loop.ub))
        runs = arith.CmpiOp(lb, ub, "slt")
        ops: list[Operation] = [runs]
        if condition is not None:
            ops.append(arith.AndIOp(condition, runs))
        rewriter.insert(ops, InsertPoint.before(outer))
        condition = ops[-1].results[0]
    if condition is not None:
        assert condition.type == i1
    return condition


def _move_into_if(loop: scf.ForOp, condition: SSAValue, rewriter: PatternRewriter) -> None:
    """Wrap `loop` in `scf.if condition`; its results become the `if`'s (the initial values
    when the loop does not run)."""
    result_types = [r.type for r in loop.results]
    else_region = Region(Block([scf.YieldOp(*loop.iter_args)])) if result_types else Region()
    if_op = scf.IfOp(condition, result_types, Region(Block()), else_region)
    rewriter.insert(if_op, InsertPoint.before(loop))
    for result, replacement in zip(loop.results, if_op.results, strict=True):
        rewriter.replace_all_uses_with(result, replacement)
    loop.detach()
    rewriter.insert([loop, scf.YieldOp(*loop.results)], InsertPoint.at_end(if_op.true_region.block))


@dataclass(frozen=True)
class AgpuStageAccumulationsPass(DeclaredOptionsPass):
    """Keep array elements accumulated across serial loops in registers (AutoGPU 2.3.2)."""

    name = "agpu-stage-accumulations"

    assume_no_alias: bool = option(
        False, doc="Assume distinct pointer parameters never overlap, as if all were `restrict` "
        "(the paper's assumption). Off by default: C allows `matmul(A, A, ...)`.")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            StageAccumulation(self.assume_no_alias), walk_regions_first=True
        ).rewrite_module(op)
