"""Double-buffered shared tiles (`gpu-pipeline-tiles{stages=2}`, issue #14): differential tests
against gcc's build of the serial C on the CPU emulation (threads in random order, blocks
shuffled) for row-major, column-major, transposed, double and int products at sizes that divide
nothing: trip counts of 0, 1, 2 and more tiles, ragged last tiles, ragged edge blocks; arrays
ending at an unreadable page; one barrier per tile; nvcc compiles every kernel."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeGuard

import pytest
from guard_page_emulation import run_guarded
from lowered_differential import agree_with_gcc, one_translation_unit
from test_gemm_fragments import ODD, layout_cases, tiled
from test_gpu_cache_shared_block_tiles import (
    COLUMN_MAJOR,
    DOUBLE,
    ROW_MAJOR,
    TRANSPOSED,
    colmajor,
    sizes,
    transformed,
)
from xdsl.dialects import gpu, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from autogpu.context import make_context
from autogpu.passes.gpu_pipeline_tiles import GpuPipelineTilesPass
from autogpu.runtime import cuda_exec
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.target.cuda_target import emit_cuda
from autogpu.testing.nvcc import assert_compiles_with_nvcc

STAGES = "stages=2"

CASES = [
    # (id, source, function, pipeline, sizes)
    *layout_cases(STAGES),
    ("guarded-copies", COLUMN_MAJOR, "matmul", tiled(more=f"{STAGES} cache_full_tiles=false"),
     [colmajor(*s) for s in ODD]),
    ("cyclic-scalar", ROW_MAJOR, "gemm_nn",
     tiled(more=STAGES).replace("blocked", "cyclic").replace("vector_width=4", "vector_width=0")
     .replace("cache_copy_width=4", "cache_copy_width=1"), [sizes(*s) for s in ODD]),
    ("swizzled", COLUMN_MAJOR, "matmul", tiled(more=f"{STAGES} swizzle=true"),
     [colmajor(*s) for s in ODD]),
    ("swizzled-double", DOUBLE, "dgemm_nt", tiled(tm=2, tn=4, more=f"{STAGES} swizzle=true"),
     [sizes(*s) for s in ODD]),
    ("specialised", COLUMN_MAJOR, "matmul",
     tiled(more=f'{STAGES} sizes="m=32,n=48,p=48"'), [colmajor(32, 48, 48)]),
]  # fmt: skip


def synchronising(op: Operation) -> TypeGuard[scf.ForOp]:
    return isinstance(op, scf.ForOp) and any(isinstance(inner, gpu.BarrierOp)
                                             for inner in op.body.block.ops)


def tile_loops(module: ModuleOp) -> list[scf.ForOp]:
    """The innermost loops whose body holds a barrier: the loops over tiles (the prologue's
    barrier sits in the loop around them)."""
    return [op for op in module.walk() if synchronising(op)
            and not any(synchronising(inner) for inner in op.walk() if inner is not op)]


@pytest.mark.parametrize("source, function, spec, cases", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_matches_gcc(source: str, function: str, spec: str, cases: list[dict[str, int]]):
    program = emit_cuda(transformed(source, spec))
    cpu = CpuProgram(program.source, program.launch, threads=1, thread_order="random")
    agree_with_gcc(cpu, source, function, cases)


LOOPED = [case for case in CASES if case[0] != "specialised"]
"""Cases with a loop over tiles (sizes compiled in unroll it completely)."""


@pytest.mark.parametrize("case", LOOPED, ids=[c[0] for c in LOOPED])
def test_one_barrier_per_tile(case: tuple[str, str, str, str, list[dict[str, int]]]):
    """Every loop over tiles ends in its only barrier (two before)."""
    _, source, _, spec, _ = case
    single = tile_loops(transformed(source, spec.replace(STAGES, "stages=1")))
    double = tile_loops(transformed(source, spec))
    assert single
    assert len(single) == len(double)
    for loop in single:
        assert sum(isinstance(op, gpu.BarrierOp) for op in loop.body.block.ops) == 2
    for loop in double:
        ops = list(loop.body.block.ops)
        assert sum(isinstance(op, gpu.BarrierOp) for op in ops) == 1
        assert isinstance(ops[-2], gpu.BarrierOp)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_never_reads_past_an_array(case: tuple[str, str, str, str, list[dict[str, int]]]):
    """The next tile's loads are guarded as the copy's were: with each array ending at an
    unreadable page, ragged sizes still match gcc."""
    _, source, function, spec, cases = case
    run_guarded({"source": source, "function": function, "pipeline": spec, "cases": cases})


def test_column_major_tiles_are_doubled_and_loads_issued_before_the_compute():
    """matmul.c with 128x128x16 tiles: both shared arrays hold two buffers (B's 2048 floats
    and C's padded 2108, rounded to 2108: a multiple of 4), the next tile's B and C loads are
    issued into registers before the FMAs of the current one, and stored after them."""
    spec = tiled("block_size=16 block_y=16", 8, 8, 16, f"min_blocks=2 {STAGES}")
    source = emit_cuda(transformed(COLUMN_MAJOR, spec)).source
    assert "__shared__ __align__(16) float B_sh[4096];" in source
    assert "__shared__ __align__(16) float C_sh[4216];" in source
    loop = source[source.index("for (long long k_tile"):]
    first_load = re.search(r"= [BC]\[", loop)
    first_fma = re.search(r"A_acc\w* \+ \w+(\.\w)? \* ", loop)
    stored = re.search(r"\*reinterpret_cast<float4 \*>\(&B_sh\[", loop)
    assert first_load
    assert first_fma
    assert stored
    assert first_load.start() < first_fma.start() < stored.start()


def test_beyond_the_shared_budget_tiles_stay_single():
    """The pass on a finished single-buffered 128x128x16 kernel (16.6 KB of tiles): within
    48 KiB it doubles them, within 32 KiB it leaves the kernel as it was."""
    spec = tiled("block_size=16 block_y=16", 8, 8, 16, "min_blocks=2")
    for budget, changes in ((32 * 1024, False), (48 * 1024, True)):
        module = transformed(COLUMN_MAJOR, spec)
        before = str(module)
        GpuPipelineTilesPass(stages=2, shared_budget=budget).apply(make_context(), module)
        module.verify()
        assert (str(module) != before) == changes, budget


def swizzled_tiles(spec: str, source: str = COLUMN_MAJOR) -> str:
    return emit_cuda(transformed(source, spec)).source


def test_swizzle_permutes_the_unpadded_tile_only():
    """matmul.c's B tile (2048 floats, read as float4 fragments 32 bytes apart) is swizzled,
    at every access (float4 copies, ragged copies, fragment reads); the padded transposed C
    tile (2108 floats) is not; with one buffer the swizzle works alone. The fragment reads at
    `v0 + 4 + k * 128` share the swizzle of `v0 + 4` for every k. (The texts checked are
    those of 64-bit index arithmetic: narrow_indices=false.)"""
    for stages in (1, 2):
        spec = tiled("block_size=16 block_y=16", 8, 8, 16,
                     f"stages={stages} swizzle=true narrow_indices=false")
        source = swizzled_tiles(spec)
        b_accesses = re.findall(r"B_sh\[([^\]]*)\]", source)
        assert len(b_accesses) > 8
        for index in b_accesses[1:]:  # [0]: the declaration
            # the fragment reads swizzle their offset once (f + 4 + k * 128: f + 4)
            assert "& 32) / 8ULL" in index or index.startswith("swizzled"), index
        assert "(v0 & 32) / 8ULL" in source
        assert not any("^" in index for index in re.findall(r"C_sh\[([^\]]*)\]", source))


def test_swizzle_is_autogpu_tiled_s_default_and_can_be_turned_off():
    spec = tiled("block_size=16 block_y=16", 8, 8, 16, f"{STAGES} narrow_indices=false")
    assert "(v0 & 32) / 8ULL" in swizzled_tiles(spec)
    assert "^" not in swizzled_tiles(spec.replace(STAGES, f"{STAGES} swizzle=false"))
    assert "^" in swizzled_tiles(tiled("block_size=16 block_y=16", 8, 8, 16, STAGES))


def test_nvcc_compiles():
    programs = [emit_cuda(transformed(source, spec)) for _, source, _, spec, _ in CASES]
    assert_compiles_with_nvcc(one_translation_unit(programs))


NO_GPU = cuda_exec.gpu_unavailable_reason()


@pytest.mark.skipif(NO_GPU is not None, reason=f"needs a CUDA GPU: {NO_GPU}")
@pytest.mark.parametrize("source, function, shape", [
    (COLUMN_MAJOR, "matmul", colmajor), (ROW_MAJOR, "gemm_nn", sizes),
    (TRANSPOSED, "gemm_tt", sizes)], ids=["column-major", "row-major", "transposed"])
def test_double_buffered_128x128x16_on_the_gpu(source: str, function: str,
                                               shape: Callable[[int, int, int], dict[str, int]]):
    """autogpu-tiled's 128x128x16 tiles of 8x8, double-buffered, on the GPU: 0, 1, 2 and
    many tiles along k, whole and ragged blocks, against gcc."""
    spec = tiled("block_size=16 block_y=16", 8, 8, 16, f"min_blocks=2 {STAGES}")
    program = emit_cuda(transformed(source, spec))
    # no FMA contraction, as gcc's build: the outputs are then the same bit for bit
    gpu_program = cuda_exec.CudaProgram(program.source, program.launch, fmad=False)
    agree_with_gcc(gpu_program, source, function,
                   [shape(*s) for s in ((256, 128, 32), (300, 257, 33), (129, 130, 16),
                                        (128, 128, 0), (200, 64, 1), (130, 300, 517))])


def test_the_tuner_never_doubles_tiles_past_static_shared_memory():
    """With DGEMM's 8-byte elements (the widest array element of the function, which the
    tuner puts in its environment), 128x64x16 tiles (24.7 KB) stay single-buffered in the
    space, while their bk 8 half is doubled; SGEMM's 128x128x16 tiles are doubled."""
    from autogpu.tuner import adapter
    from autogpu.tuner.space import build_space, widest_element

    params = adapter.kernel_signature(adapter.c_function(DOUBLE, "<test>", "dgemm_nt"))
    assert widest_element(params) == 8
    name = "autogpu-tiled"
    fixed = f"{name}{{block_size=32 block_y=8 tm=4 tn=8 cache_pad=4}}"

    def stages(element_bytes: int, bk: int) -> set[int]:
        space = build_space(adapter.parse_pipeline_spec(fixed),
                            {name: adapter.pass_options(name)},
                            {"element_bytes": element_bytes},
                            pass_restrictions={name: adapter.pass_restrictions(name)},
                            parallel_dims=2)
        return {c["stages"] for c in space.enumerate() if c["bk"] == bk}

    assert stages(8, 16) == {1}
    assert stages(8, 8) == {1, 2}
    assert stages(4, 16) == {1, 2}
