"""Parts over several devices (issue #15): one lane per device, pulling parts from one queue.

A lane takes the next part when it is free (a dynamic queue), so a faster device takes more
parts: the devices' weights are measured, not assumed. Each lane records what it did
(`LaneRecord`: its parts, bytes in and out, busy seconds), from which its rate follows. Parts
write disjoint rows and read only the caller's arrays (a nest's parts never read what another
part writes: `agpu-out-of-core` refuses it), so lanes need no ordering between them and halos
are simply re-read from the host by each part that needs them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:  # (parts runs the lanes: a type only here)
    from autogpu.runtime.parts import Part


def check_devices(devices: object, count: int | None = None) -> tuple[int, ...]:
    """The device ordinals of an executor's `devices=` option (an int N: devices 0..N-1, or
    a list of ordinals; anything else the caller passed is refused), checked: at least one,
    no repeats, each below `count` (the devices there are) if known."""
    if isinstance(devices, bool) or not isinstance(devices, (int, Sequence)) or \
            isinstance(devices, str):
        raise ValueError(f"devices must be a device count or a list of device ordinals, not "
                         f"{devices!r}")
    ordinals: tuple[object, ...] = (tuple(range(devices)) if isinstance(devices, int)
                                    else tuple(cast(Sequence[object], devices)))
    if not ordinals:
        raise ValueError("devices must name at least one device (devices=[] runs nothing)")
    for device in ordinals:
        if isinstance(device, bool) or not isinstance(device, int) or device < 0:
            raise ValueError(f"devices: {device!r} is not a device ordinal (an int >= 0)")
        if count is not None and device >= count:
            raise ValueError(f"devices: there is no device {device}: there are {count}")
    if len(set(ordinals)) != len(ordinals):
        raise ValueError(f"devices: {list(ordinals)} names a device twice")
    return cast(tuple[int, ...], ordinals)  # each checked above


@dataclass
class LaneRecord:
    """What one device's lane did in one plan: the parts it took (in the order it took them),
    the bytes it copied in and out, and the seconds from its first stage's start to its last
    stage's end."""

    device: int
    parts: list[int] = field(default_factory=list[int])
    bytes_in: int = 0
    bytes_out: int = 0
    seconds: float = 0.0

    @property
    def parts_per_s(self) -> float:
        return len(self.parts) / self.seconds if self.seconds > 0 else 0.0

    @property
    def bytes_per_s(self) -> float:
        return (self.bytes_in + self.bytes_out) / self.seconds if self.seconds > 0 else 0.0


def part_bytes(part: Part, itemsize: dict[str, int]) -> tuple[int, int]:
    """The bytes a part copies in and out."""
    copied_in = sum(s.count * itemsize[s.name] for s in part.slices)
    copied_out = sum((s.copy_out[1] - s.copy_out[0]) * itemsize[s.name]
                     for s in part.slices if s.copy_out is not None)
    return copied_in, copied_out


class PartQueue:
    """The plan's parts, handed out one at a time to whichever lane asks first."""

    def __init__(self, parts: Sequence[Part]):
        self._parts = list(parts)
        self._next = 0
        self._lock = threading.Lock()

    def take(self) -> Part | None:
        """The next part, or None when all are taken."""
        with self._lock:
            if self._next == len(self._parts):
                return None
            self._next += 1
            return self._parts[self._next - 1]


def run_lanes(devices: Sequence[int], lane: Callable[[int, PartQueue, LaneRecord], None],
              parts: Sequence[Part]) -> list[LaneRecord]:
    """Runs `lane(device, queue, record)` for each device, each in a thread of its own (a lane
    waits for its device, so threads suffice), all pulling from one queue of `parts`; the first
    lane's error is raised once all have stopped (the others stop taking parts)."""
    queue = PartQueue(parts)
    records = [LaneRecord(device) for device in devices]
    errors: list[BaseException] = []

    def body(device: int, record: LaneRecord) -> None:
        try:
            lane(device, queue, record)
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread below
            errors.append(e)
            while queue.take() is not None:  # the other lanes stop at their next part
                pass

    threads = [threading.Thread(target=body, args=(device, record), daemon=True,
                                name=f"autogpu-lane-{device}")
               for device, record in zip(devices, records, strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return records
