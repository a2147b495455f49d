"""Runs emitted CUDA on the CPU emulation built with `-fsanitize=signed-integer-overflow`, in a
child process of its own (the sanitizer aborts it at the first signed overflow).

The CPU emulation normally builds with `-fwrapv`, which makes a signed overflow wrap and so
hides what nvcc would treat as undefined behaviour. `tests/target/test_wrapping_arithmetic.py` calls
`run_sanitized(job)`; the child (this file as a script) compiles each pipeline's CUDA with the
sanitizer, runs the job and compares with gcc's serial build, and the parent reports the
sanitizer's message if the child died. A job is JSON: `{"kind": "big", ...}` for kernels
writing a lazily mapped array of 2^31 + 16 floats, `{"kind": "cases", ...}` for random
arguments (`lowered_differential.agree_with_gcc`).
"""

from __future__ import annotations

import json
import mmap
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

SANITIZE = (
    "-fno-wrapv",
    "-fsanitize=signed-integer-overflow",
    "-fno-sanitize-recover=signed-integer-overflow",
)
BIG = 2**31 + 16
"""Elements of a big array: indices up to 2^31 + 15 are in range."""
WINDOWS = [(0, 64), (2**31 - 64, BIG)]
"""The parts of a big array a job compares (scanning 8 GiB would take seconds)."""


def run_sanitized(job: dict[str, Any]) -> None:
    """Runs `job` in a child process; raises AssertionError with its output if it failed."""
    result = subprocess.run(
        [sys.executable, __file__, json.dumps(job)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parent, check=False,
    )
    if result.returncode != 0:
        raise AssertionError(f"sanitized run failed ({result.returncode}):\n"
                             f"{result.stdout[-4000:]}\n{result.stderr[-4000:]}")


def lazy_array(count: int, filled: dict[int, float]) -> np.ndarray:
    """A float32 array whose pages are only allocated when touched, with `filled` set."""
    flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_NORESERVE", 0)
    array = np.frombuffer(mmap.mmap(-1, count * 4, flags=flags), dtype=np.float32)
    for index, value in filled.items():
        array[index] = value
    return array


def _big_arguments(job: dict[str, Any]) -> list[Any]:
    """Scalars as given, then each array parameter as a big array with its `filled` values."""
    args: list[Any] = list(job["scalars"])
    for filled in job["arrays"]:
        args.append(lazy_array(BIG, {int(k): v for k, v in filled.items()}))
    return args


def _windows(args: list[Any]) -> list[np.ndarray]:
    return [a[lo:hi].copy() for a in args if isinstance(a, np.ndarray) for lo, hi in WINDOWS]


def _child(job: dict[str, Any]) -> None:
    from lowered_differential import agree_with_gcc, cuda_of, gcc_reference

    from autogpu.runtime.cpu_exec import CpuProgram

    for pipeline in job["pipelines"]:
        program = cuda_of(job["source"], pipeline)
        runner = CpuProgram(program.source, program.launch, threads=2, extra_flags=SANITIZE)
        print(f"--- {pipeline}\n{program.source}", flush=True)
        if job["kind"] == "cases":
            agree_with_gcc(runner, job["source"], job["function"], job["cases"])
            continue
        expected = _big_arguments(job)
        gcc_reference(job["source"], job["function"])(*expected)
        actual = _big_arguments(job)
        runner.run(job["function"], *actual)
        for got, wanted in zip(_windows(actual), _windows(expected)):
            np.testing.assert_array_equal(got, wanted)


if __name__ == "__main__":
    _child(json.loads(sys.argv[1]))
