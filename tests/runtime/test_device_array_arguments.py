"""Device arrays as kernel arguments, checked without a GPU: objects exposing
`__cuda_array_interface__` or DLPack are held to the NumPy arrays' rules (dtype, size,
contiguity, read-only outputs, overlaps), each error naming the parameter."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from kernel_fixtures import array, function, launch, scalar

import autogpu
from autogpu.runtime.arguments import KernelArgumentError, bind_arguments, parse_launch_description
from autogpu.runtime.array_arguments import DeviceArray, HostArray

SAXPY = function(
    "saxpy",
    [scalar("n", "int32"), scalar("a", "float32"), array("x", "float32", const=True),
     array("y", "float32", extents=["n"])],
    launch("saxpy_kernel", ["(n + 255) / 256", "1", "1"], ["256", "1", "1"],
           ["n", "a", "x", "y"]),
)


class FakeCudaArray:
    """What CuPy exports: the CUDA array interface v3 (the pointer is never dereferenced)."""

    def __init__(self, n: int, typestr: str = "<f4", *, strides: Any = None,
                 readonly: bool = False, pointer: int = 0x7F0000000000, stream: int | None = 1):
        self.__cuda_array_interface__ = {
            "shape": (n,), "typestr": typestr, "data": (pointer, readonly), "strides": strides,
            "version": 3, "stream": stream,
        }


class FakeDLPackCudaArray:
    """A DLPack producer on CUDA device 0 (its tensor is a NumPy array's: only read)."""

    def __init__(self, data: np.ndarray):
        self.data = data
        self.streams: list[Any] = []

    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, 0)

    def __dlpack__(self, stream: Any = None) -> Any:
        self.streams.append(stream)
        return self.data.__dlpack__()


def bind(*args: Any):
    functions = parse_launch_description({"functions": [SAXPY]})
    return bind_arguments(functions["saxpy"], args, {})


def test_device_arrays_bind_as_device_arguments():
    call = bind(100, 2.0, FakeCudaArray(100), FakeCudaArray(100, pointer=0x7F0000100000))
    assert all(isinstance(a, DeviceArray) for a in call.arrays())
    host = bind(100, 2.0, np.ones(100, np.float32), np.ones(100, np.float32))
    assert all(isinstance(a, HostArray) for a in host.arrays())


def test_dlpack_arrays_are_asked_for_the_launch_stream():
    x = FakeDLPackCudaArray(np.ones(100, np.float32))
    call = bind(100, 2.0, x, FakeCudaArray(100))
    assert isinstance(call.values["x"], DeviceArray)
    assert x.streams == [1]
    assert call.values["x"].view.device == 0


@pytest.mark.parametrize("y, message", [
    (FakeCudaArray(100, "<f8"), "argument 'y' of saxpy() expects a float32 array (C type float), "
                                "got dtype float64"),
    (FakeCudaArray(50), "argument 'y' of saxpy() has 50 elements, but float y[n] needs 100"),
    (FakeCudaArray(100, strides=(8,)), "argument 'y' of saxpy() is not C-contiguous"),
    (FakeCudaArray(100, readonly=True), "argument 'y' of saxpy() is read-only"),
    (FakeCudaArray(100, pointer=0x7F0000000002), "argument 'y' of saxpy() is not aligned"),
    (FakeCudaArray(100, pointer=0x7F0000000100),
     "arguments 'x' and 'y' of saxpy() overlap in memory"),
    (FakeCudaArray(100, stream=0), "argument 'y' of saxpy() cannot be used: stream 0"),
    (FakeDLPackCudaArray(np.ones(100, np.float64)), "argument 'y' of saxpy() expects a float32"),
    (FakeDLPackCudaArray(np.ones((10, 20), np.float32)[:, :10]),
     "argument 'y' of saxpy() is not C-contiguous"),
])
def test_device_arrays_are_checked_like_numpy_arrays(y: object, message: str):
    with pytest.raises(KernelArgumentError) as e:
        bind(100, 2.0, FakeCudaArray(100), y)
    assert message in str(e.value)


def test_a_device_array_is_no_scalar():
    with pytest.raises(KernelArgumentError, match=r"argument 'n' of saxpy.. is a scalar"):
        bind(FakeCudaArray(1), 2.0, FakeCudaArray(100), FakeCudaArray(100, pointer=1 << 44))


def test_the_cpu_emulation_refuses_device_arrays_by_name():
    kernel = autogpu.compile("examples/saxpy.c")
    x, y = FakeCudaArray(10), FakeCudaArray(10, pointer=1 << 44)
    with pytest.raises(KernelArgumentError, match="argument 'x' is a CUDA device array"):
        kernel(10, 2.0, x, y)


def test_a_device_array_too_small_for_a_pointer_parameter_is_refused_by_the_api():
    """`const float *x` has no extents: the api's analysis of the C function's indices says
    how many elements it needs, for device arrays as for NumPy ones."""
    kernel = autogpu.compile("examples/saxpy.c")
    with pytest.raises(KernelArgumentError, match=r"argument 'x' of saxpy.. has 5 elements"):
        kernel(10, 2.0, FakeCudaArray(5), FakeCudaArray(10, pointer=1 << 44), backend="cuda")
