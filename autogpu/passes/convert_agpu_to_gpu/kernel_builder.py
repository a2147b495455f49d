"""The kernels: one `gpu.func` per segment of a C function (see `function_plan`).

Every kernel takes all the C function's parameters (same order, types and argument attributes)
and starts with a *prologue*: the scalar values it needs, recomputed from the parameters by
cloning their pure definitions, and its variables (locals, or `memref.get_global` of device
memory). A serial kernel then runs its segment's code in its single thread.

A parallel kernel gives each thread the iterations of the mapped loops it owns. For the loop on
x (unroll U, block size B):

    gid = blockIdx.x * blockDim.x * U + threadIdx.x      // replica u: gid + u * blockDim.x
    i = lb + gid * step   (dense)   or   i = lb + gid   (sparse)

The loops on y and z are grid-stride loops, correct for any size although CUDA limits those
grid dimensions to 65535:

    for (j = lb + (blockIdx.y * blockDim.y * U + threadIdx.y) * step; j < ub;
         j += gridDim.y * blockDim.y * U * step)      // replica u: j + u * blockDim.y * step

(with blockDim.y = 1 this is `for (j = lb + blockIdx.y * U * step; ...)`: a thread's y replicas
are consecutive rows). Indices are computed in `index` (64-bit) and cast to the loop's type
where the body starts, so no index computation overflows the loop's type. Serial levels of the
nest and parallel loops off its chain become `scf.for`.

Guards (AutoGPU 2.3.5). Without unrolling (or with `jam=false`), each replica is a copy of the
whole body under its own `scf.if (i < ub [&& (i - lb) % step == 0 for sparse])`, directly
after its index. With unrolling, the thread's tile of replicas (the product over x, y, z) is
split once, after the indices (the x part computed before the y/z loops):

    if (last replica of x < ub_x && last replica of y < ub_y [&& on the stride]) {  // full_tile
      <one jammed copy of the body for all replicas, no guard inside (see `jam`)>
    } else {
      <each replica under its own guards, as without jamming>
    }

Guards that the launch grid makes unnecessary are not emitted (see `coverage`): none on a
dimension whose constant count divides block x unroll, and a y/z grid-stride loop whose grid
covers the count in one pass becomes straight-line code. With constant sizes the kernel thus
relies on being launched with the grid the host computes.

Composition: the kernel body keeps the C-level ops (`memref.load/store` on the parameters,
rank-0 `memref.alloca` slots) under `scf.for`/`scf.if`, so later passes over `gpu.func`s (such
as shared-memory caching) see ordinary structured code; the jammed tile is the then-branch of
the `scf.if %full_tile` (or the kernel body itself when no guard is needed).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, gpu, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    IndexType,
    IntegerType,
    MemRefType,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
)
from xdsl.dialects.gpu import DimensionAttr, DimensionEnum
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.hints import isa

from autogpu.dialects.agpu import ParallelForOp, YieldOp
from autogpu.dialects.signature import CParameter
from autogpu.passes.analysis.integers import ceil_div
from autogpu.passes.analysis.nest_mapping import DIMS, Level
from autogpu.passes.convert_agpu_to_gpu.array_reductions import (
    combine_partials,
    finish_array_reductions,
    partial_grid_limit,
    redirect_updates,
    start_array_reductions,
)
from autogpu.passes.convert_agpu_to_gpu.coverage import (
    Coverage,
    ReductionGrid,
    grid_limit,
    known_int,
    teams_expressions,
)
from autogpu.passes.convert_agpu_to_gpu.function_plan import FunctionPlan, Segment
from autogpu.passes.convert_agpu_to_gpu.jam import Env, Jammer
from autogpu.passes.convert_agpu_to_gpu.reductions import (
    SHARED_MEMORY_SPACE,
    DeterministicCombine,
    Reduction,
    combine_replica,
    finish_reductions,
    replica_private,
    start_reduction,
)
from autogpu.passes.utils.errors import error_at
from autogpu.passes.utils.index_arith import IndexArith
from autogpu.passes.utils.slices import SliceCloner


@dataclass(frozen=True)
class BlockShape:
    """Threads per block on x, y, z."""

    x: int
    y: int
    z: int

    def on(self, dim: DimensionEnum) -> int:
        return {DimensionEnum.X: self.x, DimensionEnum.Y: self.y, DimensionEnum.Z: self.z}[dim]

    @property
    def threads(self) -> int:
        return self.x * self.y * self.z

    def as_list(self) -> list[int]:
        return [self.x, self.y, self.z]


@dataclass(frozen=True)
class _DimIndex:
    """How the threads of a kernel enumerate one mapped loop (all `index` values)."""

    level: Level
    lb: SSAValue
    ub: SSAValue
    step: SSAValue
    first: SSAValue  # this thread's first iteration value
    replica_stride: SSAValue  # between the unrolled replicas of a thread
    loop_step: SSAValue | None  # the grid-stride step (y, z, num_teams); None without a loop
    coverage: Coverage  # what the launch grid guarantees (guards it makes unnecessary)
    fits: bool  # its index arithmetic provably fits `long long` (see `_fits_long_long`)

    def arith(self, builder: Builder) -> IndexArith:
        """Index arithmetic on this loop's iteration values: `nsw` when they provably fit."""
        return IndexArith(builder, nsw=self.fits)

    @property
    def grid_stride(self) -> bool:
        """A dimension whose grid may not cover it at once (y, z, or bounded by `num_teams`):
        threads loop over tiles."""
        return self.loop_step is not None

    @property
    def checked(self) -> list[bool]:
        """Whether replica u needs its bound tested: not proven by the grid, nor (replica 0 of a
        grid-stride loop) by the loop's own condition."""
        return [
            not self.coverage.replica_in_range(u) and not (u == 0 and self.grid_stride)
            for u in range(self.level.unroll)
        ]


@dataclass
class _Replicas:
    """The replicas of one mapped dimension for the current thread (and grid-stride tile)."""

    dim: _DimIndex
    indices: list[SSAValue]  # `index` values, replica 0 first
    checked: list[bool]  # whether replica u needs its bound tested (`_DimIndex.checked`)
    full: list[SSAValue]  # conditions for every replica to be active (none: proven)


class KernelBuilder:
    """Builds one kernel of `plan` for segment `seg` into the `gpu.module` block."""

    def __init__(
        self, plan: FunctionPlan, seg: Segment, name: str, block: BlockShape, jam: bool = True,
        array_reduction: str = "auto", grid: ReductionGrid = ReductionGrid(),
        fresh: Callable[[str], str] | None = None,
    ):
        self.plan = plan
        self.seg = seg
        self.block = block
        self.jam = jam
        self.array_reduction = array_reduction  # a strategy of `array_reductions`
        self.grid = grid  # the grid limits of scalar reductions
        self.fresh: Callable[[str], str] = fresh or (lambda base: base)  # unique symbol names
        self.globals: list[memref.GlobalOp] = []  # device memory this kernel adds to the module
        fn = plan.func
        inputs = list(fn.function_type.inputs.data)
        host_values = [plan.host_values[v] for v in seg.host_args]
        self.kernel = gpu.FuncOp(
            name, ([*inputs, *(v.type for v in seg.host_args)], []), kernel=True,
            known_block_size=block.as_list(),
        )
        self.kernel.attributes["gpu.kernel"] = UnitAttr()
        attrs = (
            list(fn.arg_attrs.data) if fn.arg_attrs is not None
            else [DictionaryAttr({})] * len(inputs)
        )
        if host_values:  # the counters of host loops, after the C parameters
            attrs += [
                DictionaryAttr(CParameter(h.name, h.ctype.name, v.type, False).attributes())
                for h, v in zip(host_values, seg.host_args)
            ]
        self.kernel.attributes["arg_attrs"] = (
            fn.arg_attrs if fn.arg_attrs is not None and not host_values else ArrayAttr(attrs)
        )
        entry = self.kernel.body.block
        self.value_map: dict[SSAValue, SSAValue] = {}
        for old, new in zip([*fn.body.block.args, *seg.host_args], entry.args, strict=True):
            new.name_hint = old.name_hint
            self.value_map[old] = new
        for h, new in zip(host_values, entry.args[len(inputs):]):
            new.name_hint = h.name
        self.builder = Builder(InsertPoint.at_end(entry))
        self.cloner = SliceCloner(self.builder, self.value_map, self._leaf)
        self._ids: dict[tuple[type[Operation], DimensionEnum], SSAValue] = {}

    # -- prologue ----------------------------------------------------------------------------

    def _get_global(self, name: str, memref_type: MemRefType) -> SSAValue:
        return self.builder.insert(memref.GetGlobalOp(name, memref_type)).memref

    def _leaf(self, value: SSAValue) -> SSAValue:
        """Provides a value the prologue cannot recompute: a variable or a spilled value."""
        if (slot := self.plan.slots.get(value)) is not None:
            assert isa(value.type, MemRefType)
            index = self.seg.index
            if slot.global_name is None or index in slot.private_in:
                local = self.builder.insert(slot.alloca.clone()).memref
                return local
            result = self._get_global(slot.global_name, value.type)
            result.name_hint = value.name_hint
            return result
        if (spill := self.plan.spills.get(value)) is not None:
            cell = self._get_global(spill.global_name, MemRefType(value.type, []))
            loaded = self.builder.insert(memref.LoadOp.get(cell, [])).res
            loaded.name_hint = value.name_hint
            return loaded
        owner = value.owner
        raise error_at(
            owner if isinstance(owner, Operation) else None,
            f"internal error: kernel {self.kernel.sym_name.data} uses a value it cannot "
            f"provide ({value})",
        )

    def _finish(self) -> gpu.FuncOp:
        self.builder.insert(gpu.ReturnOp([]))
        _serialize_parallel_loops(self.kernel)
        for op in self.kernel.walk():
            if op.name == "func.call":
                raise error_at(op, "function calls inside kernels are not supported")
        return self.kernel

    # -- serial kernels ----------------------------------------------------------------------

    def build_serial(self) -> gpu.FuncOp:
        for value in self.seg.externals:
            self.cloner.get(value)
        for op in self.seg.ops:
            self.builder.insert(op.clone(value_mapper=self.value_map))
        for spill in self.plan.spills.values():
            if spill.producer == self.seg.index:
                cell = self._get_global(spill.global_name, MemRefType(spill.value.type, []))
                self.builder.insert(memref.StoreOp.get(self.value_map[spill.value], cell, []))
        return self._finish()

    # -- parallel kernels --------------------------------------------------------------------

    def build_parallel(self) -> gpu.FuncOp:
        mapping = self.seg.mapping
        assert mapping is not None
        reductions = self._start_reductions()
        for value in self.seg.externals:
            self.cloner.get(value)
        arrays = start_array_reductions(
            self.builder,
            [(kind, self.value_map[var], self.cloner.get(lo), self.cloner.get(length))
             for kind, var, lo, length in self.seg.array_reductions()],
            self.array_reduction, self._linear_thread, self.block.threads,
            lambda: (self._scratch_args(), self._linear_block()[0]),
        )  # fmt: skip
        dims = {
            level.dim: self._dim_index(level)
            for level in sorted(
                (level for level in mapping.levels if level.dim is not None),
                key=lambda level: DIMS.index(level.dim),
            )
        }
        order = [dims[d] for d in (DimensionEnum.Z, DimensionEnum.Y, DimensionEnum.X) if d in dims]
        replicas = 1
        for dim in order:
            replicas *= dim.level.unroll
        if self.jam and replicas > 1:
            privates = self._replica_memrefs(reductions, replicas)
            self._emit_tiles(order, privates)
            for var, red in zip((var for _, var in self.seg.scalar_reductions()), reductions):
                for private in privates[1:]:
                    combine_replica(self.builder, red, private[var])
        else:
            self._emit_dims(order, dict(self.value_map))
        redirect_updates(self.kernel, arrays)
        finish_array_reductions(self.builder, arrays, self._linear_thread, self.block.threads)
        if reductions:
            deterministic = (self._deterministic_combine(reductions, list(dims.values()))
                             if self.grid.deterministic else None)  # fmt: skip
            finish_reductions(self.builder, reductions, self._linear_thread(), self.block.threads,
                              deterministic)
        return self._finish()

    def _deterministic_combine(
        self, reductions: list[Reduction], dims: list[_DimIndex]
    ) -> DeterministicCombine:
        """The device buffers of the deterministic combine (one partial result per block the
        grid may have: the product of each dimension's bounded block count), the shared flag,
        and this block's linear index `bx + gx * (by + gy * bz)` among the grid's blocks."""
        capacity = 1
        for dim in dims:
            blocks = dim.coverage.blocks or dim.coverage.max_blocks
            assert blocks is not None, "a deterministic reduction's grid is bounded"
            capacity *= blocks
        name = self.kernel.sym_name.data
        partials = [
            self._add_global(f"{name}_{red.global_memref.name_hint or 'red'}_partials",
                             MemRefType(red.element, [capacity]))
            for red in reductions
        ]
        done = self._add_global(f"{name}_finished", MemRefType(IntegerType(32), []))
        flag = self.builder.insert(memref.AllocaOp.get(
            IntegerType(32), shape=[1], memory_space=SHARED_MEMORY_SPACE)).memref
        flag.name_hint = "last_block"
        return DeterministicCombine(partials, done, flag, *self._linear_block())

    def _linear_block(self) -> tuple[SSAValue, SSAValue]:
        """This block's linear index `bx + gx * (by + gy * bz)` and the grid's block count."""
        ix = IndexArith(self.builder, nsw=True)  # below 2^31 * 65535^2 blocks: fits
        block = ix.const(0)
        blocks = ix.const(1)
        for dim in (DimensionEnum.Z, DimensionEnum.Y, DimensionEnum.X):
            grid = self._id(gpu.GridDimOp, dim, "gd")
            block = ix.add(ix.mul(block, grid), self._id(gpu.BlockIdOp, dim, "b"))
            blocks = ix.mul(blocks, grid)
        block.name_hint, blocks.name_hint = "block", "blocks"
        return block, blocks

    def _scratch_args(self) -> list[SSAValue]:
        """A kernel parameter per reduced section of the segment, after the others: the call's
        scratch of per-block partial rows (`partials`, array_reductions.py)."""
        entry = self.kernel.body.block
        args: list[SSAValue] = []
        existing = self.kernel.attributes.get("arg_attrs")
        attrs: list[Attribute] = (list(existing.data) if isa(existing, ArrayAttr[Attribute])
                                  else [DictionaryAttr({})] * len(entry.args))  # fmt: skip
        for _, var, _, _ in self.seg.array_reductions():
            assert isa(var.type, MemRefType)
            element = var.type.element_type
            arg = entry.insert_arg(MemRefType(element, [DYNAMIC_INDEX]), len(entry.args))
            arg.name_hint = f"{var.name_hint or 'array'}_partials"
            attrs.append(DictionaryAttr(CParameter(arg.name_hint, None, element, True)
                                        .attributes()))  # fmt: skip
            args.append(arg)
        self.kernel.function_type = FunctionType.from_lists(list(entry.arg_types), [])
        self.kernel.attributes["arg_attrs"] = ArrayAttr(attrs)
        return args

    def build_combine(self) -> gpu.FuncOp:
        """The second kernel of `partials`: launched on the first's grid, it folds the blocks'
        rows into each section in block order (array_reductions.combine_partials)."""
        sections = [(kind, self.value_map[var], self.cloner.get(lo), self.cloner.get(length))
                    for kind, var, lo, length in self.seg.array_reductions()]  # fmt: skip
        buffers = self._scratch_args()
        block, blocks = self._linear_block()
        ix = IndexArith(self.builder, nsw=True)
        threads = ix.const(self.block.threads)
        thread = ix.add(ix.mul(block, threads), self._id(gpu.ThreadIdOp, DimensionEnum.X, "t"))
        combine_partials(self.builder, sections, buffers, thread, ix.mul(blocks, threads), blocks)
        return self._finish()

    def _add_global(self, base: str, memref_type: MemRefType) -> SSAValue:
        """A new `__device__` variable of this kernel, zero-initialised as CUDA's are."""
        name = self.fresh(base)
        self.globals.append(memref.GlobalOp.get(StringAttr(name), memref_type, UnitAttr()))
        value = self._get_global(name, memref_type)
        value.name_hint = base.removeprefix(f"{self.kernel.sym_name.data}_")
        return value

    def _start_reductions(self) -> list[Reduction]:
        reductions: list[Reduction] = []
        for kind, var in self.seg.scalar_reductions():
            slot = self.plan.slots[var]
            assert slot.global_name is not None
            assert isa(var.type, MemRefType)
            cell = self._get_global(slot.global_name, var.type)
            cell.name_hint = var.name_hint
            red = start_reduction(
                self.builder, kind, cell, self.block.threads, var.name_hint or "red"
            )
            self.value_map[var] = red.private
            reductions.append(red)
        return reductions

    def _id(self, op_type: type[Operation], dim: DimensionEnum, prefix: str) -> SSAValue:
        """One of blockIdx (b), blockDim (bd), threadIdx (t), gridDim (gd) on `dim`, created
        once in the prologue."""
        key = (op_type, dim)
        if key not in self._ids:
            op = op_type(DimensionAttr(dim))  # pyright: ignore[reportCallIssue]
            self.builder.insert(op)
            op.results[0].name_hint = f"{prefix}{dim.value}"
            self._ids[key] = op.results[0]
        return self._ids[key]

    def _dim_index(self, level: Level) -> _DimIndex:
        """The prologue's index computation for one mapped loop: this thread's first iteration
        value `lb + (blockIdx * blockDim * U + threadIdx) * scale` (scale = step when dense, 1
        when sparse), the distance between its unrolled replicas and, on y and z, the
        grid-stride step."""
        dim = level.dim
        assert dim is not None
        fits = _fits_long_long(level.loop.operands[:3])
        ix = IndexArith(self.builder, nsw=fits)
        iv = _hint(level) or dim.value
        lb, ub, step = (
            ix.cast(self.cloner.get(v), f"{iv}_{what}")
            for v, what in zip(level.loop.operands[:3], ("lb", "ub", "step"))
        )
        # blockIdx * blockDim * U + threadIdx < 2^31 * 2^10 * U + 2^10: always fits.
        ids = IndexArith(self.builder, nsw=True)
        unroll = ids.const(level.unroll)
        block_id = self._id(gpu.BlockIdOp, dim, "b")
        if dim == DimensionEnum.X or self.block.on(dim) > 1:
            block_dim = self._id(gpu.BlockDimOp, dim, "bd")
            thread_id = self._id(gpu.ThreadIdOp, dim, "t")
            first_block_index = ids.mul(ids.mul(block_id, block_dim), unroll)
            if level.blocked:  # replica u of thread t: t * U + u
                thread_id = ids.mul(thread_id, unroll)
            start = ids.add(first_block_index, thread_id, f"gid_{dim.value}")
        else:
            block_dim = ids.const(1)
            start = ids.mul(block_id, unroll)
        scale = ix.const(1) if level.sparse else step
        hint = _index_hint(level) if dim == DimensionEnum.X else f"{iv}_start"
        first = ix.add(lb, ix.mul(start, scale), hint)
        coverage = Coverage(
            _count(lb, ub, None if level.sparse else step),
            self.block.on(dim),
            level.unroll,
            partial_grid_limit(self.array_reduction, len(self.seg.array_reductions()), dim,
                               grid_limit(self.seg.mapping, dim, self.grid,
                                          bool(self.seg.scalar_reductions()))),
            level.blocked,
            dim == DimensionEnum.X and self.seg.mapping is not None
            and bool(teams_expressions(self.seg.mapping.nest)),
        )
        loop_step = None
        if not coverage.single_pass:
            grid_dim = self._id(gpu.GridDimOp, dim, "gd")
            loop_step = ix.mul(ix.mul(ix.mul(grid_dim, block_dim), unroll), scale)
        replica_stride = scale if level.blocked else ix.mul(block_dim, scale)
        return _DimIndex(level, lb, ub, step, first, replica_stride, loop_step, coverage, fits)

    # -- one replica after the other, each guarded (unroll 1, or `jam=false`) -------------------

    def _emit_dims(self, order: list[_DimIndex], env: dict[SSAValue, SSAValue]) -> None:
        """The loops (y, z) and guards (x, and unrolled replicas) of the mapped dimensions, from
        z inwards, then the body. Guards the launch grid makes unnecessary are left out."""
        if not order:
            self._level(0, [env], self._clone)
            return
        dim, rest = order[0], order[1:]
        if not dim.grid_stride:  # covered by the grid in one pass
            for u, check in enumerate(dim.checked):
                self._guarded(dim, self._replica_index(dim, dim.first, u), check, env, rest)
            return
        body = Block(arg_types=[IndexType()])
        body.args[0].name_hint = _index_hint(dim.level)
        assert dim.loop_step is not None
        self.builder.insert(scf.ForOp(dim.first, dim.ub, dim.loop_step, [], body))
        outer = self.builder.insertion_point
        self.builder.insertion_point = InsertPoint.at_end(body)
        for u, check in enumerate(dim.checked):
            self._guarded(dim, self._replica_index(dim, body.args[0], u), check, env, rest)
        self.builder.insert(scf.YieldOp())
        self.builder.insertion_point = outer

    def _replica_index(self, dim: _DimIndex, base: SSAValue, u: int) -> SSAValue:
        """Replica `u` of the thread's iteration value `base`: `base + u * replica_stride`."""
        if u == 0:
            return base
        ix = dim.arith(self.builder)
        return ix.add(base, ix.mul(dim.replica_stride, ix.const(u)), _index_hint(dim.level))

    def _conditions(self, dim: _DimIndex, index: SSAValue, check_bound: bool) -> list[SSAValue]:
        """`index < ub` (when asked) and, for sparse indexing, `(index - lb) % step == 0`."""
        ix = dim.arith(self.builder)
        conditions: list[SSAValue] = []
        if check_bound:
            conditions.append(ix.lt(index, dim.ub, "in_bounds"))
        if dim.level.sparse:
            offset = ix.rem(ix.sub(index, dim.lb), dim.step)
            conditions.append(ix.eq(offset, ix.const(0), "on_stride"))
        return conditions

    def _open_if(self, conditions: list[SSAValue]) -> InsertPoint | None:
        """Emits `if (c1 && c2 ...) {` and moves into its block; returns where to go back to
        (None, and nothing emitted, without conditions)."""
        if not conditions:
            return None
        ix = IndexArith(self.builder)
        cond = conditions[0]
        for more in conditions[1:]:
            cond = ix.and_(cond, more, "active")
        then = Block()
        self.builder.insert(scf.IfOp(cond, [], [then]))
        outer = self.builder.insertion_point
        self.builder.insertion_point = InsertPoint.at_end(then)
        return outer

    def _close_if(self, outer: InsertPoint | None) -> None:
        if outer is not None:
            self.builder.insert(scf.YieldOp())
            self.builder.insertion_point = outer

    def _guarded(
        self,
        dim: _DimIndex,
        index: SSAValue,
        check_bound: bool,
        env: dict[SSAValue, SSAValue],
        rest: list[_DimIndex],
    ) -> None:
        """`if (index < ub && on the stride) { iv = index; <inner dimensions and body> }`."""
        outer = self._open_if(self._conditions(dim, index, check_bound))
        replica = dict(env)
        iv = dim.level.loop.induction_var
        replica[iv] = IndexArith(self.builder).cast_to(index, iv.type, iv.name_hint)
        self._emit_dims(rest, replica)
        self._close_if(outer)

    # -- unroll-and-jam: full tiles jammed, the rest replica by replica -------------------------

    def _replica_memrefs(self, reductions: list[Reduction], replicas: int) -> list[Env]:
        """For each replica, the copies of the memory a thread would otherwise share between its
        replicas: privatised variables and reduction copies (replica 0 keeps the originals)."""
        per_thread: list[SSAValue] = []
        for value in self.seg.externals:
            slot = self.plan.slots.get(value)
            if slot is None or self.seg.index in slot.reduction_in:
                continue
            if slot.global_name is None or self.seg.index in slot.private_in:
                per_thread.append(value)
        copies: list[Env] = [{}]
        for r in range(1, replicas):
            copy: Env = {}
            for value in per_thread:
                alloca = self.builder.insert(self.plan.slots[value].alloca.clone())
                copy[value] = alloca.memref
            for (_, var), red in zip(self.seg.scalar_reductions(), reductions):
                copy[var] = replica_private(self.builder, red, f"{var.name_hint or 'red'}_{r}")
            copies.append(copy)
        return copies

    def _emit_tiles(self, order: list[_DimIndex], privates: list[Env]) -> None:
        """Each thread's tile of replicas: the index of every replica of x (in the prologue,
        with its bound test, since x does not change inside the y/z loops), then the y and z
        loops (or their single pass), then the split between the full tile and the rest."""
        x = next((d for d in order if d.level.dim == DimensionEnum.X), None)
        others = [d for d in order if d is not x]
        if x is not None and x.grid_stride:  # a bounded x grid: x loops too, innermost
            self._tile_loops([*others, x], [], None, privates)
            return
        x_replicas = self._replicas(x, x.first) if x is not None else None
        self._tile_loops(others, [], x_replicas, privates)

    def _replicas(self, dim: _DimIndex, base: SSAValue) -> _Replicas:
        indices = [self._replica_index(dim, base, u) for u in range(dim.level.unroll)]
        checked = dim.checked
        # The last replica in range implies the others are; each must be on the stride.
        full = self._conditions(dim, indices[-1], checked[-1])
        if dim.level.sparse:
            for index in indices[:-1]:
                full += self._conditions(dim, index, False)
        return _Replicas(dim, indices, checked, full)

    def _tile_loops(
        self,
        loops: list[_DimIndex],
        outer: list[_Replicas],
        x: _Replicas | None,
        privates: list[Env],
    ) -> None:
        if not loops:
            self._split([*outer, *([x] if x is not None else [])], privates)
            return
        dim, rest = loops[0], loops[1:]
        if not dim.grid_stride:
            self._tile_loops(rest, [*outer, self._replicas(dim, dim.first)], x, privates)
            return
        assert dim.loop_step is not None
        body = Block(arg_types=[IndexType()])
        body.args[0].name_hint = _index_hint(dim.level)
        self.builder.insert(scf.ForOp(dim.first, dim.ub, dim.loop_step, [], body))
        back = self.builder.insertion_point
        self.builder.insertion_point = InsertPoint.at_end(body)
        self._tile_loops(rest, [*outer, self._replicas(dim, body.args[0])], x, privates)
        self.builder.insert(scf.YieldOp())
        self.builder.insertion_point = back

    def _split(self, reps: list[_Replicas], privates: list[Env]) -> None:
        """`if (the whole tile is in range) { jammed replicas } else { guarded replicas }`;
        without a test when the grid proves the tile full."""
        conditions = [c for rep in reps for c in rep.full]
        if not conditions:
            self._jam_tile(reps, privates)
            return
        ix = IndexArith(self.builder)
        cond = conditions[0]
        for more in conditions[1:]:
            cond = ix.and_(cond, more)
        cond.name_hint = "full_tile"
        then_block, else_block = Block(), Block()
        self.builder.insert(scf.IfOp(cond, [], [then_block], [else_block]))
        back = self.builder.insertion_point
        self.builder.insertion_point = InsertPoint.at_end(then_block)
        self._jam_tile(reps, privates)
        self.builder.insert(scf.YieldOp())
        self.builder.insertion_point = InsertPoint.at_end(else_block)
        # When the test is one replica's bound, that replica is out of range here.
        tested = [k for k, rep in enumerate(reps) if rep.full]
        skip = None
        if len(tested) == 1 and not reps[tested[0]].dim.level.sparse:
            skip = (tested[0], len(reps[tested[0]].indices) - 1)
        self._remainder(reps, 0, [], privates, skip)
        self.builder.insert(scf.YieldOp())
        self.builder.insertion_point = back

    def _jam_tile(
        self, reps: list[_Replicas], privates: list[Env], chosen: list[list[int]] | None = None
    ) -> None:
        """One jammed copy of the body for the replicas `chosen` per dimension (all of them by
        default): every combination of one chosen replica per dimension."""
        if chosen is None:
            chosen = [list(range(len(rep.indices))) for rep in reps]
        ix = IndexArith(self.builder)
        casts: list[dict[int, SSAValue]] = []
        for rep, us in zip(reps, chosen):
            iv = rep.dim.level.loop.induction_var
            casts.append({u: ix.cast_to(rep.indices[u], iv.type, iv.name_hint) for u in us})
        envs: list[Env] = []
        for combo in itertools.product(*chosen):
            r = 0
            env = dict(self.value_map)
            for rep, cast, u in zip(reps, casts, combo):
                r = r * len(rep.indices) + u
                env[rep.dim.level.loop.induction_var] = cast[u]
            env.update(privates[r])
            envs.append(env)
        self._level(0, envs, Jammer(self.builder).emit)

    def _remainder(
        self,
        reps: list[_Replicas],
        k: int,
        chosen: list[list[int]],
        privates: list[Env],
        skip: tuple[int, int] | None,
    ) -> None:
        """A tile that is not full: the replicas of the dimensions that need a test one by
        one, each under its guards (except replica `skip[1]` of dimension `skip[0]`, known to be
        out of range here), the replicas of the others (always in range) jammed inside."""
        if k == len(reps):
            self._jam_tile(reps, privates, chosen)
            return
        rep = reps[k]
        if not rep.full:
            self._remainder(reps, k + 1, [*chosen, list(range(len(rep.indices)))], privates, skip)
            return
        for u, index in enumerate(rep.indices):
            if skip == (k, u):
                continue
            outer = self._open_if(self._conditions(rep.dim, index, rep.checked[u]))
            self._remainder(reps, k + 1, [*chosen, [u]], privates, skip)
            self._close_if(outer)

    def _level(self, k: int, envs: list[Env], emit: Callable[[Operation, list[Env]], None]) -> None:
        """The body of chain level `k` for the replicas `envs`, each op through `emit` (the
        levels below in place of their loop); a level without a GPU dimension becomes a serial
        `scf.for`."""
        mapping = self.seg.mapping
        assert mapping is not None
        level = mapping.levels[k]
        loop = level.loop
        outer = self.builder.insertion_point
        if level.dim is None:
            body = Block(arg_types=[loop.induction_var.type])
            body.args[0].name_hint = loop.induction_var.name_hint
            for env in envs:
                env[loop.induction_var] = body.args[0]
            lb, ub, step = (envs[0][v] for v in loop.operands[:3])
            self.builder.insert(scf.ForOp(lb, ub, step, [], body))
            self.builder.insertion_point = InsertPoint.at_end(body)
        inner = mapping.levels[k + 1].loop if k + 1 < len(mapping.levels) else None
        for op in loop.body.block.ops:
            if isinstance(op, YieldOp):
                continue
            if op is inner:
                self._level(k + 1, envs, emit)
            else:
                emit(op, envs)
        if level.dim is None:
            self.builder.insert(scf.YieldOp())
        self.builder.insertion_point = outer

    def _clone(self, op: Operation, envs: list[Env]) -> None:
        """`_level`'s emission of one replica (`envs` has one element): a plain clone."""
        self.builder.insert(op.clone(value_mapper=envs[0]))

    def _linear_thread(self) -> SSAValue:
        """threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)."""
        ix = IndexArith(self.builder, nsw=True)  # below the block's 1024 threads
        linear = ix.const(0)
        for dim, size in (
            (DimensionEnum.Z, self.block.z),
            (DimensionEnum.Y, self.block.y),
            (DimensionEnum.X, self.block.x),
        ):
            linear = ix.mul(linear, ix.const(size))
            if size > 1:
                linear = ix.add(linear, self._id(gpu.ThreadIdOp, dim, "t"))
        if not linear.name_hint:
            linear.name_hint = "thread"
        return linear


def _fits_long_long(bounds: Sequence[SSAValue]) -> bool:
    """Whether a mapped loop's index arithmetic provably fits `long long`, so that it may
    carry `nsw`: when its bounds and step are 32-bit values (of an `int`/`unsigned` loop,
    constants, or 32-bit values extended), the host launches about `count / (block * U)`
    blocks, so every value `lb + (blockIdx * blockDim * U + threadIdx + u * blockDim) * step`
    and grid-stride step stays below 2^32 + (count + 2^10 * U) * step < 2^43 * U. A 64-bit
    loop's step and bounds may be anything: its arithmetic wraps (no flag)."""
    return all(_is_32_bit(value) for value in bounds)


def _is_32_bit(value: SSAValue) -> bool:
    """A value known to fit in 32 bits, signed or unsigned."""
    if (known := known_int(value)) is not None:
        return -(2**31) <= known < 2**32
    if isa(value.type, IntegerType) and value.type.width.data <= 32:
        return True
    owner = value.owner
    if isinstance(owner, arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp):
        return _is_32_bit(owner.input)
    return False


def _count(lb: SSAValue, ub: SSAValue, step: SSAValue | None) -> int | None:
    """The iteration count in thread units when the bounds are known: `ub - lb` (sparse, `step`
    None) or `ceil((ub - lb) / step)` (dense), as the host computes it."""
    lo, hi = known_int(lb), known_int(ub)
    if lo is None or hi is None:
        return None
    if step is None:
        return hi - lo
    s = known_int(step)
    if s is None or s <= 0:
        return None
    return ceil_div(hi - lo, s)


def _hint(level: Level) -> str | None:
    return level.loop.induction_var.name_hint


def _index_hint(level: Level) -> str:
    """The name of a loop's iteration value in `index` (the C variable is its cast)."""
    return f"{_hint(level) or 'iv'}_idx"


def _serialize_parallel_loops(kernel: gpu.FuncOp) -> None:
    """Parallel loops left inside a kernel (off the mapped chain) run serially in the thread."""
    for op in list(kernel.walk()):
        if not isinstance(op, ParallelForOp):
            continue
        region = op.detach_region(op.body)
        block = region.block
        terminator = block.last_op
        assert isinstance(terminator, YieldOp)
        block.erase_op(terminator)
        block.add_op(scf.YieldOp())
        loop = scf.ForOp(op.lb, op.ub, op.step, [], region)
        Rewriter.replace_op(op, loop)


def kernel_symbol(name: str) -> SymbolRefAttr:
    return SymbolRefAttr("kernels", [name])

