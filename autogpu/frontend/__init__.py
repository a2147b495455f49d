"""The C frontend: serial C kernels (a C99 subset with `#pragma omp parallel for`) to the
C-level IR of docs/ir.md.

    parse_c(source, filename) -> ModuleOp   (one verified func.func per C function)
    parse_c_file(path) -> ModuleOp

The subset: `void` functions whose parameters are scalars or pointers of _Bool, char, short,
int, long (signed or unsigned), float and double or the <stdbool.h>/<stddef.h>/<stdint.h>
names of these types (const, restrict), or C99 array parameters
`float A[m][n]` (flattened row-major); local scalar variables; blocks, if/else, while,
do/while and for; every assignment operator and ++/-- as statements; all C arithmetic,
comparison, logical, bitwise, shift and ?: operators with C's type rules (LP64, as gcc);
casts; integer and floating literals in every C form; the math functions sqrt exp log fabs
sin cos floor ceil fmin fmax pow (and their `f` versions) and min/max; `#include` (ignored),
object-like `#define`, `#ifdef`/`#ifndef`/`#else`/`#endif`; `#pragma omp parallel for` with
collapse(n) and reduction(op: vars), its combined spellings (`target teams distribute parallel
for`, ...) and `parallel` regions (`directives`, docs/openmp_directives.md); `#pragma omp atomic`
and `#pragma omp critical` (atomics.py). Anything else is rejected with a located error.

Stages, one module each: `preprocess` (comments, macros, pragmas; positions kept), `parse`
(c.lark, LALR, -> `ast`), `sema` (names, scopes, slots; with `expressions` for C typing,
`loops` for canonical loops, `directives` for OpenMP constructs, `openmp` for clauses,
`reductions` for the uses of reduction variables: every diagnostic) and `irgen`/`irgen_expr`
(-> xDSL ops, each located at its C construct). Bad input raises a located `CompileError`
(also nesting deeper than `autogpu.nesting.MAX_NESTING`); warnings (ignored pragmas and
clauses, statements without effect, undefined behaviour: constant zero divisors, constant signed
overflow, uninitialized reads) go to stderr in the same `file:line:col: warning:` format.
Last, the parallel loops are checked (`autogpu/passes/analysis/dependences.py`): iterations that
provably touch one element are an error, pairs of accesses the check cannot decide a warning.
"""

from __future__ import annotations

import gc
import re
import sys
from collections.abc import Callable, Generator
from contextlib import contextmanager
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp

from autogpu.diagnostics import CompileError, located, read_source
from autogpu.frontend.directives import Directive, classify, pragma_targets
from autogpu.frontend.inlining import inline_helpers, inline_tables
from autogpu.frontend.irgen import generate
from autogpu.frontend.parse import parse_text
from autogpu.frontend.preprocess import Pragma, Preprocessed, preprocess
from autogpu.frontend.sema import Sema
from autogpu.nesting import deep_recursion
from autogpu.passes.analysis.dependences import check_parallel_loops

__all__ = ["parse_c", "parse_c_file"]

# The synchronization constructs (autogpu/frontend/atomics.py): they apply to the next statement.
_SYNCHRONIZATION = re.compile(r"omp\s+(atomic|critical|flush)(?![\w])")


def parse_c(
    source: str,
    filename: str = "<input>",
    warn: Callable[[CompileError], None] | None = None,
    werror: bool = False,
) -> ModuleOp:
    """Compiles C source to a verified module; `warn` receives the warnings, in source order,
    also when an error follows them (default: print them to stderr). With `werror` they are
    errors, and compilation fails after them."""
    warnings: list[CompileError] = []
    try:
        with deep_recursion(), _no_collector_pauses():
            module = _compile(source, filename, warnings.append)
    finally:
        for w in sorted(warnings, key=_position):
            if werror:
                w = CompileError(w.message, w.location, w.source_line)
            if warn is None:
                print(w.format(), file=sys.stderr)
            else:
                warn(w)
    if werror and warnings:
        raise CompileError(f"{len(warnings)} warning(s) treated as errors (--Werror)")
    return module


@contextmanager
def _no_collector_pauses() -> Generator[None]:
    """Python's cycle collector off while compiling: on a large file the frontend allocates
    millions of objects and frees none before it returns, so each collection would rescan all
    of them (measured: 2.4x the time of a 1 MB file, growing with its size)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _position(warning: CompileError) -> tuple[int, int]:
    loc = warning.location
    return (loc.line, loc.column) if loc is not None else (0, 0)


def _compile(source: str, filename: str, warn: Callable[[CompileError], None]) -> ModuleOp:
    pre = preprocess(source, filename)
    directives, synchronization = list[Directive](), list[Pragma]()
    for pragma in pre.pragmas:
        if _SYNCHRONIZATION.match(pragma.text):
            synchronization.append(pragma)
            continue
        directive = classify(pragma, filename, source)
        if directive is not None:
            directives.append(directive)
        else:
            warn(
                located(
                    f"ignoring '#pragma {pragma.text}': not a directive autogpu reads "
                    "(docs/openmp_directives.md)",
                    filename,
                    source,
                    pragma.line,
                    pragma.column,
                    severity="warning",
                )
            )
    unit = parse_text(pre, source, filename)
    unit = inline_helpers(unit, lambda message, pos: located(message, filename, source, *pos))
    unit = inline_tables(unit)
    targets = pragma_targets(directives, pre, source, filename)
    sync_targets = _statement_targets(synchronization, pre, source, filename)
    functions = Sema(source, filename, targets, warn, sync_targets).run(unit)
    module = generate(functions, filename)
    module.verify()
    try:
        check_parallel_loops(module, lambda w: warn(w.quoting(filename, source)))
    except CompileError as e:
        raise e.quoting(filename, source) from None
    return module


def parse_c_file(path: str | Path) -> ModuleOp:
    return parse_c(read_source(path), str(path))


def _statement_targets(
    pragmas: list[Pragma], pre: Preprocessed, source: str, filename: str
) -> dict[tuple[int, int], Pragma]:
    """Where each synchronization pragma points: the user's position of the next token, which
    sema requires to be the start of a statement (`atomic`, `critical`)."""
    what = "a statement"
    lines = pre.text.split("\n")
    targets: dict[tuple[int, int], Pragma] = {}
    for pragma in pragmas:
        target = None
        for index in range(pragma.line, len(lines)):
            stripped = lines[index].lstrip()
            if stripped:
                column = len(lines[index]) - len(stripped) + 1
                target = pre.original(index + 1, column)
                break
        directive = " ".join(pragma.text.split("(")[0].split()[:2])
        if target is None:
            raise located(
                f"'#pragma {directive}' must be followed by {what}",
                filename, source, pragma.line, pragma.column,
            )  # fmt: skip
        if target in targets:
            raise located(
                f"two '#pragma {directive}' for one {what.split()[-1]}", filename, source,
                pragma.line, pragma.column,
            )  # fmt: skip
        targets[target] = pragma
    return targets
