"""Named pipelines: one pass name for a whole sequence of passes, with the options users tune.

A pipeline is a `ModulePass` whose `apply` runs its sub-passes, so it works everywhere a pass
does: `autogpu-opt -p 'autogpu-vanilla{block_size=128}'`, `PassPipeline`, the tuner.
"""

from __future__ import annotations

from dataclasses import dataclass

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
