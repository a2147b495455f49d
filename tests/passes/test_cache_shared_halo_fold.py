"""gpu-cache-shared's halo tiles with blocked register tiles (issue #14, convolutions through
autogpu-tiled): a thread's tm replicas `tx * tm + r` and the window `u` overlap the next
thread's, so the threads' dimension (stride tm) folds into the window's (stride 1) and the
block loads its image tile plus halo once, (BM + t - 1) x (BN + t - 1) elements, instead of
a halo per thread. Differential tests against gcc's serial C on the CPU emulation (random
block and thread order, sizes that divide nothing, windows shorter than the bound)."""

from __future__ import annotations

import pytest
from lowered_differential import agree_with_gcc
from paths import ROOT
from test_gpu_cache_shared_block_tiles import shared_arrays, transformed

from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.target.cuda_target import emit_cuda

CONV2D = (ROOT / "examples" / "conv2d.c").read_text()


def conv_sizes(n: int, m: int, t: int) -> dict[str, int]:
    return {"n": n, "m": m, "t": t, "out": max(n * m, 1), "in": (n + t - 1) * (m + t - 1),
            "tmpl": max(t * t, 1)}


def test_the_threads_windows_fold_into_one_halo_tile(capfd: pytest.CaptureFixture[str]):
    module = transformed(CONV2D, "autogpu-tiled{block_size=4 block_y=4 tm=2 tn=3 "
                                 "cache_max_extent=5 cache_remarks=true}")
    assert "'in' cached (halo) in __shared__ in_sh[192] (extents 12x16" in capfd.readouterr().err
    assert shared_arrays(module)["in_sh"] == (192,)  # (4*2 + 5 - 1) x (4*3 + 5 - 1), not 6*4 x 7*4


def test_folded_halo_tiles_match_gcc():
    spec = "autogpu-tiled{block_size=4 block_y=4 tm=2 tn=3 cache_max_extent=5}"
    program = emit_cuda(transformed(CONV2D, spec))
    cpu = CpuProgram(program.source, program.launch, threads=1, thread_order="random")
    agree_with_gcc(cpu, CONV2D, "conv2d", [conv_sizes(*s) for s in (
        (17, 13, 5), (8, 12, 3), (1, 1, 1), (9, 25, 4), (30, 7, 2), (0, 3, 5))])


def test_folded_halo_tiles_with_the_sizes_compiled_in_match_gcc():
    spec = 'autogpu-tiled{block_size=4 block_y=4 tm=2 tn=3 sizes="n=19,m=26,t=3"}'
    program = emit_cuda(transformed(CONV2D, spec))
    assert "in_sh" in program.source
    cpu = CpuProgram(program.source, program.launch, threads=1, thread_order="random")
    agree_with_gcc(cpu, CONV2D, "conv2d", [conv_sizes(19, 26, 3)])
