"""C expression trees and their printing with minimal, never wrong, parentheses.

The `cuda` target builds one small tree per SSA value it inlines and prints it here. Each node
knows its C precedence; a child is parenthesised only when the grammar requires it (a looser
child, or a right operand of equal precedence, since every binary C operator is
left-associative), plus where gcc's -Wparentheses asks for clarity (`a << (b + c)`,
`(a + b) & c`, `a || (b && c)`). Nodes also carry the C type of their value (`ctype`, one of the
spellings in `autogpu.target.c_types`, or None in untyped launch expressions).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# C precedence levels, tighter binds higher.
POSTFIX = 16  # a[i], f(x), a.b, and atoms
UNARY = 15  # -a, !a, ~a, (T)a
MULTIPLICATIVE = 13
ADDITIVE = 12
SHIFT = 11
RELATIONAL = 10
EQUALITY = 9
BIT_AND = 8
BIT_XOR = 7
BIT_OR = 6
LOGICAL_AND = 5
LOGICAL_OR = 4
CONDITIONAL = 3

BINARY_PRECEDENCE: dict[str, int] = {
    "*": MULTIPLICATIVE,
    "/": MULTIPLICATIVE,
    "%": MULTIPLICATIVE,
    "+": ADDITIVE,
    "-": ADDITIVE,
    "<<": SHIFT,
    ">>": SHIFT,
    "<": RELATIONAL,
    "<=": RELATIONAL,
    ">": RELATIONAL,
    ">=": RELATIONAL,
    "==": EQUALITY,
    "!=": EQUALITY,
    "&": BIT_AND,
    "^": BIT_XOR,
    "|": BIT_OR,
    "&&": LOGICAL_AND,
    "||": LOGICAL_OR,
}

_ARITHMETIC = (MULTIPLICATIVE, ADDITIVE)
_BITWISE = (BIT_AND, BIT_XOR, BIT_OR)


class Expr:
    """A C expression. Subclasses define `precedence` and `render()`."""

    ctype: str | None
    precedence: int

    def render(self) -> str:
        raise NotImplementedError

    def operand_text(self, min_precedence: int) -> str:
        """This expression as an operand that must bind at least as tight as `min_precedence`."""
        text = self.render()
        return f"({text})" if self.precedence < min_precedence else text

    def variables(self) -> set[str]:
        """The names of variables this expression reads."""
        return set()

    def is_atomic(self) -> bool:
        """True for names, literals and builtin variables: as cheap to repeat as a name."""
        return False

    def __str__(self) -> str:
        return self.render()


@dataclass(frozen=True, eq=False)
class Name(Expr):
    """A variable, parameter, or builtin (`threadIdx.x`); `is_variable` for program variables."""

    text: str
    ctype: str | None = None
    is_variable: bool = True
    precedence = POSTFIX

    def render(self) -> str:
        return self.text

    def variables(self) -> set[str]:
        return {self.text} if self.is_variable else set()

    def is_atomic(self) -> bool:
        return True


@dataclass(frozen=True, eq=False)
class Literal(Expr):
    """A literal as spelled (`1.5f`, `42u`, `true`); a leading `-` makes it a unary expression."""

    text: str
    ctype: str | None = None

    @property
    def precedence(self) -> int:  # pyright: ignore[reportIncompatibleVariableOverride]  # read-only
        return UNARY if self.text.startswith("-") else POSTFIX

    def render(self) -> str:
        return self.text

    def is_atomic(self) -> bool:
        return True


_INT_SUFFIX = {"int": "", "unsigned": "u", "long long": "LL", "unsigned long long": "ULL"}
_SMALLEST = {"int": -(2**31), "long long": -(2**63)}


@dataclass(frozen=True, eq=False)
class IntLiteral(Expr):
    """An integer literal of C type int, unsigned, long long or unsigned long long (the value
    must be in range); the most negative value is spelled `-2147483647 - 1`, as limits.h does."""

    value: int
    ctype: str = "int"  # pyright: ignore[reportIncompatibleVariableOverride]  # frozen field

    @property
    def precedence(self) -> int:  # pyright: ignore[reportIncompatibleVariableOverride]  # read-only
        if self.value == _SMALLEST.get(self.ctype):
            return ADDITIVE
        return UNARY if self.value < 0 else POSTFIX

    def render(self) -> str:
        suffix = _INT_SUFFIX[self.ctype]
        if self.value == _SMALLEST.get(self.ctype):
            return f"{self.value + 1}{suffix} - 1"
        return f"{self.value}{suffix}"

    def is_atomic(self) -> bool:
        return True


@dataclass(frozen=True, eq=False)
class Unary(Expr):
    op: str  # "-", "!", "~"
    operand: Expr
    ctype: str | None = None
    precedence = UNARY

    def render(self) -> str:
        inner = self.operand.operand_text(UNARY)
        if self.op == "-" and inner.startswith("-"):
            inner = f"({inner})"  # `- -x`, never `--x`
        return f"{self.op}{inner}"

    def variables(self) -> set[str]:
        return self.operand.variables()


@dataclass(frozen=True, eq=False)
class Cast(Expr):
    ctype: str  # pyright: ignore[reportIncompatibleVariableOverride]  # frozen field
    operand: Expr
    precedence = UNARY

    def render(self) -> str:
        return f"({self.ctype}){self.operand.operand_text(UNARY)}"

    def variables(self) -> set[str]:
        return self.operand.variables()


@dataclass(frozen=True, eq=False)
class Binary(Expr):
    op: str
    lhs: Expr
    rhs: Expr
    ctype: str | None = None

    @property
    def precedence(self) -> int:  # pyright: ignore[reportIncompatibleVariableOverride]  # read-only
        return BINARY_PRECEDENCE[self.op]

    def render(self) -> str:
        prec = self.precedence
        left = self.lhs.operand_text(prec)
        if _wants_clarity(prec, self.lhs) and self.lhs.precedence >= prec:
            left = f"({left})"
        right = self.rhs.operand_text(prec + 1)
        if _wants_clarity(prec, self.rhs) and self.rhs.precedence >= prec + 1:
            right = f"({right})"
        return f"{left} {self.op} {right}"

    def variables(self) -> set[str]:
        return self.lhs.variables() | self.rhs.variables()


def _wants_clarity(parent: int, child: Expr) -> bool:
    """Parentheses C does not need but readers (and gcc -Wparentheses) do."""
    child_prec = child.precedence
    if isinstance(child, Unary) and child.op == "!":
        return parent in _BITWISE or parent in (RELATIONAL, EQUALITY)  # `(!a) & b`
    if child_prec in (UNARY, POSTFIX):
        return False
    if parent in (RELATIONAL, EQUALITY):  # `(a < b) == c`, never `a < b < c`
        return child_prec in (RELATIONAL, EQUALITY) or child_prec in _BITWISE
    if child_prec == parent:
        return False
    if parent == SHIFT:
        return child_prec in _ARITHMETIC
    if parent in _BITWISE:
        return child_prec in _ARITHMETIC or child_prec in (SHIFT, RELATIONAL, EQUALITY) or (
            child_prec in _BITWISE
        )
    if parent == LOGICAL_OR:
        return child_prec == LOGICAL_AND
    return False


@dataclass(frozen=True, eq=False)
class Conditional(Expr):
    cond: Expr
    if_true: Expr
    if_false: Expr
    ctype: str | None = None
    precedence = CONDITIONAL

    def render(self) -> str:
        cond = self.cond.operand_text(CONDITIONAL + 1)
        # The middle operand may be any expression; parenthesise nested ternaries to read well.
        middle = self.if_true.operand_text(CONDITIONAL + 1)
        last = self.if_false.operand_text(CONDITIONAL)
        return f"{cond} ? {middle} : {last}"

    def variables(self) -> set[str]:
        return self.cond.variables() | self.if_true.variables() | self.if_false.variables()


@dataclass(frozen=True, eq=False)
class Call(Expr):
    function: str
    args: tuple[Expr, ...]
    ctype: str | None = None
    precedence = POSTFIX

    def render(self) -> str:
        # Arguments are assignment-expressions: anything we generate fits without parentheses.
        return f"{self.function}({', '.join(a.render() for a in self.args)})"

    def variables(self) -> set[str]:
        return set[str]().union(*(a.variables() for a in self.args))


@dataclass(frozen=True, eq=False)
class Index(Expr):
    """`base[i][j]...`."""

    base: Expr
    indices: tuple[Expr, ...]
    ctype: str | None = None
    precedence = POSTFIX

    def render(self) -> str:
        subscripts = "".join(f"[{i.render()}]" for i in self.indices)
        return f"{self.base.operand_text(POSTFIX)}{subscripts}"

    def variables(self) -> set[str]:
        return self.base.variables().union(*(i.variables() for i in self.indices))


def call(function: str, args: Sequence[Expr], ctype: str | None = None) -> Call:
    return Call(function, tuple(args), ctype)
