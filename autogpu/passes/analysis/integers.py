"""Integer helpers shared by the analyses and passes: the width of an integer or index type, the
two's complement reading of a value modulo 2^width, and the value of an `arith.constant`."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, Signedness
from xdsl.ir import Attribute, SSAValue
from xdsl.utils.hints import isa

INDEX_WIDTH = 64
"""Width assumed for `index` (the GPU targets are 64-bit)."""


def ceil_div(a: int, b: int) -> int:
    """`a / b` rounded toward +infinity, on Python integers."""
    return -(-a // b)


def bit_width(type: Attribute) -> int | None:
    """Bits of an integer or index type, None for anything else."""
    if isa(type, IntegerType):
        return type.width.data
    if isinstance(type, IndexType):
        return INDEX_WIDTH
    return None


def unsigned(type: Attribute) -> IntegerType:
    """The unsigned integer type as wide as the integer `type` (`ui32` for `i32`)."""
    assert isa(type, IntegerType)
    return IntegerType(type.width.data, Signedness.UNSIGNED)


def signless(type: Attribute) -> Attribute:
    """The signless type `arith` computes in for an integer type of any signedness."""
    if isa(type, IntegerType) and type.signedness.data != Signedness.SIGNLESS:
        return IntegerType(type.width.data)
    return type


def is_unsigned(type: Attribute) -> bool:
    return isa(type, IntegerType) and type.signedness.data == Signedness.UNSIGNED


def to_signed(value: int, width: int) -> int:
    """The two's complement reading of `value` modulo 2^width."""
    value %= 1 << width
    return value - (1 << width) if value >= 1 << (width - 1) else value


def constant_int(value: SSAValue) -> int | None:
    """The integer held by a value defined by `arith.constant`, read as signed."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        width = bit_width(value.type)
        data = owner.value.value.data
        return data if width is None else to_signed(data, width)
    return None
