"""The pycuda executor: the same kernels and launch descriptions as the CPU emulation's tests,
compared with NumPy and, built with --fmad=false, bitwise with the CPU emulation. Tests that need
a GPU skip, saying why, where pycuda or a CUDA device is missing."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from importlib.util import find_spec
from typing import Any

import numpy as np
import pytest
from kernel_fixtures import LAUNCH, SOURCE, array, function, launch, scalar

from autogpu.runtime import cuda_exec
from autogpu.runtime.arguments import (
    KernelArgumentError,
    KernelCompileError,
    KernelLaunchError,
    LaunchDescriptionError,
    parse_launch_description,
)
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.testing.nvcc import assert_compiles_with_nvcc

NO_GPU = cuda_exec.gpu_unavailable_reason()
needs_gpu = pytest.mark.skipif(NO_GPU is not None, reason=f"needs a CUDA GPU: {NO_GPU}")


# ---------------------------------------------------------------------------------------------
# Without a GPU
# ---------------------------------------------------------------------------------------------
def test_importing_the_executor_does_not_import_pycuda():
    code = "import sys, autogpu.runtime.cuda_exec; assert 'pycuda' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_without_pycuda_the_error_says_what_to_install():
    if find_spec("pycuda") is not None:
        pytest.skip("pycuda is installed here")
    with pytest.raises(cuda_exec.GpuUnavailableError, match=r"needs pycuda.*\[gpu\]"):
        cuda_exec.CudaProgram(SOURCE, LAUNCH)


def test_prepared_call_formats_follow_the_launch_description():
    functions = parse_launch_description(LAUNCH)
    saxpy = functions["saxpy"]
    assert cuda_exec.prepared_format(saxpy, saxpy.launches[0]) == "ifPP"
    reduce = functions["reduce"]
    assert [cuda_exec.prepared_format(reduce, e) for e in reduce.launches] == ["", "iPP", "PPPPPP"]
    fn = parse_launch_description({"functions": [function(
        "f", [scalar("a", "uint64"), scalar("b", "float64"), scalar("c", "uint32"),
              array("d", "int64")],
        launch("k", ["1"], ["1"], ["d", "c", "b", "a"]))]})["f"]
    assert cuda_exec.prepared_format(fn, fn.launches[0]) == "PIdQ"


def test_the_test_kernels_are_valid_cuda():
    """The shared test kernels compile with nvcc, so that the CPU tests test real CUDA."""
    assert_compiles_with_nvcc(SOURCE)
    assert_compiles_with_nvcc(EXTRA_SOURCE)


# ---------------------------------------------------------------------------------------------
# On the GPU
# ---------------------------------------------------------------------------------------------
RNG = np.random.default_rng(99)

EXTRA_SOURCE = r"""
extern "C" __global__ void __launch_bounds__(64) bounded_kernel(float* v) {
  v[threadIdx.x] = 1.0f;
}

// Uses `bytes` of dynamic shared memory (more than the default 48 KiB limit).
extern "C" __global__ void big_shared_kernel(int words, float* v) {
  extern __shared__ float buffer[];
  for (int i = threadIdx.x; i < words; i += blockDim.x) buffer[i] = (float)i;
  __syncthreads();
  float sum = 0.0f;
  for (int i = threadIdx.x; i < words; i += blockDim.x) sum += buffer[words - 1 - i];
  v[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
"""
EXTRA_LAUNCH = {"functions": [
    function("bounded", [scalar("threads", "int32"), array("v", "float32")],
             launch("bounded_kernel", ["1", "1", "1"], ["threads", "1", "1"], ["v"])),
    function("big_shared", [scalar("words", "int32"), array("v", "float32")],
             launch("big_shared_kernel", ["2", "1", "1"], ["128", "1", "1"], ["words", "v"],
                    shared="words * 4")),
]}


@pytest.fixture(scope="module")
def gpu():
    return cuda_exec.CudaProgram(SOURCE, LAUNCH)


@pytest.fixture(scope="module")
def exact():
    return cuda_exec.CudaProgram(SOURCE, LAUNCH, fmad=False)


@pytest.fixture(scope="module")
def cpu(tmp_path_factory):
    return CpuProgram(SOURCE, LAUNCH, cache=tmp_path_factory.mktemp("cache"))


def f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


# Inputs for the kernels whose results are deterministic (no races, no float atomics order).
INPUTS: dict[str, Callable[[], list[Any]]] = {
    "saxpy": lambda: [1000, 1.7, f32(1000), f32(1000)],
    "grid2d": lambda: [37, 53, f32(37, 53), np.zeros((37, 53), np.float32)],
    "ids3d": lambda: [3, 2, 2, np.zeros(3 * 2 * 2 * 24 * 4, np.int32)],
    "reverse": lambda: [7, f32(7 * 256)],
    "block_sum": lambda: [5000, 1024, RNG.integers(-9, 9, 5000).astype(np.float32),
                          np.zeros(5, np.float32), np.zeros(5000, np.float32)],
    "isolation": lambda: [40, 4, np.full(40 * 128, -1, np.int32)],
    "reduce": lambda: [3000, RNG.integers(-(2**31), 2**31 - 1, 3000, dtype=np.int64).astype(
        np.int32), RNG.integers(-1000, 1000, 3000).astype(np.float32)] + [
        np.zeros(1, t) for t in (np.uint64, np.float32, np.int32, np.uint32, np.int32,
                                 np.float32)],
    "floats": lambda: [2000, RNG.uniform(-4, 4, 2000).astype(np.float32),
                       RNG.uniform(0.5, 4, 2000).astype(np.float32),
                       RNG.uniform(-4, 4, 2000).astype(np.float32)] + [
        np.zeros(2000, np.float32) for _ in range(4)],
    "ints": lambda: [1000, RNG.integers(-(2**31), 2**31 - 1, 1000, dtype=np.int64).astype(
        np.int32), RNG.integers(0, 2**32 - 1, 1000, dtype=np.uint64).astype(np.uint32),
        RNG.integers(1, 2**32 - 1, 1000, dtype=np.uint64).astype(np.uint32)] + [
        np.zeros(1000, t) for t in (np.int32, np.uint32, np.uint32, np.int32, np.int32,
                                    np.uint32, np.uint32, np.int32)],
    "rotate": lambda: [5, 96, 11, f32(5 * 96)],
    "math": lambda: [7, np.array([0.0, 0.25, 0.3, 2.0, 1e-30, np.nan, -0.0], np.float32),
                     np.zeros(35, np.float32)],
}


def copies(args: list[Any]) -> list[Any]:
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


@needs_gpu
@pytest.mark.parametrize("name", sorted(INPUTS))
def test_gpu_without_fma_matches_the_cpu_emulation_bitwise(exact, cpu, name):
    args = INPUTS[name]()
    on_gpu, on_cpu = copies(args), copies(args)
    exact.run(name, *on_gpu)
    cpu.run(name, *on_cpu)
    for g, c in zip(on_gpu, on_cpu):
        if isinstance(g, np.ndarray):
            assert_same_bits(g, c)


def assert_same_bits(gpu: np.ndarray, cpu: np.ndarray) -> None:
    """Bitwise equal (so 0.0 != -0.0), except that any NaN equals any NaN: the GPU makes the
    canonical NaN 0x7fffffff where glibc passes an input NaN's payload through."""
    if gpu.dtype.kind == "f":
        np.testing.assert_array_equal(np.isnan(gpu), np.isnan(cpu))
        keep = ~np.isnan(gpu)
        gpu, cpu = gpu[keep], cpu[keep]
    np.testing.assert_array_equal(gpu.view(np.uint8), cpu.view(np.uint8))


@needs_gpu
def test_saxpy_partial_block_against_numpy(gpu, exact):
    n = 1000
    x, y = f32(n + 24), f32(n + 24)
    expected = y.copy()
    expected[:n] = np.float32(2.5) * x[:n] + y[:n]
    fused, unfused = y.copy(), y.copy()
    gpu.run("saxpy", n, 2.5, x, fused)
    exact.run("saxpy", n, 2.5, x, unfused)
    np.testing.assert_array_equal(unfused, expected)
    np.testing.assert_allclose(fused, expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(fused[n:], y[n:])


@needs_gpu
def test_nvcc_fuses_multiply_add_by_default(gpu, exact):
    a = b = np.array([1 + 2**-13], np.float32)
    c = np.array([-1.0], np.float32)
    results = {}
    for name, program in (("fused", gpu), ("exact", exact)):
        outs = [np.zeros(1, np.float32) for _ in range(4)]
        program.run("floats", 1, a, b, c, *outs)
        results[name] = outs[1][0]
    assert results["exact"] == np.float32(2**-12)
    assert results["fused"] == np.float32(2**-12 + 2**-26)


@needs_gpu
def test_barriers_shared_memory_and_atomics_on_the_gpu(gpu):
    v = np.arange(4 * 256, dtype=np.float32)
    gpu.run("reverse", 4, v)
    np.testing.assert_array_equal(v.reshape(4, 256), np.arange(1024, dtype=np.float32)
                                  .reshape(4, 256)[:, ::-1])
    args = INPUTS["reduce"]()
    for _ in range(2):
        gpu.run("reduce", *args)
        values, fvalues = args[1], args[2]
        assert int(args[3][0]) == int(values.astype(np.int64).sum()) % 2**64
        assert args[4][0] == fvalues.sum()
        assert args[5][0] == values.max()
        assert args[6][0] == values.view(np.uint32).min()
        assert args[7][0] == 3000
        assert args[8][0] == fvalues.max()


@needs_gpu
def test_time_restores_accumulated_outputs_between_repetitions(exact):
    n = 100_000
    x, y = f32(n), f32(n)
    expected = np.float32(0.5) * x + y
    timing = exact.time("saxpy", (n, 0.5, x, y), repetitions=7, warmup=2)
    np.testing.assert_array_equal(y, expected)  # one run's result, not nine
    assert len(timing.kernel_samples_s) == 7
    assert 0 < timing.kernel_s < 0.1
    assert list(timing) == list(timing.kernel_samples_s)
    assert len(timing.with_copies_samples_s) == 7
    assert timing.with_copies_s is not None
    assert timing.with_copies_s > timing.kernel_s
    resident = exact.time("saxpy", (n, 0.5, x, y), repetitions=3, warmup=0, copies=False)
    assert resident.with_copies_s is None
    np.testing.assert_array_equal(y, np.float32(0.5) * x + expected)


@needs_gpu
def test_call_forms_and_device_selection():
    program = cuda_exec.CudaProgram(SOURCE, LAUNCH, device=0, fmad=False)
    x, y = f32(300), f32(300)
    expected = np.float32(2) * x + y
    program.run("saxpy", (300, 2.0), {"x": x, "y": y})
    np.testing.assert_array_equal(y, expected)
    program("saxpy", 300, 2.0, x=x, y=y)
    np.testing.assert_array_equal(y, np.float32(2) * x + expected)
    cuda_exec.prebuild(SOURCE, fmad=False)  # already in pycuda's cache: no error
    with pytest.raises(cuda_exec.GpuUnavailableError, match="no CUDA device 64"):
        cuda_exec.CudaProgram(SOURCE, LAUNCH, device=64)


@needs_gpu
def test_arguments_are_checked_as_on_the_cpu(gpu):
    with pytest.raises(KernelArgumentError, match="expects a float32 array"):
        gpu.run("saxpy", 10, 1.0, np.ones(10), np.ones(10, np.float32))
    with pytest.raises(KernelArgumentError, match="overlap"):
        z = np.ones(10, np.float32)
        gpu.run("saxpy", 10, 1.0, z, z)


@needs_gpu
def test_nvcc_errors_are_clear():
    with pytest.raises(KernelCompileError, match="nvcc rejected the CUDA source") as e:
        cuda_exec.CudaProgram(SOURCE.replace("y[i] = a * x[i] + y[i];", "y[i] = a * x[i] + ;"),
                              LAUNCH)
    assert "error" in e.value.log


@needs_gpu
def test_a_launch_description_naming_a_missing_kernel_is_an_error():
    with pytest.raises(LaunchDescriptionError, match="launches nothing_kernel"):
        cuda_exec.CudaProgram(EXTRA_SOURCE, {"functions": [function(
            "f", [array("v", "float32")],
            launch("nothing_kernel", ["1"], ["32"], ["v"]))]})


@needs_gpu
def test_too_many_resources_are_reported_before_launching():
    program = cuda_exec.CudaProgram(EXTRA_SOURCE, EXTRA_LAUNCH)
    v = np.zeros(128, np.float32)
    program.run("bounded", 64, v)
    assert (v[:64] == 1).all()
    assert (v[64:] == 0).all()
    with pytest.raises(KernelLaunchError, match=r"too many resources.*128 threads per block"):
        program.run("bounded", 128, v)
    with pytest.raises(KernelLaunchError, match=r"too many resources.*dynamic shared memory"):
        program.run("big_shared", 1 << 20, np.zeros(256, np.float32))


@needs_gpu
def test_more_than_48k_of_dynamic_shared_memory(tmp_path):
    words = 20_000  # 80 000 bytes
    v, w = np.zeros(256, np.float32), np.zeros(256, np.float32)
    cuda_exec.CudaProgram(EXTRA_SOURCE, EXTRA_LAUNCH).run("big_shared", words, v)
    CpuProgram(EXTRA_SOURCE, EXTRA_LAUNCH, cache=tmp_path).run("big_shared", words, w)
    np.testing.assert_array_equal(v, w)
    i = np.arange(128)
    expected = [np.float32(sum(float(words - 1 - k) for k in range(t, words, 128))) for t in i]
    np.testing.assert_allclose(v[:128], expected, rtol=1e-5)
