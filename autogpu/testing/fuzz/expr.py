"""Typed C expression trees: what the generator builds and the reducer shrinks.

Each node knows its C type and, for integers, the interval of its values (see `values`). The
constructors below type their results with C's rules and compute the interval; they never
produce undefined behaviour themselves: callers ask `safe_binary` for an operation and get the
operation, or the same operation in the unsigned type, or a guarded divisor.

`frozen` marks a node the reducer must not replace as a whole (an array index, a divisor
guard): replacing it by a constant could read out of bounds, race or divide by zero. Its
children may still be shrunk unless they are frozen too.
"""

from __future__ import annotations

import typing
from collections.abc import Iterator
from dataclasses import dataclass, field

from autogpu.testing.fuzz.values import (
    DOUBLE,
    FLOAT,
    INT,
    CType,
    Interval,
    bit_bound,
    common_type,
    converted,
    fits,
    int_converted,
    int_interval,
)


@dataclass(eq=False)
class Expr:
    type: CType
    interval: Interval | None  # None for floating point
    frozen: bool = field(default=False, kw_only=True)

    def render(self) -> str:
        raise NotImplementedError

    def children(self) -> list[Expr]:
        return []

    def replace_child(self, old: Expr, new: Expr) -> None:
        for name, value in vars(self).items():
            if value is old:
                setattr(self, name, new)
            elif isinstance(value, list):
                items = typing.cast("list[object]", value)
                if any(v is old for v in items):
                    setattr(self, name, [new if v is old else v for v in items])

    @property
    def int_interval(self) -> Interval:
        """`interval` of an integer expression (only floating ones have none)."""
        return int_interval(self.interval)

    def walk(self) -> Iterator[Expr]:
        yield self
        for child in self.children():
            yield from child.walk()


@dataclass(eq=False)
class Const(Expr):
    value: int | float = 0

    def render(self) -> str:
        return self.type.literal(self.value)


@dataclass(eq=False)
class Ref(Expr):
    """A variable or scalar parameter."""

    name: str = ""

    def render(self) -> str:
        return self.name


@dataclass(eq=False)
class Load(Expr):
    """`A[e]`, or `A[e0][e1]...` for a C99 array parameter."""

    array: str = ""
    indices: list[Expr] = field(default_factory=list[Expr])

    def render(self) -> str:
        return self.array + "".join(f"[{i.render()}]" for i in self.indices)

    def children(self) -> list[Expr]:
        return list(self.indices)


@dataclass(eq=False)
class Unary(Expr):
    op: str = "-"
    operand: Expr = field(kw_only=True)

    def render(self) -> str:
        return f"({self.op}{self.operand.render()})"

    def children(self) -> list[Expr]:
        return [self.operand]


@dataclass(eq=False)
class Binary(Expr):
    op: str = "+"
    lhs: Expr = field(kw_only=True)
    rhs: Expr = field(kw_only=True)

    def render(self) -> str:
        return f"({self.lhs.render()} {self.op} {self.rhs.render()})"

    def children(self) -> list[Expr]:
        return [self.lhs, self.rhs]


@dataclass(eq=False)
class Cast(Expr):
    operand: Expr = field(kw_only=True)

    def render(self) -> str:
        return f"(({self.type.name}){self.operand.render()})"

    def children(self) -> list[Expr]:
        return [self.operand]


@dataclass(eq=False)
class Cond(Expr):
    cond: Expr = field(kw_only=True)
    then: Expr = field(kw_only=True)
    other: Expr = field(kw_only=True)

    def render(self) -> str:
        return f"({self.cond.render()} ? {self.then.render()} : {self.other.render()})"

    def children(self) -> list[Expr]:
        return [self.cond, self.then, self.other]


@dataclass(eq=False)
class Call(Expr):
    function: str = ""
    args: list[Expr] = field(default_factory=list[Expr])

    def render(self) -> str:
        return f"{self.function}({', '.join(a.render() for a in self.args)})"

    def children(self) -> list[Expr]:
        return list(self.args)


# --- constructors that type and bound their results ----------------------------------------


def const(ctype: CType, value: int | float) -> Const:
    return Const(ctype, None if ctype.is_float else (int(value), int(value)), value=value)


def ref(name: str, ctype: CType, interval: Interval | None) -> Ref:
    return Ref(ctype, interval, name=name)


def cast(e: Expr, ctype: CType, frozen: bool = False) -> Expr:
    if e.type == ctype:
        return e
    if ctype.is_float or not e.type.is_float:
        return Cast(ctype, converted(e.interval, ctype), operand=e, frozen=frozen)
    return float_to_int(e, ctype)


def float_to_int(e: Expr, ctype: CType) -> Expr:
    """A float converted to an integer type without undefined behaviour: clamped first
    (NaN clamps to the upper bound, since fmin(NaN, x) is x)."""
    bound = {32: 1e6, 64: 1e12}[ctype.bits] if ctype.signed else {32: 4e9, 64: 1.8e19}[ctype.bits]
    low = -bound if ctype.signed else 0.0
    clamped = Call(DOUBLE, None, function="fmax", args=[
        Call(DOUBLE, None, function="fmin", args=[e, const(DOUBLE, bound)]),
        const(DOUBLE, low)], frozen=True)  # fmt: skip
    return Cast(ctype, (int(low), int(bound)), operand=clamped, frozen=True)


def to_unsigned(e: Expr) -> Expr:
    return cast(e, e.type.unsigned) if e.type.signed else e


def _corners(op: str, a: Interval, b: Interval) -> Interval:
    values = [op_value(op, x, y) for x in a for y in b]
    return (min(values), max(values))


def op_value(op: str, x: int, y: int) -> int:
    return {"+": x + y, "-": x - y, "*": x * y}[op]


def arithmetic(op: str, a: Expr, b: Expr) -> Expr:
    """`a op b` for + - *: in the common type when no overflow can happen there, else in its
    unsigned type (wrapping); floats as they come."""
    t = common_type(a.type, b.type)
    if t.is_float:
        return Binary(t, None, op=op, lhs=a, rhs=b)
    ia, ib = int_converted(a.interval, t), int_converted(b.interval, t)
    exact = _corners(op, ia, ib)
    if fits(exact, t):
        return Binary(t, exact, op=op, lhs=a, rhs=b)
    if t.signed:
        a, b, t = to_unsigned(cast(a, t)), to_unsigned(cast(b, t)), t.unsigned
        exact = _corners(op, int_converted(a.interval, t), int_converted(b.interval, t))
    return Binary(t, converted(exact, t), op=op, lhs=a, rhs=b)


def divisor(b: Expr) -> Expr:
    """A divisor that is never 0 nor -1 (INT_MIN / -1 overflows): `(b & 15) + 1` for signed
    types, `b | 1` for unsigned ones (a float is clamped to an int first)."""
    if b.type.is_float:
        b = float_to_int(b, INT)
    if b.type.signed:
        masked = Binary(b.type, (0, 15), op="&", lhs=b, rhs=const(b.type, 15), frozen=True)
        return Binary(b.type, (1, 16), op="+", lhs=masked, rhs=const(b.type, 1), frozen=True)
    return Binary(b.type, (1, max(bit_bound(b.int_interval[1]), 1)), op="|", lhs=b,
                  rhs=const(b.type, 1), frozen=True)  # fmt: skip


def division(op: str, a: Expr, b: Expr) -> Expr:
    """`a / b` or `a % b` with a divisor that cannot be zero (integers), or as it comes."""
    t = common_type(a.type, b.type)
    if t.is_float:
        assert op == "/"
        return Binary(t, None, op=op, lhs=a, rhs=b)
    b = divisor(b)
    t = common_type(a.type, b.type)
    ia, ib = int_converted(a.interval, t), int_converted(b.interval, t)
    assert ib[0] >= 1, "a divisor is positive"
    if op == "/":
        interval = (min(ia[0], 0), max(ia[1], 0))
    else:
        bound = min(max(abs(ia[0]), abs(ia[1])), ib[1] - 1)
        interval = (-bound if ia[0] < 0 else 0, bound if ia[1] > 0 else 0)
    return Binary(t, interval, op=op, lhs=a, rhs=b)


def guarded_division(op: str, a: Expr, b: Expr) -> Expr:
    """`(b != 0 ? a / b : a)` (also `b != -1` where `a` may be the type's minimum): the
    division must not run when the guard fails, so no pass may speculate it."""
    t = common_type(a.type, b.type)
    ia = int_converted(a.interval, t)
    guard = compare("!=", b, const(b.type, 0))
    if t.signed and ia[0] == t.lo:
        guard = compare("&&", guard, compare("!=", b, const(b.type, -1)))
    if op == "/":
        interval = (min(ia[0], 0), max(ia[1], 0))
    else:
        bound = max(abs(ia[0]), abs(ia[1]))
        interval = (-bound if ia[0] < 0 else 0, bound if ia[1] > 0 else 0)
    quotient = Binary(t, interval, op=op, lhs=a, rhs=b, frozen=True)
    for node in [*guard.walk(), *b.walk()]:  # `b` twice: the reducer must keep both equal
        node.frozen = True
    result = conditional(guard, quotient, a)
    result.frozen = True  # replaced by its `then`, the division would run unguarded
    return result


def bitwise(op: str, a: Expr, b: Expr) -> Expr:
    t = common_type(a.type, b.type)
    ia, ib = int_converted(a.interval, t), int_converted(b.interval, t)
    if ia[0] >= 0 and ib[0] >= 0:
        interval = (0, min(ia[1], ib[1])) if op == "&" else (0, bit_bound(max(ia[1], ib[1])))
    elif op == "&" and (ia[0] >= 0 or ib[0] >= 0):
        interval = (0, ia[1] if ia[0] >= 0 else ib[1])
    else:
        interval = t.full
    return Binary(t, interval, op=op, lhs=a, rhs=b)


def shift(op: str, a: Expr, amount: Expr) -> Expr:
    """`a << n` or `a >> n` with n masked below the width; a left shift that could overflow
    its signed type is done in the unsigned type."""
    t = a.type  # the integer promotions leave every type of the subset as it is
    lo, hi = a.int_interval
    mask = t.bits - 1
    if op == "<<" and t.signed:
        mask = next((m for m in (15, 7, 3) if lo >= 0 and fits((0, hi << m), t)), None)
        if mask is None:
            a, t, mask = to_unsigned(a), t.unsigned, t.bits - 1
    count = Binary(amount.type, (0, mask), op="&", lhs=amount, rhs=const(amount.type, mask),
                   frozen=True)  # fmt: skip
    if op == ">>":
        return Binary(t, (min(lo, 0), max(hi, 0)), op=op, lhs=a, rhs=count)
    if t.signed:
        return Binary(t, (0, hi << mask), op=op, lhs=a, rhs=count)
    return Binary(t, converted((0, a.int_interval[1] << mask), t), op=op, lhs=a, rhs=count)


def compare(op: str, a: Expr, b: Expr) -> Expr:
    return Binary(INT, (0, 1), op=op, lhs=a, rhs=b)


def logical_not(a: Expr) -> Expr:
    return Unary(INT, (0, 1), op="!", operand=a)


def negate(a: Expr) -> Expr:
    if a.type.is_float:
        return Unary(a.type, None, op="-", operand=a)
    lo, hi = a.int_interval
    if a.type.signed and lo > a.type.lo:
        return Unary(a.type, (-hi, -lo), op="-", operand=a)
    if a.type.signed:
        a = to_unsigned(a)
    lo, hi = a.int_interval
    return Unary(a.type, converted((-hi, -lo), a.type), op="-", operand=a)


def complement(a: Expr) -> Expr:
    lo, hi = a.int_interval
    if a.type.signed:
        return Unary(a.type, (-hi - 1, -lo - 1), op="~", operand=a)
    return Unary(a.type, (a.type.hi - hi, a.type.hi - lo), op="~", operand=a)


def conditional(c: Expr, a: Expr, b: Expr) -> Expr:
    t = common_type(a.type, b.type)
    if t.is_float:
        return Cond(t, None, cond=c, then=a, other=b)
    ia, ib = int_converted(a.interval, t), int_converted(b.interval, t)
    return Cond(t, (min(ia[0], ib[0]), max(ia[1], ib[1])), cond=c, then=a, other=b)


def min_max(function: str, a: Expr, b: Expr) -> Expr:
    """The frontend's `min`/`max` (the usual arithmetic conversions, then fmin/fmax for
    floats)."""
    t = common_type(a.type, b.type)
    if t.is_float:
        return Call(t, None, function=function, args=[a, b])
    ia, ib = int_converted(a.interval, t), int_converted(b.interval, t)
    pick = min if function == "min" else max
    return Call(t, (pick(ia[0], ib[0]), pick(ia[1], ib[1])), function=function, args=[a, b])


MATH_UNARY = ("sqrt", "exp", "log", "fabs", "sin", "cos", "floor", "ceil")
MATH_BINARY = ("fmin", "fmax", "pow")


def math_call(name: str, args: list[Expr], single: bool) -> Expr:
    """A math function in double (`sqrt`) or float (`sqrtf`): arguments convert implicitly."""
    t = FLOAT if single else DOUBLE
    return Call(t, None, function=name + ("f" if single else ""), args=args)


def wrap_into(e: Expr, target: CType, interval: Interval) -> Expr:
    """`e` converted to `target` with a value inside `interval` (an interval that holds 0):
    a remainder by a constant keeps it small, a cast does the rest."""
    if target.is_float:
        return cast(e, target)
    if e.type.is_float:
        e = float_to_int(e, target)
    if interval == target.full or (
        fits(e.int_interval, target)
        and interval[0] <= e.int_interval[0]
        and e.int_interval[1] <= interval[1]
    ):
        return cast(e, target)
    lo, hi = interval
    if lo >= 0:
        e = to_unsigned(e)
        k = hi + 1
    else:
        k = min(-lo, hi) + 1
    modulus = const(e.type if fits((k, k), e.type) else e.type.unsigned, k)
    reduced = Binary(common_type(e.type, modulus.type), None, op="%", lhs=e, rhs=modulus,
                     frozen=True)  # fmt: skip
    ie = int_converted(e.interval, reduced.type)
    reduced.interval = (-(k - 1) if ie[0] < 0 else 0, k - 1 if ie[1] > 0 else 0)
    result = cast(reduced, target)
    result.interval = int_converted(reduced.interval, target)
    where = (e.render(), interval, result.interval)
    assert interval[0] <= result.interval[0], where
    assert result.interval[1] <= interval[1], where
    return result
