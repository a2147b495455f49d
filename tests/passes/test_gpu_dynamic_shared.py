"""Shared tiles beyond CUDA's 48 KiB of static shared memory (`gpu-dynamic-shared`, issue #14):
double-buffered DGEMM 128x64x16 and SGEMM 128x128x32 tiles and single DGEMM 128x64x32 tiles,
carved out of the block's dynamic shared memory, agree with gcc on the CPU emulation (threads
in random order, blocks shuffled) at sizes that divide nothing; so does a kernel whose array
reduction keeps its run-time section in the same buffer; nvcc compiles them; on a GPU they run
through pycuda's launches, the driver's (`DriverKernel`) and the tuner's C++ launcher."""

from __future__ import annotations

import re

import numpy as np
import pytest
from lowered_differential import agree_with_gcc, cuda_of, one_translation_unit
from test_gemm_fragments import tiled
from test_gpu_cache_shared_block_tiles import DOUBLE, ROW_MAJOR, sizes, transformed

from autogpu.diagnostics import CompileError
from autogpu.runtime import cuda_exec
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.target.cuda_limits import SHARED_BYTES_PER_BLOCK
from autogpu.target.cuda_target import CudaProgram, emit_cuda
from autogpu.testing.nvcc import assert_compiles_with_nvcc

H100_SHARED = 227 * 1024
"""The H100's opt-in maximum of shared memory per block."""

DGEMM_S2 = tiled("block_size=32 block_y=8", 4, 8, 16,
                 f"stages=2 swizzle=true pipeline_shared_budget={H100_SHARED}")
SGEMM_S2 = tiled("block_size=16 block_y=16", 8, 8, 32,
                 f"stages=2 swizzle=true pipeline_shared_budget={H100_SHARED}")
DGEMM_BK32 = tiled("block_size=32 block_y=8", 4, 8, 32, f"shared_budget={H100_SHARED}")

# whole 128x64 blocks and k-tiles beside ragged ones; k = 0, 1 and 2+ tiles
SIZES = [(130, 67, 33), (129, 130, 16), (17, 65, 130), (128, 64, 0), (1, 1, 1), (257, 3, 47)]

CASES = [
    # (id, source, function, pipeline, tile bytes)
    ("dgemm-128x64x16-stages2", DOUBLE, "dgemm_nt", DGEMM_S2, 51072),
    ("sgemm-128x128x32-stages2", ROW_MAJOR, "gemm_nn", SGEMM_S2, 66528),
    ("dgemm-128x64x32", DOUBLE, "dgemm_nt", DGEMM_BK32, 51136),
]


def shared_bytes(program: CudaProgram) -> tuple[str, int]:
    (function,) = program.launch["functions"]
    (launch,) = function["launches"]
    return launch["dynamic_shared_bytes"], launch["static_shared_bytes"]


@pytest.mark.parametrize("source, function, spec, tiles", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_tiles_beyond_48_kib_are_dynamic_and_match_gcc(source: str, function: str, spec: str,
                                                       tiles: int):
    program = emit_cuda(transformed(source, spec))
    assert tiles > SHARED_BYTES_PER_BLOCK
    assert shared_bytes(program) == (str(tiles), 0)
    assert "extern __shared__ __align__(16) unsigned char agpu_dynamic_shared[];" in \
        program.source
    assert not re.search(r"__shared__ (__align__\(\d+\) )?(float|double) ", program.source)
    cpu = CpuProgram(program.source, program.launch, threads=2, thread_order="random")
    agree_with_gcc(cpu, source, function, [sizes(*s) for s in SIZES])


def test_within_48_kib_tiles_stay_static():
    """The 48 KiB budget (the default: no device known) keeps today's kernel: DGEMM 128x64x16
    single-buffered in static arrays, as without the pass."""
    program = emit_cuda(transformed(DOUBLE, DGEMM_S2.replace(f" pipeline_shared_budget="
                                                             f"{H100_SHARED}", "")))
    assert shared_bytes(program) == ("0", 25536)
    assert "extern __shared__" not in program.source


def test_every_kernel_dynamic_when_asked():
    """`dynamic_shared_above=0` moves even small tiles (the 4x4x4 test tiles)."""
    program = emit_cuda(transformed(DOUBLE, tiled(more="dynamic_shared_above=0")))
    dynamic, static = shared_bytes(program)
    assert static == 0
    assert int(dynamic) > 0
    assert "agpu_dynamic_shared + 0)" in program.source


HIST_SUM = """
void hist_sum(const unsigned char *data, int *hist, int *total, int n, int K) {
  int s = 0;
#pragma omp parallel for reduction(+ : hist[0:K]) reduction(+ : s)
  for (int i = 0; i < n; i++) {
    hist[data[i] % K] += 1;
    s += data[i];
  }
  total[0] = s;
}
"""
"""A run-time section of an array reduction (dynamic shared memory) beside the warp partials of
a scalar reduction (a fixed-size shared array): with `dynamic_shared_above=0` both live in the
one buffer, the section after the partials."""


def hist_case(n: int, k: int) -> dict[str, int]:
    return {"n": n, "K": k, "data": max(n, 1), "hist": k, "total": 1}


def test_a_run_time_section_after_the_carved_arrays():
    program = cuda_of(HIST_SUM, "autogpu-optimize{dynamic_shared_above=0}")
    kernel = program.source[program.source.index("hist_sum_kernel1("):]
    assert kernel.count("extern __shared__") == 1
    partials = re.search(r"int\* const \w+ = reinterpret_cast<int\*>\(agpu_dynamic_shared "
                         r"\+ 0\);", kernel)
    section = re.search(r"int\* const hist_shared = reinterpret_cast<int\*>\("
                        r"agpu_dynamic_shared \+ (\d+)\);", kernel)
    assert partials
    assert section
    carved = int(section[1])
    launches = program.launch["functions"][0]["launches"]
    assert any(launch["dynamic_shared_bytes"].endswith(f" + {carved})") for launch in launches)
    cpu = CpuProgram(program.source, program.launch, threads=2, thread_order="random")
    # K within the section's cap (copy in shared memory) and beyond it (global atomics)
    agree_with_gcc(cpu, HIST_SUM, "hist_sum",
                   [hist_case(*c) for c in ((1000, 7), (3000, 300), (5, 9000), (0, 3))])


def test_bad_threshold_is_refused():
    with pytest.raises(CompileError, match="above must be at least 0 bytes, got -1"):
        cuda_of(HIST_SUM, "gpu-dynamic-shared{above=-1}")


def test_nvcc_compiles():
    programs = [emit_cuda(transformed(source, spec)) for _, source, _, spec, _ in CASES]
    programs.append(cuda_of(HIST_SUM, "autogpu-optimize{dynamic_shared_above=0}"))
    assert_compiles_with_nvcc(one_translation_unit(programs))


NO_GPU = cuda_exec.gpu_unavailable_reason()


@pytest.mark.skipif(NO_GPU is not None, reason=f"needs a CUDA GPU: {NO_GPU}")
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_beyond_48_kib_on_the_gpu(case: tuple[str, str, str, str, int]):
    """pycuda's launches: the executor raises the kernel's dynamic shared limit."""
    _, source, function, spec, _ = case
    program = emit_cuda(transformed(source, spec))
    gpu_program = cuda_exec.CudaProgram(program.source, program.launch, fmad=False)
    agree_with_gcc(gpu_program, source, function,
                   [sizes(*s) for s in ((256, 128, 32), (300, 257, 33), (129, 130, 16))])


@pytest.mark.skipif(NO_GPU is not None, reason=f"needs a CUDA GPU: {NO_GPU}")
def test_beyond_48_kib_through_the_driver_on_a_caller_stream():
    """The driver API's launches (a caller's stream: `DriverKernel`) opt in the same way."""
    torch = pytest.importorskip("torch")
    _, source, function, spec, _ = CASES[0]
    program = emit_cuda(transformed(source, spec))
    gpu_program = cuda_exec.CudaProgram(program.source, program.launch, fmad=False)
    m, n, p = 300, 257, 33
    a = torch.rand(m * p, dtype=torch.float64, device="cuda")
    b = torch.rand(n * p, dtype=torch.float64, device="cuda")
    c = torch.zeros(m * n, dtype=torch.float64, device="cuda")
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        gpu_program.run(function, a, b, c, m, n, p, stream=stream.cuda_stream)
    stream.synchronize()
    expected = a.view(m, p) @ b.view(n, p).T
    np.testing.assert_allclose(c.view(m, n).cpu().numpy(), expected.cpu().numpy(), rtol=1e-12)
