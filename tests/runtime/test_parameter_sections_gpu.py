"""Parameter-length array sections (`reduction(+: h[0:K])`) on the GPU: the dynamic shared
copy where K fits (the launch's dynamic shared bytes), global atomics where it does not, both
against gcc; skipped without a GPU (tests/passes/test_reduction_matrix.py runs them on the CPU
emulation)."""

from __future__ import annotations

import numpy as np
import pytest

import autogpu
from autogpu.runtime import cuda_exec
from autogpu.testing.gcc_reference import compile_c_reference

NO_GPU = cuda_exec.gpu_unavailable_reason()
needs_gpu = pytest.mark.skipif(NO_GPU is not None, reason=f"needs a CUDA GPU: {NO_GPU}")

HISTOGRAM = """
void hist(int n, int K, const int *x, const double *w, double *h) {
#pragma omp parallel for reduction(+: h[0:K])
  for (int i = 0; i < n; i++)
    h[(unsigned)x[i] % (unsigned)K] += w[i];
}
"""


@needs_gpu
@pytest.mark.parametrize("pipeline", ["autogpu-vanilla", "autogpu-optimize{unroll_x=4}",
                                      "autogpu-vanilla{array_reduction=partials}"])
@pytest.mark.parametrize("k", [1, 7, 4096, 4097, 100_000])
def test_parameter_length_histogram_on_the_gpu(pipeline: str, k: int):
    rng = np.random.default_rng(k)
    n = 1_000_003
    x = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    w = rng.integers(0, 5, n).astype(np.float64)  # exact sums in every order
    h = rng.integers(0, 9, k).astype(np.float64)
    expected = h.copy()
    compile_c_reference(HISTOGRAM, "hist")(n, k, x, w, expected)
    kernel = autogpu.compile(HISTOGRAM, pipeline=pipeline)
    kernel(n, k, x, w, h, backend="cuda")
    np.testing.assert_array_equal(h, expected)
