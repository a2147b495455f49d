"""Testing-platform mode: tuning inside the user's own host program (`--build`, `--run`), with
timing code inserted at a `// autogpu: time` marker; exercised with a plain C program and gcc."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from paths import ROOT

from autogpu.diagnostics import CompileError
from autogpu.tools.autogpu_tune import main
from autogpu.tuner.adapter import Artifact
from autogpu.tuner.host_program import instrument, launcher, substitute

SAXPY = str(ROOT / "examples" / "saxpy.c")
FAKE_HOST = ROOT / "tests" / "data" / "fake_host.c"


def test_instrument_wraps_the_statement_after_each_marker():
    source = "int main() {\n  // autogpu: time repeat=4\n  k<<<g, b>>>(a,\n     n);\n  return 0;\n}\n"
    out = instrument(source, "host.cu")
    assert out.startswith("// ---- inserted by autogpu-tune")
    assert '#line 1 "host.cu"' in out
    body = out.split('#line 1 "host.cu"\n', 1)[1].splitlines()
    assert body[1] == ("  for (int agpu_r = 0; agpu_r < 4; ++agpu_r) { AUTOGPU_TIME_BEGIN();"
                       "  /* autogpu: time */")
    assert body[2:4] == ["  k<<<g, b>>>(a,", "     n);"]
    assert body[4] == "  AUTOGPU_TIME_END(); }"
    assert len(body) == len(source.splitlines()) + 1  # the user's line numbers stay close
    assert "cudaGetLastError" in out
    assert "exit(3)" in out


@pytest.mark.parametrize("source, message", [
    ("int main() { return 0; }", "no '// autogpu: time' line"),
    ("// autogpu: time\n", "not followed by a statement"),
    ("// autogpu: time twice\nf();\n", "expected nothing or repeat=N"),
])
def test_instrument_errors(source: str, message: str):
    with pytest.raises(CompileError, match=message):
        instrument(source)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_launcher_sizes_compute_as_the_executors_do(tmp_path: Path):
    """The C++ launcher computes each size as `autogpu.target.launch.evaluate` does (64-bit,
    casts wrapping), not in the parameters' own types: `n + 255` on an unsigned n near 2^32
    must not wrap, `(unsigned)(n - 5)` must; an `unsigned long` parameter is unsigned 64-bit, so
    `n - min(lo, n)` is exact when lo and n straddle 2^63 (it was read as `long long`)."""
    from autogpu.target.launch import evaluate
    from autogpu.tuner.host_program import (
        LAUNCH_SIZE_HELPERS,
        _c_expr,  # pyright: ignore[reportPrivateUsage]  # the C++ this test compiles
    )

    exprs = ["max((n + 255) / 256, 1)", "max(((unsigned)(n - 5) + 255) / 256, 1)",
             "(int)n - m * 3", "min(max((unsigned)(m - 1) - 1, 1), 65535)", "s / 2 + (int)s",
             "max(((long long)(hi - min(lo, hi)) + 255) / 256, 1)",
             "(long long)(hi - (unsigned long long)m) / 2", "max(lo, 5)"]
    dtypes = {"n": "uint32", "m": "int32", "s": "int64", "lo": "uint64", "hi": "uint64"}
    values = [(4294967295, 7, 2**33 + 5, 2**63 - 3, 2**63 + 5), (3, -2, 0, 5, 4),
              (2**31, 2**31 - 1, 10, 2**64 - 1, 2**63)]
    lines = ["#include <stdio.h>", LAUNCH_SIZE_HELPERS, "int main(void) {"]
    for n, m, s, lo, hi in values:
        lines.append(f"  {{ unsigned n = {n}u; int m = {m}; long s = {s}l; "
                     f"unsigned long lo = {lo}ul, hi = {hi}ul;")
        lines += [f'    printf("%lld\\n", (long long)({_c_expr(e, dtypes)}));' for e in exprs]
        lines.append("  }")
    (tmp_path / "sizes.cc").write_text("\n".join([*lines, "  return 0;", "}", ""]))
    subprocess.run(["g++", "-fwrapv", "-o", str(tmp_path / "sizes"), str(tmp_path / "sizes.cc")],
                   check=True)
    printed = subprocess.run([str(tmp_path / "sizes")], capture_output=True, text=True,
                             check=True).stdout.split()
    expected: list[int] = []
    for n, m, s, lo, hi in values:
        scalars = {"n": n, "m": m, "s": s, "lo": np.uint64(lo), "hi": np.uint64(hi)}
        expected += [evaluate(e, scalars) for e in exprs]
    assert [int(x) for x in printed] == [e - 2**64 if e >= 2**63 else e for e in expected]


def test_launcher_and_placeholders():
    launch = {"functions": [{"name": "saxpy", "params": [
        {"name": "n", "kind": "scalar", "dtype": "int32", "ctype": "int"},
        {"name": "x", "kind": "array", "dtype": "float32", "ctype": "float", "const": True}],
        "launches": [{"kernel": "saxpy_kernel", "grid": ["max((n + 127) / 128, 1)", "1", "1"],
                      "block": ["128", "1", "1"], "args": ["n", "x"],
                      "dynamic_shared_bytes": "0"}]}]}
    text = launcher(Artifact("__global__ void saxpy_kernel(int n, const float *x) {}", launch,
                             "saxpy"), {"block_size": 128, "cache": True})
    assert "#define AUTOGPU_BLOCK_SIZE 128" in text
    assert "#define AUTOGPU_CACHE 1" in text
    assert "static inline void autogpu_launch_saxpy(int n, const float *x) {" in text
    assert "agpu_grid((unsigned)(agpu_max(((long long)n + 127) / 128, 1))" in text
    assert "saxpy_kernel<<<agpu_grid, agpu_block, (size_t)(0)>>>(n, x);" in text
    assert substitute("cc -DB={block_size} {dir}/a", {"block_size": 64, "dir": "/t m"}) == \
        "cc -DB=64 '/t m'/a"
    with pytest.raises(CompileError, match=r"unknown placeholder {nope}"):
        substitute("{nope}", {"dir": "/t"})


def test_the_launcher_declares_the_kernels_c_types():
    """`_Bool` is no C++ type, `uint8_t` needs a header, and `char *` or `long *` is another
    C++ pointer type than the kernel's `signed char *` or `long long *`."""
    params = [{"name": f"p{i}", "kind": kind, "dtype": dtype, "ctype": ctype}
              for i, (kind, dtype, ctype) in enumerate([
                  ("array", "bool", "_Bool"), ("scalar", "uint8", "uint8_t"),
                  ("array", "int8", "char"), ("array", "int64", "long"),
                  ("scalar", "uint16", "unsigned short")])]
    launch = {"functions": [{"name": "f", "params": params, "launches": []}]}
    text = launcher(Artifact("", launch, "f"), {})
    assert ("autogpu_launch_f(bool *p0, unsigned char p1, signed char *p2, long long *p3, "
            "unsigned short p4)") in text


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_tuning_inside_a_host_program(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    out = tmp_path / "out"
    code = main([SAXPY, "-p", "autogpu-vanilla", "--set", "block_size=32,64,128,256", "--cache",
                 str(tmp_path / "c.sqlite"), "-o", str(out), "-q", "--no-plot", "-j", "2",
                 "--host-source", str(FAKE_HOST),
                 "--build", "gcc -O1 -DBLOCK={block_size} -o {dir}/app {host}",
                 "--run", "{dir}/app", "--timeout", "30"])
    _stdout, stderr = capsys.readouterr()
    assert code == 0, stderr
    report = json.loads((out / "report.json").read_text())
    variants = {v["params"]["block_size"]: v for v in report["variants"]}
    assert variants[64]["status"] == "failed"
    assert variants[64]["stage"] == "run"
    assert "too many resources requested for launch" in variants[64]["reason"]
    for b in (32, 128, 256):
        assert variants[b]["status"] == "ok"
        assert len(variants[b]["times_s"]) == 3
    assert report["best"]["params"] == {"block_size": 128}  # 10x less work than the others
    assert report["device"]["backend"] == "host-program"
    kernels = list((out / "variants").glob("*/kernel.cu"))  # one directory per variant
    assert len(kernels) == 4
    assert any("#define AUTOGPU_BLOCK_SIZE 128" in k.read_text() for k in kernels)
    for k in kernels:
        assert "AUTOGPU_TIME_BEGIN" in (k.parent / "fake_host.c").read_text()


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_host_program_time_from_its_own_output_and_failed_builds(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    program = tmp_path / "prog.c"
    program.write_text('#include <stdio.h>\nint main(void) { printf("elapsed: %d.5 ms\\n", '
                       "BLOCK / 32); return 0; }\n")
    code = main([SAXPY, "-p", "autogpu-vanilla", "--set", "block_size=32,64,128", "--cache", str(tmp_path / "c.sqlite"),
                 "-o", str(tmp_path / "out"), "-q", "--no-plot", "-j", "0",
                 "--build", f"test {{block_size}} != 128 && gcc -DBLOCK={{block_size}} "
                 f"-o {{dir}}/app {program}",
                 "--run", "{dir}/app", "--time-regex", r"elapsed: ([0-9.]+) ms"])
    _stdout, stderr = capsys.readouterr()
    assert code == 0, stderr
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    variants = {v["params"]["block_size"]: v for v in report["variants"]}
    assert variants[32]["time_s"] == pytest.approx(1.5e-3)
    assert variants[64]["time_s"] == pytest.approx(2.5e-3)
    assert variants[128]["stage"] == "build"
    assert "build failed" in variants[128]["reason"]
    assert report["best"]["params"] == {"block_size": 32}


def _gpu_for_host_programs() -> str | None:
    """Why a real CUDA host program cannot run here (None: it can): nvcc and a GPU."""
    import subprocess

    if shutil.which("nvcc") is None:
        return "needs nvcc"
    try:
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "needs an NVIDIA GPU (no nvidia-smi)"
    return None if listed.returncode == 0 and "GPU" in listed.stdout else "needs an NVIDIA GPU"


@pytest.mark.skipif(_gpu_for_host_programs() is not None,
                    reason=f"a CUDA host program on the GPU {_gpu_for_host_programs()}")
def test_tuning_inside_a_real_cuda_program(tmp_path: Path):
    """examples/host/matmul_app.cu, built by nvcc per variant and run on the GPU: the inserted
    CUDA-event timing gives the times, and the program's own check rejects a variant whose
    launch was corrupted (through the test-only hook) to leave most of A uncomputed."""
    from autogpu.tuner.driver import TuneOptions, prepare, run
    from autogpu.tuner.host_program import HostProgram

    host = HostProgram(build="nvcc -O3 -arch=native -I{dir} -o {dir}/app {host}",
                       run="{dir}/app 256", host_source=str(ROOT / "examples" / "host" /
                                                            "matmul_app.cu"), timeout=60)
    options = TuneOptions(str(ROOT / "examples" / "matmul.c"),
                          sizes={"m": 256, "n": 256, "p": 256}, host=host,
                          space={"block_size": [64, 128], "unroll_x": [1], "unroll_y": [1, 2],
                                 "unroll_serial": [1], "cache": [True]},
                          cache=str(tmp_path / "c.sqlite"), output_dir=str(tmp_path / "out"),
                          progress=False, plot=False, jobs=2,
                          variant_hook="tuner_support:shrink_grid_block_64")
    result = run(prepare(options))
    by_config = {(v["params"]["block_size"], v["params"]["unroll_y"]): v for v in result.variants}
    for unroll_y in (1, 2):
        wrong = by_config[(64, unroll_y)]
        assert wrong["status"] == "failed"
        assert wrong["stage"] == "run"
        assert "wrong result" in wrong["reason"]
        right = by_config[(128, unroll_y)]
        assert right["status"] == "ok"
        assert len(right["times_s"]) == 5
        assert right["time_s"] > 0
    assert result.best_params is not None
    assert result.best_params["block_size"] == 128
