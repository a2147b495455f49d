"""The caller's CUDA stream: the stream a call with device arrays is ordered on.

A CuPy or PyTorch user queues work on their library's current stream and expects a kernel to
take its place in that queue: after what they queued before, before what they queue after, with
no wait on the host. `caller_stream(call, stream)` says which stream that is, in this order:

1. the call's own `stream=` argument (a handle, 0 or 1 for the legacy default stream, 2 for
   the per-thread one, or a CuPy `Stream` (`.ptr`), a PyTorch `torch.cuda.Stream`
   (`.cuda_stream`), any object with one of those);
2. the current stream of the library of the first device array: CuPy's
   `cupy.cuda.get_current_stream()`, PyTorch's `torch.cuda.current_stream()` (asked only when
   that library is imported already: its arrays are in the call);
3. the CUDA array interface v3 `stream` of the first device array that gives one;
4. CUDA's legacy default stream.

The GPU executor (`cuda_exec.py`) orders its launches after the work queued on that stream
(and on each producer's stream), and that stream after its launches (events; docs/executors.md).
"""

from __future__ import annotations

import sys
from typing import Any

from autogpu.runtime.arguments import BoundCall
from autogpu.runtime.array_arguments import DeviceArray
from autogpu.runtime.array_views import LEGACY_STREAM
from autogpu.runtime.errors import KernelArgumentError


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


def caller_stream(call: BoundCall, stream: Any = None) -> int:
    """The stream the call is ordered on (see the module's docstring)."""
    if stream is not None:
        return stream_handle(stream)
    devices = [a for a in call.arrays() if isinstance(a, DeviceArray)]
    for argument in devices[:1]:
        current = _library_stream(argument.value, argument.view.device)
        if current is not None:
            return current
    for argument in devices:
        if argument.view.stream is not None:
            return argument.view.stream
    return LEGACY_STREAM


def _library_stream(value: Any, device: int | None) -> int | None:
    """The current stream of the library that made `value` (CuPy or PyTorch), if either."""
    library = type(value).__module__.split(".", 1)[0]
    if library == "cupy" and "cupy" in sys.modules:
        cupy = sys.modules["cupy"]
        if device is None:  # the CUDA array interface names no device: CuPy's current one
            return stream_handle(cupy.cuda.get_current_stream())
        with cupy.cuda.Device(device):
            return stream_handle(cupy.cuda.get_current_stream())
    if library == "torch" and "torch" in sys.modules:
        torch = sys.modules["torch"]
        return stream_handle(torch.cuda.current_stream(device))
    return None
