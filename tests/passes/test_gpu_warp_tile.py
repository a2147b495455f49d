"""Warp tiles (`gpu-warp-tile`, autogpu-tiled's `warp_x`, issue #14): each warp's threads as an
x x (32 / x) sub-tile of the block. Differential tests against gcc's build of the serial C on
the CPU emulation (threads in random order) for row-major, column-major, transposed, double
and int products at sizes that divide nothing (0, 1, 2 and more k-tiles, ragged last tiles and
edge blocks), with and without double-buffered tiles and guarded copies, with arrays ending at
an unreadable page; the copies keep the linear thread; nvcc compiles every kernel; the tuner
never builds a warp tile the block cannot hold."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from guard_page_emulation import run_guarded
from lowered_differential import agree_with_gcc, one_translation_unit
from test_gemm_fragments import ODD, tiled
from test_gpu_cache_shared_block_tiles import (
    COLUMN_MAJOR,
    DOUBLE,
    INTEGER,
    ROW_MAJOR,
    TRANSPOSED,
    colmajor,
    sizes,
    transformed,
)

from autogpu.runtime import cuda_exec
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.target.cuda_target import emit_cuda
from autogpu.testing.nvcc import assert_compiles_with_nvcc

BLOCK = "block_size=8 block_y=8"
"""64 threads: two warps, of 8 x 4 (warp_x=8) or 4 x 8 (warp_x=4) threads."""

CASES = [
    # (id, source, function, pipeline, sizes)
    ("row-major-8x4", ROW_MAJOR, "gemm_nn", tiled(BLOCK, 2, 2, 4, "warp_x=8"),
     [sizes(*s) for s in ODD]),
    ("row-major-4x8", ROW_MAJOR, "gemm_nn", tiled(BLOCK, 2, 2, 4, "warp_x=4"),
     [sizes(*s) for s in ODD]),
    ("transposed", TRANSPOSED, "gemm_tt", tiled(BLOCK, 2, 2, 4, "warp_x=8"),
     [sizes(*s) for s in ODD]),
    ("column-major", COLUMN_MAJOR, "matmul", tiled(BLOCK, 4, 2, 4, "warp_x=4"),
     [colmajor(*s) for s in ODD]),
    ("column-major-2x16", COLUMN_MAJOR, "matmul",
     tiled("block_size=4 block_y=16", 4, 1, 4, "warp_x=2"), [colmajor(*s) for s in ODD]),
    ("double-nt", DOUBLE, "dgemm_nt", tiled(BLOCK, 2, 4, 4, "warp_x=8"),
     [sizes(*s) for s in ODD]),
    ("int-tn", INTEGER, "igemm_tn", tiled("block_size=16 block_y=4", 2, 2, 8, "warp_x=8"),
     [sizes(*s) for s in ODD]),
    ("double-buffered", COLUMN_MAJOR, "matmul",
     tiled(BLOCK, 4, 2, 4, "warp_x=8 stages=2 swizzle=true"), [colmajor(*s) for s in ODD]),
    ("guarded-copies", ROW_MAJOR, "gemm_nn",
     tiled(BLOCK, 2, 2, 4, "warp_x=4 cache_full_tiles=false"), [sizes(*s) for s in ODD]),
    ("cyclic", ROW_MAJOR, "gemm_nn",
     tiled(BLOCK, 2, 2, 4, "warp_x=8").replace("blocked", "cyclic"), [sizes(*s) for s in ODD]),
    ("specialised", COLUMN_MAJOR, "matmul",
     tiled(BLOCK, 4, 2, 4, 'warp_x=8 stages=2 sizes="m=32,n=48,p=48"'), [colmajor(32, 48, 48)]),
]  # fmt: skip


@pytest.mark.parametrize("source, function, spec, cases", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_matches_gcc(source: str, function: str, spec: str, cases: list[dict[str, int]]):
    program = emit_cuda(transformed(source, spec))
    assert "lane" in program.source
    cpu = CpuProgram(program.source, program.launch, threads=1, thread_order="random")
    agree_with_gcc(cpu, source, function, cases)


@pytest.mark.parametrize("case", CASES[:3], ids=[c[0] for c in CASES[:3]])
def test_never_reads_past_an_array(case: tuple[str, str, str, str, list[dict[str, int]]]):
    _, source, function, spec, cases = case
    run_guarded({"source": source, "function": function, "pipeline": spec, "cases": cases})


def test_fragments_follow_the_warp_tile_and_copies_the_linear_thread():
    """matmul.c with 128x128x16 tiles and 8 x 4 warps: the x fragments start at
    ((w % 2) * 8 + l % 8) * 8 and the y ones at ((w / 2) * 4 + l / 8) * 8, while the copies
    still index by `ty * 16 + tx` (consecutive lanes, consecutive elements)."""
    spec = tiled("block_size=16 block_y=16", 8, 8, 16, "warp_x=8")
    source = emit_cuda(transformed(COLUMN_MAJOR, spec)).source
    assert "const int v0 = (warp % 2 * 8 + lane % 8) * 8;" in source
    assert "(warp / 2 * 4 + lane / 8) * 8" in source
    assert "const int thread = ty * 16u + tx;" in source
    untiled = emit_cuda(transformed(COLUMN_MAJOR, spec.replace("warp_x=8", "warp_x=0"))).source
    assert "lane" not in untiled
    assert "const int v0 = tx * 8u;" in untiled


def test_a_block_without_whole_warp_tiles_is_left_as_it_is():
    """4 x 4 threads hold no 8 x 4 warp: the kernel is the one without the option."""
    spec = tiled(more="warp_x=8")
    assert emit_cuda(transformed(ROW_MAJOR, spec)).source \
        == emit_cuda(transformed(ROW_MAJOR, spec.replace("warp_x=8", "warp_x=0"))).source


def test_nvcc_compiles():
    programs = [emit_cuda(transformed(source, spec)) for _, source, _, spec, _ in CASES]
    assert_compiles_with_nvcc(one_translation_unit(programs))


def test_the_tuner_builds_only_warp_tiles_the_block_holds():
    """warp_x is not tuned by default (the space's size); given values, the restriction
    keeps those whose warp tile the block does not hold from compiling."""
    from autogpu.tuner import adapter
    from autogpu.tuner.space import build_space

    name = "autogpu-tiled"

    def warp_xs(block: str) -> set[int]:
        space = build_space(adapter.parse_pipeline_spec(f"{name}{{{block} tm=8 tn=8 bk=16}}"),
                            {name: adapter.pass_options(name)}, {"element_bytes": 4},
                            overrides={"warp_x": [0, 4, 8]},
                            pass_restrictions={name: adapter.pass_restrictions(name)},
                            parallel_dims=2)
        return {c["warp_x"] for c in space.enumerate()}

    assert warp_xs("block_size=16 block_y=16") == {0, 4, 8}
    assert warp_xs("block_size=16 block_y=4") == {0, 8}
    assert warp_xs("block_size=4 block_y=16") == {0, 4}


NO_GPU = cuda_exec.gpu_unavailable_reason()


@pytest.mark.skipif(NO_GPU is not None, reason=f"needs a CUDA GPU: {NO_GPU}")
@pytest.mark.parametrize("warp_x", [4, 8])
@pytest.mark.parametrize("source, function, shape", [
    (COLUMN_MAJOR, "matmul", colmajor), (ROW_MAJOR, "gemm_nn", sizes),
    (TRANSPOSED, "gemm_tt", sizes)], ids=["column-major", "row-major", "transposed"])
def test_warp_tiled_128x128x16_on_the_gpu(source: str, function: str,
                                          shape: Callable[[int, int, int], dict[str, int]],
                                          warp_x: int):
    """autogpu-tiled's 128x128x16 tiles of 8x8 in warp tiles, double-buffered, on the GPU:
    0, 1, 2 and many tiles along k, whole and ragged blocks, against gcc."""
    spec = tiled("block_size=16 block_y=16", 8, 8, 16,
                 f"min_blocks=2 stages=2 swizzle=true warp_x={warp_x}")
    program = emit_cuda(transformed(source, spec))
    # no FMA contraction, as gcc's build: the outputs are then the same bit for bit
    gpu_program = cuda_exec.CudaProgram(program.source, program.launch, fmad=False)
    agree_with_gcc(gpu_program, source, function,
                   [shape(*s) for s in ((256, 128, 32), (300, 257, 33), (129, 130, 16),
                                        (128, 128, 0), (200, 64, 1), (130, 300, 517))])
