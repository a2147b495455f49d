"""Differential testing of whole pipelines down to CUDA: C source -> passes (ending with the
lowering) -> CUDA -> the CPU emulation of CUDA, compared with gcc's build of the serial C on
random inputs (bit for bit unless a reduction reorders a sum). One compile per pipeline, shared by
all the size cases of a test; `one_translation_unit` puts many emitted sources in one file for a
single nvcc compile check."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from pass_differential import example as example  # re-exported: the tests import it from here
from pass_differential import parsed_c
from xdsl.dialects.builtin import ModuleOp

from autogpu.api import run_pipeline
from autogpu.interpreters import run_function
from autogpu.numeric import is_ndarray
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.target.cuda_target import CudaProgram, emit_cuda
from autogpu.testing import assert_same_outputs, compile_c_reference, copy_args, random_args

STATS = """
void stats(const int *x, int *out, int n, int m) {
  int best = -1000;
  float total = 0.5f;
#pragma omp parallel for collapse(2) reduction(max : best) reduction(+ : total)
  for (int j = 0; j < m; j++)
    for (int i = 0; i < n; i++) {
      int v = x[i + j * n];
      best = v > best ? v : best;
      total += (float)v;
    }
  out[0] = best;
  out[1] = (int)total;
}
"""
"""Two reductions of different kinds and types over a 2D nest."""


@functools.cache
def gcc_reference(source: str, function: str):
    """gcc's build of the serial C function, once per source."""
    return compile_c_reference(source, function)


def lowered(source: str, pipeline: str) -> ModuleOp:
    module = parsed_c(source).clone()
    return run_pipeline(module, pipeline)


def cuda_of(source: str, pipeline: str) -> CudaProgram:
    return emit_cuda(lowered(source, pipeline))


def close_sums(actual: list[Any], expected: list[Any]) -> None:
    """A parallel reduction adds in another order: equal up to rounding."""
    for a, e in zip(actual, expected):
        if is_ndarray(e):
            np.testing.assert_allclose(a, e, rtol=1e-4, atol=1e-4)


def interpreter_agrees_with_gcc(source: str, function: str,
                                cases: Sequence[Mapping[str, Any]], seeds: int = 2) -> None:
    """The frontend's IR of `function`, run on the reference interpreter, leaves the same
    outputs as gcc's serial build for each case (the frontend checked before any pass)."""
    module = parsed_c(source)
    for sizes in cases:
        for seed in range(seeds):
            args = random_args(module, sizes, seed, function=function)
            expected, actual = copy_args(args), copy_args(args)
            gcc_reference(source, function)(*expected)
            run_function(module, function, actual)
            assert_same_outputs(actual, expected)


def check_against_gcc(
    source: str,
    function: str,
    pipeline: str,
    cases: Sequence[Mapping[str, Any]],
    *,
    compare: Callable[[list[Any], list[Any]], None] = assert_same_outputs,
    seeds: int = 2,
    thread_order: str = "random",
    before_run: Callable[[dict[str, Any], Mapping[str, Any]], None] | None = None,
) -> CudaProgram:
    """`function` compiled through `pipeline` and run on the CPU emulation leaves the same
    outputs as gcc's serial build for each case (array sizes and scalar values, see
    `autogpu.testing.random_args`). `before_run(launch_entry, case)` may check the call first."""
    program = cuda_of(source, pipeline)
    runner = CpuProgram(program.source, program.launch, threads=2, thread_order=thread_order)
    (entry,) = [f for f in program.launch["functions"] if f["name"] == function]
    agree_with_gcc(runner, source, function, cases, compare=compare, seeds=range(seeds),
                   before_case=None if before_run is None else
                   (lambda sizes: before_run(entry, sizes)))
    return program


def agree_with_gcc(
    runner: Any,
    source: str,
    function: str,
    cases: Sequence[Mapping[str, Any]],
    *,
    module: ModuleOp | None = None,
    compare: Callable[[list[Any], list[Any]], None] = assert_same_outputs,
    seeds: Sequence[int] = (0, 1),
    before_case: Callable[[Mapping[str, Any]], None] | None = None,
) -> None:
    """`runner` (the emitted CUDA on the CPU emulation, or a `CudaProgram`) leaves the same
    outputs of `function` as gcc's serial build, on random arguments of each size case and seed
    (see `autogpu.testing.random_args`; drawn from `module`, default the frontend's IR of
    `source`)."""
    reference = gcc_reference(source, function)
    module = module or parsed_c(source)
    for sizes in cases:
        if before_case is not None:
            before_case(sizes)
        for seed in seeds:
            args = random_args(module, sizes, seed, function=function)
            expected, actual = copy_args(args), copy_args(args)
            reference(*expected)
            runner.run(function, *actual)
            compare(actual, expected)


def one_translation_unit(programs: Sequence[CudaProgram]) -> str:
    """The sources of several programs as one CUDA file: each in its own namespace, its kernels
    (`extern "C"`, so namespaces do not separate them) renamed with the program's number."""
    parts: list[str] = []
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
