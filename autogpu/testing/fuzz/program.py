"""A generated program: one C function (parameters, statements) and what running it needs.

The statements are a small tree (`Stmt`) holding typed expressions (`expr.Expr`), so that the
reducer can delete statements and shrink expressions and render the C again. A program also
knows how to draw its arguments for given sizes: array lengths follow from the sizes, scalar
values from their intervals, and which outputs are float sums to compare with a tolerance.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from autogpu.testing.fuzz.expr import Expr
from autogpu.testing.fuzz.values import CType, Interval, int_interval

# --- parameters ----------------------------------------------------------------------------


@dataclass
class SizeParam:
    """A problem size: loop bounds and array extents are written with it."""

    name: str
    ctype: CType
    max: int  # every interval assumes the size is at most this
    spelling: str = ""  # of the type, when not its usual name


@dataclass
class DerivedSize(SizeParam):
    """A size the function computes from its size parameters, as a local declared first
    (`const int m1 = n0 / 2 + 1;`): launch sizes then need host arithmetic on it."""

    form: str = "div"  # div: a / k + c, min: min(a, b), twice: a * 2, less: max(a - k, 0)
    operands: tuple[str, ...] = ()
    constant: int = 1

    def c_expr(self) -> str:
        a = self.operands[0]
        return {
            "div": f"{a} / {self.constant} + 1",
            "min": f"min({a}, {self.operands[-1]})",
            "twice": f"{a} * 2",
            "less": f"max({a} - {self.constant}, 0)",
        }[self.form]

    def value(self, sizes: Mapping[str, int]) -> int:
        a, b = sizes[self.operands[0]], sizes[self.operands[-1]]
        return {
            "div": a // self.constant + 1,
            "min": min(a, b),
            "twice": a * 2,
            "less": max(a - self.constant, 0),
        }[self.form]


@dataclass
class ScalarParam:
    name: str
    ctype: CType
    interval: Interval | None  # integers: drawn from it; floats: from [-2, 2]
    spelling: str = ""


@dataclass
class Dim:
    """One extent of an array: `size + pad` (or just `pad` when size is None)."""

    size: str | None
    pad: int

    def extent(self, sizes: Mapping[str, int]) -> int:
        return (sizes[self.size] if self.size else 0) + self.pad


@dataclass
class ArrayParam:
    name: str
    ctype: CType
    dims: list[Dim]
    values: Interval | None  # integers: every element is in it (inputs and every write)
    const: bool = False
    restrict: bool = False
    c99: bool = False  # declared `T A[n0][n1]` and indexed `A[i][j]`
    specials: bool = False  # floats: the inputs include infinities, NaN and -0.0
    spelling: str = ""

    def length(self, sizes: Mapping[str, int]) -> int:
        return max(math.prod(d.extent(sizes) for d in self.dims), 1)

    def declaration(self) -> str:
        qualifier = "const " if self.const else ""
        if self.c99:
            extents = "".join(f"[{d.size or d.pad}]" for d in self.dims)
            return f"{qualifier}{self.spelling or self.ctype.name} {self.name}{extents}"
        restrict = "restrict " if self.restrict else ""
        return f"{qualifier}{self.spelling or self.ctype.name} *{restrict}{self.name}"


Param = SizeParam | ScalarParam | ArrayParam


@dataclass
class FloatSum:
    """A float `+` reduction stored as three elements of a double array: the sum, the sum of
    the terms' magnitudes and the number of terms (the tolerance of `compare`)."""

    array: str
    slot: int  # elements slot, slot + 1, slot + 2
    init: float
    ctype: CType


# --- statements ----------------------------------------------------------------------------


@dataclass(eq=False)
class Stmt:
    removable: bool = field(default=True, kw_only=True)

    def lines(self, indent: str) -> list[str]:
        raise NotImplementedError

    def bodies(self) -> list[list[Stmt]]:
        """The statement lists nested in this one."""
        return []

    def exprs(self) -> list[Expr]:
        return []


@dataclass(eq=False)
class Assign(Stmt):
    target: Expr
    op: str
    value: Expr | None  # None for `x++`-style updates (op is then "++" or "--")

    def lines(self, indent: str) -> list[str]:
        if self.value is None:
            return [f"{indent}{self.target.render()}{self.op};"]
        return [f"{indent}{self.target.render()} {self.op} {self.value.render()};"]

    def exprs(self) -> list[Expr]:
        return [self.target] + ([self.value] if self.value is not None else [])


@dataclass(eq=False)
class Decl(Stmt):
    ctype: CType
    name: str
    init: Expr
    const: bool = False
    spelling: str = ""

    def lines(self, indent: str) -> list[str]:
        const = "const " if self.const else ""
        ctype = self.spelling or self.ctype.name
        return [f"{indent}{const}{ctype} {self.name} = {self.init.render()};"]

    def exprs(self) -> list[Expr]:
        return [self.init]


@dataclass(eq=False)
class If(Stmt):
    cond: Expr
    then: list[Stmt]
    other: list[Stmt] | None = None

    def lines(self, indent: str) -> list[str]:
        out = [f"{indent}if ({self.cond.render()}) {{", *_block(self.then, indent)]
        if self.other is not None:
            out += [f"{indent}}} else {{", *_block(self.other, indent)]
        return [*out, f"{indent}}}"]

    def bodies(self) -> list[list[Stmt]]:
        return [self.then] + ([self.other] if self.other is not None else [])

    def exprs(self) -> list[Expr]:
        return [self.cond]


@dataclass
class Trip:
    """How many times a loop runs at most, for the work estimate: `size + offset` iterations
    divided by `step`, or `constant`."""

    size: str | None
    offset: int
    step: int = 1

    def count(self, sizes: Mapping[str, int]) -> int:
        total = (sizes[self.size] if self.size else 0) + self.offset
        return max(-(-total // self.step), 0)


@dataclass(eq=False)
class Loop(Stmt):
    """A `for` or `while` loop, written out by the generator (`header`), with its pragma."""

    header: str
    body: list[Stmt]
    trip: Trip
    pragma: str | None = None
    tail: str = ""  # `while (c);` after the body of a `do` loop

    def lines(self, indent: str) -> list[str]:
        pragma = [f"#pragma {self.pragma}"] if self.pragma else []
        end = f"{indent}}} {self.tail}" if self.tail else f"{indent}}}"
        return [*pragma, f"{indent}{self.header} {{", *_block(self.body, indent), end]

    def bodies(self) -> list[list[Stmt]]:
        return [self.body]


@dataclass(eq=False)
class Block(Stmt):
    """`{ ... }`: statements the reducer removes together only (a while loop and its
    counter; a float reduction update and its companions)."""

    body: list[Stmt]

    def lines(self, indent: str) -> list[str]:
        return [f"{indent}{{", *_block(self.body, indent), f"{indent}}}"]

    def bodies(self) -> list[list[Stmt]]:
        return [self.body]


def _block(stmts: list[Stmt], indent: str) -> list[str]:
    return [line for s in stmts for line in s.lines(indent + "  ")]


def walk_statements(stmts: list[Stmt]) -> Iterator[tuple[list[Stmt], Stmt]]:
    """Every statement with the list that holds it, outermost first."""
    for s in list(stmts):
        yield stmts, s
        for body in s.bodies():
            yield from walk_statements(body)


# --- the program ---------------------------------------------------------------------------


@dataclass
class Program:
    name: str
    params: list[Param]
    body: list[Stmt]
    float_sums: list[FloatSum] = field(default_factory=list[FloatSum])
    derived: list[DerivedSize] = field(default_factory=list[DerivedSize])
    seed: int = 0

    def source(self) -> str:
        params = ", ".join(_param_declaration(p) for p in self.params)
        lines = [f"void {self.name}({params}) {{", *_block(self.body, ""), "}"]
        return "\n".join(lines) + "\n"

    @property
    def sizes(self) -> list[SizeParam]:
        return [p for p in self.params if isinstance(p, SizeParam)]

    @property
    def arrays(self) -> list[ArrayParam]:
        return [p for p in self.params if isinstance(p, ArrayParam)]

    def all_sizes(self, sizes: Mapping[str, int]) -> dict[str, int]:
        """The size parameters' values and the derived sizes'."""
        values = dict(sizes)
        for d in self.derived:
            values[d.name] = d.value(values)
        return values

    def work(self, sizes: Mapping[str, int]) -> int:
        """Loop iterations run for these sizes, at most (the cost of one run)."""
        sizes = self.all_sizes(sizes)

        def cost(stmts: list[Stmt], outer: int) -> int:
            total = 0
            for s in stmts:
                if isinstance(s, Loop):
                    trips = outer * s.trip.count(sizes)
                    total += trips + cost(s.body, trips)
                else:
                    total += sum(cost(body, outer) for body in s.bodies())
            return total

        return cost(self.body, 1)

    def arguments(self, sizes: Mapping[str, int], rng: np.random.Generator) -> list[Any]:
        """Random arguments in parameter order for these sizes."""
        sizes = self.all_sizes(sizes)
        args: list[Any] = []
        for p in self.params:
            if isinstance(p, SizeParam):
                args.append(int(sizes[p.name]))
            elif isinstance(p, ScalarParam):
                args.append(_scalar_value(p, rng))
            else:
                args.append(_array_values(p, p.length(sizes), rng))
        return args


def _param_declaration(p: Param) -> str:
    if isinstance(p, ArrayParam):
        return p.declaration()
    return f"{p.spelling or p.ctype.name} {p.name}"


def _draw_int(interval: Interval, count: int, rng: np.random.Generator) -> np.ndarray:
    """Uniform in the interval, with its ends and 0 (where inside) mixed in."""
    lo, hi = interval
    values = np.array([int(v) for v in rng.integers(lo, hi, size=count, endpoint=True,
                                                     dtype=np.int64 if hi < 2**63 else np.uint64)],
                      dtype=object)  # fmt: skip
    edges = [v for v in (lo, hi, 0, 1, -1) if lo <= v <= hi]
    picks = rng.random(count) < 0.1
    for position in np.flatnonzero(picks):
        values[position] = edges[rng.integers(len(edges))]
    return values


def _scalar_value(p: ScalarParam, rng: np.random.Generator) -> int | float:
    if p.ctype.is_float:
        value = float(rng.choice([0.0, 1.0, -0.5, rng.uniform(-2, 2), rng.uniform(-2, 2)]))
        return float(p.ctype.dtype.type(value))
    return int(_draw_int(int_interval(p.interval), 1, rng)[0])


def _array_values(p: ArrayParam, length: int, rng: np.random.Generator) -> np.ndarray:
    if p.ctype.is_float:
        values = rng.uniform(-1.0, 1.0, length)
        if p.specials:
            special = rng.random(length) < 0.05
            values[special] = rng.choice([np.inf, -np.inf, np.nan, -0.0, 0.0, 1e30],
                                         size=int(special.sum()))  # fmt: skip
        return values.astype(p.ctype.dtype)
    drawn = _draw_int(int_interval(p.values), length, rng)
    return np.array(list(drawn), dtype=object).astype(p.ctype.dtype)
