"""Kernels launched through the CUDA driver API on any stream, the caller's included.

pycuda launches only on streams it created (`pycuda.driver.Stream`) and exposes neither the
`CUfunction` of a kernel nor the `CUmodule` it loaded, so a CuPy or PyTorch stream cannot be
named in its launches. This module loads the cubin that pycuda's compiler produced (and caches)
itself, with `cuModuleLoadData` in the context current at the time (the device's primary
context, the one CuPy and PyTorch use), and launches with `cuLaunchKernel` on a stream handle:
the caller's, the legacy default stream (1), or a pycuda stream's `.handle`.

A `DriverKernel` offers what the executors used of pycuda's `Function`: `get_attribute`,
`set_attribute`, `prepare(format)` and `prepared_async_call(grid, block, stream, *args,
shared_size=)`, whose arguments are packed as pycuda packs them (Python's `struct`, native
alignment, which is the kernel parameter layout).
"""

from __future__ import annotations

import ctypes
import functools
import struct
import weakref
from collections.abc import Callable, Sequence
from typing import Any

_CU_LAUNCH_PARAM_END = 0
_CU_LAUNCH_PARAM_BUFFER_POINTER = 1
_CU_LAUNCH_PARAM_BUFFER_SIZE = 2
_CUDA_ERROR_NOT_FOUND = 500


class DriverError(RuntimeError):
    """A driver call failed; the message names the call and the driver's error."""

    def __init__(self, call: str, status: int):
        super().__init__(f"{call} failed: {error_text(status)}")
        self.status = status


@functools.cache
def libcuda() -> Any:
    """The CUDA driver library (loaded already by pycuda, CuPy or PyTorch)."""
    return ctypes.CDLL("libcuda.so.1")


def error_text(status: int) -> str:
    """`CUDA_ERROR_X: description` for a driver status code."""
    name, text = ctypes.c_char_p(), ctypes.c_char_p()
    libcuda().cuGetErrorName(status, ctypes.byref(name))
    libcuda().cuGetErrorString(status, ctypes.byref(text))
    return (f"{(name.value or b'CUDA error').decode()} ({status}):"
            f" {(text.value or b'unknown').decode()}")


def _check(call: str, status: int) -> None:
    if status != 0:
        raise DriverError(call, status)


def stream_of(stream: Any) -> int:
    """A stream handle from a handle, None (the legacy default stream) or a pycuda stream."""
    if stream is None:
        return 1  # CU_STREAM_LEGACY
    return int(getattr(stream, "handle", stream))


class DriverModule:
    """A cubin loaded into the current context; unloaded when garbage collected (with its
    context made current by `activate`, a context manager factory)."""

    def __init__(self, image: bytes, activate: Callable[[], Any]):
        handle = ctypes.c_void_p()
        _check("cuModuleLoadData", libcuda().cuModuleLoadData(ctypes.byref(handle), image))
        self.handle = handle
        finalizer = weakref.finalize(self, _unload, handle, activate)
        finalizer.atexit = False  # at exit the context goes with the process

    def function(self, name: str) -> DriverKernel | None:
        """The kernel `name` (an extern "C" symbol), None where the module has none."""
        function = ctypes.c_void_p()
        status = libcuda().cuModuleGetFunction(ctypes.byref(function), self.handle,
                                               name.encode())
        if status == _CUDA_ERROR_NOT_FOUND:
            return None
        _check(f"cuModuleGetFunction({name})", status)
        return DriverKernel(name, function, self)


def _unload(handle: ctypes.c_void_p, activate: Callable[[], Any]) -> None:
    try:
        with activate():
            libcuda().cuModuleUnload(handle)
    except Exception:  # noqa: BLE001 (a finalizer has no caller to report to; the driver frees it with the context)
        pass


class DriverKernel:
    """One `CUfunction`, launched with `cuLaunchKernel` on a given stream."""

    def __init__(self, name: str, handle: ctypes.c_void_p, module: DriverModule):
        self.name = name
        self.handle = handle
        self.module = module  # the module must outlive its functions
        self.format = ""

    def get_attribute(self, attribute: int) -> int:
        value = ctypes.c_int()
        _check(f"cuFuncGetAttribute({self.name})", libcuda().cuFuncGetAttribute(
            ctypes.byref(value), int(attribute), self.handle))
        return value.value

    def set_attribute(self, attribute: int, value: int) -> None:
        _check(f"cuFuncSetAttribute({self.name})", libcuda().cuFuncSetAttribute(
            self.handle, int(attribute), int(value)))

    def prepare(self, format: str) -> None:
        """The arguments' struct codes (`P` a pointer, `f` a float...), as pycuda's prepare."""
        self.format = format

    def launch(self, grid: Sequence[int], block: Sequence[int], args: Sequence[Any],
               stream: int, shared_bytes: int = 0) -> None:
        """Queues the kernel on `stream` (a driver handle; 1: the legacy default stream)."""
        packed = struct.pack("@" + self.format, *args)
        buffer = ctypes.create_string_buffer(packed, max(len(packed), 1))
        size = ctypes.c_size_t(len(packed))
        extra = (ctypes.c_void_p * 5)(
            _CU_LAUNCH_PARAM_BUFFER_POINTER, ctypes.cast(buffer, ctypes.c_void_p),
            _CU_LAUNCH_PARAM_BUFFER_SIZE, ctypes.cast(ctypes.byref(size), ctypes.c_void_p),
            _CU_LAUNCH_PARAM_END)
        gx, gy, gz = (int(g) for g in grid)
        bx, by, bz = (int(b) for b in block)
        _check(f"cuLaunchKernel({self.name})", libcuda().cuLaunchKernel(
            self.handle, ctypes.c_uint(gx), ctypes.c_uint(gy), ctypes.c_uint(gz),
            ctypes.c_uint(bx), ctypes.c_uint(by), ctypes.c_uint(bz),
            ctypes.c_uint(int(shared_bytes)), ctypes.c_void_p(stream), None, extra))

    def prepared_async_call(self, grid: Sequence[int], block: Sequence[int], stream: Any,
                            *args: Any, shared_size: int = 0) -> None:
        """pycuda's spelling: `stream` None (the legacy default stream) or a pycuda stream."""
        self.launch(grid, block, args, stream_of(stream), shared_size)
