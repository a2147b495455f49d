"""The tuner on a convergence loop (data-dependent host control around kernels): it verifies
each variant's whole function against gcc, however many trips the data make, and its C++
launcher reads the loop's condition back with `cudaMemcpyFromSymbol`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from autogpu.tuner.adapter import Artifact
from autogpu.tuner.host_program import launcher
from tests.passes.test_convert_agpu_to_gpu_host_control import CAPPED


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_tuning_a_convergence_loop_on_the_cpu(tmp_path: Path):
    import autogpu

    kernel = autogpu.tune(CAPPED, "autogpu-vanilla", sizes={"T": 30, "n": 37, "tol": 1e-4},
                          arrays={"a": "n", "b": "n", "trips": "1"}, backend="cpu",
                          space={"block_size": [32, 64], "split_walkers": [0]},
                          cache=str(tmp_path / "c.sqlite"),
                          isolate=False, jobs=0, repetitions=1, warmup=0, progress=False,
                          plot=False, output_dir=str(tmp_path / "out"))
    statuses = [v["status"] for v in kernel.tuning.variants]
    assert len(statuses) >= 2
    assert set(statuses) == {"ok"}  # each verified against gcc
    launches = kernel.launch_config(T=30, n=37)
    assert [c["kernel"] for c in launches] == [f"capped_kernel{k}" for k in range(7)]


def test_launcher_reads_the_condition_back():
    import autogpu

    kernel = autogpu.compile(CAPPED, pipeline="autogpu-vanilla")
    text = launcher(Artifact(kernel.cuda_source, kernel.launch_description, "capped"), {})
    assert "  for (;;) {" in text
    assert "bool cond; cudaMemcpyFromSymbol(&cond, capped_cond, sizeof(bool));" in text
    assert "    if (!(cond)) break;" in text
