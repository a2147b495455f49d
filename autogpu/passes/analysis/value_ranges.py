"""Signed ranges of a kernel's integer values that hold for every launch, whatever the sizes.

What bounds the values a pass computes for a kernel (`tx + 1`, `blockIdx.x * 512`, a shared
tile offset) is CUDA itself: `threadIdx` and `blockDim` are below 1024 (64 on z), `blockIdx`
and `gridDim` below 2^31 on x and 65536 on y and z (`target/cuda_limits.py`); a 32-bit value
extended to 64 bits stays in 32 bits; `x % 42` lies in
`(-42, 42)`; an `scf.for` variable lies between its bounds. `ValueRanges.of(v)` is the interval
of `v`'s value read as signed in its type (the whole type where nothing better is known), so
`fits(op)` can tell that a 64-bit sum of such values cannot overflow (`gpu-infer-nsw`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith, gpu, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from autogpu.passes.analysis.integers import bit_width, to_signed
from autogpu.target.cuda_limits import MAX_BLOCK, MAX_GRID

MAX_THREADS = 1024  # per block, on every dimension together (CUDA's limit)
MAX_BLOCKS = 2**31 - 1  # per grid dimension (x; y and z are smaller)


@dataclass(frozen=True)
class Range:
    """The integers `lo..hi`, inclusive."""

    lo: int
    hi: int

    def union(self, other: Range) -> Range:
        return Range(min(self.lo, other.lo), max(self.hi, other.hi))

    def within(self, width: int) -> bool:
        """Every value is representable as a signed `width`-bit integer."""
        return -(2 ** (width - 1)) <= self.lo and self.hi < 2 ** (width - 1)


def full(width: int) -> Range:
    return Range(-(2 ** (width - 1)), 2 ** (width - 1) - 1)


def _corners(a: Range, b: Range, f: Callable[[int, int], int]) -> Range:
    values = [f(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return Range(min(values), max(values))


_GPU_BUILTINS = {
    "gpu.thread_id": Range(0, MAX_THREADS - 1),
    "gpu.block_dim": Range(1, MAX_THREADS),
    "gpu.block_id": Range(0, MAX_BLOCKS - 1),
    "gpu.grid_dim": Range(1, MAX_BLOCKS),
    "gpu.global_id": Range(0, MAX_BLOCKS * MAX_THREADS - 1),
}
_DIMS = {"x": 0, "y": 1, "z": 2}


def _builtin_range(op: Operation) -> Range:
    """The range of a thread, block or grid builtin along its dimension (CUDA's limits)."""
    dimension = op.properties.get("dimension")
    if not isinstance(dimension, gpu.DimensionAttr):
        return _GPU_BUILTINS[op.name]
    axis = _DIMS[str(dimension.data.value)]
    threads, blocks = MAX_BLOCK[axis], MAX_GRID[axis]
    return {
        "gpu.thread_id": Range(0, threads - 1),
        "gpu.block_dim": Range(1, threads),
        "gpu.block_id": Range(0, blocks - 1),
        "gpu.grid_dim": Range(1, blocks),
        "gpu.global_id": Range(0, blocks * threads - 1),
    }[op.name]


_EXACT: dict[str, Callable[[Range, Range], Range]] = {
    "arith.addi": lambda a, b: _corners(a, b, lambda x, y: x + y),
    "arith.subi": lambda a, b: _corners(a, b, lambda x, y: x - y),
    "arith.muli": lambda a, b: _corners(a, b, lambda x, y: x * y),
    "arith.minsi": lambda a, b: Range(min(a.lo, b.lo), min(a.hi, b.hi)),
    "arith.maxsi": lambda a, b: Range(max(a.lo, b.lo), max(a.hi, b.hi)),
}


class ValueRanges:
    """Memoised ranges of SSA values (see the module docstring)."""

    def __init__(self) -> None:
        self._ranges: dict[SSAValue, Range] = {}

    def of(self, value: SSAValue) -> Range:
        width = bit_width(value.type)
        assert width is not None, f"no integer range for {value.type}"
        if value not in self._ranges:
            computed = self._compute(value, width)
            self._ranges[value] = computed if computed and computed.within(width) else full(width)
        return self._ranges[value]

    def fits(self, op: Operation) -> bool:
        """Whether a binary `addi`/`subi`/`muli` never overflows its signed type."""
        width = bit_width(op.results[0].type)
        if width is None or op.name not in _EXACT:
            return False
        exact = _EXACT[op.name](self.of(op.operands[0]), self.of(op.operands[1]))
        return exact.within(width)

    def _compute(self, value: SSAValue, width: int) -> Range | None:
        if isinstance(value, BlockArgument):
            return self._block_argument(value)
        op = value.owner
        assert isinstance(op, Operation)
        if op.name in _GPU_BUILTINS:
            return _builtin_range(op)
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            known = to_signed(op.value.value.data, width)
            return Range(known, known)
        operands = [self.of(o) for o in op.operands if bit_width(o.type) is not None]
        if op.name in _EXACT and len(operands) == 2:
            return _EXACT[op.name](*operands)
        if isinstance(op, arith.ExtSIOp | arith.IndexCastOp | arith.TruncIOp):
            return operands[0]  # the same value, where it fits (checked by `of`)
        if isinstance(op, arith.ExtUIOp):
            source = operands[0]
            source_width = bit_width(op.operands[0].type)
            assert source_width is not None
            return source if source.lo >= 0 else Range(0, 2**source_width - 1)
        if isinstance(op, arith.RemSIOp):
            limit = max(abs(operands[1].lo), abs(operands[1].hi)) - 1
            low = 0 if operands[0].lo >= 0 else -limit
            high = 0 if operands[0].hi <= 0 else limit
            return Range(max(low, operands[0].lo), min(high, operands[0].hi))
        if isinstance(op, arith.DivSIOp | arith.CeilDivSIOp | arith.FloorDivSIOp):
            if operands[1].lo > 0:  # a positive divisor: the quotient is between 0 and a
                return Range(min(operands[0].lo, 0), max(operands[0].hi, 0))
            return None
        if isinstance(op, arith.SelectOp):
            return operands[1].union(operands[2])
        return None

    def _block_argument(self, arg: BlockArgument) -> Range | None:
        """An `scf.for` induction variable lies in `[lb, ub)` (or nowhere)."""
        block = arg.owner
        assert isinstance(block, Block)
        loop = block.parent_op()
        if isinstance(loop, scf.ForOp) and arg.index == 0:
            return self.of(loop.lb).union(self.of(loop.ub))
        return None
