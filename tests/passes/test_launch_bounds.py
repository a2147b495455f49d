"""OpenMP's `thread_limit(N)` and `num_teams(N)` bound the launch of the loop's kernel in every
pipeline, not only in the tuner (passes/convert_agpu_to_gpu/launch_bounds.py, coverage.py):
blocks larger than `thread_limit` are never generated (a remark says so when the block options
asked for more), grids of more than `num_teams` blocks never launched (the threads loop over
the rest, grid-stride), and the bounded launch computes what gcc's serial build does (CPU
emulation), with reductions, array reductions, unrolled threads and shared-memory tiles."""

from __future__ import annotations

import math

import pytest
from lowered_differential import check_against_gcc, close_sums, cuda_of

import autogpu
from autogpu.passes.convert_agpu_to_gpu.kernel_builder import BlockShape
from autogpu.passes.convert_agpu_to_gpu.launch_bounds import within

SOURCE = """
void k(int n, int m, const float *x, float *y, float *A, float *B, float *C, float *out) {
  float s = 0;
#pragma omp target teams distribute parallel for reduction(+: s) thread_limit(48) num_teams(3)
  for (int i = 0; i < n; i++)
    s += x[i];
  out[0] = s;
#pragma omp target teams distribute parallel for collapse(2) thread_limit(100) num_teams(2)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      y[i * m + j] = x[i] * 2 + j;
#pragma omp target teams thread_limit(16) num_teams(5)
#pragma omp distribute parallel for collapse(2)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      float acc = 0;
      for (int l = 0; l < m; l++)
        acc += A[i * m + l] * B[l * m + j];
      C[i * m + j] = acc;
    }
}

void histogram(int n, const int *x, int *h) {
#pragma omp target teams distribute parallel for reduction(+: h[0:8]) num_teams(2)
  for (int i = 0; i < n; i++)
    h[x[i] & 7] += 1;
}
"""
LIMITS = [48, 100, 16]
TEAMS = [3, 2, 5]
PIPELINES = [
    "autogpu-vanilla",
    "autogpu-optimize{block_size=64 block_y=4 unroll_x=2}",
    "autogpu-tiled{block_size=8 block_y=8 tm=2 tn=2 bk=4}",
]


def blocks(pipeline: str) -> list[list[int]]:
    launch = cuda_of(SOURCE, pipeline).launch
    function = next(f for f in launch["functions"] if f["name"] == "k")
    return [[int(v) for v in entry["block"]] for entry in function["launches"]
            if entry["block"] != ["1", "1", "1"]]  # fmt: skip


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_no_grid_exceeds_num_teams(pipeline: str):
    kernel = autogpu.compile(SOURCE, function="k", pipeline=pipeline)
    grids = [math.prod(launch["grid"]) for launch in kernel.launch_config(n=100000, m=300)
             if list(launch["block"]) != [1, 1, 1]]  # fmt: skip
    assert len(grids) == len(TEAMS), grids
    assert all(g <= t for g, t in zip(grids, TEAMS)), grids


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_no_block_exceeds_thread_limit(pipeline: str):
    threads = [math.prod(block) for block in blocks(pipeline)]
    assert len(threads) == len(LIMITS), threads
    assert all(t <= n for t, n in zip(threads, LIMITS)), threads


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_bounded_blocks_match_gcc(pipeline: str):
    cases = [{"n": n, "m": m, "x": n, "y": n * m, "A": n * m, "B": m * m, "C": n * m,
              "out": 1} for n, m in ((1, 1), (67, 5), (130, 9))]  # fmt: skip
    check_against_gcc(SOURCE, "k", pipeline, cases, compare=close_sums, seeds=1)
    check_against_gcc(SOURCE, "histogram", pipeline, [{"n": n, "x": n, "h": 8}
                                                     for n in (0, 1, 1000)], seeds=1)


def test_explicit_block_options_beyond_the_limit_get_a_remark(capfd: pytest.CaptureFixture[str]):
    _ = autogpu.compile(SOURCE, "autogpu-vanilla", "k", block_size=128).cuda_source
    remarks = capfd.readouterr().err
    assert ("remark: the block options ask for 128x1x1 = 128 threads, but this loop's "
            "'thread_limit(100)' allows at most 100: its kernel runs blocks of 100x1x1") in remarks
    assert remarks.count("remark:") == 3
    _ = autogpu.compile(SOURCE, "autogpu-vanilla", "k").cuda_source  # the defaults: no remark
    assert "remark" not in capfd.readouterr().err


def test_shapes_shrink_z_then_y_then_x():
    assert within(BlockShape(32, 8, 2), 100) == BlockShape(32, 3, 1)
    assert within(BlockShape(256, 4, 1), 100) == BlockShape(100, 1, 1)
    assert within(BlockShape(16, 4, 4), 1024) == BlockShape(16, 4, 4)
    assert within(BlockShape(8, 8, 8), 7) == BlockShape(7, 1, 1)
