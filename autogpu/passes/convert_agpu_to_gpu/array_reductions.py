"""Array reductions (`reduction(op: h[lo:len])`) in a kernel: where a thread's partial results
live, chosen by the section's size (as the OMPi thesis and later work do).

The frontend makes every update of a reduced element one atomic update of `h[k]`
(`memref.atomic_rmw`, or `agpu.atomic_update` where MLIR has no kind for C's update), which is a
correct parallel loop as it stands. A strategy moves those updates to a copy:
- `registers` (a constant section of at most `REGISTER_ELEMENTS`, or `MAX_REGISTER_ELEMENTS`
  when asked for): each thread's private array `T h_private[len]`, set to the operator's
  identity; an update is a plain read-modify-write of `h_private[k - lo]` (the atomic expanded
  in place, so the jammed replicas of a thread update it in turn); after the loop each thread
  folds its copy into the block's shared copy, which is merged as below;
- `shared` (a constant section whose copy fits `SHARED_BUDGET` bytes): the block's
  `__shared__ T h_shared[len]`, set to the identity by the block's threads (a barrier), updated
  with shared-memory atomics (CAS loops where CUDA has no atomic); after the loop (a barrier),
  the threads fold each element into `h[lo + j]` with one global atomic per element and block
  (integer elements still at the identity are skipped);
- `global`: the atomics on `h` stay as they are;
- `partials` (asked for; any length): each block's copy is its own row of a scratch buffer of
  the call (`partials[block * len + j]`, docs/ir.md `scratch`), set to the identity by the
  block, updated with global atomics that only the block's threads contend for; a second kernel
  (`combine_partials`, launched on the same grid) folds the rows into `h[lo + j]` in block
  order, one thread per element. The grid is bounded (`PARTIAL_ROWS`, grid-stride loops) so
  that the scratch holds `rows * len` elements.
`auto` takes the first of registers, shared and global that fits; an asked-for strategy that
cannot hold the section falls back to the next one.

A parameter-length section (`h[0:K]`, a whole `int h[K]`) gets the `shared` strategy in dynamic
`__shared__` memory (`auto`, `registers` and `shared`; the first such section of a kernel, after
the constant ones took their part of the budget): the kernel tests `K <= cap` (`cap` the
elements the rest of `SHARED_BUDGET` holds), a condition every thread of the grid computes
alike, and takes the copy where it holds, the array's own atomics (`global`) where it does not;
the host computes the launch's dynamic shared bytes from the same K, `K * sizeof(T)` or 0
(`dynamic_shared_bytes`), so a section too large for the copy costs no shared memory.

An update outside the section (`k - lo` not below `len`, compared unsigned) is applied to `h[k]`
with its atomic, as the `global` strategy and the serial loop apply it: OpenMP leaves it
undefined, and a copy is never written out of its bounds. `&&`/`||`: the elements are set to
`h[j] != 0` by a parallel loop before the nest (`normalise_logical_starts`), so that copies and
elements combine 0/1 values with `and`/`or` (`fmin`/`fmax` for floating point). Every block
folds its copy, so each element of the section is combined once with every iteration's update.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, gpu, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    i64,
)
from xdsl.dialects.gpu import DimensionEnum
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.hints import isa

from autogpu.dialects.agpu import ReductionKind
from autogpu.dialects.agpu_sync import AtomicUpdateOp, AtomicYieldOp
from autogpu.passes.convert_agpu_to_gpu.coverage import known_int
from autogpu.passes.convert_agpu_to_gpu.reductions import (
    ATOMIC_RMW_KIND,
    SHARED_MEMORY_SPACE,
    combine_values,
    identity,
    rmw_kind,
)
from autogpu.passes.utils.index_arith import IndexArith
from autogpu.target.cuda_atomics import ATOMIC_KINDS

STRATEGIES = ("auto", "registers", "shared", "global", "partials")
PARTIAL_ROWS = 264
"""The most blocks along x of a kernel with per-block partials (2 waves of 132 SMs); y and z get
one block row: the scratch has a row per block."""
REGISTER_ELEMENTS = 8
"""`auto` keeps sections of at most this many elements in registers."""
MAX_REGISTER_ELEMENTS = 64
"""The most elements `registers` keeps per thread when asked for."""
SHARED_BUDGET = 32 * 1024
"""Bytes of `__shared__` copies per block (CUDA's static limit is 48 KiB; tiles of
gpu-cache-shared need the rest)."""

_COMBINE: dict[str, Callable[[SSAValue, SSAValue], Operation]] = {
    "addf": arith.AddfOp, "addi": arith.AddiOp, "mulf": arith.MulfOp, "muli": arith.MuliOp,
    "andi": arith.AndIOp, "ori": arith.OrIOp, "xori": arith.XOrIOp,
    "mins": arith.MinSIOp, "maxs": arith.MaxSIOp, "minu": arith.MinUIOp, "maxu": arith.MaxUIOp,
    "minnumf": arith.MinnumfOp, "maxnumf": arith.MaxnumfOp,
}  # fmt: skip
"""The arith op of each `memref.atomic_rmw` kind the frontend emits for a reduction update."""


@dataclass
class ArrayReduction:
    """One reduced section in a kernel: `array[lo : lo + length]` and where its copies live."""

    kind: ReductionKind
    array: SSAValue  # the kernel's argument
    lo: SSAValue  # index
    length: SSAValue  # index
    strategy: str  # "registers", "shared", "global" or "partials"
    shared: SSAValue | None = None  # the block's copy
    row: SSAValue | None = None  # partials: the first element of the block's row in `shared`
    private: SSAValue | None = None  # the thread's copy (registers)
    fits: SSAValue | None = None  # i1: a dynamic copy holds the section (`K <= cap`)

    @property
    def element(self) -> Attribute:
        assert isa(self.array.type, MemRefType)
        return self.array.type.element_type


@dataclass(frozen=True)
class Placement:
    """Where one section's copies live: a strategy and, for a parameter-length section in
    dynamic shared memory, the most elements its copy may have (`K <= cap` at run time)."""

    strategy: str
    cap: int | None = None


def place_sections(asked: str, sections: list[tuple[int | None, int]]) -> list[Placement]:
    """The placement of each section given (constant length or None, element bytes): the
    constant sections in order (as `choose_strategy`), then the first parameter-length one in
    dynamic shared memory with the budget they leave. The kernel and the host's launch size
    both ask this, so they agree."""
    if asked == "partials":
        return [Placement("partials") for _ in sections]
    placements: list[Placement] = []
    used = 0
    for length, size in sections:
        strategy = choose_strategy(asked, length, size, used)
        if strategy != "global" and length is not None:
            used += length * size
        placements.append(Placement(strategy))
    for k, (length, size) in enumerate(sections):
        if length is None and asked != "global" and (SHARED_BUDGET - used) // size > 0:
            placements[k] = Placement("shared", (SHARED_BUDGET - used) // size)
            break
    return placements


def partial_grid_limit(asked: str, sections: int, dim: DimensionEnum,
                       limit: int | None) -> int | None:  # fmt: skip
    """`limit` on the blocks along `dim`, bounded for a kernel with per-block partials (a row
    of the scratch per block): `PARTIAL_ROWS` on x, one on y and z."""
    if asked != "partials" or not sections:
        return limit
    bound = PARTIAL_ROWS if dim == DimensionEnum.X else 1
    return bound if limit is None else min(limit, bound)


def dynamic_shared_section(asked: str, sections: list[tuple[int | None, int]]
                           ) -> tuple[int, int, int] | None:  # fmt: skip
    """(position, cap, element bytes) of the section a kernel keeps in dynamic shared memory."""
    for k, placement in enumerate(place_sections(asked, sections)):
        if placement.cap is not None:
            return k, placement.cap, sections[k][1]
    return None


def choose_strategy(asked: str, length: int | None, element_bytes: int, used_bytes: int) -> str:
    """The strategy for a constant section of `length` elements (None: not a constant, for which
    `place_sections` decides), `used_bytes` of the shared budget being taken by the kernel's
    other copies."""
    if length is None:
        return "global"
    limit = REGISTER_ELEMENTS if asked == "auto" else MAX_REGISTER_ELEMENTS
    fits_shared = used_bytes + length * element_bytes <= SHARED_BUDGET
    if asked in ("auto", "registers") and length <= limit and fits_shared:
        return "registers"
    if asked in ("auto", "registers", "shared") and fits_shared:
        return "shared"
    return "global"


def start_array_reductions(builder: Builder, sections: list[tuple[ReductionKind, SSAValue,
                           SSAValue, SSAValue]], asked: str, thread: Callable[[], SSAValue],
                           threads: int, partials: Callable[[], tuple[list[SSAValue], SSAValue]]
                           | None = None) -> list[ArrayReduction]:  # fmt: skip
    """Allocates each section's copies, set to the identity (`thread()` is the linear thread
    index, made on demand; `partials()` the kernel's scratch buffers, one per section, and the
    block's linear index); a barrier ends the copies' initialisation."""
    reductions = [ArrayReduction(kind, array, lo, length, "global")
                  for kind, array, lo, length in sections]  # fmt: skip
    placements = place_sections(
        asked, [(known_int(red.length), element_bytes(red.element)) for red in reductions])
    if any(p.strategy == "partials" for p in placements):
        assert partials is not None
        buffers, block = partials()
        for red, buffer in zip(reductions, buffers):
            red.strategy, red.shared = "partials", buffer
            red.row = IndexArith(builder).mul(block, red.length, "row")
            _loop(builder, thread(), red.length, IndexArith(builder).const(threads),
                  lambda body, j, red=red: _store_identity(
                      body, red, red.shared, IndexArith(body).add(_row(red), j)))
        builder.insert(gpu.BarrierOp())
        return reductions
    for red, placement in zip(reductions, placements):
        red.strategy = placement.strategy
        if red.strategy == "global":
            continue
        name = red.array.name_hint or "array"
        if placement.cap is not None:
            _start_dynamic_copy(builder, red, placement.cap, thread(), threads)
            continue
        count = known_int(red.length)
        assert count is not None
        red.shared = builder.insert(memref.AllocaOp.get(
            red.element, shape=[count], memory_space=SHARED_MEMORY_SPACE)).memref  # fmt: skip
        red.shared.name_hint = f"{name}_shared"
        _block_loop(builder, thread(), count, threads,
                    lambda body, j, red=red: _store_identity(body, red, red.shared, j))  # fmt: skip
        if red.strategy == "registers":
            red.private = builder.insert(memref.AllocaOp.get(red.element, shape=[count])).memref
            red.private.name_hint = f"{name}_private"
            _counted_loop(builder, count,
                          lambda body, j, red=red: _store_identity(body, red, red.private, j))
    if any(red.shared is not None for red in reductions):
        builder.insert(gpu.BarrierOp())
    return reductions


def _start_dynamic_copy(builder: Builder, red: ArrayReduction, cap: int, thread: SSAValue,
                        threads: int) -> None:  # fmt: skip
    """`fits = K <= cap` (unsigned) and, where it holds, the block's copy in dynamic shared
    memory (`memref<?xT>` of K elements) set to the identity."""
    ix = IndexArith(builder)
    red.fits = builder.insert(arith.CmpiOp(red.length, ix.const(cap), "ule")).result
    red.fits.name_hint = "fits_shared"
    red.shared = builder.insert(memref.AllocaOp.get(
        red.element, shape=[DYNAMIC_INDEX], dynamic_sizes=[red.length],
        memory_space=SHARED_MEMORY_SPACE)).memref  # fmt: skip
    red.shared.name_hint = f"{red.array.name_hint or 'array'}_shared"
    _if(builder, red.fits, lambda body: _loop(
        body, thread, red.length, IndexArith(body).const(threads),
        lambda inner, j: _store_identity(inner, red, red.shared, j)))


def redirect_updates(kernel: Operation, reductions: list[ArrayReduction]) -> None:
    """Moves every atomic update of a reduced array in `kernel` to its copy (kept on the
    array for `global`), guarded by the section's bounds."""
    copied = {red.array: red for red in reductions if red.strategy != "global"}
    updates = [op for op in kernel.walk()
               if isinstance(op, memref.AtomicRMWOp | AtomicUpdateOp) and op.memref in copied]
    for op in updates:
        _redirect(op, copied[op.memref])


def finish_array_reductions(builder: Builder, reductions: list[ArrayReduction],
                            thread: Callable[[], SSAValue], threads: int) -> None:  # fmt: skip
    """Folds each thread's private copy into the block's, then (after a barrier) the block's
    into the array: one atomic per element and block. Every thread of the block runs this."""
    copied = [red for red in reductions if red.shared is not None and red.row is None]
    if not copied:
        return  # (partials: the combine kernel folds the rows)
    for red in copied:
        private = red.private
        if private is not None:
            count = known_int(red.length)
            assert count is not None
            _counted_loop(builder, count, lambda body, j, red=red, private=private: _fold(
                body, red, body.insert(memref.LoadOp.get(private, [j])).res, red.shared, j))
    builder.insert(gpu.BarrierOp())
    for red in copied:

        def merge(body: Builder, j: SSAValue, red: ArrayReduction = red) -> None:
            assert red.shared is not None
            value = body.insert(memref.LoadOp.get(red.shared, [j])).res
            element = IndexArith(body).add(red.lo, j)
            _fold(body, red, value, red.array, element, skip_identity=True)

        if red.fits is not None:
            _if(builder, red.fits, lambda body, red=red, merge=merge: _loop(
                body, thread(), red.length, IndexArith(body).const(threads), merge))
            continue
        count = known_int(red.length)
        assert count is not None
        _block_loop(builder, thread(), count, threads, merge)


def combine_partials(builder: Builder, sections: list[tuple[ReductionKind, SSAValue, SSAValue,
                     SSAValue]], buffers: list[SSAValue], thread: SSAValue, threads: SSAValue,
                     rows: SSAValue) -> None:  # fmt: skip
    """The second kernel of `partials`: thread `thread` of `threads` (the grid's) folds, for
    each element j it covers, `h[lo + j] op rows[0][j] op rows[1][j] ...` in row order and
    stores it: a fixed order, whatever order the first kernel's blocks ran in."""
    for (kind, array, lo, length), buffer in zip(sections, buffers):
        red = ArrayReduction(kind, array, lo, length, "partials", buffer)

        def element(body: Builder, j: SSAValue, red: ArrayReduction = red,
                    buffer: SSAValue = buffer) -> None:  # fmt: skip
            ix = IndexArith(body)
            at = ix.add(red.lo, j)
            total = body.insert(memref.LoadOp.get(red.array, [at])).res
            block = Block(arg_types=[IndexType(), red.element])
            block.args[0].name_hint, block.args[1].name_hint = "r", "total"
            inner = Builder(InsertPoint.at_end(block))
            ii = IndexArith(inner)
            value = inner.insert(memref.LoadOp.get(
                buffer, [ii.add(ii.mul(block.args[0], red.length), j)])).res  # fmt: skip
            inner.insert(scf.YieldOp(combine_values(inner, red.kind, block.args[1], value)))
            loop = body.insert(scf.ForOp(ix.const(0), rows, ix.const(1), [total], block))
            body.insert(memref.StoreOp.get(loop.results[0], red.array, [at]))

        _loop(builder, thread, length, threads, element)


# ---- pieces -----------------------------------------------------------------------------------


def _row(red: ArrayReduction) -> SSAValue:
    assert red.row is not None
    return red.row


def element_bytes(element: Attribute) -> int:
    if isinstance(element, AnyFloat):
        return max(element.bitwidth // 8, 1)
    assert isa(element, IntegerType)
    width = element.width.data
    return max(width // 8, 1)


def _store_identity(body: Builder, red: ArrayReduction, copy: SSAValue | None,
                    j: SSAValue) -> None:  # fmt: skip
    assert copy is not None
    value = body.insert(arith.ConstantOp(identity(red.kind, red.element))).result
    body.insert(memref.StoreOp.get(value, copy, [j]))


def _fold(body: Builder, red: ArrayReduction, value: SSAValue, target: SSAValue | None,
          index: SSAValue, skip_identity: bool = False) -> None:  # fmt: skip
    """`target[index] op= value` with one atomic (integers at the identity skipped if asked)."""
    assert target is not None
    kind = rmw_kind(red.kind, red.element)
    atomic = memref.AtomicRMWOp.create(
        operands=[value, target, index], result_types=[red.element],
        properties={"kind": IntegerAttr(ATOMIC_RMW_KIND[kind], i64)},
    )  # fmt: skip
    if not skip_identity or isinstance(red.element, AnyFloat):
        body.insert(atomic)
        return
    start = body.insert(arith.ConstantOp(identity(red.kind, red.element))).result
    changed = body.insert(arith.CmpiOp(value, start, "ne")).result
    then = Builder(InsertPoint.at_end(Block()))
    then.insert(atomic)
    then.insert(scf.YieldOp())
    assert isinstance(then.insertion_point.block, Block)
    body.insert(scf.IfOp(changed, [], [then.insertion_point.block]))


def _if(builder: Builder, cond: SSAValue, body: Callable[[Builder], None]) -> None:
    """`if (cond) body`."""
    then = Builder(InsertPoint.at_end(Block()))
    body(then)
    then.insert(scf.YieldOp())
    assert isinstance(then.insertion_point.block, Block)
    builder.insert(scf.IfOp(cond, [], [then.insertion_point.block]))


def _block_loop(builder: Builder, thread: SSAValue, count: int, threads: int,
                body: Callable[[Builder, SSAValue], None]) -> None:  # fmt: skip
    """`for (j = thread; j < count; j += threads) body(j)`: the block's threads share it."""
    ix = IndexArith(builder)
    _loop(builder, thread, ix.const(count), ix.const(threads), body)


def _counted_loop(builder: Builder, count: int, body: Callable[[Builder, SSAValue], None]) -> None:
    ix = IndexArith(builder)
    _loop(builder, ix.const(0), ix.const(count), ix.const(1), body)


def _loop(builder: Builder, lb: SSAValue, ub: SSAValue, step: SSAValue,
          body: Callable[[Builder, SSAValue], None]) -> None:  # fmt: skip
    block = Block(arg_types=[IndexType()])
    block.args[0].name_hint = "j"
    inner = Builder(InsertPoint.at_end(block))
    body(inner, block.args[0])
    inner.insert(scf.YieldOp())
    builder.insert(scf.ForOp(lb, ub, step, [], block))


def _redirect(op: memref.AtomicRMWOp | AtomicUpdateOp, red: ArrayReduction) -> None:
    """`if ((unsigned)(k - lo) < len) <update of the copy at k - lo> else <op as it is>`."""
    assert not op.results[0].uses, "a reduction update's old value is never used"
    (index,) = op.indices
    before = Builder(InsertPoint.before(op))
    ix = IndexArith(before)
    offset = ix.sub(index, red.lo, "offset")
    known, length = known_int(offset), known_int(red.length)
    inside = Builder(InsertPoint.at_end(Block()))
    _update_copy(inside, op, red, offset)
    if known is not None and length is not None and 0 <= known < length:
        for moved in list(inside.insertion_point.block.ops):
            moved.detach()
            before.insert(moved)
        Rewriter.erase_op(op)
        return
    in_section = before.insert(arith.CmpiOp(offset, red.length, "ult")).result
    if red.fits is not None:  # a dynamic copy: only where it holds the section
        in_section = before.insert(arith.AndIOp(red.fits, in_section)).result
    in_section.name_hint = "in_section"
    inside.insert(scf.YieldOp())
    outside = Block()
    assert isinstance(inside.insertion_point.block, Block)
    before.insert(scf.IfOp(in_section, [], [inside.insertion_point.block], [outside]))
    op.detach()
    outside.add_op(op)
    outside.add_op(scf.YieldOp())


def _update_copy(builder: Builder, op: memref.AtomicRMWOp | AtomicUpdateOp, red: ArrayReduction,
                 offset: SSAValue) -> None:  # fmt: skip
    """The update `op` makes, applied to the copy at `offset`: an atomic on the block's shared
    copy, a plain read-modify-write of the thread's private one."""
    if red.row is not None:  # partials: the block's row
        offset = IndexArith(builder).add(red.row, offset)
    if red.private is None:
        assert red.shared is not None
        if isinstance(op, memref.AtomicRMWOp):
            builder.insert(memref.AtomicRMWOp.create(
                operands=[op.value, red.shared, offset], result_types=[red.element],
                properties={"kind": op.kind}))  # fmt: skip
        else:
            builder.insert(AtomicUpdateOp(red.shared, [offset], op.body.clone()))
        return
    current = builder.insert(memref.LoadOp.get(red.private, [offset])).res
    if isinstance(op, memref.AtomicRMWOp):
        kind = ATOMIC_KINDS[op.kind.value.data]
        new = builder.insert(_COMBINE[kind](current, op.value)).results[0]
    else:
        block = op.body.block
        mapping: dict[SSAValue, SSAValue] = {block.args[0]: current}
        new = current
        for inner in block.ops:
            if isinstance(inner, AtomicYieldOp):
                new = mapping.get(inner.operands[0], inner.operands[0])
                continue
            clone = builder.insert(inner.clone(value_mapper=mapping))
            for old, fresh in zip(inner.results, clone.results):
                mapping[old] = fresh
    builder.insert(memref.StoreOp.get(new, red.private, [offset]))
