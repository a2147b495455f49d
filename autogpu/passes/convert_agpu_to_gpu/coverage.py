"""Which bounds guards the launch grid makes unnecessary (AutoGPU 2.3.5).

A mapped loop with a constant iteration count `C` (in thread units: `ub - lb` for sparse
indexing, `ceil((ub - lb) / step)` for dense) is launched on exactly
`G = max(ceildiv(C, b * U), 1)` blocks of `b` threads, each thread running `U` replicas: replica
`u` of thread `t` in block `g` takes iteration `g*b*U + t + u*b` (docs/ir.md). So

    every replica u of every thread is in range  iff  (G - 1)*b*U + (b - 1) + u*b < C

and in particular the whole tile of every thread is in range iff `C % (b*U) == 0` (and C > 0):
then the kernel needs no guard on that dimension. On y and z the grid is clamped to 65535 (on
every dimension to what OpenMP's `num_teams` allows: `grid_limit`) and the kernel loops
over the rest (grid-stride); when `ceildiv(C, b*U)` fits, the loop runs exactly once
per thread and is replaced by the single pass, otherwise only the divisibility argument holds
(every tile a thread visits is full or starts past the end). The x grid of a kernel with a
scalar reduction is clamped the same way to `reduce_blocks` when that option is set, and every
dimension's when it is `deterministic` (`ReductionGrid`): each thread then accumulates many
tiles before its block combines once.

These facts hold for the launch the host computes (the launch description); a kernel with
constant sizes relies on being launched with that grid.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, StringAttr
from xdsl.dialects.gpu import DimensionEnum
from xdsl.ir import SSAValue

from autogpu.dialects.agpu import ParallelForOp
from autogpu.passes.analysis.integers import bit_width, ceil_div
from autogpu.passes.analysis.nest_mapping import NestMapping
from autogpu.passes.analysis.polynomial import PolynomialAnalysis
from autogpu.passes.utils.index_arith import constant_value
from autogpu.target.cuda_limits import MAX_GRID

MAX_GRID_YZ = MAX_GRID[1]  # y and z alike
NUM_TEAMS = "agpu.num_teams"


def num_teams(nest: ParallelForOp) -> int | None:
    """The smallest OpenMP `num_teams` recorded on the loops of `nest` (docs/ir.md)."""
    bounds = [attr.value.data for op in nest.walk()
              if isinstance(attr := op.attributes.get(NUM_TEAMS), IntegerAttr)]  # fmt: skip
    return min(bounds) if bounds else None


def teams_expressions(nest: ParallelForOp) -> list[str]:
    """The `num_teams(e)` recorded on the loops of `nest` whose `e` is an expression of the
    function's integer parameters (a string in the launch description's language, docs/ir.md):
    the host evaluates them at launch and bounds the x grid by the smallest."""
    return [attr.data for op in nest.walk()
            if isinstance(attr := op.attributes.get(NUM_TEAMS), StringAttr)]  # fmt: skip


def teams_limit(mapping: NestMapping | None, dim: DimensionEnum) -> int | None:
    """The most blocks launched along `dim` for `mapping`'s nest: OpenMP's `num_teams(N)` (a
    team is a block) allows N in all, given to x, with one block row on y and z (each block
    loops over all of them); else CUDA's 65535 on y and z, and no bound on x. A `num_teams(e)`
    of run-time value gives y and z one block row too; x is bounded at launch (None here)."""
    teams = None if mapping is None else num_teams(mapping.nest)
    if teams is not None:
        return teams if dim == DimensionEnum.X else 1
    if mapping is not None and teams_expressions(mapping.nest):
        return None if dim == DimensionEnum.X else 1
    return None if dim == DimensionEnum.X else MAX_GRID_YZ


def grid_limit(mapping: NestMapping | None, dim: DimensionEnum, grid: ReductionGrid,
               scalar_reductions: bool) -> int | None:
    """The most blocks along `dim`: the smaller of OpenMP's bound (`teams_limit`) and the
    reduction options' (`ReductionGrid`); None when neither bounds it."""
    bounds = [limit for limit in (teams_limit(mapping, dim),
                                  grid.grid_limit(dim, scalar_reductions)) if limit is not None]
    return min(bounds) if bounds else None


@dataclass(frozen=True)
class Coverage:
    """How the grid covers one mapped dimension."""

    count: int | None
    """Iterations in thread units when known at compile time."""
    block: int
    """Threads per block along the dimension."""
    unroll: int
    max_blocks: int | None
    """The most blocks the host launches along this dimension (65535 on y and z, OpenMP's
    `num_teams` where given: `grid_limit`), None when unbounded (x)."""
    blocked: bool = False
    """A thread's replicas are consecutive (t * unroll + u) rather than cyclic (t + u * block)."""
    bounded_at_launch: bool = False
    """The host bounds this dimension's blocks by a value known only at launch (`num_teams(e)`):
    a grid-stride loop, whose block count the kernel does not know."""

    @property
    def tile(self) -> int:
        return self.block * self.unroll

    @property
    def blocks(self) -> int | None:
        """Blocks the host launches along this dimension, when known."""
        if self.count is None or self.bounded_at_launch:
            return None
        blocks = max(ceil_div(self.count, self.tile), 1)
        return blocks if self.max_blocks is None else min(blocks, self.max_blocks)

    @property
    def single_pass(self) -> bool:
        """The grid covers every tile at once: no grid-stride loop is needed (on x, unless
        bounded at launch)."""
        if self.bounded_at_launch:
            return False
        if self.max_blocks is None:
            return True
        return self.count is not None and ceil_div(self.count, self.tile) <= self.max_blocks

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
        if self.blocked:
            last = (blocks - 1) * self.tile + (self.block - 1) * self.unroll + u
        else:
            last = (blocks - 1) * self.tile + (self.block - 1) + u * self.block
        return last < self.count


@dataclass(frozen=True)
class ReductionGrid:
    """The options that bound the grid of a kernel with a scalar reduction (`grid_limit`)."""

    reduce_blocks: int = 0
    """The most blocks along x (0: no limit)."""
    deterministic: bool = False
    """Blocks leave partial results for a combine in a fixed order (`reductions.py`): the grid
    needs a bound on every dimension, the size of their buffer."""

    def grid_limit(self, dim: DimensionEnum, scalar_reductions: bool) -> int | None:
        """The most blocks along `dim` of a kernel's grid: 65535 on y and z (CUDA's limit), on
        x none; for a kernel with a scalar reduction, `reduce_blocks` on x when set, and when
        deterministic `DETERMINISTIC_BLOCKS` on x (unless set) and `DETERMINISTIC_BLOCKS_YZ` on
        y and z."""
        deterministic = self.deterministic and scalar_reductions
        if dim != DimensionEnum.X:
            return DETERMINISTIC_BLOCKS_YZ if deterministic else MAX_GRID_YZ
        if self.reduce_blocks > 0 and scalar_reductions:
            return self.reduce_blocks
        return DETERMINISTIC_BLOCKS if deterministic else None


DETERMINISTIC_BLOCKS = 1056
"""The x grid of a deterministic reduction when `reduce_blocks` is not set: 8 blocks on each of
an H100's 132 SMs (one wave of 256-thread blocks), so that the partials stay few."""
DETERMINISTIC_BLOCKS_YZ = 16
"""The y and z grids of a deterministic reduction (their grid-stride loops do the rest)."""


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
