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


@pytest.fixture
def no_host_wait(monkeypatch):
    """The executor waiting on the host for its kernels fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("the host waited for the kernels")
    monkeypatch.setattr(cuda_exec.CudaProgram, "_synchronize", staticmethod(refuse))


def test_cupy_launches_are_ordered_on_the_callers_stream(saxpy, no_host_copies, no_host_wait):
    """Work queued before and after the call on a non-blocking CuPy stream sees the kernel in
    between, and `run` returns without waiting for it."""
    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng(3)
    x, y = rng.random(N, np.float32), rng.random(N, np.float32)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        dx, dy = cp.asarray(x), cp.asarray(y)
        for _ in range(20):  # long pending work before the launch
            dy *= 1.0
        dy += 1
        saxpy(N, 2.5, dx, dy, backend="cuda")
        dy *= 3  # queued after it, with no synchronisation in between
        out = cp.empty_like(dy)
        out[...] = dy
    stream.synchronize()
    np.testing.assert_allclose(cp.asnumpy(out), 3 * expected(x, y + 1), rtol=1e-6)


def test_torch_launches_on_an_explicit_stream(saxpy, no_host_copies, no_host_wait):
    """`stream=` names the caller's stream when it is not the current one."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    x, y = rng.random(N, np.float32), rng.random(N, np.float32)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        tx, ty = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
        for _ in range(20):
            ty.mul_(1.0)
        ty.add_(1)
    saxpy(N, 2.5, tx, ty, backend="cuda", stream=side)
    with torch.cuda.stream(side):
        ty.mul_(3)
    side.synchronize()
    np.testing.assert_allclose(ty.cpu().numpy(), 3 * expected(x, y + 1), rtol=1e-6)


TABLES = """
static const float TAPS[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
void taps(int n, const float *x, float *y) {
#pragma omp parallel for
  for (int i = 2; i < n - 2; i++) {
    float s = 0.0f;
    for (int k = 0; k < 5; k++) s += TAPS[k] * x[i + k - 2];
    y[i] = s;
  }
}
"""


def test_constant_memory_tables_on_the_gpu():
    kernel = autogpu.compile(TABLES)
    assert "__constant__ float taps_TAPS[5]" in kernel.cuda_source
    x = np.random.default_rng(5).random(N, np.float32)
    y = np.zeros(N, np.float32)
    kernel(N, x, y, backend="cuda")
    taps = np.array([0.0625, 0.25, 0.375, 0.25, 0.0625], np.float32)
    np.testing.assert_allclose(y[2:-2], np.convolve(x, taps, "valid"), rtol=1e-5)


SPIN = """
__global__ void spin(volatile int *flag) { while (*flag == 0) { __nanosleep(1000); } }
"""


def test_torch_launches_go_to_the_side_stream_not_the_legacy_one(saxpy, no_host_copies,
                                                                 no_host_wait):
    """With the legacy default stream held by a spinning kernel, the call on a non-blocking
    torch side stream still runs, between the work queued before and after it (no
    synchronisation in between); the old launches on the legacy stream would wait forever."""
    torch = pytest.importorskip("torch")
    import time

    from pycuda.compiler import SourceModule  # pyright: ignore[reportMissingImports]  # GPU hosts only

    rng = np.random.default_rng(6)
    x, y = rng.random(N, np.float32), rng.random(N, np.float32)
    side = torch.cuda.Stream()  # PyTorch's pool streams do not wait for the legacy stream
    with torch.cuda.stream(side):
        tx, ty = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
    side.synchronize()
    flag = torch.zeros(1, dtype=torch.int32).pin_memory()  # mapped: the pointer is the device's
    with cuda_exec._on_device(0):
        spin = SourceModule(SPIN).get_function("spin")
        spin(np.intp(flag.data_ptr()), block=(1, 1, 1), grid=(1, 1))  # the legacy stream
    try:
        with torch.cuda.stream(side):
            ty.add_(1)
            saxpy(N, 2.5, tx, ty, backend="cuda")
            ty.mul_(3)
            done = torch.cuda.Event()
            done.record()
        deadline = time.monotonic() + 10
        while not done.query() and time.monotonic() < deadline:
            time.sleep(0.01)
        finished, legacy_held = done.query(), not torch.cuda.default_stream().query()
    finally:
        flag[0] = 1
        torch.cuda.synchronize()
    assert legacy_held, "the spinning kernel should hold the legacy stream meanwhile"
    assert finished, "the call waited for the legacy default stream"
    np.testing.assert_allclose(ty.cpu().numpy(), 3 * expected(x, y + 1), rtol=1e-6)


def test_numpy_and_torch_arrays_together_on_a_side_stream():
    """A NumPy input is copied on the legacy stream; the launch on the caller's non-blocking
    stream waits for that copy, and the call waits for the launch before it returns."""
    torch = pytest.importorskip("torch")
    kernel = autogpu.compile("examples/saxpy.c")
    rng = np.random.default_rng(7)
    x, y = rng.random(N, np.float32), rng.random(N, np.float32)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        ty = torch.from_numpy(y).cuda()
        ty.add_(1)
        kernel(N, 2.5, x, ty, backend="cuda")
        out = ty * 2
    side.synchronize()
    np.testing.assert_allclose(out.cpu().numpy(), 2 * expected(x, y + 1), rtol=1e-6)
