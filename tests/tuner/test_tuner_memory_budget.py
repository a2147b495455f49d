"""The tuner's `memory_budget` (a measurement option, as Kernel Tuner groups device options):
every variant of a function made by agpu-out-of-core is verified and timed running in parts
under it, and cached results are keyed by it."""

from __future__ import annotations

from pathlib import Path

import pytest

import autogpu
from autogpu.diagnostics import CompileError
from autogpu.runtime.parts import SLOTS
from autogpu.tools.autogpu_tune import build_parser, options_from_args
from autogpu.tuner.options import TuneOptions, check_options
from tests.paths import EXAMPLES

MATMUL = (EXAMPLES / "matmul_rows.c").read_text()
SIZES = {"n": 40, "m": 16, "p": 8}
IN_PARTS = 4 * (8 * 16 + SLOTS * 8 * 24)  # B resident, 8 rows of A and C a part: 5 parts


def _tune(cache: str, memory_budget: int | None):
    return autogpu.tune(MATMUL, "agpu-out-of-core,autogpu-optimize", sizes=SIZES,
                        backend="cpu", cache=cache, budget=1, memory_budget=memory_budget,
                        space={"unroll_x": [1], "unroll_y": [1], "unroll_serial": [1]},
                        progress=False, plot=False)


def test_the_variants_run_within_the_budget():
    with pytest.raises(CompileError, match="cannot run in parts within a memory budget of 100"):
        _tune("", 100)  # not one row fits: every variant fails in its executor


def test_results_are_cached_per_budget(tmp_path: Path):
    cache = str(tmp_path / "tune.sqlite")
    first = _tune(cache, IN_PARTS).tuning
    assert [v["status"] for v in first.variants] == ["ok"]
    assert first.measured == 1
    assert _tune(cache, IN_PARTS).tuning.measured == 0  # the same budget: from the cache
    other = _tune(cache, 2 * IN_PARTS).tuning
    assert other.measured == 1
    assert other.context != first.context


def test_the_budget_is_a_measurement_option_checked_for_range():
    options = TuneOptions("k.c", memory_budget=1 << 30)
    assert options.measurement.memory_budget == 1 << 30
    args = build_parser().parse_args(["k.c", "--memory-budget", "4096"])
    assert options_from_args(args).measurement.memory_budget == 4096
    with pytest.raises(CompileError, match="memory_budget must be at least 1"):
        check_options(TuneOptions("k.c", memory_budget=0))
