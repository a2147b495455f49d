"""Array arguments of a call, one interface for host (NumPy) and device (CuPy, PyTorch, any
`__cuda_array_interface__` or DLPack object) arrays.

An executor runs kernels on buffers of its own `Memory` (host memory for the CPU emulation,
device memory for pycuda). `argument.stage(memory)` gives the buffer the kernels use for one
array, and what moves between it and the caller's array follows the parameter's OpenMP `map`
(docs/ir.md, "Data mapping"):

| map | host array | device array |
| --- | --- | --- |
| tofrom (or none) | copied in and back (const: not back) | used in place |
| to | copied in, never back | used in place |
| from | a fresh buffer, poisoned (0xFF bytes), copied back | used in place |
| alloc | a fresh buffer, poisoned, never copied | used in place |

A device array is the device copy already (OpenMP's "present" data: a map moves nothing). The
CPU emulation runs a `tofrom` host array in place, as before maps existed. Poisoning makes a
read of a `from` array before the kernel writes it show (NaN, -1) instead of reading the
caller's values, which OpenMP would not have copied.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from autogpu.runtime.array_views import ArrayView
from autogpu.runtime.errors import KernelArgumentError

if TYPE_CHECKING:
    from autogpu.runtime.arguments import Param

POISON_BYTE = 0xFF


class Memory(ABC):
    """Where an executor's kernels read and write: allocation, copies, and device arrays."""

    @abstractmethod
    def allocate(self, nbytes: int) -> Any:
        """A new buffer of at least `nbytes` (its `pointer(buffer)` is what kernels get)."""

    @abstractmethod
    def pointer(self, allocation: Any) -> int: ...

    @abstractmethod
    def upload(self, allocation: Any, array: np.ndarray) -> None: ...

    @abstractmethod
    def download(self, array: np.ndarray, allocation: Any) -> None: ...

    @abstractmethod
    def poison(self, allocation: Any, nbytes: int) -> None: ...

    @abstractmethod
    def release(self, allocation: Any) -> None: ...

    @abstractmethod
    def adopt(self, argument: DeviceArray) -> int:
        """The pointer the kernels use for a device array (or a `KernelArgumentError`)."""


@dataclass
class Buffer:
    """One array's buffer during a call: the pointer the kernels get, and the moves between it
    and the caller's array that the map asks for."""

    argument: ArrayArgument
    pointer: int
    memory: Memory
    allocation: Any = None  # owned by the buffer (None: the caller's memory, used in place)
    copies_in: bool = False
    copies_back: bool = False

    @property
    def nbytes(self) -> int:
        return self.argument.view.nbytes

    def copy_in(self) -> None:
        if self.copies_in and self.nbytes:
            self.memory.upload(self.allocation, self.argument.host)

    def copy_back(self, into: Mapping[str, np.ndarray] | None = None) -> None:
        if self.copies_back and self.nbytes:
            target = into[self.argument.param.name] if into is not None else self.argument.host
            self.memory.download(target, self.allocation)

    def release(self) -> None:
        if self.allocation is not None:
            self.memory.release(self.allocation)
            self.allocation = None


@dataclass
class ArrayArgument(ABC):
    """A checked array argument: its parameter, the caller's object and its view."""

    param: Param
    value: Any
    view: ArrayView
    keep: list[Any] = field(default_factory=list[Any])

    @property
    def size(self) -> int:
        return self.view.size

    @property
    def host(self) -> np.ndarray:
        raise TypeError(f"'{self.param.name}' is not in host memory")

    @abstractmethod
    def stage(self, memory: Memory, *, in_place: bool = False) -> Buffer:
        """The buffer the kernels use; `in_place`: use a `tofrom` host array itself (the CPU
        emulation's memory is the host's)."""


@dataclass
class HostArray(ArrayArgument):
    """A NumPy array: copied to and from the executor's memory as its map says."""

    @property
    def host(self) -> np.ndarray:
        return self.value

    def stage(self, memory: Memory, *, in_place: bool = False) -> Buffer:
        p = self.param
        if in_place and p.map == "tofrom":
            return Buffer(self, self.view.pointer, memory)
        allocation = memory.allocate(self.view.nbytes)
        buffer = Buffer(self, memory.pointer(allocation), memory, allocation,
                        copies_in=p.map in ("to", "tofrom"),
                        copies_back=p.map in ("from", "tofrom") and not p.const)
        if not buffer.copies_in and self.view.nbytes:
            memory.poison(allocation, self.view.nbytes)
        buffer.copy_in()
        return buffer


@dataclass
class DeviceArray(ArrayArgument):
    """An array in CUDA device memory: the kernels use it where it is; nothing is copied."""

    def stage(self, memory: Memory, *, in_place: bool = False) -> Buffer:
        return Buffer(self, memory.adopt(self), memory)


def array_argument(param: Param, value: Any, view: ArrayView) -> ArrayArgument:
    return (HostArray if view.location == "host" else DeviceArray)(param, value, view)


class HostMemory(Memory):
    """The CPU emulation's memory: NumPy byte buffers."""

    def allocate(self, nbytes: int) -> np.ndarray:
        return np.empty(max(nbytes, 1), np.uint8)

    def pointer(self, allocation: np.ndarray) -> int:
        return allocation.ctypes.data

    def upload(self, allocation: np.ndarray, array: np.ndarray) -> None:
        allocation[: array.nbytes] = array.reshape(-1).view(np.uint8)

    def download(self, array: np.ndarray, allocation: np.ndarray) -> None:
        array.reshape(-1).view(np.uint8)[:] = allocation[: array.nbytes]

    def poison(self, allocation: np.ndarray, nbytes: int) -> None:
        allocation[:nbytes] = POISON_BYTE

    def release(self, allocation: np.ndarray) -> None:
        """NumPy frees it with the last reference."""

    def adopt(self, argument: DeviceArray) -> int:
        raise KernelArgumentError(
            f"argument '{argument.param.name}' is a CUDA device array ({argument.view.kind}): "
            "the CPU emulation runs on host memory; run on backend='cuda', or pass a NumPy "
            "array (e.g. cupy.asnumpy(x), x.cpu().numpy())"
        )
