"""The tuner on a time-stepped function (a host loop around kernels): it verifies and times the
whole function, every launch of every step; its C++ launcher runs the same host program."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from paths import EXAMPLES

from autogpu.target.launch import evaluate
from autogpu.target.launch_steps import steps_of, trace
from autogpu.tuner.adapter import Artifact
from autogpu.tuner.host_program import launcher

JACOBI_2D = str(EXAMPLES / "omp" / "jacobi_2d.c")


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_tuning_a_time_stepped_function_on_the_cpu(tmp_path: Path):
    import autogpu

    kernel = autogpu.tune(JACOBI_2D, "autogpu-vanilla", sizes={"tsteps": 3, "n": 37},
                          arrays={"A": "n*n", "B": "n*n"}, backend="cpu",
                          space={"block_size": [32, 64], "split_walkers": [0]},
                          cache=str(tmp_path / "c.sqlite"),
                          isolate=False, jobs=0, repetitions=1, warmup=0, progress=False,
                          plot=False, output_dir=str(tmp_path / "out"))
    variants = kernel.tuning.variants
    assert [v["status"] for v in variants] == ["ok", "ok"]  # verified against the serial C
    assert kernel.tuning.best_params in ({"block_size": 32, "split_walkers": 0},
                                         {"block_size": 64, "split_walkers": 0})
    launches = kernel.launch_config(tsteps=3, n=37)
    assert [c["kernel"] for c in launches] == ["jacobi_2d_kernel0", "jacobi_2d_kernel1"] * 3
    best = kernel.tuning.report["best"]
    assert len(best["launch_config"]) == 6  # the report lists every launch the call runs


def _time_stepped_launch() -> tuple[str, dict[str, Any]]:
    kernel = (
        "__global__ void k0(int tsteps, int n, double *A) {}\n"
        "__global__ void k1(int tsteps, int n, double *A, int t) {}\n"
    )
    params = [{"name": "tsteps", "kind": "scalar", "dtype": "int32", "ctype": "int"},
              {"name": "n", "kind": "scalar", "dtype": "int32", "ctype": "int"},
              {"name": "A", "kind": "array", "dtype": "float64", "ctype": "double"}]
    launches = [{"kernel": "k0", "grid": ["max((n + 31) / 32, 1)", "1", "1"],
                 "block": ["32", "1", "1"], "args": ["tsteps", "n", "A"]},
                {"kernel": "k1", "grid": ["max((n - t + 31) / 32, 1)", "1", "1"],
                 "block": ["32", "1", "1"], "args": ["tsteps", "n", "A", "t"]}]
    steps = [{"for": {"var": "t", "ctype": "int", "lb": "tsteps - 1", "ub": "tsteps * 2",
                      "step": "2", "body": [
                          {"launch": 0},
                          {"if": {"cond": "t % 3 != 0 && !(n < 5)", "then": [{"launch": 1}],
                                  "else": [{"launch": 0}]}}]}}]
    function = {"name": "f", "params": params, "launches": launches, "steps": steps}
    return kernel, {"functions": [function]}


def test_launcher_keeps_the_host_loop():
    source, launch = _time_stepped_launch()
    text = launcher(Artifact(source, launch, "f"), {"block_size": 32})
    assert "for (int t = (int)((long long)tsteps - 1); t < agpu_t_ub; t += (int)(2)) {" in text
    assert "if ((long long)t % 3 != 0 && !((long long)n < 5)) {" in text
    assert "k1<<<agpu_grid, agpu_block, (size_t)(0)>>>(tsteps, n, A, t); }" in text


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize("tsteps, n", [(0, 10), (1, 10), (7, 3), (7, 100)])
def test_launcher_runs_the_launches_the_executors_run(tmp_path: Path, tsteps: int, n: int):
    """The launcher's host code, compiled by g++ with each launch replaced by a print, launches
    the same kernels with the same grids as `launch_steps.trace` (what the executors run)."""
    source, launch = _time_stepped_launch()
    text = launcher(Artifact(source, launch, "f"), {})
    host = text.split("#ifdef __CUDACC__", 1)[1].split("#endif", 1)[0]  # not autogpu_run_
    host = re.sub(r"(\w+)<<<agpu_grid, agpu_block, \(size_t\)\(0\)>>>\([^;]*\);",
                  r'printf("%s %u\\n", "\1", agpu_grid.x);', host)
    program = "\n".join([
        "#include <stdio.h>",
        "struct dim3 { unsigned x, y, z; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1)"
        " : x(a), y(b), z(c) {} };", host,
        f"int main(void) {{ autogpu_launch_f({tsteps}, {n}, 0); return 0; }}", ""])
    (tmp_path / "host.cc").write_text(program)
    subprocess.run(["g++", "-o", str(tmp_path / "host"), str(tmp_path / "host.cc")], check=True)
    printed = subprocess.run([str(tmp_path / "host")], capture_output=True, text=True,
                             check=True).stdout.splitlines()
    (entry,) = launch["functions"]
    expected: list[str] = []
    scalars = {"tsteps": np.int32(tsteps), "n": np.int32(n)}
    for index, env in trace(steps_of(entry), scalars):
        spec = entry["launches"][index]
        expected.append(f"{spec['kernel']} {evaluate(spec['grid'][0], env)}")
    assert printed == expected
    assert len(expected) == 2 * len(range(tsteps - 1, 2 * tsteps, 2))  # two per step
