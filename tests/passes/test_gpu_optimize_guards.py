"""gpu-optimize-guards: guards hoisted out of loops and merged compute what the original computes,
on C-level IR (the interpreter, before vs after) and on lowered kernels (the CPU emulation vs gcc,
reductions with barriers included); and where the guards end up."""

from __future__ import annotations

from typing import Any

import pytest
from lowered_differential import (
    check_against_gcc,
    close_sums,
    conv2d,
    cuda_of,
    example,
    jacobi,
    lowered,
    matmul,
    one_translation_unit,
)
from pass_differential import check_equivalent, module_of, transformed
from xdsl.dialects import gpu, scf
from xdsl.dialects.builtin import ModuleOp

from autogpu.passes.gpu_optimize_guards import GpuOptimizeGuardsPass
from autogpu.testing.nvcc import assert_compiles_with_nvcc

GUARDED = """
void guarded(float *a, float *b, const float *c, int n, int m, int p) {
#pragma omp parallel for
  for (int i = 0; i < m; i++) {
    if (i < n) a[i] = c[i];
    if (i < n) b[i] = 2.0f * c[i];
    for (int k = 0; k < p; k++)
      if (n > 3) a[i] += c[k];
    for (int k = 0; k < p; k++)
      if (i + 1 < n && c[i] > 0.0f) b[i] -= c[k];
    for (int k = 0; k < p; k++)
      for (int l = 0; l < 3; l++)
        if (m > n) b[i] += 1.0f;
  }
}
"""


def guarded(n: int, m: int, p: int) -> dict[str, int]:
    return {"n": n, "m": m, "p": p, "a": max(m, 1), "b": max(m, 1), "c": max(m, p, 1)}


def ifs_inside_loops(module: ModuleOp) -> int:
    """How many `scf.if`s run inside some `scf.for`."""
    return len(
        {
            inner
            for loop in module.walk()
            if isinstance(loop, scf.ForOp)
            for inner in loop.body.walk()
            if isinstance(inner, scf.IfOp)
        }
    )


def test_c_level_guards_hoisted_and_merged():
    before = module_of(GUARDED)
    after = transformed(before, GpuOptimizeGuardsPass())
    # `n > 3` and `m > n` leave their loops; `i + 1 < n && c[i] > 0` (two ifs: the `&&`
    # short-circuits the load) depends on memory: it stays
    assert ifs_inside_loops(before) == 4
    assert ifs_inside_loops(after) == 2
    assert sum(isinstance(op, scf.IfOp) for op in before.walk()) == 6
    assert sum(isinstance(op, scf.IfOp) for op in after.walk()) == 5  # the two i < n merged
    cases = [guarded(9, 12, 3), guarded(2, 5, 4), guarded(5, 4, 0), guarded(4, 1, 1)]
    check_equivalent(before, after, "guarded", cases)


def test_lowered_x_guard_leaves_the_grid_stride_loop():
    plain = lowered(example("matmul.c"), "autogpu-vanilla")
    optimized = lowered(example("matmul.c"), "autogpu-vanilla,gpu-optimize-guards")
    (kernel,) = [op for op in optimized.walk() if isinstance(op, gpu.FuncOp)]
    assert ifs_inside_loops(plain) == 1
    assert ifs_inside_loops(optimized) == 0
    (guard,) = [op for op in kernel.body.block.ops if isinstance(op, scf.IfOp)]
    assert any(isinstance(op, scf.ForOp) for op in guard.true_region.block.ops)


STAGE = "agpu-stage-accumulations{assume_no_alias=true}"

CONFIGS: list[tuple[str, str, str, str, list[dict[str, Any]], dict[str, Any]]] = [
    ("matmul", example("matmul.c"), "matmul",
     f"{STAGE},autogpu-vanilla{{block_size=16}},gpu-optimize-guards",
     [matmul(37, 5, 3), matmul(1, 1, 1), matmul(16, 3, 0)], {}),
    ("matmul-unrolled", example("matmul.c"), "matmul",
     f"{STAGE},agpu-unroll-parallel{{x=2 y=2}},autogpu-vanilla{{block_size=8}},gpu-optimize-guards",
     [matmul(35, 5, 3), matmul(16, 4, 1)], {}),
    ("conv2d", example("conv2d.c"), "conv2d", "autogpu-vanilla{block_size=16},gpu-optimize-guards",
     [conv2d(19, 7, 3), conv2d(1, 1, 1)], {}),
    ("jacobi", example("stencil2d.c"), "jacobi2d",
     "autogpu-vanilla{block_size=16},gpu-optimize-guards", [jacobi(9, 40), jacobi(2, 2)], {}),
    ("dot", example("dot.c"), "dot", "autogpu-vanilla{block_size=32},gpu-optimize-guards",
     [{"n": n, "x": max(n, 1), "y": max(n, 1), "result": 1} for n in (300, 1, 0)],
     dict(compare=close_sums, thread_order="random")),
    ("guarded", GUARDED, "guarded", "autogpu-vanilla{block_size=8},gpu-optimize-guards",
     [guarded(9, 12, 3), guarded(2, 5, 4), guarded(5, 4, 0)], {}),
]  # fmt: skip


@pytest.mark.parametrize(
    "source, function, pipeline, cases, options",
    [pytest.param(*config[1:], id=config[0]) for config in CONFIGS],
)
def test_optimized_guards_match_gcc(source: str, function: str, pipeline: str,
                                    cases: list[dict[str, Any]], options: dict[str, Any]):
    check_against_gcc(source, function, pipeline, cases, **options)


def test_every_kernel_compiles_with_nvcc():
    programs = [cuda_of(source, pipeline) for _, source, _, pipeline, _, _ in CONFIGS]
    assert_compiles_with_nvcc(one_translation_unit(programs))
