"""Integer arithmetic of one fixed type (`i32`, `i64` or `index`) emitted through a Builder, with
constants folded on the fly, as `index_arith.IndexArith` does for `index`.

`agpu-flatten-nest` computes trip counts before a nest and recovers loop indices inside the flat
loop; folding constants while building keeps a specialised nest's arithmetic a few constants
(and the host's launch sizes plain numbers), without depending on a later canonicalization.
Folding wraps as the IR does (two's complement of the type's width).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerType, f64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.hints import isa

from autogpu.passes.analysis.integers import bit_width, constant_int, to_signed

_NSW = arith.IntegerOverflowAttr([arith.IntegerOverflowFlag.NSW])
_WRAPS = arith.IntegerOverflowAttr("none")


def _unsigned(value: int, width: int) -> int:
    return value % (1 << width)


class TypedArith:
    """Emits folded arithmetic on values of `type` at the builder's insertion point. Ring ops
    carry `nsw` only where a caller says the exact result fits (`nsw=True`)."""

    def __init__(self, builder: Builder, type: Attribute):
        self.builder = builder
        assert isa(type, IntegerType | IndexType), f"no integer arithmetic on {type}"
        self.type = type
        self._constants: dict[int, SSAValue] = {}
        width = bit_width(type)
        assert width is not None
        self.width = width

    def _insert(self, op: Operation, name: str | None = None) -> SSAValue:
        self.builder.insert(op)
        result = op.results[0]
        if name is not None and result.name_hint is None:
            result.name_hint = name
        return result

    def const(self, value: int, name: str | None = None) -> SSAValue:
        """One constant per value (the builder inserts into one block, in order)."""
        value = to_signed(value, self.width)
        if value not in self._constants:
            op = arith.ConstantOp.from_int_and_width(value, self.type)
            self._constants[value] = self._insert(op, name)
        return self._constants[value]

    def known(self, value: SSAValue) -> int | None:
        return constant_int(value)

    def _fold(self, make: Callable[[], Operation], fold: Callable[[int, int], int | None],
              lhs: SSAValue, rhs: SSAValue, name: str | None) -> SSAValue:
        a, b = self.known(lhs), self.known(rhs)
        if a is not None and b is not None and (folded := fold(a, b)) is not None:
            return self.const(folded)
        return self._insert(make(), name)

    def _flag(self, nsw: bool) -> arith.IntegerOverflowAttr:
        return _NSW if nsw else _WRAPS

    def add(self, lhs: SSAValue, rhs: SSAValue, name: str | None = None,
            nsw: bool = False) -> SSAValue:
        if self.known(rhs) == 0:
            return lhs
        if self.known(lhs) == 0:
            return rhs
        return self._fold(lambda: arith.AddiOp(lhs, rhs, overflow=self._flag(nsw)),
                          lambda a, b: a + b, lhs, rhs, name)

    def sub(self, lhs: SSAValue, rhs: SSAValue, name: str | None = None,
            nsw: bool = False) -> SSAValue:
        if self.known(rhs) == 0:
            return lhs
        return self._fold(lambda: arith.SubiOp(lhs, rhs, overflow=self._flag(nsw)),
                          lambda a, b: a - b, lhs, rhs, name)

    def mul(self, lhs: SSAValue, rhs: SSAValue, name: str | None = None,
            nsw: bool = False) -> SSAValue:
        if self.known(rhs) == 1:
            return lhs
        if self.known(lhs) == 1:
            return rhs
        if 0 in (self.known(lhs), self.known(rhs)):
            return self.const(0, name)
        return self._fold(lambda: arith.MuliOp(lhs, rhs, overflow=self._flag(nsw)),
                          lambda a, b: a * b, lhs, rhs, name)

    def divui(self, lhs: SSAValue, rhs: SSAValue, name: str | None = None) -> SSAValue:
        """Unsigned division (`rhs` not 0 where it runs)."""
        if self.known(rhs) == 1:
            return lhs
        w = self.width
        return self._fold(lambda: arith.DivUIOp(lhs, rhs),
                          lambda a, b: _unsigned(a, w) // _unsigned(b, w) if b else None,
                          lhs, rhs, name)

    def shrui(self, lhs: SSAValue, bits: int, name: str | None = None) -> SSAValue:
        w = self.width
        return self._fold(lambda: arith.ShRUIOp(lhs, self.const(bits)),
                          lambda a, b: _unsigned(a, w) >> b, lhs, self.const(bits), name)

    def ori(self, lhs: SSAValue, rhs: SSAValue, name: str | None = None) -> SSAValue:
        return self._fold(lambda: arith.OrIOp(lhs, rhs), lambda a, b: a | b, lhs, rhs, name)

    def ceildivsi(self, lhs: SSAValue, rhs: SSAValue, name: str | None = None) -> SSAValue:
        """`lhs / rhs` rounded up, for `lhs >= 0` and `rhs > 0`."""
        if self.known(rhs) == 1:
            return lhs
        return self._fold(lambda: arith.CeilDivSIOp(lhs, rhs),
                          lambda a, b: -(-a // b) if b > 0 else None, lhs, rhs, name)

    def divsi(self, lhs: SSAValue, rhs: SSAValue, name: str | None = None) -> SSAValue:
        """`lhs / rhs` for `lhs >= 0` and `rhs > 0`."""
        if self.known(rhs) == 1:
            return lhs
        return self._fold(lambda: arith.DivSIOp(lhs, rhs),
                          lambda a, b: a // b if a >= 0 and b > 0 else None, lhs, rhs, name)

    def maxsi(self, lhs: SSAValue, rhs: SSAValue, name: str | None = None) -> SSAValue:
        return self._fold(lambda: arith.MaxSIOp(lhs, rhs), max, lhs, rhs, name)

    def minsi(self, lhs: SSAValue, rhs: SSAValue, name: str | None = None) -> SSAValue:
        return self._fold(lambda: arith.MinSIOp(lhs, rhs), min, lhs, rhs, name)

    def cmpi(self, lhs: SSAValue, rhs: SSAValue, predicate: str,
             name: str | None = None) -> SSAValue:
        return self._insert(arith.CmpiOp(lhs, rhs, predicate), name)

    def select(self, cond: SSAValue, then: SSAValue, other: SSAValue,
               name: str | None = None) -> SSAValue:
        return self._insert(arith.SelectOp(cond, then, other), name)

    def convert(self, value: SSAValue, name: str | None = None, *,
                signed: bool = True) -> SSAValue:
        """`value` (any integer or index value) as this type: extended (sign- or zero-, by
        `signed`) or truncated; through `i64` between `index` and 32 bits."""
        source = bit_width(value.type)
        assert source is not None
        if value.type == self.type:
            return value
        if (known := self.known(value)) is not None:
            return self.const(known if signed else _unsigned(known, source))
        if isinstance(self.type, IndexType) or isinstance(value.type, IndexType):
            if source != 64 and self.width == 64:  # a 32-bit value to index
                value = TypedArith(self.builder, IntegerType(64)).convert(value, signed=signed)
            elif source == 64 and self.width != 64:  # index to 32 bits
                value = self._insert(arith.IndexCastOp(value, IntegerType(64)))
                return self.convert(value, name, signed=signed)
            return self._insert(arith.IndexCastOp(value, self.type), name)
        if source < self.width:
            extend = arith.ExtSIOp if signed else arith.ExtUIOp
            return self._insert(extend(value, self.type), name)
        return self._insert(arith.TruncIOp(value, self.type), name)

    # -- floating point (the triangle's estimate) ---------------------------------------------

    def to_f64(self, value: SSAValue, name: str | None = None) -> SSAValue:
        """A non-negative value as `f64` (rounded to nearest)."""
        if (known := self.known(value)) is not None:
            return f64_const(self.builder, float(_unsigned(known, self.width)))
        if isinstance(value.type, IndexType):
            value = self.convert(value)
        return self._insert(arith.UIToFPOp(value, f64), name)

    def from_f64(self, value: SSAValue, name: str | None = None) -> SSAValue:
        """A non-negative `f64` truncated toward zero, as this type (`index`: through i64)."""
        if isinstance(self.type, IndexType):
            wide = TypedArith(self.builder, IntegerType(64)).from_f64(value)
            return self.convert(wide, name)
        return self._insert(arith.FPToSIOp(value, self.type), name)


def f64_const(builder: Builder, value: float) -> SSAValue:
    op = arith.ConstantOp(FloatAttr(value, f64))
    builder.insert(op)
    return op.result
