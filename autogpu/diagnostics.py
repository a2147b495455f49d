"""Located errors for bad input: `file:line:col: error: what and why`, the line, and a caret.

Every user-facing failure (C syntax, unsupported construct, type error, invalid pass option,
unsupported op in a backend) is a `CompileError`; tools print it and exit with status 1, so users
never see a Python traceback.
"""

from __future__ import annotations

import bisect
import linecache
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation


@dataclass(frozen=True)
class SourceLocation:
    file: str
    line: int  # 1-based; 0: the file as a whole (it cannot be read)
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
        if loc.line == 0:
            return f"{loc.file}: {self.severity}: {self.message}"
        text = f"{loc.file}:{loc.line}:{loc.column}: {self.severity}: {self.message}"
        source_line = self.source_line
        if source_line is None:  # a pass error knows only its location: read the file
            source_line = linecache.getline(loc.file, loc.line) or None
        if source_line is not None:
            line = source_line.rstrip("\r\n").expandtabs(1)
            text += f"\n{line}\n{' ' * (loc.column - 1)}^"
        return text

    def quoting(self, file: str, source: str) -> CompileError:
        """This error with its source line from `source` (the text of `file`) when it is
        located there and has none yet: for pass errors on source that is not in a file."""
        loc = self.location
        if self.source_line is None and loc is not None and loc.file == file:
            self.source_line = line_of(source, loc.line)
        return self

    def __str__(self) -> str:
        return self.format()


def location_of(op: Operation | None) -> SourceLocation | None:
    """The source location of `op` (or of its closest ancestor that has one): the C construct
    it comes from, or its line in an IR file (docs/ir.md)."""
    while op is not None:
        loc = op.location
        if isinstance(loc, FileLineColLoc):
            return SourceLocation(loc.filename.data, loc.line.data, loc.column.data)
        op = op.parent_op()
    return None


def located(
    message: str, file: str, source: str, line: int, column: int, severity: str = "error"
) -> CompileError:
    """A CompileError (or, with severity="warning", a warning) pointing at (line, column) of
    `source`, which was read from `file`."""
    return CompileError(
        message, SourceLocation(file, line, column), line_of(source, line), severity
    )


def line_of(source: str, line: int) -> str | None:
    """Line `line` (1-based) of `source`, or None past its end. Lines end at '\\n', as the
    frontend counts them; finding one costs a search, not a split of the whole text, so that
    many diagnostics on a large file stay cheap."""
    starts = _line_starts(source)
    if not 0 < line <= len(starts):
        return None
    end = source.find("\n", starts[line - 1])
    return source[starts[line - 1] : end if end >= 0 else len(source)]


@lru_cache(maxsize=2)
def _line_starts(source: str) -> list[int]:
    starts, position = [0], source.find("\n")
    while position >= 0:
        starts.append(position + 1)
        position = source.find("\n", position + 1)
    return starts


def line_and_column(source: str, offset: int) -> tuple[int, int]:
    """The 1-based (line, column) of character `offset` of `source`."""
    starts = _line_starts(source)
    line = bisect.bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1


def read_source(path: str | os.PathLike[str]) -> str:
    """The text of source file `path`. A missing path, a directory, an unreadable file or one
    that is not UTF-8 text is a CompileError `path: error: ...`, never an OSError."""
    file = str(path)
    whole_file = SourceLocation(file, 0, 0)
    try:
        data = Path(file).read_bytes()
    except FileNotFoundError:
        raise CompileError("no such file", whole_file) from None
    except IsADirectoryError:
        raise CompileError("is a directory, not a source file", whole_file) from None
    except OSError as e:
        raise CompileError(f"cannot read it: {e.strerror}", whole_file) from None
    return decode_source(data, file)


def decode_source(data: bytes, file: str) -> str:
    """`data` as UTF-8 text; otherwise a CompileError at the first invalid byte, with its
    byte offset (C and IR sources are UTF-8)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line_start = data.rfind(b"\n", 0, e.start) + 1
        line_end = data.find(b"\n", e.start)
        before = data[line_start : e.start].decode("utf-8", errors="replace")
        raise CompileError(
            f"not UTF-8 text: invalid byte 0x{data[e.start]:02x} at byte offset {e.start}",
            SourceLocation(file, data.count(b"\n", 0, e.start) + 1, len(before) + 1),
            data[line_start : line_end if line_end >= 0 else len(data)].decode(
                "utf-8", errors="replace"
            ),
        ) from None
