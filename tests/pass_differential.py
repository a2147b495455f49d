"""Differential testing of one IR pass: the function before and after the pass, run by the
reference interpreter on the same random inputs, must leave identical outputs (bit for bit: the
AutoGPU transformations do not reorder floating-point operations)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from paths import EXAMPLES
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.passes import ModulePass

from autogpu.context import make_context
from autogpu.frontend import parse_c
from autogpu.interpreters import run_function
from autogpu.testing import assert_same_outputs, copy_args, random_args


@functools.cache
def parsed_c(source: str) -> ModuleOp:
    """The frontend's module of C source, parsed once per source (clone before changing it)."""
    return parse_c(source, "<test>")


def module_of(source: str) -> ModuleOp:
    """A fresh module from C source (frontend output cached) or from IR text."""
    if "func.func" in source:
        return Parser(make_context(), source).parse_module()
    return parsed_c(source).clone()


def example(name: str) -> str:
    return (EXAMPLES / name).read_text()


def transformed(module: ModuleOp, *passes: ModulePass) -> ModuleOp:
    """A verified copy of `module` after `passes`."""
    after = module.clone()
    ctx = make_context()
    for p in passes:
        p.apply(ctx, after)
    after.verify()
    return after


def run_both(
    before: ModuleOp,
    after: ModuleOp,
    function: str,
    args: Sequence[Any],
) -> None:
    """Run `function` of both modules on copies of `args`; outputs and results must agree."""
    expected, actual = copy_args(args), copy_args(args)
    expected_result = run_function(before, function, expected)
    actual_result = run_function(after, function, actual)
    assert_same_outputs(actual, expected)
    assert actual_result == expected_result


def check_equivalent(
    before: ModuleOp,
    after: ModuleOp,
    function: str,
    cases: Sequence[Mapping[str, Any]],
    seeds: int = 2,
) -> None:
    """`run_both` on random arguments of each size case (see `autogpu.testing.random_args`)."""
    for sizes in cases:
        for seed in range(seeds):
            run_both(before, after, function, random_args(before, sizes, seed, function=function))
