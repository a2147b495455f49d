"""Pass errors that are both autogpu `CompileError`s (printed as located diagnostics by the
tools) and xDSL `PassFailedException`s (so `autogpu-opt --verify-diagnostics` reports them and
goes on with the next `--split-input-file` chunk, as lit tests of invalid input need)."""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import PassFailedException

from autogpu.diagnostics import CompileError, location_of
from autogpu.passes.utils.c_text import c_expression


class PassError(CompileError, PassFailedException):
    """A construct a pass cannot transform, or an invalid pass option."""


def error_at(op: Operation | None, message: str) -> PassError:
    """A `PassError` located at `op`'s source location when the frontend recorded one."""
    return PassError(message, location_of(op))


def describe_value(value: SSAValue) -> str:
    """A user-facing name for an SSA value: its C variable (`'m'`), else the C expression it
    computes with where that expression is (`'len[0] * 2' (line 4:22)`)."""
    if value.name_hint:
        return f"'{value.name_hint}'"
    owner = value.owner
    location = location_of(owner) if isinstance(owner, Operation) else None
    where = f" (line {location.line}:{location.column})" if location is not None else ""
    text = c_expression(value)
    if "..." not in text and "?" not in text:
        return f"'{text}'{where}"
    if location is not None:
        return f"the value of the C expression at line {location.line}:{location.column}"
    if isinstance(owner, Operation):
        return f"the result of {owner.name}"
    return "a block argument"
