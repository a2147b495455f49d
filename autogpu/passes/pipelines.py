"""Named pipelines: one pass name for a whole sequence of passes, with the options users tune.

A pipeline is a `ModulePass` whose `apply` runs its sub-passes, so it works everywhere a pass
does: `autogpu-opt -p 'autogpu-vanilla{block_size=128}'`, `PassPipeline`, the tuner.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass, PassPipeline
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

from autogpu.passes.convert_agpu_to_gpu import ConvertAgpuToGpuPass, validate_block


@dataclass(frozen=True)
class AutogpuVanillaPipeline(ModulePass):
    """AutoGPU's direct translation (the paper's `mm_0`): the parallel loops as they are,
    mapped to threads and blocks, then folded and deduplicated.

    canonicalize and cse only fold and merge the arith/scf/memref/gpu ops the lowering
    produces (constants, index arithmetic, dead code), so the result stays printable by the
    `cuda` target.
    """

    name = "autogpu-vanilla"

    block_size: int = 256
    """Threads per block along x (forwarded to convert-agpu-to-gpu)."""
    block_y: int = 1
    block_z: int = 1

    def __post_init__(self) -> None:
        validate_block(self.block_size, self.block_y, self.block_z)

    def passes(self) -> tuple[ModulePass, ...]:
        return (
            ConvertAgpuToGpuPass(self.block_size, self.block_y, self.block_z),
            CanonicalizePass(),
            CommonSubexpressionElimination(),
        )

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PassPipeline(self.passes()).apply(ctx, op)


@dataclass(frozen=True)
class AutogpuOptimizePipeline(ModulePass):
    """The AutoGPU transformations in the paper's order, every parameter an option:

    specialise sizes → dense/sparse indexing → staging of accumulations → parallel unrolling
    (thread coarsening, recorded on the loops) → lowering (threads, blocks, unroll-and-jam,
    guards) → caching through `__shared__` → unrolling of serial loops → guard placement →
    canonicalize, cse.

    Caching and serial unrolling run on the lowered kernel: caching needs the block shape and
    the barriers that only exist there, and unrolling the serial loop after caching unrolls the
    loop over a shared tile (the paper's `k` unrolled 16 in `mm_autogpu`).
    """

    name = "autogpu-optimize"

    TUNING_SPACE: ClassVar[dict[str, str]] = {
        "block_size": "pow2(64, 512)",
        "unroll_x": "[1, 2, 4]",
        "unroll_y": "[1, 2, 4, 8]",
        "unroll_serial": "[1, 4, 16]",
        "cache": "[false, true]",
    }
    """The tuner's default space (the paper's ranges): 288 variants, the paper-structure
    kernels among them (`mm_autogpu`: block 256, unroll (2, 8), k unrolled 16)."""
    TUNING_RESTRICTIONS: ClassVar[tuple[str, ...]] = ("unroll_x * unroll_y <= 32",)
    """Bounds the replicas of a thread (each holds its own accumulators in registers) where a
    user widens the unroll factors; serial unrolling only lengthens the code."""

    sizes: str = ""
    """Sizes to compile in, e.g. "m=2048,n=2048" (agpu-specialize): guards the grid proves
    unnecessary disappear and constant loops unroll fully; the kernel then requires them."""
    dense_threshold: int = 64
    """Strided parallel loops with a step at least this use dense indexing."""
    stage: bool = True
    """Keep array elements accumulated in serial loops in registers."""
    assume_no_alias: bool = True
    """The paper's assumption that distinct array parameters do not overlap, for staging and
    caching; autogpu's executors reject overlapping arrays, so it holds for their callers."""
    unroll_x: int = 1
    """Parallel unroll (thread coarsening) factor of the loop mapped to x."""
    unroll_y: int = 1
    unroll_z: int = 1
    block_size: int = 256
    """Threads per block along x."""
    block_y: int = 1
    block_z: int = 1
    jam: bool = True
    """Jam the replicas of parallel unrolling through serial loops (register reuse)."""
    cache: bool = True
    """Cache thread-invariant reads walking a serial loop in shared memory (mm_1 → mm_2)."""
    cache_halo: bool = True
    """Also cache windows reused by neighbouring threads (stencils, convolutions)."""
    cache_tile: int = 0
    """Strip-mining tile of cached serial loops; 0: the block width."""
    cache_max_extent: int = 0
    """Largest serial-loop extent assumed for halo tiles when it is not a constant; 0: none."""
    shared_budget: int = 48 * 1024
    """Bytes of shared memory per block the caching may use."""
    unroll_serial: int = 1
    """Unroll factor of serial loops (with a remainder loop where it does not divide)."""
    unroll_loops: tuple[str, ...] = ()
    """Serial loops to unroll, by induction variable name (each must exist); empty: the
    innermost ones."""
    full_unroll_limit: int = 16
    """Serial loops with a constant trip count up to this unroll fully."""

    def __post_init__(self) -> None:
        validate_block(self.block_size, self.block_y, self.block_z)

    def passes(self) -> tuple[ModulePass, ...]:
        from autogpu.passes.agpu_dense_indexing import AgpuDenseIndexingPass
        from autogpu.passes.agpu_specialize import AgpuSpecializePass
        from autogpu.passes.agpu_stage_accumulations import AgpuStageAccumulationsPass
        from autogpu.passes.agpu_unroll_parallel import AgpuUnrollParallelPass
        from autogpu.passes.agpu_unroll_serial import AgpuUnrollSerialPass
        from autogpu.passes.gpu_cache_shared import GpuCacheSharedPass
        from autogpu.passes.gpu_optimize_guards import GpuOptimizeGuardsPass

        passes: list[ModulePass] = []
        if self.sizes:
            passes.append(AgpuSpecializePass(sizes=self.sizes))
        passes.append(AgpuDenseIndexingPass(threshold=self.dense_threshold))
        if self.stage:
            passes.append(AgpuStageAccumulationsPass(assume_no_alias=self.assume_no_alias))
        passes.append(AgpuUnrollParallelPass(x=self.unroll_x, y=self.unroll_y, z=self.unroll_z))
        passes.append(
            ConvertAgpuToGpuPass(self.block_size, self.block_y, self.block_z, jam=self.jam)
        )
        if self.cache:
            passes.append(
                GpuCacheSharedPass(
                    halo=self.cache_halo,
                    tile=self.cache_tile,
                    shared_budget=self.shared_budget,
                    max_extent=self.cache_max_extent,
                    assume_no_alias=self.assume_no_alias,
                )
            )
        passes.append(
            AgpuUnrollSerialPass(
                factor=self.unroll_serial,
                loops=self.unroll_loops,
                full_unroll_limit=self.full_unroll_limit,
            )
        )
        passes += [GpuOptimizeGuardsPass(), CanonicalizePass(), CommonSubexpressionElimination()]
        return tuple(passes)

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PassPipeline(self.passes()).apply(ctx, op)
