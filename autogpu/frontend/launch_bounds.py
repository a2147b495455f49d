"""`num_teams(e)` and `thread_limit(e)` whose `e` is an expression of the function's scalars.

The host evaluates such a bound at each launch, so `e` must be what the launch description can
compute (docs/ir.md, "The launch description"): integer constants and integer parameters that
the function never assigns, combined with `+ - * / %`, unary minus and parentheses. This module
checks the clause's text against that and returns it in that language, fully parenthesised
(`(n + 255) / 256` -> `((n + 255) / 256)`), for the loop's `agpu.num_teams`/`agpu.thread_limit`
string attribute; anything else is a located error saying why (a floating-point operand, a
local variable or array element, a parameter the function writes, a call).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from autogpu.frontend.symbols import Var
from autogpu.frontend.types import Scalar

if TYPE_CHECKING:
    from autogpu.frontend.sema import Sema

_TOKEN = re.compile(r"\s*(?:(\d*\.\d+(?:[eE][-+]?\d+)?[fFlL]?|\d+\.\d*(?:[eE][-+]?\d+)?[fFlL]?"
                    r"|\d+[eE][-+]?\d+[fFlL]?)|(\d+)[uUlL]*|([A-Za-z_]\w*)|(\S))")


class _Parser:
    """Recursive descent over the clause's tokens: (kind, text, offset in the clause)."""

    def __init__(self, sema: Sema, clause: str, text: str, column: Callable[[int], tuple[int, int]],
                 used: list[tuple[Var, tuple[int, int]]]):  # fmt: skip
        self.sema, self.clause, self.text, self.column = sema, clause, text, column
        self.used = used  # the parameters read, for the end-of-function invariance check
        self.tokens: list[tuple[str, str, int]] = []
        for match in _TOKEN.finditer(text):
            real, number, name, other = match.groups()
            kind = ("float" if real is not None else "int" if number is not None
                    else "name" if name is not None else "op")  # fmt: skip
            text = real or number or name or other or ""
            self.tokens.append((kind, text, match.start(match.lastindex or 0)))
        self.at = 0

    def error(self, why: str, offset: int | None = None):
        where = self.tokens[self.at][2] if offset is None and self.at < len(self.tokens) else (
            offset if offset is not None else len(self.text.rstrip()))
        return self.sema.error(f"'{self.clause}({self.text.strip()})': {why}", self.column(where))

    def parse(self) -> str:
        result = self.additive()
        if self.at < len(self.tokens):
            raise self.error(self._unexpected())
        return result

    def _unexpected(self) -> str:
        kind, text, _ = self.tokens[self.at]
        if text == "." or (kind == "op" and text in "[]?"):
            return (f"'{text}' is not allowed: the bound must be an integer expression of the "
                    "function's integer parameters and constants (+ - * / %)")
        return f"unexpected '{text}'"

    def additive(self) -> str:
        left = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()
            left = f"({left} {op} {self.term()})"
        return left

    def term(self) -> str:
        left = self.unary()
        while self.peek() in ("*", "/", "%"):
            op = self.take()
            left = f"({left} {op} {self.unary()})"
        return left

    def unary(self) -> str:
        if self.peek() in ("-", "+"):
            op = self.take()
            return f"({op}{self.unary()})"
        if self.peek() == "(":
            self.take()
            inner = self.additive()
            if self.peek() != ")":
                raise self.error("expected ')'")
            self.take()
            return inner
        if self.at >= len(self.tokens):
            raise self.error("the expression ends too early")
        kind, text, offset = self.tokens[self.at]
        if kind == "int":
            self.at += 1
            return text
        if kind == "float":
            raise self.error(f"the bound must be an integer expression, and '{text}' is a "
                             "floating-point constant", offset)
        if kind == "name":
            self.at += 1
            if self.peek() == "(":
                raise self.error(f"'{text}(...)' is a call: the host evaluates the bound at "
                                 "launch from the scalar parameters alone", offset)
            return self.name(text, offset)
        raise self.error(self._unexpected())

    def name(self, text: str, offset: int) -> str:
        var = self.sema.lookup(text)
        if var is None:
            raise self.error(f"'{text}' is not declared", offset)
        if not isinstance(var.type, Scalar) or var.type.is_float:
            what = "an array" if not isinstance(var.type, Scalar) else f"'{var.type}'"
            raise self.error(f"the bound must be an integer expression, and '{text}' is {what}",
                             offset)
        if var.param_index is None:
            raise self.error(f"'{text}' is a local variable: the host evaluates the bound at "
                             "launch from the function's parameters alone (pass it as one)",
                             offset)
        self.used.append((var, self.column(offset)))
        return text

    def peek(self) -> str | None:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else None

    def take(self) -> str:
        text = self.tokens[self.at][1]
        self.at += 1
        return text


def bound_expression(sema: Sema, clause: str, text: str, column: Callable[[int], tuple[int, int]],
                     used: list[tuple[Var, tuple[int, int]]]) -> str:  # fmt: skip
    """The launch-description form of `clause(text)`; `column(offset)` locates an offset of
    `text`. The parameters it reads are appended to `used` (`check_invariant` at the
    function's end)."""
    return _Parser(sema, clause, text, column, used).parse()


def check_invariant(sema: Sema, used: list[tuple[Var, tuple[int, int]]],
                    assigned: set[Var]) -> None:  # fmt: skip
    """A bound reading a parameter the function assigns has no single value at launch."""
    for var, where in used:
        if var in assigned:
            raise sema.error(
                f"'{var.name}' is assigned in the function, so a launch bound reading it is not "
                "invariant: the host evaluates 'num_teams'/'thread_limit' once, at launch, "
                "from the parameters as passed",
                where,
            )
