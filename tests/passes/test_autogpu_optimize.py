"""autogpu-optimize, the paper's pipeline: its kernel sequences (scaled down to test sizes) run
by the CPU emulation of CUDA agree with gcc's serial build of the same C, at sizes that do and do
not divide block x unroll and the shared-memory tiles, specialised and not; every emitted kernel
compiles with nvcc; its options are checked."""

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
    matmul,
    one_translation_unit,
    saxpy,
)

from autogpu.diagnostics import CompileError
from autogpu.passes.pipelines import AutogpuOptimizePipeline
from autogpu.testing.nvcc import assert_compiles_with_nvcc


def optimize(**options: object) -> str:
    def fmt(value: object) -> str:
        if isinstance(value, bool):
            return str(value).lower()
        return f'"{value}"' if isinstance(value, str) else str(value)

    return "autogpu-optimize{" + " ".join(f"{k}={fmt(v)}" for k, v in options.items()) + "}"


MM_AUTOGPU = dict(block_size=32, unroll_x=2, unroll_y=4, unroll_serial=4, unroll_loops="k")
RAGGED_MATMUL = [matmul(67, 19, 41), matmul(64, 16, 32), matmul(1, 1, 1), matmul(5, 3, 0)]

# (id, example, function, pipeline, cases, options of check_against_gcc)
CONFIGS: list[tuple[str, str, str, str, list[dict[str, Any]], dict[str, Any]]] = [
    ("mm_1", "matmul.c", "matmul", optimize(cache=False, block_size=32), RAGGED_MATMUL, {}),
    ("mm_2", "matmul.c", "matmul", optimize(block_size=32), RAGGED_MATMUL, {}),
    ("mm_autogpu", "matmul.c", "matmul", optimize(**MM_AUTOGPU), RAGGED_MATMUL, {}),
    ("mm_autogpu_exact", "matmul.c", "matmul",
     optimize(sizes="m=128,n=16,p=64", **MM_AUTOGPU), [matmul(128, 16, 64)], {}),
    ("mm_cond_autogpu", "matmul.c", "matmul",
     optimize(sizes="m=67,n=19,p=41", **MM_AUTOGPU), [matmul(67, 19, 41)], {}),
    ("conv_1", "conv2d.c", "conv2d", optimize(block_size=16),
     [conv2d(35, 7, 3), conv2d(32, 4, 5), conv2d(1, 1, 1)], {}),
    ("conv5_autogpu", "conv2d.c", "conv2d",
     optimize(sizes="n=37,m=17,t=5", block_size=8, unroll_y=4), [conv2d(37, 17, 5)], {}),
    ("conv3_autogpu_exact", "conv2d.c", "conv2d",
     optimize(sizes="n=32,m=16,t=3", block_size=8, unroll_y=8), [conv2d(32, 16, 3)], {}),
    ("jacobi_2d_blocks", "stencil2d.c", "jacobi2d",
     optimize(block_size=8, block_y=4, unroll_x=2),
     [jacobi(13, 37), jacobi(10, 34), jacobi(3, 3), jacobi(2, 5)], {}),
    ("saxpy", "saxpy.c", "saxpy", optimize(block_size=32, unroll_x=4),
     [saxpy(259), saxpy(256), saxpy(0)], {}),
    ("dot", "dot.c", "dot", optimize(block_size=32, unroll_x=2),
     [{"n": n, "x": max(n, 1), "y": max(n, 1), "result": 1} for n in (300, 64, 1)],
     dict(compare=close_sums, thread_order="random")),
]  # fmt: skip


@pytest.mark.parametrize(
    "name, function, pipeline, cases, options",
    [pytest.param(*config[1:], id=config[0]) for config in CONFIGS],
)
def test_optimized_matches_gcc(name: str, function: str, pipeline: str,
                               cases: list[dict[str, Any]], options: dict[str, Any]):
    check_against_gcc(example(name), function, pipeline, cases, **options)


def test_every_optimized_kernel_compiles_with_nvcc():
    programs = [cuda_of(example(name), pipeline) for _, name, _, pipeline, _, _ in CONFIGS]
    assert_compiles_with_nvcc(one_translation_unit(programs))


def test_specialised_kernel_refuses_other_sizes():
    program = cuda_of(example("matmul.c"), optimize(sizes="m=64,n=16,p=32"))
    (entry,) = program.launch["functions"]
    assert entry["requires"] == {"m": 64, "n": 16, "p": 32}


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(block_size=0), "block"),
        (dict(block_size=2048), "1024"),
        (dict(block_size=512, block_y=4), "1024"),
    ],
)
def test_invalid_options_are_clear_errors(options: dict[str, Any], message: str):
    with pytest.raises(CompileError, match=message):
        AutogpuOptimizePipeline(**options)


@pytest.mark.parametrize(
    "pipeline, message",
    [
        (optimize(unroll_x=0), "at least 1"),
        (optimize(unroll_serial=0), "at least 1"),
        (optimize(sizes="q=3"), "q"),
    ],
)
def test_invalid_sub_pass_options_are_clear_errors(pipeline: str, message: str):
    with pytest.raises(CompileError, match=message):
        cuda_of(example("matmul.c"), pipeline)
