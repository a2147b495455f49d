"""The C frontend against gcc: random C kernels are compiled by gcc and run natively, and
translated by `parse_c` and run by the reference interpreter; every output must agree to the
bit (NaN with NaN).

Two generators: expressions mixing every arithmetic type, operator, literal form, conversion
and math function (C's type rules are where a frontend silently goes wrong), and `for` loops
of every canonical and non-canonical form with random bounds and steps (the normalisation of
decreasing loops and the exit value of the induction variable).
"""

from __future__ import annotations

import ctypes
import random
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from autogpu.frontend import parse_c
from autogpu.frontend.types import (
    BOOL,
    DOUBLE,
    FLOAT,
    INT,
    LONG,
    SCHAR,
    SHORT,
    UCHAR,
    UINT,
    ULONG,
    USHORT,
    Scalar,
    promote,
    usual_arithmetic,
)
from autogpu.interpreters import run_function

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

GCC_FLAGS = ["-O1", "-w", "-fwrapv", "-fno-builtin", "-ffp-contract=off", "-shared", "-fPIC"]

# min/max as the frontend defines them (docs/ir.md): the usual arithmetic conversions, then
# minnumf/maxnumf (fmin/fmax) for floating point and an integer min/max otherwise.
PRELUDE = """
#include <math.h>
#include <stddef.h>
#define DEF(T, N) static T min_##N(T a, T b) { return a < b ? a : b; } \\
                  static T max_##N(T a, T b) { return a > b ? a : b; }
DEF(int, i) DEF(unsigned, u) DEF(long, l) DEF(unsigned long, ul)
#define min(a, b) _Generic((a) + (b), float: fminf, double: fmin, int: min_i, \\
    unsigned: min_u, long: min_l, unsigned long: min_ul)((a), (b))
#define max(a, b) _Generic((a) + (b), float: fmaxf, double: fmax, int: max_i, \\
    unsigned: max_u, long: max_l, unsigned long: max_ul)((a), (b))
"""

CTYPES = {INT: ctypes.c_int32, UINT: ctypes.c_uint32, LONG: ctypes.c_int64,
          ULONG: ctypes.c_uint64, FLOAT: ctypes.c_float, DOUBLE: ctypes.c_double,
          SCHAR: ctypes.c_int8, UCHAR: ctypes.c_uint8, SHORT: ctypes.c_int16,
          USHORT: ctypes.c_uint16, BOOL: ctypes.c_bool}  # fmt: skip
DTYPES = {INT: np.int32, UINT: np.uint32, LONG: np.int64, ULONG: np.uint64,
          FLOAT: np.float32, DOUBLE: np.float64, SCHAR: np.int8, UCHAR: np.uint8,
          SHORT: np.int16, USHORT: np.uint16, BOOL: np.bool_}  # fmt: skip
SCALARS = [("a", INT), ("b", UINT), ("c", LONG), ("d", ULONG), ("e", FLOAT), ("f", DOUBLE),
           ("g", SCHAR), ("h", UCHAR), ("k", SHORT), ("m", USHORT), ("p", BOOL)]
OUTPUTS = [("oi", INT), ("ou", UINT), ("ol", LONG), ("oul", ULONG), ("of", FLOAT), ("od", DOUBLE),
           ("oc", SCHAR), ("ouc", UCHAR), ("os", SHORT), ("ous", USHORT), ("ob", BOOL)]
CASTS = [INT, UINT, LONG, ULONG, FLOAT, DOUBLE, SCHAR, UCHAR, SHORT, USHORT, BOOL]
OUTPUT_SLOTS = 12


@dataclass
class Kernel:
    name: str
    source: str  # the function, without the prelude


def compile_with_gcc(kernels: list[Kernel], workdir: Path) -> ctypes.CDLL:
    c_file = workdir / "kernels.c"
    c_file.write_text(PRELUDE + "\n".join(k.source for k in kernels))
    library = workdir / "kernels.so"
    subprocess.run(["gcc", *GCC_FLAGS, "-o", str(library), str(c_file), "-lm"], check=True)
    return ctypes.CDLL(str(library))


def same_bits(expected: np.ndarray, actual: np.ndarray) -> bool:
    if expected.dtype.kind == "f":
        both_nan = np.isnan(expected) & np.isnan(actual)
        return bool(np.all(both_nan | (expected.view(f"u{expected.itemsize}")
                                       == actual.view(f"u{actual.itemsize}"))))  # fmt: skip
    return bool(np.array_equal(expected, actual))


# ---- expressions ------------------------------------------------------------------------------


class ExprGen:
    """Random C expressions over the kernel's scalars and input arrays, typed with C's rules
    and kept free of undefined behaviour (no division by zero, no out-of-range shift or
    float-to-integer conversion)."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def literal(self) -> tuple[str, Scalar]:
        r = self.rng
        choices = [
            lambda: (str(r.randint(0, 100)), INT),
            lambda: (hex(r.randint(0, 2**32 - 1)), None),
            lambda: (f"{r.randint(0, 1000)}u", UINT),
            lambda: (f"{r.randint(0, 10**12)}L", LONG),
            lambda: (f"{r.randint(0, 2**64 - 1)}ul", ULONG),
            lambda: ("0" + oct(r.randint(1, 511))[2:], INT),
            lambda: (f"{r.uniform(0, 100):.5f}f", FLOAT),
            lambda: (repr(r.uniform(-1e3, 1e3)), DOUBLE),
            lambda: (f"{r.randint(1, 9)}.{r.randint(0, 99)}e{r.randint(-5, 5)}", DOUBLE),
            lambda: (f"0x1.{r.randint(0, 4095):03x}p{r.randint(-4, 4)}f", FLOAT),
            lambda: ("2147483648", LONG),
            lambda: ("4294967295u", UINT),
        ]
        text, t = r.choice(choices)()
        if t is None:  # an unsuffixed hex literal: int if it fits, else unsigned
            t = INT if int(text, 16) < 2**31 else UINT
        return text, t

    def leaf(self) -> tuple[str, Scalar]:
        r = self.rng.random()
        if r < 0.45:
            return self.rng.choice(SCALARS)
        if r < 0.65:
            array, t = self.rng.choice([("fa", FLOAT), ("ia", INT)])
            return f"{array}[{self.rng.randint(0, 3)}]", t
        return self.literal()

    def integer(self, depth: int) -> tuple[str, Scalar]:
        text, t = self.expr(depth)
        if t.is_float:
            target = self.rng.choice([INT, UINT, LONG, ULONG])
            return self.float_to_int(text, target), target
        return text, t

    def float_to_int(self, text: str, target: Scalar) -> str:
        """`text` converted to an integer type within its range (C leaves the rest undefined;
        `_Bool` takes any value)."""
        if target == BOOL:
            return f"(_Bool)({text})"
        high = min(1e6, 2.0 ** (target.bits - 1 if target.signed else target.bits) - 1)
        low = "0.0" if not target.signed else f"{-high}"
        return f"({target.name})fmax(fmin({text}, {high}), {low})"

    def expr(self, depth: int) -> tuple[str, Scalar]:
        if depth <= 0 or self.rng.random() < 0.2:
            return self.leaf()
        kind = self.rng.random()
        if kind < 0.45:
            return self.binary(depth)
        if kind < 0.55:
            text, t = self.expr(depth - 1)
            op = self.rng.choice(["-", "+", "!", "~"])
            if op == "~":
                text, t = self.integer(depth - 1)
                return f"(~{text})", promote(t)
            return (f"({op} {text})", INT if op == "!" else promote(t))
        if kind < 0.65:
            cond, _ = self.expr(depth - 1)
            (a, ta), (b, tb) = self.expr(depth - 1), self.expr(depth - 1)
            return f"({cond} ? {a} : {b})", usual_arithmetic(ta, tb)
        if kind < 0.75:
            target = self.rng.choice(CASTS)
            text, t = self.expr(depth - 1)
            if t.is_float and not target.is_float:
                return self.float_to_int(text, target), target
            return f"(({target.name}){text})", target
        return self.call(depth)

    def binary(self, depth: int) -> tuple[str, Scalar]:
        op = self.rng.choice(["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", "<=",
                              ">", ">=", "==", "!=", "&&", "||"])  # fmt: skip
        if op in ("%", "<<", ">>", "&", "|", "^"):
            (a, ta), (b, tb) = self.integer(depth - 1), self.integer(depth - 1)
        else:
            (a, ta), (b, tb) = self.expr(depth - 1), self.expr(depth - 1)
        if op in ("<<", ">>"):
            return f"({a} {op} ({b} & 15))", promote(ta)
        if op in ("/", "%") and not usual_arithmetic(ta, tb).is_float:
            if not tb.is_int:  # pragma: no cover - integer() above
                b, tb = self.float_to_int(b, INT), INT
            return f"({a} {op} (({b} & 7) + 2))", usual_arithmetic(ta, tb)
        if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
            return f"({a} {op} {b})", INT
        return f"({a} {op} {b})", usual_arithmetic(ta, tb)

    def call(self, depth: int) -> tuple[str, Scalar]:
        name = self.rng.choice(["sqrt", "exp", "log", "fabs", "sin", "cos", "floor", "ceil",
                                "fmin", "fmax", "pow", "min", "max"])  # fmt: skip
        suffix = "f" if name not in ("min", "max") and self.rng.random() < 0.5 else ""
        binary = name in ("fmin", "fmax", "pow", "min", "max")
        args = [self.expr(depth - 1) for _ in range(2 if binary else 1)]
        text = f"{name}{suffix}({', '.join(a for a, _ in args)})"
        if name in ("min", "max"):
            return text, usual_arithmetic(args[0][1], args[1][1])
        return text, FLOAT if suffix else DOUBLE


def expression_kernel(rng: random.Random, name: str) -> Kernel:
    gen = ExprGen(rng)
    params = ", ".join(f"{t.name} {n}" for n, t in SCALARS)
    outputs = ", ".join(f"{t.name} *{n}" for n, t in OUTPUTS)
    lines: list[str] = []
    for slot in range(OUTPUT_SLOTS):
        out, target = rng.choice(OUTPUTS)
        text, t = gen.expr(rng.randint(1, 4))
        if t.is_float and not target.is_float:
            text = gen.float_to_int(text, target)
        op = rng.choice(["=", "=", "+=", "*=", "-="]) if target.is_float else "="
        lines.append(f"  {out}[{slot}] {op} {text};")
    body = "\n".join(lines)
    source = (f"void {name}({params}, const float *fa, const int *ia, {outputs}) {{\n"
              f"{body}\n}}\n")  # fmt: skip
    return Kernel(name, source)


def scalar_values(rng: random.Random) -> list[Any]:  # an int or a float per SCALARS entry
    edge = {SCHAR: [0, -1, 127, -128], UCHAR: [0, 255, 128], SHORT: [-32768, 32767, -1],
            USHORT: [0, 65535, 32768], BOOL: [0, 1],
            INT: [0, 1, -1, 2**31 - 1, -(2**31), 7, -123456],
            UINT: [0, 1, 2**32 - 1, 2**31, 99],
            LONG: [0, -1, 2**63 - 1, -(2**63), 10**12],
            ULONG: [0, 1, 2**64 - 1, 2**63, 12345],
            FLOAT: [0.0, -0.0, 1.5, -2.25, 3.4e38, 1e-40, float("inf"), float("nan")],
            DOUBLE: [0.0, -1.0, 0.1, 1e308, -1e-310, float("nan")]}  # fmt: skip
    values: list[Any] = []
    for _, t in SCALARS:
        if rng.random() < 0.4:
            values.append(rng.choice(edge[t]))
        elif t.is_float:
            values.append(rng.uniform(-1e4, 1e4))
        else:
            bits = t.bits
            low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if t.signed else (0, 2**bits - 1)
            values.append(rng.randint(low, high) if rng.random() < 0.5 else rng.randint(-50, 50)
                          % (high + 1))  # fmt: skip
    return values


def run_expression_kernels(seed: int, count: int, workdir: Path) -> None:
    rng = random.Random(seed)
    kernels = [expression_kernel(rng, f"k{seed}_{i}") for i in range(count)]
    library = compile_with_gcc(kernels, workdir)
    for kernel in kernels:
        module = parse_c(kernel.source, f"{kernel.name}.c")
        for trial in range(3):
            scalars = scalar_values(rng)
            fa = np.array([rng.uniform(-10, 10) for _ in range(4)], dtype=np.float32)
            ia = np.array([rng.randint(-1000, 1000) for _ in range(4)], dtype=np.int32)
            initial = [np.array([rng.randint(0, 100)] * OUTPUT_SLOTS, dtype=DTYPES[t])
                       for _, t in OUTPUTS]  # fmt: skip
            native = [a.copy() for a in initial]
            ours = [a.copy() for a in initial]
            function = getattr(library, kernel.name)
            function.restype = None
            c_args = [CTYPES[t](v) for (_, t), v in zip(SCALARS, scalars)]
            c_args += [fa.ctypes.data_as(ctypes.c_void_p), ia.ctypes.data_as(ctypes.c_void_p)]
            c_args += [a.ctypes.data_as(ctypes.c_void_p) for a in native]
            function(*c_args)
            ir_scalars = [np.float32(v) if t == FLOAT else v for (_, t), v in zip(SCALARS, scalars)]
            run_function(module, kernel.name, [*ir_scalars, fa, ia, *ours])
            for (name, _), expected, actual in zip(OUTPUTS, native, ours):
                assert same_bits(expected, actual), (
                    f"{kernel.name} (trial {trial}, scalars {scalars}) output {name}:\n"
                    f"gcc      {expected}\nfrontend {actual}\n{kernel.source}"
                )


@pytest.mark.parametrize("seed", range(6))
def test_expressions_match_gcc(seed: int):
    with tempfile.TemporaryDirectory() as tmp:
        run_expression_kernels(seed, 12, Path(tmp))


# ---- loops ------------------------------------------------------------------------------------


def loop_kernel(rng: random.Random, name: str) -> tuple[Kernel, tuple[Scalar, int, int, int]]:
    """A loop of a random form accumulating a hash of the values its variable takes; also
    stores the variable's final value when it is declared outside the loop."""
    t = rng.choice([INT, INT, UINT, LONG, ULONG])
    increasing = rng.random() < 0.5
    op = rng.choice(["<", "<=", "!="] if increasing else [">", ">=", "!="])
    step_form = rng.choice(["++", "+=", "= +"] if increasing else ["--", "-=", "= -"])
    step_value = 1 if op == "!=" or step_form in ("++", "--") else rng.randint(1, 4)
    runtime_step = rng.random() < 0.3 and step_value != 1
    step_text = "s" if runtime_step else str(step_value)
    # unsigned: neither b - 1 nor a decreasing i (by at most 4 past the bound) may wrap
    low, high = (6, 40) if not t.signed else (-40, 40)
    a, b = rng.randint(low, high), rng.randint(low, high)
    if op == "!=":  # must reach b exactly, moving towards it
        a, b = (min(a, b), max(a, b)) if increasing else (max(a, b), min(a, b))
    outside = rng.random() < 0.4
    no_init = outside and rng.random() < 0.3
    bound = rng.choice(["b", "b - 1", "(b + 2)", str(b)] if op != "!=" else ["b", str(b)])
    if bound == str(b):
        bound += {INT: "", UINT: "u", LONG: "L", ULONG: "ul"}[t]
    if rng.random() < 0.3:
        cond = f"{bound} {dict(zip('<>', '><')).get(op[0], op[0])}{op[1:]} i"
    else:
        cond = f"i {op} {bound}"
    step = {"++": "i++" if rng.random() < 0.5 else "++i",
            "--": "i--" if rng.random() < 0.5 else "--i",
            "+=": f"i += {step_text}", "-=": f"i -= {step_text}",
            "= +": f"i = i + {step_text}", "= -": f"i = i - {step_text}"}[step_form]  # fmt: skip
    declare = f"  {t.name} i = a;\n" if no_init else f"  {t.name} i;\n" if outside else ""
    init = "" if no_init else ("i = a" if outside else f"{t.name} i = a")
    noncanonical = rng.random() < 0.2
    body = "h = h * 31u + (unsigned)i;"
    if noncanonical:  # the body moves the variable too: an scf.while
        body += " if ((i & 3) == 1) i = i + 0;"
    source = (
        f"void {name}(unsigned *out, {t.name} a, {t.name} b, {t.name} s) {{\n"
        f"  unsigned h = 7u;\n{declare}"
        f"  for ({init}; {cond}; {step}) {{ {body} }}\n"
        f"  out[0] = h;\n" + ("  out[1] = (unsigned)i;\n" if outside else "") + "}\n"
    )
    return Kernel(name, source), (t, a, b, step_value)


@pytest.mark.parametrize("seed", range(4))
def test_loops_match_gcc(seed: int):
    rng = random.Random(1000 + seed)
    kernels = [loop_kernel(rng, f"l{seed}_{i}") for i in range(25)]
    with tempfile.TemporaryDirectory() as tmp:
        library = compile_with_gcc([k for k, _ in kernels], Path(tmp))
        canonical = 0
        for kernel, (t, a, b, s) in kernels:
            module = parse_c(kernel.source, f"{kernel.name}.c")
            canonical += any(op.name == "scf.for" for op in module.walk())
            native = np.zeros(2, dtype=np.uint32)
            ours = np.zeros(2, dtype=np.uint32)
            function = getattr(library, kernel.name)
            function.restype = None
            function(native.ctypes.data_as(ctypes.c_void_p), CTYPES[t](a), CTYPES[t](b),
                     CTYPES[t](s))  # fmt: skip
            run_function(module, kernel.name, [ours, a, b, s])
            assert np.array_equal(native, ours), (
                f"{kernel.name}: a={a} b={b} s={s}: gcc {native}, frontend {ours}\n"
                f"{kernel.source}"
            )
        assert canonical >= len(kernels) // 2, "the generator should mostly make scf.for loops"


UNSIGNED_LOOPS = [
    ("up", "for (unsigned i = a; i < b; i++) h = h * 31u + i;", 2**31 - 2, 2**31 + 1),
    ("up_le", "for (unsigned i = a; i <= b; i += 2) h = h * 31u + i;", 2**31 - 3, 2**31 + 2),
    ("down", "for (unsigned i = b; i > a; i--) h = h * 31u + i;", 2**31 - 2, 2**31 + 1),
    ("down_ge", "for (unsigned i = b; i >= a; i -= 3) h = h * 31u + i;", 2**31 - 5, 2**31 + 4),
    ("high", "for (unsigned i = a; i != b; i++) h = h * 31u + i;", 2**32 - 4, 2**32 - 1),
    ("outer", "unsigned i; for (i = a; i < b; i++) h = h * 31u + i; h += i;", 2**31 - 1, 2**31 + 2),
    # != wraps around: past the largest value up to b, and down past 0 to the largest value
    ("wrap_up", "for (unsigned i = a; i != b; i++) h = h * 31u + i;", 2**32 - 3, 4),
    ("wrap_down", "for (unsigned i = b; i != a; i--) h = h * 31u + i;", 2**32 - 1, 3),
    ("wrap_outer", "unsigned i; for (i = a; i != b; i++) h = h * 31u + i; h += i;", 2**32 - 2, 1),
    ("wrap_none", "for (unsigned i = a; i != b; i--) h = h * 31u + i;", 5, 5),
]

SIZE_T_LOOPS = [
    ("down", "for (size_t i = b; i > a; i--) h = h * 31u + (unsigned)i;"),
    ("down_ge", "for (size_t i = b; i >= a; i -= 3) h = h * 31u + (unsigned)i;"),
    ("wrap_down", "for (size_t i = b % 16; i != (size_t)-1; i--) h = h * 31u + (unsigned)i;"),
    ("outer", "size_t i; for (i = b; i >= a; i -= 2) h = h * 31u + (unsigned)i; h += i;"),
]


@pytest.mark.parametrize("loop", SIZE_T_LOOPS, ids=[name for name, _ in SIZE_T_LOOPS])
@pytest.mark.parametrize("a, b", [(3, 3), (3, 9), (4, 20), (9, 2), (2**33, 2**33 + 7)])
def test_size_t_loops(loop: tuple[str, str], a: int, b: int):
    """Decreasing size_t loops count in i64 (no unsigned select, which a launch size cannot
    express): exact for values below 2^63 (a >= the step: C's i -= 3 must not wrap past 0)."""
    name, statement = loop
    kernel = Kernel(f"s_{name}", f"void s_{name}(unsigned *out, size_t a, size_t b) {{\n"
                                 f"  unsigned h = 7u;\n  {statement}\n  out[0] = h;\n}}\n")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        library = compile_with_gcc([kernel], Path(tmp))
        native = np.zeros(1, dtype=np.uint32)
        function = getattr(library, kernel.name)
        function.restype = None
        function(native.ctypes.data_as(ctypes.c_void_p), ctypes.c_uint64(a), ctypes.c_uint64(b))
    ours = np.zeros(1, dtype=np.uint32)
    module = parse_c(kernel.source, f"{kernel.name}.c")
    assert any(op.name == "scf.for" for op in module.walk())
    run_function(module, kernel.name, [ours, a, b])
    assert native[0] == ours[0], kernel.source


@pytest.mark.parametrize("loop", UNSIGNED_LOOPS, ids=[name for name, *_ in UNSIGNED_LOOPS])
def test_unsigned_loops_across_2_pow_31(loop: tuple[str, str, int, int]):
    """scf.for compares signed: unsigned int loops must still run exactly as in C when their
    bounds lie on both sides of 2^31 (or above it)."""
    name, statement, a, b = loop
    kernel = Kernel(f"u_{name}", f"void u_{name}(unsigned *out, unsigned a, unsigned b) {{\n"
                                 f"  unsigned h = 7u;\n  {statement}\n  out[0] = h;\n}}\n")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        library = compile_with_gcc([kernel], Path(tmp))
        native = np.zeros(1, dtype=np.uint32)
        function = getattr(library, kernel.name)
        function.restype = None
        function(native.ctypes.data_as(ctypes.c_void_p), ctypes.c_uint32(a), ctypes.c_uint32(b))
    ours = np.zeros(1, dtype=np.uint32)
    module = parse_c(kernel.source, f"{kernel.name}.c")
    assert any(op.name == "scf.for" for op in module.walk())
    run_function(module, kernel.name, [ours, a, b])
    assert native[0] == ours[0], kernel.source
