"""IR of a parallel loop's reductions: the operands of `agpu.parallel_for` (each scalar's slot,
each array with its section `[lo : len]` as flat `index` values, sections.py) and the updates
of reduced array elements, each one atomic update of the element (reductions.py says why)."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Operation, SSAValue

from autogpu.dialects.agpu import ReductionKind
from autogpu.frontend.atomics import AtomicInfo
from autogpu.frontend.irgen_atomics import SynchronizationGen
from autogpu.frontend.irgen_expr import Val
from autogpu.frontend.openmp import ParallelInfo
from autogpu.frontend.reductions import ArrayUpdate
from autogpu.frontend.sections import Factor
from autogpu.frontend.types import Scalar

_MIN_MAX_RMW: dict[tuple[str, str | bool], str] = {
                ("min", "float"): "minnumf", ("max", "float"): "maxnumf",
                ("min", True): "mins", ("max", True): "maxs",
                ("min", False): "minu", ("max", False): "maxu"}  # fmt: skip
_MIN_MAX_OPS: dict[tuple[str, str | bool], Callable[[SSAValue, SSAValue], Operation]] = {
                ("min", "float"): arith.MinnumfOp, ("max", "float"): arith.MaxnumfOp,
                ("min", True): arith.MinSIOp, ("max", True): arith.MaxSIOp,
                ("min", False): arith.MinUIOp, ("max", False): arith.MaxUIOp}  # fmt: skip


class ReductionGen(SynchronizationGen):
    """Mixin of `irgen.FunctionGen`: array reductions, through `SynchronizationGen`'s atomics."""

    def reduction_operands(self, parallel: ParallelInfo):
        """The `(kind, memory)` pairs and the sections of a parallel loop's reductions."""
        reductions: list[tuple[ReductionKind, SSAValue]] = []
        sections: list[tuple[SSAValue, SSAValue]] = []
        for kind, var in parallel.reductions:
            section = parallel.sections.get(var)
            if section is None:
                reductions.append((kind, self.slots[var]))
                continue
            reductions.append((kind, self.block_arg(var)))
            sections.append((self.flat_index(section.lo, "lo"),
                             self.flat_index(section.length, "len")))  # fmt: skip
        return reductions, sections

    def flat_index(self, factors: tuple[Factor, ...], name: str) -> SSAValue:
        """A product of section factors as an `index` (constants folded)."""
        known = 1
        values: list[SSAValue] = []
        for factor in factors:
            if isinstance(factor, int):
                known *= factor
            else:
                values.append(self.index_cast(self.read(factor)))
        result = None
        if known != 1 or not values:
            result = self.emit(arith.ConstantOp(IntegerAttr(known, IndexType())), name).results[0]
        for value in values:
            result = value if result is None else self.emit(arith.MuliOp(result, value)).results[0]
        assert result is not None
        return result

    def array_update(self, update: ArrayUpdate) -> None:
        """`x = x op value` on an element of a reduced array, as one atomic update."""
        if update.op not in ("min", "max", "&&", "||"):
            self.atomic(AtomicInfo("update", update.x, update.op, update.value,
                                   update.reversed, update.operand_type))  # fmt: skip
            return
        t = update.x.ctype
        assert isinstance(t, Scalar)
        location = self.location_of(update.x)
        value = self.expr(update.value)
        if update.op in ("&&", "||"):
            self.atomic_op(location, t,
                           lambda current: self.logical_update(update.op, current, value), True)
            return
        compared = update.operand_type
        key = (update.op, "float" if compared.is_float else compared.signed)
        if compared == t or (compared.is_int and t.is_int and compared.bits == t.bits):
            self.rmw(_MIN_MAX_RMW[key], self.convert(value, t), location)
            return
        op = _MIN_MAX_OPS[key]

        def chosen(current: Val) -> Val:
            a, b = self.convert(current, compared), self.convert(value, compared)
            return self.convert(self.value(op(a.ssa, b.ssa), compared), t)

        self.atomic_op(location, t, chosen, True)

    def logical_update(self, op: str, current: Val, value: Val) -> Val:
        """C's `current && value` (`||`) as 0 or 1 of `current`'s type."""
        both = (self.truth(current), self.truth(value))
        flag = self.emit(arith.AndIOp(*both) if op == "&&" else arith.OrIOp(*both)).results[0]
        t = current.ctype
        one, zero = self.constant(1, t), self.constant(0, t)
        return self.value(arith.SelectOp(flag, one.ssa, zero.ssa), t)
