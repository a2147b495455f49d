"""IR of `#pragma omp atomic` and `#pragma omp critical` statements (atomics.py checked them).

An atomic statement on a location shared by the iterations of a parallel loop becomes one
`memref.atomic_rmw` when MLIR has its operator for the location's own type (`+ - * & | ^`, a
write: `x -= e` adds `-e`, exact in IEEE arithmetic and modulo 2^n), else one
`agpu.atomic_update` whose region computes C's `x op e` from the current value (docs/ir.md).
`e` is evaluated once, before. A capture's old value is the op's result; its new value is
computed again from the old one. Elsewhere (serial code, a variable private to an iteration)
the statement is ordinary loads and stores. A critical section in a parallel loop becomes an
`agpu.critical` around its statement's ops.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import SSAValue

from autogpu.dialects.agpu_sync import AtomicUpdateOp, AtomicYieldOp, CriticalEndOp, CriticalOp
from autogpu.frontend import ast
from autogpu.frontend.atomics import AtomicInfo, CriticalInfo
from autogpu.frontend.irgen_expr import ExpressionGen, Val
from autogpu.frontend.reductions import ArrayUpdate
from autogpu.frontend.types import Scalar
from autogpu.target.cuda_atomics import ATOMIC_KINDS

_FLOAT_KINDS = {"+": "addf", "-": "addf", "*": "mulf"}
_INT_KINDS = {"+": "addi", "-": "addi", "*": "muli", "&": "andi", "|": "ori", "^": "xori"}
_COMMUTATIVE = ("+", "*", "&", "|", "^")


class ArrayUpdates(Protocol):
    """What `SynchronizationGen` reads from `irgen_reductions.ReductionGen`."""

    def array_update(self, update: ArrayUpdate) -> None: ...


class SynchronizationGen(ExpressionGen, ArrayUpdates):
    """Mixin of `irgen.FunctionGen`: `omp atomic` and `omp critical`."""

    def synchronized(self, stmt: ast.Stmt, plain: Callable[[ast.Stmt], None]) -> None:
        """`plain(stmt)` translates the statement as if it had no pragma."""
        info = stmt.sync
        if isinstance(info, ArrayUpdate):
            self.array_update(info)  # irgen_reductions.py
            return
        if isinstance(info, CriticalInfo):
            if not info.shared:
                plain(stmt)
                return
            region = self.region_of(lambda: plain(stmt), CriticalEndOp)
            self.emit(CriticalOp(info.name, region))
            return
        assert isinstance(info, AtomicInfo)
        self.atomic(info)

    def atomic(self, info: AtomicInfo) -> None:
        t = info.x.ctype
        assert isinstance(t, Scalar)
        location = self.location_of(info.x)
        value = None if info.value is None else self.expr(info.value)
        if info.clause == "read":
            assert info.v is not None, "an atomic read assigns v"
            old = self.atomic_op(location, t, lambda current: current, info.shared)
            self.assign_to(info.v, old)
            return
        assert value is not None, "an atomic write or update has a value (atomics.py)"
        if info.op is None:  # a write, or a capture of one (an exchange)
            converted = self.convert(value, t)
            if info.shared:
                old = self.rmw("assign", converted, location)
            else:
                old = self.value(memref.LoadOp.get(*location), t)
                self.store_to(location, converted)
            if info.clause == "capture":
                assert info.v is not None, "an atomic capture assigns v"
                self.assign_to(info.v, old)
            return
        assert info.operand_type is not None, "atomics.py types every atomic update"
        kind = _rmw_kind(info, t)
        if kind is not None and info.shared:
            operand = self.convert(self.convert(value, info.operand_type), t)
            if info.op == "-":
                operand = self.negated(operand)
            old = self.rmw(kind, operand, location)
        else:
            old = self.atomic_op(
                location, t, lambda current: self.combined(info, current, value), info.shared
            )
        if info.clause == "capture":
            assert info.v is not None, "an atomic capture assigns v"
            self.assign_to(info.v, self.combined(info, old, value) if info.captures_new else old)

    def combined(self, info: AtomicInfo, current: Val, value: Val) -> Val:
        """C's new value of `x`: `x op e` (`e op x`) in the operand type, converted back."""
        assert info.op is not None, "an update (atomics.py)"
        assert info.operand_type is not None, "an update (atomics.py)"
        lhs, rhs = (value, current) if info.reversed else (current, value)
        return self.convert(self.arith(info.op, lhs, rhs, info.operand_type), current.ctype)

    def negated(self, v: Val) -> Val:
        if v.ctype.is_float:
            return self.value(arith.NegfOp(v.ssa), v.ctype)
        return self.arith("-", self.constant(0, v.ctype), v, v.ctype, wraps=True)

    def location_of(self, x: ast.Expr) -> tuple[SSAValue, list[SSAValue]]:
        if isinstance(x, ast.Name):
            return self.slots[x.resolved_var], []
        assert isinstance(x, ast.Index), "atomics.py accepts a name or an element as x"
        array, index = self.element(x)
        return array, [index]

    def rmw(self, kind: str, operand: Val, location: tuple[SSAValue, list[SSAValue]]) -> Val:
        memory, indices = location
        op = memref.AtomicRMWOp.create(
            operands=[operand.ssa, memory, *indices],
            result_types=[operand.ssa.type],
            properties={"kind": _kind_attr(kind)},
        )
        return self.value(op, operand.ctype)

    def atomic_op(self, location: tuple[SSAValue, list[SSAValue]], t: Scalar,
                  update: Callable[[Val], Val], shared: bool) -> Val:
        """`x = update(x)` as one `agpu.atomic_update` (or plain, when not shared); the old x."""
        memory, indices = location
        if not shared:
            old = self.value(memref.LoadOp.get(memory, indices), t)
            new = update(old)
            if new is not old:
                self.store_to(location, new)
            return old

        def body(current: SSAValue) -> None:
            self.emit(AtomicYieldOp(update(Val(current, t)).ssa))

        region = self.region_of(body, None, [t.ir], ["current"])
        return self.value(AtomicUpdateOp(memory, indices, region), t)

    def store_to(self, location: tuple[SSAValue, list[SSAValue]], value: Val) -> None:
        memory, indices = location
        self.emit(memref.StoreOp.get(value.ssa, memory, indices))

    def assign_to(self, target: ast.Expr, value: Val) -> None:
        if isinstance(target, ast.Name):
            self.write(target.resolved_var, value)
            return
        assert isinstance(target, ast.Index), "atomics.py accepts a name or an element as v"
        array, index = self.element(target)
        self.emit(memref.StoreOp.get(self.convert(value, target.scalar).ssa, array, [index]))


def _rmw_kind(info: AtomicInfo, t: Scalar) -> str | None:
    """The `memref.atomic_rmw` kind computing C's update exactly, if there is one."""
    operand = info.operand_type
    assert info.op is not None, "an update (atomics.py)"
    assert operand is not None, "an update (atomics.py)"
    if info.reversed and info.op not in _COMMUTATIVE:
        return None
    if t.is_float:
        return _FLOAT_KINDS.get(info.op) if operand == t else None
    if operand.is_float or operand.bits != t.bits:
        return None
    return _INT_KINDS.get(info.op)


def _kind_attr(kind: str) -> IntegerAttr:
    return IntegerAttr(ATOMIC_KINDS.index(kind), i64)
