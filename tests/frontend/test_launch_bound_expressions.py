"""`num_teams(e)`/`thread_limit(e)` with `e` an expression of the function's integer parameters:
recorded in the launch description's language, evaluated by the host at launch (num_teams
bounds the grid, against gcc on the CPU emulation), by the tuner with its sizes (thread_limit),
and a located error for anything the host cannot evaluate once at launch."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import StringAttr

import autogpu
from autogpu.diagnostics import CompileError
from autogpu.dialects.agpu import ParallelForOp
from autogpu.frontend import parse_c
from autogpu.runtime.arguments import KernelLaunchError
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.testing.gcc_reference import compile_c_reference
from autogpu.tuner.driver import TuneOptions, prepare

TEMPLATE = """void k(int n, int m, const float *x, float a, float *y) {{
  int t = 3;
#pragma omp target teams distribute parallel for {clause}
  for (int i = 0; i < n; i++)
    y[i] = x[i] + t;
  {after}
}}
"""


def test_the_expression_is_recorded_fully_parenthesised():
    module = parse_c(TEMPLATE.format(clause="num_teams((n + 255) / 256 - -m) thread_limit(2*m)",
                                     after=""), "k.c")  # fmt: skip
    (loop,) = [op for op in module.walk() if isinstance(op, ParallelForOp)]
    assert loop.attributes["agpu.num_teams"] == StringAttr("(((n + 255) / 256) - (-m))")
    assert loop.attributes["agpu.thread_limit"] == StringAttr("(2 * m)")


@pytest.mark.parametrize(("clause", "after", "column", "message"), [
    ("num_teams(n * 1.5)", "", 64, "'1.5' is a floating-point constant"),
    ("num_teams(a)", "", 60, "'a' is 'float'"),
    ("num_teams(x[0])", "", 60, "'x' is an array"),
    ("num_teams(q)", "", 60, "'q' is not declared"),
    ("num_teams(f(n))", "", 60, "'f(...)' is a call"),
    ("thread_limit(t)", "", 63, "'t' is a local variable"),
    ("thread_limit(m ? 1 : 2)", "", 65, "'?' is not allowed"),
    ("num_teams(n +)", "", 63, "the expression ends too early"),
    ("num_teams(n / 2)", "n = 3;", 60, "'n' is assigned in the function"),
])  # fmt: skip
def test_bounds_the_host_cannot_evaluate_at_launch_are_located_errors(
    clause: str, after: str, column: int, message: str
):
    with pytest.raises(CompileError) as info:
        parse_c(TEMPLATE.format(clause=clause, after=after), "k.c")
    assert message in str(info.value), info.value.format()
    assert info.value.location is not None
    assert (info.value.location.line, info.value.location.column) == (3, column)


SCALE = """
void scale(int n, int teams, const float *x, float *y) {
#pragma omp target teams distribute parallel for num_teams(teams / 2 + 1) map(to: x[0:n])
  for (int i = 0; i < n; i++)
    y[i] = 2 * x[i] + i;
}
"""


@pytest.mark.parametrize("pipeline", ["autogpu-vanilla{block_size=64}",
                                      "autogpu-optimize{block_size=32 unroll_x=2}"])
def test_num_teams_expressions_bound_the_grid_and_cover_every_iteration(pipeline: str):
    kernel = autogpu.compile(SCALE, pipeline=pipeline)
    program = CpuProgram(kernel.cuda_source, kernel.launch_description, thread_order="random",
                         seed=5)  # fmt: skip
    reference = compile_c_reference(SCALE, "scale")
    rng = np.random.default_rng(0)
    for n, teams in ((0, 0), (1, -1), (1000, 0), (1000, 3), (5000, 40), (777, 10**6)):
        x = rng.random(n, np.float32)
        expected, actual = np.zeros(n, np.float32), np.zeros(n, np.float32)
        reference(n, teams, x, expected)
        program.run("scale", n, teams, x, actual)
        np.testing.assert_array_equal(actual, expected, err_msg=f"n={n} teams={teams}")
        (launch,) = kernel.launch_config(n=n, teams=teams)
        tile = 64  # 64 threads, or 32 threads x 2 replicas
        assert launch["grid"][0] == min(max(-(-n // tile), 1), max(teams // 2 + 1, 1))
        assert launch["grid"][1:] == (1, 1)


def test_the_tuner_bounds_blocks_by_a_thread_limit_expression():
    source = TEMPLATE.format(clause="thread_limit(m / 2)", after="").replace(
        "const float *x, float a,", "const float *x,")  # fmt: skip
    prepared = prepare(TuneOptions(source, sizes={"n": 1000, "m": 128}, backend="cpu"))
    assert prepared.thread_limit == 64
    assert max(int(c.get("block_size", 1)) * int(c.get("block_y", 1))
               for c in prepared.candidates) <= 64


LIMITED = """
void scale(int n, int teams, int lim, const float *x, float *y) {
#pragma omp target teams distribute parallel for num_teams(teams - 1) thread_limit(lim * 2)
  for (int i = 0; i < n; i++)
    y[i] = 2 * x[i] + i;
}
"""


@pytest.mark.parametrize(("teams", "lim", "message"), [
    (1, 64, "num_teams(teams - 1) is 0, but OpenMP requires a positive value"),
    (-5, 64, "num_teams(teams - 1) is -6, but OpenMP requires a positive value"),
    (4, 0, "thread_limit(lim * 2) is 0, but OpenMP requires a positive value"),
    (4, 32, "thread_limit(lim * 2) is 64, but the kernel was compiled for blocks of 128 "
            "threads: compile with a block of at most 64 threads"),
])  # fmt: skip
def test_launch_bounds_that_forbid_the_launch_are_errors_at_launch(
    teams: int, lim: int, message: str
):
    kernel = autogpu.compile(LIMITED, pipeline="autogpu-vanilla{block_size=128}")
    program = CpuProgram(kernel.cuda_source, kernel.launch_description)
    x, y = np.ones(10, np.float32), np.zeros(10, np.float32)
    with pytest.raises(KernelLaunchError, match="launch of 'scale_kernel'") as info:
        program.run("scale", 10, teams, lim, x, y)
    assert message in str(info.value)
    assert not y.any(), "nothing ran"


def test_launch_bounds_that_allow_the_block_run_against_gcc():
    kernel = autogpu.compile(LIMITED, pipeline="autogpu-vanilla{block_size=128}")
    program = CpuProgram(kernel.cuda_source, kernel.launch_description, thread_order="random")
    reference = compile_c_reference(LIMITED, "scale")
    x = np.arange(1000, dtype=np.float32)
    expected, actual = np.zeros(1000, np.float32), np.zeros(1000, np.float32)
    reference(1000, 3, 64, x, expected)
    program.run("scale", 1000, 3, 64, x, actual)  # 2 teams of at most 128 threads
    np.testing.assert_array_equal(actual, expected)
