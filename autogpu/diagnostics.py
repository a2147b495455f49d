"""Located errors for bad input: `file:line:col: error: what and why`, the line, and a caret.

Every user-facing failure (C syntax, unsupported construct, type error, invalid pass option,
unsupported op in a backend) is a `CompileError`; tools print it and exit with status 1, so users
never see a Python traceback.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SourceLocation:
    file: str
    line: int  # 1-based
    column: int  # 1-based


class CompileError(Exception):
    """An error in the user's input, optionally located in their source."""

    def __init__(
        self,
        message: str,
        location: SourceLocation | None = None,
        source_line: str | None = None,
        severity: str = "error",
    ):
        super().__init__(message)
        self.message = message
        self.location = location
        self.source_line = source_line
        self.severity = severity

    def format(self) -> str:
        if self.location is None:
            return f"{self.severity}: {self.message}"
        loc = self.location
        text = f"{loc.file}:{loc.line}:{loc.column}: {self.severity}: {self.message}"
        if self.source_line is not None:
            line = self.source_line.rstrip("\n").expandtabs(1)
            text += f"\n{line}\n{' ' * (loc.column - 1)}^"
        return text

    def __str__(self) -> str:
        return self.format()


def located(
    message: str, file: str, source: str, line: int, column: int, severity: str = "error"
) -> CompileError:
    """A CompileError (or, with severity="warning", a warning) pointing at (line, column) of
    `source`, which was read from `file`."""
    lines = source.splitlines()
    source_line = lines[line - 1] if 0 < line <= len(lines) else None
    return CompileError(message, SourceLocation(file, line, column), source_line, severity)
