"""Kernel time: the median of repeated measurements after warm-up.

A timer measures one call of a function and returns milliseconds. On the GPU it is a pair of
CUDA events recorded around the launches on the current stream (device time only: the data is
already resident, nothing is copied); on the CPU device a wall clock; in the tests a fake.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Timer = Callable[[Callable[[], Any]], float]


@dataclass(frozen=True)
class Timing:
    median_ms: float
    min_ms: float
    max_ms: float
    samples_ms: tuple[float, ...]


def measure(fn: Callable[[], Any], timer: Timer, warmup: int, reps: int) -> Timing:
    """Call `fn` `warmup` times untimed (compilation, caches, cuBLAS heuristics), then time
    `reps` calls one by one and keep their median."""
    if reps < 1:
        raise ValueError(f"reps must be at least 1, got {reps}")
    for _ in range(warmup):
        fn()
    samples = tuple(timer(fn) for _ in range(reps))
    return Timing(statistics.median(samples), min(samples), max(samples), samples)


def cuda_event_timer(cupy: Any) -> Timer:
    """Events around `fn` on CuPy's current stream, which is also the stream PyTorch's default
    stream uses (the legacy default stream), so peers launched through either are covered."""

    def timer(fn: Callable[[], Any]) -> float:
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        return float(cupy.cuda.get_elapsed_time(start, end))

    return timer


def wall_timer(fn: Callable[[], Any]) -> float:
    begin = time.perf_counter()
    fn()
    return (time.perf_counter() - begin) * 1e3
