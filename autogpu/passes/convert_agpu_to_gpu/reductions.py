"""OpenMP reductions over a mapped loop nest, as a kernel computes them.

Semantics (OpenMP's): each thread accumulates the iterations it runs into a private copy
initialised with the operator's identity; the block then combines its threads' copies (reached
by every thread of the block: guards wrap the loop body, never the combine): a block of whole
warps as CUB's `BlockReduce` does, by `agpu.shuffle_down` within each warp, one value per warp
in shared memory and shuffles over those; any other block by a tree in shared memory
(`gpu.barrier` between steps). Finally thread 0 combines the block's result into the variable
in device memory with one `memref.atomic_rmw`, so the variable ends as its value before the
loop combined with every iteration's contribution, in some order (floating-point sums may round
differently from the serial loop); or, `deterministic`, the last block to finish combines every
block's partial result in a fixed order (`_combine_in_last_block`). `-` combines partial
results with `+`, as OpenMP specifies.

Identities: `+` on floating point starts from -0.0 (`x + -0.0` is `x`, also for `x = -0.0`, so a
loop that adds nothing, or only -0.0, leaves the serial result bit for bit); `min`/`max` of
floating point from +inf/-inf and combine with `fmin`/`fmax` (`minnumf`/`maxnumf`): a NaN
contribution is ignored, as C's `fmin`/`fmax` and the update `s = e < s ? e : s` (which never
picks a NaN `e`) ignore it (docs/ir.md names the forms whose serial result depends on the
order); `umin`/`umax` start from all ones / 0 and use `minui`/`maxui` and CUDA's unsigned
atomics.

`&&` and `||` (OpenMP's `s = s && e1 && e2 ...` as 0 or 1 in `s`'s type, also when no iteration
runs): the private copies start at 1 (`&&`) or 0 (`||`) and combine as `(a != 0) & (b != 0)`
(`|`); `normalise_logical_starts` sets `s = (s != 0)` before the nest, so that the block results
(0 or 1) fold into it with `atomicAnd`/`atomicOr` (`fmin`/`fmax` for a floating-point `s`).

`memref.atomic_rmw` takes its operator as an integer, MLIR's `arith::AtomicRMWKind` (current
numbering, below); the `cuda` target maps it to `atomicAdd`/`atomicMax`/... or a CAS loop.
Shared memory is a `memref.alloca` in memory space 3 (NVVM's shared address space): the `cuda`
target prints it as a `__shared__` array.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, func, gpu, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.utils.hints import isa

from autogpu.dialects.agpu import ParallelForOp, ReductionKind
from autogpu.dialects.agpu_combine import WARP_SIZE, ShuffleDownOp, ThreadFenceOp
from autogpu.passes.utils.errors import describe_value, error_at
from autogpu.passes.utils.index_arith import IndexArith
from autogpu.target.cuda_atomics import ATOMIC_KINDS

ATOMIC_RMW_KIND: dict[str, int] = {kind: i for i, kind in enumerate(ATOMIC_KINDS)}
"""MLIR's `arith::AtomicRMWKind` numbering: the `kind` property of `memref.atomic_rmw`."""

SHARED_MEMORY_SPACE = IntegerAttr(3, i32)
"""The memory space of `__shared__` arrays (NVVM's address space 3)."""

_FLOAT_OPS: dict[ReductionKind, tuple[type[Operation], str]] = {
    ReductionKind.ADD: (arith.AddfOp, "addf"),
    ReductionKind.SUB: (arith.AddfOp, "addf"),
    ReductionKind.MUL: (arith.MulfOp, "mulf"),
    ReductionKind.MIN: (arith.MinnumfOp, "minnumf"),
    ReductionKind.MAX: (arith.MaxnumfOp, "maxnumf"),
    ReductionKind.LAND: (arith.AndIOp, "minnumf"),  # on 0.0/1.0
    ReductionKind.LOR: (arith.OrIOp, "maxnumf"),
}
_INT_OPS: dict[ReductionKind, tuple[type[Operation], str]] = {
    ReductionKind.ADD: (arith.AddiOp, "addi"),
    ReductionKind.SUB: (arith.AddiOp, "addi"),
    ReductionKind.MUL: (arith.MuliOp, "muli"),
    ReductionKind.MIN: (arith.MinSIOp, "mins"),
    ReductionKind.MAX: (arith.MaxSIOp, "maxs"),
    ReductionKind.UMIN: (arith.MinUIOp, "minu"),
    ReductionKind.UMAX: (arith.MaxUIOp, "maxu"),
    ReductionKind.AND: (arith.AndIOp, "andi"),
    ReductionKind.OR: (arith.OrIOp, "ori"),
    ReductionKind.XOR: (arith.XOrIOp, "xori"),
    ReductionKind.LAND: (arith.AndIOp, "andi"),  # on 0/1
    ReductionKind.LOR: (arith.OrIOp, "ori"),
}
"""Per kind: the op combining two partial results (for `&&`/`||`: their truth values, `i1`)
and the `memref.atomic_rmw` kind folding a block's result into the variable."""


def identity(kind: ReductionKind, element: Attribute) -> IntegerAttr | FloatAttr:
    """The value a private copy starts from: combining with it changes nothing."""
    if isinstance(element, AnyFloat):
        value = {
            ReductionKind.ADD: -0.0,
            ReductionKind.SUB: -0.0,
            ReductionKind.MUL: 1.0,
            ReductionKind.MIN: math.inf,
            ReductionKind.MAX: -math.inf,
            ReductionKind.LAND: 1.0,
        }.get(kind, 0.0)
        return FloatAttr(value, element)
    assert isa(element, IntegerType)
    width = element.width.data
    value = {
        ReductionKind.MUL: 1,
        ReductionKind.AND: -1,
        ReductionKind.MIN: 2 ** (width - 1) - 1,
        ReductionKind.MAX: -(2 ** (width - 1)),
        ReductionKind.UMIN: -1,  # all ones
        ReductionKind.LAND: 1,
    }.get(kind, 0)
    return IntegerAttr(value, element)


def _ops_for(kind: ReductionKind, element: Attribute) -> tuple[type[Operation], str]:
    return (_FLOAT_OPS if isinstance(element, AnyFloat) else _INT_OPS)[kind]


def truth(builder: Builder, value: SSAValue) -> SSAValue:
    """C's `value != 0` (true for a NaN), as an `i1`."""
    if isinstance(value.type, AnyFloat):
        zero = builder.insert(arith.ConstantOp(FloatAttr(0.0, value.type))).result
        return builder.insert(arith.CmpfOp(value, zero, "une")).result
    assert isa(value.type, IntegerType)
    zero = builder.insert(arith.ConstantOp(IntegerAttr(0, value.type))).result
    return builder.insert(arith.CmpiOp(value, zero, "ne")).result


def from_truth(builder: Builder, flag: SSAValue, element: Attribute) -> SSAValue:
    """A C truth value as 0 or 1 of `element`."""
    one = builder.insert(arith.ConstantOp(identity(ReductionKind.LAND, element))).result
    zero = builder.insert(arith.ConstantOp(identity(ReductionKind.LOR, element))).result
    return builder.insert(arith.SelectOp(flag, one, zero)).result


def normalise_logical_starts(fn: func.FuncOp) -> None:
    """Sets each `&&`/`||` reduction variable to `(s != 0)` right before its nest (OpenMP's
    result is `s && ...` even when no iteration runs), so that blocks combine 0/1 values; the
    elements of a reduced section by a parallel loop over it."""
    for nest in [op for op in fn.walk() if isinstance(op, ParallelForOp)]:
        if any(isinstance(p, ParallelForOp) for p in _ancestors(nest)):
            continue
        logical = {var: None for loop in nest.walk() if isinstance(loop, ParallelForOp)
                   for kind, var in loop.reduction_list if kind.is_logical}  # fmt: skip
        builder = Builder(InsertPoint.before(nest))
        for var in logical:
            assert isa(var.type, MemRefType)
            if var.type.get_shape():
                _normalise_section(builder, nest, var)
                continue
            start = builder.insert(memref.LoadOp.get(var, [])).res
            normal = from_truth(builder, truth(builder, start), var.type.element_type)
            builder.insert(memref.StoreOp.get(normal, var, []))


def _normalise_section(builder: Builder, nest: ParallelForOp, array: SSAValue) -> None:
    """`h[lo + j] = (h[lo + j] != 0)` for the section of `array`, a parallel loop before the
    nest (its own kernel)."""
    loop = next(op for op in nest.walk()
                if isinstance(op, ParallelForOp) and array in op.reduction_vars)  # fmt: skip
    section = loop.section_of(array)
    assert section is not None
    lo, length = section
    for bound in section:
        if isinstance(bound.owner, Operation) and nest.is_ancestor(bound.owner):
            raise error_at(
                loop, f"the section of the '&&'/'||' reduction of {describe_value(array)} must "
                "be computed before the outermost parallel loop"
            )
    body = Block(arg_types=[IndexType()])
    inner = Builder(InsertPoint.at_end(body))
    element = IndexArith(inner).add(lo, body.args[0])
    value = inner.insert(memref.LoadOp.get(array, [element])).res
    assert isa(array.type, MemRefType)
    normal = from_truth(inner, truth(inner, value), array.type.element_type)
    inner.insert(memref.StoreOp.get(normal, array, [element]))
    zero, one = (builder.insert(arith.ConstantOp(IntegerAttr(v, IndexType()))).result
                 for v in (0, 1))  # fmt: skip
    builder.insert(ParallelForOp(zero, length, one, body))


def _ancestors(op: Operation):
    parent = op.parent_op()
    while parent is not None:
        yield parent
        parent = parent.parent_op()


@dataclass
class Reduction:
    """One reduced value: a scalar variable, or one element of an array reduction's private
    copy in registers (`array_reductions.py`), which `index` and `global_index` locate."""

    kind: ReductionKind
    global_memref: SSAValue  # the variable, in device memory
    private: SSAValue  # this thread's copy
    shared: SSAValue  # one element per thread of the block
    index: SSAValue | None = None  # the element of `private` (an array's copy)
    global_index: SSAValue | None = None  # the element of `global_memref`

    @property
    def private_indices(self) -> list[SSAValue]:
        return [] if self.index is None else [self.index]

    @property
    def global_indices(self) -> list[SSAValue]:
        return [] if self.global_index is None else [self.global_index]

    @property
    def element(self) -> Attribute:
        assert isa(self.private.type, MemRefType)
        return self.private.type.element_type

    def combine(self, builder: Builder, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return combine_values(builder, self.kind, lhs, rhs)

    def block_result(self, builder: Builder, total: SSAValue) -> SSAValue:
        """What the block folds into the variable: its total (0 or 1 for `&&`/`||`)."""
        if self.kind.is_logical:
            return from_truth(builder, truth(builder, total), self.element)
        return total


def combine_values(builder: Builder, kind: ReductionKind, lhs: SSAValue, rhs: SSAValue
                   ) -> SSAValue:  # fmt: skip
    """Two partial results of `kind` combined (`&&`/`||`: their truth values, as 0 or 1)."""
    op_type, _ = _ops_for(kind, lhs.type)
    if kind.is_logical:
        flags = (truth(builder, lhs), truth(builder, rhs))
        both = builder.insert(op_type(*flags)).results[0]  # pyright: ignore[reportCallIssue]
        return from_truth(builder, both, lhs.type)
    return builder.insert(op_type(lhs, rhs)).results[0]  # pyright: ignore[reportCallIssue]


def start_reduction(
    builder: Builder, kind: ReductionKind, global_memref: SSAValue, threads: int, name: str
) -> Reduction:
    """Allocates the private copy (set to the identity) and the block's shared array."""
    assert isa(global_memref.type, MemRefType)
    element = global_memref.type.element_type
    private = builder.insert(memref.AllocaOp.get(element, shape=[])).memref
    private.name_hint = f"{name}_private"
    init = builder.insert(arith.ConstantOp(identity(kind, element))).result
    builder.insert(memref.StoreOp.get(init, private, []))
    return Reduction(kind, global_memref, private, tree_array(builder, element, threads, name))


def tree_array(builder: Builder, element: Attribute, threads: int, name: str) -> SSAValue:
    """The block's shared array that combines the threads' values: one per warp for a block of
    whole warps, else one per thread (a tree)."""
    size = threads // WARP_SIZE if threads % WARP_SIZE == 0 else threads
    shared = builder.insert(
        memref.AllocaOp.get(element, shape=[size], memory_space=SHARED_MEMORY_SPACE)
    ).memref
    shared.name_hint = f"{name}_shared"
    return shared


def rmw_kind(kind: ReductionKind, element: Attribute) -> str:
    """The `memref.atomic_rmw` kind that folds partial results of `kind` (0/1 for `&&`/`||`)."""
    return _ops_for(kind, element)[1]


def replica_private(builder: Builder, red: Reduction, name: str) -> SSAValue:
    """Another private copy for one replica of an unrolled thread (set to the identity), so
    that jammed replicas never update one copy in interleaved order."""
    private = builder.insert(memref.AllocaOp.get(red.element, shape=[])).memref
    private.name_hint = f"{name}_private"
    init = builder.insert(arith.ConstantOp(identity(red.kind, red.element))).result
    builder.insert(memref.StoreOp.get(init, private, []))
    return private


def combine_replica(builder: Builder, red: Reduction, replica: SSAValue) -> None:
    """Folds a replica's private copy into the thread's (before the block tree)."""
    mine = builder.insert(memref.LoadOp.get(red.private, [])).res
    theirs = builder.insert(memref.LoadOp.get(replica, [])).res
    builder.insert(memref.StoreOp.get(red.combine(builder, mine, theirs), red.private, []))


@dataclass
class DeterministicCombine:
    """Where a kernel's blocks leave their partial results for the deterministic combine:
    `partials[r][block]` per reduction r (device memory, one element per block the grid may
    have), the count of finished blocks (a device `i32`, 0 between launches), the block's flag
    in shared memory, this block's linear index and the grid's number of blocks."""

    partials: list[SSAValue]
    done: SSAValue
    flag: SSAValue
    block: SSAValue
    blocks: SSAValue


def finish_reductions(
    builder: Builder, reductions: list[Reduction], thread: SSAValue, threads: int,
    deterministic: DeterministicCombine | None = None,
) -> None:
    """Combines the private copies of the block and folds the block's result into each
    variable: with one atomic per block, or (`deterministic`) in a fixed order by the last
    block to finish. `thread` is the linear thread index in the block, `threads` the block
    size. Every thread of the block must execute this code.

    A block of whole warps combines as CUB's `BlockReduce` (warp reductions): shuffles within
    each warp, one value per warp in shared memory, shuffles over those; any other block by a
    tree in shared memory."""
    if not reductions:
        return
    totals = block_combine(builder, reductions, thread, threads)
    if deterministic is not None:
        _combine_in_last_block(builder, reductions, thread, threads, totals, deterministic)
        return
    body = Builder(InsertPoint.at_end(Block()))
    for red, total in zip(reductions, totals(body)):
        _, kind_name = _ops_for(red.kind, red.element)
        body.insert(
            memref.AtomicRMWOp.create(
                operands=[red.block_result(body, total), red.global_memref, *red.global_indices],
                result_types=[red.element],
                properties={"kind": IntegerAttr(ATOMIC_RMW_KIND[kind_name], i64)},
            )
        )
    _if_first_thread(builder, thread, body)


def _if_first_thread(builder: Builder, thread: SSAValue, body: Builder) -> None:
    """`if (thread == 0) { <body> }`."""
    ix = IndexArith(builder)
    body.insert(scf.YieldOp())
    assert isinstance(body.insertion_point.block, Block)
    builder.insert(scf.IfOp(ix.eq(thread, ix.const(0)), [], [body.insertion_point.block]))


Totals = Callable[[Builder], Iterable[SSAValue]]
"""Reads the block's total of each reduction where thread 0 uses it (a builder there)."""


def block_combine(
    builder: Builder, reductions: list[Reduction], thread: SSAValue, threads: int
) -> Totals:
    """The block's combination of each reduction's private copies, valid in thread 0."""
    if threads % WARP_SIZE == 0:
        totals = block_combine_by_warps(builder, reductions, thread, threads)
        return lambda _: totals
    return _block_combine_by_tree(builder, reductions, thread, threads)


def _combine_in_last_block(
    builder: Builder, reductions: list[Reduction], thread: SSAValue, threads: int,
    totals: Totals, det: DeterministicCombine,
) -> None:
    """CUB's single-pass deterministic reduction (CUDA's `threadFenceReduction` sample): thread
    0 writes the block's totals to `partials[block]`, fences, and counts the block finished; the
    block that counts last combines `partials[0 .. blocks)` (thread t the elements t, t + threads,
    ..., then the block combine), folds that into each variable with plain loads and stores
    (no other block touches it) and sets the count back to 0 for the next launch. The order of
    every combination is fixed by the grid and block sizes alone, so a floating-point result is
    the same bit for bit whatever order the blocks run in."""
    i32_type = IntegerType(32)
    body = Builder(InsertPoint.at_end(Block()))
    for total, partials in zip(totals(body), det.partials):
        body.insert(memref.StoreOp.get(total, partials, [det.block]))
    body.insert(ThreadFenceOp())
    one = body.insert(arith.ConstantOp(IntegerAttr(1, i32_type))).result
    before = body.insert(
        memref.AtomicRMWOp.create(
            operands=[one, det.done], result_types=[i32_type],
            properties={"kind": IntegerAttr(ATOMIC_RMW_KIND["addi"], i64)},
        )
    ).results[0]
    before.name_hint = "finished_before"
    ib = IndexArith(body)
    last = ib.eq(ib.cast(before), ib.sub(det.blocks, ib.const(1)), "last_block")
    flag = body.insert(arith.ExtUIOp(last, i32_type)).result
    body.insert(memref.StoreOp.get(flag, det.flag, [ib.const(0)]))
    _if_first_thread(builder, thread, body)
    builder.insert(gpu.BarrierOp())
    ix = IndexArith(builder)
    is_last = ix.cast(builder.insert(memref.LoadOp.get(det.flag, [ix.const(0)])).res)
    last_block = Builder(InsertPoint.at_end(Block()))
    _combine_partials(last_block, reductions, thread, threads, det)
    last_block.insert(scf.YieldOp())
    assert isinstance(last_block.insertion_point.block, Block)
    builder.insert(scf.IfOp(ix.eq(is_last, ix.const(1)), [], [last_block.insertion_point.block]))


def _combine_partials(
    builder: Builder, reductions: list[Reduction], thread: SSAValue, threads: int,
    det: DeterministicCombine,
) -> None:
    """The last block's work: every thread folds its share of the partials into its private
    copy (reset to the identity), the block combines them, and thread 0 folds the result into
    each variable and resets the count."""
    for red in reductions:
        init = builder.insert(arith.ConstantOp(identity(red.kind, red.element))).result
        builder.insert(memref.StoreOp.get(init, red.private, red.private_indices))
    ix = IndexArith(builder)
    loop = Block(arg_types=[IndexType()])
    loop.args[0].name_hint = "partial"
    inner = Builder(InsertPoint.at_end(loop))
    for red, partials in zip(reductions, det.partials):
        mine = inner.insert(memref.LoadOp.get(red.private, red.private_indices)).res
        theirs = inner.insert(memref.LoadOp.get(partials, [loop.args[0]])).res
        inner.insert(memref.StoreOp.get(red.combine(inner, mine, theirs), red.private,
                                        red.private_indices))
    inner.insert(scf.YieldOp())
    builder.insert(scf.ForOp(thread, det.blocks, ix.const(threads), [], loop))
    totals = block_combine(builder, reductions, thread, threads)
    body = Builder(InsertPoint.at_end(Block()))
    for red, total in zip(reductions, totals(body)):
        old = body.insert(memref.LoadOp.get(red.global_memref, red.global_indices)).res
        new = red.combine(body, old, red.block_result(body, total))
        body.insert(memref.StoreOp.get(new, red.global_memref, red.global_indices))
    zero = body.insert(arith.ConstantOp(IntegerAttr(0, IntegerType(32)))).result
    body.insert(memref.StoreOp.get(zero, det.done, []))
    _if_first_thread(builder, thread, body)


def _private_values(builder: Builder, reductions: list[Reduction]) -> list[SSAValue]:
    return [builder.insert(memref.LoadOp.get(red.private, red.private_indices)).res
            for red in reductions]  # fmt: skip


def warp_combine(
    builder: Builder, reductions: list[Reduction], values: list[SSAValue], lanes: int
) -> list[SSAValue]:
    """Shuffle-down steps over the first `lanes` lanes of each warp (offsets lanes/2 ... 1,
    lanes a power of two): lane 0 ends with the combination of those lanes' values, in a fixed
    order. Every thread of the warp must execute it."""
    offset = lanes >> 1
    while offset >= 1:
        values = [red.combine(builder, value, builder.insert(ShuffleDownOp(value, offset)).result)
                  for red, value in zip(reductions, values)]  # fmt: skip
        offset >>= 1
    return values


def block_combine_by_warps(
    builder: Builder, reductions: list[Reduction], thread: SSAValue, threads: int
) -> list[SSAValue]:
    """The block's total of each reduction, valid in thread 0 (`threads` a multiple of 32):
    each warp combines its lanes by shuffles, lane 0 stores the warp's value in the reduction's
    `shared` array (one element per warp), and after a barrier every warp combines those values
    (lanes past the number of warps holding the identity) by shuffles again."""
    values = warp_combine(builder, reductions, _private_values(builder, reductions), WARP_SIZE)
    warps = threads // WARP_SIZE
    if warps == 1:
        return values
    ix = IndexArith(builder)
    lane = ix.rem(thread, ix.const(WARP_SIZE), "lane")
    body = Builder(InsertPoint.at_end(Block()))
    warp = IndexArith(body).div(thread, IndexArith(body).const(WARP_SIZE), "warp")
    for red, value in zip(reductions, values):
        body.insert(memref.StoreOp.get(value, red.shared, [warp]))
    body.insert(scf.YieldOp())
    assert isinstance(body.insertion_point.block, Block)
    builder.insert(scf.IfOp(ix.eq(lane, ix.const(0)), [], [body.insertion_point.block]))
    builder.insert(gpu.BarrierOp())
    has_warp = ix.lt(lane, ix.const(warps))
    slot = ix.rem(lane, ix.const(warps))  # in bounds for every lane; used where has_warp
    partials: list[SSAValue] = []
    for red in reductions:
        stored = builder.insert(memref.LoadOp.get(red.shared, [slot])).res
        none = builder.insert(arith.ConstantOp(identity(red.kind, red.element))).result
        partials.append(builder.insert(arith.SelectOp(has_warp, stored, none)).result)
    return warp_combine(builder, reductions, partials, 1 << (warps - 1).bit_length())


def _block_combine_by_tree(
    builder: Builder, reductions: list[Reduction], thread: SSAValue, threads: int
) -> Totals:
    """The block's total of each reduction, in element 0 of its `shared` array: a tree over
    that array of one element per thread, a barrier after each step."""
    ix = IndexArith(builder)
    for red in reductions:
        value = builder.insert(memref.LoadOp.get(red.private, red.private_indices)).res
        builder.insert(memref.StoreOp.get(value, red.shared, [thread]))
    builder.insert(gpu.BarrierOp())
    stride = 1 << max(threads - 1, 0).bit_length() >> 1  # largest power of two < threads
    while stride >= 1:
        # threads t < stride with t + stride < threads fold in their partner's value
        active = ix.lt(thread, ix.const(min(stride, threads - stride)))
        body = Builder(InsertPoint.at_end(Block()))
        # thread + stride < 2 * 1024 threads: fits
        partner = IndexArith(body, nsw=True).add(thread, IndexArith(body).const(stride))
        for red in reductions:
            mine = body.insert(memref.LoadOp.get(red.shared, [thread])).res
            theirs = body.insert(memref.LoadOp.get(red.shared, [partner])).res
            body.insert(memref.StoreOp.get(red.combine(body, mine, theirs), red.shared, [thread]))
        body.insert(scf.YieldOp())
        assert isinstance(body.insertion_point.block, Block)
        builder.insert(scf.IfOp(active, [], [body.insertion_point.block]))
        builder.insert(gpu.BarrierOp())
        stride >>= 1

    def read(body: Builder) -> Iterator[SSAValue]:
        """Each total loaded as its user asks for it, so that loads and uses interleave."""
        zero = IndexArith(body).const(0)
        for red in reductions:
            yield body.insert(memref.LoadOp.get(red.shared, [zero])).res

    return read
