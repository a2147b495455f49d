"""Runs emitted CUDA on the CPU emulation with every array argument ending where an unreadable
page begins, in a child process of its own: a kernel that reads (or writes) past the end of an
array dies of SIGSEGV instead of reading a neighbour's bytes unnoticed. The differential tests
cannot see such a read when its value is never used (a tile element no thread consumes), so
the unguarded copies of whole tiles (`gpu-cache-shared{full_tiles}`) are checked here.

A job is JSON: `{"source", "function", "pipeline", "cases"}` as `agree_with_gcc` takes them.
"""

from __future__ import annotations

import ctypes
import json
import mmap
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

from autogpu.numeric import is_ndarray

PAGE = mmap.PAGESIZE
PROT_NONE = 0


def run_guarded(job: dict[str, Any]) -> None:
    """Runs `job` in a child process; raises AssertionError with its output if it failed."""
    result = subprocess.run([sys.executable, __file__, json.dumps(job)], capture_output=True,
                            text=True, cwd=Path(__file__).parent, check=False)
    if result.returncode != 0:
        raise AssertionError(f"guarded run failed ({result.returncode}):\n"
                             f"{result.stdout[-4000:]}\n{result.stderr[-4000:]}")


def guarded_copy(array: np.ndarray) -> np.ndarray:
    """A copy of `array` whose last byte is followed by a page that cannot be read."""
    size = array.nbytes
    pages = -(-size // PAGE) + 1
    memory = mmap.mmap(-1, pages * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(memory))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mprotect(ctypes.c_void_p(base + (pages - 1) * PAGE), PAGE, PROT_NONE) != 0:
        raise OSError(ctypes.get_errno(), "mprotect failed")
    copy = np.frombuffer(memory, array.dtype, array.size, (pages - 1) * PAGE - size)
    copy[...] = array
    return copy


class GuardedRunner:
    """Runs a program on guarded copies of the array arguments, then copies them back."""

    def __init__(self, program: Any):
        self.program = program

    def run(self, function: str, *args: Any) -> None:
        copies = [guarded_copy(a) if is_ndarray(a) else a for a in args]
        self.program.run(function, *copies)
        for original, copy in zip(args, copies):
            if isinstance(original, np.ndarray):
                original[...] = copy


def _child(job: dict[str, Any]) -> None:
    from lowered_differential import agree_with_gcc, cuda_of

    from autogpu.runtime.cpu_exec import CpuProgram

    program = cuda_of(job["source"], job["pipeline"])
    runner = CpuProgram(program.source, program.launch, threads=2)
    agree_with_gcc(GuardedRunner(runner), job["source"], job["function"], job["cases"])


if __name__ == "__main__":
    _child(json.loads(sys.argv[1]))
