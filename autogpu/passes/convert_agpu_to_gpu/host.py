"""The host side: the C function rewritten in place (same name, signature and argument
attributes) into the launches of its kernels, in program order, inside the serial `scf.for` and
`scf.if` around them (the plan's host steps), which the host runs: a time loop of T sweeps of two
nests launches 2T kernels. Loop bounds, conditions and launch sizes are computed on the host from
the scalar parameters and the counters of host loops, which the kernels that use them receive
after the C parameters.

Launch sizes are computed from the scalar parameters with `index` arithmetic restricted to what
the `cuda` target prints as C integer expressions in the launch description (docs/ir.md):

    x:    grid = max(ceildiv(count, block_x * unroll), 1)
    y, z: grid = min(max(ceildiv(count, block * unroll), 1), 65535)   // grid-stride loops
    x of a scalar reduction with reduce_blocks = R > 0: min(max(...), R)  // grid-stride
    count = ub - lb (sparse) or ceildiv(ub - lb, step) (dense)

(with OpenMP's `num_teams(N)` on the nest: x at most N, y and z 1, all grid-stride:
`coverage.grid_limit`; `num_teams(e)` of an expression of the parameters: x at most
`max(e, 1)`, evaluated at launch).

A kernel keeping a parameter-length reduced section in dynamic shared memory
(array_reductions.py) gets `K * sizeof(T) * (K <= cap)` dynamic shared bytes: its copy where it
fits, none where the kernel falls back to the array's atomics.

A condition a kernel computed (`FunctionPlan.host_reads`: a convergence test) is read back from
its device variable where the host needs it (`memref.get_global @kernels::@v` and a
`memref.load` in the host function: a `read` step of the launch description), after the
launches before it.

The `max(., 1)` keeps the launch valid (CUDA rejects an empty grid) when a loop has no
iterations; its threads then all fail their guards.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Mapping, Sequence
from contextlib import contextmanager

from xdsl.builder import Builder
from xdsl.dialects import arith, func, gpu, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IntegerAttr,
    IntegerType,
    MemRefType,
    SymbolRefAttr,
    i32,
    i64,
)
from xdsl.dialects.gpu import DimensionEnum
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.utils.hints import isa

from autogpu.dialects.agpu import ParallelForOp
from autogpu.passes.agpu_out_of_core import PART_NEST
from autogpu.passes.convert_agpu_to_gpu.array_reductions import (
    dynamic_shared_section,
    element_bytes,
    partial_grid_limit,
)
from autogpu.passes.convert_agpu_to_gpu.coverage import (
    ReductionGrid,
    grid_limit,
    known_int,
    teams_expressions,
)
from autogpu.passes.convert_agpu_to_gpu.function_plan import (
    HostFor,
    HostIf,
    HostStep,
    HostWhile,
    Segment,
)
from autogpu.passes.convert_agpu_to_gpu.kernel_builder import BlockShape, kernel_symbol
from autogpu.passes.convert_agpu_to_gpu.launch_bounds import (
    LAUNCH_BOUNDS,
    launch_bound_expressions,
)
from autogpu.passes.utils.errors import PassError, describe_value, error_at
from autogpu.passes.utils.index_arith import IndexArith, constant_value
from autogpu.passes.utils.slices import SliceCloner, is_recomputable, slice_leaves

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
    arith.CmpiOp,
)
"""Pure integer ops the launch description can express (with integer `arith.constant`)."""
LOGICAL_OPS = (arith.AndIOp, arith.OrIOp, arith.XOrIOp)
"""On `i1` only: `&&`, `||` and `!` (`xori` with true) of host conditions."""


def _host_computable(op: Operation) -> bool:
    if isinstance(op, arith.ConstantOp):
        return isinstance(op.value, IntegerAttr)
    if isinstance(op, LOGICAL_OPS):
        return op.results[0].type == IntegerType(1)
    return isinstance(op, HOST_OPS)


class HostBuilder:
    """Builds the host function from the plan's host steps, then replaces its body."""

    def __init__(self, fn: func.FuncOp, grid: ReductionGrid = ReductionGrid(),
                 array_reduction: str = "auto",
                 reads: Mapping[SSAValue, str] | None = None):  # fmt: skip
        self.fn = fn
        self.reads = reads or {}  # conditions kernels compute: value -> device variable
        self.grid = grid  # the grid limits of scalar reductions
        self.array_reduction = array_reduction  # where array reductions' copies live
        # per segment with per-block partials: its combine kernel and that kernel's threads
        self.combines: dict[int, tuple[str, int]] = {}
        old = fn.body.block
        self.block = Block(arg_types=old.arg_types)
        self.value_map: dict[SSAValue, SSAValue] = {}
        for old_arg, new_arg in zip(old.args, self.block.args, strict=True):
            new_arg.name_hint = old_arg.name_hint
            self.value_map[old_arg] = new_arg
        self.builder = Builder(InsertPoint.at_end(self.block))
        self.ix = IndexArith(self.builder, share_constants=True)
        # what the host is computing, for errors: ("the bounds of this parallel loop", nest)
        self._context: tuple[str, Operation | None] = ("", None)
        self.cloner = SliceCloner(
            self.builder,
            self.value_map,
            self._leaf,
            accept=_host_computable,
            on_reject=self._reject,
        )

    def _leaf(self, value: SSAValue) -> SSAValue:
        what, where = self._context
        depend = "depend" if what.startswith("the bounds") else "depends"
        if isinstance(where, ParallelForOp):
            why = "the host cannot compute the launch size"
        else:
            why = (
                "the host, which runs it, knows only the scalar parameters and the counters of "
                "the loops it runs (it reads back from the device only the condition of an 'if' "
                "or a 'while' loop, computed by code before it in the same block)"
            )
        raise error_at(
            where, f"{what} {depend} on {describe_value(value)}, which is computed from memory: "
            f"{why}",
        )

    def _reject(self, op: Operation, value: SSAValue) -> PassError:
        what, where = self._context
        are = "are" if what.startswith("the bounds") else "is"
        allowed = "" if isinstance(where, ParallelForOp) else ", comparisons, && || !"
        return error_at(
            where,
            f"{what} {are} computed with {op.name} ({describe_value(value)}), which the launch "
            f"description cannot express (only integer + - * / % min max and casts{allowed})",
        )

    def _host_value(self, value: SSAValue, what: str, where: Operation) -> SSAValue:
        self._context = (what, where)
        _, leaves = slice_leaves([value], is_leaf=lambda v: v in self.value_map)
        for leaf in leaves:  # data from memory first: it, not the op using it, is the reason
            owner = leaf.owner
            if leaf not in self.value_map and not (
                isinstance(owner, Operation) and is_recomputable(owner)
            ):
                self._leaf(leaf)
        return self.cloner.get(value)

    @contextmanager
    def _scope(self, block: Block) -> Generator[None]:
        """Builds into a nested block: values computed there are not reused after it."""
        saved_map = dict(self.value_map)
        saved_constants = self.ix.save_constants()
        saved_point = self.builder.insertion_point
        self.builder.insertion_point = InsertPoint.at_end(block)
        try:
            yield
        finally:
            self.builder.insertion_point = saved_point
            self.value_map.clear()
            self.value_map.update(saved_map)
            self.ix.restore_constants(saved_constants)

    def build(
        self, steps: Sequence[HostStep], kernels: Mapping[int, tuple[str, BlockShape]]
    ) -> None:
        """The launches of `steps` (kernel name and block by segment index), in order, inside
        the host control flow."""
        for step in steps:
            if isinstance(step, Segment):
                self.launch(step, *kernels[step.index])
            elif isinstance(step, HostFor):
                self._for(step, kernels)
            elif isinstance(step, HostWhile):
                self._while(step, kernels)
            else:
                self._if(step, kernels)

    def _for(self, step: HostFor, kernels: Mapping[int, tuple[str, BlockShape]]) -> None:
        op = step.op
        lb, ub, stride = (
            self._host_value(v, "the bounds of this loop around kernels", op)
            for v in (op.lb, op.ub, op.step)
        )
        iv = op.body.block.args[0]
        body = Block(arg_types=[iv.type])
        body.args[0].name_hint = step.var.name
        loop = self.builder.insert(scf.ForOp(lb, ub, stride, [], Region(body)))
        loop.location = op.location
        with self._scope(body):
            self.value_map[iv] = body.args[0]
            self.build(step.body, kernels)
            self.builder.insert(scf.YieldOp())

    def _read_back(self, value: SSAValue) -> None:
        """Maps a condition a kernel computed to its value read from the device variable."""
        if value not in self.reads:
            return
        assert isa(value.type, IntegerType)
        cell = self.builder.insert(memref.GetGlobalOp(
            SymbolRefAttr("kernels", [self.reads[value]]), MemRefType(value.type, []))).memref
        loaded = self.builder.insert(memref.LoadOp.get(cell, [])).res
        loaded.name_hint = value.name_hint or "cond"
        self.value_map[value] = loaded

    def _while(self, step: HostWhile, kernels: Mapping[int, tuple[str, BlockShape]]) -> None:
        op = step.op
        before, after = Block(), Block()
        loop = self.builder.insert(scf.WhileOp([], [], Region(before), Region(after)))
        loop.location = op.location
        with self._scope(before):
            self.build(step.before, kernels)
            self._read_back(step.cond)
            cond = self._host_value(step.cond, "the condition of this 'while' around kernels",
                                    op)
            self.builder.insert(scf.ConditionOp(cond))
        with self._scope(after):
            self.build(step.body, kernels)
            self.builder.insert(scf.YieldOp())

    def _if(self, step: HostIf, kernels: Mapping[int, tuple[str, BlockShape]]) -> None:
        op = step.op
        self._read_back(op.cond)
        cond = self._host_value(op.cond, "the condition of this 'if' around kernels", op)
        then, orelse = Block(), Block()
        branches = [(then, step.then)] + ([(orelse, step.orelse)] if step.orelse else [])
        new = scf.IfOp(cond, [], Region(then), Region(orelse) if step.orelse else None)
        new.location = op.location
        self.builder.insert(new)
        for block, steps in branches:
            with self._scope(block):
                self.build(steps, kernels)
                self.builder.insert(scf.YieldOp())

    def launch(self, seg: Segment, kernel_name: str, block: BlockShape) -> None:
        one = self.ix.const(1)
        grid = [one, one, one]
        if seg.mapping is not None:
            for dim_index, dim in enumerate((DimensionEnum.X, DimensionEnum.Y, DimensionEnum.Z)):
                level = seg.mapping.level_on(dim)
                if level is None:
                    continue
                lb, ub, step = (
                    self.ix.cast(
                        self._host_value(v, "the bounds of this parallel loop", seg.mapping.nest)
                    )
                    for v in level.loop.operands[:3]
                )
                count = self.ix.sub(ub, lb)
                if not level.sparse:
                    count = self.ix.ceildiv(count, step)
                per_block = self.ix.const(block.on(dim) * level.unroll)
                size = self.ix.max(self.ix.ceildiv(count, per_block), one)
                limit = partial_grid_limit(
                    self.array_reduction, len(seg.array_reductions()), dim,
                    grid_limit(seg.mapping, dim, self.grid, bool(seg.scalar_reductions())))
                if limit is not None:
                    size = self.ix.min(size, self.ix.const(limit))
                if dim == DimensionEnum.X:
                    for teams in teams_expressions(seg.mapping.nest):  # num_teams(e)
                        size = self.ix.min(size, self.ix.max(self._bound(teams), one))
                if constant_value(size) is None and size.name_hint is None:
                    size.name_hint = f"grid_{dim.value}"
                grid[dim_index] = size
        sizes = [self.ix.const(n) for n in block.as_list()]
        host_args = [self.value_map[v] for v in seg.host_args]
        scratch = self._partials_scratch(seg, grid)
        launch = self.builder.insert(
            gpu.LaunchFuncOp(
                kernel_symbol(kernel_name), grid, sizes,
                kernelOperands=[*self.block.args, *host_args, *scratch],
                dynamicSharedMemorySize=self._dynamic_shared_bytes(seg),
            )
        )
        if scratch:  # the second pass, on the same grid (array_reductions.combine_partials)
            combine, threads = self.combines[seg.index]
            self.builder.insert(gpu.LaunchFuncOp(
                kernel_symbol(combine), grid, [self.ix.const(n) for n in (threads, 1, 1)],
                kernelOperands=[*self.block.args, *host_args, *scratch]))  # fmt: skip
        if seg.mapping is not None and PART_NEST in seg.mapping.nest.attributes:
            launch.attributes[PART_NEST] = seg.mapping.nest.attributes[PART_NEST]  # out-of-core
        if seg.mapping is not None and (bounds := launch_bound_expressions(seg.mapping.nest)):
            launch.attributes[LAUNCH_BOUNDS] = bounds  # checked at launch

    def _partials_scratch(self, seg: Segment, grid: list[SSAValue]) -> list[SSAValue]:
        """A scratch of `blocks * len` elements per reduced section of a kernel with per-block
        partials (`memref.alloc`, the launch description's `scratch`); none for the others."""
        if seg.mapping is None or seg.index not in self.combines:
            return []
        blocks = self.ix.mul(self.ix.mul(grid[0], grid[1]), grid[2])
        scratch: list[SSAValue] = []
        for _, var, _, length in seg.array_reductions():
            assert isa(var.type, MemRefType)
            count = self.ix.cast(self._host_value(
                length, "the length of this reduced section", seg.mapping.nest))  # fmt: skip
            elements = self.ix.mul(blocks, self.ix.max(count, self.ix.const(0)))
            alloc = self.builder.insert(memref.AllocOp.get(
                var.type.element_type, shape=[DYNAMIC_INDEX], dynamic_sizes=[elements]))
            alloc.memref.name_hint = f"{var.name_hint or 'array'}_partials"
            scratch.append(alloc.memref)
        return scratch

    def _bound(self, expr: str) -> SSAValue:
        """A launch bound the frontend recorded as an expression of the integer parameters
        (frontend/launch_bounds.py: integers, names, + - * / %, unary -, parentheses, fully
        parenthesised) as `index` arithmetic on the host's parameters, C's truncating division
        included."""
        params = {arg.name_hint: arg for arg in self.block.args if arg.name_hint}
        tokens = re.findall(r"\d+|[A-Za-z_]\w*|\S", expr)
        at = 0

        def take() -> str:
            nonlocal at
            at += 1
            return tokens[at - 1]

        def operand() -> SSAValue:
            token = take()
            if token == "(":
                if tokens[at] in ("-", "+"):
                    sign = take()
                    value = operand()
                    take()  # ")"
                    return self.ix.sub(self.ix.const(0), value) if sign == "-" else value
                left = operand()
                op = take()
                right = operand()
                take()  # ")"
                return self._binary(op, left, right)
            if token.isdigit():
                return self.ix.const(int(token))
            if token not in params:
                raise PassError(f"launch bound '{expr}' reads '{token}', which is not a "
                                f"parameter of @{self.fn.sym_name.data}")
            return self.ix.cast(params[token])

        return operand()

    def _binary(self, op: str, left: SSAValue, right: SSAValue) -> SSAValue:
        if op in "+-*":
            return {"+": self.ix.add, "-": self.ix.sub, "*": self.ix.mul}[op](left, right)
        kind = arith.DivSIOp if op == "/" else arith.RemSIOp
        return self.builder.insert(kind(left, right)).result

    def _dynamic_shared_bytes(self, seg: Segment) -> SSAValue | None:
        """`K * sizeof(T) * (K <= cap)` (i32) for the section the kernel keeps in dynamic
        shared memory, as the kernel decides (`dynamic_shared_section`); None without one."""
        if seg.mapping is None:
            return None
        sections = seg.array_reductions()
        shapes: list[tuple[int | None, int]] = []
        for _, var, _, length in sections:
            assert isa(var.type, MemRefType)
            shapes.append((known_int(length), element_bytes(var.type.element_type)))
        found = dynamic_shared_section(self.array_reduction, shapes)
        if found is None:
            return None
        position, cap, size = found
        length = self.ix.cast(self._host_value(
            sections[position][3], "the length of this reduced section", seg.mapping.nest))
        fits = self.builder.insert(arith.CmpiOp(length, self.ix.const(cap), "ule")).result
        flag = self.builder.insert(arith.ExtUIOp(fits, i64)).result
        bytes_ = self.ix.mul(self.ix.mul(length, self.ix.const(size)), self.ix.cast(flag))
        result = self.builder.insert(arith.IndexCastOp(bytes_, i32)).result
        result.name_hint = "shared_bytes"
        return result

    def finish(self) -> None:
        """Replaces the function's body with the launches."""
        self.builder.insert(func.ReturnOp())
        old = self.fn.body.block
        self.fn.body.detach_block(old)
        old.erase(safe_erase=False)
        self.fn.body.add_block(self.block)

