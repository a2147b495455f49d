"""agpu-dense-indexing: the rule (dense iff constant step >= threshold, or a runtime step), the
forcing modes, and end to end: strided parallel loops lowered with each indexing scheme by
convert-agpu-to-gpu and run by the CPU emulation of the CUDA kernel compute exactly what the
interpreter computes on the C-level IR (indexing changes which thread runs an iteration, never
what is computed)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from pass_differential import check_equivalent, example, module_of, transformed
from xdsl.dialects.builtin import ModuleOp

import autogpu
from autogpu.diagnostics import CompileError
from autogpu.dialects.agpu import Indexing, ParallelForOp
from autogpu.interpreters import run_function
from autogpu.passes.agpu_dense_indexing import AgpuDenseIndexingPass

LOOPS_IR = """
func.func @f(%n: i32, %s: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c32 = arith.constant 32 : i32
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %c1000 = arith.constant 1000 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 {}
  agpu.parallel_for %i = %c0 to %n step %c2 : i32 {}
  agpu.parallel_for %i = %c0 to %n step %c32 : i32 {}
  agpu.parallel_for %i = %c0 to %n step %c63 : i32 {}
  agpu.parallel_for %i = %c0 to %n step %c64 : i32 {}
  agpu.parallel_for %i = %c0 to %n step %c1000 : i32 {}
  agpu.parallel_for %i = %c0 to %n step %s : i32 {}
  func.return
}
"""
STEPS = [1, 2, 32, 63, 64, 1000, None]  # None: the runtime step %s


def decisions(module: ModuleOp) -> list[Indexing]:
    return [op.indexing.data for op in module.walk() if isinstance(op, ParallelForOp)]


@pytest.mark.parametrize("threshold", [1, 2, 33, 64, 65, 1000, 1001])
def test_rule(threshold: int):
    after = transformed(module_of(LOOPS_IR), AgpuDenseIndexingPass(threshold=threshold))
    expected = [
        Indexing.DENSE if step is None or step >= threshold else Indexing.SPARSE for step in STEPS
    ]
    assert decisions(after) == expected


@pytest.mark.parametrize("mode", ["dense", "sparse"])
def test_forced_modes(mode: str):
    after = transformed(module_of(LOOPS_IR), AgpuDenseIndexingPass(mode=mode))
    assert decisions(after) == [Indexing(mode)] * len(STEPS)


def test_idempotent_and_only_indexing_changes():
    once = transformed(module_of(LOOPS_IR), AgpuDenseIndexingPass())
    assert str(transformed(once, AgpuDenseIndexingPass())) == str(once)
    back = transformed(once, AgpuDenseIndexingPass(mode="sparse"))
    assert str(back) == str(module_of(LOOPS_IR))


@pytest.mark.parametrize("options, message", [
    ({"threshold": 0}, "threshold must be at least 1, got 0"),
    ({"threshold": -5}, "threshold must be at least 1, got -5"),
    ({"mode": "packed"}, "mode must be one of auto, dense, sparse; got 'packed'"),
])
def test_invalid_options(options: dict[str, Any], message: str):
    with pytest.raises(CompileError, match=message):
        AgpuDenseIndexingPass(**options)


def test_examples_interpreted_unchanged():
    before = module_of(example("matmul.c"))
    after = transformed(before, AgpuDenseIndexingPass(mode="dense"))
    check_equivalent(before, after, "matmul",
                     [{"m": 5, "n": 3, "p": 4, "A": 15, "B": 20, "C": 12}], seeds=1)


STRIDED = """
void strided(float *restrict y, const float *restrict x, int n, int s) {
#pragma omp parallel for
  for (int i = 3; i < n; i += STEP)
    y[i] = 2.0f * x[i] + y[i];
}
"""


@pytest.fixture(autouse=True, scope="module")
def private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AUTOGPU_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


# Each case builds the CPU emulation of a kernel (seconds): sparse, dense, and a runtime step.
@pytest.mark.parametrize("step, mode", [("3", "auto"), ("100", "auto"), ("s", "dense")])
def test_lowered_kernel_matches_interpreter(step: str, mode: str):
    source = STRIDED.replace("STEP", step)
    kernel = autogpu.compile(source, pipeline=f"agpu-dense-indexing{{mode={mode}}},autogpu-vanilla")
    dense = mode == "dense" or (mode == "auto" and step in ("100", "s"))
    grid_x = kernel.launch["launches"][0]["grid"][0]
    # dense: one thread per iteration, so the grid divides the range by the step
    assert (f") / {step} " in grid_x) == dense, grid_x
    rng = np.random.default_rng(0)
    for n in (1, 4, 700):
        x = rng.uniform(-1, 1, n).astype(np.float32)
        y = rng.uniform(-1, 1, n).astype(np.float32)
        expected = y.copy()
        run_function(module_of(source), "strided", [expected, x.copy(), n, 7])
        kernel.program("cpu").run("strided", y, x, n, 7)
        assert np.array_equal(y, expected)
