"""The launch description's size expressions: `autogpu.target.launch.evaluate` reads exactly the
documented language with C semantics on 64-bit integers, and the expressions the `cuda` target
prints for host functions evaluate to what the host IR computes."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from paths import ROOT
from xdsl.dialects import func, gpu
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.parser import Parser

from autogpu.context import make_context
from autogpu.passes.analysis.integers import bit_width, to_signed
from autogpu.target.c_expr import Binary, Expr, IntLiteral, Name, Unary, call
from autogpu.target.cuda_target import emit_cuda
from autogpu.target.launch import evaluate, launch_config


def c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


# --- the evaluator ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expr, value",
    [
        ("42", 42),
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("10 - 3 - 2", 5),
        ("10 - (3 - 2)", 9),
        ("100 / 10 / 5", 2),
        ("-7 / 2", -3),
        ("7 / -2", -3),
        ("-7 % 2", -1),
        ("7 % -2", 1),
        ("- -3", 3),
        ("-(-3)", 3),
        ("+5", 5),
        ("min(3, -4)", -4),
        ("max(3, -4)", 3),
        ("max((n + 255) / 256, 1)", 4),
        ("min(max(n - 1 - 1, 1), 65535)", 998),
        ("-9223372036854775807 - 1", -(2**63)),
        ("  n*2  ", 2000),
    ],
)
def test_evaluate_follows_c_on_64_bit_integers(expr: str, value: int):
    assert evaluate(expr, {"n": 1000}) == value


def test_evaluate_accepts_numpy_integers():
    assert evaluate("n + m", {"n": np.int32(3), "m": np.uint64(4)}) == 7
    # an unsigned n near 2^32 does not wrap (the grid of 4294967295 elements)
    assert evaluate("max((n + 255) / 256, 1)", {"n": np.uint32(2**32 - 1)}) == 2**24


@pytest.mark.parametrize(
    "expr, value",
    [
        ("(int)n", -(2**31) + 5),
        ("(unsigned)(m - 1)", 2**32 - 1),
        ("(unsigned)m - 1", -1),
        ("(long long)n", 2**31 + 5),
        ("(unsigned long long)n", 2**31 + 5),
        ("-(unsigned)m", 0),
        ("(int)(unsigned)(m - 1) * 2", -2),
        ("(unsigned)(int)n", 2**31 + 5),
    ],
)
def test_evaluate_casts_wrap_as_c_converts(expr: str, value: int):
    assert evaluate(expr, {"n": 2**31 + 5, "m": 0}) == value


U64 = 2**64


@pytest.mark.parametrize(
    "expr, value",
    [
        ("(unsigned long long)(m - 1)", U64 - 1),
        ("(unsigned long long)m - 1", U64 - 1),  # long long 1 converts: wraps modulo 2^64
        ("-(unsigned long long)1", U64 - 1),
        ("hi - lo", 8),  # uint64 parameters beyond 2^63: their distance, no false overflow
        ("lo - hi", U64 - 8),
        ("(long long)(lo - hi)", -8),
        ("(long long)(n - lo)", 2**63 - 2),
        ("big + big", U64 - 2),
        ("big * 2", U64 - 2),
        ("(unsigned long long)(-2) / 2", 2**63 - 1),  # unsigned division
        ("(-2) / 2", -1),
        ("(unsigned long long)(-3) % 2", 1),  # unsigned remainder
        ("(-3) % 2", -1),
        ("max(hi, 1)", 2**63 + 10),  # unsigned comparison
        ("min(hi, 1)", 1),
        ("max((unsigned long long)(-1), 0)", U64 - 1),
        ("max(-1, 0)", 0),
        ("max(lo - hi, 1)", U64 - 8),
        ("(int)hi", 10),
        ("(unsigned)(hi - 7)", 3),
        ("(long long)hi", -(2**63) + 10),
        ("hi / 256 + (hi % 256 + 255) / 256", 2**55 + 1),
    ],
)
def test_evaluate_unsigned_long_long_as_c(expr: str, value: int):
    """C's usual arithmetic conversions: an `unsigned long long` operand makes the operation
    unsigned, wrapping modulo 2^64, dividing and comparing unsigned; a NumPy uint64 parameter
    (or an int beyond 2^63 - 1) is `unsigned long long`."""
    scalars = {"lo": np.uint64(2**63 + 2), "hi": 2**63 + 10, "n": np.uint64(0),
               "big": np.uint64(U64 - 1), "m": 0}  # fmt: skip
    assert evaluate(expr, scalars) == value


@pytest.mark.parametrize(
    "expr",
    ["n - 1 + 9223372036854775807", "(long long)(u - 1) + 2", "-(-9223372036854775807 - 1)",
     "(long long)u * 2", "big + 1"],
)  # fmt: skip
def test_evaluate_signed_overflow_stays_an_error(expr: str):
    """Signed `long long` arithmetic beyond 64 bits is undefined in C: refused, not wrapped
    (a uint64 value below 2^63 read as an int keeps the signed rules)."""
    scalars = {"n": np.int64(2), "u": np.uint64(2**63), "big": np.int64(2**63 - 1)}
    with pytest.raises(ValueError, match="overflows"):
        evaluate(expr, scalars)


@pytest.mark.parametrize(
    "expr, message",
    [
        ("(long)m", "unknown name 'long'"),
        ("(unsigned int)m", "unknown name 'unsigned'"),
        ("(unsigned)", "unexpected end"),
    ],
)
def test_evaluate_rejects_other_casts(expr: str, message: str):
    with pytest.raises(ValueError, match=re.escape(message)):
        evaluate(expr, {"m": 0})


@pytest.mark.parametrize(
    "expr, scalars, value",
    [
        ("t % 2 != 0", {"t": 3}, 1),
        ("t % 2 != 0", {"t": -4}, 0),
        ("!(t % 2)", {"t": 4}, 1),
        ("!t + 1", {"t": 7}, 1),  # ! binds tighter than +
        ("t < n && n <= 10", {"t": 3, "n": 10}, 1),
        ("t > n || t >= 3", {"t": 3, "n": 10}, 1),
        ("1 + 2 == 3", {}, 1),  # == binds looser than +
        ("1 < 2 == 1", {}, 1),  # (1 < 2) == 1, as C groups it
        ("1 || 0 && 0", {}, 1),  # && binds tighter than ||
        ("(1 || 0) && 0", {}, 0),
        ("max(t < 2, 0)", {"t": 1}, 1),
        # C's usual arithmetic conversions: -1 becomes 2^64 - 1 against an unsigned value
        ("-1 < (unsigned long long)0", {}, 0),
        ("-1 < 0", {}, 1),
        ("n > 0", {"n": np.uint64(2**63 + 1)}, 1),
        # && and || short-circuit: the unevaluated operand may not be computable
        ("n != 0 && m / n > 1", {"n": 0, "m": 1}, 0),
        ("n == 0 || m % n", {"n": 0, "m": 1}, 1),
        ("n == 0 || 9223372036854775807 + n", {"n": 0}, 1),
        ("n != 0 && m / n > 1", {"n": 1, "m": 5}, 1),
    ],
)
def test_evaluate_conditions(expr: str, scalars: dict[str, int], value: int):
    """Comparisons and logical operators with C semantics (the conditions of host `if`s)."""
    assert evaluate(expr, scalars) == value


@pytest.mark.parametrize(
    "expr, message",
    [
        ("x + 1", "unknown name 'x'"),
        ("n ? 1 : 2", "unexpected character '?'"),
        ("n & 1", "unexpected character '&'"),
        ("n < < 2", "unexpected '<'"),
        ("n = 2", "unexpected character '='"),
        ("n != 0 && 1 / 0", "divides by zero"),  # && evaluates what its left side lets through
        ("__import__('os')", "unexpected character"),
        ("n.real", "unexpected character '.'"),
        ("n[0]", "unexpected character '['"),
        ("n / 0", "divides by zero"),
        ("n % (n - n)", "divides by zero"),
        ("9223372036854775807 + 1", "overflows"),
        ("9223372036854775808", "overflows"),
        ("n n", "unexpected 'n'"),
        ("(n + 1", "expected ')'"),
        ("", "unexpected end"),
        ("min(n)", "expected ','"),
        ("f", "is not an integer"),
        ("b", "is not an integer"),
        ("min", "unknown name 'min'"),
    ],
)
def test_evaluate_rejects_everything_else(expr: str, message: str):
    with pytest.raises(ValueError, match=re.escape(message)):
        evaluate(expr, {"n": 5, "f": 1.5, "b": True})


def test_evaluate_needs_a_string():
    with pytest.raises(ValueError, match="must be a string"):
        not_a_string: Any = 5
        evaluate(not_a_string, {})


def test_launch_config_evaluates_grid_block_and_shared_memory():
    launch = {
        "kernel": "k",
        "grid": ["max((m + 255) / 256, 1)", "n", "1"],
        "block": ["256", "1", "1"],
        "args": ["m", "n"],
        "dynamic_shared_bytes": "4 * 256",
    }
    assert launch_config(launch, {"m": 1000, "n": 3}) == ((4, 3, 1), (256, 1, 1), 1024)
    assert launch_config(launch, {"m": 0, "n": 0}) == ((1, 0, 1), (256, 1, 1), 1024)
    del launch["dynamic_shared_bytes"]
    assert launch_config(launch, {"m": 1, "n": 1})[2] == 0
    with pytest.raises(ValueError, match="3 sizes"):
        launch_config({**launch, "grid": ["1", "1"]}, {"m": 1, "n": 1})


# --- property: what c_expr prints, evaluate reads back ----------------------------------------

SCALARS = {"n": 1000, "m": -37, "t": 3, "k": 65536}


def random_size_expression(rng: random.Random, depth: int) -> tuple[Expr, int]:
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.5:
            name = rng.choice(list(SCALARS))
            return Name(name), SCALARS[name]
        value = rng.choice([0, 1, 2, 7, 255, 256, 65535, -1, -4])
        return IntLiteral(value), value
    kind = rng.random()
    if kind < 0.1:
        inner, value = random_size_expression(rng, depth - 1)
        return Unary("-", inner), -value
    if kind < 0.25:
        (a, x), (b, y) = (random_size_expression(rng, depth - 1) for _ in range(2))
        which = rng.choice(["min", "max"])
        return call(which, [a, b]), (min if which == "min" else max)(x, y)
    (a, x), (b, y) = (random_size_expression(rng, depth - 1) for _ in range(2))
    op = rng.choice("+-*/%")
    if op in "/%" and y == 0:
        op = "+"
    value = {
        "+": x + y,
        "-": x - y,
        "*": x * y,
        "/": c_div(x, y) if y else 0,
        "%": x - y * c_div(x, y) if y else 0,
    }[op]
    return Binary(op, a, b), value


def test_printed_size_expressions_evaluate_to_their_trees_value():
    rng = random.Random(5)
    for _ in range(2000):
        expr, value = random_size_expression(rng, rng.randint(1, 6))
        if abs(value) >= 2**62:
            continue
        assert evaluate(expr.render(), SCALARS) == value, expr.render()


# --- the launch description of host IR -------------------------------------------------------


def host_value(value: SSAValue, scalars: list[int]) -> int:
    """What the host IR computes, exactly: the signed reading of each value's bits (`iN`
    arithmetic wraps; `extui`, the `ui` divisions and min/max read their operands unsigned)."""
    width = bit_width(value.type)
    assert width is not None
    if isinstance(value, BlockArgument):
        return to_signed(scalars[value.index], width)
    op = value.owner
    assert isinstance(op, Operation)
    if op.name == "arith.constant":
        attr = op.properties["value"]
        assert isinstance(attr, IntegerAttr)
        return to_signed(attr.value.data, width)
    args = [host_value(o, scalars) for o in op.operands]
    source = bit_width(op.operands[0].type)
    assert source is not None
    unsigned = [a % (1 << source) for a in args]
    match op.name:
        case "arith.addi":
            result = args[0] + args[1]
        case "arith.subi":
            result = args[0] - args[1]
        case "arith.muli":
            result = args[0] * args[1]
        case "arith.divsi":
            result = c_div(args[0], args[1])
        case "arith.divui":
            result = unsigned[0] // unsigned[1]
        case "arith.remsi":
            result = args[0] - args[1] * c_div(args[0], args[1])
        case "arith.remui":
            result = unsigned[0] % unsigned[1]
        case "arith.ceildivsi":
            result = -(-args[0] // args[1])
        case "arith.ceildivui":
            result = -(-unsigned[0] // unsigned[1])
        case "arith.maxsi" | "arith.minsi":
            result = (max if op.name == "arith.maxsi" else min)(args)
        case "arith.maxui" | "arith.minui":
            result = (max if op.name == "arith.maxui" else min)(unsigned)
        case "arith.shli":
            result = args[0] << args[1]
        case "arith.extui" | "arith.index_castui":
            result = unsigned[0]
        case "arith.index_cast" | "arith.extsi" | "arith.trunci":
            result = args[0]
        case _:
            raise AssertionError(f"unexpected host op {op.name}")
    return to_signed(result, width)


def check_launches(module: ModuleOp, draw_scalars: Callable[[func.FuncOp], list[Any]]) -> int:
    """Compare every launch's sizes, as described and as the IR computes them; returns the
    number of launches checked."""
    description = emit_cuda(module).launch
    hosts = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
    checked = 0
    for entry in description["functions"]:
        host = hosts[entry["name"]]
        launches = [op for op in host.walk() if isinstance(op, gpu.LaunchFuncOp)]
        assert len(launches) == len(entry["launches"])
        for _ in range(50):
            values = draw_scalars(host)
            scalars = {
                p["name"]: v for p, v in zip(entry["params"], values) if p["kind"] == "scalar"
            }
            for op, launch in zip(launches, entry["launches"]):
                grid, block, shared = launch_config(launch, scalars)
                assert grid == tuple(
                    host_value(v, values) for v in (op.gridSizeX, op.gridSizeY, op.gridSizeZ)
                )
                assert block == tuple(
                    host_value(v, values) for v in (op.blockSizeX, op.blockSizeY, op.blockSizeZ)
                )
                expected_shared = op.dynamicSharedMemorySize
                assert shared == (0 if expected_shared is None else host_value(expected_shared, values))
                checked += 1
    return checked


def test_launch_sizes_of_the_filecheck_host_function():
    text = (ROOT / "filecheck_tests" / "targets" / "cuda" / "launch.mlir").read_text()
    module = Parser(make_context(), text).parse_module()
    rng = random.Random(3)

    def draw(host: func.FuncOp) -> list[int | None]:  # n >= t >= 1: the numerators ceildiv sees are >= 0 (its documented domain)
        t = rng.choice([1, 3, rng.randint(1, 100)])
        return [None, rng.choice([rng.randint(t, 10**6), t]), rng.randint(1, 10**9), t]

    assert check_launches(module, draw) == 150


EXAMPLES = sorted((ROOT / "examples").glob("*.c"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_launch_sizes_of_the_lowered_examples(path: Path):
    from autogpu.frontend import parse_c
    from autogpu.passes.convert_agpu_to_gpu import ConvertAgpuToGpuPass

    module = parse_c(path.read_text(), str(path))
    ConvertAgpuToGpuPass().apply(make_context(), module)
    rng = random.Random(11)

    def draw(host: func.FuncOp) -> list[int | None]:  # sizes of 3 and more, as the examples' loops (which start at 1) expect
        return [None if "memref" in str(a.type) else rng.randint(3, 5000) for a in host.args]

    assert check_launches(module, draw) > 0


# --- property: random host arithmetic on int, unsigned, long and size_t --------------------------

HOST_PARAMS = [("n", 32, "unsigned"), ("m", 32, "int"), ("l", 64, "long"), ("s", 64, "size_t")]
DTYPES = {"n": np.uint32, "m": np.int32, "l": np.int64, "s": np.uint64}
"""The parameters' values as the executors pass them (a size_t is `unsigned long long`)."""
RING = ["addi", "subi", "muli"]
READING = ["divsi", "divui", "remsi", "remui", "minsi", "maxsi", "minui", "maxui"]


class RandomHost:
    """MLIR text of a host function computing one grid size from the parameters above with
    random `iN` arithmetic, wrap-around and casts included."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.lines: list[str] = []

    def value(self, width: int, depth: int) -> str:
        rng = self.rng
        if depth == 0 or rng.random() < 0.2:
            if rng.random() < 0.6:
                return f"%{rng.choice([n for n, w, _ in HOST_PARAMS if w == width])}"
            return self.emit(f"arith.constant {rng.choice([0, 1, 3, 5, 255, -1, -7])} : i{width}")
        other = 96 - width  # 32 <-> 64
        kind = rng.random()
        if kind < 0.2:
            inner = self.value(other, depth - 1)
            op = "trunci" if width == 32 else rng.choice(["extsi", "extui"])
            return self.emit(f"arith.{op} {inner} : i{other} to i{width}")
        op = rng.choice(RING if kind < 0.65 else READING)
        a, b = self.value(width, depth - 1), self.value(width, depth - 1)
        return self.emit(f"arith.{op} {a}, {b} : i{width}")

    def emit(self, text: str) -> str:
        name = f"%v{len(self.lines)}"
        self.lines.append(f"    {name} = {text}")
        return name

    def module(self) -> str:
        grid = self.value(64, 4)
        params = ", ".join(f"%{n}: i{w} {{agpu.name = \"{n}\", agpu.ctype = \"{c}\"}}"
                           for n, w, c in HOST_PARAMS)
        types = ", ".join(f"i{w}" for _, w, _ in HOST_PARAMS)
        args = ", ".join(f"%{n}" for n, _, _ in HOST_PARAMS)
        body = "\n".join(self.lines)
        return f"""builtin.module attributes {{gpu.container_module}} {{
  "gpu.module"() <{{sym_name = "kernels"}}> ({{
    "gpu.func"() <{{function_type = ({types}) -> (), kernel}}> ({{
    ^bb0({", ".join(f"%k_{n}: i{w}" for n, w, _ in HOST_PARAMS)}):
      "gpu.return"() : () -> ()
    }}) {{sym_name = "k"}} : () -> ()
  }}) : () -> ()
  func.func @host({params}) {{
    %one = arith.constant 1 : index
{body}
    %grid = arith.index_cast {grid} : i64 to index
    "gpu.launch_func"(%grid, %one, %one, %one, %one, %one, {args}) <{{kernel = @kernels::@k, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 4, 0>}}> : (index, index, index, index, index, index, {types}) -> ()
    func.return
  }}
}}"""


class Undefined(Exception):
    """C leaves the result undefined (signed overflow, division by zero): nothing to compare."""


def c_value(value: SSAValue, scalars: dict[str, int]) -> tuple[int, bool]:
    """`host_value`, and whether C computes it in a signed type; signed `int` arithmetic that
    overflows is undefined in C (and the launch sizes assume it does not happen)."""
    width = bit_width(value.type)
    assert width is not None
    if isinstance(value, BlockArgument):
        name, _, ctype = HOST_PARAMS[value.index]
        return to_signed(scalars[name], width), ctype in ("int", "long")
    op = value.owner
    assert isinstance(op, Operation)
    if op.name == "arith.constant":
        return host_value(value, []), True
    operands = [c_value(o, scalars) for o in op.operands]
    values = [v for v, _ in operands]
    if op.name in ("arith.divsi", "arith.divui", "arith.remsi", "arith.remui") and not values[1]:
        raise Undefined
    exact = host_value(value, [scalars[n] for n, _, _ in HOST_PARAMS])
    name = op.name.removeprefix("arith.")
    if name in RING:
        signed = all(s for _, s in operands)
        if signed and width == 32:
            unbounded = {"addi": values[0] + values[1], "subi": values[0] - values[1],
                         "muli": values[0] * values[1]}[name]  # fmt: skip
            if unbounded != exact:
                raise Undefined
        return exact, signed
    return exact, name.endswith("si") or name == "extui"


def test_printed_host_sizes_compute_what_the_ir_computes():
    """Unsigned wrap-around, truncations, sign and zero extensions, divisions and min/max of
    either signedness: the launch size the executors evaluate is the IR's, for any values C
    defines (or the evaluator refuses it: beyond 64 bits)."""
    rng = random.Random(7)
    edges = {"n": [0, 1, 4, 5, 2**31 - 1, 2**31, 2**32 - 1], "m": [-5, -1, 0, 1, 7, 2**31 - 1],
             "l": [-3, 0, 2, 2**40], "s": [0, 3, 2**33 + 1]}  # fmt: skip
    compared = 0
    for _ in range(150):
        module = Parser(make_context(), RandomHost(rng).module()).parse_module()
        (launch,) = emit_cuda(module).launch["functions"][0]["launches"]
        (host,) = [op for op in module.ops if isinstance(op, func.FuncOp)]
        (op,) = [op for op in host.walk() if isinstance(op, gpu.LaunchFuncOp)]
        for _ in range(20):
            scalars = {name: rng.choice(values) for name, values in edges.items()}
            try:
                expected, _ = c_value(op.gridSizeX, scalars)
            except Undefined:
                continue
            typed = {name: DTYPES[name](value) for name, value in scalars.items()}
            grid: int | None = None  # stays None where evaluate refuses
            try:
                grid = evaluate(launch["grid"][0], typed)
            except ValueError as e:
                refusal = str(e)
            else:
                refusal = None
            if refusal is not None:
                assert "overflows" in refusal or "divides by zero" in refusal, refusal
                continue
            assert grid == expected, (launch["grid"][0], scalars)
            compared += 1
    assert compared > 1000
