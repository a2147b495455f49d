"""`index` arithmetic emitted through a Builder with constant folding on the fly.

Thread indices and launch sizes are short formulas over a few values (`blockIdx.x * 256 + tx`,
`(n - 0 + 255) / 256`); folding `x + 0`, `x * 1`, `x / 1` and constant operands while building
keeps the IR (and the printed CUDA and launch expressions) as short as the paper writes them,
without depending on a later canonicalization.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Attribute, Operation, SSAValue

from autogpu.passes.analysis.integers import ceil_div


def constant_value(value: SSAValue) -> int | None:
    """The integer `value` is known to hold when it comes straight from `arith.constant`."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _c_div(a: int, b: int) -> int:
    """C's `/`: the quotient truncated toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _c_rem(a: int, b: int) -> int:
    """C's `%`: the remainder has the sign of the dividend."""
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


_NSW = arith.IntegerOverflowAttr([arith.IntegerOverflowFlag.NSW])
_WRAPS = arith.IntegerOverflowAttr("none")


class IndexArith:
    """Emits folded `index` arithmetic at a builder's insertion point.

    With `share_constants`, each constant is created once and reused: only valid while every
    insertion goes to one block, after the first use (e.g. straight-line host code).
    With `nsw`, its `addi`/`subi`/`muli` carry `overflow<nsw>`: only for a caller that knows
    the values fit in 64 signed bits (thread indices; docs/ir.md, "Integer overflow"), since
    the `cuda` target then prints them as `long long` arithmetic, undefined on overflow.
    """

    def __init__(self, builder: Builder, share_constants: bool = False, nsw: bool = False):
        self.builder = builder
        self._constants: dict[int, SSAValue] | None = {} if share_constants else None
        self._overflow = _NSW if nsw else _WRAPS

    def save_constants(self) -> dict[int, SSAValue] | None:
        """The shared constants so far, for `restore_constants` after building a nested block
        (whose constants are not visible after it)."""
        return None if self._constants is None else dict(self._constants)

    def restore_constants(self, saved: dict[int, SSAValue] | None) -> None:
        if saved is not None:
            self._constants = dict(saved)

    def _insert(self, op: Operation, name: str | None) -> SSAValue:
        self.builder.insert(op)
        result = op.results[0]
        if name is not None and result.name_hint is None:
            result.name_hint = name
        return result

    def const(self, value: int, name: str | None = None) -> SSAValue:
        if self._constants is not None and value in self._constants:
            return self._constants[value]
        result = self._insert(arith.ConstantOp.from_int_and_width(value, IndexType()), name)
        if self._constants is not None:
            self._constants[value] = result
        return result

    def cast(self, value: SSAValue, name: str | None = None) -> SSAValue:
        """`value` (a signless integer, sign-extended, or already `index`) as `index`."""
        if isinstance(value.type, IndexType):
            return value
        if (known := constant_value(value)) is not None:
            return self.const(known)
        return self._insert(arith.IndexCastOp(value, IndexType()), name)

    def cast_to(self, value: SSAValue, to: Attribute, name: str | None = None) -> SSAValue:
        """An `index` value as the integer type `to` (a no-op when `to` is `index`)."""
        if value.type == to:
            return value
        return self._insert(arith.IndexCastOp(value, to), name)

    def _binary(
        self,
        op_type: Callable[[SSAValue, SSAValue], Operation],
        fold: Callable[[int, int], int],
        lhs: SSAValue,
        rhs: SSAValue,
        name: str | None,
    ) -> SSAValue:
        a, b = constant_value(lhs), constant_value(rhs)
        if a is not None and b is not None:
            return self.const(fold(a, b), name)
        return self._insert(op_type(lhs, rhs), name)

    def _ring(
        self, op_type: type[arith.SignlessIntegerBinaryOperationWithOverflow]
    ) -> Callable[[SSAValue, SSAValue], Operation]:
        return lambda lhs, rhs: op_type(lhs, rhs, overflow=self._overflow)

    def add(self, lhs: SSAValue, rhs: SSAValue, name: str | None = None) -> SSAValue:
        if constant_value(rhs) == 0:
            return lhs
        if constant_value(lhs) == 0:
            return rhs
        return self._binary(self._ring(arith.AddiOp), lambda a, b: a + b, lhs, rhs, name)

    def sub(self, lhs: SSAValue, rhs: SSAValue, name: str | None = None) -> SSAValue:
        if constant_value(rhs) == 0:
            return lhs
        return self._binary(self._ring(arith.SubiOp), lambda a, b: a - b, lhs, rhs, name)

    def mul(self, lhs: SSAValue, rhs: SSAValue, name: str | None = None) -> SSAValue:
        if constant_value(rhs) == 1:
            return lhs
        if constant_value(lhs) == 1:
            return rhs
        if 0 in (constant_value(lhs), constant_value(rhs)):
            return self.const(0, name)
        return self._binary(self._ring(arith.MuliOp), lambda a, b: a * b, lhs, rhs, name)

    def ceildiv(self, lhs: SSAValue, rhs: SSAValue, name: str | None = None) -> SSAValue:
        """Division rounding toward +infinity (`arith.ceildivsi`); `rhs` must be positive."""
        if constant_value(rhs) == 1:
            return lhs
        return self._binary(arith.CeilDivSIOp, ceil_div, lhs, rhs, name)

    def rem(self, lhs: SSAValue, rhs: SSAValue, name: str | None = None) -> SSAValue:
        """C's `%` (`arith.remsi`, truncating)."""
        if constant_value(rhs) == 1:
            return self.const(0, name)
        return self._binary(arith.RemSIOp, _c_rem, lhs, rhs, name)

    def div(self, lhs: SSAValue, rhs: SSAValue, name: str | None = None) -> SSAValue:
        """C's `/` (`arith.divsi`, truncating); `rhs` must not be 0."""
        if constant_value(rhs) == 1:
            return lhs
        return self._binary(arith.DivSIOp, _c_div, lhs, rhs, name)

    def max(self, lhs: SSAValue, rhs: SSAValue, name: str | None = None) -> SSAValue:
        return self._binary(arith.MaxSIOp, max, lhs, rhs, name)

    def min(self, lhs: SSAValue, rhs: SSAValue, name: str | None = None) -> SSAValue:
        return self._binary(arith.MinSIOp, min, lhs, rhs, name)

    def lt(self, lhs: SSAValue, rhs: SSAValue, name: str | None = None) -> SSAValue:
        """`lhs < rhs` (signed) as an `i1`."""
        return self._insert(arith.CmpiOp(lhs, rhs, "slt"), name)

    def eq(self, lhs: SSAValue, rhs: SSAValue, name: str | None = None) -> SSAValue:
        return self._insert(arith.CmpiOp(lhs, rhs, "eq"), name)

    def and_(self, lhs: SSAValue, rhs: SSAValue, name: str | None = None) -> SSAValue:
        return self._insert(arith.AndIOp(lhs, rhs), name)
