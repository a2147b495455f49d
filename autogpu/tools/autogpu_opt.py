"""`autogpu-opt`: xDSL's opt driver with autogpu's C frontend, dialect, passes and targets.

Reads C (`.c` files, or `-f c`) or IR, runs `-p` pipelines of autogpu's and xDSL's passes, and
prints IR (or CUDA with `-t cuda`). Errors in the user's input are printed as located
diagnostics with exit status 1, never as Python tracebacks: C errors at their C construct, IR
verifier errors at the op's line (parsed ops carry their IR location, as in MLIR).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Sequence
from io import BytesIO
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation, Region
from xdsl.parser import Parser
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    MultipleSpansParseError,
    ParseError,
    VerifyException,
)
from xdsl.xdsl_opt_main import xDSLOptMain

from autogpu.context import DIALECTS
from autogpu.diagnostics import (
    CompileError,
    SourceLocation,
    decode_source,
    line_and_column,
    location_of,
    read_source,
)
from autogpu.nesting import MAX_NESTING, deep_recursion, too_deep


class InvalidIR(CompileError, VerifyException):
    """IR that does not verify, located at the op that fails (a VerifyException, so that
    `--verify-diagnostics` reports it and goes on with the next `--split-input-file` chunk)."""


class LocatingParser(Parser):
    """xDSL's IR parser, giving each op without a `loc(...)` its line and column in the file
    (MLIR does the same), and refusing regions nested deeper than MAX_NESTING."""

    def __init__(self, ctx: Context, text: str, name: str, line_offset: int = 0):
        super().__init__(ctx, text, name)
        self.text, self.line_offset = text, line_offset
        self.starts: list[tuple[Operation, int]] = []
        self.depth = 0

    def parse_operation(self) -> Operation:
        start = self.pos
        op = super().parse_operation()
        if isinstance(op.location, UnknownLoc):
            self.starts.append((op, start))
        return op

    def parse_optional_region(
        self, arguments: Iterable[Parser.Argument] | None = None
    ) -> Region | None:
        if self.depth >= MAX_NESTING:
            self.raise_error(too_deep("regions"))
        self.depth += 1
        try:
            return super().parse_optional_region(arguments)
        finally:
            self.depth -= 1

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        module = super().parse_module(allow_implicit_module)
        name = StringAttr(self.lexer.input.name)
        for op, start in self.starts:
            line, column = line_and_column(self.text, start)
            op.location = FileLineColLoc(name, IntAttr(line + self.line_offset), IntAttr(column))
        return module


def verify_located(module: ModuleOp) -> None:
    """Verify `module`; an error is an `InvalidIR` at the op that fails."""
    try:
        module.verify()
    except VerifyException as e:
        message = str(e)
        raise InvalidIR(message, location_of(_failing_op(module, message))) from None


def _failing_op(module: ModuleOp, message: str) -> Operation | None:
    """The op whose own verifier reports `message` (xDSL's error does not say which), innermost
    first as xDSL verifies; otherwise the first op that fails."""
    first = None
    for op in module.walk(region_first=True):
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as e:
            if str(e) == message:
                return op
            first = first or op
    return first


OPTIONS_EPILOG = (
    "Pass options are declared once, on their pass, with autogpu.passes.options.option(default, "
    "doc=..., check=..., tuning=..., role=...); autogpu-vanilla and autogpu-optimize expose "
    "every option of their passes (the stage table in autogpu/passes/pipelines.py), and the "
    "tuner reads the same declarations. --help-options lists them all."
)


class _PassOptionsHelp(argparse.Action):
    """`--help-options`: every option of autogpu's passes, from their declarations."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[object] | None, option_string: str | None = None) -> None:
        from autogpu.passes import get_all_passes
        from autogpu.passes.options import help_text

        passes = get_all_passes()
        print("\n\n".join(help_text(passes[name]()) for name in sorted(passes)))
        parser.exit()


class AutogpuOptMain(xDSLOptMain):
    version_format = "autogpu-opt built from xdsl version {xdsl_version}"

    def __init__(self, args: Sequence[str] | None = None):
        self.c_source: tuple[str, str] | None = None  # (file name, text) of the C input
        self.chunk_line_offset = 0
        super().__init__(description="autogpu modular optimizer driver", args=args)

    def register_all_dialects(self):
        super().register_all_dialects()
        # Our own dialects even when the package is not installed (no entry point).
        for dialect in DIALECTS:
            if dialect.name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(dialect.name, lambda d=dialect: d)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser):
        super().register_all_arguments(arg_parser)
        arg_parser.epilog = OPTIONS_EPILOG
        arg_parser.add_argument(
            "--help-options",
            nargs=0,
            action=_PassOptionsHelp,
            help="list the options of autogpu's passes and pipelines (type, default, doc, "
            "tuning values, role) and exit",
        )
        arg_parser.add_argument(
            "--Werror",
            action="store_true",
            help="treat the C frontend's warnings (e.g. parallel loops whose iterations may "
            "touch one element) as errors",
        )

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        """The input, read here so that a missing path, a directory or a file that is not
        UTF-8 text is a `file: error: ...` diagnostic."""
        if self.args.input_file is None:
            return super().get_input_stream()
        text = read_source(self.args.input_file)
        _, extension = os.path.splitext(self.args.input_file)
        return BytesIO(text.encode()), extension.replace(".", "")

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0):
        self.chunk_line_offset = start_offset
        return super().parse_chunk(chunk, file_extension, start_offset)

    def register_all_frontends(self):
        super().register_all_frontends()

        def parse_c(io: IO[bytes]):
            from autogpu.frontend import parse_c as parse

            name = self.get_input_name()
            text = decode_source(io.read(), name)
            self.c_source = (name, text)
            return parse(text, name, werror=self.args.Werror)

        def parse_mlir(io: IO[bytes]):
            name = self.get_input_name()
            parser = LocatingParser(
                self.ctx, decode_source(io.read(), name), name, self.chunk_line_offset
            )
            module = parser.parse_module(not self.args.no_implicit_module)
            if not self.args.disable_verify:
                verify_located(module)
            return module

        self.available_frontends["c"] = parse_c
        self.available_frontends["mlir"] = parse_mlir

    def register_all_passes(self):
        super().register_all_passes()
        from autogpu.passes import get_all_passes

        for name, factory in get_all_passes().items():
            self.register_pass(name, factory)

        def get_canonicalize():
            from autogpu.passes.canonicalize import CanonicalizePass

            return CanonicalizePass

        # xDSL's canonicalize drops `overflow<nsw>` when it reorders operands; ours keeps it.
        self.register_pass("canonicalize", get_canonicalize)

    def register_all_targets(self):
        super().register_all_targets()
        from autogpu.target import get_all_targets

        for name, factory in get_all_targets().items():
            self.available_targets[name] = factory


def ir_syntax_error(e: ParseError) -> CompileError:
    """xDSL's IR syntax error in the `file:line:col: error:` form of every other diagnostic."""
    where = e.span.get_location()
    message = e.msg
    if isinstance(e, MultipleSpansParseError):
        message += "".join(f"\n{span.print_with_context(note)}" for span, note in e.refs)
    rest = e.span.input.content[e.span.input.get_start_of_line(e.span.start) :]
    if isinstance(rest, bytes):  # xDSL inputs may hold bytes
        rest = rest.decode("utf-8", errors="replace")
    line = rest.split("\n")[0]
    return CompileError(message, SourceLocation(where.file, where.line, where.col), line)


def main(argv: Sequence[str] | None = None) -> int:
    tool = None
    try:
        with deep_recursion():
            tool = AutogpuOptMain(args=argv)
            tool.run()
    except CompileError as e:
        if tool is not None and tool.c_source is not None:
            e.quoting(*tool.c_source)
        print(e.format(), file=sys.stderr)
        return 1
    except ParseError as e:
        print(ir_syntax_error(e).format(), file=sys.stderr)
        return 1
    except (VerifyException, DiagnosticException) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except (ValueError, ArgSpecParseError) as e:  # bad pipeline, option or file extension
        print(f"error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
