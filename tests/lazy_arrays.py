"""Arrays of 2^31 and more elements for differential tests on the CPU emulation: mapped lazily,
so that only the pages a kernel touches are allocated, with random values in a few windows."""

from __future__ import annotations

import mmap
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


def lazy_zeros(count: int) -> np.ndarray:
    """A zero float32 array whose pages are only allocated when touched (no reservation)."""
    flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_NORESERVE", 0)
    return np.frombuffer(mmap.mmap(-1, count * 4, flags=flags), dtype=np.float32)


def run_on_windows(
    run: Callable[..., Any],
    scalars: dict[str, int],
    arrays: Sequence[tuple[int, Sequence[tuple[int, int]]]],
    order: Sequence[str],
    seed: int,
) -> list[np.ndarray]:
    """Calls `run` with `scalars` and lazily mapped arrays (`(elements, windows)` each, random
    values in the windows, the same for every runner), returns every window afterwards."""
    rng = np.random.default_rng(seed)
    buffers: list[np.ndarray] = []
    for count, windows in arrays:
        buffer = lazy_zeros(count)
        for lo, hi in windows:
            buffer[lo:hi] = rng.uniform(-1, 1, hi - lo).astype(np.float32)
        buffers.append(buffer)
    named: dict[str, int | np.ndarray] = dict(scalars)
    named.update({name: buffer for name, buffer in zip(
        [n for n in order if n not in scalars], buffers)})
    run(*[named[n] for n in order])
    return [buffer[lo:hi].copy() for buffer, (_, windows) in zip(buffers, arrays)
            for lo, hi in windows]
