"""What an array argument is, whoever made it: NumPy, CuPy, PyTorch, or any object exposing
`__cuda_array_interface__` (v2/v3) or DLPack (`__dlpack__`, `__dlpack_device__`).

`array_view(value)` reads the object's own description (no copy, no GPU needed) into an
`ArrayView`: element type, shape, byte strides, read-only flag, data pointer, where the data
lives ("host" or "cuda" and the device), and the stream its producer may still be writing it on.
The argument checks (`arguments.py`) then hold every kind of array to the same rules, and the
executors (`array_arguments.py`) use the pointer. DLPack is preferred over the CUDA array
interface when an object has both: its stream protocol makes the producer order its pending
work before the consumer's stream (PyTorch's interface has no stream at all).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

import numpy as np

from autogpu.dialects.signature import C_TYPES
from autogpu.narrowing import is_dict
from autogpu.numeric import is_ndarray

#: CUDA's legacy default stream (DLPack's, the CUDA array interface's and the driver API's
#: number for it is 1): the executors' stream for NumPy arrays and timing.
LEGACY_STREAM = 1

_DLPACK_CPU, _DLPACK_CUDA, _DLPACK_CUDA_HOST, _DLPACK_CUDA_MANAGED = 1, 2, 3, 13
_DLPACK_TYPE_CODES = {0: "i", 1: "u", 2: "f", 6: "b"}  # kDLInt, kDLUInt, kDLFloat, kDLBool


class ArrayInterfaceError(ValueError):
    """The object describes its array in a way autogpu cannot use (the caller names it)."""


@dataclass(frozen=True)
class ArrayView:
    """One array as its producer describes it (`strides` in bytes, None when C-contiguous)."""

    dtype: np.dtype
    shape: tuple[int, ...]
    strides: tuple[int, ...] | None
    readonly: bool
    pointer: int
    location: str  # "host" or "cuda"
    device: int | None  # the CUDA device ordinal where the producer says it (DLPack)
    stream: int | None  # CUDA array interface v3: the stream to order after (None: none)
    kind: str  # "NumPy array", "CUDA array interface", "DLPack" (for messages)
    keepalive: Any = None  # what must live while the pointer is used (a DLPack capsule)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def c_contiguous(self) -> bool:
        if self.strides is None or self.size <= 1:
            return True
        expected = self.dtype.itemsize
        for extent, stride in zip(reversed(self.shape), reversed(self.strides)):
            if extent != 1 and stride != expected:
                return False
            expected *= extent
        return True

    @property
    def aligned(self) -> bool:
        return self.pointer % self.dtype.itemsize == 0 or self.size == 0


def is_array(value: Any) -> bool:
    """Whether `value` is an array autogpu can take (a scalar parameter refuses it)."""
    return isinstance(value, np.ndarray) or hasattr(value, "__cuda_array_interface__") or (
        hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__")
    )


def array_view(value: Any, consumer_stream: int = LEGACY_STREAM) -> ArrayView | None:
    """The view of an array argument, None if `value` is no array of a supported kind; a
    DLPack producer is asked for its tensor on `consumer_stream`, where the kernels run."""
    if is_ndarray(value):
        return ArrayView(value.dtype, value.shape, None if value.flags.c_contiguous else
                         value.strides, not value.flags.writeable, value.ctypes.data, "host",
                         None, None, "NumPy array", value)
    if hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__"):
        return _dlpack_view(value, consumer_stream)
    if hasattr(value, "__cuda_array_interface__"):
        return _cai_view(value.__cuda_array_interface__)
    return None


def _cai_view(cai: Any) -> ArrayView:
    """The CUDA array interface, versions 2 and 3 (numba.readthedocs.io: cuda_array_interface)."""
    if not is_dict(cai) or "shape" not in cai or "typestr" not in cai or "data" not in cai:
        raise ArrayInterfaceError("its __cuda_array_interface__ lacks shape, typestr or data")
    if cai.get("mask") is not None:
        raise ArrayInterfaceError("it is a masked array (__cuda_array_interface__ 'mask')")
    try:
        dtype = np.dtype(cai["typestr"])
    except TypeError:
        raise ArrayInterfaceError(f"unknown typestr {cai['typestr']!r}") from None
    if dtype.byteorder == ">":
        raise ArrayInterfaceError(f"big-endian elements ({cai['typestr']})")
    pointer, readonly = cai["data"]
    strides = cai.get("strides")
    stream = cai.get("stream") if cai.get("version", 2) >= 3 else None
    if stream == 0:
        raise ArrayInterfaceError("stream 0 is disallowed by the CUDA array interface "
                                  "(1: the legacy default stream, 2: per-thread)")
    return ArrayView(dtype.newbyteorder("="), tuple(int(e) for e in cai["shape"]),
                     None if strides is None else tuple(int(s) for s in strides),
                     bool(readonly), int(pointer or 0), "cuda", None, stream,
                     "CUDA array interface")


# dlpack.h's field types, from the one table of C types
_INT32, _UINT8, _UINT16 = (C_TYPES[t].ctypes for t in ("int", "unsigned char", "unsigned short"))
_INT64: type[ctypes.c_longlong] = C_TYPES["long long"].ctypes  # the table's 64-bit integer
_UINT64 = C_TYPES["unsigned long long"].ctypes


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", _INT32), ("device_id", _INT32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", _UINT8), ("bits", _UINT8), ("lanes", _UINT16)]


class DLTensor(ctypes.Structure):
    """DLPack's `DLTensor` (dlpack.h, ABI stable since 0.x)."""

    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", _INT32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(_INT64)),
                ("strides", ctypes.POINTER(_INT64)), ("byte_offset", _UINT64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_valid.restype = ctypes.c_int
_capsule_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _dlpack_view(value: Any, consumer_stream: int) -> ArrayView:
    """DLPack (dmlc.github.io/dlpack): the producer is asked for its tensor on the stream the
    kernels run on, so it orders its own pending work before it. The capsule is kept (not
    consumed) for the call: its destructor frees the tensor when the call drops it."""
    device_type, device_id = value.__dlpack_device__()
    device_type, device_id = int(device_type), int(device_id)
    if device_type in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):
        location, stream = "cuda", consumer_stream
    elif device_type in (_DLPACK_CPU, _DLPACK_CUDA_HOST):
        location, stream = "host", None
    else:
        raise ArrayInterfaceError(f"its DLPack device type {device_type} is neither the CPU "
                                  "nor a CUDA GPU")
    try:
        capsule = value.__dlpack__(stream=stream)
    except TypeError:  # a producer older than the stream keyword
        capsule = value.__dlpack__()
    if not _capsule_valid(capsule, b"dltensor"):
        raise ArrayInterfaceError("its __dlpack__() returned no unconsumed 'dltensor' capsule")
    tensor = DLManagedTensor.from_address(_capsule_pointer(capsule, b"dltensor")).dl_tensor
    code, bits, lanes = tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes
    kind = _DLPACK_TYPE_CODES.get(code)
    if kind is None or lanes != 1 or bits % 8:
        raise ArrayInterfaceError(f"its DLPack element type (code {code}, {bits} bits, "
                                  f"{lanes} lanes) has no C type")
    dtype = np.dtype("bool") if kind == "b" else np.dtype(f"{kind}{bits // 8}")
    shape = tuple(int(tensor.shape[i]) for i in range(tensor.ndim))
    strides = None if not tensor.strides else tuple(
        int(tensor.strides[i]) * dtype.itemsize for i in range(tensor.ndim))  # elements → bytes
    pointer = (tensor.data or 0) + int(tensor.byte_offset)
    return ArrayView(dtype, shape, strides, False, pointer, location, device_id, None,
                     "DLPack", capsule)
