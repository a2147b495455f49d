"""The caller's CUDA stream: the stream a call with device arrays runs on.

A CuPy or PyTorch user queues work on their library's current stream and expects a kernel to
take its place in that queue: after what they queued before, before what they queue after, with
no wait on the host. `caller_stream(arrays, stream)` says which stream that is, in this order:

1. the call's own `stream=` argument (a handle, 0 or 1 for the legacy default stream, 2 for
   the per-thread one, or a CuPy `Stream` (`.ptr`), a PyTorch `torch.cuda.Stream`
   (`.cuda_stream`), any object with one of those);
2. the current stream of the library of the first device array: CuPy's
   `cupy.cuda.get_current_stream()`, PyTorch's `torch.cuda.current_stream()` (asked only when
   that library is imported already: its arrays are in the call);
3. the CUDA array interface v3 `stream` of the first device array that gives one;
4. CUDA's legacy default stream.

The GPU executor (`cuda_exec.py`) launches the kernels on that stream itself (the driver API:
`driver_kernels.py`), after the work queued on each producer's stream (events), and asks DLPack
producers for their tensors on it. The stream is chosen from the caller's objects before they
are bound, for that request.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from autogpu.narrowing import is_dict
from autogpu.runtime.array_views import LEGACY_STREAM
from autogpu.runtime.errors import KernelArgumentError

_DLPACK_CUDA_DEVICES = (2, 13)  # kDLCUDA, kDLCUDAManaged


def stream_handle(stream: Any) -> int:
    """The driver handle of a stream given as a number or a library's stream object; 0 (the
    CUDA runtime's spelling of the legacy default stream) is `LEGACY_STREAM`."""
    for attribute in ("ptr", "cuda_stream"):  # CuPy, PyTorch
        if hasattr(stream, attribute):
            stream = getattr(stream, attribute)
            break
    if isinstance(stream, bool) or not isinstance(stream, int) or stream < 0:
        raise KernelArgumentError(
            f"stream= expects a CUDA stream handle (an int), a CuPy Stream or a torch.cuda."
            f"Stream, got {type(stream).__name__}"
        )
    return LEGACY_STREAM if stream == 0 else stream


def caller_stream(arrays: Iterable[Any], stream: Any = None) -> int:
    """The stream a call runs on (see the module's docstring); `arrays`: the caller's objects
    for the array parameters, in parameter order (`arguments.array_values`)."""
    if stream is not None:
        return stream_handle(stream)
    devices = [a for a in arrays if _on_cuda(a)]
    for value in devices[:1]:
        current = _library_stream(value)
        if current is not None:
            return current
    for value in devices:
        interface_stream = _interface_stream(value)
        if interface_stream is not None:
            return interface_stream
    return LEGACY_STREAM


def _has_dlpack(value: Any) -> bool:
    return hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__")


def _on_cuda(value: Any) -> bool:
    """Whether the object is an array in CUDA device memory (as `array_views` reads it: DLPack
    first, else the CUDA array interface)."""
    if _has_dlpack(value):
        try:
            return int(value.__dlpack_device__()[0]) in _DLPACK_CUDA_DEVICES
        except Exception:  # noqa: BLE001 (binding the argument reports it, naming the parameter)
            return False
    return hasattr(value, "__cuda_array_interface__")


def _device_ordinal(value: Any) -> int | None:
    """The CUDA device of a DLPack producer's array (the CUDA array interface names none)."""
    return int(value.__dlpack_device__()[1]) if _has_dlpack(value) else None


def _interface_stream(value: Any) -> int | None:
    """The CUDA array interface v3 `stream` of an object that offers no DLPack (which orders
    itself on the consumer's stream instead)."""
    if _has_dlpack(value):
        return None
    cai = getattr(value, "__cuda_array_interface__", None)
    if not is_dict(cai) or cai.get("version", 2) < 3:
        return None
    stream = cai.get("stream")
    return stream if isinstance(stream, int) and stream > 0 else None


def _library_stream(value: Any) -> int | None:
    """The current stream of the library that made `value` (CuPy or PyTorch), if either."""
    library = type(value).__module__.split(".", 1)[0]
    device = _device_ordinal(value)
    if library == "cupy" and "cupy" in sys.modules:
        cupy = sys.modules["cupy"]
        if device is None:  # no device named: CuPy's current one
            return stream_handle(cupy.cuda.get_current_stream())
        with cupy.cuda.Device(device):
            return stream_handle(cupy.cuda.get_current_stream())
    if library == "torch" and "torch" in sys.modules:
        torch = sys.modules["torch"]
        return stream_handle(torch.cuda.current_stream(device))
    return None
