"""OpenMP's `thread_limit(N)` (recorded on the loop by the frontend, docs/ir.md) bounds the
threads per block of every candidate the tuner tries, also once the device's own limit is
known."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from autogpu.tuner.driver import TuneOptions, prepare
from autogpu.tuner.single import device_space

LIMITED = """
void k(int n, int m, const float *x, float *y) {
#pragma omp target teams distribute parallel for collapse(2) thread_limit(64)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      y[i * m + j] = x[i * m + j] + 1;
}
"""


def threads(candidate: Mapping[str, Any]) -> int:
    return math.prod(candidate.get(name, 1) for name in ("block_size", "block_y"))


def test_thread_limit_bounds_the_block_of_every_candidate():
    limited = prepare(TuneOptions(LIMITED, sizes={"n": 100, "m": 100}, backend="cpu"))
    assert limited.thread_limit == 64
    assert limited.candidates
    assert max(threads(c) for c in limited.candidates) <= 64
    free = prepare(TuneOptions(LIMITED.replace(" thread_limit(64)", ""),
                               sizes={"n": 100, "m": 100}, backend="cpu"))  # fmt: skip
    assert free.thread_limit is None
    assert max(threads(c) for c in free.candidates) > 64


def test_the_device_limit_does_not_lift_thread_limit():
    limited = prepare(TuneOptions(LIMITED, sizes={"n": 100, "m": 100}, backend="cpu"))
    space, candidates = device_space(limited, {"max_threads_per_block": 1024,
                                               "max_shared_per_block": 49152})  # fmt: skip
    assert space.environment["max_threads"] == 64
    assert max(threads(c) for c in candidates) <= 64
