"""How deeply nested the input may be, and the Python recursion that nesting needs.

The frontend, xDSL's parser, printer and verifier and the passes walk nested constructs
recursively, and real kernels nest deeper than Python's default recursion limit (1000 frames)
allows: a 400-term sum `a + a + ...` is 400 nested binary expressions, a 200-deep loop nest 200
nested regions, each several frames deep in every walker. The entry points (`autogpu-opt`,
`autogpu.compile`) run under `deep_recursion()`, and the parsers refuse nesting deeper than
`MAX_NESTING` with a located error, so that deep input is compiled, or refused, never a
RecursionError traceback (or a crash of the interpreter's own stack).
"""

from __future__ import annotations

import sys
from collections.abc import Generator
from contextlib import contextmanager

from autogpu.diagnostics import CompileError

MAX_NESTING = 1000
"""The deepest nesting of C statements, of C expressions, or of IR regions accepted."""

RECURSION_LIMIT = 40_000
"""Python frames allowed while compiling. Measured on inputs nested MAX_NESTING deep (loops,
ifs, sums, `&&` chains, `?:` chains, IR regions) through `autogpu-optimize -t cuda`: at most
about 10,000 frames, and under 2 MiB of the interpreter's C stack (of 8 MiB by default)."""


@contextmanager
def deep_recursion() -> Generator[None]:
    """Raise Python's recursion limit to RECURSION_LIMIT (never lower it) for the duration;
    running out of it anyway is a CompileError, not a traceback."""
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, RECURSION_LIMIT))
    try:
        yield
    except RecursionError:
        raise CompileError("input nested too deeply to compile") from None
    finally:
        sys.setrecursionlimit(previous)


def too_deep(what: str) -> str:
    """The message refusing nesting beyond MAX_NESTING."""
    return f"{what} nested too deeply (limit {MAX_NESTING} levels): split it up"
