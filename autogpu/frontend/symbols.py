"""What names refer to after analysis: variables and parameters (`Var`), analysed functions,
and small helpers to walk expressions."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from autogpu.frontend import ast
from autogpu.frontend.types import ArrayType, Scalar


@dataclass(eq=False)
class Var:
    """A C variable or parameter. `needs_slot`: it lives in a rank-0 memref (see docs/ir.md)."""

    name: str
    type: Scalar | ArrayType
    pos: ast.Pos
    spelling: str
    const: bool = False
    param_index: int | None = None
    needs_slot: bool = False
    initializing: bool = False
    unassigned: bool = False  # declared without initializer, not assigned yet (source order)
    aliases: Var | None = None  # a local pointer naming a whole array (`float *p = A;`)

    @property
    def is_array(self) -> bool:
        return isinstance(self.type, ArrayType)

    @property
    def scalar(self) -> Scalar:
        """`type` of a variable known to be scalar (not `is_array`)."""
        assert isinstance(self.type, Scalar), f"{self.name} is an array"
        return self.type

    @property
    def array(self) -> ArrayType:
        """`type` of a variable known to be an array (`is_array`)."""
        assert isinstance(self.type, ArrayType), f"{self.name} is not an array"
        return self.type


@dataclass(eq=False)
class Function:
    """A C function after analysis: its parameters resolved, its body annotated."""

    name: str
    pos: ast.Pos
    params: list[Var]
    body: ast.Block
    maps: dict[str, str] = field(
        default_factory=dict[str, str])  # OpenMP map of arrays (frontend/maps.py)


def walk_expr(expr: ast.Expr) -> Iterator[ast.Expr]:
    """`expr` and all its subexpressions, outermost first."""
    yield expr
    for child in children(expr):
        yield from walk_expr(child)


def children(e: ast.Expr) -> list[ast.Expr]:
    if isinstance(e, ast.Index):
        return [e.base, e.index]
    if isinstance(e, ast.Call):
        return [e.callee, *e.args]
    if isinstance(e, ast.Unary):
        return [e.operand]
    if isinstance(e, ast.Binary):
        return [e.lhs, e.rhs]
    if isinstance(e, ast.Conditional):
        return [e.cond, e.then, e.otherwise]
    if isinstance(e, ast.Cast):
        return [e.operand]
    if isinstance(e, ast.Assign):
        return [e.target, e.value]
    if isinstance(e, ast.IncDec):
        return [e.target]
    if isinstance(e, ast.Comma):
        return list(e.items)
    return []


def is_name(e: ast.Expr, var: Var | None) -> bool:
    return isinstance(e, ast.Name) and (var is None or e.var is var)


def array_var(e: ast.Expr) -> Var:
    while isinstance(e, ast.Index):
        e = e.base
    assert isinstance(e, ast.Name)
    assert e.var is not None
    return e.var


def describe(e: ast.Expr) -> str:
    if isinstance(e, ast.Name):
        return e.name
    if isinstance(e, ast.Index):
        return f"{describe(e.base)}[...]"
    return "expression"
