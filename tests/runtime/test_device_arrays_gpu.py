"""CuPy arrays and PyTorch CUDA tensors as kernel arguments on the GPU: used in place (no host
copy), on the caller's stream, with the map clauses' semantics for NumPy arrays. Skipped
without a GPU, pycuda, or the library."""

from __future__ import annotations

import numpy as np
import pytest

import autogpu
from autogpu.runtime import cuda_exec

pytestmark = pytest.mark.skipif(cuda_exec.gpu_unavailable_reason() is not None,
                                reason="needs a CUDA GPU and pycuda")

N = 100_003


@pytest.fixture(scope="module")
def saxpy():
    return autogpu.compile("examples/saxpy.c")


@pytest.fixture
def no_host_copies(monkeypatch):
    """Any host<->device copy through the executor fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("a host copy was made")
    monkeypatch.setattr(cuda_exec.DeviceMemory, "upload", refuse)
    monkeypatch.setattr(cuda_exec.DeviceMemory, "download", refuse)


def expected(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.float32(2.5) * x + y


def test_cupy_arrays_in_place_on_a_non_default_stream(saxpy, no_host_copies):
    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng(0)
    x, y = rng.random(N, np.float32), rng.random(N, np.float32)
    with cp.cuda.Stream(non_blocking=True):
        dx, dy = cp.asarray(x), cp.asarray(y)
        dy *= 2  # pending on this stream when the kernel is launched
        saxpy(N, 2.5, dx, dy, backend="cuda")
        np.testing.assert_allclose(cp.asnumpy(dy), expected(x, 2 * y), rtol=1e-6)


def test_torch_cuda_tensors_in_place_on_a_side_stream(saxpy, no_host_copies):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    x, y = rng.random(N, np.float32), rng.random(N, np.float32)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        tx, ty = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
        ty.mul_(2)
        saxpy(N, 2.5, tx, ty, backend="cuda")
        np.testing.assert_allclose(ty.cpu().numpy(), expected(x, 2 * y), rtol=1e-6)


def test_wrong_device_arrays_are_refused_by_name(saxpy):
    cp = pytest.importorskip("cupy")
    from autogpu.runtime.arguments import KernelArgumentError

    with pytest.raises(KernelArgumentError, match=r"argument 'y' of saxpy.. expects a float32"):
        saxpy(10, 1.0, cp.ones(10, cp.float32), cp.ones(10, cp.float64), backend="cuda")
    with pytest.raises(KernelArgumentError, match=r"argument 'y' of saxpy.. is not C-contiguous"):
        saxpy(10, 1.0, cp.ones(10, cp.float32), cp.ones(20, cp.float32)[::2], backend="cuda")


def test_timing_on_device_arrays_makes_no_copies(saxpy):
    cp = pytest.importorskip("cupy")
    x, y = cp.ones(N, cp.float32), cp.ones(N, cp.float32)
    timing = saxpy.program("cuda").time("saxpy", (N, 2.0, x, y), repetitions=3, warmup=1)
    assert timing.with_copies_s is None
    assert timing.kernel_s > 0
    assert float(y[0]) == 3.0  # one run's result, as with NumPy arrays


MAPPED = """
void mapped(int n, const float *a, float *b, float *c) {
#pragma omp target teams distribute parallel for map(to: a[0:n], c[0:n]) map(from: b[0:n])
  for (int i = 0; i < n; i++) { b[i] = a[i] + c[i]; c[i] = -1; }
}
"""


def test_maps_on_the_gpu_with_numpy_arrays():
    kernel = autogpu.compile(MAPPED, warn=lambda w: None)
    a, b, c = np.ones(N, np.float32), np.full(N, 7, np.float32), np.full(N, 2, np.float32)
    kernel(N, a, b, c, backend="cuda")
    assert np.all(b == 3)
    assert np.all(c == 2)


def test_the_tuner_takes_device_arrays_as_inputs():
    cp = pytest.importorskip("cupy")
    from autogpu.tuner.options import TuneOptions
    from autogpu.tuner.prepared import prepare

    x = cp.arange(100, dtype=cp.float32)
    prepared = prepare(TuneOptions(kernel="examples/saxpy.c", sizes={"n": 100}, backend="cpu",
                                   inputs={"x": x}, cache="none"))
    np.testing.assert_array_equal(prepared.args[2], np.arange(100, dtype=np.float32))


class InterfaceOnly:
    """A producer with only the CUDA array interface (v3, with its stream), as Numba's."""

    def __init__(self, array):
        self.array = array  # keeps the memory alive
        self.__cuda_array_interface__ = array.__cuda_array_interface__


def test_cuda_array_interface_objects_are_ordered_after_their_stream(saxpy, no_host_copies):
    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng(2)
    x, y = rng.random(N, np.float32), rng.random(N, np.float32)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        dx, dy = cp.asarray(x), cp.asarray(y)
        for _ in range(20):  # long pending work on the producer's stream
            dy *= 1.0
        dy += 1
        wrapped = InterfaceOnly(dy)
        assert wrapped.__cuda_array_interface__["stream"] == stream.ptr
        saxpy(N, 2.5, InterfaceOnly(dx), wrapped, backend="cuda")
        np.testing.assert_allclose(cp.asnumpy(dy), expected(x, y + 1), rtol=1e-6)
