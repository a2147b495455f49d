"""Which stream a call with device arrays is ordered on (`caller_stream.py`), without a GPU:
the call's `stream=`, else the current stream of the first device array's library (CuPy,
PyTorch), else a CUDA array interface v3 stream, else the legacy default stream."""

from __future__ import annotations

import contextlib
import sys
import types
from typing import Any

import numpy as np
import pytest
from test_device_array_arguments import FakeCudaArray, FakeDLPackCudaArray, bind

from autogpu.runtime.array_views import LEGACY_STREAM
from autogpu.runtime.caller_stream import caller_stream, stream_handle
from autogpu.runtime.errors import KernelArgumentError


class CupyLikeStream:
    def __init__(self, ptr: int):
        self.ptr = ptr


class TorchLikeStream:
    def __init__(self, handle: int):
        self.cuda_stream = handle


def test_stream_handles():
    assert stream_handle(0x1234) == 0x1234
    assert stream_handle(0) == LEGACY_STREAM  # the runtime's 0: the legacy default stream
    assert stream_handle(2) == 2  # per-thread default stream
    assert stream_handle(CupyLikeStream(0x55)) == 0x55
    assert stream_handle(TorchLikeStream(0)) == LEGACY_STREAM
    for bad in ("s", -1, True, 1.5):
        with pytest.raises(KernelArgumentError, match="stream= expects a CUDA stream handle"):
            stream_handle(bad)


def test_an_explicit_stream_comes_first():
    call = [FakeCudaArray(100, stream=0x77), FakeCudaArray(100, pointer=0x7F0000100000)]
    assert caller_stream(call, CupyLikeStream(0x99)) == 0x99
    assert caller_stream(call, 0) == LEGACY_STREAM


def test_a_cuda_array_interface_stream_without_a_library():
    call = [FakeCudaArray(100, stream=None),
            FakeCudaArray(100, pointer=0x7F0000100000, stream=0x77)]
    assert caller_stream(call) == 0x77
    plain = [FakeCudaArray(100, stream=None),
             FakeCudaArray(100, pointer=0x7F0000100000, stream=None)]
    assert caller_stream(plain) == LEGACY_STREAM
    host = [np.ones(100, np.float32), np.ones(100, np.float32)]
    assert caller_stream(host) == LEGACY_STREAM


def _library_array(module: str, stream: int | None = None) -> Any:
    """A device array whose type lives in `module` (as CuPy's and PyTorch's do)."""
    cls = type("Array", (FakeCudaArray,), {"__module__": module})
    return cls(100, stream=stream)


@pytest.fixture
def fake_cupy(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    current = {"ptr": 0x5000}

    def device(device: int) -> contextlib.nullcontext[None]:
        return contextlib.nullcontext()

    cuda = types.SimpleNamespace(
        get_current_stream=lambda: CupyLikeStream(current["ptr"]),
        Device=device,
    )
    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(cuda=cuda))
    return current


@pytest.fixture
def fake_torch(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    asked: list[Any] = []

    def current_stream(device: int | None = None) -> TorchLikeStream:
        asked.append(device)
        return TorchLikeStream(0x6000)

    monkeypatch.setitem(sys.modules, "torch",
                        types.SimpleNamespace(cuda=types.SimpleNamespace(
                            current_stream=current_stream)))
    return asked


def test_cupy_arrays_follow_cupys_current_stream(fake_cupy: dict[str, int]):
    call = [_library_array("cupy._core.core", stream=0x77),
            FakeCudaArray(100, pointer=0x7F0000100000)]
    assert caller_stream(call) == 0x5000  # not the array interface's stream
    fake_cupy["ptr"] = 0
    assert caller_stream(call) == LEGACY_STREAM


def test_torch_tensors_follow_torchs_current_stream(fake_torch: list[Any]):
    call = [_library_array("torch"), FakeCudaArray(100, pointer=0x7F0000100000)]
    assert caller_stream(call) == 0x6000
    assert fake_torch == [None]  # the array's device (a CUDA array interface gives none)


def test_a_library_not_imported_is_not_asked(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delitem(sys.modules, "cupy", raising=False)
    call = [_library_array("cupy._core.core", stream=0x77),
            FakeCudaArray(100, pointer=0x7F0000100000)]
    assert caller_stream(call) == 0x77


def test_the_stream_is_chosen_from_the_callers_objects_in_parameter_order():
    """`array_values` gives the array arguments in parameter order, named ones included, before
    any is bound (the DLPack request needs the stream first)."""
    from test_device_array_arguments import SAXPY

    from autogpu.runtime.arguments import array_values, parse_launch_description

    saxpy = parse_launch_description({"functions": [SAXPY]})["saxpy"]
    first, second = FakeCudaArray(100, stream=None), FakeCudaArray(100, stream=0x88)
    assert array_values(saxpy, (100, 2.0), {"y": second, "x": first}) == [first, second]
    assert caller_stream(array_values(saxpy, (100, 2.0), {"y": second, "x": first})) == 0x88
    with pytest.raises(KernelArgumentError, match="missing argument"):
        array_values(saxpy, (100, 2.0, first), {})


def test_dlpack_producers_are_asked_on_the_callers_stream():
    """The producer orders its pending work before the stream the kernels run on, not before
    the legacy default stream."""
    x = FakeDLPackCudaArray(np.ones(100, np.float32))
    y = FakeDLPackCudaArray(np.ones(100, np.float32))
    assert caller_stream([x, y]) == LEGACY_STREAM  # no library, no interface stream
    assert caller_stream([x, y], TorchLikeStream(0x4242)) == 0x4242
    from test_device_array_arguments import SAXPY

    from autogpu.runtime.arguments import bind_arguments, parse_launch_description

    saxpy = parse_launch_description({"functions": [SAXPY]})["saxpy"]
    bind_arguments(saxpy, (100, 2.0, x, y), {}, consumer_stream=0x4242)
    assert x.streams == y.streams == [0x4242]
    bind(100, 2.0, x, y)  # NumPy's default: the legacy stream (timing, the tuner)
    assert x.streams[-1] == LEGACY_STREAM


def test_a_dlpack_library_array_names_its_device(fake_torch: list[Any]):
    """torch is asked for the current stream of the tensor's own device (DLPack names it)."""

    def on_cuda_device_3(self: object) -> tuple[int, int]:
        return (2, 3)

    tensor_type = type("Tensor", (FakeDLPackCudaArray,), {"__module__": "torch",
                                                          "__dlpack_device__": on_cuda_device_3})
    assert caller_stream([tensor_type(np.ones(4, np.float32))]) == 0x6000
    assert fake_torch == [3]


def test_host_dlpack_objects_are_not_device_arrays(fake_torch: list[Any]):
    def on_the_host(self: object) -> tuple[int, int]:
        return (1, 0)

    host_type = type("Tensor", (FakeDLPackCudaArray,), {"__module__": "torch",
                                                        "__dlpack_device__": on_the_host})
    assert caller_stream([host_type(np.ones(4, np.float32))]) == LEGACY_STREAM
    assert fake_torch == []
