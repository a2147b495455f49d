"""`agpu-unroll-parallel`: set the parallel unroll factors (thread coarsening, AutoGPU 2.3.4) of
the loops that will run on each GPU dimension.

    agpu-unroll-parallel{x=2 y=8}

sets `unroll 2` on the parallel loop of every nest that `convert-agpu-to-gpu` maps to x (the
innermost parallel loop of the nest's chain, unless a `mapping` property says otherwise) and
`unroll 8` on the one mapped to y, exactly as `nest_mapping.map_nest` decides, so the factors
land where the lowering will look for them. Each thread then runs `x * y` iterations (its
replicas), jammed by the lowering (`convert_agpu_to_gpu/jam.py`); the grid shrinks accordingly.

`distribution=blocked` gives each thread consecutive iterations (replica r of thread t runs
t * factor + r) instead of the paper's cyclic ones (t + r * threads): a thread's reads of a
tile are then contiguous (vector loads), while neighbouring threads are `factor` apart.

An option left out keeps the loops' current factors; a factor for a dimension a nest does not
use is ignored for that nest. Factors must be at least 1, and the replicas of a nest may make at
most `MAX_UNROLLED_OPERATIONS` operations (replicas times the nest's).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.dialects.gpu import DimensionEnum

from autogpu.dialects.agpu import DISTRIBUTIONS, ParallelForOp
from autogpu.passes.analysis.loops import check_unrolled_size
from autogpu.passes.analysis.nest_mapping import map_nest
from autogpu.passes.options import DeclaredOptionsPass, one_of, option, parallel_unroll


def _outermost_parallel_loops(module: ModuleOp) -> list[ParallelForOp]:
    loops: list[ParallelForOp] = []
    for fn in module.ops:
        if not isinstance(fn, func.FuncOp):
            continue
        for op in fn.walk():
            if isinstance(op, ParallelForOp) and not any(
                isinstance(parent, ParallelForOp) for parent in _ancestors(op)
            ):
                loops.append(op)
    return loops


def _ancestors(op: ParallelForOp):
    parent = op.parent_op()
    while parent is not None:
        yield parent
        parent = parent.parent_op()


def _factor(name: str, factor: object) -> str | None:
    """A factor is an integer of at least 1, or None (keep the loop's)."""
    if factor is None:
        return None
    if isinstance(factor, bool) or not isinstance(factor, int):
        return f"invalid factor {name}={factor}: expected an integer"
    if factor < 1:
        return (f"invalid factor {name}={factor}: each thread runs at least one iteration "
                "(factors must be at least 1)")
    return None


UNROLL_X_TUNING = "[1, 2, 4, 8, 16] if scalar_reductions else [1, 2, 4]"
"""A streaming scalar reduction is fastest with 8 to 16 items per thread (CUB's reduce policy;
H100: the reductions suite, docs/h100-findings.md); other kernels keep the paper's factors."""


@dataclass(frozen=True)
class AgpuUnrollParallelPass(DeclaredOptionsPass):
    """Set `unroll` on the parallel loops mapped to x, y and z."""

    name = "agpu-unroll-parallel"

    x: int | None = option(
        None, doc="Iterations of the loop on x per thread (None: keep the current factor).",
        check=_factor, tuning=UNROLL_X_TUNING, role=parallel_unroll(0))
    y: int | None = option(None, doc="Iterations of the loop on y per thread.", check=_factor,
                           tuning="[1, 2, 4, 8]", role=parallel_unroll(1))
    z: int | None = option(None, doc="Iterations of the loop on z per thread.", check=_factor,
                           role=parallel_unroll(2))
    distribution: str = option(
        "cyclic", doc="How a thread's replicas spread over the loop: cyclic (t + r * threads, "
        "neighbouring threads read neighbouring elements) or blocked (t * factor + r, a "
        "thread's own elements are neighbours: contiguous register fragments).",
        check=one_of(*DISTRIBUTIONS))

    def factors(self) -> dict[DimensionEnum, int]:
        given = {DimensionEnum.X: self.x, DimensionEnum.Y: self.y, DimensionEnum.Z: self.z}
        return {dim: factor for dim, factor in given.items() if factor is not None}

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        factors = self.factors()
        for nest in _outermost_parallel_loops(op):
            levels = [
                (level, level.dim)
                for level in map_nest(nest).levels
                if level.dim is not None and level.dim in factors
            ]
            given = " ".join(f"{dim.value}={factors[dim]}" for _, dim in levels)
            check_unrolled_size(nest, prod(factors[dim] for _, dim in levels),
                                f"agpu-unroll-parallel: {given} on the nest of loop "
                                f"'{nest.body.block.args[0].name_hint or '?'}'")
            for level, dim in levels:
                level.loop.unroll = IntegerAttr(factors[dim], i64)
            for level in map_nest(nest).levels:
                if level.dim is not None and self.distribution != "cyclic":
                    level.loop.distribution = StringAttr(self.distribution)
