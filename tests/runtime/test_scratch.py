"""Scratch buffers of a call (the launch description's `scratch`): each executor allocates them
zero-filled when the call starts, passes them to the launches that name them, and frees them
when the call ends. The kernels here are the two passes of a reduction into per-block partials:
every block sums its rows of a matrix into its own row of the scratch, and a second launch
combines the rows in block order, so that a float result is the same bit for bit whatever
order the blocks of the first launch run in."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_fixtures import array, function, launch, scalar

from autogpu.runtime import cuda_exec
from autogpu.runtime.arguments import (
    KernelLaunchError,
    LaunchDescriptionError,
    parse_launch_description,
)
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.tuner.adapter import Artifact
from autogpu.tuner.host_program import launcher

NO_GPU = cuda_exec.gpu_unavailable_reason()
needs_gpu = pytest.mark.skipif(NO_GPU is not None, reason=f"needs a CUDA GPU: {NO_GPU}")

SOURCE = r"""
// autogpu-launch: (hand-written test kernels)
#include <cuda_runtime.h>

// rows i of x (n x k) with i % gridDim.x == blockIdx.x, summed into partials[blockIdx.x][.];
// the row is zero when the call starts, so the block adds to it
extern "C" __global__ void rows_kernel(int n, int k, const float *x, float *partials) {
  for (int j = threadIdx.x; j < k; j += blockDim.x)
    for (int i = blockIdx.x; i < n; i += gridDim.x)
      partials[(long long)blockIdx.x * k + j] += x[(long long)i * k + j];
}

// h[j] += partials[0][j] + partials[1][j] + ..., in block order
extern "C" __global__ void combine_kernel(int k, int blocks, const float *partials, float *h) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= k) return;
  float total = h[j];
  for (int b = 0; b < blocks; b++) total += partials[(long long)b * k + j];
  h[j] = total;
}
"""

BLOCKS = 7


def _description(elements: str = f"{BLOCKS} * k") -> dict[str, object]:
    params = [scalar("n", "int32"), scalar("k", "int32"), array("x", "float32", const=True),
              array("h", "float32"), scalar("blocks", "int32")]
    rows = launch("rows_kernel", [str(BLOCKS), "1", "1"], ["32", "1", "1"],
                  ["n", "k", "x", "agpu_scratch0"])
    combine = launch("combine_kernel", ["max((k + 63) / 64, 1)", "1", "1"], ["64", "1", "1"],
                     ["k", "blocks", "agpu_scratch0", "h"])
    entry = function("colsum", params, rows, combine)
    entry["scratch"] = [{"name": "agpu_scratch0", "dtype": "float32", "elements": elements}]
    return {"functions": [entry]}


def _expected(x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """The kernels' order of float additions: rows by block, blocks in order."""
    partials = np.zeros((BLOCKS, x.shape[1]), np.float32)
    for i in range(x.shape[0]):
        partials[i % BLOCKS] += x[i]
    total = h.copy()
    for b in range(BLOCKS):
        total += partials[b]
    return total


@pytest.mark.parametrize(("n", "k"), [(0, 5), (1, 1), (50, 0), (100, 33), (61, 300)])
def test_scratch_starts_zeroed_in_every_call_and_is_bitwise_the_same_in_any_block_order(
    n: int, k: int
):
    rng = np.random.default_rng(n * 1000 + k)
    x = rng.standard_normal((n, k)).astype(np.float32) * 1e3
    start = rng.standard_normal(k).astype(np.float32)
    expected = _expected(x, start)
    for order, seed in (("forward", 0), ("reverse", 0), ("random", 1), ("random", 2)):
        program = CpuProgram(SOURCE, _description(), thread_order=order, seed=seed)
        for _ in range(2):  # the second call gets a fresh, zeroed scratch
            h = start.copy()
            program.run("colsum", n, k, x, h, BLOCKS)
            assert h.tobytes() == expected.tobytes(), (order, seed)


def test_a_negative_scratch_size_is_a_launch_error():
    program = CpuProgram(SOURCE, _description("k - 10"))
    h = np.zeros(3, np.float32)
    with pytest.raises(KernelLaunchError, match=r"scratch 'agpu_scratch0' of 'colsum': "
                       r"k - 10 is -7 elements"):  # fmt: skip
        program.run("colsum", 0, 3, np.zeros((0, 3), np.float32), h, BLOCKS)


@pytest.mark.parametrize(("scratch", "message"), [
    ({"name": "k", "dtype": "float32", "elements": "1"}, "is named 'k', as another argument"),
    ({"name": "s", "dtype": "float32"}, "has no 'elements'"),
    ({"name": "s", "dtype": "nonsense", "elements": "1"}, "has an unknown dtype"),
])  # fmt: skip
def test_bad_scratch_entries_are_description_errors(scratch: dict[str, str], message: str):
    description = _description()
    description["functions"][0]["scratch"] = [scratch]  # pyright: ignore[reportIndexIssue] (JSON)
    with pytest.raises(LaunchDescriptionError, match=message):
        parse_launch_description(description)


def test_the_tuners_launcher_allocates_zeroes_and_frees_the_scratch():
    text = launcher(Artifact(SOURCE, _description(), "colsum"), {})
    allocate = text.index("cudaMalloc((void **)&agpu_scratch0")
    zero = text.index("cudaMemset(agpu_scratch0, 0, (size_t)(7 * (long long)k) * sizeof(float))")
    first = text.index("rows_kernel<<<")
    second = text.index("combine_kernel<<<")
    free = text.index("cudaFree(agpu_scratch0);")
    assert allocate < zero < first < second < free


@needs_gpu
def test_scratch_on_the_gpu():
    program = cuda_exec.CudaProgram(SOURCE, _description())
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1000, 257)).astype(np.float32)
    start = rng.standard_normal(257).astype(np.float32)
    h = start.copy()
    for _ in range(2):
        h[:] = start
        program.run("colsum", 1000, 257, x, h, BLOCKS)
        assert h.tobytes() == _expected(x, start).tobytes()
    h[:] = start  # every timed run starts from it, and so does the run left in h
    timing = program.time("colsum", (1000, 257, x, h, BLOCKS), repetitions=3, warmup=1)
    assert timing.kernel_s > 0
    assert h.tobytes() == _expected(x, start).tobytes()  # scratch zeroed before every run
