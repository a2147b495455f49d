"""`agpu-unroll-serial`: unroll serial `scf.for` loops inside kernels (AutoGPU 2.3.4); a loop
around parallel loops (or their launches) stays on the host and is never unrolled.

Partial unrolling by `factor` turns `for (i = lb; i < ub; i += s) body(i)` into

    main_ub = lb + (trips - trips % factor) * s      // trips = ceil((ub - lb) / s), 0 if ub <= lb
    for (i = lb; i < main_ub; i += factor * s) { body(i); body(i + s); ... }   // factor copies
    for (i = main_ub; i < ub; i += s) body(i)                                   // remainder

so the factor need not divide the trip count (the paper required it to). With constant bounds
`main_ub` is folded and the remainder (fewer than `factor` iterations) is emitted as straight-line
copies. A loop whose trip count is a constant no larger than `full_unroll_limit` is unrolled
completely. Loop-carried values (`iter_args`) are threaded through the copies.

The trip count is computed without overflow for any bounds of the loop's type: `ub - lb` is read
as unsigned (it is exact modulo 2^w and lies in [1, 2^w) when the loop runs) and divided
unsigned. `main_ub` overflows only where the original induction variable overflows too.

Which loops: by default the innermost serial loops (those containing no other loop); the option
`loops` names loops by their induction variable (`loops=k,u`; a name no loop has is an error).
Copies of the body keep the order of the iterations, so results are bitwise identical. One
unrolling makes at most `MAX_UNROLLED_OPERATIONS` operations (copies times the body's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, gpu, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.utils.hints import isa

from autogpu.dialects.agpu import ParallelForOp
from autogpu.passes.analysis.integers import bit_width, constant_int, to_signed
from autogpu.passes.analysis.loops import check_unrolled_size, constant_trip_count, contains_loop
from autogpu.passes.options import DeclaredOptionsPass, at_least, option
from autogpu.passes.utils.errors import PassError

_NSW = arith.IntegerOverflowAttr([arith.IntegerOverflowFlag.NSW])

def _constant(value: int, type: Attribute, rewriter: PatternRewriter, at: InsertPoint) -> SSAValue:
    width = bit_width(type)
    assert width is not None
    assert isa(type, IntegerType | IndexType)
    op = arith.ConstantOp(IntegerAttr(to_signed(value, width), type))
    rewriter.insert(op, at)
    return op.result


def _clone_body(
    loop: scf.ForOp,
    iv: SSAValue,
    carried: Sequence[SSAValue],
    rewriter: PatternRewriter,
    at: InsertPoint,
) -> list[SSAValue]:
    """One copy of `loop`'s body for induction value `iv` and carried values `carried`,
    inserted at `at`; returns the values it yields."""
    block = loop.body.block
    mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, [iv, *carried], strict=True))
    yielded: list[SSAValue] = list(carried)
    for op in block.ops:
        if isinstance(op, scf.YieldOp):
            yielded = [mapping.get(v, v) for v in op.arguments]
        else:
            rewriter.insert(op.clone(mapping), at)
    return yielded


def _straight_line(
    loop: scf.ForOp,
    first: int,
    count: int,
    carried: Sequence[SSAValue],
    rewriter: PatternRewriter,
    at: InsertPoint,
) -> list[SSAValue]:
    """`count` copies of the body for constant induction values first, first + step, ..."""
    step = constant_int(loop.step)
    assert step is not None
    for k in range(count):
        iv = _constant(first + k * step, loop.lb.type, rewriter, at)
        iv.name_hint = loop.body.block.args[0].name_hint
        carried = _clone_body(loop, iv, carried, rewriter, at)
    return list(carried)


def _unrolled_loop(
    loop: scf.ForOp,
    lb: SSAValue,
    ub: SSAValue,
    factor: int,
    big_step: SSAValue,
    rewriter: PatternRewriter,
) -> scf.ForOp:
    """`for (i = lb; i < ub; i += big_step)` running `factor` copies of the body at
    i, i + step, ..., inserted before `loop` and carrying its iter_args."""
    iv_type = loop.lb.type
    block = Block(arg_types=[iv_type, *(a.type for a in loop.iter_args)])
    iv, *carried = block.args
    iv.name_hint = loop.body.block.args[0].name_hint
    for arg, original in zip(carried, loop.body.block.args[1:]):
        arg.name_hint = original.name_hint
    new_loop = scf.ForOp(lb, ub, big_step, loop.iter_args, Region(block))
    rewriter.insert(new_loop, InsertPoint.before(loop))
    at = InsertPoint.at_end(block)
    values: list[SSAValue] = list(carried)
    current = iv
    for k in range(factor):
        if k:
            # i + k * step is an iteration value of the loop, in [lb, ub): it cannot overflow.
            step_op = arith.AddiOp(current, loop.step, overflow=_NSW)
            step_op.result.name_hint = iv.name_hint
            rewriter.insert(step_op, at)
            current = step_op.result
        values = _clone_body(loop, current, values, rewriter, at)
    rewriter.insert(scf.YieldOp(*values), at)
    return new_loop


def _remainder_loop(
    loop: scf.ForOp, lb: SSAValue, carried: Sequence[SSAValue], rewriter: PatternRewriter
) -> scf.ForOp:
    """A copy of `loop` from `lb` with initial values `carried`, inserted just before `loop`
    (after the main loop; `loop` itself is then replaced)."""
    remainder = scf.ForOp(lb, loop.ub, loop.step, carried, loop.body.clone())
    rewriter.insert(remainder, InsertPoint.before(loop))
    return remainder


def _runtime_main_bound(
    loop: scf.ForOp, factor: int, rewriter: PatternRewriter
) -> tuple[SSAValue, SSAValue]:
    """(main_ub, factor * step) computed before `loop` for non-constant bounds."""
    at = InsertPoint.before(loop)
    type = loop.lb.type
    lb, ub, step = loop.lb, loop.ub, loop.step

    def emit(op: Operation, name: str | None = None) -> SSAValue:
        rewriter.insert(op, at)
        if name is not None:
            op.results[0].name_hint = name
        return op.results[0]

    runs = emit(arith.CmpiOp(lb, ub, "slt"))
    span = emit(arith.SubiOp(ub, lb))
    if constant_int(step) == 1:
        trips = span
    else:
        one = _constant(1, type, rewriter, at)
        divisor = step
        if constant_int(step) is None:  # a runtime step could be 0 when the loop does not run
            divisor = emit(arith.SelectOp(runs, step, one))
        last = emit(arith.DivUIOp(emit(arith.SubiOp(span, one)), divisor))  # trips - 1
        trips = emit(arith.AddiOp(last, one))
    trips.name_hint = "trips"
    unrolled = emit(
        arith.SubiOp(trips, emit(arith.RemUIOp(trips, _constant(factor, type, rewriter, at))))
    )
    if constant_int(step) != 1:
        unrolled = emit(arith.MuliOp(unrolled, step))
    end = emit(arith.AddiOp(lb, unrolled))
    main_ub = emit(arith.SelectOp(runs, end, lb), "main_ub")
    if (s := constant_int(step)) is not None:
        big_step = _constant(s * factor, type, rewriter, at)
    else:
        big_step = emit(arith.MuliOp(step, _constant(factor, type, rewriter, at)))
    return main_ub, big_step


@dataclass
class UnrollSerialLoop(RewritePattern):
    """Unrolls the `scf.for` loops selected by the pass (each once)."""

    targets: set[scf.ForOp]
    factor: int
    full_unroll_limit: int

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ForOp, rewriter: PatternRewriter) -> None:
        if op not in self.targets:
            return
        self.targets.discard(op)
        trips = constant_trip_count(op)
        name = f"agpu-unroll-serial: loop '{op.body.block.args[0].name_hint or '?'}'"
        if trips is not None and trips <= self.full_unroll_limit:
            check_unrolled_size(op, trips, f"{name} unrolled completely")
            lb = constant_int(op.lb)
            assert lb is not None
            results = _straight_line(
                op, lb, trips, op.iter_args, rewriter, InsertPoint.before(op)
            )
            rewriter.replace(op, [], results)
            return
        if self.factor == 1 or (trips is not None and trips < self.factor):
            return  # (a short constant loop stays whole above the full-unroll limit)
        check_unrolled_size(op, self.factor, f"{name} unrolled {self.factor} times")
        if trips is not None:
            self._unroll_constant(op, trips, rewriter)
        else:
            self._unroll_runtime(op, rewriter)

    def _unroll_constant(self, op: scf.ForOp, trips: int, rewriter: PatternRewriter) -> None:
        lb, step = constant_int(op.lb), constant_int(op.step)
        assert lb is not None
        assert step is not None
        width = bit_width(op.lb.type)
        assert width is not None
        main_trips = trips - trips % self.factor
        if max(step * self.factor, lb + main_trips * step) >= 1 << (width - 1):
            return  # the main loop's step or bound does not fit the loop's type
        at = InsertPoint.before(op)
        main_ub = _constant(lb + main_trips * step, op.lb.type, rewriter, at)
        big_step = _constant(step * self.factor, op.lb.type, rewriter, at)
        main = _unrolled_loop(op, op.lb, main_ub, self.factor, big_step, rewriter)
        results = _straight_line(
            op, lb + main_trips * step, trips % self.factor, main.results, rewriter, at
        )
        rewriter.replace(op, [], results)

    def _unroll_runtime(self, op: scf.ForOp, rewriter: PatternRewriter) -> None:
        main_ub, big_step = _runtime_main_bound(op, self.factor, rewriter)
        main = _unrolled_loop(op, op.lb, main_ub, self.factor, big_step, rewriter)
        remainder = _remainder_loop(op, main_ub, main.results, rewriter)
        rewriter.replace(op, [], remainder.results)


def _selected_loops(module: ModuleOp, names: Sequence[str]) -> set[scf.ForOp]:
    """The loops to unroll, among those inside kernels: a serial loop around parallel loops
    stays on the host, launching its kernels (docs/ir.md, "Host control around kernels")."""
    loops = [op for op in module.walk() if isinstance(op, scf.ForOp)
             and not any(isinstance(inner, ParallelForOp | gpu.LaunchFuncOp)
                         for inner in op.walk())]  # fmt: skip
    if not names:
        return {l for l in loops if not contains_loop(l)}
    present = [l.body.block.args[0].name_hint for l in loops]
    unknown = [n for n in names if n not in present]
    if unknown:
        listed = ", ".join(dict.fromkeys(n for n in present if n)) or "none"
        raise PassError(f"agpu-unroll-serial: no serial loop has the induction variable "
                        f"{', '.join(repr(n) for n in unknown)} (loops={','.join(names)}; the "
                        f"serial loops at this point: {listed})")
    return {l for l, name in zip(loops, present) if name in names}


@dataclass(frozen=True)
class AgpuUnrollSerialPass(DeclaredOptionsPass):
    """Unroll serial loops, with a remainder loop when the factor does not divide the trip
    count, and completely when the trip count is a small constant (AutoGPU 2.3.4)."""

    name = "agpu-unroll-serial"

    factor: int = option(
        4, doc="Copies of the body per iteration of the unrolled loop (1: only full unrolling).",
        check=at_least(1), tuning="[1, 4, 16]")

    loops: tuple[str, ...] = option(
        (), doc="Induction variable names of the loops to unroll (each must exist); empty: the "
        "innermost serial loops.")

    full_unroll_limit: int = option(
        16, doc="Unroll completely the selected loops whose trip count is a constant at most "
        "this.", check=at_least(0))

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        targets = _selected_loops(op, self.loops)
        PatternRewriteWalker(
            UnrollSerialLoop(targets, self.factor, self.full_unroll_limit),
            walk_regions_first=True,
        ).rewrite_module(op)
