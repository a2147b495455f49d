"""Which bounds guards the launch grid makes unnecessary (AutoGPU 2.3.5).

A mapped loop with a constant iteration count `C` (in thread units: `ub - lb` for sparse
indexing, `ceil((ub - lb) / step)` for dense) is launched on exactly
`G = max(ceildiv(C, b * U), 1)` blocks of `b` threads, each thread running `U` replicas: replica
`u` of thread `t` in block `g` takes iteration `g*b*U + t + u*b` (docs/ir.md). So

    every replica u of every thread is in range  iff  (G - 1)*b*U + (b - 1) + u*b < C

and in particular the whole tile of every thread is in range iff `C % (b*U) == 0` (and C > 0):
then the kernel needs no guard on that dimension. On y and z the grid is clamped to 65535 and the
kernel loops over the rest (grid-stride); when `ceildiv(C, b*U)` fits, the loop runs exactly once
per thread and is replaced by the single pass, otherwise only the divisibility argument holds
(every tile a thread visits is full or starts past the end).

These facts hold for the launch the host computes (the launch description); a kernel with
constant sizes relies on being launched with that grid.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.ir import SSAValue

from autogpu.passes.analysis.integers import bit_width, ceil_div
from autogpu.passes.analysis.polynomial import PolynomialAnalysis
from autogpu.passes.utils.index_arith import constant_value
from autogpu.target.cuda_limits import MAX_GRID

MAX_GRID_YZ = MAX_GRID[1]  # y and z alike


@dataclass(frozen=True)
class Coverage:
    """How the grid covers one mapped dimension."""

    count: int | None
    """Iterations in thread units when known at compile time."""
    block: int
    """Threads per block along the dimension."""
    unroll: int
    clamped: bool
    """The grid along this dimension is clamped to 65535 (y and z)."""

    @property
    def tile(self) -> int:
        return self.block * self.unroll

    @property
    def blocks(self) -> int | None:
        """Blocks the host launches along this dimension, when known."""
        if self.count is None:
            return None
        blocks = max(ceil_div(self.count, self.tile), 1)
        return min(blocks, MAX_GRID_YZ) if self.clamped else blocks

    @property
    def single_pass(self) -> bool:
        """The grid covers every tile at once: no grid-stride loop is needed (always on x)."""
        if not self.clamped:
            return True
        return self.count is not None and ceil_div(self.count, self.tile) <= MAX_GRID_YZ

    @property
    def exact(self) -> bool:
        """Every tile of every thread lies entirely in range: no guard at all."""
        return self.count is not None and self.count > 0 and self.count % self.tile == 0

    def replica_in_range(self, u: int) -> bool:
        """Replica `u` of every thread is provably in range in the single pass (or, in a
        grid-stride loop, of every tile the loop visits, for u > 0)."""
        if self.exact:
            return True
        if not self.single_pass or self.count is None:
            return False
        blocks = self.blocks
        assert blocks is not None
        last = (blocks - 1) * self.tile + (self.block - 1) + u * self.block
        return last < self.count


def known_int(value: SSAValue) -> int | None:
    """The integer an integer or `index` value is known to hold at compile time: a constant, or
    arithmetic over constants the lowering cloned without folding (e.g. `n - 1` after
    specialisation), read through `arith.index_cast` (sign-extending)."""
    if (constant := constant_value(value)) is not None:
        return constant
    owner = value.owner
    if isinstance(owner, arith.IndexCastOp):
        value = owner.input
    if bit_width(value.type) is None:
        return None
    poly = PolynomialAnalysis().poly(value)
    return poly.constant if poly.is_constant else None
