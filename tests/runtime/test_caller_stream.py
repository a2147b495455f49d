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
from test_device_array_arguments import FakeCudaArray, bind

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
    call = bind(100, 2.0, FakeCudaArray(100, stream=0x77),
                FakeCudaArray(100, pointer=0x7F0000100000))
    assert caller_stream(call, CupyLikeStream(0x99)) == 0x99
    assert caller_stream(call, 0) == LEGACY_STREAM


def test_a_cuda_array_interface_stream_without_a_library():
    call = bind(100, 2.0, FakeCudaArray(100, stream=None),
                FakeCudaArray(100, pointer=0x7F0000100000, stream=0x77))
    assert caller_stream(call) == 0x77
    plain = bind(100, 2.0, FakeCudaArray(100, stream=None),
                 FakeCudaArray(100, pointer=0x7F0000100000, stream=None))
    assert caller_stream(plain) == LEGACY_STREAM
    host = bind(100, 2.0, np.ones(100, np.float32), np.ones(100, np.float32))
    assert caller_stream(host) == LEGACY_STREAM


def _library_array(module: str, stream: int | None = None) -> Any:
    """A device array whose type lives in `module` (as CuPy's and PyTorch's do)."""
    cls = type("Array", (FakeCudaArray,), {"__module__": module})
    return cls(100, stream=stream)


@pytest.fixture
def fake_cupy(monkeypatch):
    current = {"ptr": 0x5000}
    cuda = types.SimpleNamespace(
        get_current_stream=lambda: CupyLikeStream(current["ptr"]),
        Device=lambda device: contextlib.nullcontext(),
    )
    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(cuda=cuda))
    return current


@pytest.fixture
def fake_torch(monkeypatch):
    asked: list[Any] = []

    def current_stream(device=None):
        asked.append(device)
        return TorchLikeStream(0x6000)

    monkeypatch.setitem(sys.modules, "torch",
                        types.SimpleNamespace(cuda=types.SimpleNamespace(
                            current_stream=current_stream)))
    return asked


def test_cupy_arrays_follow_cupys_current_stream(fake_cupy):
    call = bind(100, 2.0, _library_array("cupy._core.core", stream=0x77),
                FakeCudaArray(100, pointer=0x7F0000100000))
    assert caller_stream(call) == 0x5000  # not the array interface's stream
    fake_cupy["ptr"] = 0
    assert caller_stream(call) == LEGACY_STREAM


def test_torch_tensors_follow_torchs_current_stream(fake_torch):
    call = bind(100, 2.0, _library_array("torch"), FakeCudaArray(100, pointer=0x7F0000100000))
    assert caller_stream(call) == 0x6000
    assert fake_torch == [None]  # the array's device (a CUDA array interface gives none)


def test_a_library_not_imported_is_not_asked(monkeypatch):
    monkeypatch.delitem(sys.modules, "cupy", raising=False)
    call = bind(100, 2.0, _library_array("cupy._core.core", stream=0x77),
                FakeCudaArray(100, pointer=0x7F0000100000))
    assert caller_stream(call) == 0x77
