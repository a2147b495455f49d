"""Tiles beyond 48 KiB in the tuner (issue #14): on a device that allows more shared memory per
block (its opt-in maximum, `max_shared`), the shared-memory budgets of autogpu-tiled's passes
are the device's, so DGEMM 128x64x16 tiles are doubled (dynamic shared memory); a variant
whose tiles would pass the device's limit is rejected before it is compiled; the C++ launcher
of testing-platform mode raises a kernel's dynamic shared limit before launching it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from autogpu.tuner import adapter
from autogpu.tuner.host_program import launcher
from autogpu.tuner.kernel import KernelCompiler
from autogpu.tuner.space import DEFAULT_MAX_SHARED, Space, build_space

DGEMM = """
void dgemm_nt(const double *A, const double *B, double *C, int m, int n, int p) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double s = 0.0;
      for (int k = 0; k < p; k++)
        s += A[i * p + k] * B[j * p + k];
      C[i * n + j] = s;
    }
}
"""
H100_SHARED = 232448
NAME = "autogpu-tiled"
FIXED = f"{NAME}{{block_size=32 block_y=8 tm=4 tn=8 cache_pad=4}}"


def dgemm_space(max_shared: int | None) -> Space:
    environment: dict[str, Any] = {"element_bytes": 8}
    if max_shared is not None:
        environment["max_shared"] = max_shared
    return build_space(adapter.parse_pipeline_spec(FIXED), {NAME: adapter.pass_options(NAME)},
                       environment, pass_restrictions={NAME: adapter.pass_restrictions(NAME)},
                       parallel_dims=2)


def budgets(space: Space, config: dict[str, Any]) -> dict[str, Any]:
    (spec,) = space.pipeline(config)
    return {k: v for k, v in spec.options.items() if k.endswith("shared_budget")}


def test_the_devices_limit_doubles_dgemm_128x64x16():
    """No device known: 48 KiB, the budgets stay at their defaults and the 49.9 KB doubled
    tiles are not in the space. On the H100 both budgets are its 227 KiB and they are."""
    static = dgemm_space(None)
    assert {c["stages"] for c in static.enumerate() if c["bk"] == 16} == {1}
    assert all(not budgets(static, c) for c in static.enumerate())
    h100 = dgemm_space(H100_SHARED)
    doubled = [c for c in h100.enumerate() if c["bk"] == 16 and c["stages"] == 2]
    assert doubled
    assert budgets(h100, doubled[0]) == {"shared_budget": (H100_SHARED,),
                                         "pipeline_shared_budget": (H100_SHARED,)}


def test_a_budget_the_user_gives_is_kept():
    space = build_space(adapter.parse_pipeline_spec(
        f"{NAME}{{block_size=32 block_y=8 tm=4 tn=8 shared_budget=1024}}"),
        {NAME: adapter.pass_options(NAME)}, {"element_bytes": 8, "max_shared": H100_SHARED},
        pass_restrictions={NAME: adapter.pass_restrictions(NAME)}, parallel_dims=2)
    config = space.enumerate()[0]
    assert budgets(space, config) == {"shared_budget": (1024,),
                                      "pipeline_shared_budget": (H100_SHARED,)}


def test_variants_past_the_devices_limit_are_never_compiled():
    """A device of 64 KiB: DGEMM 128x64x32 doubled (100 KB) is rejected by the restriction
    before compiling; 128x64x16 doubled (49.9 KB) is compiled and fits."""
    space = dgemm_space(64 * 1024)
    configs = space.enumerate()
    assert not [c for c in configs if c["bk"] == 32 and c["stages"] == 2]
    over = {**next(c for c in configs if c["bk"] == 32), "stages": 2}
    assert "stages * bk" in (space.rejects(over) or "")
    config = next(c for c in configs if c["bk"] == 16 and c["stages"] == 2 and c["cache"]
                  and c["vector_width"] == 4 and c["cache_copy_width"] == 4)
    compiler = KernelCompiler(DGEMM, "<test>", "dgemm_nt", space,
                              {"m": 300, "n": 257, "p": 33}, max_shared=64 * 1024)
    artifact = adapter.compile_variant(DGEMM, "<test>", "dgemm_nt", compiler.pipeline(config))
    assert compiler.check(config, artifact) is None
    (launch,) = artifact.entry["launches"]
    assert DEFAULT_MAX_SHARED < int(launch["dynamic_shared_bytes"]) <= 64 * 1024
    small = KernelCompiler(DGEMM, "<test>", "dgemm_nt", space, {"m": 300, "n": 257, "p": 33},
                           max_shared=48 * 1024)
    assert "bytes of shared memory per block > limit 49152" in (small.check(config, artifact)
                                                                 or "")


def dgemm_artifact(more: str = "") -> adapter.Artifact:
    spec = (f"{NAME}{{block_size=32 block_y=8 tm=4 tn=8 bk=16 stages=2 "
            f"pipeline_shared_budget={H100_SHARED} {more}}}")
    return adapter.compile_variant(DGEMM, "<test>", "dgemm_nt", spec)


def test_the_launcher_opts_in_beyond_48_kib():
    text = launcher(dgemm_artifact(), {})
    assert ("  if ((size_t)(51072) + 0 > 49152) cudaFuncSetAttribute(dgemm_nt_kernel, "
            "cudaFuncAttributeMaxDynamicSharedMemorySize, (int)(51072));") in text
    assert text.index("cudaFuncSetAttribute") < text.index("dgemm_nt_kernel<<<")
    single = launcher(adapter.compile_variant(DGEMM, "<test>", "dgemm_nt", FIXED), {})
    assert "cudaFuncSetAttribute" not in single


MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "kernel.cu"
int main(void) {
  const int m = 300, n = 257, p = 33;
  double *A = (double *)malloc(sizeof(double) * m * p), *B = (double *)malloc(sizeof(double) * n * p);
  double *C = (double *)calloc((size_t)m * n, sizeof(double));
  for (int i = 0; i < m * p; i++) A[i] = (i % 17) * 0.25 - 1.0;
  for (int i = 0; i < n * p; i++) B[i] = (i % 13) * 0.5 - 3.0;
  cudaError_t e = autogpu_run_dgemm_nt(A, B, C, m, n, p, (size_t)m * p, (size_t)n * p, (size_t)m * n);
  if (e != cudaSuccess) { printf("error %s\n", cudaGetErrorString(e)); return 2; }
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double s = 0.0;
      for (int k = 0; k < p; k++) s += A[i * p + k] * B[j * p + k];
      if (fabs(s - C[i * n + j]) > 1e-9) { printf("wrong at %d %d\n", i, j); return 1; }
    }
  printf("OK\n");
  return 0;
}
"""


def _no_cuda_program() -> str | None:
    if shutil.which("nvcc") is None:
        return "needs nvcc"
    try:
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True,
                                timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "needs an NVIDIA GPU (no nvidia-smi)"
    return None if listed.returncode == 0 and "GPU" in listed.stdout else "needs an NVIDIA GPU"


@pytest.mark.skipif(_no_cuda_program() is not None, reason=f"{_no_cuda_program()}")
def test_the_launcher_runs_a_kernel_beyond_48_kib_on_the_gpu(tmp_path: Path):
    (tmp_path / "kernel.cu").write_text(launcher(dgemm_artifact(), {}))
    (tmp_path / "main.cu").write_text(MAIN)
    subprocess.run(["nvcc", "-O2", "-arch=native", "-o", str(tmp_path / "app"),
                    str(tmp_path / "main.cu")], check=True, capture_output=True, timeout=300)
    done = subprocess.run([str(tmp_path / "app")], capture_output=True, text=True, timeout=60,
                          check=False)
    assert (done.returncode, done.stdout.strip()) == (0, "OK")
