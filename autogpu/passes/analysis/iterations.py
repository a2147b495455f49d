"""How much work the loops of a C-level function do for concrete scalar sizes.

The tuner needs three numbers before it compiles anything: how many `agpu.parallel_for` are
nested (the parallel dimensions its space tunes), whether the parallel loops run at all for the
given sizes (empty kernels are not worth timing), and the longest accumulation (K of the
verification tolerance c*eps*sqrt(K)). Trip counts follow from the bounds by evaluating the
integer ops between them and the function's parameters, in C's arithmetic
(`autogpu.interpreters.c_semantics`): what does not evaluate (a value loaded from memory, a
`while` loop, a division by zero) gives None, and the caller falls back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from xdsl.dialects import arith, func, scf
from xdsl.ir import Operation, SSAValue

from autogpu.dialects.agpu import ParallelForOp
from autogpu.interpreters import c_semantics as c
from autogpu.passes.analysis.extents import parameter_names
from autogpu.passes.analysis.integers import bit_width, constant_int

#: How deep `integer_value` follows operands before giving up (bounds are short expressions).
MAX_DEPTH = 32

_Binary = Callable[[int, int, int], int]

_BINARY: dict[type[Operation], _Binary] = {
    arith.AddiOp: lambda a, b, w: c.wrap(a + b, w),
    arith.SubiOp: lambda a, b, w: c.wrap(a - b, w),
    arith.MuliOp: lambda a, b, w: c.wrap(a * b, w),
    arith.MaxSIOp: lambda a, b, w: max(a, b),
    arith.MinSIOp: lambda a, b, w: min(a, b),
    arith.MaxUIOp: c.maxui,
    arith.MinUIOp: c.minui,
    arith.DivSIOp: lambda a, b, w: c.divsi(a, b, w, "trip count"),
    arith.DivUIOp: lambda a, b, w: c.divui(a, b, w, "trip count"),
    arith.CeilDivSIOp: lambda a, b, w: c.ceildivsi(a, b, w, "trip count"),
}
"""The integer ops a loop bound is evaluated through, in C's arithmetic at the result's width."""


def size_arguments(function: func.FuncOp, sizes: Mapping[str, int]) -> dict[SSAValue, int]:
    """The function's parameters that `sizes` gives values to (by C name), with those values."""
    return {arg: sizes[name] for arg, name in zip(function.body.blocks[0].args,
                                                  parameter_names(function)) if name in sizes}


def integer_value(value: SSAValue, known: Mapping[SSAValue, int], depth: int = 0) -> int | None:
    """The integer `value` holds when the values of `known` hold theirs (signed reading), or
    None where it depends on anything else."""
    if value in known:
        width = bit_width(value.type)
        return known[value] if width is None else c.wrap(int(known[value]), width)
    op = value.owner
    if not isinstance(op, Operation) or depth > MAX_DEPTH:
        return None
    if isinstance(op, arith.ConstantOp):
        return constant_int(value)
    if isinstance(op, (arith.IndexCastOp, arith.ExtSIOp, arith.ExtUIOp, arith.TruncIOp)):
        source = integer_value(op.operands[0], known, depth + 1)
        source_width, width = bit_width(op.operands[0].type), bit_width(value.type)
        if source is None or source_width is None or width is None:
            return None
        if isinstance(op, arith.ExtUIOp):
            source = c.unsigned(source, source_width)
        return c.wrap(source, width)
    binary = _BINARY.get(type(op))
    width = bit_width(value.type)
    if binary is None or width is None or len(op.operands) != 2:
        return None
    a = integer_value(op.operands[0], known, depth + 1)
    b = integer_value(op.operands[1], known, depth + 1)
    if a is None or b is None:
        return None
    try:
        return binary(a, b, width)
    except c.UndefinedBehaviorError:
        return None


def trip_count(loop: scf.ForOp | ParallelForOp, known: Mapping[SSAValue, int]) -> int | None:
    """How many iterations `loop` runs when the values of `known` hold theirs (step > 0)."""
    lb, ub, step = (integer_value(v, known) for v in (loop.lb, loop.ub, loop.step))
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return max(0, -(-(ub - lb) // step))


def parallel_depth(function: func.FuncOp) -> int:
    """How many `agpu.parallel_for` are nested in `function` at most (its parallel dims)."""
    best = 0
    for op in function.walk():
        if isinstance(op, ParallelForOp):
            best = max(best, sum(1 for _ in _enclosing(op, function, (ParallelForOp,))))
    return best


def _is_reduction_loop(op: Operation) -> bool:
    return isinstance(op, ParallelForOp) and len(op.reductions.data) > 0


def _accumulating(op: Operation) -> bool:
    return isinstance(op, scf.ForOp) or _is_reduction_loop(op)


def _enclosing(op: Operation, function: func.FuncOp,
               kinds: tuple[type[Operation], ...]) -> list[Operation]:
    """`op` and the ops around it up to `function` that are of one of `kinds`."""
    found: list[Operation] = []
    node: Operation | None = op
    while node is not None and node is not function:
        if isinstance(node, kinds):
            found.append(node)
        node = node.parent_op()
    return found


def longest_accumulation(function: func.FuncOp, sizes: Mapping[str, int]) -> int | None:
    """The most terms any value of `function` accumulates for these sizes: the largest product
    of the trip counts of nested serial (`scf.for`) and reduction loops, at least 1. None where
    a trip count does not evaluate or a `while` loop may accumulate without bound."""
    known = size_arguments(function, sizes)
    best = 1
    for op in function.walk():
        if isinstance(op, scf.WhileOp):
            return None
        if not _accumulating(op):
            continue
        terms = 1
        node: Operation | None = op
        while node is not None and node is not function:
            if isinstance(node, (scf.ForOp, ParallelForOp)) and _accumulating(node):
                trips = trip_count(node, known)
                if trips is None:
                    return None
                terms *= max(trips, 1)
            node = node.parent_op()
        best = max(best, terms)
    return best


def parallel_iterations(function: func.FuncOp, sizes: Mapping[str, int]) -> int | None:
    """The iterations the parallel loops of `function` run for these sizes, summed over the
    nests (the work of all threads); None where a trip count does not evaluate or there is no
    parallel loop."""
    known = size_arguments(function, sizes)
    total: int | None = None
    for op in function.walk():
        if not isinstance(op, ParallelForOp) or any(
                isinstance(inner, ParallelForOp) for inner in op.walk() if inner is not op):
            continue  # a nest is counted from its innermost parallel loop
        iterations = 1
        for loop in _enclosing(op, function, (ParallelForOp,)):
            assert isinstance(loop, ParallelForOp)
            trips = trip_count(loop, known)
            if trips is None:
                return None
            iterations *= trips
        total = (total or 0) + iterations
    return total


__all__ = [
    "integer_value",
    "longest_accumulation",
    "parallel_depth",
    "parallel_iterations",
    "size_arguments",
    "trip_count",
]
