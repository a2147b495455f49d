"""`gpu-pipeline-tiles`: double-buffered shared tiles, one barrier per tile.

gpu-cache-shared leaves each loop over tiles of a serial loop as

    for kt:  fill the shared tiles of kt;  barrier;  compute on them;  barrier

so every tile's global loads are waited for with no arithmetic to hide them, and each tile
costs two barriers. With `stages=2` every tile array gets two buffers and the loop becomes

    if (lb < ub) fill tile lb into buffer 0;  barrier
    for kt:  s = (kt - lb) / step % 2
             issue the global loads of tile kt + step into registers   (whole tiles)
             compute on buffer s
             if (kt + step < ub) store them (or fill a ragged tile) into buffer 1 - s
             barrier

The one barrier is enough: the fill of buffer 1 - s in iteration t comes after every thread
passed the barrier that ended iteration t - 1, the last to read that buffer, and the compute
of iteration t + 1 after the barrier that follows the fill. A fill versioned on whole tiles
(`scf.if whole { straight-line loads and shared stores } else { ragged copy }`) has its loads
issued before the compute into registers (their latency hidden by it), the ragged version and
any other fill runs whole after the compute, guards kept. Loads move before the compute only
where the compute stores to nothing but private (alloca) arrays the fill does not read.

`async_copy` (with stages=2) issues a whole-tile fill that only copies elements as `cp.async`
(`agpu.async_copy`, one per element, straight into buffer 1 - s: no register held across the
compute), keeps only its ragged version after the compute, and waits for the thread's copies
(`agpu.async_wait`) right before the barrier, which then shows them to every thread.

`swizzle` permutes the 16-byte chunks of an unpadded tile read by 16-byte vector loads: the
element at index i moves to i ^ ((i & 8c) / 8), c the elements of a chunk (chunk bit 0 XOR
chunk bit 3). Blocked fragments of 8 floats per thread read float4s 32 bytes apart, so the 8
threads of one phase of an LDS.128 meet every bank twice (thread t and t + 4); swizzled, they
meet each once. The permutation keeps every aligned chunk whole (vector accesses stay
vectors) and maps each 256-byte block onto itself (the array's size is a multiple of it).

A loop qualifies when its body is exactly: fill ops (writing the tile arrays, reading none of
them), a barrier, compute ops (reading the tile arrays, writing none of them, no barrier), a
barrier; the tile arrays are `__shared__` rank-1 allocas used only there; and the doubled
arrays stay within `shared_budget` bytes. Other loops are left as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, gpu, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free
from xdsl.utils.hints import isa

from autogpu.dialects.agpu_vector import (
    ALIGN_ATTR,
    AsyncCopyOp,
    AsyncWaitOp,
    VectorLoadOp,
    VectorStoreOp,
)
from autogpu.passes.gpu_cache_shared.footprint import element_bytes
from autogpu.passes.gpu_vectorize import shared_alloca
from autogpu.passes.options import (
    DeclaredOptionsPass,
    at_least,
    device_shared,
    one_of_ints,
    option,
)

Access = memref.LoadOp | memref.StoreOp | VectorLoadOp | VectorStoreOp


def _pure(op: Operation) -> bool:
    return not op.regions and is_side_effect_free(op)


def _accesses(ops: Iterable[Operation]) -> Iterable[Access]:
    for top in ops:
        for op in top.walk():
            if isinstance(op, Access):
                yield op


def _is_store(op: Access) -> bool:
    return isinstance(op, memref.StoreOp | VectorStoreOp)


def _index(op: Access) -> SSAValue:
    return op.index if isinstance(op, VectorLoadOp | VectorStoreOp) else op.indices[0]


def _set_index(op: Access, value: SSAValue) -> None:
    """The index is the last operand of every access (all arrays here are rank 1)."""
    op.operands = (*op.operands[:-1], value)


@dataclass
class _TileLoop:
    loop: scf.ForOp
    fill: list[Operation]
    first_barrier: Operation
    compute: list[Operation]
    last_barrier: Operation
    arrays: dict[SSAValue, memref.AllocaOp]
    hoist_loads: bool


def _tile_loop(loop: scf.ForOp) -> _TileLoop | None:
    """`loop` as fill / barrier / compute / barrier over shared tile arrays, else None."""
    ops = list(loop.body.block.ops)[:-1]  # without the yield
    barriers = [i for i, op in enumerate(ops) if isinstance(op, gpu.BarrierOp)]
    if loop.body.block.args[1:] or len(barriers) != 2 or barriers[1] != len(ops) - 1:
        return None
    fill, compute = ops[:barriers[0]], ops[barriers[0] + 1:barriers[1]]
    if not compute or any(isinstance(inner, gpu.BarrierOp)
                          for op in fill + compute for inner in op.walk()):
        return None
    if any(op.results for op in fill if not _pure(op)):
        return None  # a fill's results would outlive the fill
    arrays: dict[SSAValue, memref.AllocaOp] = {}
    for access in _accesses(fill):
        alloca = shared_alloca(access.memref)
        if alloca is None:
            continue
        if not _is_store(access):
            return None  # the fill reads a shared array
        arrays[access.memref] = alloca
    if not arrays:
        return None
    body = set(fill) | set(compute)
    for array in arrays:
        for use in array.uses:
            user = use.operation
            if not isinstance(user, Access) or user.memref is not array:
                return None
            top = user
            while top.parent_op() is not loop:
                parent = top.parent_op()
                if parent is None:
                    return None
                top = parent
            if top not in body:
                return None
            if top in compute and _is_store(user):
                return None  # the compute writes a tile
    fill_reads = {access.memref for access in _accesses(fill) if not _is_store(access)}
    compute_stores = [access for access in _accesses(compute) if _is_store(access)]
    hoist = all(isinstance(store.memref.owner, memref.AllocaOp)
                and store.memref not in fill_reads for store in compute_stores)
    hoist = hoist and not any(not _pure(inner) and not isinstance(inner, Access | scf.IfOp
                                                                   | scf.ForOp | scf.YieldOp)
                              for op in compute for inner in op.walk())
    return _TileLoop(loop, fill, ops[barriers[0]], compute, ops[barriers[1]], arrays, hoist)


def _splittable(op: Operation) -> bool:
    """A fill versioned on whole tiles: `scf.if` whose then-block is straight-line loads of
    non-shared arrays, pure ops and stores to shared arrays."""
    if not isinstance(op, scf.IfOp) or op.results:
        return False
    block = op.true_region.block
    for inner in block.ops:
        if isinstance(inner, scf.YieldOp) or _pure(inner):
            continue
        if isinstance(inner, memref.LoadOp | VectorLoadOp) and shared_alloca(inner.memref) is None:
            continue
        if isinstance(inner, memref.StoreOp | VectorStoreOp) \
                and shared_alloca(inner.memref) is not None:
            continue
        return False
    return True


def _copies_elements(op: scf.IfOp) -> bool:
    """Whether `op`'s whole-tile version stores only elements loaded, unchanged, from rank-1
    arrays, each load used by those stores alone: a copy `cp.async` can make element by
    element."""
    stored: set[SSAValue] = set()
    for inner in op.true_region.block.ops:
        if isinstance(inner, memref.StoreOp):
            stored.add(inner.value)
        elif isinstance(inner, VectorStoreOp):
            stored.update(inner.values)
    for inner in op.true_region.block.ops:
        if isinstance(inner, VectorLoadOp):
            return False
        if isinstance(inner, memref.LoadOp):
            if len(inner.indices) != 1 or inner.res not in stored or any(
                    not isinstance(use.operation, memref.StoreOp | VectorStoreOp)
                    for use in inner.res.uses):
                return False
    return all(isinstance(value.owner, memref.LoadOp) and value.owner.parent is
               op.true_region.block and element_bytes(value.owner.memref) in (4, 8)
               for value in stored)


def _zero(type: Attribute) -> Operation:
    if isinstance(type, AnyFloat):
        return arith.ConstantOp(FloatAttr(0.0, type))
    assert isa(type, IntegerType | IndexType)
    return arith.ConstantOp(IntegerAttr(0, type))


class _Pipeliner:
    def __init__(self, tile: _TileLoop, strides: dict[SSAValue, int], async_copy: bool = False):
        self.tile = tile
        self.strides = strides
        self.async_copy = async_copy

    def _offset(self, ops: Iterable[Operation], stage: SSAValue | None) -> None:
        """Moves every access of a tile array in `ops` to buffer `stage` (None: buffer 0)."""
        if stage is None:
            return
        for access in list(_accesses(ops)):
            stride = self.strides.get(access.memref)
            if stride is None:
                continue
            size = arith.ConstantOp(IntegerAttr(stride, IndexType()))
            base = arith.MuliOp(stage, size)
            index = arith.AddiOp(_index(access), base)
            Rewriter.insert_op([size, base, index], InsertPoint.before(access))
            _set_index(access, index.result)

    def _clone_into(self, ops: Sequence[Operation], block: Block, mapping: dict[SSAValue, SSAValue],
                    stage: SSAValue | None) -> None:
        cloned = [op.clone(value_mapper=mapping) for op in ops]
        block.add_ops(cloned)
        self._offset(cloned, stage)

    def run(self) -> None:
        tile = self.tile
        loop = tile.loop
        kt = loop.body.block.args[0]
        index = IndexType()

        # the prologue: tile lb into buffer 0
        has_first = arith.CmpiOp(loop.lb, loop.ub, "slt")
        prologue_block = Block()
        self._clone_into(tile.fill, prologue_block, {kt: loop.lb}, None)
        prologue_block.add_op(scf.YieldOp())
        prologue = scf.IfOp(has_first.result, [], [prologue_block])
        Rewriter.insert_op([has_first, prologue, gpu.BarrierOp()], InsertPoint.before(loop))

        # the stage of kt, the next tile and whether there is one
        first_compute = tile.compute[0]
        two = arith.ConstantOp(IntegerAttr(2, index))
        one = arith.ConstantOp(IntegerAttr(1, index))
        distance = arith.SubiOp(kt, loop.lb)
        trip = arith.DivSIOp(distance, loop.step)
        stage = arith.RemSIOp(trip, two)
        other = arith.SubiOp(one, stage)
        next_kt = arith.AddiOp(kt, loop.step)
        has_next = arith.CmpiOp(next_kt, loop.ub, "slt")
        for op, hint in ((stage, "stage"), (other, "other_stage"), (next_kt, "next_tile"),
                         (has_next, "has_next")):
            op.result.name_hint = hint
        header = [two, one, distance, trip, stage, other, next_kt, has_next]
        Rewriter.insert_op(header, InsertPoint.before(first_compute))

        mapping: dict[SSAValue, SSAValue] = {kt: next_kt.result}
        staged: dict[Operation, list[SSAValue]] = {}
        copied: set[Operation] = set()  # fills whose whole tiles went as cp.async
        issue: list[Operation] = []
        for op in tile.fill:
            if _pure(op):
                issue.append(op.clone(value_mapper=mapping))
            elif tile.hoist_loads and _splittable(op):
                assert isinstance(op, scf.IfOp)
                if self.async_copy and _copies_elements(op):
                    issue.extend(self._issue_copies(op, mapping, has_next.result, other.result))
                    copied.add(op)
                else:
                    issue.extend(self._issue_loads(op, mapping, has_next.result, staged))
        Rewriter.insert_op(issue, InsertPoint.before(first_compute))

        self._offset(tile.compute, stage.result)

        fill_block = Block()
        for op in tile.fill:
            if _pure(op):
                continue
            if op in staged:
                assert isinstance(op, scf.IfOp)
                fill_block.add_op(self._store_staged(op, mapping, staged[op], other.result))
            elif op in copied:
                assert isinstance(op, scf.IfOp)
                fill_block.add_ops(self._ragged_only(op, mapping, other.result))
            else:
                self._clone_into([op], fill_block, mapping, other.result)
        fill_block.add_op(scf.YieldOp())
        Rewriter.insert_op(scf.IfOp(has_next.result, [], [fill_block]),
                           InsertPoint.before(tile.last_barrier))
        if copied:  # the thread's copies landed; the barrier shows them to the others
            Rewriter.insert_op(AsyncWaitOp(), InsertPoint.before(tile.last_barrier))

        for op in [*reversed([op for op in tile.fill if not _pure(op)]), tile.first_barrier]:
            op.detach()
            op.erase()

    def _issue_loads(self, op: scf.IfOp, mapping: dict[SSAValue, SSAValue],
                     has_next: SSAValue, staged: dict[Operation, list[SSAValue]]
                     ) -> list[Operation]:
        """The whole-tile loads of `op` for the next tile, as an `scf.if` yielding them."""
        condition = arith.AndIOp(mapping.get(op.cond, op.cond), has_next)
        inner_mapping = dict(mapping)
        block = Block()
        loaded: list[SSAValue] = []
        for inner in op.true_region.block.ops:
            if isinstance(inner, scf.YieldOp | memref.StoreOp | VectorStoreOp):
                continue
            clone = inner.clone(value_mapper=inner_mapping)
            block.add_op(clone)
            if isinstance(inner, memref.LoadOp | VectorLoadOp):
                loaded.extend(clone.results)
        block.add_op(scf.YieldOp(*loaded))
        zeros = [_zero(value.type) for value in loaded]
        otherwise = Block([*zeros, scf.YieldOp(*[z.results[0] for z in zeros])])
        issue = scf.IfOp(condition.result, [value.type for value in loaded], [block], [otherwise])
        for result in issue.results:
            result.name_hint = "staged"
        staged[op] = list(issue.results)
        return [condition, issue]

    def _issue_copies(self, op: scf.IfOp, mapping: dict[SSAValue, SSAValue],
                      has_next: SSAValue, other: SSAValue) -> list[Operation]:
        """The whole-tile stores of `op` for the next tile as `cp.async` of each element into
        buffer `other`, under `op`'s condition and `has_next`."""
        condition = arith.AndIOp(mapping.get(op.cond, op.cond), has_next)
        inner_mapping = dict(mapping)
        block = Block()
        for inner in op.true_region.block.ops:
            if isinstance(inner, scf.YieldOp | memref.LoadOp):
                continue
            if not isinstance(inner, memref.StoreOp | VectorStoreOp):
                block.add_op(inner.clone(value_mapper=inner_mapping))
                continue
            base = inner_mapping.get(_index(inner), _index(inner))
            size = arith.ConstantOp(IntegerAttr(self.strides[inner.memref], IndexType()))
            offset = arith.MuliOp(other, size)
            block.add_ops([size, offset])
            values = inner.values if isinstance(inner, VectorStoreOp) else [inner.value]
            for lane, value in enumerate(values):
                load = value.owner
                assert isinstance(load, memref.LoadOp)
                at: SSAValue = offset.result
                if lane:
                    shift = arith.ConstantOp(IntegerAttr(lane, IndexType()))
                    moved = arith.AddiOp(at, shift)
                    block.add_ops([shift, moved])
                    at = moved.result
                dst = arith.AddiOp(base, at)
                block.add_ops([dst, AsyncCopyOp(inner.memref, dst.result, load.memref,
                                                inner_mapping.get(load.indices[0],
                                                                  load.indices[0]))])
        block.add_op(scf.YieldOp())
        return [condition, scf.IfOp(condition.result, [], [block])]

    def _ragged_only(self, op: scf.IfOp, mapping: dict[SSAValue, SSAValue],
                     other: SSAValue) -> list[Operation]:
        """`op` for the next tile once its whole tiles are copied asynchronously: its ragged
        copy alone, `if (!whole)`."""
        if not op.false_region.blocks:
            return []
        true = arith.ConstantOp(IntegerAttr(1, IntegerType(1)))
        ragged = arith.XOrIOp(mapping.get(op.cond, op.cond), true)
        else_block = Block()
        self._clone_into(list(op.false_region.block.ops), else_block, dict(mapping), other)
        return [true, ragged, scf.IfOp(ragged.result, [], [else_block])]

    def _store_staged(self, op: scf.IfOp, mapping: dict[SSAValue, SSAValue],
                      values: list[SSAValue], other: SSAValue) -> Operation:
        """`op` for the next tile, its whole-tile loads replaced by the registers issued."""
        inner_mapping = dict(mapping)
        then_block = Block()
        queue = iter(values)
        for inner in op.true_region.block.ops:
            if isinstance(inner, memref.LoadOp | VectorLoadOp):
                for result in inner.results:
                    inner_mapping[result] = next(queue)
                continue
            then_block.add_op(inner.clone(value_mapper=inner_mapping))
        self._offset(list(then_block.ops), other)
        if not op.false_region.blocks:
            return scf.IfOp(mapping.get(op.cond, op.cond), [], [then_block])
        else_block = Block()
        self._clone_into(list(op.false_region.block.ops), else_block, dict(mapping), other)
        return scf.IfOp(mapping.get(op.cond, op.cond), [], [then_block], [else_block])


def _stride(alloca: memref.AllocaOp) -> int:
    """Elements from one buffer to the next: the array rounded up to its alignment."""
    type = alloca.memref.type
    assert isinstance(type, MemRefType)
    size = type.get_shape()[0]
    align = alloca.attributes.get(ALIGN_ATTR)
    unit = 1
    if isinstance(align, IntegerAttr):
        unit = max(1, align.value.data // element_bytes(alloca.memref))
    return -(-size // unit) * unit


def _shared_bytes(kernel: gpu.FuncOp) -> int:
    total = 0
    for op in kernel.walk():
        if isinstance(op, memref.AllocaOp) and shared_alloca(op.memref) is not None:
            type = op.memref.type
            assert isinstance(type, MemRefType)
            total += type.get_shape()[0] * element_bytes(op.memref)
    return total


def _double(alloca: memref.AllocaOp, stride: int) -> None:
    type = alloca.memref.type
    assert isinstance(type, MemRefType)
    doubled = memref.AllocaOp.get(type.element_type, shape=[2 * stride],
                                  memory_space=type.memory_space)
    doubled.attributes.update(alloca.attributes)
    doubled.memref.name_hint = alloca.memref.name_hint
    Rewriter.replace_op(alloca, doubled)


@dataclass(frozen=True)
class GpuPipelineTilesPass(DeclaredOptionsPass):
    """Double-buffered shared tiles: the next tile loaded while the current one is computed."""

    name = "gpu-pipeline-tiles"

    stages: int = option(
        1, doc="Buffers per shared tile: 1 (fill, barrier, compute, barrier) or 2 (the next "
        "tile's whole-tile loads issued before the current tile's compute and stored to the "
        "other buffer after it, one barrier per tile).", check=one_of_ints(1, 2))

    shared_budget: int = option(
        48 * 1024, doc="Bytes of `__shared__` memory a kernel may use once its tiles are "
        "doubled (CUDA's static limit is 48 KiB; past it gpu-dynamic-shared moves them to "
        "dynamic shared memory, and the tuner gives the device's maximum); a kernel beyond it "
        "stays single-buffered.",
        check=at_least(0), role=device_shared())

    async_copy: bool = option(
        False, doc="With stages=2, copy the next tile's whole tiles with `cp.async` (sm_80+; a "
        "plain copy before) straight into the other buffer instead of through registers: no "
        "registers held across the compute, and loads nvcc cannot sink to their stores. Fills "
        "that convert or combine what they load keep the register path.")

    swizzle: bool = option(
        False, doc="XOR-swizzle the 16-byte chunks of unpadded tiles read by 16-byte vector "
        "loads (chunk bit 0 ^= chunk bit 3): blocked 8-wide fragments then read every bank "
        "once per phase instead of twice.")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, gpu.FuncOp)]:
            tiles = [tile for loop in kernel.walk() if isinstance(loop, scf.ForOp)
                     for tile in [_tile_loop(loop)] if tile is not None]
            if self.swizzle:
                for array in {array for tile in tiles for array in tile.arrays}:
                    if _swizzles(array):
                        _swizzle(array)
            if self.stages == 1:
                continue
            arrays = {array: alloca for tile in tiles for array, alloca in tile.arrays.items()}
            if not tiles or len(arrays) != sum(len(tile.arrays) for tile in tiles):
                continue  # an array shared by two loops keeps one buffer
            strides = {array: _stride(alloca) for array, alloca in arrays.items()}
            extra = sum(2 * strides[array] * element_bytes(array)
                        - _size_bytes(array) for array in arrays)
            if _shared_bytes(kernel) + extra > self.shared_budget:
                continue
            for tile in tiles:
                _Pipeliner(tile, strides, self.async_copy).run()
            for array, alloca in arrays.items():
                _double(alloca, strides[array])


def _swizzles(array: SSAValue) -> bool:
    """An unpadded tile (a whole number of 256-byte blocks) of 4- or 8-byte elements read by
    16-byte vector loads."""
    bytes = element_bytes(array)
    return (bytes in (4, 8) and _size_bytes(array) % 256 == 0
            and any(isinstance(use.operation, VectorLoadOp) and use.operation.memref is array
                    and len(use.operation.values) * bytes == 16 for use in array.uses))


def _multiple_of(value: SSAValue, unit: int) -> bool:
    """`value` is a constant, or a product with a constant, that is a multiple of `unit`."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp):
        return isinstance(owner.value, IntegerAttr) and owner.value.value.data % unit == 0
    if isinstance(owner, arith.MuliOp):
        return any(isinstance(operand.owner, arith.ConstantOp)
                   and _multiple_of(operand, unit) for operand in owner.operands)
    return False


def _split_aligned(index: SSAValue, unit: int, new_ops: list[Operation]
                   ) -> tuple[SSAValue | None, list[SSAValue]]:
    """`index` as rest + the sum of terms that are multiples of `unit` (the swizzle of a
    whole number of 256-byte blocks plus x is that plus the swizzle of x, so only the rest
    needs it: a fragment read at `f + 4 + k * 128` swizzles `f + 4` once for every k). A
    constant addend is split into its multiple of `unit` and its remainder (ops for the
    split are appended to `new_ops`)."""
    if _multiple_of(index, unit):
        return None, [index]
    owner = index.owner
    if not isinstance(owner, arith.AddiOp):
        return index, []
    constant = next((operand for operand in owner.operands
                     if isinstance(operand.owner, arith.ConstantOp)
                     and isinstance(operand.owner.value, IntegerAttr)), None)
    if constant is not None:
        assert isinstance(constant.owner, arith.ConstantOp)
        assert isinstance(constant.owner.value, IntegerAttr)
        value = constant.owner.value.value.data
        other = owner.rhs if constant is owner.lhs else owner.lhs
        rest, aligned = _split_aligned(other, unit, new_ops)
        blocks = arith.ConstantOp(IntegerAttr(value - value % unit, IndexType()))
        new_ops.append(blocks)
        if value % unit == 0:
            return rest, [*aligned, blocks.result]
        remainder = arith.ConstantOp(IntegerAttr(value % unit, IndexType()))
        new_ops.append(remainder)
        if rest is None:
            return remainder.result, [*aligned, blocks.result]
        near = arith.AddiOp(rest, remainder)
        new_ops.append(near)
        return near.result, [*aligned, blocks.result]
    left, left_aligned = _split_aligned(owner.lhs, unit, new_ops)
    right, right_aligned = _split_aligned(owner.rhs, unit, new_ops)
    if left is None or right is None:
        return left if right is None else right, left_aligned + right_aligned
    return index, []


def _swizzle(array: SSAValue) -> None:
    """Every access of `array` at i reads i ^ ((i & 8c) / 8) instead (c: elements of 16
    bytes), computed on the part of i that is not a multiple of 16c."""
    chunk = 16 // element_bytes(array)
    for use in list(array.uses):
        access = use.operation
        assert isinstance(access, Access)
        ops: list[Operation] = []
        rest, aligned = _split_aligned(_index(access), 16 * chunk, ops)
        if rest is None:
            continue  # a whole number of blocks: its own swizzle
        mask = arith.ConstantOp(IntegerAttr(8 * chunk, IndexType()))
        eight = arith.ConstantOp(IntegerAttr(8, IndexType()))
        high = arith.AndIOp(rest, mask)
        low = arith.DivUIOp(high, eight)
        swizzled = arith.XOrIOp(rest, low)
        swizzled.result.name_hint = "swizzled"
        ops += [mask, eight, high, low, swizzled]
        index = swizzled.result
        for term in aligned:
            add = arith.AddiOp(index, term)
            ops.append(add)
            index = add.result
        Rewriter.insert_op(ops, InsertPoint.before(access))
        _set_index(access, index)


def _size_bytes(array: SSAValue) -> int:
    type = array.type
    assert isinstance(type, MemRefType)
    return type.get_shape()[0] * element_bytes(array)


