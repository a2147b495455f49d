"""`ir_syntax_error` turns xDSL's parse errors into autogpu's diagnostics, whatever the input holds."""

from typing import Any

from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input, Span

from autogpu.tools.autogpu_opt import ir_syntax_error


def _error_in(content: Any) -> ParseError:  # str, or the bytes xDSL may hold
    start = 4  # the `%x` on the second line
    return ParseError(Span(start, start + 2, Input(content, "in.mlir")), "expected an op")


def test_text_input_reports_its_line():
    error = ir_syntax_error(_error_in("abc\n%x = y\nz"))
    assert "in.mlir:2:1: error: expected an op" in str(error)
    assert "%x = y" in str(error)


def test_bytes_input_reports_its_line():
    # The bytes of the input were split on a str newline (a TypeError) before being decoded.
    error = ir_syntax_error(_error_in(b"abc\n%x = y\nz"))
    assert "in.mlir:2:1: error: expected an op" in str(error)
    assert "%x = y" in str(error)
