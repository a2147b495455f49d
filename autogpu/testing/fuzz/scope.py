"""What the generator knows at a point of the program: the names it may read, which of them it
may assign, the arrays the current nest writes, and the facts that keep indices in bounds."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from autogpu.testing.fuzz import expr as X
from autogpu.testing.fuzz.program import ArrayParam, FloatSum
from autogpu.testing.fuzz.values import CType, Interval


@dataclass(eq=False)
class Var:
    """A name an expression may read: parameter, local or loop variable."""

    name: str
    ctype: CType
    interval: Interval | None
    assign_depth: int | None = None  # assignable where this many parallel loops enclose
    size: str | None = None  # loop variables over a size: lo <= v <= size - 1 + offset
    lo: int = 0
    offset: int = 0
    is_loop: bool = False

    def ref(self) -> X.Expr:
        return X.ref(self.name, self.ctype, self.interval)


@dataclass
class Owned:
    """An array the current nest writes: each iteration at one element, `index` of `key`."""

    array: ArrayParam
    key: list[Var]
    parts: list[str]  # per key variable: "direct", "shifted" or "reverse"


@dataclass
class Reduction:
    op: str
    var: Var
    terms: Interval | None  # integers: each term is brought into this interval
    sites: int = 0
    float_sum: FloatSum | None = None


@dataclass
class Nest:
    owned: list[Owned] = field(default_factory=list[Owned])
    reductions: list[Reduction] = field(default_factory=list[Reduction])


@dataclass
class Scope:
    vars: list[Var]
    positive: frozenset[str] = frozenset()  # sizes known to be >= 1 here
    parallel: tuple[Var, ...] = ()
    trips: int = 1
    loops: int = 0
    nest: Nest | None = None

    def child(self, **changes: Any) -> Scope:
        """A nested scope: its own copy of the variables, the given fields changed."""
        changes["vars"] = list(changes.get("vars", self.vars))
        return replace(self, **changes)


def frozen(e: X.Expr) -> X.Expr:
    """`e` with every node frozen: the reducer leaves it alone."""
    for node in e.walk():
        node.frozen = True
    return e
