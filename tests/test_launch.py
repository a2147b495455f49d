"""The launch description's size expressions: `autogpu.backend.launch.evaluate` reads exactly the
documented language with C semantics on 64-bit integers, and the expressions the `cuda` target
prints for host functions evaluate to what the host IR computes."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func, gpu
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.parser import Parser

from autogpu.backend.c_expr import Binary, Expr, IntLiteral, Name, Unary, call
from autogpu.backend.cuda_target import emit_cuda
from autogpu.backend.launch import evaluate, launch_config
from autogpu.context import make_context

ROOT = Path(__file__).resolve().parent.parent


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


@pytest.mark.parametrize(
    "expr, message",
    [
        ("x + 1", "unknown name 'x'"),
        ("n ? 1 : 2", "unexpected character '?'"),
        ("n < 2", "unexpected character '<'"),
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
        evaluate(5, {})  # type: ignore[arg-type]


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
    """What the host IR computes (index arithmetic, exact ceiling division)."""
    if isinstance(value, BlockArgument):
        return scalars[value.index]
    op = value.owner
    assert isinstance(op, Operation)
    if op.name == "arith.constant":
        attr = op.properties["value"]
        assert isinstance(attr, IntegerAttr)
        return attr.value.data
    args = [host_value(o, scalars) for o in op.operands]
    match op.name:
        case "arith.addi":
            return args[0] + args[1]
        case "arith.subi":
            return args[0] - args[1]
        case "arith.muli":
            return args[0] * args[1]
        case "arith.divsi" | "arith.divui":
            return c_div(args[0], args[1])
        case "arith.remsi" | "arith.remui":
            return args[0] - args[1] * c_div(args[0], args[1])
        case "arith.ceildivsi" | "arith.ceildivui":
            return -(-args[0] // args[1])
        case "arith.maxsi" | "arith.maxui":
            return max(args)
        case "arith.minsi" | "arith.minui":
            return min(args)
        case "arith.shli":
            return args[0] << args[1]
        case "arith.index_cast" | "arith.extsi" | "arith.extui" | "arith.trunci":
            return args[0]
    raise AssertionError(f"unexpected host op {op.name}")


def check_launches(module: ModuleOp, draw_scalars) -> int:
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

    def draw(host):  # n >= t >= 1: the numerators ceildiv sees are >= 0 (its documented domain)
        t = rng.randint(1, 100)
        return [None, rng.randint(t, 10**6), rng.randint(1, 10**9), t]

    assert check_launches(module, draw) == 100


EXAMPLES = sorted((ROOT / "examples").glob("*.c"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_launch_sizes_of_the_lowered_examples(path: Path):
    from autogpu.frontend import parse_c
    from autogpu.passes.convert_agpu_to_gpu import ConvertAgpuToGpuPass

    module = parse_c(path.read_text(), str(path))
    ConvertAgpuToGpuPass().apply(make_context(), module)
    rng = random.Random(11)

    def draw(host):  # sizes of 3 and more, as the examples' loops (which start at 1) expect
        return [None if "memref" in str(a.type) else rng.randint(3, 5000) for a in host.args]

    assert check_launches(module, draw) > 0
