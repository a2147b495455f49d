"""Rewrites of `gpu-cache-shared`: strip-mining a serial loop, and caching a group of loads.

Strip-mining (the tiles in `index`, so that kk + T*s cannot overflow the loop's C type; the
loop over a tile in that type, as its bounds lie within the original ones):

    for (k = lb; k < ub; k += s) body(k)
      ==>
    for (kk = lb; kk < ub; kk += T*s) {
      tile_ub = min(kk + T*s, ub);
      for (k = (int)kk; k < (int)tile_ub; k += s) body(k)
    }

Caching a group at P (before `p_op`): a `__shared__` array for the tile; the cooperative load

    for (e = tid; e < E; e += threads)          // an `if (tid < E)` when E <= threads
      if (<some load of the group reads offset e>)
        tile[e] = G[base + sum(stride_d * (o_d(e) + min_delta_d))];
    __syncthreads();
    <p_op, its loads of G replaced by tile[...]>
    __syncthreads();                            // when P is in a loop: before the tile is reused

(barriers are placed where P is; `uniform_control.distribute_guards` then takes the thread guards
off them).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import gpu, memref, scf
from xdsl.dialects.builtin import IndexType, MemRefType, StringAttr, UnitAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.hints import isa

from autogpu.passes.analysis.integers import constant_int, is_unsigned
from autogpu.passes.convert_agpu_to_gpu.reductions import SHARED_MEMORY_SPACE
from autogpu.passes.gpu_cache_shared.facts import DIMS, KernelFacts
from autogpu.passes.gpu_cache_shared.footprint import (
    Access,
    Group,
    ThreadBound,
    element_bytes,
    thread_index,
)
from autogpu.passes.gpu_cache_shared.materialize import Emitter, Materializer
from autogpu.passes.gpu_cache_shared.uniform_control import mark_collective
from autogpu.passes.gpu_cache_shared.versioning import full_tile_condition

SKIP = "gpu_cache_shared.skip"
"""Discardable attribute on loads not to consider (again): the cooperative loads, loads
already refused (removed by the pass)."""

BARRIER_ROLE = "gpu_cache_shared.barrier"
"""Discardable attribute on the barriers of a tile: "prologue" (after the cooperative loads) or
"epilogue" (after the reads); a later tile at the same point shares them."""


# ---------------------------------------------------------------------------------------------
# Strip-mining
# ---------------------------------------------------------------------------------------------


def strip_mine(loop: scf.ForOp, tile: int) -> tuple[scf.ForOp, scf.ForOp]:
    """Splits `loop` (constant positive step, no loop-carried values) into a loop over tiles of
    `tile` iterations (in `index`) and a loop over one tile (in the loop's own type, its
    bounds within the original ones); returns (outer, inner)."""
    step = constant_int(loop.step)
    assert step is not None
    assert step > 0
    assert not loop.iter_args
    index = IndexType()
    at = Emitter(loop)
    lb = at.cast(loop.lb, index)
    ub = at.cast(loop.ub, index)
    big_step = at.const(tile * step)
    old = loop.body.block
    iv = old.args[0]
    name = iv.name_hint or "k"

    outer_block = Block(arg_types=[index])
    tile_start = outer_block.args[0]
    tile_start.name_hint = f"{name}_tile"
    outer_block.add_op(yield_outer := scf.YieldOp())
    inner_at = Emitter(yield_outer)
    first, last = constant_int(loop.lb), constant_int(loop.ub)
    if first is not None and last is not None and (last - first) % (tile * step) == 0:
        tile_end = inner_at.add(tile_start, big_step, f"{name}_tile_end")  # whole tiles only
    else:
        tile_end = inner_at.min(inner_at.add(tile_start, big_step), ub, f"{name}_tile_end")
    inner_lb = inner_at.cast(tile_start, iv.type, f"{name}_first")
    inner_ub = inner_at.cast(tile_end, iv.type, f"{name}_end")
    inner = scf.ForOp(inner_lb, inner_ub, loop.step, [], Block(arg_types=[iv.type]))
    inner_block = inner.body.block
    inner_block.args[0].name_hint = iv.name_hint
    outer_block.insert_op_before(inner, yield_outer)
    for op in list(old.ops):
        op.detach()
        inner_block.add_op(op)
    iv.replace_all_uses_with(inner_block.args[0])
    outer = scf.ForOp(lb, ub, big_step, [], outer_block)
    Rewriter.replace_op(loop, outer)
    return outer, inner


# ---------------------------------------------------------------------------------------------
# Caching a group
# ---------------------------------------------------------------------------------------------


@dataclass
class _Bounds:
    """Per access: whether it runs at all, and the tile offsets it reads along each dim."""

    runs: SSAValue | None
    low: list[SSAValue]
    high: list[SSAValue]


def shared_bytes(kernel: gpu.FuncOp) -> int:
    """Static `__shared__` memory the kernel already uses."""
    total = 0
    for op in kernel.walk():
        if isinstance(op, memref.AllocaOp):
            type = op.memref.type
            assert isinstance(type, MemRefType)
            if type.memory_space == SHARED_MEMORY_SPACE:
                count = 1
                for size in type.get_shape():
                    count *= max(size, 0)
                total += count * element_bytes(op.memref)
    return total


def cache_group(
    facts: KernelFacts, group: Group, p_op: Operation, name: str, in_loop: bool,
    full_tiles: bool = False, copy_width: int = 1,
) -> memref.AllocaOp:
    """Loads the tile of `group` cooperatively before `p_op` and redirects its loads (with
    `full_tiles`, unguarded where the block's tile is whole, each thread copying `copy_width`
    consecutive elements where `chunk_width` allows)."""
    array_type = group.array.type
    assert isa(array_type, MemRefType)
    shared = memref.AllocaOp.get(
        array_type.element_type, shape=[group.storage], memory_space=SHARED_MEMORY_SPACE
    )
    shared.memref.name_hint = f"{name}_sh"
    first = facts.entry.first_op
    assert first is not None  # a kernel's entry block ends with its terminator
    facts.entry.insert_op_before(shared, first)

    previous = p_op.prev_op
    merged = isinstance(previous, gpu.BarrierOp) and _role(previous) == "prologue"
    point = previous if merged else p_op
    assert point is not None
    at = Materializer(facts, point)
    bounds = [_access_bounds(at, facts, group, k, a) for k, a in enumerate(group.accesses)]
    reference = group.accesses[0]
    base = at.poly(reference.base, f"{name}_base")
    strides = [at.poly(dim.stride) for dim in group.dims]
    thread = _linear_thread(at, facts)
    _cooperative_load(at, facts, group, shared.memref, bounds, base, strides, thread, full_tiles,
                      chunk_width(group, facts.threads, copy_width))
    if not merged:
        Rewriter.insert_op(_barrier("prologue"), InsertPoint.before(p_op))
    following = p_op.next_op
    if in_loop and not (isinstance(following, gpu.BarrierOp) and _role(following) == "epilogue"):
        Rewriter.insert_op(_barrier("epilogue"), InsertPoint.after(p_op))
    for k, access in enumerate(group.accesses):
        _redirect(facts, group, k, access, shared.memref)
    return shared


def _role(op: Operation) -> str | None:
    role = op.attributes.get(BARRIER_ROLE)
    return role.data if isinstance(role, StringAttr) else None


def _barrier(role: str) -> gpu.BarrierOp:
    barrier = gpu.BarrierOp()
    barrier.attributes[BARRIER_ROLE] = StringAttr(role)
    return barrier


def _linear_thread(at: Emitter, facts: KernelFacts) -> SSAValue:
    """threadIdx.x + Bx * (threadIdx.y + By * threadIdx.z), in `index`."""
    linear: SSAValue = at.const(0)
    for dim in reversed(DIMS):
        size = facts.block_size(dim)
        linear = at.mul(linear, at.const(size))
        if size > 1:
            linear = at.add(linear, thread_index(facts, dim))
    if linear.name_hint is None and constant_int(linear) is None:
        linear.name_hint = "thread"
    return linear


def _access_bounds(
    at: Materializer, facts: KernelFacts, group: Group, k: int, access: Access
) -> _Bounds:
    index = IndexType()
    low_q: list[SSAValue] = []
    high_q: list[SSAValue] = []
    conjuncts: list[SSAValue] = []
    runs: SSAValue | None = None
    for var in access.vars:
        if var.loop is not None:
            lb = at.cast(at.get(var.loop.lb), index)
            ub = at.cast(at.get(var.loop.ub), index)
            if var.step is None:  # ignored by the index: only whether it runs matters
                low, high = lb, ub
            else:
                span = at.max(at.sub(ub, lb), at.const(0))
                trips = at.div(at.add(span, at.const(var.step - 1)), var.step, "trips")
                low, high = at.const(0), trips
        else:
            assert var.thread_dim is not None
            low, high = at.const(0), at.const(facts.block_size(var.thread_dim))
            rng = access.threads[var.thread_dim]
            for bound in rng.lows:
                low = at.max(low, _ceil_div(at, bound))
            for bound in rng.highs:
                high = at.min(high, _ceil_div(at, bound))
        low_q.append(low)
        high_q.append(high)
        conjuncts.append(at.lt(low, high))
    for cond, branch in access.conditions:
        value = at.get(cond)
        conjuncts.append(value if branch else at.not_(value))
    seen: set[int] = set()
    for conjunct in conjuncts:  # (two loops of trip count t test 0 < t once)
        if (key := facts.polys.atom_id(conjunct)) not in seen:
            seen.add(key)
            runs = at.and_(runs, conjunct)
    low_d: list[SSAValue] = []
    high_d: list[SSAValue] = []
    for d, dim in enumerate(group.dims):
        offset = group.deltas[k].get(d, 0) - dim.min_delta
        members = group.members[k].get(d, [])
        low: SSAValue = at.const(offset)
        # last element: offset + sum(scale * (high_q - 1)), the -scale terms in the constant
        high: SSAValue = at.const(offset + 1 - sum(group.scale(k, p) for p in members))
        for position in members:
            scale = group.scale(k, position)
            low = at.add(_scaled(at, low_q[position], scale), low)
            high = at.add(_scaled(at, high_q[position], scale), high)
        low_d.append(low)
        high_d.append(high)
    return _Bounds(runs, low_d, high_d)


def _scaled(at: Emitter, value: SSAValue, scale: int) -> SSAValue:
    return value if scale == 1 else at.mul(value, at.const(scale))


def _ceil_div(at: Materializer, bound: ThreadBound) -> SSAValue:
    """`ceil(value / divisor)` in `index`, exact for positive values; a value below 1 gives
    at most 0, which is all the thread ranges need (their low is at least 0)."""
    value = at.cast(at.poly(bound.value), IndexType())
    if bound.divisor == 1:
        return value
    return at.div(at.add(value, at.const(bound.divisor - 1)), bound.divisor)


def _cooperative_load(
    at: Emitter,
    facts: KernelFacts,
    group: Group,
    shared: SSAValue,
    bounds: list[_Bounds],
    base: SSAValue,
    strides: list[SSAValue],
    thread: SSAValue,
    full_tiles: bool,
    chunk: int = 1,
) -> None:
    """The guarded load of the tile; with `full_tiles`, under `if (whole)` a version that
    loads every element unguarded in a loop of constant trip count (blocks inside the
    problem), the guarded one in the else branch (the ragged edge)."""
    whole = full_tile_condition(at, facts, group, bounds) if full_tiles else None
    if whole is None or constant_int(whole) in (1, -1):
        copy = _Copy(facts, group, shared, base, strides, thread)
        if whole is not None:
            copy.emit(at.point, None, chunk)
        else:
            copy.emit(at.point, _merged(bounds, facts))
        return
    then_block = Block([scf.YieldOp()])
    else_block = Block([scf.YieldOp()])
    version = scf.IfOp(whole, [], Region(then_block), Region(else_block))
    Rewriter.insert_op(version, InsertPoint.before(at.point))
    mark_collective(version)
    copy = _Copy(facts, group, shared, base, strides, thread)
    copy.emit(then_block.first_op, None, chunk)  # pyright: ignore
    copy.emit(else_block.first_op, _merged(bounds, facts))  # pyright: ignore


def chunk_width(group: Group, threads: int, width: int) -> int:
    """How many consecutive elements each thread copies in a whole tile: `width` when the
    tile's fastest dimension in the array (load order) is also fastest in shared memory, its
    extent is a multiple of `width` and the threads' chunks cover the tile exactly; else 1.
    (A tile stored transposed keeps the element-wise copy: chunks along its columns, read
    as float4 with a per-access alignment test, were 6 % slower on the H100 at general sizes.)"""
    if width == 1:
        return 1
    fastest = [dim for dim in group.dims if dim.load_stride == 1]
    if len(fastest) != 1 or fastest[0].layout_stride != 1 or fastest[0].extent % width:
        return 1
    return width if group.elements % (threads * width) == 0 else 1


@dataclass
class _Copy:
    """The cooperative copy of a group's tile from global to shared memory."""

    facts: KernelFacts
    group: Group
    shared: SSAValue
    base: SSAValue
    strides: list[SSAValue]
    thread: SSAValue

    def emit(self, point: Operation, boxes: list[_Bounds] | None, chunk: int = 1) -> None:
        """Each thread copies elements thread, thread + threads, ... before `point`: those
        some box reads (`boxes`), or every element (None: a whole tile, in a loop of
        constant trip count when the threads divide it); with `chunk` > 1 (a whole tile,
        `chunk_width`) the chunks of `chunk` consecutive elements instead."""
        if chunk > 1:
            assert boxes is None
            self._emit_chunks(point, chunk)
            return
        group, at = self.group, Emitter(point)
        elements, threads = group.elements, self.facts.threads
        body = Block(arg_types=[IndexType()] if elements > threads else [])
        body.add_op(end := scf.YieldOp())
        inside = Emitter(end)
        if elements > threads and boxes is None and elements % threads == 0:
            collective: Operation = scf.ForOp(
                at.const(0), at.const(elements), at.const(threads), [], body
            )
            body.args[0].name_hint = "e_first"
            element = inside.add(body.args[0], self.thread, "e")
        elif elements > threads:
            element = body.args[0]
            element.name_hint = "e"
            collective = scf.ForOp(self.thread, at.const(elements), at.const(threads), [], body)
        else:
            element = self.thread
            every = at.true() if elements == threads else at.lt(self.thread, at.const(elements))
            collective = scf.IfOp(every, [], Region(body))
        Rewriter.insert_op(collective, InsertPoint.before(point))
        mark_collective(collective)
        offsets: list[SSAValue] = []
        for dim in group.dims:
            offset = inside.div(element, dim.load_stride)
            if dim.load_stride * dim.extent < elements:
                offset = inside.rem(offset, dim.extent)
            offsets.append(offset)
        wanted = None if boxes is None else _wanted(inside, group, boxes, offsets)
        then = Block()
        then.add_op(then_end := scf.YieldOp())
        guarded = Emitter(then_end)
        address = self.base
        for d, dim in enumerate(group.dims):
            position = guarded.add(offsets[d], guarded.const(dim.min_delta))
            address = guarded.add(
                address, guarded.mul(self.strides[d], guarded.cast(position, address.type))
            )
        address = guarded.index(address, zero_extend=is_unsigned(group.accesses[0].type))
        load = memref.LoadOp.get(group.array, [address])
        load.attributes[SKIP] = UnitAttr()
        value = guarded.insert(load)
        slot = element
        if any(dim.layout_stride != dim.load_stride for dim in group.dims):  # stored transposed
            slot = self._slot(guarded, offsets)
        store = memref.StoreOp.get(value, self.shared, [slot])
        Rewriter.insert_op(store, InsertPoint.before(then_end))
        if wanted is None or constant_int(wanted) in (1, -1):
            for op in list(then.ops)[:-1]:
                op.detach()
                body.insert_op_before(op, end)
        else:
            body.insert_op_before(scf.IfOp(wanted, [], Region(then)), end)


    def _slot(self, at: Emitter, offsets: list[SSAValue]) -> SSAValue:
        """The element of the shared array at tile offsets `offsets`."""
        slot = at.const(0)
        for d, dim in enumerate(self.group.dims):
            slot = at.add(slot, at.mul(offsets[d], at.const(dim.layout_stride)))
        return slot

    def _address(self, at: Emitter, offsets: list[SSAValue]) -> SSAValue:
        """The element of the global array at tile offsets `offsets`."""
        address = self.base
        for d, dim in enumerate(self.group.dims):
            position = at.add(offsets[d], at.const(dim.min_delta))
            address = at.add(address, at.mul(self.strides[d], at.cast(position, address.type)))
        return at.index(address, zero_extend=is_unsigned(self.group.accesses[0].type))

    def _emit_chunks(self, point: Operation, chunk: int) -> None:
        """A whole tile in chunks: chunk c = thread + threads * i holds the `chunk` elements
        from c * chunk on, consecutive along the fastest dimension in both arrays, so the
        thread's stores to shared memory are neighbours at an offset that is a multiple of
        `chunk` (one vector store for gpu-vectorize)."""
        group, at = self.group, Emitter(point)
        threads = self.facts.threads
        chunks = group.elements // chunk
        body = Block(arg_types=[IndexType()] if chunks > threads else [])
        body.add_op(end := scf.YieldOp())
        inside = Emitter(end)
        if chunks > threads:
            collective: Operation = scf.ForOp(
                at.const(0), at.const(chunks), at.const(threads), [], body)
            body.args[0].name_hint = "c_first"
            index = inside.add(body.args[0], self.thread, "c")
        else:
            index = self.thread
            collective = scf.IfOp(at.true(), [], Region(body))
        Rewriter.insert_op(collective, InsertPoint.before(point))
        mark_collective(collective)
        fastest = next(d for d, dim in enumerate(group.dims) if dim.load_stride == 1)
        rows = group.dims[fastest].extent // chunk  # chunks along the fastest dimension
        first = inside.mul(inside.rem(index, rows), inside.const(chunk))
        base_offsets: list[SSAValue] = []
        for d, dim in enumerate(group.dims):
            if d == fastest:
                base_offsets.append(first)
                continue
            offset = inside.div(index, dim.load_stride // chunk)
            if dim.load_stride * dim.extent < group.elements:
                offset = inside.rem(offset, dim.extent)
            base_offsets.append(offset)
        for q in range(chunk):
            offsets = list(base_offsets)
            offsets[fastest] = inside.add(first, inside.const(q))
            load = memref.LoadOp.get(group.array, [self._address(inside, offsets)])
            load.attributes[SKIP] = UnitAttr()
            value = inside.insert(load)
            store = memref.StoreOp.get(value, self.shared, [self._slot(inside, offsets)])
            Rewriter.insert_op(store, InsertPoint.before(end))


def _wanted(
    inside: Emitter, group: Group, boxes: list[_Bounds], offsets: list[SSAValue]
) -> SSAValue:
    """Whether some box reads the element at `offsets`."""
    wanted: SSAValue | None = None
    for b in boxes:
        reads = b.runs
        for d, offset in enumerate(offsets):
            if constant_int(b.low[d]) != 0:  # offsets are never negative
                reads = inside.and_(reads, inside.le(b.low[d], offset))
            if constant_int(b.high[d]) != group.dims[d].extent:
                reads = inside.and_(reads, inside.lt(offset, b.high[d]))
        assert reads is not None
        wanted = inside.or_(wanted, reads)
    assert wanted is not None
    return wanted


def _merged(bounds: list[_Bounds], facts: KernelFacts) -> list[_Bounds]:
    """The boxes of offsets the loads read, fewer: two boxes that agree but along one
    dimension, where their constant ranges touch, are one (the 16 copies of an unrolled loop
    read one range, not 16)."""

    def same(a: SSAValue | None, b: SSAValue | None) -> bool:
        if a is None or b is None:
            return a is b
        ca, cb = constant_int(a), constant_int(b)
        if ca is not None or cb is not None:
            return ca == cb
        return facts.polys.atom_id(a) == facts.polys.atom_id(b)

    def merge(x: _Bounds, y: _Bounds) -> _Bounds | None:
        if not same(x.runs, y.runs):
            return None
        differing = [
            d for d in range(len(x.low))
            if not (same(x.low[d], y.low[d]) and same(x.high[d], y.high[d]))
        ]  # fmt: skip
        if len(differing) != 1:
            return x if not differing else None
        (d,) = differing
        ends = [constant_int(v) for v in (x.low[d], x.high[d], y.low[d], y.high[d])]
        x_low, x_high, y_low, y_high = ends
        if x_low is None or x_high is None or y_low is None or y_high is None:
            return None
        if x_high < y_low or y_high < x_low:
            return None
        low = x.low[d] if x_low <= y_low else y.low[d]
        high = x.high[d] if x_high >= y_high else y.high[d]
        return _Bounds(
            x.runs,
            [low if k == d else v for k, v in enumerate(x.low)],
            [high if k == d else v for k, v in enumerate(x.high)],
        )

    boxes = list(bounds)
    changed = True
    while changed:
        changed = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                if (joined := merge(boxes[i], boxes[j])) is not None:
                    boxes[i] = joined
                    del boxes[j]
                    changed = True
                    break
            if changed:
                break
    return boxes


def _redirect(facts: KernelFacts, group: Group, k: int, access: Access, shared: SSAValue) -> None:
    """Replaces the access's load of G by a load of its element of the tile."""
    load = access.load
    at = Emitter(load)
    index = IndexType()
    position: SSAValue = at.const(0)
    for d, dim in enumerate(group.dims):
        offset: SSAValue = at.const(group.deltas[k].get(d, 0) - dim.min_delta)
        for p in group.members[k].get(d, []):
            var = access.vars[p]
            if var.loop is None:
                q = var.value
            else:
                iv = at.cast(var.loop.body.block.args[0], index)
                assert var.step is not None
                q = at.div(at.sub(iv, at.cast(var.loop.lb, index)), var.step)
            offset = at.add(offset, _scaled(at, q, group.scale(k, p)))
        position = at.add(position, at.mul(offset, at.const(dim.layout_stride)))
    new = memref.LoadOp.get(shared, [position])
    new.res.name_hint = load.res.name_hint
    Rewriter.replace_op(load, new)
