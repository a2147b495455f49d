"""Bad input is a located diagnostic, never a wrong kernel or a traceback: source locations in
the IR and on every pass error, deeply nested input, unreadable files, misused reductions and
undefined behaviour."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
from paths import EXAMPLES, FILECHECK_TESTS
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp

import autogpu
from autogpu.diagnostics import CompileError, _line_starts  # pyright: ignore[reportPrivateUsage]  # its own test
from autogpu.dialects.agpu import ParallelForOp
from autogpu.frontend import parse_c, parse_c_file
from autogpu.nesting import MAX_NESTING, deep_recursion
from autogpu.tools.autogpu_opt import main as autogpu_opt

FRONTEND_TESTS = FILECHECK_TESTS / "frontend"


def error_of(source: str, pipeline: str = "autogpu-vanilla") -> CompileError:
    with pytest.raises(CompileError) as info:
        _ = autogpu.compile(source, pipeline=pipeline).cuda_source
    return info.value


def where(error: CompileError) -> tuple[int, int]:
    assert error.location is not None, error.format()
    return error.location.line, error.location.column


def warnings_of(source: str) -> list[CompileError]:
    warnings: list[CompileError] = []
    parse_c(source, "w.c", warn=warnings.append)
    return warnings


# ---- locations in the IR ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", [*sorted(EXAMPLES.glob("*.c")), *sorted(FRONTEND_TESTS.glob("[!e]*.c"))],
    ids=lambda p: p.name,
)  # fmt: skip
def test_every_op_of_the_frontend_has_its_c_location(path: Path):
    module = parse_c_file(path)
    for op in module.walk():
        if not isinstance(op, ModuleOp):
            assert isinstance(op.location, FileLineColLoc), op.name
            assert op.location.filename.data == str(path)
    printed = str(module)
    assert "loc(" not in printed  # shown only with --print-debuginfo


def test_ops_are_located_at_their_c_construct():
    source = (EXAMPLES / "dot.c").read_text()
    module = parse_c(source, "dot.c")
    (loop,) = [op for op in module.walk() if isinstance(op, ParallelForOp)]
    assert isinstance(loop.location, FileLineColLoc)
    assert (loop.location.line.data, loop.location.column.data) == (5, 3)  # `for`
    (mul,) = [op for op in module.walk() if op.name == "arith.mulf"]
    assert isinstance(mul.location, FileLineColLoc)
    assert (mul.location.line.data, mul.location.column.data) == (6, 15)  # `*`


# ---- pass errors, each class at the C construct that causes it --------------------------------

RACE_READ = """void f(int n, const float *x, float *out) {
  float s = 0;
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    s = s + x[i];
  out[0] = s;
}"""
RACE_AFTER = """void f(int n, float *x, float *out) {
  float t = 0;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    t = x[i];
    x[i] = t * 2;
  }
  out[0] = t;
}"""
SERIAL_AROUND_PARALLEL = """void f(int n, float *x) {
  while (x[0] < 4) {
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      x[i] += 1;
  }
}"""
BOUND_FROM_MEMORY = """void f(const int *m, const float *x, float *out) {
  float s = 0;
#pragma omp parallel for reduction(+: s)
  for (long i = 0; i < (long)m[0]; i++)
    s += x[i];
  out[0] = s;
}"""


@pytest.mark.parametrize(
    "source, message, position",
    [
        (RACE_READ, "may be read before the iteration assigns it", (5, 9)),
        (RACE_AFTER, "code after the loop reads the value", (8, 12)),
        # a convergence loop runs in-core; in parts it is refused at the loop
        (SERIAL_AROUND_PARALLEL, "out-of-core: a parallel loop inside a 'while'", (2, 3)),
        (BOUND_FROM_MEMORY, "which is computed from memory", (4, 3)),
    ],
    ids=["race-read", "race-after-loop", "serial-around-parallel", "bound-from-memory"],
)  # fmt: skip
def test_pass_errors_point_at_the_c_construct(source: str, message: str, position: tuple[int, int]):
    pipeline = "agpu-out-of-core,autogpu-vanilla" if "out-of-core" in message else "autogpu-vanilla"
    error = error_of(source, pipeline)
    assert message in error.message
    assert where(error) == position
    line, column = position
    caret = error.format().splitlines()[1:]
    assert caret == [source.splitlines()[line - 1], " " * (column - 1) + "^"]


def test_pass_errors_on_a_file_quote_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "race.c"
    path.write_text(RACE_READ)
    assert autogpu_opt([str(path), "-p", "autogpu-vanilla"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"{path}:5:9: error: 's' is assigned by the iterations of a parallel loop and it may be "
        "read before the iteration assigns it; declare it inside the loop, list it private, or "
        "make it a reduction",
        "    s = s + x[i];",
        "        ^",
    ]


def test_ir_verifier_errors_point_at_the_op(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "bad.mlir"
    path.write_text(
        "func.func @f(%n: i32) {\n"
        "  %c0 = arith.constant 0 : i32\n"
        "  agpu.parallel_for %i = %c0 to %n step %c0 : i32 {\n"
        "  }\n"
        "  func.return\n"
        "}\n"
    )
    assert autogpu_opt([str(path)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"{path}:3:3: error: agpu.parallel_for step must be positive")
    assert err[1:] == ["  agpu.parallel_for %i = %c0 to %n step %c0 : i32 {", "  ^"]


def test_ir_pass_errors_point_at_the_op(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "serial.mlir"
    path.write_text(
        "func.func @f(%n: i32, %m: memref<?xi32>) {\n"
        "  %c0 = arith.constant 0 : i32\n"
        "  %c1 = arith.constant 1 : i32\n"
        "  %z = arith.constant 0 : index\n"
        "  %ub = memref.load %m[%z] : memref<?xi32>\n"
        "  scf.for %t = %c0 to %ub step %c1 : i32 {\n"
        "    agpu.parallel_for %i = %c0 to %n step %c1 : i32 {\n"
        "    }\n"
        "  }\n"
        "  func.return\n"
        "}\n"
    )
    assert autogpu_opt([str(path), "-p", "convert-agpu-to-gpu"]) == 1
    assert capsys.readouterr().err.startswith(
        f"{path}:6:3: error: the bounds of this loop around kernels depend on 'ub'")


def test_printed_ir_of_parsed_files_is_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    path = tmp_path / "ok.mlir"
    text = "builtin.module {\n  func.func @f() {\n    func.return\n  }\n}\n"
    path.write_text(text)
    assert autogpu_opt([str(path)]) == 0
    assert capsys.readouterr().out == text + "\n"
    assert autogpu_opt([str(path), "--print-debuginfo"]) == 0
    assert f'func.return loc("{path}":3:5)' in capsys.readouterr().out


# ---- nesting ----------------------------------------------------------------------------------


def nest(statement: str, depth: int) -> str:
    body = "".join(statement.format(k=k) + " {\n" for k in range(depth))
    return (
        "void f(int n, float *b) {\n#pragma omp parallel for\n  for (int i = 0; i < n; i++) {\n"
        + body + "  b[i] = b[i] + 1;\n" + "  }\n" * depth + "  }\n}\n"
    )  # fmt: skip


def expression(terms: str, count: int) -> str:
    return (
        "void f(int n, const float *a, float *b) {\n#pragma omp parallel for\n"
        f"  for (int i = 0; i < n; i++)\n    b[i] = {terms.join(['a[i]'] * count)};\n}}\n"
    )


@pytest.mark.parametrize(
    "source, pipeline",
    [
        (expression(" + ", 400), "autogpu-optimize"),
        (expression(" > 0 && ", 400), "autogpu-optimize"),
        (nest("if (i > {k})", 200), "convert-agpu-to-gpu"),
        (nest("for (int j{k} = 0; j{k} < n; j{k}++)", 200), "convert-agpu-to-gpu"),
    ],
    ids=["sum-400", "and-400", "if-200", "for-200"],
)
def test_deep_real_code_compiles(source: str, pipeline: str):
    assert "__global__" in autogpu.compile(source, pipeline=pipeline).cuda_source


def test_nesting_beyond_the_limit_is_a_located_error():
    source = "void f(float *b) {\n  b[0] = " + "- " * 5000 + "b[1];\n}\n"
    with pytest.raises(CompileError) as info:
        parse_c(source, "neg.c")
    assert f"nested too deeply (limit {MAX_NESTING} levels)" in info.value.message
    assert where(info.value) == (2, 8 + 2 * MAX_NESTING)  # the minus one level too deep


def test_deep_ir_compiles_and_deeper_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    def regions(depth: int) -> str:
        loops = "".join(f"scf.for %i{k} = %c0 to %n step %c1 : i32 {{\n" for k in range(depth))
        return (
            "func.func @f(%n: i32) {\n%c0 = arith.constant 0 : i32\n"
            "%c1 = arith.constant 1 : i32\n" + loops + "}\n" * depth + "func.return\n}\n"
        )

    path = tmp_path / "deep.mlir"
    path.write_text(regions(200))
    assert autogpu_opt([str(path), "-p", "autogpu-optimize", "-t", "cuda"]) == 0
    path.write_text(regions(MAX_NESTING + 1))
    assert autogpu_opt([str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:{3 + MAX_NESTING}:42:" in err
    assert "regions nested too deeply" in err


def test_running_out_of_recursion_is_a_compile_error():
    def recurse(depth: int) -> int:
        return recurse(depth + 1) + 1

    with pytest.raises(CompileError, match="nested too deeply"), deep_recursion():
        recurse(0)
    assert sys.getrecursionlimit() < 40_000  # restored


# ---- files ------------------------------------------------------------------------------------


def test_unreadable_inputs_are_file_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    latin1 = tmp_path / "latin1.c"
    latin1.write_bytes(b"void f(void) {\n  // caf\xe9\n}\n")
    cases = {
        str(tmp_path / "missing.c"): "missing.c: error: no such file",
        str(tmp_path): f"{tmp_path}: error: is a directory, not a source file",
        str(latin1): "latin1.c:2:9: error: not UTF-8 text: invalid byte 0xe9 at byte offset 23",
    }
    for path, expected in cases.items():
        assert autogpu_opt([path]) == 1
        err = capsys.readouterr().err
        assert expected in err.splitlines()[0]
        assert "Traceback" not in err
        with pytest.raises(CompileError, match=r"no such (C )?file|directory|not UTF-8"):
            autogpu.compile(Path(path))


def test_many_diagnostics_do_not_split_the_source_each_time():
    """Each warning quotes its line; the line starts are computed once per source, so a
    large file with a warning per function stays linear."""
    function = "void f{k}(float *a) {{\n#pragma unroll\n  a[0] = 1;\n}}\n"
    source = "".join(function.format(k=k) for k in range(200))
    _line_starts.cache_clear()
    assert len(warnings_of(source)) == 200
    assert _line_starts.cache_info().misses == 1


def test_the_frontend_runs_without_collector_pauses(monkeypatch: pytest.MonkeyPatch):
    """On a large file every collection would rescan all the objects the frontend keeps
    (superlinear time): the collector is off while it runs, and back on after."""
    import gc

    from autogpu.frontend import Sema

    enabled: list[bool] = []
    run = Sema.run

    def recording_run(self: Sema, unit: Any) -> Any:
        enabled.append(gc.isenabled())
        return run(self, unit)

    monkeypatch.setattr(Sema, "run", recording_run)
    parse_c((EXAMPLES / "saxpy.c").read_text())
    assert enabled == [False]
    assert gc.isenabled()


# ---- reductions -------------------------------------------------------------------------------


def reduction(op: str, update: str, init: str = "0") -> str:
    return (
        f"void f(int n, const float *x, float *out) {{\n  float s = {init};\n"
        f"#pragma omp parallel for reduction({op}: s)\n  for (int i = 0; i < n; i++) {{\n"
        f"    {update}\n  }}\n  out[0] = s;\n}}\n"
    )


@pytest.mark.parametrize(
    "op, update",
    [("+", "s += x[i];"), ("+", "s = x[i] + s;"), ("+", "s -= x[i];"), ("+", "s++;"),
     ("-", "s = s - x[i];"), ("-", "s += x[i];"), ("*", "s = x[i] * s;"),
     ("min", "s = fminf(s, x[i]);"), ("min", "s = x[i] < s ? x[i] : s;"),
     ("min", "s = s > x[i] ? x[i] : s;"), ("min", "if (x[i] < s) s = x[i];"),
     ("max", "if (s < x[i]) { s = x[i]; }"), ("max", "s = fmaxf(x[i], s);"),
     ("+", "if (x[i] > 0) s += x[i];"), ("+", "for (int k = 0; k < 3; k++) s += x[k];"),
     ("+", "if (x[i] > 0) s = s + x[i];")],
)  # fmt: skip
def test_reduction_updates_that_match_their_operator(op: str, update: str):
    parse_c(reduction(op, update))


@pytest.mark.parametrize(
    "op, update, column",
    [("*", "s += x[i];", 7), ("+", "s = x[i];", 7), ("+", "s = s * x[i];", 7),
     ("+", "s = x[i] - s;", 7), ("*", "s++;", 6), ("min", "s = fmaxf(s, x[i]);", 7),
     ("min", "if (x[i] > s) s = x[i];", 21), ("max", "s = x[i] < s ? x[i] : s;", 7),
     ("min", "s = x[i] < s ? x[0] : s;", 7)],
)  # fmt: skip
def test_reduction_updates_with_another_operator_are_refused(op: str, update: str, column: int):
    with pytest.raises(CompileError, match="does not match its clause") as info:
        parse_c(reduction(op, update))
    assert where(info.value) == (5, column)


@pytest.mark.parametrize(
    "update, column",
    [("s += s * x[i];", 10), ("if (s > 0) s += x[i];", 9), ("out[i] = s;", 14),
     ("float t = s;", 15)],
)
def test_reading_a_reduction_variable_in_its_loop_is_refused(update: str, column: int):
    with pytest.raises(CompileError, match="'s' is read in its loop") as info:
        parse_c(reduction("+", update))
    assert where(info.value) == (5, column)


def reduced(ctype: str, xtype: str, op: str, body: str, pragma_extra: str = "") -> str:
    return (
        f"void f(int n, const {xtype} *x, const int *y, {ctype} *out) {{\n  {ctype} s = 0;\n"
        f"#pragma omp parallel for reduction({op}: s){pragma_extra}\n"
        f"  for (int i = 0; i < n; i++) {{\n    {body}\n  }}\n  out[0] = s;\n}}\n"
    )


def reduction_kind(source: str) -> str:
    (loop,) = [op for op in parse_c(source).walk() if isinstance(op, ParallelForOp)]
    ((kind, _),) = loop.reduction_list
    return str(kind)  # the operator's spelling


@pytest.mark.parametrize(
    "ctype, xtype, op, body, kind",
    [("unsigned", "unsigned", "max", "s = x[i] > s ? x[i] : s;", "umax"),
     ("unsigned long", "unsigned long", "min", "if (x[i] < s) s = x[i];", "umin"),
     ("unsigned", "int", "min", "s = min(s, x[i]);", "umin"),  # compares unsigned
     ("int", "unsigned", "max", "s = s < x[i] ? x[i] : s;", "umax"),  # as C compares it
     ("long", "unsigned", "max", "s = s < x[i] ? x[i] : s;", "max"),  # x widened to long
     ("int", "int", "max", "s = max(s, x[i]);", "max"),
     ("unsigned", "float", "max", "s = fmaxf(s, x[i]);", "umax"),  # float compare: s's order
     ("unsigned", "int", "max", ";", "umax"),  # no min/max update: the variable's type
     ("double", "double", "min", "s = fmin(s, x[i]);", "min")],
)  # fmt: skip
def test_min_max_reductions_take_the_signedness_of_their_comparison(
    ctype: str, xtype: str, op: str, body: str, kind: str
):
    assert reduction_kind(reduced(ctype, xtype, op, body)) == kind


@pytest.mark.parametrize(
    "source, message, position",
    [(reduced("int", "long", "max", "s = x[i] > s ? x[i] : s;"),
      "this update of 's' compares in 'long', not in the type of 's' ('int')", (5, 7)),
     (reduced("int", "unsigned", "max", "s = x[i] > s ? x[i] : s;\n    if (y[i] > s) s = y[i];"),
      "this update of 's' compares signed, another (line 5, column 7) unsigned", (6, 21)),
     (reduced("int", "int", "+", "s += x[i];").replace("(+: s)", "(+: s, s)"),
      "reduction variable 's' appears twice in the reduction clauses", (3, 42)),
     (reduced("int", "int", "+", "s += x[i];", " reduction(max: s)"),
      "reduction variable 's' appears twice in the reduction clauses", (3, 57)),
     (reduced("int", "int", "&&", "s = s || x[i];"),
      "does not match its clause 'reduction(&&: s)'", (5, 7)),
     (reduced("int", "int", "+", "s += x[i];\n    if (y[i] < 0) s = 0;"),
      "does not match its clause 'reduction(+: s)'", (6, 21)),
     ("void f(int n, int *out) {\n  int i;\n#pragma omp parallel for reduction(+: i)\n"
      "  for (i = 0; i < n; i++) out[i] = 1;\n}\n",
      "'i' is the variable of the parallel loop: it cannot be a reduction variable", (3, 26))],
    ids=["wider-comparison", "mixed-signedness", "twice-in-a-list", "twice-in-two-clauses",
         "logical-mismatch", "written-elsewhere", "loop-variable"],
)  # fmt: skip
def test_bad_reduction_clauses_are_located(source: str, message: str, position: tuple[int, int]):
    with pytest.raises(CompileError, match=re.escape(message)) as info:
        parse_c(source)
    assert where(info.value) == position


# ---- undefined behaviour ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "statement, message, column",
    [("a[0] = 2147483647 + 10;", "the exact value 2147483657 does not fit in 'int'", 21),
     ("a[0] = n / 0;", "division by zero", 12), ("a[0] = n % 0;", "remainder by zero", 12),
     ("n /= 0;", "division by zero", 5), ("a[0] = 65536 * 65536;", "4294967296", 16),
     ("a[0] = -(-2147483647 - 1);", "2147483648 does not fit", 10),
     ("a[0] = 3 << 31;", "6442450944", 12), ("a[0] = n << 32;", "shift count 32", 12),
     ("int k; a[0] = k;", "'k' is used uninitialized", 17),
     ("int k; k += 1; a[0] = k;", "'k' is used uninitialized", 10)],
)  # fmt: skip
def test_undefined_behaviour_is_a_located_warning(statement: str, message: str, column: int):
    (warning,) = warnings_of(f"void f(int n, int *a) {{\n  {statement}\n}}\n")
    assert warning.severity == "warning"
    assert message in warning.message
    assert where(warning) == (2, column)


@pytest.mark.parametrize(
    "statement",
    ["a[0] = 2147483647u + 10u;", "a[0] = 65536L * 65536;", "a[0] = 1 << 31;",
     "a[0] = n / 2;", "int k; k = 1; a[0] = k;", "int k; if (n) k = 1; else k = 2; a[0] = k;"],
)  # fmt: skip
def test_defined_behaviour_does_not_warn(statement: str):
    assert warnings_of(f"void f(int n, int *a) {{\n  {statement}\n}}\n") == []


def array_reduction(clause: str, body: str = "h[x[i] & 7] += 1;", ctype: str = "int",
                    h: str = "h[8]") -> str:  # fmt: skip
    return (
        f"void f(int n, int k, const int *x, {ctype} {h}, {ctype} s) {{\n"
        f"#pragma omp parallel for reduction({clause})\n"
        f"  for (int i = 0; i < n; i++) {{\n    {body}\n  }}\n}}\n"
    )


@pytest.mark.parametrize(
    "source, message, position",
    [(array_reduction("+: h[4:8]"), "the section [4:8] of 'h' ends at element 12, beyond its "
      "declared extent 8", (2, 41)),
     (array_reduction("+: s[0:4]"), "'s' is a scalar: an array section needs an array", (2, 39)),
     (array_reduction("+: h[0:8:2]"), "the section of 'h' has stride '2': only contiguous "
      "sections", (2, 45)),
     (array_reduction("+: A[0:2][1:3]", "A[0][x[i] & 1] += 1;", h="A[2][4]"),
      "the section of 'A' is not contiguous", (2, 46)),
     (array_reduction("^: h", "h[x[i] & 7] ^= 1.0f;", ctype="float"),
      "reduction '^' needs an integer variable, 'h' is float (its elements)", (2, 39)),
     (array_reduction("+: h", "h[x[i] & 7] += 1;\n    h[0] = 2;"),
      "this update of an element of 'h' does not match its clause 'reduction(+: h)'", (5, 10)),
     (array_reduction("+: h", "h[x[i] & 7] += h[1];"), "the reduced array 'h' is accessed "
      "here other than by an update", (4, 20)),
     (array_reduction("+: h", "h[h[0] & 7] += 1;"), "the reduced array 'h' is accessed", (4, 7)),
     (array_reduction("+: h", "h[x[i] & 7] += 1;", h="*h"), "the extent of 'h' is not declared",
      (2, 39)),
     (array_reduction("+: h[0:k+1]"), "the bounds of an array section must be integer "
      "constants or integer variables, got 'k+1'", (2, 43)),
     (array_reduction("+: h[3]"), "'h[3]' is an array element, not a section", (2, 41)),
     (array_reduction("+: h", "if (x[i] > 0) h[x[i] & 7] = h[1] + 1;"), "does not match its "
      "clause 'reduction(+: h)'", (4, 31))],
    ids=["beyond-extent", "scalar", "strided", "not-contiguous", "xor-on-float",
         "written-elsewhere", "read-in-update", "read-in-subscript", "no-extent",
         "bound-expression", "element", "conditional-mismatch"],
)  # fmt: skip
def test_bad_array_reduction_clauses_are_located(
    source: str, message: str, position: tuple[int, int]
):
    with pytest.raises(CompileError, match=re.escape(message)) as info:
        parse_c(source)
    assert where(info.value) == position


@pytest.mark.parametrize(
    "clause, h, section",
    [("+: h", "h[8]", (0, 8)), ("+: h[2:4]", "h[8]", (2, 4)), ("+: h[:k]", "h[8]", (0, None)),
     ("+: h[1:]", "h[8]", None), ("+: A", "A[2][4]", (0, 8)), ("+: A[1:1][:]", "A[2][4]", (4, 4)),
     ("+: A[0:1][0:4]", "A[2][4]", (0, 4))],
)  # fmt: skip
def test_array_sections_are_flat_element_ranges(
    clause: str, h: str, section: tuple[int, int | None] | None
):
    name = h.split("[")[0]
    body = f"{name}[x[i] & 1]{'[0]' if name == 'A' else ''} += 1;"
    if section is None:
        with pytest.raises(CompileError, match=re.escape("'[lo:]' is only supported from 0")):
            parse_c(array_reduction(clause, body, h=h))
        return
    (loop,) = [op for op in parse_c(array_reduction(clause, body, h=h)).walk()
               if isinstance(op, ParallelForOp)]  # fmt: skip
    ((_, var),) = loop.reduction_list
    bounds = loop.section_of(var)
    assert bounds is not None, "an array reduction has a section"
    lo, length = bounds
    from autogpu.passes.convert_agpu_to_gpu.coverage import known_int
    assert (known_int(lo), known_int(length)) == section
