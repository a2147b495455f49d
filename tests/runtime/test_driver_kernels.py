"""Launches through the driver API (`driver_kernels.py`) without a GPU: a recording stand-in
for libcuda checks the stream each launch names and the parameter buffer it passes."""

from __future__ import annotations

import ctypes
import struct
from typing import Any

import pytest

from autogpu.runtime import driver_kernels
from autogpu.runtime.driver_kernels import DriverError, DriverKernel, stream_of


class RecordingDriver:
    """cuLaunchKernel and cuGetError*, recording what a launch passes."""

    def __init__(self, status: int = 0):
        self.status = status
        self.launches: list[dict[str, Any]] = []

    def cuLaunchKernel(self, function, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        size = ctypes.cast(extra[3], ctypes.POINTER(ctypes.c_size_t)).contents.value
        self.launches.append({
            "grid": (gx.value, gy.value, gz.value), "block": (bx.value, by.value, bz.value),
            "shared": shared.value, "stream": stream.value, "params": params,
            "markers": (extra[0], extra[2], extra[4]),
            "buffer": ctypes.string_at(extra[1], size),
        })
        return self.status

    def cuGetErrorName(self, status, name):
        ctypes.cast(name, ctypes.POINTER(ctypes.c_char_p)).contents.value = b"CUDA_ERROR_X"
        return 0

    def cuGetErrorString(self, status, text):
        ctypes.cast(text, ctypes.POINTER(ctypes.c_char_p)).contents.value = b"it failed"
        return 0


@pytest.fixture
def recording(monkeypatch):
    driver = RecordingDriver()
    monkeypatch.setattr(driver_kernels, "libcuda", lambda: driver)
    return driver


def kernel(format: str) -> DriverKernel:
    k = DriverKernel("saxpy_kernel0", ctypes.c_void_p(0x1234), module=None)  # pyright: ignore[reportArgumentType] (no module without a GPU)
    k.prepare(format)
    return k


def test_a_launch_names_the_callers_stream_and_packs_the_parameters(recording):
    kernel("iPdP").launch((391, 1, 1), (256, 1, 1), [7, 0xAB00, 2.5, 0xCD00], 0x7F00AA, 64)
    (launch,) = recording.launches
    assert launch["stream"] == 0x7F00AA
    assert launch["grid"] == (391, 1, 1)
    assert launch["block"] == (256, 1, 1)
    assert launch["shared"] == 64
    assert launch["params"] is None  # the arguments travel in `extra`'s buffer
    assert launch["markers"] == (1, 2, None)  # BUFFER_POINTER, BUFFER_SIZE, END
    # each parameter at its natural alignment, as nvcc lays kernel parameters out
    assert launch["buffer"] == (struct.pack("<i", 7) + bytes(4) + struct.pack("<Q", 0xAB00)
                                + struct.pack("<d", 2.5) + struct.pack("<Q", 0xCD00))


def test_pycudas_spelling_launches_on_the_legacy_or_a_pycuda_stream(recording):
    class PycudaStream:
        handle = 0x5150

    k = kernel("if")
    k.prepared_async_call((1, 1, 1), (32, 1, 1), None, 3, 1.0)
    k.prepared_async_call((1, 1, 1), (32, 1, 1), PycudaStream(), 3, 1.0, shared_size=16)
    assert [launch["stream"] for launch in recording.launches] == [1, 0x5150]
    assert recording.launches[1]["shared"] == 16
    assert stream_of(0x99) == 0x99


def test_a_failed_launch_says_which_kernel_and_why(recording):
    recording.status = 701
    with pytest.raises(DriverError, match=r"cuLaunchKernel\(saxpy_kernel0\) failed: "
                                          r"CUDA_ERROR_X \(701\): it failed"):
        kernel("i").launch((1, 1, 1), (1, 1, 1), [1], 1)
