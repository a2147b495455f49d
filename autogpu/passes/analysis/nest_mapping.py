"""Which loops of a parallel nest become GPU dimensions (AutoGPU Tables 2.1 and 3.1).

The *chain* of a nest is its outermost `agpu.parallel_for` and the parallel loops perfectly
nested in it: each level's body holds only pure scalar code besides the next level, and the next
level's bounds do not depend on the enclosing induction variables (a rectangular nest, as
`collapse(n)` produces). Only chain levels can be mapped, because mapping a loop runs its
enclosing bodies once per thread. The innermost chain level goes to x (threads of a block), the
next to y, the next to z (the grid); a `mapping` property overrides this. Chain levels beyond
three stay serial loops inside the kernel, as do parallel loops off the chain (imperfectly
nested or non-rectangular ones).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.gpu import DimensionEnum
from xdsl.ir import SSAValue

from autogpu.dialects.agpu import Indexing, ParallelForOp
from autogpu.passes.utils.errors import error_at
from autogpu.passes.utils.index_arith import constant_value
from autogpu.passes.utils.slices import is_inside, is_pure, slice_leaves

DIMS = (DimensionEnum.X, DimensionEnum.Y, DimensionEnum.Z)


@dataclass(frozen=True)
class Level:
    """One loop of the chain and the GPU dimension it runs on (None: a serial loop)."""

    loop: ParallelForOp
    dim: DimensionEnum | None

    @property
    def unroll(self) -> int:
        return self.loop.unroll.value.data if self.dim is not None else 1

    @property
    def blocked(self) -> bool:
        """A thread's replicas are consecutive iterations (see `ParallelForOp.distribution`)."""
        return self.dim is not None and self.loop.blocked

    @property
    def sparse(self) -> bool:
        """Sparse indexing with a step that is not known to be 1 (threads off the stride idle)."""
        return self.loop.indexing.data == Indexing.SPARSE and constant_value(self.loop.step) != 1


@dataclass(frozen=True)
class NestMapping:
    nest: ParallelForOp
    levels: tuple[Level, ...]  # outermost first

    def level_on(self, dim: DimensionEnum) -> Level | None:
        return next((level for level in self.levels if level.dim == dim), None)

    @property
    def innermost(self) -> ParallelForOp:
        return self.levels[-1].loop


def _next_level(level: ParallelForOp, nest: ParallelForOp) -> ParallelForOp | None:
    """The parallel loop perfectly nested in `level` with bounds invariant in the nest."""
    body = [op for op in level.body.block.ops if op is not level.body.block.last_op]
    inner = [op for op in body if isinstance(op, ParallelForOp)]
    if len(inner) != 1 or not all(is_pure(op) for op in body if op is not inner[0]):
        return None
    candidate = inner[0]
    _, leaves = slice_leaves(
        candidate.operands[:3], is_leaf=lambda value: not is_inside(value, nest)
    )
    if any(is_inside(leaf, nest) for leaf in leaves):
        return None  # depends on an enclosing induction variable or on memory in the nest
    return candidate


def chain_of(nest: ParallelForOp) -> list[ParallelForOp]:
    chain = [nest]
    while (inner := _next_level(chain[-1], nest)) is not None:
        chain.append(inner)
    return chain


def map_nest(nest: ParallelForOp) -> NestMapping:
    """Assigns GPU dimensions to the chain of `nest`, honouring `mapping` properties."""
    chain = chain_of(nest)
    for op in nest.walk():
        if isinstance(op, ParallelForOp) and op not in chain and op.mapping is not None:
            raise error_at(
                op,
                f"agpu.parallel_for with 'mapping {op.mapping.data.value}' is not perfectly "
                "nested in the outer parallel loops with bounds independent of them, so it "
                "cannot be mapped to a GPU dimension",
            )
    dims: dict[ParallelForOp, DimensionEnum] = {}
    for loop in chain:
        if loop.mapping is None:
            continue
        dim = loop.mapping.data
        if (other := next((o for o, d in dims.items() if d == dim), None)) is not None:
            raise error_at(
                loop,
                f"two parallel loops of one nest are mapped to {dim.value}: the loop over "
                f"{_name(other.induction_var)} and the loop over {_name(loop.induction_var)}",
            )
        dims[loop] = dim
    free = [dim for dim in DIMS if dim not in dims.values()]
    for loop in reversed(chain):
        if loop not in dims and free:
            dims[loop] = free.pop(0)
    return NestMapping(nest, tuple(Level(loop, dims.get(loop)) for loop in chain))


def _name(value: SSAValue) -> str:
    return f"'{value.name_hint}'" if value.name_hint else "an unnamed variable"
