"""OpenMP's `thread_limit(N)` as a bound on the block of the kernel a parallel nest becomes.

The frontend records a constant `thread_limit(N)` of the loop's construct (or of a `teams`
region around it) as `{agpu.thread_limit = N}` on the loop (docs/ir.md). OpenMP allows no more
than N threads in a team, and a team is a block here, so every pipeline's block for that nest
holds at most N threads, whatever the block options ask: the tuner never generates a larger
one (tuner/prepared.py), and a plain compile shrinks the requested shape, z first, then y, then
x, keeping x (the coalesced dimension) as wide as the limit allows. When the options were set
by the user (not left at their defaults) a remark says so. (`num_teams(N)` bounds the grid:
`coverage.grid_limit`.)

A `num_teams(e)`/`thread_limit(e)` of the parameters has no value at compile time: the host
launch carries it (`LAUNCH_BOUNDS`, the launch description's `launch_bounds`) and the executors
check it at every launch, so that `e <= 0` or a compiled block larger than `thread_limit(e)` is
an error naming the clause rather than a launch OpenMP forbids.
"""

from __future__ import annotations

import sys

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, StringAttr

from autogpu.diagnostics import CompileError, location_of
from autogpu.dialects.agpu import ParallelForOp
from autogpu.passes.convert_agpu_to_gpu.kernel_builder import BlockShape

THREAD_LIMIT = "agpu.thread_limit"
NUM_TEAMS = "agpu.num_teams"
LAUNCH_BOUNDS = "agpu.launch_bounds"
"""Attribute of a `gpu.launch_func`: `{num_teams = ["e", ...], thread_limit = [...]}`, the
clauses of run-time value on its nest, which the executors check at launch."""


def thread_limit(nest: ParallelForOp) -> int | None:
    """The smallest `thread_limit` recorded on the loops of `nest`, None when there is none."""
    limits = [attr.value.data for op in nest.walk()
              if isinstance(attr := op.attributes.get(THREAD_LIMIT), IntegerAttr)]  # fmt: skip
    return min(limits) if limits else None


def within(shape: BlockShape, limit: int) -> BlockShape:
    """`shape` with at most `limit` threads: z, then y, then x reduced to what fits."""
    x, y, z = shape.x, shape.y, shape.z
    z = max(1, min(z, limit // (x * y)))
    y = max(1, min(y, limit // (x * z)))
    x = max(1, min(x, limit // (y * z)))
    return BlockShape(x, y, z)


def bounded_block(shape: BlockShape, nest: ParallelForOp, explicit: bool) -> BlockShape:
    """The block of `nest`'s kernel: `shape` within the nest's `thread_limit`, with a remark
    on stderr when `explicit` options asked for more."""
    limit = thread_limit(nest)
    if limit is None or shape.threads <= limit:
        return shape
    bounded = within(shape, limit)
    if explicit:
        asked = "x".join(map(str, shape.as_list()))
        got = "x".join(map(str, bounded.as_list()))
        remark = CompileError(
            f"the block options ask for {asked} = {shape.threads} threads, but this loop's "
            f"'thread_limit({limit})' allows at most {limit}: its kernel runs blocks of {got}",
            location_of(nest), severity="remark",
        )
        print(remark.format(), file=sys.stderr)
    return bounded


def launch_bound_expressions(nest: ParallelForOp) -> DictionaryAttr | None:
    """The `num_teams(e)`/`thread_limit(e)` expressions recorded on the loops of `nest` (string
    attributes, frontend/launch_bounds.py), for its launch's `LAUNCH_BOUNDS`; None without."""
    found: dict[str, list[StringAttr]] = {}
    for op in nest.walk():
        for clause, name in ((NUM_TEAMS, "num_teams"), (THREAD_LIMIT, "thread_limit")):
            if isinstance(attr := op.attributes.get(clause), StringAttr):
                found.setdefault(name, []).append(attr)
    if not found:
        return None
    return DictionaryAttr({name: ArrayAttr(exprs) for name, exprs in found.items()})
