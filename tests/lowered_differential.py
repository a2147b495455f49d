"""Differential testing of whole pipelines down to CUDA: C source -> passes (ending with the
lowering) -> CUDA -> the CPU emulation of CUDA, compared with gcc's build of the serial C on
random inputs (bit for bit unless a reduction reorders a sum). One compile per pipeline, shared by
all the size cases of a test; `one_translation_unit` puts many emitted sources in one file for a
single nvcc compile check."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from autogpu.api import run_pipeline
from autogpu.backend.cpu_exec import CpuProgram
from autogpu.backend.cuda_target import CudaProgram, emit_cuda
from autogpu.frontend import parse_c
from autogpu.testing import assert_same_outputs, compile_c_reference, copy_args, random_args

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

def example(name: str) -> str:
    return (EXAMPLES / name).read_text()


@functools.cache
def _parsed(source: str) -> ModuleOp:
    return parse_c(source, "<test>")


@functools.cache
def _reference(source: str, function: str):
    return compile_c_reference(source, function)


def lowered(source: str, pipeline: str) -> ModuleOp:
    module = _parsed(source).clone()
    return run_pipeline(module, pipeline)


def cuda_of(source: str, pipeline: str) -> CudaProgram:
    return emit_cuda(lowered(source, pipeline))


def close_sums(actual: list[Any], expected: list[Any]) -> None:
    """A parallel reduction adds in another order: equal up to rounding."""
    for a, e in zip(actual, expected):
        if isinstance(e, np.ndarray):
            np.testing.assert_allclose(a, e, rtol=1e-4, atol=1e-4)


def check_against_gcc(
    source: str,
    function: str,
    pipeline: str,
    cases: Sequence[Mapping[str, Any]],
    *,
    compare: Callable[[list[Any], list[Any]], None] = assert_same_outputs,
    seeds: int = 2,
    thread_order: str = "forward",
    before_run: Callable[[dict[str, Any], Mapping[str, Any]], None] | None = None,
) -> CudaProgram:
    """`function` compiled through `pipeline` and run on the CPU emulation leaves the same
    outputs as gcc's serial build for each case (array sizes and scalar values, see
    `autogpu.testing.random_args`). `before_run(launch_entry, case)` may check the call first."""
    program = cuda_of(source, pipeline)
    runner = CpuProgram(program.source, program.launch, threads=2, thread_order=thread_order)
    reference = _reference(source, function)
    module = _parsed(source)
    (entry,) = [f for f in program.launch["functions"] if f["name"] == function]
    for sizes in cases:
        if before_run is not None:
            before_run(entry, sizes)
        for seed in range(seeds):
            args = random_args(module, sizes, seed, function=function)
            expected, actual = copy_args(args), copy_args(args)
            reference(*expected)
            runner.run(function, *actual)
            compare(actual, expected)
    return program


def one_translation_unit(programs: Sequence[CudaProgram]) -> str:
    """The sources of several programs as one CUDA file: each in its own namespace, its kernels
    (`extern "C"`, so namespaces do not separate them) renamed with the program's number."""
    parts = []
    for number, program in enumerate(programs):
        source = program.source
        kernels = {entry["kernel"] for f in program.launch["functions"] for entry in f["launches"]}
        for kernel in sorted(kernels, key=len, reverse=True):
            source = re.sub(rf"\b{re.escape(kernel)}\b", f"{kernel}_p{number}", source)
        parts.append(f"namespace p{number} {{\n{source}}}\n")
    return "\n".join(parts)


def matmul(m: int, n: int, p: int) -> dict[str, int]:
    return {"m": m, "n": n, "p": p, "A": max(m * n, 1), "B": max(m * p, 1), "C": max(p * n, 1)}


def conv2d(n: int, m: int, t: int) -> dict[str, int]:
    padded = max(n + t - 1, 0) * max(m + t - 1, 0)
    return {"n": n, "m": m, "t": t, "out": max(n * m, 1), "tmpl": max(t * t, 1),
            "in": max(padded, 1)}  # fmt: skip


def jacobi(n: int, m: int) -> dict[str, int]:
    return {"n": n, "m": m, "in": max(n * m, 1), "out": max(n * m, 1)}


def saxpy(n: int) -> dict[str, Any]:
    return {"n": n, "a": 1.5, "x": max(n, 1), "y": max(n, 1)}
