"""Integer arrays whose values are subscripts (`y[i] = x[col[i]]`, `a[idx[i]] += v[i]`), and the
values that keep every access they subscript within its array, for concrete sizes and lengths.

The tuner fills arrays with random data; random values in an index array make the kernel, the
reference and every variant read out of bounds. The value `v` loaded from `col` reaches the
subscript of `x` as an affine index `c*v + r` (`c` a constant, `r` bounded for the sizes by
`extents.ValueIntervals`), so `0 <= c*v + r < len(x)` gives the range of `v`; the ranges of all
accesses intersect. Where a parallel loop stores through the values, they must moreover be
distinct (a permutation), or two iterations would write one element (a conflict the dependence
check can only warn about). Where no range follows (the values bound a loop, `x[col[i] % m]`,
one subscript made of two loaded values), the array's entry is the reason, so that the tuner
can say what to supply instead.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import IntegerType, MemRefType
from xdsl.ir import Operation, SSAValue
from xdsl.utils.hints import isa

from autogpu.diagnostics import location_of
from autogpu.dialects.agpu import ParallelForOp
from autogpu.passes.analysis.extents import ValueIntervals, parameter_names
from autogpu.passes.analysis.integers import ceil_div
from autogpu.passes.analysis.loops import inside_parallel_loop
from autogpu.passes.analysis.polynomial import PolynomialAnalysis, through_sign_extensions


@dataclass(frozen=True)
class SubscriptValues:
    """Values `lo..hi` keep every access subscripted by the array in bounds; `distinct`: a
    parallel loop stores through them, so no two elements may be equal."""

    lo: int
    hi: int
    distinct: bool
    subscripts: tuple[str, ...]  # the arrays subscripted, for messages


def subscript_arrays(
    function: func.FuncOp, sizes: Mapping[str, int], lengths: Mapping[str, int]
) -> dict[str, SubscriptValues | str]:
    """For each integer array parameter whose values reach a subscript or a loop bound: the
    values that keep its accesses in bounds, or why none can be derived. `lengths` are the
    elements of each array parameter."""
    names = parameter_names(function)
    arrays: dict[SSAValue, str] = dict(zip(function.body.blocks[0].args, names))
    intervals = ValueIntervals(function, sizes)
    polys = through_sign_extensions()
    result: dict[str, SubscriptValues | str] = {}
    for array, name in arrays.items():
        if not isa(array.type, MemRefType) or not isinstance(
            array.type.element_type, IntegerType
        ):
            continue
        entry = _values_of(array, name, arrays, lengths, intervals, polys)
        if entry is not None:
            result[name] = entry
    return result


def _values_of(
    array: SSAValue,
    name: str,
    arrays: Mapping[SSAValue, str],
    lengths: Mapping[str, int],
    intervals: ValueIntervals,
    polys: PolynomialAnalysis,
) -> SubscriptValues | str | None:
    lo, hi, distinct = None, None, False
    subscripted: list[str] = []
    for use in array.uses:
        load = use.operation
        if not isinstance(load, memref.LoadOp) or load.memref is not array:
            continue
        for sink in _sinks(load.res):
            if not isinstance(sink, (memref.LoadOp, memref.StoreOp)):
                return f"its values control the loop at {_where(sink)}"
            target = arrays.get(sink.memref)
            if target is None or intervals.never_runs(sink):
                continue
            bounds = _range_for(load.res, sink, target, lengths.get(target), intervals, polys)
            if isinstance(bounds, str):
                return bounds
            lo = bounds[0] if lo is None else max(lo, bounds[0])
            hi = bounds[1] if hi is None else min(hi, bounds[1])
            distinct |= isinstance(sink, memref.StoreOp) and inside_parallel_loop(sink)
            if target not in subscripted:
                subscripted.append(target)
    if lo is None or hi is None:
        return None
    listed = ", ".join(f"'{t}'" for t in subscripted)
    if lo > hi:
        return f"no value of '{name}' keeps its subscripts of {listed} within those arrays"
    count = lengths.get(name, 0)
    if distinct and count > hi - lo + 1:
        return (f"a parallel loop writes through '{name}', so its {count} values must differ, "
                f"but only {hi - lo + 1} keep its subscripts of {listed} in bounds")
    return SubscriptValues(lo, hi, distinct, tuple(subscripted))


def _range_for(
    value: SSAValue,
    access: memref.LoadOp | memref.StoreOp,
    target: str,
    length: int | None,
    intervals: ValueIntervals,
    polys: PolynomialAnalysis,
) -> tuple[int, int] | str:
    """The values of `value` for which `access`'s subscript lies in `target`'s elements."""
    where = f"the subscript of '{target}' at {_where(access)}"
    if length is None or len(access.indices) != 1:
        return f"{where} has no known bound"
    poly = polys.index_poly(access.indices[0])
    split = poly.split(polys.atom_id(value))
    if split is None or not split[0].is_constant or not split[0].terms:
        return f"{where} is not affine in the values read"
    coefficient, rest = split[0].constant, split[1]
    span = intervals.of_poly(access, rest)
    if span is None:
        return f"{where} depends on other values read from memory"
    low, high = -span.lo, length - 1 - span.hi  # coefficient * value must lie in low..high
    if coefficient > 0:
        return ceil_div(low, coefficient), high // coefficient
    return ceil_div(high, coefficient), low // coefficient


def _sinks(value: SSAValue) -> Iterator[Operation]:
    """The accesses whose subscript, and the loops whose bounds, `value` flows into (through
    arithmetic, `scf.if` results and local variables)."""
    seen: set[SSAValue] = set()
    work = [value]
    while work:
        current = work.pop()
        if current in seen:
            continue
        seen.add(current)
        for use in current.uses:
            op = use.operation
            if isinstance(op, memref.LoadOp):
                yield op  # only its index can be `current`: memrefs are not computed
            elif isinstance(op, memref.StoreOp):
                if use.index >= 2:
                    yield op
                elif use.index == 0 and not op.indices:  # a local variable: its loads
                    work.extend(u.operation.results[0] for u in op.memref.uses
                                if isinstance(u.operation, memref.LoadOp))
            elif isinstance(op, (scf.ForOp, ParallelForOp, scf.WhileOp, scf.ConditionOp)):
                yield op
            elif isinstance(op, scf.YieldOp):
                parent = op.parent_op()
                if isinstance(parent, scf.IfOp):
                    work.append(parent.results[use.index])
                elif parent is not None:
                    yield parent
            elif not isinstance(op, scf.IfOp):  # the condition of an if only guards
                work.extend(op.results)


def _where(op: Operation) -> str:
    location = location_of(op)
    return "?" if location is None else f"line {location.line}:{location.column}"


__all__ = ["SubscriptValues", "subscript_arrays"]
