"""`autogpu_run_<function>` in the tuner's kernel.cu copies host arrays as their OpenMP maps say
(`tuner/map_launcher.py`): the copies it emits, checked on its text and compiled by nvcc (no
GPU needed), and run on the GPU against the serial C's meaning of the maps."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from autogpu.runtime import cuda_exec
from autogpu.tuner.adapter import compile_variant
from autogpu.tuner.host_program import launcher

MAPPED = """
void mapped(int n, const float *a, float *b, float *c, float *d, float *e, float *f) {
#pragma omp target teams distribute parallel for map(to: a[0:n], c[0:n]) map(from: b[0:n], e[0:n]) map(alloc: d[0:n])
  for (int i = 0; i < n; i++) {
    d[i] = 2 * a[i]; b[i] = d[i] + c[i]; c[i] = -1; e[i] += a[i]; f[i] += 1;
  }
}
"""


@pytest.fixture(scope="module")
def kernel_cu() -> str:
    return launcher(compile_variant(MAPPED, "mapped.c", "mapped", "autogpu-vanilla"),
                    {"block_size": 128})


def copies(text: str) -> dict[str, set[str]]:
    """What `autogpu_run_mapped` does with each array: alloc, in, poison, back, free."""
    body = text[text.index("autogpu_run_mapped("):]
    done: dict[str, set[str]] = {}
    patterns = {
        "alloc": r"cudaMalloc\(\(void \*\*\)&agpu_d_(\w+),",
        "in": r"cudaMemcpy\(agpu_d_(\w+), \1, \1_elements \* sizeof\(float\), "
              r"cudaMemcpyHostToDevice\)",
        "poison": r"cudaMemset\(agpu_d_(\w+), 0xFF, \1_elements \* sizeof\(float\)\)",
        "back": r"cudaMemcpy\((\w+), agpu_d_\1, \1_elements \* sizeof\(float\), "
                r"cudaMemcpyDeviceToHost\)",
        "free": r"cudaFree\(agpu_d_(\w+)\)",
    }
    for what, pattern in patterns.items():
        for name in re.findall(pattern, body):
            done.setdefault(name, set()).add(what)
    return done


def test_each_array_is_copied_as_its_map_says(kernel_cu: str):
    assert ("autogpu_run_mapped(int n, const float *a, float *b, float *c, float *d, float *e, "
            "float *f, size_t a_elements, size_t b_elements, size_t c_elements, "
            "size_t d_elements, size_t e_elements, size_t f_elements)") in kernel_cu
    common = {"alloc", "free"}
    assert copies(kernel_cu) == {
        "a": common | {"in"},  # to, const
        "b": common | {"poison", "back"},  # from
        "c": common | {"in"},  # to: the kernel's write stays on the device
        "d": common | {"poison"},  # alloc
        "e": common | {"poison", "back"},  # from, read before written: poison shows
        "f": common | {"in", "back"},  # no map: tofrom
    }
    launch = kernel_cu.index("autogpu_launch_mapped(n, agpu_d_a, agpu_d_b, agpu_d_c, agpu_d_d, "
                             "agpu_d_e, agpu_d_f);")
    body = kernel_cu[kernel_cu.index("autogpu_run_mapped("):]
    assert kernel_cu.rindex("cudaMemcpyHostToDevice") < launch < \
        kernel_cu.index("cudaDeviceSynchronize()") < kernel_cu.index("cudaMemcpyDeviceToHost")
    assert body.count("cudaMemcpy(") == 6  # a, c, f in; b, e, f back


def test_a_const_array_without_a_map_is_not_copied_back():
    saxpy = launcher(compile_variant(open("examples/saxpy.c").read(), "saxpy.c", "saxpy",
                                     "autogpu-vanilla"), {})
    body = saxpy[saxpy.index("autogpu_run_saxpy("):]
    assert "cudaMemcpy(agpu_d_x, x, x_elements * sizeof(float), cudaMemcpyHostToDevice)" in body
    assert "cudaMemcpy(x, agpu_d_x" not in body
    assert "cudaMemcpy(y, agpu_d_y, y_elements * sizeof(float), cudaMemcpyDeviceToHost)" in body


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_nvcc_compiles_the_launcher_without_warnings(kernel_cu: str, tmp_path: Path):
    """Unused by a program that launches on its own device arrays, `autogpu_run_` must not
    warn in every build."""
    (tmp_path / "kernel.cu").write_text(kernel_cu)
    done = subprocess.run(["nvcc", "-c", "-o", str(tmp_path / "kernel.o"),
                           str(tmp_path / "kernel.cu")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr + done.stdout


HOST = r"""
#include "kernel.cu"
#include <math.h>
#include <stdio.h>
int main(void) {
  const int n = 1000;
  static float a[n], b[n], c[n], d[n], e[n], f[n];
  for (int i = 0; i < n; i++) { a[i] = i; b[i] = 7; c[i] = 2; d[i] = 5; e[i] = 3; f[i] = i; }
  cudaError_t err = autogpu_run_mapped(n, a, b, c, d, e, f, n, n, n, n, n, n);
  if (err != cudaSuccess) { printf("error: %s\n", cudaGetErrorString(err)); return 2; }
  for (int i = 0; i < n; i++) {
    if (b[i] != 2.0f * i + 2 || c[i] != 2 || d[i] != 5 || !isnan(e[i]) || f[i] != i + 1) {
      printf("wrong at %d: b %g c %g d %g e %g f %g\n", i, b[i], c[i], d[i], e[i], f[i]);
      return 1;
    }
  }
  printf("maps ok\n");
  return 0;
}
"""


@pytest.mark.skipif(shutil.which("nvcc") is None or cuda_exec.gpu_unavailable_reason() is not None,
                    reason="needs nvcc and a CUDA GPU")
def test_the_maps_on_the_gpu(kernel_cu: str, tmp_path: Path):
    """b (from) gets the kernel's values, not 7; c (to) keeps 2 though the kernel wrote -1; d
    (alloc) keeps 5; e (from, read before written) comes back NaN: its 3 was not copied in;
    f (tofrom) goes both ways."""
    (tmp_path / "kernel.cu").write_text(kernel_cu)
    (tmp_path / "app.cu").write_text(HOST)
    subprocess.run(["nvcc", f"-arch={cuda_exec.device_arch()}", "-I", str(tmp_path), "-o",
                    str(tmp_path / "app"), str(tmp_path / "app.cu")], check=True)
    done = subprocess.run([str(tmp_path / "app")], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "maps ok"
