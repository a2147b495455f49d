"""The host side: the C function rewritten in place (same name, signature and argument
attributes) into the launches of its kernels, in program order.

Launch sizes are computed from the scalar parameters with `index` arithmetic restricted to what
the `cuda` target prints as C integer expressions in the launch description (docs/ir.md):

    x:    grid = max(ceildiv(count, block_x * unroll), 1)
    y, z: grid = min(max(ceildiv(count, block * unroll), 1), 65535)   // grid-stride loops
    count = ub - lb (sparse) or ceildiv(ub - lb, step) (dense)

The `max(., 1)` keeps the launch valid (CUDA rejects an empty grid) when a loop has no
iterations; its threads then all fail their guards.
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, func, gpu
from xdsl.dialects.builtin import IntegerAttr
from xdsl.dialects.gpu import DimensionEnum
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from autogpu.passes.convert_agpu_to_gpu.coverage import MAX_GRID_YZ
from autogpu.passes.convert_agpu_to_gpu.function_plan import Segment
from autogpu.passes.convert_agpu_to_gpu.kernel_builder import BlockShape, kernel_symbol
from autogpu.passes.utils.errors import PassError, describe_value, error_at
from autogpu.passes.utils.index_arith import IndexArith, constant_value
from autogpu.passes.utils.slices import SliceCloner

HOST_OPS: tuple[type[Operation], ...] = (
    arith.AddiOp,
    arith.SubiOp,
    arith.MuliOp,
    arith.DivSIOp,
    arith.DivUIOp,
    arith.CeilDivSIOp,
    arith.CeilDivUIOp,
    arith.RemSIOp,
    arith.RemUIOp,
    arith.MaxSIOp,
    arith.MinSIOp,
    arith.MaxUIOp,
    arith.MinUIOp,
    arith.IndexCastOp,
    arith.ExtSIOp,
    arith.ExtUIOp,
    arith.TruncIOp,
)
"""Pure integer ops the launch description can express (with integer `arith.constant`)."""


def _host_computable(op: Operation) -> bool:
    if isinstance(op, arith.ConstantOp):
        return isinstance(op.value, IntegerAttr)
    return isinstance(op, HOST_OPS)


class HostBuilder:
    """Collects the launches of one function, then replaces its body with them."""

    def __init__(self, fn: func.FuncOp):
        self.fn = fn
        old = fn.body.block
        self.block = Block(arg_types=old.arg_types)
        self.value_map: dict[SSAValue, SSAValue] = {}
        for old_arg, new_arg in zip(old.args, self.block.args, strict=True):
            new_arg.name_hint = old_arg.name_hint
            self.value_map[old_arg] = new_arg
        self.builder = Builder(InsertPoint.at_end(self.block))
        self.ix = IndexArith(self.builder, share_constants=True)
        self._segment: Segment | None = None
        self.cloner = SliceCloner(
            self.builder,
            self.value_map,
            self._leaf,
            accept=_host_computable,
            on_reject=self._reject,
        )

    def _where(self) -> Operation | None:
        seg = self._segment
        return seg.mapping.nest if seg is not None and seg.mapping is not None else None

    def _leaf(self, value: SSAValue) -> SSAValue:
        raise error_at(
            self._where(),
            f"the bounds of this parallel loop depend on {describe_value(value)}, which is "
            "computed from memory: the host cannot compute the launch size",
        )

    def _reject(self, op: Operation, value: SSAValue) -> PassError:
        return error_at(
            self._where(),
            f"the bounds of this parallel loop are computed with {op.name} "
            f"({describe_value(value)}), which the launch description cannot express (only "
            "integer + - * / % min max and casts)",
        )

    def launch(self, seg: Segment, kernel_name: str, block: BlockShape) -> None:
        self._segment = seg
        one = self.ix.const(1)
        grid = [one, one, one]
        if seg.mapping is not None:
            for dim_index, dim in enumerate((DimensionEnum.X, DimensionEnum.Y, DimensionEnum.Z)):
                level = seg.mapping.level_on(dim)
                if level is None:
                    continue
                lb, ub, step = (
                    self.ix.cast(self.cloner.get(v)) for v in level.loop.operands[:3]
                )
                count = self.ix.sub(ub, lb)
                if not level.sparse:
                    count = self.ix.ceildiv(count, step)
                per_block = self.ix.const(block.on(dim) * level.unroll)
                size = self.ix.max(self.ix.ceildiv(count, per_block), one)
                if dim != DimensionEnum.X:
                    size = self.ix.min(size, self.ix.const(MAX_GRID_YZ))
                if constant_value(size) is None and size.name_hint is None:
                    size.name_hint = f"grid_{dim.value}"
                grid[dim_index] = size
        sizes = [self.ix.const(n) for n in block.as_list()]
        self.builder.insert(
            gpu.LaunchFuncOp(
                kernel_symbol(kernel_name), grid, sizes, kernelOperands=list(self.block.args)
            )
        )
        self._segment = None

    def finish(self) -> None:
        """Replaces the function's body with the launches."""
        self.builder.insert(func.ReturnOp())
        old = self.fn.body.block
        self.fn.body.detach_block(old)
        old.erase(safe_erase=False)
        self.fn.body.add_block(self.block)

