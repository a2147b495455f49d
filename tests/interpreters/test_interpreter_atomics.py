"""The IR interpreter runs `memref.atomic_rmw`, `agpu.atomic_update` and `agpu.critical` as
their one-thread meaning, so it agrees with gcc's serial build (bit for bit: one thread adds in
the serial order)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from lowered_differential import agree_with_gcc, parsed_c
from sync_kernels import CAS_FORMS, CRITICAL, HISTOGRAM, SCALAR_SUM

from autogpu.interpreters import run_function


class Interpreted:
    def __init__(self, source: str):
        self.module = parsed_c(source)

    def run(self, function: str, *args: Any) -> None:
        run_function(self.module, function, args)


@pytest.mark.parametrize(
    "source, function, cases",
    [
        (HISTOGRAM, "histogram", [{"n": 50, "k": 7, "x": 50, "h": 7, "u": 7, "hf": 7}]),
        (SCALAR_SUM, "total", [{"n": 60, "x": 60, "c": 60, "out": 1, "count": 1}]),
        (CAS_FORMS, "cas", [{"n": 30, "k": 5, "x": 30, "p": 5, "bits": 5, "d": 5, "r": 5}]),
        (CRITICAL, "stats", [{"n": 40, "x": 40, "count": 2, "sum": 1}]),
    ],
    ids=["histogram", "scalar", "cas", "critical"],
)
def test_interpreter_agrees_with_gcc(
    source: str, function: str, cases: Sequence[Mapping[str, Any]]
):
    agree_with_gcc(Interpreted(source), source, function, cases)
