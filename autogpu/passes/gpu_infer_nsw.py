"""`gpu-infer-nsw`: mark the kernel arithmetic that provably cannot overflow `overflow<nsw>`.

Passes build index arithmetic without `nsw` unless they know better (docs/ir.md, "Integer
overflow"), and the `cuda` target prints such wrapping `+ - *` in the unsigned type of its
width. Most of it is small, though: thread indices, shared-tile offsets (`tx + 258 + 514`),
block offsets (`blockIdx.x * 512`), tile bounds of 32-bit loops. As MLIR's
`int-range-optimizations` does, this pass bounds every integer value of each kernel by what
CUDA guarantees (`autogpu/passes/analysis/value_ranges.py`) and adds `nsw` to every
`addi`/`subi`/`muli` whose exact result provably fits its signed type, so that the target
prints it as the plain signed arithmetic it is. Host functions are left alone (their sizes are
printed as launch expressions, not C statements).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, gpu
from xdsl.dialects.builtin import ModuleOp

from autogpu.passes.analysis.value_ranges import ValueRanges
from autogpu.passes.options import DeclaredOptionsPass

_NSW = arith.IntegerOverflowFlag.NSW
_RING = (arith.AddiOp, arith.SubiOp, arith.MuliOp)


def has_nsw(op: arith.SignlessIntegerBinaryOperationWithOverflow) -> bool:
    return _NSW in op.overflow_flags.data


@dataclass(frozen=True)
class GpuInferNswPass(DeclaredOptionsPass):
    name = "gpu-infer-nsw"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in op.walk():
            if not isinstance(kernel, gpu.FuncOp):
                continue
            ranges = ValueRanges()
            for inner in kernel.walk():
                if isinstance(inner, _RING) and not has_nsw(inner) and ranges.fits(inner):
                    flags = {_NSW, *inner.overflow_flags.data}
                    inner.properties["overflowFlags"] = arith.IntegerOverflowAttr(flags)
