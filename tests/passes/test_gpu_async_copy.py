"""Asynchronous whole-tile copies (`gpu-pipeline-tiles{stages=2 async_copy=true}`, autogpu-tiled's
`async_copy`, issue #14): the next tile's whole tiles go to the other buffer by `cp.async`,
element by element, issued before the compute and waited for before the one barrier; ragged
tiles keep their guarded copy after the compute. Differential tests against gcc's build of the
serial C on the CPU emulation (where a `cp.async` is a plain copy) for row-major, column-major,
transposed, double and int products at sizes that divide nothing (0, 1, 2 and more k-tiles,
ragged last tiles and edge blocks), with arrays ending at an unreadable page; nvcc (sm_90)
compiles the `cp.async` of every kernel."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from guard_page_emulation import run_guarded
from lowered_differential import agree_with_gcc, one_translation_unit
from test_gemm_fragments import ODD, layout_cases, tiled
from test_gpu_cache_shared_block_tiles import (
    COLUMN_MAJOR,
    ROW_MAJOR,
    TRANSPOSED,
    colmajor,
    sizes,
    transformed,
)

from autogpu.dialects.agpu_vector import AsyncCopyOp, AsyncWaitOp
from autogpu.runtime import cuda_exec
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.target.cuda_target import emit_cuda
from autogpu.testing.nvcc import assert_compiles_with_nvcc

ASYNC = "stages=2 async_copy=true"

CASES = [
    # (id, source, function, pipeline, sizes)
    *layout_cases(ASYNC),
    ("swizzled-warps", COLUMN_MAJOR, "matmul",
     tiled("block_size=8 block_y=8", 4, 2, 4, f"{ASYNC} swizzle=true warp_x=8"),
     [colmajor(*s) for s in ODD]),
    ("scalar-copies", ROW_MAJOR, "gemm_nn",
     tiled(more=ASYNC).replace("cache_copy_width=4", "cache_copy_width=1"),
     [sizes(*s) for s in ODD]),
    ("specialised", COLUMN_MAJOR, "matmul",
     tiled(more=f'{ASYNC} sizes="m=32,n=48,p=48"'), [colmajor(32, 48, 48)]),
]  # fmt: skip


@pytest.mark.parametrize("source, function, spec, cases", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_matches_gcc(source: str, function: str, spec: str, cases: list[dict[str, int]]):
    module = transformed(source, spec)
    # (tiles of sizes compiled in, all whole, are filled unversioned: they keep their copy)
    assert any(isinstance(op, AsyncCopyOp) for op in module.walk()) or "sizes=" in spec
    program = emit_cuda(module)
    cpu = CpuProgram(program.source, program.launch, threads=1, thread_order="random")
    agree_with_gcc(cpu, source, function, cases)


@pytest.mark.parametrize("case", CASES[:3], ids=[c[0] for c in CASES[:3]])
def test_never_reads_past_an_array(case: tuple[str, str, str, str, list[dict[str, int]]]):
    _, source, function, spec, cases = case
    run_guarded({"source": source, "function": function, "pipeline": spec, "cases": cases})


def test_whole_tiles_are_copied_asynchronously_and_waited_for_before_the_barrier():
    """matmul.c, 128x128x16: each thread's 8 + 8 elements of the next B and C tiles are one
    `cp.async` each, issued before the FMAs; no register is staged; the wait comes right
    before the loop's one barrier, the ragged copies (`if (!whole)`) before it."""
    spec = tiled("block_size=16 block_y=16", 8, 8, 16, f"min_blocks=2 {ASYNC}")
    module = transformed(COLUMN_MAJOR, spec)
    copies = [op for op in module.walk() if isinstance(op, AsyncCopyOp)]
    waits = [op for op in module.walk() if isinstance(op, AsyncWaitOp)]
    assert len(copies) == 16
    assert len(waits) == 1
    assert {copy.dst.name_hint for copy in copies} == {"B_sh", "C_sh"}
    source = emit_cuda(module).source
    assert "staged" not in source
    assert source.count("cp.async.ca.shared.global") == 16
    wait = source.index("cp.async.wait_all")
    assert source.index("__syncthreads();", wait) - wait < 80
    assert "staged" in emit_cuda(transformed(COLUMN_MAJOR, spec.replace(
        "async_copy=true", ""))).source


def test_nvcc_compiles():
    programs = [emit_cuda(transformed(source, spec)) for _, source, _, spec, _ in CASES]
    assert_compiles_with_nvcc(one_translation_unit(programs))


NO_GPU = cuda_exec.gpu_unavailable_reason()


@pytest.mark.skipif(NO_GPU is not None, reason=f"needs a CUDA GPU: {NO_GPU}")
@pytest.mark.parametrize("source, function, shape", [
    (COLUMN_MAJOR, "matmul", colmajor), (ROW_MAJOR, "gemm_nn", sizes),
    (TRANSPOSED, "gemm_tt", sizes)], ids=["column-major", "row-major", "transposed"])
def test_async_copies_128x128x16_on_the_gpu(source: str, function: str,
                                            shape: Callable[[int, int, int], dict[str, int]]):
    """128x128x16 tiles of 8x8 with cp.async copies and warp tiles on the GPU: 0, 1, 2 and
    many tiles along k, whole and ragged blocks, against gcc."""
    spec = tiled("block_size=16 block_y=16", 8, 8, 16,
                 f"min_blocks=2 {ASYNC} swizzle=true warp_x=4")
    program = emit_cuda(transformed(source, spec))
    # no FMA contraction, as gcc's build: the outputs are then the same bit for bit
    gpu_program = cuda_exec.CudaProgram(program.source, program.launch, fmad=False)
    agree_with_gcc(gpu_program, source, function,
                   [shape(*s) for s in ((256, 128, 32), (300, 257, 33), (129, 130, 16),
                                        (128, 128, 0), (200, 64, 1), (130, 300, 517))])
