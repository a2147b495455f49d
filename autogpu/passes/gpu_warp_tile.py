"""`gpu-warp-tile`: arrange the 32 threads of each warp as an x x y sub-tile of the block.

The lowering numbers a 2D block's threads row by row: threadIdx.x runs fastest, so a warp of a
16 x 16 block is threads (0..15, 0..1), a 16 x 2 strip. With blocked register tiles each thread
reads its fragments of the x operand at `threadIdx.x * tm` and of the y operand at
`threadIdx.y * tn`: the strip's 16 distinct x fragments span 512 bytes per 16-byte read (4
shared-memory wavefronts) while its y fragments are 2 addresses. `gpu-warp-tile{x=8}` makes
every warp an 8 x 4 sub-tile instead: lane l of warp w computes the work of logical thread

    tx' = (w % (Bx / x)) * x + l % x        ty' = (w / (Bx / x)) * y + l / x     (y = 32 / x)

so each read of a warp meets 8 (x operand) or 4 (y operand) distinct fragments, each read once
by the threads that share it (siboehm's and CUTLASS's warp tiles).

The map is a permutation of the block's threads, so the kernel computes the same values: every
use of threadIdx.x/y is replaced by tx'/ty', except the linear thread index `threadIdx.y * Bx +
threadIdx.x` of cooperative copies and block reductions, which keeps consecutive lanes on
consecutive elements (coalesced global loads); those are separated from the compute by
barriers, so which thread copies an element does not matter. Kernels whose block is not made
of whole x x y warp tiles (Bx % x, By % y) are left as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, gpu
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.dialects.gpu import DimensionAttr, DimensionEnum
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from autogpu.passes.gpu_cache_shared.materialize import Emitter
from autogpu.passes.options import DeclaredOptionsPass, one_of_ints, option

WARP = 32


def _constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _thread_dim(value: SSAValue) -> DimensionEnum | None:
    owner = value.owner
    return owner.dimension.data if isinstance(owner, gpu.ThreadIdOp) else None


def _other(op: Operation, value: SSAValue) -> SSAValue:
    return op.operands[1] if op.operands[0] is value else op.operands[0]


def _row_start(value: SSAValue, row: int) -> arith.MuliOp | None:
    """The op of `threadIdx.y * row` (either order), else None."""
    owner = value.owner
    if isinstance(owner, arith.MuliOp) and any(
            _thread_dim(v) == DimensionEnum.Y and _constant(_other(owner, v)) == row
            for v in owner.operands):
        return owner
    return None


def _linear_indices(kernel: gpu.FuncOp, row: int) -> list[tuple[arith.AddiOp, arith.MuliOp]]:
    """The `thread = threadIdx.y * row + threadIdx.x` that gpu-cache-shared's copies and the
    lowering's block reductions build (named `thread`), with their `threadIdx.y * row`."""
    found: list[tuple[arith.AddiOp, arith.MuliOp]] = []
    for op in kernel.walk():
        if isinstance(op, arith.AddiOp) and op.result.name_hint == "thread":
            for value in op.operands:
                start = _row_start(value, row)
                if start is not None and _thread_dim(_other(op, value)) == DimensionEnum.X:
                    found.append((op, start))
                    break
    return found


def _warp_tile(kernel: gpu.FuncOp, x: int) -> bool:
    """Remap `kernel`'s threads to x x (32 / x) warp tiles; False where its block has none."""
    size = kernel.known_block_size
    if size is None:
        return False
    bx, by, _ = size.get_values()
    y = WARP // x
    if bx % x or by % y:
        return False
    old = [op for op in kernel.walk() if isinstance(op, gpu.ThreadIdOp)
           and op.dimension.data in (DimensionEnum.X, DimensionEnum.Y)]
    if not old:
        return True
    at = Emitter(next(iter(kernel.body.block.ops)))
    tx = at.insert(gpu.ThreadIdOp(DimensionAttr(DimensionEnum.X)), "tx")
    ty = at.insert(gpu.ThreadIdOp(DimensionAttr(DimensionEnum.Y)), "ty")
    linear = at.add(at.mul(ty, at.const(bx)), tx, "lane_linear")
    lane, warp = at.rem(linear, WARP, "lane"), at.div(linear, WARP, "warp")
    across = bx // x  # warp tiles along a row of the block

    def rem(value: SSAValue, divisor: int) -> SSAValue:
        return at.const(0) if divisor == 1 else at.rem(value, divisor)

    logical = {
        DimensionEnum.X: at.add(at.mul(rem(warp, across), at.const(x)), rem(lane, x),
                                "warp_tx"),
        DimensionEnum.Y: at.add(at.mul(at.div(warp, across), at.const(y)), at.div(lane, x),
                                "warp_ty"),
    }
    kept: set[Operation] = set()  # ops whose threadIdx operands stay the hardware's
    for add, start in _linear_indices(kernel, bx):
        kept |= {add, start}
        others = [use for use in start.result.uses if use.operation is not add]
        if others:  # `threadIdx.y * row` shared with the compute: it gets its own
            row = arith.MuliOp(logical[DimensionEnum.Y], at.const(bx))
            Rewriter.insert_op(row, InsertPoint.after(start))
            for use in others:
                use.operation.operands[use.index] = row.result
    for op in old:
        for use in list(op.results[0].uses):
            if use.operation not in kept:
                use.operation.operands[use.index] = logical[op.dimension.data]
    return True


@dataclass(frozen=True)
class GpuWarpTilePass(DeclaredOptionsPass):
    """Arrange each warp's threads as an x x (32 / x) sub-tile of the block."""

    name = "gpu-warp-tile"

    x: int = option(
        0, doc="Threads of a warp along x (the rest, 32 / x, along y); 0 keeps the lowering's "
        "rows (a warp is 32 consecutive threadIdx.x, or whole rows of them).",
        check=one_of_ints(0, 1, 2, 4, 8, 16, 32), tuning="[0, 4, 8]")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.x == 0:
            return
        for kernel in op.walk():
            if isinstance(kernel, gpu.FuncOp) and kernel.kernel is not None:
                _warp_tile(kernel, self.x)
