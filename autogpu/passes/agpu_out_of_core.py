"""`agpu-out-of-core`: make a function's parallel nest runnable in parts, for data larger than
the device (docs/out-of-core.md).

The outermost parallel loop `for (i = lb; i < ub; i++)` becomes
`for (i = max(lb, agpu_part_lo); i < min(ub, agpu_part_hi); i++)`, with `agpu_part_lo` and
`agpu_part_hi` two new trailing scalar parameters of the loop's type, which the runtime's part
scheduler (`autogpu.runtime.parts`) sets for each part; everything else in the kernel is
unchanged: it indexes the whole arrays, and the scheduler passes, for each array, a base pointer
shifted so that the part's rows land in the part's device buffer (pointer arithmetic on the
host, no offset parameter). The function records the parts' footprints
(`autogpu.passes.analysis.footprints`) as the attribute

    agpu.parts = {lo = "agpu_part_lo", hi = "agpu_part_hi", lb = "(1)", ub = "(1 * n + -1)",
                  arrays = [{name = "in", row = "(1 * m)", read = ["..", ".."]}, ...]}

every range a pair of launch-language expressions [first, end) over the parameters and the
part's bounds, which the launch description carries as `"parts"`. A nest whose footprint cannot
be computed is refused here, with its location: the pass is asked for only where data must be
split. One parallel nest at the top of the function is split; host loops around nests, and
several nests per function, are refused (not built yet).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Operation

from autogpu.dialects.agpu import ParallelForOp
from autogpu.dialects.signature import CTYPE, NAME, of_ir
from autogpu.passes.analysis.footprints import FootprintError, NestFootprints, nest_footprints
from autogpu.passes.analysis.integers import constant_int
from autogpu.passes.options import DeclaredOptionsPass
from autogpu.passes.utils.errors import error_at

PARTS = "agpu.parts"
PART_LO, PART_HI = "agpu_part_lo", "agpu_part_hi"
PART_PARAMETER = "agpu.part_bound"  # (unit) on the two parameters the scheduler sets


def _nest_of(fn: func.FuncOp) -> ParallelForOp | None:
    nests = [op for op in fn.body.block.ops if isinstance(op, ParallelForOp)]
    nested = [op for op in fn.body.block.ops if not isinstance(op, ParallelForOp)
              and any(isinstance(inner, ParallelForOp) for inner in op.walk())]
    if nested:
        inner = next(i for i in nested[0].walk() if isinstance(i, ParallelForOp))
        raise error_at(inner, "out-of-core: a parallel loop inside host control flow (a time "
                       "loop) cannot be split into parts yet: only a nest at the top of the "
                       "function")
    if len(nests) > 1:
        raise error_at(nests[1], "out-of-core: a function with several parallel nests cannot be "
                       "split into parts yet (one nest per function)")
    return nests[0] if nests else None


def _attribute(footprints: NestFootprints) -> DictionaryAttr:
    arrays: list[Attribute] = []
    for array in footprints.arrays:
        entry: dict[str, Attribute] = {"name": StringAttr(array.name),
                                       "row": StringAttr(array.row)}
        if array.whole:
            entry["whole"] = UnitAttr()
        elif array.reads:
            first, end = array.range_text(sorted(array.reads), PART_LO, PART_HI)
            entry["read"] = ArrayAttr([StringAttr(first), StringAttr(end)])
        if array.write is not None:
            first, end = array.range_text([array.write], PART_LO, PART_HI)
            entry["write"] = ArrayAttr([StringAttr(first), StringAttr(end)])
        arrays.append(DictionaryAttr(entry))
    return DictionaryAttr({
        "lo": StringAttr(PART_LO), "hi": StringAttr(PART_HI), "lb": StringAttr(footprints.lb),
        "ub": StringAttr(footprints.ub), "arrays": ArrayAttr(arrays)})


def _split(fn: func.FuncOp, nest: ParallelForOp) -> None:
    """Bounds the nest by two new trailing parameters of its index type."""
    taken = {arg.name_hint for arg in fn.body.block.args}
    if PART_LO in taken or PART_HI in taken:
        raise error_at(fn, f"out-of-core: a parameter is already named {PART_LO} or {PART_HI}")
    if constant_int(nest.step) != 1:
        raise error_at(nest, "out-of-core: only a parallel loop of step 1 is split into parts")
    index_type = nest.lb.type
    ctype = of_ir(index_type).name
    block = fn.body.block
    bounds = []
    for name in (PART_LO, PART_HI):
        arg = block.insert_arg(index_type, len(block.args))
        arg.name_hint = name
        bounds.append(arg)
        attrs = DictionaryAttr({NAME: StringAttr(name), CTYPE: StringAttr(ctype),
                                PART_PARAMETER: UnitAttr()})
        fn.arg_attrs = ArrayAttr([*(fn.arg_attrs.data if fn.arg_attrs else
                                    [DictionaryAttr({})] * (len(block.args) - 1)), attrs])
    fn.function_type = FunctionType.from_lists(
        list(block.arg_types), list(fn.function_type.outputs.data))
    lo = arith.MaxSIOp(nest.lb, bounds[0])
    hi = arith.MinSIOp(nest.ub, bounds[1])
    ops: list[Operation] = [lo, hi]
    block.insert_ops_before(ops, nest)
    nest.operands[0] = lo.result
    nest.operands[1] = hi.result


@dataclass(frozen=True)
class AgpuOutOfCorePass(DeclaredOptionsPass):
    """Split each function's parallel nest into parts of its outermost loop, with the footprint
    of a part recorded for the runtime's part scheduler (data larger than device memory)."""

    name = "agpu-out-of-core"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.ops:
            if not isinstance(fn, func.FuncOp) or not fn.body.blocks:
                continue
            nest = _nest_of(fn)
            if nest is None:
                continue
            try:
                footprints = nest_footprints(nest, fn)
            except FootprintError as e:
                raise error_at(e.op, str(e)) from None
            _split(fn, nest)
            fn.attributes[PARTS] = _attribute(footprints)
