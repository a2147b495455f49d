"""C's arithmetic types as the fuzzer sees them (LP64, as gcc) and integer intervals.

Every integer expression the generator writes carries an interval holding every value it can
take. That is how programs stay free of undefined behaviour: a signed operation whose interval
does not fit its type is done in the unsigned type instead (where C wraps), and a conversion or
an unsigned operation that wraps widens the interval to what the wrap can give.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

Interval = tuple[int, int]


@dataclass(frozen=True)
class CType:
    name: str  # the C spelling
    bits: int
    signed: bool
    is_float: bool = False

    @property
    def dtype(self) -> np.dtype:
        if self.is_float:
            return np.dtype(f"float{self.bits}")
        return np.dtype(f"{'' if self.signed else 'u'}int{self.bits}")

    @property
    def lo(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def hi(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    @property
    def full(self) -> Interval:
        return (self.lo, self.hi)

    @property
    def unsigned(self) -> CType:
        """The unsigned type of the same width (where arithmetic wraps)."""
        return {32: UINT, 64: ULONG}[self.bits]

    def literal(self, value: int | float) -> str:
        """`value` as a C literal of exactly this type."""
        if self.is_float:
            text = repr(float(value))
            if text in ("inf", "-inf", "nan"):
                raise ValueError(f"no literal for {value}")
            text = text if ("." in text or "e" in text) else text + ".0"
            text = f"{text}f" if self.bits == 32 else text
            return f"({text})" if text.startswith("-") else text
        suffix = {"int": "", "unsigned": "u", "long": "L", "unsigned long": "ul"}[self.name]
        if value < 0:  # -2147483648 is not an int literal: write it as an expression
            return (
                f"({-value - 1}{suffix} * -1{suffix} - 1{suffix})"
                if value == self.lo
                else f"(-{-value}{suffix})"
            )
        return f"{value}{suffix}"

    def __str__(self) -> str:
        return self.name


INT = CType("int", 32, True)
UINT = CType("unsigned", 32, False)
LONG = CType("long", 64, True)
ULONG = CType("unsigned long", 64, False)
FLOAT = CType("float", 32, True, True)
DOUBLE = CType("double", 64, True, True)
INTEGERS = (INT, UINT, LONG, ULONG)
SPELLINGS = {
    INT: ("signed", "signed int"),
    UINT: ("unsigned int",),
    LONG: ("long int", "long long", "signed long"),
    ULONG: ("size_t", "unsigned long long", "long unsigned int"),
}
"""Other ways C (and the frontend) spell the integer types, for declarations."""
FLOATS = (FLOAT, DOUBLE)
ALL_TYPES = INTEGERS + FLOATS


def common_type(a: CType, b: CType) -> CType:
    """The usual arithmetic conversions (C11 6.3.1.8) on LP64."""
    if a.is_float or b.is_float:
        return DOUBLE if DOUBLE in (a, b) else FLOAT
    if a == b:
        return a
    if a.signed == b.signed:
        return a if a.bits > b.bits else b
    unsigned, signed = (a, b) if not a.signed else (b, a)
    return unsigned if unsigned.bits >= signed.bits else signed


def fits(interval: Interval, ctype: CType) -> bool:
    return ctype.lo <= interval[0] and interval[1] <= ctype.hi


def converted(interval: Interval | None, ctype: CType) -> Interval | None:
    """The interval after converting to `ctype` (modulo 2^bits, as gcc, where it does not fit);
    None for floating types."""
    if ctype.is_float:
        return None
    if interval is None:  # from a float: the generator clamps before converting
        return ctype.full
    if fits(interval, ctype):
        return interval
    lo, hi = interval
    span = 1 << ctype.bits
    if hi - lo >= span:
        return ctype.full
    shift = ctype.lo
    lo_w, hi_w = (lo - shift) % span + shift, (hi - shift) % span + shift
    return (lo_w, hi_w) if lo_w <= hi_w else ctype.full


def int_interval(interval: Interval | None) -> Interval:
    """The interval of an integer value: only floating ones have none."""
    assert interval is not None, "a floating value has no interval"
    return interval


def int_converted(interval: Interval | None, ctype: CType) -> Interval:
    """`converted` to an integer `ctype`, which always has an interval."""
    result = converted(interval, ctype)
    assert result is not None, f"{ctype.name} is not an integer type"
    return result


def bit_bound(value: int) -> int:
    """The smallest 2^k - 1 >= value (value >= 0): a bound of `a | b` and `a ^ b`."""
    return (1 << max(value, 0).bit_length()) - 1


def clamp_interval(interval: Interval, ctype: CType) -> Interval:
    return (max(interval[0], ctype.lo), min(interval[1], ctype.hi))
