"""Arrays kept on the device between the runs of a function's nests (out-of-core execution,
docs/out-of-core.md): when a function's data exceed the memory budget but one run of a nest
fits it, the run goes in-core on device copies of its arrays, and those copies stay on the
device for the next runs. An array the next run reads again is not copied in again; one evicted
to make room (least recently used first), or left at the end, is copied back only if a run
wrote it. A run in parts first hands every kept array back (`flush`): its parts read and write
the caller's arrays.

The executor supplies the device side (`DeviceMemory`): NumPy buffers in the CPU emulation,
device allocations on the GPU.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from autogpu.dialects.signature import C_TYPES


class DeviceMemory(Protocol):
    """What keeping arrays needs of an executor."""

    def allocate(self, nbytes: int) -> tuple[Any, int]:
        """A buffer of `nbytes` and its address."""
        ...

    def copy_in(self, address: int, array: np.ndarray) -> None: ...

    def copy_out(self, array: np.ndarray, address: int) -> None: ...

    def free(self, buffer: Any) -> None: ...


@dataclass
class KeptArrays:
    """The caller's `arrays` kept on the device within `budget` bytes, most recently used
    last; `copied_in` and `copied_out` record the copies, in order (for tests and reports)."""

    arrays: Mapping[str, np.ndarray]
    budget: int
    memory: DeviceMemory
    kept: dict[str, tuple[Any, int]] = field(default_factory=dict[str, tuple[Any, int]])
    dirty: set[str] = field(default_factory=set[str])
    copied_in: list[str] = field(default_factory=list[str])
    copied_out: list[str] = field(default_factory=list[str])

    def fits(self, names: Collection[str]) -> bool:
        """Whether the arrays `names` fit the budget on their own."""
        return sum(self.arrays[n].nbytes for n in set(names)) <= self.budget

    def prepare(self, names: Collection[str], written: Collection[str]) -> dict[str, int]:
        """The device addresses of `names` for a run that writes `written`: missing arrays are
        copied in, after evicting others until everything kept fits."""
        needed = set(names)
        while sum(self.arrays[n].nbytes for n in needed | set(self.kept)) > self.budget:
            victim = next(n for n in self.kept if n not in needed)
            self._evict(victim)
        for name in sorted(needed - set(self.kept)):
            buffer, address = self.memory.allocate(max(self.arrays[name].nbytes, 1))
            self.kept[name] = (buffer, address)
            if self.arrays[name].nbytes:
                self.memory.copy_in(address, self.arrays[name])
            self.copied_in.append(name)
        for name in sorted(needed):  # most recently used last
            self.kept[name] = self.kept.pop(name)
        self.dirty |= set(written)
        return {name: self.kept[name][1] for name in needed}

    def _evict(self, name: str) -> None:
        buffer, address = self.kept.pop(name)
        if name in self.dirty:
            if self.arrays[name].nbytes:
                self.memory.copy_out(self.arrays[name], address)
            self.copied_out.append(name)
            self.dirty.discard(name)
        self.memory.free(buffer)

    def flush(self) -> None:
        """Every kept array back: the written ones copied out, all freed."""
        for name in list(self.kept):
            self._evict(name)

    def release(self) -> None:
        """Frees everything without copying back (after a failure)."""
        for buffer, _ in self.kept.values():
            self.memory.free(buffer)
        self.kept.clear()
        self.dirty.clear()


class HostBuffers:
    """`DeviceMemory` of the CPU emulation: NumPy buffers of their own, so that a kernel that
    reached the caller's array instead would show."""

    def allocate(self, nbytes: int) -> tuple[Any, int]:
        buffer = np.empty(nbytes, np.uint8)
        return buffer, buffer.ctypes.data

    def copy_in(self, address: int, array: np.ndarray) -> None:
        _view(address, array.nbytes)[:] = np.ascontiguousarray(array).reshape(-1).view(np.uint8)

    def copy_out(self, array: np.ndarray, address: int) -> None:
        array.reshape(-1).view(np.uint8)[:] = _view(address, array.nbytes)

    def free(self, buffer: Any) -> None:
        del buffer


def _view(address: int, nbytes: int) -> np.ndarray:
    byte = C_TYPES["unsigned char"].ctypes
    return np.ctypeslib.as_array((byte * nbytes).from_address(address))
