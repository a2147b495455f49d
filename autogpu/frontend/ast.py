"""The syntax tree of the C subset: small dataclasses, each with the user's (line, column).

`parse.py` builds it from lark's tree; `sema.py` annotates it (the `ctype` of each expression,
the `Var` each name refers to, the canonical form of each `for`); `irgen.py` turns it into IR.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from autogpu.frontend.types import CType, Scalar

if TYPE_CHECKING:
    from autogpu.frontend.loops import CanonicalLoop
    from autogpu.frontend.openmp import ParallelInfo
    from autogpu.frontend.symbols import Var

Pos = tuple[int, int]


@dataclass(eq=False)
class Node:
    pos: Pos


# ---- expressions ------------------------------------------------------------------------------


@dataclass(eq=False)
class Expr(Node):
    ctype: CType | None = field(default=None, init=False)

    @property
    def scalar(self) -> Scalar:
        """`ctype` where sema has checked it is arithmetic (not an array or a row)."""
        assert isinstance(self.ctype, Scalar), f"expression at {self.pos} is not a scalar"
        return self.ctype


@dataclass(eq=False)
class IntLit(Expr):
    value: int
    type: Scalar
    text: str


@dataclass(eq=False)
class FloatLit(Expr):
    value: float
    type: Scalar
    text: str
    long_double: bool = False  # an `L` literal: computed as double, with a warning


@dataclass(eq=False)
class Name(Expr):
    name: str
    var: Var | None = field(default=None, init=False)

    @property
    def resolved_var(self) -> Var:
        """`var`, which sema resolves on every name it accepts."""
        assert self.var is not None, f"name {self.name!r} at {self.pos} not resolved by sema"
        return self.var


@dataclass(eq=False)
class Index(Expr):
    base: Expr
    index: Expr


@dataclass(eq=False)
class Call(Expr):
    callee: Expr
    args: list[Expr]

    @property
    def named_callee(self) -> Name:
        """`callee` where it is known to be a name (a helper's or a math function's call)."""
        assert isinstance(self.callee, Name), f"call at {self.pos} is not of a name"
        return self.callee


@dataclass(eq=False)
class Unary(Expr):
    op: str  # - + ! ~ & *
    operand: Expr


@dataclass(eq=False)
class Binary(Expr):
    op: str
    lhs: Expr
    rhs: Expr
    # The type both operands are converted to (arithmetic and comparisons); shifts: promoted lhs.
    operand_type: Scalar | None = field(default=None, init=False)


@dataclass(eq=False)
class Conditional(Expr):
    cond: Expr
    then: Expr
    otherwise: Expr


@dataclass(eq=False)
class Cast(Expr):
    to: TypeName
    operand: Expr


@dataclass(eq=False)
class Assign(Expr):
    op: str  # "=", "+=", ...
    target: Expr
    value: Expr
    # For compound assignments: the type `target op value` is computed in.
    operand_type: Scalar | None = field(default=None, init=False)


@dataclass(eq=False)
class IncDec(Expr):
    op: str  # "++" or "--"
    prefix: bool
    target: Expr
    operand_type: Scalar | None = field(default=None, init=False)


@dataclass(eq=False)
class Comma(Expr):
    items: list[Expr]


# ---- types and declarations -------------------------------------------------------------------


@dataclass(eq=False)
class TypeName(Node):
    """Declaration specifiers: the base type (None for void) and its qualifiers."""

    base: Scalar | None
    spelling: str  # the canonical C spelling (`agpu.ctype`), e.g. "size_t"
    const: bool = False
    restrict: bool = False
    restrict_pos: Pos | None = None
    pointers: int = 0  # only in casts: `(float *)p`
    static_pos: Pos | None = None  # where `static` is written, if it is
    inline_pos: Pos | None = None  # where `inline` is written, if it is

    @property
    def restrict_position(self) -> Pos:
        """`restrict_pos` of a type written with `restrict` (parse.py sets both)."""
        assert self.restrict_pos is not None, f"type at {self.pos} has no 'restrict'"
        return self.restrict_pos


@dataclass(eq=False)
class Pointer(Node):
    const: bool = False
    restrict: bool = False


@dataclass(eq=False)
class Declarator(Node):
    """A C declarator, flattened: `*restrict A[m][n]`, `(*f)(int)`, `f(int n)`."""

    name: str | None
    pointers: list[Pointer] = field(default_factory=list[Pointer])
    arrays: list[Expr | None] = field(default_factory=list[Expr | None])
    array_quals: list[Pointer] = field(default_factory=list[Pointer])  # `A[restrict n]`
    params: list[Param] | None = None  # a function declarator
    function_pointer: bool = False
    pointer_to_array: bool = False
    parenthesized_pointer: bool = False  # `(*name)`: what follows applies to the pointee

    @property
    def identifier(self) -> str:
        """`name`, which only an abstract parameter's declarator (`int *`) lacks (c.lark)."""
        assert self.name is not None, f"abstract declarator at {self.pos}"
        return self.name


@dataclass(eq=False)
class Param(Node):
    type: TypeName
    declarator: Declarator


@dataclass(eq=False)
class InitDeclarator(Node):
    declarator: Declarator
    init: Expr | BraceInit | None
    var: Var | None = field(default=None, init=False)
    # A local array's initializer: (flat index, value) of each element given (sema.py).
    elements: list[tuple[int, Expr]] = field(default_factory=list[tuple[int, Expr]], init=False)

    @property
    def resolved_var(self) -> Var:
        """`var`, which sema sets on every declarator it accepts."""
        assert self.var is not None, f"declarator at {self.pos} not resolved by sema"
        return self.var


@dataclass(eq=False)
class BraceInit(Node):
    items: list[Any]


# ---- statements -------------------------------------------------------------------------------


@dataclass(eq=False)
class Stmt(Node):
    # `#pragma omp atomic` / `critical` on this statement (atomics.AtomicInfo, CriticalInfo).
    sync: Any = field(default=None, init=False)


@dataclass(eq=False)
class Decl(Stmt):
    type: TypeName
    declarators: list[InitDeclarator]


@dataclass(eq=False)
class Block(Stmt):
    items: list[Stmt]
    end: Pos = (0, 0)


@dataclass(eq=False)
class ExprStmt(Stmt):
    expr: Expr | None


@dataclass(eq=False)
class If(Stmt):
    cond: Expr
    then: Stmt
    otherwise: Stmt | None


@dataclass(eq=False)
class While(Stmt):
    cond: Expr
    body: Stmt


@dataclass(eq=False)
class DoWhile(Stmt):
    body: Stmt
    cond: Expr


@dataclass(eq=False)
class For(Stmt):
    init: Decl | ExprStmt
    cond: Expr | None
    step: Expr | None
    body: Stmt
    canonical: CanonicalLoop | None = field(default=None, init=False)
    not_canonical_because: str = field(default="", init=False)
    parallel: ParallelInfo | None = field(default=None, init=False)
    # `num_teams`/`thread_limit` of its OpenMP construct: a constant, or an expression of the
    # function's integer parameters in the launch description's language (directives.py).
    launch_bounds: dict[str, int | str] = field(default_factory=dict[str, int | str], init=False)


@dataclass(eq=False)
class Return(Stmt):
    value: Expr | None


@dataclass(eq=False)
class Labeled(Stmt):
    label: str
    stmt: Stmt


# ---- top level --------------------------------------------------------------------------------


@dataclass(eq=False)
class FunctionDef(Node):
    type: TypeName
    declarator: Declarator
    body: Block


@dataclass(eq=False)
class TranslationUnit(Node):
    items: list[FunctionDef | Decl]  # a Decl: prototypes (or rejected global variables)

