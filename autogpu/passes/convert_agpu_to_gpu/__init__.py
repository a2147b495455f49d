"""`convert-agpu-to-gpu`: serial C kernels with parallel loops -> CUDA-model IR.

AutoGPU's direct translation (the paper's `mm_0`, Tables 2.1 and 3.1): each outermost
`agpu.parallel_for` nest of a C function becomes a `gpu.func` kernel in `gpu.module @kernels`
(its innermost parallel loop on threads along x, the next ones on grid y and z), the code between
nests that touches memory becomes single-thread kernels, and the function itself becomes the host
code that launches them in program order with grid sizes computed from its scalar parameters.
See docs/ir.md for the shape produced. The pieces, in this package: how a C function splits into
launches (`function_plan`), the kernels (`kernel_builder`, `jam`, `reductions`), which guards the
grid makes unnecessary (`coverage`) and the host side (`host`); how a parallel nest maps onto
threads and blocks is shared with `agpu-unroll-parallel`
(`autogpu/passes/analysis/nest_mapping.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from xdsl.context import Context
from xdsl.dialects import builtin, func, gpu, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, StringAttr, UnitAttr, i32
from xdsl.dialects.gpu import DimensionEnum
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.transforms.dead_code_elimination import region_dce
from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.hints import isa

from autogpu.passes.analysis.dependences import check_parallel_loops
from autogpu.passes.analysis.nest_mapping import NestMapping
from autogpu.passes.convert_agpu_to_gpu.array_reductions import STRATEGIES
from autogpu.passes.convert_agpu_to_gpu.constant_tables import ConstantBank, Table
from autogpu.passes.convert_agpu_to_gpu.coverage import ReductionGrid
from autogpu.passes.convert_agpu_to_gpu.function_plan import (
    FunctionPlan,
    SymbolNamer,
    plan_function,
)
from autogpu.passes.convert_agpu_to_gpu.host import HostBuilder
from autogpu.passes.convert_agpu_to_gpu.kernel_builder import BlockShape, KernelBuilder
from autogpu.passes.convert_agpu_to_gpu.launch_bounds import bounded_block
from autogpu.passes.convert_agpu_to_gpu.reductions import normalise_logical_starts
from autogpu.passes.options import DeclaredOptionsPass, at_least, one_of, option, threads
from autogpu.passes.utils.errors import PassError, error_at
from autogpu.target.cuda_limits import MAX_BLOCK, MAX_THREADS_PER_BLOCK, MIN_BLOCKS_ATTR

MAX_BLOCK_Z = MAX_BLOCK[2]
ARRAY_REDUCTION_TUNING = ("['auto', 'registers', 'shared', 'global', 'partials'] if "
                          "array_reductions else 'auto'")
"""The tuner tries every strategy for a kernel with an array reduction, none for the others
(`array_reductions` is in its environment: tuner/prepared.py)."""
REDUCE_BLOCKS_TUNING = "[0, 264, 528, 1056, 2112] if scalar_reductions else 0"
"""The tuner tries a few grids of whole waves on 132 SMs for a kernel with a scalar reduction
(`scalar_reductions` is in its environment: tuner/prepared.py), none for the others."""
WALKERS_TUNING = "[0, 16, 32, 64] if split_accumulations else 0"
"""The tuner tries a few walker counts for a kernel with a parallel loop accumulating over a
serial one (`split_accumulations` is in its environment: tuner/prepared.py), none for others."""
KERNEL_MODULE = "kernels"


def validate_block(block_size: int, block_y: int, block_z: int) -> BlockShape:
    """The block shape the options ask for, or a `PassError` saying why CUDA cannot run it."""
    for name, value in (("block_size", block_size), ("block_y", block_y), ("block_z", block_z)):
        if value < 1:
            raise PassError(f"invalid option {name}={value}: threads per block must be >= 1")
    if block_z > MAX_BLOCK_Z:
        raise PassError(f"invalid option block_z={block_z}: CUDA allows at most {MAX_BLOCK_Z}")
    if (threads := block_size * block_y * block_z) > MAX_THREADS_PER_BLOCK:
        raise PassError(
            f"invalid block of {block_size}x{block_y}x{block_z} = {threads} threads: CUDA "
            f"allows at most {MAX_THREADS_PER_BLOCK} threads per block"
        )
    return BlockShape(block_size, block_y, block_z)


@dataclass(frozen=True)
class ConvertAgpuToGpuPass(DeclaredOptionsPass):
    """Lowers every C function of the module to a host function and its `gpu.func` kernels."""

    name = "convert-agpu-to-gpu"

    block_size: int = option(
        256, doc="Threads per block along x (the innermost parallel loop).",
        tuning="pow2(64, 512)", role=threads(0))
    block_y: int = option(
        1, doc="Threads per block along y (the loop mapped to y); 1: one grid row per y "
        "iteration.", role=threads(1))
    block_z: int = option(1, doc="Threads per block along z.", role=threads(2))
    jam: bool = option(
        True, doc="Unroll-and-jam the replicas of a thread (`unroll` > 1): full tiles run one "
        "jammed copy of the body without guards, the rest guarded replica by replica. false: "
        "every replica is a guarded copy of the whole body (no reuse between replicas).")
    array_reduction: str = option(
        "auto", doc="Where the partial results of an array reduction (`reduction(+: h[0:K])`) "
        "live: `registers` (a private array per thread, for a few elements), `shared` (a "
        "`__shared__` copy per block, merged with one atomic per element and block), `global` "
        "(atomics on the array itself), `partials` (a row per block of a scratch of the call, "
        "combined in block order by a second kernel); `auto` picks by the section's size among "
        "the first three. A strategy that cannot hold the section falls back to the next "
        "(array_reductions.py).",
        check=one_of(*STRATEGIES), tuning=ARRAY_REDUCTION_TUNING)
    reduce_blocks: int = option(
        0, doc="The most blocks along x of a kernel with a scalar reduction: each thread then "
        "accumulates the tiles of a grid-stride loop in registers before its block combines "
        "once (CUB's even share; one atomic per block and variable). 0: no limit, a block per "
        "tile of block_size x unroll_x iterations.", check=at_least(0),
        tuning=REDUCE_BLOCKS_TUNING)
    deterministic: bool = option(
        False, doc="Scalar reductions combine their blocks' partial results in a fixed order "
        "(the last block to finish combines them; reductions.py) instead of one atomic per "
        "block in the order blocks finish: a floating-point result is the same bit for bit "
        "run after run. Bounds the grid (coverage.py, ReductionGrid). A kernel option: the "
        "tuner keeps what the user asks for.")
    min_blocks: int = option(
        0, doc="Blocks a multiprocessor must hold at once (the second argument of the kernels' "
        "`__launch_bounds__`: nvcc then keeps a thread within 65536 / (threads * min_blocks) "
        "registers, spilling if it must); 0: not given (nvcc may use up to 255 registers, "
        "which a large register tile can take, leaving one block per multiprocessor).",
        check=at_least(0))
    split_walkers: int = option(
        0, doc="Row-walkers sharing the serial accumulation loop of each qualifying parallel "
        "loop (`out[j] = s` after `for (i...) s += e`: column sums), a second parallel "
        "dimension combined into the output by atomics; floating-point sums and products "
        "reassociate, as an OpenMP reduction may. 0: no split; never with deterministic "
        "(agpu_split_accumulations.py).", check=at_least(0), tuning=WALKERS_TUNING)
    assume_no_alias: bool = option(
        False, doc="Assume distinct pointer parameters never overlap, as if all were "
        "`restrict` (split_walkers needs the loop's reads apart from the output).")

    def __post_init__(self) -> None:
        super().__post_init__()
        validate_block(self.block_size, self.block_y, self.block_z)

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        block = validate_block(self.block_size, self.block_y, self.block_z)
        for existing in op.ops:
            if isinstance(existing, gpu.ModuleOp):
                raise error_at(
                    existing,
                    f"the module already has a gpu.module @{existing.sym_name.data}: "
                    "convert-agpu-to-gpu runs once, on C-level IR"
                )
        if not any(isinstance(f, func.FuncOp) and f.body.blocks for f in op.ops):
            return
        check_parallel_loops(op)  # never lower a loop whose iterations provably conflict
        # Lower a copy, so that a refused construct leaves the input untouched.
        work = op.clone()
        if not self.deterministic:
            # imported here: the split uses this package's reduction identities
            from autogpu.passes.agpu_split_accumulations import split_accumulations

            split_accumulations(work, self.split_walkers, self.assume_no_alias)
        explicit = block != BlockShape(*(_DEFAULTS[name] for name in ("block_size", "block_y",
                                                                       "block_z")))  # fmt: skip
        _lower_module(work, block, self.jam, self.array_reduction, explicit,
                      ReductionGrid(self.reduce_blocks, self.deterministic))
        if self.min_blocks:
            for kernel in work.walk():
                if isinstance(kernel, gpu.FuncOp) and kernel.kernel is not None:
                    kernel.attributes[MIN_BLOCKS_ATTR] = IntegerAttr(self.min_blocks, i32)
        op.body.detach_block(op.body.block).erase(safe_erase=False)
        op.body.add_block(work.body.detach_block(work.body.block))
        op.attributes["gpu.container_module"] = UnitAttr()


_DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(ConvertAgpuToGpuPass)}
"""The options' defaults: a block other than theirs was asked for (launch_bounds.py)."""


def _lower_module(
    op: builtin.ModuleOp, block: BlockShape, jam: bool, array_reduction: str,
    explicit: bool, grid: ReductionGrid = ReductionGrid(),
) -> None:
    functions = [f for f in op.ops if isinstance(f, func.FuncOp) and f.body.blocks]
    kernels = gpu.ModuleOp(
        StringAttr(KERNEL_MODULE),  # pyright: ignore[reportArgumentType]
        Region(Block()),
    )
    first = op.body.block.first_op
    assert first is not None  # the module has functions (apply returns early otherwise)
    op.body.block.insert_ops_before([kernels], first)
    namer = SymbolNamer(set())
    bank = ConstantBank()
    for fn in functions:
        normalise_logical_starts(fn)
        _lower_function(plan_function(fn, namer), kernels.body.block, namer, block, jam,
                        array_reduction, explicit, bank, grid)
    try:
        op.verify()
    except DiagnosticException as e:  # a bug of this pass, reported as such
        raise PassError(f"internal error: convert-agpu-to-gpu produced invalid IR: {e}") from e


def _lower_function(
    plan: FunctionPlan, kernels: Block, namer: SymbolNamer, block: BlockShape, jam: bool,
    array_reduction: str, explicit: bool, bank: ConstantBank,
    grid: ReductionGrid = ReductionGrid(),
) -> None:
    fn_name = plan.func.sym_name.data
    for slot in plan.slots.values():
        if slot.table is not None and slot.global_name is not None:
            bank.admit(slot.alloca, slot.table)
            kernels.add_op(_table_global(slot.global_name, slot.value.type, slot.table))
        elif slot.global_name is not None:
            assert isa(slot.value.type, MemRefType)
            kernels.add_op(_device_global(slot.global_name, slot.value.type, slot.alloca))
    for spill in plan.spills.values():
        kernels.add_op(_device_global(spill.global_name, MemRefType(spill.value.type, []), None))
    host = HostBuilder(plan.func, grid, array_reduction, plan.host_reads)
    single = len(plan.segments) == 1
    launched: dict[int, tuple[str, BlockShape]] = {}
    for seg in plan.segments:
        name = namer.fresh(f"{fn_name}_kernel" if single else f"{fn_name}_kernel{seg.index}")
        shape = BlockShape(1, 1, 1)
        if seg.mapping is not None:
            shape = bounded_block(_shape_of(seg.mapping, block), seg.mapping.nest, explicit)
        builder = KernelBuilder(plan, seg, name, shape, jam, array_reduction, grid, namer.fresh)
        kernel = builder.build_parallel() if seg.is_parallel else builder.build_serial()
        region_dce(kernel.body)
        kernels.add_ops(builder.globals)
        kernels.add_op(kernel)
        launched[seg.index] = (name, shape)
        if seg.is_parallel and array_reduction == "partials" and seg.array_reductions():
            combine = namer.fresh(f"{name}_combine")
            threads = BlockShape(COMBINE_THREADS, 1, 1)
            second = KernelBuilder(plan, seg, combine, threads, jam, array_reduction, grid,
                                   namer.fresh).build_combine()
            region_dce(second.body)
            kernels.add_op(second)
            host.combines[seg.index] = (combine, COMBINE_THREADS)
    host.build(plan.steps, launched)
    host.finish()
    region_dce(plan.func.body)


COMBINE_THREADS = 256
"""Threads per block of the kernel that combines per-block partials (array_reductions.py)."""


def _shape_of(mapping: NestMapping, block: BlockShape) -> BlockShape:
    """The block of a kernel: threads only along the dimensions its nest uses."""
    return BlockShape(
        *(
            block.on(dim) if mapping.level_on(dim) is not None else 1
            for dim in (DimensionEnum.X, DimensionEnum.Y, DimensionEnum.Z)
        )
    )


def _table_global(name: str, memref_type: Attribute, table: Table) -> memref.GlobalOp:
    """A table's values in constant memory (`__constant__ T name[n] = {...};`), or in device
    memory when the bank is full."""
    constant = UnitAttr() if table.in_constant_memory else None
    return memref.GlobalOp.get(StringAttr(name), memref_type, table.values, constant=constant)


def _device_global(
    name: str, memref_type: MemRefType, variable: Operation | None
) -> memref.GlobalOp:
    """An uninitialised variable in device memory (`__device__ T name;`) for the one
    `variable` (an alloca) defines."""
    if any(size < 0 for size in memref_type.get_shape()):
        raise error_at(variable, f"variable-length arrays cannot live in device memory ('{name}')")
    return memref.GlobalOp.get(StringAttr(name), memref_type, UnitAttr())
