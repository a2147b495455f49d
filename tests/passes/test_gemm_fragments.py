"""Register fragments read as vectors (issue #14): blocked replicas
(`agpu-unroll-parallel{distribution=blocked}`), shared tiles laid out for their readers
(gpu-cache-shared), chunked whole-tile copies (`copy_width`) and `gpu-vectorize`. Differential
tests against gcc's build of the serial C on the CPU emulation, for row-major, column-major,
transposed, double and int products at sizes that divide nothing (whole tiles take the
vectorized copy, ragged ones the scalar fallback), with arrays ending at an unreadable page;
nvcc compiles every kernel."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from guard_page_emulation import run_guarded
from lowered_differential import agree_with_gcc, one_translation_unit
from test_gpu_cache_shared_block_tiles import (
    COLUMN_MAJOR,
    DOUBLE,
    INTEGER,
    ROW_MAJOR,
    TRANSPOSED,
    colmajor,
    sizes,
    transformed,
)
from xdsl.dialects.builtin import ModuleOp

from autogpu.dialects.agpu_vector import VectorLoadOp, VectorStoreOp
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.target.cuda_target import emit_cuda
from autogpu.testing.nvcc import assert_compiles_with_nvcc

if TYPE_CHECKING:
    import numpy as np


def tiled(threads: str = "block_size=4 block_y=4", tm: int = 4, tn: int = 4, bk: int = 4,
          more: str = "") -> str:
    return (f"autogpu-tiled{{{threads} tm={tm} tn={tn} bk={bk} unroll_distribution=blocked "
            f"vector_width=4 cache_copy_width=4 {more}}}")


# whole blocks and k-tiles beside ragged ones, m not a multiple of 4, k = 0, tiny problems
ODD = [(17, 65, 130), (65, 17, 1), (1, 1, 1), (130, 3, 17), (9, 5, 0), (3, 2, 7), (0, 4, 3),
       (32, 32, 8), (33, 31, 9), (16, 48, 12), (48, 16, 4)]

def layout_cases(more: str = "") -> list[tuple[str, str, str, str, list[dict[str, int]]]]:
    """(id, source, function, pipeline, sizes) of the five layouts every fragment option is
    checked on against gcc: row-major, transposed, column-major, double, int; `more` is added
    to each pipeline's options."""
    return [
        ("row-major", ROW_MAJOR, "gemm_nn", tiled(more=more), [sizes(*s) for s in ODD]),
        ("transposed", TRANSPOSED, "gemm_tt", tiled(more=more), [sizes(*s) for s in ODD]),
        ("column-major", COLUMN_MAJOR, "matmul", tiled(more=more), [colmajor(*s) for s in ODD]),
        ("double-nt", DOUBLE, "dgemm_nt", tiled(tm=2, tn=4, more=more),
         [sizes(*s) for s in ODD]),
        ("int-tn", INTEGER, "igemm_tn", tiled("block_size=8 block_y=2", 4, 2, 8, more),
         [sizes(*s) for s in ODD]),
    ]


CASES = [
    # (id, source, function, pipeline, sizes)
    *layout_cases(),
    ("width-2", COLUMN_MAJOR, "matmul", tiled(more="").replace("vector_width=4", "vector_width=2")
     .replace("cache_copy_width=4", "cache_copy_width=2"), [colmajor(*s) for s in ODD]),
    ("global-loads", COLUMN_MAJOR, "matmul", tiled(more="vector_global_loads=true"),
     [colmajor(*s) for s in ODD]),
    ("specialised", COLUMN_MAJOR, "matmul",
     tiled(more='sizes="m=32,n=48,p=16"'), [colmajor(32, 48, 16)]),
]  # fmt: skip


def vector_ops(module: ModuleOp) -> tuple[int, int]:
    ops = list(module.walk())
    return (sum(isinstance(op, VectorLoadOp) for op in ops),
            sum(isinstance(op, VectorStoreOp) for op in ops))


@pytest.mark.parametrize("source, function, spec, cases", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_matches_gcc(source: str, function: str, spec: str, cases: list[dict[str, int]]):
    program = emit_cuda(transformed(source, spec))
    cpu = CpuProgram(program.source, program.launch, threads=1, thread_order="random")
    agree_with_gcc(cpu, source, function, cases)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_fragments_and_copies_are_vectors(case: tuple[str, str, str, str, list[dict[str, int]]]):
    """Every case reads its fragments with vector loads; those whose tile keeps the array's
    fastest dimension fastest also copy it with vector stores."""
    name, source, _, spec, _ = case
    loads, stores = vector_ops(transformed(source, spec))
    assert loads > 0, name
    if name in ("row-major", "column-major", "width-2", "global-loads", "specialised"):
        assert stores > 0, name


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_whole_tile_copies_never_read_past_an_array(case: tuple[str, str, str, str, list[dict[str, int]]]):
    """The chunked copy of a whole tile reads only elements the loads read: with each array
    ending at an unreadable page, ragged sizes still match gcc."""
    _, source, function, spec, cases = case
    run_guarded({"source": source, "function": function, "pipeline": spec, "cases": cases})


def test_column_major_fragments_are_float4():
    """matmul.c (A[i + j*m] += B[i + k*m] * C[k + j*p]) with 8x8 blocked replicas: per step
    of k two LDS.128 of each operand's fragment, the C tile stored transposed (k-major), the B
    tile copied with float4 stores."""
    spec = tiled("block_size=16 block_y=16", 8, 8, 16, "min_blocks=2")
    source = emit_cuda(transformed(COLUMN_MAJOR, spec)).source
    assert "__shared__ __align__(16) float B_sh[2048];" in source
    assert "__shared__ __align__(16) float C_sh[2108];" in source  # 15 * 132 + 128
    assert re.search(r"float4 \w+ = \*reinterpret_cast<const float4 \*>\(&C_sh\[", source)
    assert re.search(r"\*reinterpret_cast<float4 \*>\(&B_sh\[", source)
    # the transposed C tile: k (the array's fastest) is its slowest dimension, its rows of
    # 128 padded to 132 (autogpu-tiled's cache_pad=4)
    assert re.search(r"C_sh\[\w+ \* 132 \+ \w+ \* 8 \+ \w+\] = C\[", source), source


def test_nvcc_compiles():
    programs = [emit_cuda(transformed(source, spec)) for _, source, _, spec, _ in CASES]
    assert_compiles_with_nvcc(one_translation_unit(programs))


def misaligned(array: np.ndarray) -> np.ndarray:
    """`array`'s values in a buffer one element past a 16-byte boundary (a view, not a copy):
    every vector access of it is misaligned unless its index is too."""
    import numpy as np

    buffer = np.empty(array.size + 8, array.dtype)
    shift = (-buffer.ctypes.data % 16) // array.itemsize + 1
    view = buffer[shift:shift + array.size]
    view[...] = array
    assert view.ctypes.data % 16 == array.itemsize
    return view


ALIGNMENT_TRAP = ("-fsanitize=alignment", "-fsanitize-undefined-trap-on-error")
"""An access through a misaligned `float4 *` (a fault on a GPU) traps the CPU emulation."""


CHECKED = tiled(more="vector_global_loads=true")
"""Also the copies' global loads as float4, their alignment tested at run time."""


def run_misaligned(source: str, launch: dict[str, Any], shape: tuple[int, int, int]) -> None:
    """Runs matmul.c's kernel `source` on the CPU emulation, every array one element off a
    16-byte boundary, and compares with gcc's serial build."""
    from lowered_differential import gcc_reference, parsed_c

    from autogpu.testing import assert_same_outputs, copy_args, random_args

    cpu = CpuProgram(source, launch, threads=1, thread_order="random", extra_flags=ALIGNMENT_TRAP)
    args = random_args(parsed_c(COLUMN_MAJOR), colmajor(*shape), 3, function="matmul")
    expected = copy_args(args)
    actual = [misaligned(a) if hasattr(a, "ctypes") else a for a in args]
    gcc_reference(COLUMN_MAJOR, "matmul")(*expected)
    cpu.run("matmul", *actual)
    assert_same_outputs(actual, expected)


@pytest.mark.parametrize("shape", [(32, 48, 16), (33, 31, 9)], ids=["whole", "ragged"])
def test_misaligned_base_pointers_take_the_scalar_fallback(shape: tuple[int, int, int]):
    """The copies' global vector loads test their address at run time: with every array one
    element off a 16-byte boundary, the kernel reads element by element and still matches gcc,
    no access going through a misaligned vector (which would trap here, as it faults on a
    GPU)."""
    program = emit_cuda(transformed(COLUMN_MAJOR, CHECKED))
    assert "% 16 == 0 ?" in program.source  # the run-time test is there
    run_misaligned(program.source, program.launch, shape)


def test_an_unchecked_misaligned_vector_traps(tmp_path: Path):
    """The control of the test above: the same kernel without the run-time test traps (in a
    child process) on the misaligned arrays."""
    program = emit_cuda(transformed(COLUMN_MAJOR, CHECKED))
    unchecked = re.sub(r"reinterpret_cast<unsigned long long>\((\w+)\) % 16 == 0", "true",
                       program.source)
    assert unchecked != program.source
    (tmp_path / "k.cu").write_text(unchecked)
    child = (
        "import sys, pathlib; sys.path[:0] = [sys.argv[2]];"
        "from test_gemm_fragments import *;"
        "program = emit_cuda(transformed(COLUMN_MAJOR, CHECKED));"
        "run_misaligned(pathlib.Path(sys.argv[1]).read_text(), program.launch, (32, 48, 16))"
    )
    here = str(Path(__file__).parent)
    result = subprocess.run([sys.executable, "-c", child, str(tmp_path / "k.cu"), here],
                            capture_output=True, text=True, check=False,
                            env={**os.environ, "PYTHONPATH": f"{Path(here).parent}"
                                 f"{os.pathsep}{os.environ.get('PYTHONPATH', '')}"})
    assert result.returncode == -signal.SIGILL, result.stdout + result.stderr  # the trap


def test_a_window_of_blocked_replicas_is_cached_whole(capfd: pytest.CaptureFixture[str]):
    """conv1d's `in[i + k]` with blocked replicas (autogpu-tiled's default): i = 8 * tx + r,
    so the replicas and the window along k (extent 8 + 16 - 1) overlap the next thread's
    (stride 8): the threads' dimension folds into the window's and each k-tile holds the
    block's 8 * 64 + 16 - 1 elements once (before the fold: 23 x 64, each halo once per
    thread), as the remark says. The kernel matches gcc."""
    from test_gpu_cache_shared_block_tiles import CONV1D

    spec = "autogpu-tiled{cache_remarks=true block_size=64 block_y=1}"
    module = transformed(CONV1D, spec)
    assert "'in' cached (halo) in __shared__ in_sh[527] (extents 527," in capfd.readouterr().err
    program = emit_cuda(module)
    cpu = CpuProgram(program.source, program.launch, threads=1, thread_order="random")
    agree_with_gcc(cpu, CONV1D, "conv1d", [
        {"n": n, "t": t, "in": n + t, "w": max(t, 1), "out": max(n, 1)}
        for n, t in ((130, 17), (1, 1), (65, 0), (3, 9), (1100, 40))])
