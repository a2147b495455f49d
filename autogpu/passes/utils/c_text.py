"""C text of integer values, rebuilt from the IR for messages: `'a[i - 1]'`, `'len[0] * 2'`.

The frontend computes every index and bound in C's integer types with one op per C operator
(docs/ir.md), so the C expression a value comes from can be written back: variables by their
name hints, array elements by the array's C name, widening casts left out (C writes them
implicitly), constants of unsigned arithmetic as unsigned.
"""

from __future__ import annotations

from xdsl.dialects import arith, memref
from xdsl.ir import Operation, SSAValue

from autogpu.passes.analysis.aliasing import c_name
from autogpu.passes.analysis.integers import bit_width, constant_int

_OPERATORS = {
    "arith.muli": ("*", 5), "arith.divsi": ("/", 5), "arith.divui": ("/", 5),
    "arith.remsi": ("%", 5), "arith.remui": ("%", 5), "arith.addi": ("+", 4),
    "arith.subi": ("-", 4), "arith.shli": ("<<", 3), "arith.shrsi": (">>", 3),
    "arith.shrui": (">>", 3), "arith.andi": ("&", 2), "arith.xori": ("^", 1),
    "arith.ori": ("|", 0),
}  # fmt: skip
"""C's binary operators of the integer ops, with their precedence."""

_FUNCTIONS = {
    "arith.minsi": "min", "arith.minui": "min", "arith.maxsi": "max", "arith.maxui": "max",
}  # fmt: skip
_CASTS = ("arith.index_cast", "arith.extsi", "arith.extui")
"""Widening casts, transparent in C text (a truncation is a C variable: `i` of `i_wide`)."""


def c_expression(value: SSAValue, context: int = -1, unsigned: bool = False) -> str:
    """The C text of an integer expression, rebuilt from its ops (`i * n + j`); `context` is
    the precedence of the operator it is an operand of; `unsigned`: it is computed in an
    unsigned type (below an `extui`), so constants read as unsigned (`0x80000000u`)."""
    owner = value.owner
    if (constant := constant_int(value)) is not None:
        if unsigned and constant < 0:
            return f"{constant % (1 << (bit_width(value.type) or 64))}u"
        return str(constant)
    if isinstance(owner, memref.LoadOp):
        name = c_name(owner.memref) or "?"
        return f"{name}[{c_expression(owner.indices[0])}]" if owner.indices else name
    if isinstance(owner, Operation) and owner.name in _CASTS:
        inner = unsigned or isinstance(owner, arith.ExtUIOp)
        return c_expression(owner.operands[0], context, inner)
    if value.name_hint or not isinstance(owner, Operation):
        return value.name_hint or "?"
    if owner.name in _FUNCTIONS:
        operands = ", ".join(c_expression(v, -1, unsigned) for v in owner.operands)
        return f"{_FUNCTIONS[owner.name]}({operands})"
    if owner.name not in _OPERATORS:
        return "..."
    symbol, precedence = _OPERATORS[owner.name]
    lhs, rhs = owner.operands
    text = (f"{c_expression(lhs, precedence, unsigned)} {symbol} "
            f"{c_expression(rhs, precedence + 1, unsigned)}")
    return f"({text})" if precedence < context else text


__all__ = ["c_expression"]
