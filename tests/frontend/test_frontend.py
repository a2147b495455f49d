"""The C frontend's Python API (`parse_c`), its diagnostics as objects, and C's type rules
(checked against gcc itself, which knows them best, through C11 `_Generic`)."""

from __future__ import annotations

import itertools
import math
import random
import shutil
import struct
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from paths import EXAMPLES
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.parser import Parser
from xdsl.printer import Printer

from autogpu.context import make_context
from autogpu.diagnostics import CompileError
from autogpu.dialects.agpu import ParallelForOp
from autogpu.frontend import parse_c, parse_c_file
from autogpu.frontend.types import (
    DOUBLE,
    FLOAT,
    INT,
    LONG,
    UINT,
    ULONG,
    Scalar,
    float_literal,
    fold_convert,
    int_literal,
    round_to_f32,
    usual_arithmetic,
)

ARITHMETIC = [INT, UINT, LONG, ULONG, FLOAT, DOUBLE]
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")


def printed(module: ModuleOp) -> str:
    from io import StringIO

    out = StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


# ---- the API ----------------------------------------------------------------------------------


@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.c")), ids=lambda p: p.name)
def test_examples_parse_to_verified_modules_that_round_trip(example: Path):
    module = parse_c_file(example)
    assert isinstance(module, ModuleOp)
    module.verify()
    functions = [op for op in module.ops if isinstance(op, func.FuncOp)]
    assert len(functions) == 1
    text = printed(module)
    reparsed = Parser(make_context(), text).parse_module()
    reparsed.verify()
    assert printed(reparsed) == text


def functions_of(module: ModuleOp) -> list[func.FuncOp]:
    """The module's ops, each of which must be a function."""
    functions: list[func.FuncOp] = []
    for op in module.ops:
        assert isinstance(op, func.FuncOp), op.name
        functions.append(op)
    return functions


def test_one_function_per_c_function_in_order():
    module = parse_c("void b(int n) {}\nvoid a(float *x) { x[0] = 1; }\n")
    assert [op.sym_name.data for op in functions_of(module)] == ["b", "a"]


def test_argument_attributes():
    module = parse_c("void f(int n, const float *restrict x, double A[n][4]) {}")
    (function,) = functions_of(module)
    assert function.arg_attrs is not None
    attrs = [dict(d.data) for d in function.arg_attrs.data]
    assert attrs[0]["agpu.name"] == StringAttr("n")
    assert attrs[0]["agpu.ctype"] == StringAttr("int")
    assert "agpu.const" in attrs[1]
    assert "agpu.restrict" in attrs[1]
    assert attrs[2]["agpu.extents"] == ArrayAttr([StringAttr("n"), StringAttr("4")])
    assert [arg.name_hint for arg in function.body.block.args] == ["n", "x", "A"]


def test_parallel_for_carries_reductions():
    module = parse_c(
        "void f(int n, const float *x, float *out) { float s = 0;\n"
        "#pragma omp parallel for reduction(+: s)\n"
        "for (int i = 0; i < n; i++) s += x[i];\n out[0] = s; }"
    )
    (loop,) = [op for op in module.walk() if isinstance(op, ParallelForOp)]
    ((kind, var),) = loop.reduction_list
    assert kind.value == "add"
    assert var.name_hint == "s"


def test_unknown_pragma_warns_on_stderr(capsys: pytest.CaptureFixture[str]):
    module = parse_c("void f(int n) {\n#pragma unroll\n  for (int i = 0; i < n; i++) {}\n}", "k.c")
    module.verify()
    err = capsys.readouterr().err
    assert err.startswith("k.c:2:9: warning: ignoring '#pragma unroll'")
    assert "#pragma unroll\n        ^" in err


def test_warnings_can_be_collected():
    warnings: list[CompileError] = []
    parse_c("#pragma once\nvoid f(void) {}", "k.c", warn=warnings.append)
    (warning,) = warnings
    assert warning.severity == "warning"
    assert warning.location is not None
    assert (warning.location.line, warning.location.column) == (1, 9)


def test_operands_are_typed_once(monkeypatch: pytest.MonkeyPatch):
    # Each operand of a binary operator is typed once: a warning in it is reported once, and
    # typing a chain of n operators takes linear, not exponential, work.
    from autogpu.frontend.expressions import ExpressionTyping

    warnings: list[CompileError] = []
    parse_c("void f(double *a) { a[0] = 1.0L + a[1]; }", "k.c", warn=warnings.append)
    (warning,) = warnings
    assert warning.message == "long double literal '1.0L' is computed as double"
    assert warning.location is not None
    assert (warning.location.line, warning.location.column) == (1, 28)

    typed: list[Any] = []
    original = ExpressionTyping.expr

    def counting_expr(self: ExpressionTyping, e: Any) -> object:
        typed.append(e)
        return original(self, e)

    monkeypatch.setattr(ExpressionTyping, "expr", counting_expr)
    parse_c("void f(double x, double *a) { a[0] = " + " + ".join(["x"] * 40) + "; }", "k.c")
    assert len(typed) < 3 * (40 + 39 + 2)  # a few visits per node: 40 x, 39 +, a[0], 0


def test_compile_error_attributes():
    source = "void f(float *a) {\n  a[0] = b;\n}\n"
    with pytest.raises(CompileError) as info:
        parse_c(source, "bad.c")
    error = info.value
    assert error.severity == "error"
    assert error.location is not None
    assert error.location.file == "bad.c"
    assert (error.location.line, error.location.column) == (2, 10)
    assert error.source_line == "  a[0] = b;"
    assert "undeclared identifier 'b'" in error.message
    assert error.format().splitlines() == [
        "bad.c:2:10: error: use of undeclared identifier 'b'",
        "  a[0] = b;",
        "         ^",
    ]


def test_error_inside_macro_points_at_its_use():
    source = "#define TWO_TOKENS 2 2\nvoid f(float *a) {\n  a[0] = 1 + TWO_TOKENS;\n}\n"
    with pytest.raises(CompileError) as info:
        parse_c(source, "m.c")
    assert info.value.location is not None
    assert (info.value.location.line, info.value.location.column) == (3, 14)
    assert info.value.source_line == "  a[0] = 1 + TWO_TOKENS;"


def test_autogpu_opt_reports_errors_without_traceback(tmp_path: Path):
    bad = tmp_path / "bad.c"
    bad.write_text("void f(int n) {\n  goto out;\n}\n")
    result = subprocess.run(
        [sys.executable, "-m", "autogpu.tools.autogpu_opt", str(bad)],
        capture_output=True,
        text=True, check=False,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"{bad}:2:3: error: 'goto' is not supported" in result.stderr


def test_reading_c_from_stdin_with_format_flag():
    result = subprocess.run(
        [sys.executable, "-m", "autogpu.tools.autogpu_opt", "-f", "c"],
        input="void f(float *a) { a[0] = 1; }",
        capture_output=True,
        text=True, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "func.func @f(" in result.stdout


def test_parsing_is_fast():
    """The LALR parser is built once; a kernel compiles in a few milliseconds after that."""
    import time

    source = (EXAMPLES / "conv2d.c").read_text()
    parse_c(source)
    start = time.perf_counter()
    for _ in range(10):
        parse_c(source)
    assert (time.perf_counter() - start) / 10 < 0.25


# ---- C's type rules, from the tables of the standard ------------------------------------------


def test_usual_arithmetic_conversions_table():
    expected = {
        (INT, UINT): UINT,
        (INT, LONG): LONG,
        (INT, ULONG): ULONG,
        (UINT, LONG): LONG,  # LP64: long holds every unsigned int
        (UINT, ULONG): ULONG,
        (LONG, ULONG): ULONG,
        (INT, FLOAT): FLOAT,
        (ULONG, FLOAT): FLOAT,
        (FLOAT, DOUBLE): DOUBLE,
        (LONG, DOUBLE): DOUBLE,
    }
    for (a, b), result in expected.items():
        assert usual_arithmetic(a, b) == result
        assert usual_arithmetic(b, a) == result
    for t in ARITHMETIC:
        assert usual_arithmetic(t, t) == t


@pytest.mark.parametrize(
    "text, value, ctype",
    [
        ("0", 0, INT),
        ("2147483647", 2**31 - 1, INT),
        ("2147483648", 2**31, LONG),
        ("0x7fffffff", 2**31 - 1, INT),
        ("0x80000000", 2**31, UINT),
        ("0xffffffffffffffff", 2**64 - 1, ULONG),
        ("0x100000000", 2**32, LONG),
        ("017", 15, INT),
        ("10u", 10, UINT),
        ("4294967296u", 2**32, ULONG),
        ("10l", 10, LONG),
        ("10LL", 10, LONG),
        ("10ul", 10, ULONG),
        ("10LU", 10, ULONG),
    ],
)
def test_integer_literal_types(text: str, value: int, ctype: Scalar):
    assert int_literal(text) == (value, ctype)


def test_float_literals_round_once_to_their_type():
    # 0.1f is the float nearest to 0.1: rounding 0.1 to double first would give the same here,
    # but 1.00000005960464477539062500001f (just above a tie) rounds up only when rounded once.
    value, ctype, _ = float_literal("1.00000005960464477539062500001f")
    assert ctype == FLOAT
    assert value == 1.0000001192092896
    assert float_literal("0x1.8p1f")[:2] == (3.0, FLOAT)
    assert float_literal("1e400")[0] == float("inf")
    assert float_literal("2.5L")[2] is True  # long double: computed as double, with a warning


def test_round_to_f32_matches_hardware_on_doubles():
    rng = random.Random(7)
    for _ in range(2000):
        bits = rng.getrandbits(64)
        (value,) = struct.unpack("<d", struct.pack("<Q", bits))
        if math.isnan(value) or abs(value) > 3.4e38:
            continue
        (expected,) = struct.unpack("<f", struct.pack("<f", value))
        assert round_to_f32(Fraction(value)) == expected, value


# ---- C's type rules, against gcc ----------------------------------------------------------------

_TYPE_NAMES = {t.name: t for t in ARITHMETIC}
# long long is a type of its own for _Generic, but the same arithmetic type as long on LP64
# (the frontend spells both "long").
_GENERIC = (
    '_Generic((E), int: "int", unsigned: "unsigned", long: "long", '
    'unsigned long: "unsigned long", long long: "long", unsigned long long: "unsigned long", '
    'float: "float", double: "double", default: "other")'
)


def _gcc_types(expressions: list[str], declarations: str) -> list[str]:
    """The C type gcc gives each expression, by compiling and running a _Generic probe."""
    lines = [f'  puts({_GENERIC.replace("(E)", f"({e})")});' for e in expressions]
    program = (
        "#include <stdio.h>\n#include <math.h>\n"
        f"int main(void) {{\n{declarations}\n" + "\n".join(lines) + "\n  return 0;\n}\n"
    )
    return _run_c(program).splitlines()


def _run_c(program: str) -> str:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "probe.c"
        source.write_text(program)
        binary = Path(tmp) / "probe"
        subprocess.run(["gcc", "-w", "-o", str(binary), str(source), "-lm"], check=True)
        return subprocess.run([str(binary)], capture_output=True, text=True, check=True).stdout


_DECLARATIONS = (
    "  int i = 0; unsigned u = 0; long l = 0; unsigned long ul = 0; float f = 0; double d = 0;"
)
_VARIABLES = {INT: "i", UINT: "u", LONG: "l", ULONG: "ul", FLOAT: "f", DOUBLE: "d"}


def _frontend_type(expression: str) -> str:
    """The type the frontend gives `expression`: stored into a double and read back from the
    sema annotation of the assignment's value."""
    from autogpu.frontend import ast
    from autogpu.frontend.parse import parse_text
    from autogpu.frontend.preprocess import preprocess
    from autogpu.frontend.sema import Sema

    source = (
        "void probe(int i, unsigned u, long l, unsigned long ul, float f, double d, "
        f"double *out) {{ out[0] = {expression}; }}"
    )
    pre = preprocess(source, "probe.c")
    unit = parse_text(pre, source, "probe.c")
    (function,) = Sema(source, "probe.c", {}, lambda w: None).run(unit)
    (statement,) = function.body.items
    assert isinstance(statement, ast.ExprStmt)
    assert isinstance(statement.expr, ast.Assign)
    return str(statement.expr.value.ctype)


@needs_gcc
def test_binary_operator_types_match_gcc():
    expressions: list[str] = []
    for a, b in itertools.product(ARITHMETIC, repeat=2):
        for op in ("+", "*", "/", "<", "==", "&&"):
            expressions.append(f"{_VARIABLES[a]} {op} {_VARIABLES[b]}")
        if a.is_int and b.is_int:
            for op in ("%", "<<", ">>", "&", "^"):
                expressions.append(f"{_VARIABLES[a]} {op} {_VARIABLES[b]}")
        expressions.append(f"{_VARIABLES[a]} ? {_VARIABLES[a]} : {_VARIABLES[b]}")
    for t in ARITHMETIC:
        expressions += [f"-{_VARIABLES[t]}", f"!{_VARIABLES[t]}", f"(float){_VARIABLES[t]}"]
        if t.is_int:
            expressions.append(f"~{_VARIABLES[t]}")
    expected = _gcc_types(expressions, _DECLARATIONS)
    actual = [_frontend_type(e) for e in expressions]
    mismatches = [(e, g, f) for e, g, f in zip(expressions, expected, actual) if g != f]
    assert not mismatches


@needs_gcc
def test_literal_and_math_types_match_gcc():
    rng = random.Random(3)
    literals = ["0", "2147483647", "2147483648", "0x7fffffff", "0x80000000", "0xffffffff",
                "0x100000000", "4294967295", "4294967296", "9223372036854775807",
                "0x8000000000000000", "017", "037777777777", "1u", "1l", "1ul", "1LL",
                "0x1p3", "0x1p3f", "1.5", "1.5f", "1e3", ".5F"]  # fmt: skip
    literals += [f"{rng.randint(0, 2**64 - 1):#x}" for _ in range(20)]
    literals += [str(rng.randint(0, 2**63 - 1)) for _ in range(20)]
    calls = ["sqrt(f)", "sqrtf(d)", "sqrt(i)", "fabsf(f)", "pow(f, f)", "powf(i, d)",
             "fmin(f, i)", "fmaxf(d, l)", "floor(u)", "ceilf(ul)", "exp(f)", "logf(f)",
             "sin(i)", "cosf(i)"]  # fmt: skip
    expressions = literals + calls
    expected = _gcc_types(expressions, _DECLARATIONS)
    actual = [_frontend_type(e) for e in expressions]
    mismatches = [(e, g, f) for e, g, f in zip(expressions, expected, actual) if g != f]
    assert not mismatches


@needs_gcc
def test_constant_conversions_match_gcc():
    """fold_convert (used to fold constants into the IR) against gcc's conversions at run time."""
    rng = random.Random(11)
    cases: list[tuple[Scalar, Scalar, int | float, int | float]] = []
    for _ in range(150):
        source = rng.choice(ARITHMETIC)
        target = rng.choice(ARITHMETIC)
        if source.is_float:
            value = rng.choice([rng.uniform(-1e6, 1e6), rng.uniform(-3, 3), 0.1, -0.0, 1e30])
            if source == FLOAT:
                value = round_to_f32(Fraction(value))
        else:
            low = -(2 ** (source.bits - 1)) if source.signed else 0
            high = 2 ** (source.bits - 1) - 1 if source.signed else 2**source.bits - 1
            value = rng.randint(low, high)
        folded = fold_convert(value, source, target)
        if folded is None:
            continue  # undefined in C (out-of-range float to integer): never folded
        cases.append((source, target, value, folded))
    lines: list[str] = []
    for index, (source, target, value, _) in enumerate(cases):
        literal = repr(float(value)) if source.is_float else f"{value}"
        fmt = '"%.17g\\n"' if target.is_float else ('"%ld\\n"' if target.signed else '"%lu\\n"')
        cast = "double" if target.is_float else ("long" if target.signed else "unsigned long")
        lines.append(
            f"  {{ volatile {source.name} v{index} = ({source.name}){literal}; "
            f"printf({fmt}, ({cast})({target.name})v{index}); }}"
        )
    program = "#include <stdio.h>\nint main(void) {\n" + "\n".join(lines) + "\n return 0; }\n"
    outputs = _run_c(program).splitlines()
    for (source, target, value, folded), printed_value in zip(cases, outputs):
        expected = float(printed_value) if target.is_float else int(printed_value)
        assert folded == expected, (source, target, value)


# ---- robustness ---------------------------------------------------------------------------------


def test_mutated_programs_compile_or_fail_with_a_located_error():
    """Random token edits of real kernels: each either compiles to verified IR or raises a
    CompileError with a location, never any other exception (a traceback for the user)."""
    import re

    corpus = [p.read_text() for p in sorted(EXAMPLES.glob("*.c"))]
    corpus += [p.read_text() for p in sorted((EXAMPLES.parent / "filecheck_tests" / "frontend")
                                               .glob("*.c"))]  # fmt: skip
    tokens = re.compile(r"\s+|[A-Za-z_]\w*|\d[\w.]*|\S")
    extra = ["for", "(", ")", "{", "}", ";", "int", "*", "[", "]", "=", "+", "i", "n", "0",
             "#pragma omp parallel for\n", "#define X 3\n", "1.5f", "?", ":", ",", "&&",
             "return", "unsigned", "const", "-", "--", "++", "<", ">=", "&", "!"]  # fmt: skip
    rng = random.Random(2024)
    outcomes = {"compiled": 0, "rejected": 0}
    for _ in range(300):
        toks = tokens.findall(rng.choice(corpus))
        for _ in range(rng.randint(1, 3)):
            k = rng.randrange(len(toks))
            r = rng.random()
            if r < 0.4:
                del toks[k]
            elif r < 0.7:
                toks.insert(k, rng.choice(extra) + " ")
            else:
                toks[k] = rng.choice(extra)
        try:
            parse_c("".join(toks), "m.c", warn=lambda w: None).verify()
        except CompileError as e:
            error = e
        else:
            outcomes["compiled"] += 1
            continue
        assert error.location is not None, error.format()
        assert error.location.file == "m.c", error.format()
        outcomes["rejected"] += 1
    assert outcomes["compiled"] > 10, outcomes
    assert outcomes["rejected"] > 100, outcomes
