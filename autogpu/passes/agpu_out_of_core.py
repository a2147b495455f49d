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
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

from autogpu.dialects.agpu import ParallelForOp
from autogpu.dialects.signature import CTYPE, NAME, of_ir
from autogpu.passes.analysis.footprints import FootprintError, NestFootprints, nest_footprints
from autogpu.passes.analysis.integers import constant_int
from autogpu.passes.options import DeclaredOptionsPass
from autogpu.passes.utils.errors import error_at

PARTS = "agpu.parts"
PART_LO, PART_HI = "agpu_part_lo", "agpu_part_hi"
PART_PARAMETER = "agpu.part_bound"  # (unit) on the two parameters the scheduler sets
PART_NEST = "agpu.part_nest"
"""On the nests of a function of several, the nest's index: `convert-agpu-to-gpu` copies it onto
the nest's launches (the launch description's `part_nest`), which is how the executors know
which launches a nest's parts run."""


def _nests_of(fn: func.FuncOp) -> list[ParallelForOp]:
    """The function's outermost parallel loops, at its top or inside host control flow (a
    time loop), in program order."""
    return [op for op in fn.body.walk() if isinstance(op, ParallelForOp)
            and not any(isinstance(a, ParallelForOp) for a in _ancestors(op, fn))]


def _check_host_control(nest: ParallelForOp, fn: func.FuncOp) -> None:
    """Refuses a nest under data-dependent host control (docs/ir.md, "Host control around
    kernels"): the host would read back, between nest runs in parts, a condition computed from
    data that lives in parts (`while (diff > tol)`, `if (x[0] > 0)`)."""
    for parent in _ancestors(nest, fn):
        if isinstance(parent, scf.WhileOp):
            raise error_at(parent, "out-of-core: a parallel loop inside a 'while' loop (or a "
                           "'for' whose condition reads data) does not run in parts: its "
                           "condition is computed from data the parts hold (run it in-core)")
        if isinstance(parent, scf.IfOp) and _from_data(parent.cond):
            raise error_at(parent, "out-of-core: a parallel loop inside an 'if' whose "
                           "condition reads data does not run in parts: the condition is "
                           "computed from data the parts hold (run it in-core)")


def _from_data(value: SSAValue) -> bool:
    """Whether `value` is computed from memory or in floating point (a kernel computes it)."""
    work, seen = [value], set[SSAValue]()
    while work:
        current = work.pop()
        owner = current.owner
        if current in seen or not isinstance(owner, Operation):
            continue
        seen.add(current)
        if isinstance(owner, memref.LoadOp) or any(
                isinstance(v.type, AnyFloat) for v in (*owner.operands, *owner.results)):
            return True
        work.extend(owner.operands)
    return False


def _ancestors(op: Operation, fn: func.FuncOp) -> list[Operation]:
    found: list[Operation] = []
    parent = op.parent_op()
    while parent is not None and parent is not fn:
        found.append(parent)
        parent = parent.parent_op()
    return found


def part_bound_names(index: int) -> tuple[str, str]:
    """The part bounds of the function's nest `index`: nest 0 keeps the plain names; the
    executors tell a launch's nest by the bounds it passes."""
    suffix = "" if index == 0 else str(index)
    return PART_LO + suffix, PART_HI + suffix


def _attribute(footprints: NestFootprints, lo: str, hi: str) -> DictionaryAttr:
    arrays: list[Attribute] = []
    for array in footprints.arrays:
        entry: dict[str, Attribute] = {"name": StringAttr(array.name),
                                       "row": StringAttr(array.row)}
        if array.whole:
            entry["whole"] = UnitAttr()
        elif array.reads:
            first, end = array.range_text(sorted(array.reads), lo, hi)
            entry["read"] = ArrayAttr([StringAttr(first), StringAttr(end)])
        if array.write is not None:
            first, end = array.range_text([array.write], lo, hi)
            entry["write"] = ArrayAttr([StringAttr(first), StringAttr(end)])
            if array.alloc:  # written whole, never read: the part's rows are not copied in
                entry["alloc"] = UnitAttr()
        arrays.append(DictionaryAttr(entry))
    return DictionaryAttr({
        "lo": StringAttr(lo), "hi": StringAttr(hi), "lb": StringAttr(footprints.lb),
        "ub": StringAttr(footprints.ub), "arrays": ArrayAttr(arrays)})


def _split(fn: func.FuncOp, nest: ParallelForOp, names: tuple[str, str]) -> None:
    """Bounds the nest by two new trailing parameters of its index type."""
    taken = {arg.name_hint for arg in fn.body.block.args}
    if names[0] in taken or names[1] in taken:
        raise error_at(fn, f"out-of-core: a parameter is already named {names[0]} or "
                       f"{names[1]}")
    if constant_int(nest.step) != 1:
        raise error_at(nest, "out-of-core: only a parallel loop of step 1 is split into parts")
    index_type = nest.lb.type
    ctype = of_ir(index_type).name
    block = fn.body.block
    bounds: list[BlockArgument] = []
    for name in names:
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
    nest_block = nest.parent_block()
    assert nest_block is not None  # a nest of the function's body
    nest_block.insert_ops_before(ops, nest)
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
            nests = _nests_of(fn)
            specs: list[Attribute] = []
            for index, nest in enumerate(nests):
                _check_host_control(nest, fn)
                try:
                    footprints = nest_footprints(nest, fn)
                except FootprintError as e:
                    raise error_at(e.op, str(e)) from None
                names = part_bound_names(index)
                _split(fn, nest, names)
                if len(nests) > 1:
                    nest.attributes[PART_NEST] = IntegerAttr(index, 64)
                specs.append(_attribute(footprints, *names))
            if specs:  # one nest: its entry; several: one entry per nest, in program order
                fn.attributes[PARTS] = specs[0] if len(specs) == 1 else ArrayAttr(specs)
