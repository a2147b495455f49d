"""Pass errors that are both autogpu `CompileError`s (printed as located diagnostics by the
tools) and xDSL `PassFailedException`s (so `autogpu-opt --verify-diagnostics` reports them and
goes on with the next `--split-input-file` chunk, as lit tests of invalid input need)."""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import PassFailedException

from autogpu.diagnostics import CompileError, location_of


class PassError(CompileError, PassFailedException):
    """A construct a pass cannot transform, or an invalid pass option."""


def error_at(op: Operation | None, message: str) -> PassError:
    """A `PassError` located at `op`'s source location when the frontend recorded one."""
    return PassError(message, location_of(op))


def describe_value(value: SSAValue) -> str:
    """A user-facing name for an SSA value: its C name when it has one."""
    if value.name_hint:
        return f"'{value.name_hint}'"
    owner = value.owner
    if isinstance(owner, Operation):
        return f"the result of {owner.name}"
    return "a block argument"
