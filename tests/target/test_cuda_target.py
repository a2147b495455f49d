"""The `cuda` target: nvcc accepts everything it prints, and what it prints computes what the IR
says.

- nvcc (`-arch=sm_90 -c`, no warnings) compiles the program of every FileCheck input of
  filecheck_tests/targets/cuda and of every example lowered by convert-agpu-to-gpu;
- differential: each arith/math op, over edge and random values, and the FileCheck kernels
  (control flow, precedence, literals, unsigned ops), run as emitted CUDA compiled by g++ (one
  thread, see cuda_cpu_harness) and by the reference interpreter on the same body as a
  `func.func`; results must agree bitwise;
- the expression printer: random expression trees printed with minimal parentheses, compiled by
  gcc and run, against their value computed in Python (precedence and associativity);
- float literals: random float bit patterns printed and read back by gcc, exactly;
- names, workgroup attributions, the launch description comment.
"""

from __future__ import annotations

import ctypes
import io
import json
import random
import shutil
import struct
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cuda_cpu_harness import call_kernel, compile_on_cpu, kernels_as_functions, same_values
from paths import ROOT
from xdsl.dialects import gpu, memref
from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    f32,
    i32,
)
from xdsl.ir import Attribute, Block, Region
from xdsl.parser import Parser
from xdsl.utils.hints import isa

from autogpu.context import make_context
from autogpu.diagnostics import CompileError
from autogpu.interpreters import OutOfBoundsError, UndefinedBehaviorError, run_function
from autogpu.numeric import is_ndarray
from autogpu.target.c_expr import (
    Binary,
    Cast,
    Conditional,
    Expr,
    IntLiteral,
    Name,
    Unary,
)
from autogpu.target.c_names import Scopes, sanitize
from autogpu.target.c_types import float_literal
from autogpu.target.cuda_target import (
    CudaTarget,
    emit_cuda,
    launch_comment,
    parse_launch_comment,
)
from autogpu.testing.nvcc import assert_compiles_with_nvcc

SUITE = ROOT / "filecheck_tests" / "targets" / "cuda"
PRINTABLE = sorted(p for p in SUITE.glob("*.mlir") if p.name != "invalid.mlir")
EXAMPLES = sorted((ROOT / "examples").glob("*.c"))


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


# --- nvcc -------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", PRINTABLE, ids=[p.name for p in PRINTABLE])
def test_nvcc_compiles_every_filecheck_input_without_warnings(path: Path):
    program = emit_cuda(parse(path.read_text()))
    assert program.source.strip()
    assert_compiles_with_nvcc(program.source, allow_warnings=False)


def lower_example(path: Path) -> ModuleOp:
    from autogpu.frontend import parse_c
    from autogpu.passes.convert_agpu_to_gpu import ConvertAgpuToGpuPass

    module = parse_c(path.read_text(), str(path))
    ConvertAgpuToGpuPass().apply(make_context(), module)
    return module


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_nvcc_compiles_every_lowered_example_without_warnings(path: Path):
    program = emit_cuda(lower_example(path))
    names = {launch["kernel"] for f in program.launch["functions"] for launch in f["launches"]}
    assert names
    assert all('void __launch_bounds__' in program.source for _ in names)
    for name in names:
        assert f" {name}(" in program.source
    assert_compiles_with_nvcc(program.source, allow_warnings=False)


# --- differential: op by op ------------------------------------------------------------------

INT_EDGES = {
    32: [0, 1, -1, 2, -2, 3, 7, -7, 31, 32, 33, 2**31 - 1, -(2**31), -(2**31) + 1, 0x55555555],
    64: [0, 1, -1, 2, -3, 7, 31, 63, 64, 2**31, -(2**31) - 1, 2**63 - 1, -(2**63), 2**40 + 5],
}
FLOAT_EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, -2.5, 3.0, 1e-40, 1e30, -1e30, np.inf, -np.inf,
               np.nan, 0.1, 100.25]  # fmt: skip

INT_BINARY = """addi subi muli divsi remsi divui remui andi ori xori shli shrsi shrui minsi maxsi
                minui maxui ceildivsi floordivsi ceildivui""".split()
CMPI = "eq ne slt sle sgt sge ult ule ugt uge".split()
CMPF = "false oeq ogt oge olt ole one ord ueq ugt uge ult ule une uno true".split()
FLOAT_BINARY = "addf subf mulf divf minnumf maxnumf minimumf maximumf".split()
MATH_UNARY = """absf sqrt exp exp2 expm1 log log2 log10 log1p sin cos tan sinh cosh tanh asin acos
                atan asinh acosh atanh cbrt erf floor ceil trunc round roundeven""".split()
MATH_BINARY = "powf atan2 copysign".split()


def int_domain(op: str, width: int) -> Callable[[int, int], bool]:
    smallest = -(2 ** (width - 1))
    if op in ("divsi", "remsi", "ceildivsi", "floordivsi"):
        return lambda a, b: b != 0 and not (a == smallest and b == -1)
    if op in ("divui", "remui", "ceildivui"):
        return lambda a, b: b != 0
    if op in ("shli", "shrsi", "shrui"):
        return lambda a, b: 0 <= b < width
    return lambda a, b: True


def int_pairs(
    width: int, keep: Callable[[int, int], bool], rng: random.Random, count: int = 160
) -> list[tuple[int, int]]:
    edges = INT_EDGES[width]
    pairs = [(a, b) for a in edges for b in edges]
    for _ in range(count):
        a = rng.randrange(-(2 ** (width - 1)), 2 ** (width - 1))
        b = rng.choice([rng.randrange(-(2 ** (width - 1)), 2 ** (width - 1)), rng.randrange(-9, 70)])
        pairs.append((a, b))
    return [(a, b) for a, b in pairs if keep(a, b)]


def float_pairs(rng: random.Random, count: int = 120) -> list[tuple[float, float]]:
    pairs = [(a, b) for a in FLOAT_EDGES for b in FLOAT_EDGES]
    pairs += [(rng.uniform(-50, 50), rng.uniform(-50, 50)) for _ in range(count)]
    return pairs


def kernel_text(name: str, operand: str, result: str, body: str) -> str:
    """A kernel applying `body` (computing %r from %x and %y) elementwise over n elements."""
    return f"""
    "gpu.func"() <{{function_type = (i32, memref<?x{operand}>, memref<?x{operand}>, memref<?x{result}>) -> (), kernel}}> ({{
    ^bb0(%n: i32, %a: memref<?x{operand}>, %b: memref<?x{operand}>, %out: memref<?x{result}>):
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %i = %c0 to %n step %c1 : i32 {{
        %ix = arith.index_cast %i : i32 to index
        %x = memref.load %a[%ix] : memref<?x{operand}>
        %y = memref.load %b[%ix] : memref<?x{operand}>
        {body}
        memref.store %r, %out[%ix] : memref<?x{result}>
      }}
      "gpu.return"() : () -> ()
    }}) {{sym_name = "{name}"}} : () -> ()"""


DTYPES = {"i1": np.bool_, "i32": np.int32, "i64": np.int64, "f32": np.float32, "f64": np.float64}


# (kernel name, operand type, result type, body, input pairs)
OpCase = tuple[str, str, str, str, Sequence[tuple[float, float]]]


def op_cases() -> list[OpCase]:
    """(kernel name, operand type, result type, body, input pairs) for every op tested."""
    rng = random.Random(1234)
    cases: list[OpCase] = []
    for width in (32, 64):
        t = f"i{width}"
        everything = int_pairs(width, lambda a, b: True, rng)
        for op in INT_BINARY:
            pairs = int_pairs(width, int_domain(op, width), rng)
            cases.append((f"{op}_{t}", t, t, f"%r = arith.{op} %x, %y : {t}", pairs))
        for predicate in CMPI:
            body = f"%r = arith.cmpi {predicate}, %x, %y : {t}"
            cases.append((f"cmpi_{predicate}_{t}", t, "i1", body, everything))
        body = f"%c = arith.cmpi slt, %x, %y : {t}\n%r = arith.select %c, %y, %x : {t}"
        cases.append((f"select_{t}", t, t, body, everything))
        for op in ("absi", "ctlz", "cttz", "ctpop"):
            cases.append((f"{op}_{t}", t, t, f"%r = math.{op} %x : {t}", everything))
        for op in ("sitofp", "uitofp"):
            for ft in ("f32", "f64"):
                body = f"%r = arith.{op} %x : {t} to {ft}"
                cases.append((f"{op}_{t}_{ft}", t, ft, body, everything))
        bits = "f32" if width == 32 else "f64"
        cases.append((f"bitcast_{t}", t, bits, f"%r = arith.bitcast %x : {t} to {bits}", everything))
    ints32 = int_pairs(32, lambda a, b: True, rng)
    ints64 = int_pairs(64, lambda a, b: True, rng)
    cases += [
        ("extsi", "i32", "i64", "%r = arith.extsi %x : i32 to i64", ints32),
        ("extui", "i32", "i64", "%r = arith.extui %x : i32 to i64", ints32),
        ("trunci", "i64", "i32", "%r = arith.trunci %x : i64 to i32", ints64),
        ("index_cast_down", "i64", "i32",
         "%t = arith.index_cast %x : i64 to index\n%r = arith.index_cast %t : index to i32", ints64),
        ("index_cast_up", "i32", "i64",
         "%t = arith.index_cast %x : i32 to index\n%r = arith.index_cast %t : index to i64", ints32),
        ("bool_logic", "i32", "i1",
         "%p = arith.cmpi slt, %x, %y : i32\n%q = arith.cmpi ult, %y, %x : i32\n"
         "%s = arith.andi %p, %q : i1\n%u = arith.ori %s, %q : i1\n%true = arith.constant true\n"
         "%v = arith.xori %u, %true : i1\n%r = arith.xori %v, %p : i1", ints32),
        ("bool_to_int", "i32", "i32",
         "%p = arith.cmpi sle, %x, %y : i32\n%e = arith.extsi %p : i1 to i32\n"
         "%z = arith.extui %p : i1 to i32\n%t = arith.trunci %x : i32 to i1\n"
         "%w = arith.extui %t : i1 to i32\n%s = arith.addi %e, %z : i32\n%r = arith.addi %s, %w : i32",
         ints32),
    ]  # fmt: skip
    for ft in ("f32", "f64"):
        pairs = float_pairs(rng)
        for op in FLOAT_BINARY:
            cases.append((f"{op}_{ft}", ft, ft, f"%r = arith.{op} %x, %y : {ft}", pairs))
        cases.append((f"negf_{ft}", ft, ft, f"%r = arith.negf %x : {ft}", pairs))
        for predicate in CMPF:
            body = f"%r = arith.cmpf {predicate}, %x, %y : {ft}"
            cases.append((f"cmpf_{predicate}_{ft}", ft, "i1", body, pairs))
        for op in MATH_UNARY:
            cases.append((f"{op}_{ft}", ft, ft, f"%r = math.{op} %x : {ft}", pairs))
        for op in MATH_BINARY:
            cases.append((f"{op}_{ft}", ft, ft, f"%r = math.{op} %x, %y : {ft}", pairs))
        cases.append((f"fma_{ft}", ft, ft, f"%r = math.fma %x, %y, %x : {ft}", pairs))
        in_range = [(a, b) for a, b in pairs if np.isfinite(a) and -2e9 < a < 2e9]
        cases.append((f"fptosi_{ft}", ft, "i32", f"%r = arith.fptosi %x : {ft} to i32", in_range))
        unsigned = [(a, b) for a, b in in_range if -1 < a < 4e9]
        cases.append((f"fptoui_{ft}", ft, "i32", f"%r = arith.fptoui %x : {ft} to i32", unsigned))
        other = "f64" if ft == "f32" else "f32"
        cast = "extf" if ft == "f32" else "truncf"
        cases.append((f"{cast}_{ft}", ft, other, f"%r = arith.{cast} %x : {ft} to {other}", pairs))
        body = f"%c = arith.cmpf ult, %x, %y : {ft}\n%r = arith.select %c, %x, %y : {ft}"
        cases.append((f"select_{ft}", ft, ft, body, pairs))
    return cases


OP_CASES = op_cases()


@pytest.fixture(scope="module")
def op_module() -> tuple[ModuleOp, ctypes.CDLL, dict[str, gpu.FuncOp]]:
    body = "\n".join(kernel_text(*case[:4]) for case in OP_CASES)
    text = f"""builtin.module attributes {{gpu.container_module}} {{
  "gpu.module"() <{{sym_name = "kernels"}}> ({{{body}
  }}) : () -> ()
}}"""
    module = parse(text)
    library = compile_on_cpu(emit_cuda(module).source)
    kernels = {op.sym_name.data: op for op in module.walk() if isinstance(op, gpu.FuncOp)}
    return kernels_as_functions(module), library, kernels


@pytest.mark.parametrize("case", OP_CASES, ids=[c[0] for c in OP_CASES])
def test_each_op_computes_what_the_interpreter_computes(
    case: OpCase, op_module: tuple[ModuleOp, ctypes.CDLL, dict[str, gpu.FuncOp]]
):
    name, operand, result, _, pairs = case
    functions, library, kernels = op_module
    a = np.array([p[0] for p in pairs]).astype(DTYPES[operand])
    b = np.array([p[1] for p in pairs]).astype(DTYPES[operand])
    expected = np.zeros(len(pairs), DTYPES[result])
    actual = np.zeros(len(pairs), DTYPES[result])
    run_function(functions, name, [len(pairs), a.copy(), b.copy(), expected])
    call_kernel(library, kernels[name], [len(pairs), a, b, actual])
    for k in range(len(pairs)):
        if not same_values(expected[k : k + 1], actual[k : k + 1]):
            pytest.fail(f"{name}({a[k]!r}, {b[k]!r}): interpreter {expected[k]!r}, CUDA {actual[k]!r}")


# --- differential: whole FileCheck kernels ----------------------------------------------------

# The FileCheck kernels without gpu ops (the interpreter runs C-level IR only).
RUNNABLE = ["arith_int", "arith_float", "literals", "precedence", "control", "unsigned"]


def random_argument(type: Attribute, rng: np.random.Generator) -> Any:
    if isa(type, MemRefType):
        dtype = DTYPES.get(str(type.element_type), None) or {"i8": np.int8, "i16": np.int16}[
            str(type.element_type)
        ]
        if np.dtype(dtype).kind == "f":
            return rng.normal(0, 10, 64).astype(dtype)
        if dtype is np.bool_:
            return rng.integers(0, 2, 64).astype(np.bool_)
        return rng.integers(-40, 64, 64).astype(dtype)
    text = str(type)
    if text in ("f32", "f64"):
        return float(np.float32(rng.normal(0, 10)))
    return int(rng.integers(-3, 48))


@pytest.mark.parametrize("stem", RUNNABLE)
def test_filecheck_kernels_compute_what_the_interpreter_computes(stem: str):
    module = parse((SUITE / f"{stem}.mlir").read_text())
    functions = kernels_as_functions(module)
    library = compile_on_cpu(emit_cuda(module).source)
    rng = np.random.default_rng(7)
    for kernel in (op for op in module.walk() if isinstance(op, gpu.FuncOp)):
        checked = 0
        for _ in range(200):  # draw inputs until 20 runs avoid undefined behaviour
            args = [random_argument(t, rng) for t in kernel.function_type.inputs.data]
            expected = [a.copy() if is_ndarray(a) else a for a in args]
            try:
                run_function(functions, kernel.sym_name.data, expected)
            except (UndefinedBehaviorError, OutOfBoundsError):
                continue
            call_kernel(library, kernel, args)
            for position, (want, got) in enumerate(zip(expected, args)):
                if is_ndarray(want):
                    assert is_ndarray(got), position
                    assert same_values(want, got), (
                        f"{kernel.sym_name.data}: argument {position} differs\n"
                        f"interpreter {want}\nCUDA        {got}"
                    )
            checked += 1
            if checked == 20:
                break
        assert checked >= 5, f"{kernel.sym_name.data}: too few inputs without undefined behaviour"


# --- the expression printer against gcc -------------------------------------------------------

_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
VARIABLES = {"a": 1234567, "b": -98765, "c": 7, "d": -3, "e": 0}


def _wrap32(v: int) -> int:
    return (v + 2**31) % 2**32 - 2**31


class Tree:
    """A random int expression: its C tree (printed by c_expr) and its value."""

    def __init__(self, expr: Expr, value: int):
        self.expr, self.value = expr, value


def random_tree(rng: random.Random, depth: int) -> Tree:
    if depth == 0 or rng.random() < 0.2:
        if rng.random() < 0.6:
            name = rng.choice(list(VARIABLES))
            return Tree(Name(name, "int"), VARIABLES[name])
        value = rng.choice([0, 1, 2, 3, -1, -5, 17, 100, _INT_MIN, _INT_MAX])
        return Tree(IntLiteral(value), value)
    kind = rng.random()
    if kind < 0.12:
        inner = random_tree(rng, depth - 1)
        op = rng.choice(["-", "!", "~"])
        value = {"-": -inner.value, "!": int(inner.value == 0), "~": ~inner.value}[op]
        return Tree(Unary(op, inner.expr, "int"), _wrap32(value))
    if kind < 0.2:
        inner = random_tree(rng, depth - 1)
        target = rng.choice(["unsigned char", "signed char", "short"])
        bits = 16 if target == "short" else 8
        low = inner.value & ((1 << bits) - 1)
        if target != "unsigned char" and low >= 1 << (bits - 1):
            low -= 1 << bits
        return Tree(Cast(target, inner.expr), low)
    if kind < 0.3:
        cond, then, other = (random_tree(rng, depth - 1) for _ in range(3))
        value = then.value if cond.value else other.value
        return Tree(Conditional(cond.expr, then.expr, other.expr, "int"), value)
    lhs, rhs = random_tree(rng, depth - 1), random_tree(rng, depth - 1)
    a, b = lhs.value, rhs.value
    ops = ["+", "-", "*", "/", "%", "<<", ">>", "<", "<=", ">", ">=", "==", "!=", "&", "^", "|",
           "&&", "||"]  # fmt: skip
    op = rng.choice(ops)
    if op in ("/", "%") and (b == 0 or (a == _INT_MIN and b == -1)):
        op = "+"
    if op in ("<<", ">>"):
        rhs = Tree(Binary("&", rhs.expr, IntLiteral(15), "int"), b & 15)
        b = rhs.value
        if op == "<<" and a < 0:
            op = ">>"
    value = {
        "+": lambda: a + b,
        "-": lambda: a - b,
        "*": lambda: a * b,
        "/": lambda: abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1),
        "%": lambda: a - b * (abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)),
        "<<": lambda: a << b,
        ">>": lambda: a >> b,
        "<": lambda: int(a < b),
        "<=": lambda: int(a <= b),
        ">": lambda: int(a > b),
        ">=": lambda: int(a >= b),
        "==": lambda: int(a == b),
        "!=": lambda: int(a != b),
        "&": lambda: a & b,
        "^": lambda: a ^ b,
        "|": lambda: a | b,
        "&&": lambda: int(bool(a) and bool(b)),
        "||": lambda: int(bool(a) or bool(b)),
    }[op]()
    return Tree(Binary(op, lhs.expr, rhs.expr, "int"), _wrap32(value))


def test_printed_expressions_have_exactly_their_trees_meaning_in_gcc():
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    rng = random.Random(2024)
    trees = [random_tree(rng, rng.randint(2, 5)) for _ in range(400)]
    lines = [f"  results[{k}] = {t.expr.render()};" for k, t in enumerate(trees)]
    declarations = "".join(f"  volatile int {n}_ = {v}; int {n} = {n}_;\n" for n, v in VARIABLES.items())
    program = (
        "#include <stdio.h>\n"
        "int main(void) {\n" + declarations + f"  long long results[{len(trees)}];\n"
        + "\n".join(lines)
        + f"\n  for (int k = 0; k < {len(trees)}; k++) printf(\"%lld\\n\", results[k]);\n"
        "  return 0;\n}\n"
    )
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "trees.c"
        source.write_text(program)
        build = subprocess.run(
            ["gcc", "-std=c11", "-fwrapv", "-Werror=parentheses", "-o", str(Path(tmp) / "t"),
             str(source)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert build.returncode == 0, build.stderr
        out = subprocess.run([str(Path(tmp) / "t")], capture_output=True, text=True, check=True).stdout
    values = [int(v) for v in out.split()]
    for tree, got in zip(trees, values, strict=True):
        assert got == tree.value, f"{tree.expr.render()}: gcc {got}, tree {tree.value}"


def test_minimal_parentheses_on_known_cases():
    a, b, c = Name("a", "int"), Name("b", "int"), Name("c", "int")
    assert Binary("-", a, Binary("-", b, c)).render() == "a - (b - c)"
    assert Binary("-", Binary("-", a, b), c).render() == "a - b - c"
    assert Binary("*", Binary("+", a, b), c).render() == "(a + b) * c"
    assert Binary("+", Binary("*", a, b), c).render() == "a * b + c"
    assert Unary("-", IntLiteral(-1)).render() == "-(-1)"
    assert Unary("-", Unary("-", a)).render() == "-(-a)"
    assert Cast("float", Binary("+", a, b)).render() == "(float)(a + b)"
    assert Binary("+", Cast("float", a), b).render() == "(float)a + b"
    assert Binary("*", a, IntLiteral(-(2**31))).render() == "a * (-2147483647 - 1)"
    ternary = Conditional(a, b, c)
    assert Binary("+", ternary, a).render() == "(a ? b : c) + a"
    assert Conditional(a, b, Conditional(b, c, a)).render() == "a ? b : b ? c : a"
    assert Conditional(Conditional(a, b, c), a, b).render() == "(a ? b : c) ? a : b"
    assert Binary("<<", a, Binary("+", b, c)).render() == "a << (b + c)"
    assert Binary("||", Binary("&&", a, b), c).render() == "(a && b) || c"


# --- literals ---------------------------------------------------------------------------------


def test_float_literals_read_back_exactly_in_gcc():
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    rng = random.Random(99)
    singles = [struct.unpack("<f", struct.pack("<I", rng.getrandbits(32)))[0] for _ in range(300)]
    singles += [1.0, 0.1, 3.4028234663852886e38, 1.401298464324817e-45, 1.1754942106924411e-38,
                16777216.0, -0.0]  # fmt: skip
    doubles = [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0] for _ in range(300)]
    doubles += [0.1, 5e-324, 1.7976931348623157e308, -0.0, 2.0**60]
    singles = [v for v in singles if np.isfinite(v)]
    doubles = [v for v in doubles if np.isfinite(v)]
    lines = [f'  printf("%08x\\n", bits_f({float_literal(v, "float")}));' for v in singles]
    lines += [f'  printf("%016llx\\n", bits_d({float_literal(v, "double")}));' for v in doubles]
    program = (
        "#include <stdio.h>\n#include <string.h>\n"
        "static unsigned bits_f(float x) { unsigned u; memcpy(&u, &x, 4); return u; }\n"
        "static unsigned long long bits_d(double x) {\n"
        "  unsigned long long u; memcpy(&u, &x, 8); return u;\n}\n"
        "int main(void) {\n" + "\n".join(lines) + "\n  return 0;\n}\n"
    )
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "lit.c").write_text(program)
        build = subprocess.run(
            ["gcc", "-o", str(Path(tmp) / "t"), str(Path(tmp) / "lit.c")], capture_output=True,
            text=True, check=False,
        )  # fmt: skip
        assert build.returncode == 0, build.stderr
        out = subprocess.run([str(Path(tmp) / "t")], capture_output=True, text=True, check=True).stdout.split()
    expected = [f"{struct.unpack('<I', struct.pack('<f', v))[0]:08x}" for v in singles]
    expected += [f"{struct.unpack('<Q', struct.pack('<d', v))[0]:016x}" for v in doubles]
    assert out == expected


def test_float_literals_are_short_where_they_can_be():
    assert float_literal(0.1, "float").render() == "0.1f"
    assert float_literal(1.0, "double").render() == "1.0"
    assert float_literal(float("inf"), "float").render() == "(1.0f / 0.0f)"
    assert float_literal(-float("inf"), "double").render() == "-(1.0 / 0.0)"


# --- names ------------------------------------------------------------------------------------


def test_names_are_valid_unreserved_identifiers():
    assert sanitize("i") == "i"
    assert sanitize("int") == "int_"
    assert sanitize("threadIdx") == "threadIdx_"
    assert sanitize("sqrtf") == "sqrtf_"
    assert sanitize("a.b-c") == "a_b_c"
    assert sanitize("0x") == "v0x"
    assert sanitize("__x") == "v_x"
    assert sanitize(None) is None


def test_names_are_unique_in_scope_but_reused_by_siblings():
    scopes = Scopes()
    assert scopes.declare("i") == "i"
    scopes.push()
    assert scopes.declare("i") == "i_1"  # never shadows
    assert scopes.declare("j") == "j"
    scopes.pop()
    scopes.push()
    assert scopes.declare("j") == "j"  # a sibling scope may reuse it
    scopes.pop()
    assert scopes.declare(None) == "v0"
    assert scopes.declare(None) == "v1"
    scopes.push()
    assert scopes.declare(None) == "v2"
    scopes.pop()
    scopes.push()
    assert scopes.declare(None) == "v2"
    scopes.pop()


# --- workgroup attributions, launch comment, target, errors -----------------------------------


def test_workgroup_attributions_become_shared_arrays():
    shared = MemRefType(f32, [128], memory_space=IntegerAttr(3, i32))
    block = Block(arg_types=[MemRefType(f32, [-1]), shared])
    block.args[0].name_hint = "x"
    block.args[1].name_hint = "tile"
    zero = ConstantOp(IntegerAttr(0, IndexType()))
    value = memref.LoadOp.get(block.args[0], [zero.result])
    store = memref.StoreOp.get(value.res, block.args[1], [zero.result])
    back = memref.LoadOp.get(block.args[1], [zero.result])
    store_back = memref.StoreOp.get(back.res, block.args[0], [zero.result])
    block.add_ops([zero, value, store, gpu.BarrierOp(), back, store_back, gpu.ReturnOp([])])
    kernel = gpu.FuncOp("k", ([MemRefType(f32, [-1])], []), Region(block), kernel=True)
    kernel.attributes["workgroup_attributions"] = IntegerAttr(1, i32)
    kernel.attributes["arg_attrs"] = ArrayAttr([DictionaryAttr({"agpu.name": StringAttr("x")})])
    kernels = gpu.ModuleOp.create(properties={"sym_name": StringAttr("kernels")},
                                  regions=[Region(Block([kernel]))])
    module = ModuleOp([kernels])
    source = emit_cuda(module).source
    assert "void k(float *x) {\n  __shared__ float tile[128];\n" in source
    assert "  tile[0] = x[0];\n  __syncthreads();\n  x[0] = tile[0];\n}" in source
    assert_compiles_with_nvcc(source, allow_warnings=False)


def test_the_target_prints_the_launch_description_first():
    module = parse((SUITE / "matmul.mlir").read_text())
    out = io.StringIO()
    CudaTarget().emit(make_context(), module, out)
    text = out.getvalue()
    launch = parse_launch_comment(text)
    assert launch == emit_cuda(module).launch
    assert text.split("\n", 1)[1] == emit_cuda(module).source
    assert json.loads(launch_comment(launch)[len("// autogpu-launch: ") :]) == launch
    assert "\n" not in launch_comment(launch)


def test_errors_name_the_op_and_the_kernel():
    with pytest.raises(CompileError, match=r"cannot print 'memref\.subview' in gpu\.func @k"):
        emit_cuda(parse((SUITE / "inputs" / "subview.mlir").read_text()))
