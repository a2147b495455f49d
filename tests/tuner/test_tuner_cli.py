"""`autogpu-tune` end to end on the CPU backend (examples/saxpy.c), and its errors: bad input is
reported before anything runs, with exit status 2 (usage) or 1 (kernel, sizes, space), never a
traceback."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest
from paths import ROOT

from autogpu.tools.autogpu_tune import main

SAXPY = str(ROOT / "examples" / "saxpy.c")
MATMUL = str(ROOT / "examples" / "matmul.c")


def saxpy_args(n: int = 1000) -> list[str]:
    return [SAXPY, "--size", f"n={n}", "--array", "x=n", "--array", "y=n", "-p",
            "autogpu-vanilla", "--backend", "cpu"]


SAXPY_ARGS = saxpy_args()


def _run(capsys: pytest.CaptureFixture[str], *argv: object,
         ) -> tuple[int | str | None, str, str]:
    try:
        code = main([str(a) for a in argv])
    except SystemExit as e:  # argparse
        code = e.code
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.mark.parametrize("argv, code, message", [
    (["--budget", "0"], 2, "argument --budget: expected a positive integer"),
    (["--size", "n"], 2, "expected NAME=VALUE"),
    (["--strategy", "annealing"], 2, "invalid choice: 'annealing'"),
    (["--time-limit", "-3"], 2, "expected a positive number"),
    (["--size", "q=3"], 1, "unknown size 'q': it is not a parameter of saxpy"),
    (["--size", "x=3"], 1, "unknown size 'x': it is an array of saxpy"),
    (["--restrict", "block_size > 4096"], 1, "the search space is empty"),
    (["--restrict", "block_size.real > 1"], 1, "Attribute is not allowed"),
    (["--restrict", "unroll > 1"], 1, "names unroll, which is neither a parameter"),
    (["--set", "unroll=1,2"], 1, "the space names unroll, which is not an option"),
    (["--set", "block_size=pow2(3000, 4000)"], 1, "no candidate values"),
    (["-p", "no-such-pass"], 1, "unknown pass 'no-such-pass'"),
    (["--space", "/nonexistent.toml"], 1, "no such space file"),
    (["--reference", "nope"], 1, "unknown pass 'nope'"),
    (["--build", "make"], 2, "needs both --build and --run"),
    (["--host-source", "app.cu"], 2, "belong to testing-platform mode"),
    (["--reduction-length", "q * 2"], 1, "--reduction-length: 'q * 2': unknown name 'q'"),
    (["--specialize", "q"], 1, "cannot specialise 'q': give its value with --size q=VALUE"),
    (["--size", "a=2", "--specialize", "a"], 1, "cannot specialise 'a': only integer sizes"),
    (["--size", "n=5"], 1, "--size n is given twice (n=1000 and n=5): keep one"),
    (["--set", "block_size=32", "--set", "block_size=64,128"], 1,
     "--set block_size is given twice (block_size=32 and block_size=64,128): keep one"),
    (["--array", "x=2*n"], 1, "--array x is given twice (x=n and x=2*n): keep one"),
])
def test_bad_input_is_a_clear_error_before_anything_runs(capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], code: int, message: str):
    got, _out, err = _run(capsys, *SAXPY_ARGS, "--cache", tmp_path / "c.sqlite", *argv)
    assert got == code
    assert message in err
    assert not (tmp_path / "c.sqlite").exists()  # nothing ran


@pytest.mark.parametrize("argv, message", [
    (["--set", "block_size=seq(1, 20000)"],
     "values of block_size: 'seq(1, 20000)': seq(1, 20000, 1) has 20000 values, more than the "
     "limit of 10000: narrow the range or take a larger step"),
    (["--set", "unroll_serial=divisors(2**62)"], "would test 2147483648 candidates, more than "
     "the limit of 4194304: narrow [lo, hi], e.g. divisors(n, 1, 1024)"),
    (["--set", "block_size=seq(32, 1024, 8)", "--set", "unroll_serial=seq(1, 1000)"],
     "the search space has 750000 configurations, more than the limit of 100000"),
])
def test_the_space_is_bounded_before_it_is_built(capsys: pytest.CaptureFixture[str], argv: list[str], message: str):
    code, _out, err = _run(capsys, SAXPY, "--size", "n=1000", "--backend", "cpu", "--list-space",
                          *argv)
    assert code == 1
    assert message in err
    assert err.startswith("autogpu-tune: error: ")
    assert err.count("\n") == 1


def test_restrictions_read_the_values_of_options_that_are_not_tuned(capsys: pytest.CaptureFixture[str]):
    """autogpu-optimize's 'unroll_x * unroll_y <= 32' named unroll_x, which was not a parameter
    once fixed in the pipeline string or left out of the space."""
    code, out, err = _run(capsys, SAXPY, "--size", "n=1000", "--backend", "cpu", "--list-space",
                          "-p", "autogpu-optimize{unroll_x=2}")
    assert code == 0, err
    assert "unroll_x" not in json.loads(out)["parameters"]
    code, out, err = _run(capsys, SAXPY, "--size", "n=1000", "--backend", "cpu", "--list-space",
                          "--no-default-space")
    assert code == 0, err
    assert json.loads(out)["valid"] == 1, err
    matmul = [MATMUL, "--size", "m=8", "--size", "n=8", "--size", "p=8", "--backend", "cpu",
              "--list-space"]
    code, out, err = _run(capsys, *matmul, "-p", "autogpu-optimize{unroll_x=8}")
    assert code == 0, err  # the restriction holds with unroll_x = 8: unroll_y <= 4
    assert json.loads(out)["parameters"]["unroll_y"]["values"] == [1, 2, 4, 8]
    assert json.loads(out)["valid"] == 3 * json.loads(out)["product"] // 4
    code, out, err = _run(capsys, *matmul, "-p", "autogpu-optimize{unroll_x=8 unroll_y=8}")
    assert code == 0, err  # every value it reads is the user's: it restricts nothing
    code, _, err = _run(capsys, *matmul, "-p", "autogpu-optimize{unroll_x=64}")
    assert code == 1
    assert "violates 'unroll_x * unroll_y <= 32' (with unroll_x=64)" in err
    code, _, err = _run(capsys, SAXPY, "--size", "n=1000", "--backend", "cpu", "--list-space",
                        "--no-default-space", "--restrict", "unroll_x > 1")
    assert code == 1
    assert "its only configuration violates 'unroll_x > 1' (with unroll_x=1)" in err


@pytest.mark.parametrize("kernel, sizes, message", [
    (SAXPY, ["n=ten"], "size n='ten': expected a value of type int32"),
    (SAXPY, ["n=0"], "at n=0, the parallel loops of saxpy run no iteration: tuning would "
     "measure nothing; give sizes for which they run"),
    (SAXPY, ["n=-5"], "at n=-5, the parallel loops of saxpy run no iteration"),
    (MATMUL, ["m=8", "n=0", "p=8"], "at m=8, n=0, p=8, the parallel loops of matmul run no"),
])
def test_bad_sizes_and_sizes_for_which_the_kernel_does_nothing_are_refused(capsys: pytest.CaptureFixture[str], kernel: str, sizes: list[str],
                                                                          message: str):
    code, _, err = _run(capsys, kernel, *(f"--size={s}" for s in sizes), "--backend", "cpu",
                        "--list-space")
    assert code == 1
    assert err.startswith(f"autogpu-tune: error: {message}")
    assert err.count("\n") == 1


def test_sizes_for_which_only_serial_loops_are_empty_are_tuned(capsys: pytest.CaptureFixture[str]):
    """matmul with p = 0 still computes (A unchanged, every element written): a legal run."""
    code, _out, err = _run(capsys, MATMUL, "--size", "m=8", "--size", "n=8", "--size", "p=0",
                          "--backend", "cpu", "--list-space")
    assert code == 0, err


def test_an_output_directory_that_cannot_be_written_is_an_error_before_tuning(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    file = tmp_path / "file"
    file.write_text("")
    for out in (file, file / "sub"):
        code, _, err = _run(capsys, *SAXPY_ARGS, "--cache", tmp_path / "c.sqlite", "-o", out)
        assert code == 1
        assert err == f"autogpu-tune: error: cannot write the outputs to {out}: {file} is a file\n"
        assert not (tmp_path / "c.sqlite").exists()  # nothing ran


def test_sizes_must_be_given_and_unbounded_arrays_need_a_length(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    code, _, err = _run(capsys, SAXPY, "--backend", "cpu")
    assert code == 1
    assert "saxpy needs a value for its integer parameter n: --size n=VALUE" in err
    gather = tmp_path / "gather.c"
    gather.write_text("void gather(float *out, const float *in, const int *idx, int n) {\n"
                      "#pragma omp parallel for\n"
                      "  for (int i = 0; i < n; i++) out[i] = in[idx[i]];\n}\n")
    code, _, err = _run(capsys, gather, "--size", "n=8", "--backend", "cpu", "--list-space")
    assert code == 1
    assert "cannot tell the length of array in of gather" in err
    assert "--array in=EXPR" in err
    assert "idx" not in err.split("give")[1]
    code, _, err = _run(capsys, tmp := "/nonexistent.c")
    assert code == 2
    assert f"no such C file: {tmp}" in err


def test_the_cuda_backend_without_pycuda_is_a_clear_error(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    if find_spec("pycuda") is not None:
        pytest.skip("pycuda is installed here: the cuda backend would really run")
    code, _, err = _run(capsys, *SAXPY_ARGS[:-2], "--set", "block_size=64", "--no-cache",
                        "-o", tmp_path / "out")
    assert code == 1
    assert "cannot measure on the cuda backend: the cuda backend needs pycuda" in err


def test_list_space_shows_the_default_space_of_the_pipeline(capsys: pytest.CaptureFixture[str]):
    code, out, _ = _run(capsys, *SAXPY_ARGS, "--list-space")
    assert code == 0
    space = json.loads(out)
    assert space["parameters"]["block_size"]["values"] == [32, 64, 128, 256, 512, 1024]
    assert space["valid"] == 6
    code, out, _ = _run(capsys, MATMUL, "-p", "autogpu-vanilla", "--size", "m=8", "--size",
                        "n=8", "--size", "p=8", "--array", "A=m*n", "--array", "B=m*p", "--array", "C=p*n",
                        "--list-space", "--restrict", "block_size * block_y <= 256")
    space = json.loads(out)  # two parallel dimensions: block_y is tuned too
    assert set(space["parameters"]) == {"block_size", "block_y"}
    assert space["valid"] == sum(1 for b in (32, 64, 128, 256, 512, 1024)
                                 for y in (1, 2, 4, 8, 16) if b * y <= 256)


def test_tune_saxpy_on_the_cpu_then_resume_from_the_cache(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    cache, out = tmp_path / "tune.sqlite", tmp_path / "out"
    args = [*SAXPY_ARGS, "--set", "block_size=32,64,128", "--cache", cache, "-o", out, "-q",
            "--repetitions", "2", "-j", "2"]
    code, stdout, err = _run(capsys, *args, "--compare-strategies", "--compare-seeds", "2")
    assert code == 0, err
    assert "rank  block_size" in stdout
    assert "3 verified, 0 failed" in stdout
    assert re.search(r"\(3 measured now, 0 from the cache; stopped: space exhausted; \d+ s\)",
                     stdout)
    assert "evaluations to reach within 3% of the optimum" in stdout
    assert "\nreference: gcc: the C compiled by gcc" in stdout  # saxpy: proven, -fopenmp

    report = json.loads((out / "report.json").read_text())
    assert report["schema"] == "autogpu-tune-report/1"
    assert 0 < report["wall_s"] < 600
    assert report["function"] == "saxpy"
    assert report["backend"] == "cpu"
    assert report["sizes"] == {"n": 1000}
    assert report["arrays"] == {"x": 1000, "y": 1000}
    assert sorted(v["params"]["block_size"] for v in report["variants"]) == [32, 64, 128]
    for v in report["variants"]:
        assert v["status"] == "ok"
        assert v["time_s"] > 0
        assert len(v["times_s"]) == 2
        assert v["max_error"] == 0.0  # same math as gcc's serial C: bitwise equal
    best = min(report["variants"], key=lambda v: v["time_s"])
    assert report["best"]["params"] == best["params"]
    assert report["best"]["pipeline"] == f"autogpu-vanilla{{block_size={best['params']['block_size']}}}"
    assert report["best"]["launch_config"][0]["block"] == [best["params"]["block_size"], 1, 1]
    assert set(report["compare_strategies"]["strategies"]) == {"exhaustive", "random", "model"}

    cu = (out / "best.cu").read_text()
    assert cu.startswith("// autogpu-launch: {")
    assert "__global__" in cu
    launch = json.loads(cu.splitlines()[0][len("// autogpu-launch: "):])
    assert launch["functions"][0]["launches"][0]["block"][0] == str(best["params"]["block_size"])
    meta = json.loads((out / "best.json").read_text())
    assert meta["params"] == best["params"]
    assert meta["launch"] == launch
    png = (out / "search.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    import matplotlib.image

    assert matplotlib.image.imread(str(out / "search.png")).shape[0] > 100

    # Again: everything comes from the cache; a larger space measures only the new variant.
    code, stdout, _ = _run(capsys, *args)
    assert code == 0
    assert "(0 measured now, 3 from the cache" in stdout
    args[args.index("block_size=32,64,128")] = "block_size=32,64,128,256"
    code, stdout, _ = _run(capsys, *args)
    assert code == 0
    assert "(1 measured now, 3 from the cache" in stdout


def test_an_interrupted_run_resumes_where_it_stopped(tmp_path: Path):
    cache, out = tmp_path / "tune.sqlite", tmp_path / "out"
    cmd = [sys.executable, "-m", "autogpu.tools.autogpu_tune", *saxpy_args(50000), "--cache",
           str(cache), "-o", str(out), "-q", "--no-plot", "--set", "block_size=32,64,128,256",
           "--repetitions", "12", "-j", "1"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.time() + 120
    finished = 0
    while time.time() < deadline and proc.poll() is None:
        if cache.exists():
            try:
                with sqlite3.connect(cache) as db:
                    finished = db.execute("SELECT COUNT(*) FROM variants WHERE status != "
                                          "'claimed'").fetchone()[0]
            except sqlite3.OperationalError:
                finished = 0
            if finished >= 1:
                break
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()
    os.killpg(proc.pid, signal.SIGKILL)  # the tuner and its children, mid-run
    proc.wait()
    with sqlite3.connect(cache) as db:
        done_before = db.execute("SELECT COUNT(*) FROM variants WHERE status != 'claimed'"
                                 ).fetchone()[0]
    assert 1 <= done_before < 4
    resumed = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert resumed.returncode == 0, resumed.stderr
    assert f"({4 - done_before} measured now, {done_before} from the cache" in resumed.stdout
    with sqlite3.connect(cache) as db:
        log = [k for (k,) in db.execute("SELECT key FROM measurements")]
    assert len(log) == len(set(log)) == 4  # nothing measured twice


def test_failed_variants_are_recorded_and_never_chosen(tmp_path: Path):
    """Injected through the test-only variant hook: block 64 computes a wrong y, block 128
    never finishes; block 2048 is refused by the lowering pass (a compile failure)."""
    import numpy as np

    import autogpu

    kernel = autogpu.tune(SAXPY, "autogpu-vanilla", sizes={"n": 1000},
                          arrays={"x": "n", "y": "n"},
                          backend="cpu", space={"block_size": [32, 64, 128, 2048]},
                          max_threads=4096, cache=str(tmp_path / "c.sqlite"), timeout=3,
                          repetitions=2, jobs=2, progress=False,
                          output_dir=str(tmp_path / "out"), plot=False,
                          variant_hook="tuner_support:wrong_and_hang")
    variants = {v["params"]["block_size"]: v for v in kernel.tuning.variants}
    assert variants[64]["status"] == "failed"
    assert variants[64]["stage"] == "verify"
    assert "y[" in variants[64]["reason"]
    assert "reference" in variants[64]["reason"]
    assert variants[128]["stage"] == "timeout"
    assert variants[2048]["stage"] == "compile"
    assert "1024" in variants[2048]["reason"]
    assert variants[32]["status"] == "ok"
    assert kernel.tuning.best_params == {"block_size": 32}
    assert kernel.pipeline == "autogpu-vanilla{block_size=32}"
    # The returned kernel is the best variant, and it computes saxpy.
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    expected = np.float32(2.0) * x + y
    kernel(1000, np.float32(2.0), x, y)
    np.testing.assert_array_equal(y, expected)
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["best"]["params"] == {"block_size": 32}
    assert sum(v["status"] == "failed" for v in report["variants"]) == 3


def test_a_script_without_a_main_guard_can_call_tune(tmp_path: Path):
    """The tuner's child processes (fork server) do not re-run the user's script."""
    script = tmp_path / "script.py"
    script.write_text(
        "import autogpu\n"
        f"k = autogpu.tune({SAXPY!r}, 'autogpu-vanilla', sizes={{'n': 256}}, arrays={{'x': 'n', 'y': 'n'}},\n"
        "                  backend='cpu', space={'block_size': [64, 128]}, cache='none',\n"
        "                  progress=False, plot=False, jobs=2, repetitions=1)\n"
        "print('best', k.tuning.best_params['block_size'] in (64, 128))\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("best True") == 1


def test_array_lengths_default_to_the_elements_the_kernel_indexes(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    """No --array for matmul: the lengths come from the analysis of its indices (m*n, m*p, p*n)."""
    out = tmp_path / "out"
    code, _stdout, err = _run(capsys, MATMUL, "--size", "m=16", "--size", "n=8", "--size", "p=4",
                             "--backend", "cpu", "-p", "autogpu-vanilla", "--set",
                             "block_size=32", "--set", "block_y=1", "--cache", "none", "-o", out,
                             "-q", "--no-plot", "--repetitions", "1", "-j", "0")
    assert code == 0, err
    report = json.loads((out / "report.json").read_text())
    assert report["arrays"] == {"A": 128, "B": 64, "C": 32}
    assert [v["status"] for v in report["variants"]] == ["ok"]


def test_explicit_lengths_and_c99_extents_are_preferred_to_the_analysis():
    from autogpu.tuner.driver import TuneOptions, prepare

    stencil = str(ROOT / "examples" / "stencil2d.c")
    prepared = prepare(TuneOptions(stencil, sizes={"n": 5, "m": 6}, backend="cpu"))
    assert prepared.lengths == {"in": 30, "out": 30}  # n*m, though only 29 and 23 are indexed
    prepared = prepare(TuneOptions(MATMUL, sizes={"m": 4, "n": 3, "p": 2}, arrays={"A": "m*n+5"},
                                   backend="cpu"))
    assert prepared.lengths == {"A": 17, "B": 8, "C": 6}
    assert [a.size if isinstance(a, np.ndarray) else a for a in prepared.args[:3]] == [17, 8, 6]


def test_a_left_out_first_extent_is_inferred_from_the_indices(tmp_path: Path):
    """`float A[][p]` gives no length: the analysis bounds it (it used to evaluate the "?" the
    signature records for the left-out extent, and fail)."""
    from autogpu.tuner.driver import TuneOptions, prepare

    source = tmp_path / "rows.c"
    source.write_text(
        "void rows(int lo, int hi, int p, const float A[][p], float *out) {\n"
        "#pragma omp parallel for\n"
        "  for (int i = lo; i < hi; i++)\n"
        "    out[i] = A[i][p - 1];\n"
        "}\n")
    prepared = prepare(TuneOptions(str(source), sizes={"lo": 2, "hi": 5, "p": 3}, backend="cpu"))
    assert prepared.lengths == {"A": 15, "out": 5}


def test_the_default_pipeline_is_autogpu_optimize(capsys: pytest.CaptureFixture[str]):
    from autogpu.tuner.driver import TuneOptions

    assert TuneOptions(SAXPY).kernel.pipeline == "autogpu-optimize"
    code, out, err = _run(capsys, SAXPY, "--size", "n=1000", "--backend", "cpu", "--list-space")
    assert code == 0, err
    space = json.loads(out)
    assert {p["pass"] for p in space["parameters"].values()} == {"autogpu-optimize"}
    assert space["fixed"]["autogpu-optimize.unroll_y"] == 1  # saxpy has one parallel dimension
    assert space["valid"] > 1


def test_the_declared_space_is_the_default_and_identical_kernels_are_measured_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    """autogpu-optimize declares its space, so only those options are tuned; on saxpy, caching
    and serial unrolling change nothing, so their variants reuse the twin kernel's measurement."""
    code, out, err = _run(capsys, SAXPY, "--size", "n=1000", "--backend", "cpu", "--list-space")
    assert code == 0, err
    tuned = {name.split(".")[-1] for name in json.loads(out)["parameters"]}
    assert tuned <= {"block_size", "unroll_x", "unroll_y", "unroll_serial", "cache"}

    out_dir = tmp_path / "out"
    code, _, err = _run(capsys, SAXPY, "--size", "n=1000", "--backend", "cpu", "-q",
                        "--set", "block_size=64", "--set", "unroll_x=1", "--set",
                        "unroll_serial=1,4", "--set", "cache=false,true", "--repetitions", "1",
                        "--no-cache", "-o", out_dir, "--no-plot")
    assert code == 0, err
    variants = json.loads((out_dir / "report.json").read_text())["variants"]
    assert len(variants) == 4
    assert all(v["status"] == "ok" for v in variants)
    assert len({v["digest"] for v in variants}) == 1
    twins = [v for v in variants if "same_kernel_as" in v]
    assert len(twins) == 3
    assert len({v["time_s"] for v in variants}) == 1


def test_specialised_variants_compile_the_sizes_in_and_are_checked_by_the_general_reference(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    """--specialize t: every variant is compiled for t = 5 (its template loop unrolls), verified
    against the general vanilla kernel; the best kernel refuses other sizes of t."""
    import numpy as np

    import autogpu
    from autogpu.runtime.arguments import KernelArgumentError

    conv = str(ROOT / "examples" / "conv2d.c")
    out = tmp_path / "out"
    code, _, err = _run(capsys, conv, "--size", "n=20", "--size", "m=12", "--size", "t=5",
                        "--specialize", "t", "--backend", "cpu", "--set", "block_size=32",
                        "--set", "unroll_x=1", "--set", "unroll_y=1,2", "--set", "unroll_serial=1",
                        "--set", "cache=false", "--repetitions", "1", "--no-cache", "-o", out,
                        "-q", "--no-plot")
    assert code == 0, err
    report = json.loads((out / "report.json").read_text())
    assert report["pipeline"].startswith('agpu-specialize{sizes="t=5"},autogpu-optimize')
    assert [v["status"] for v in report["variants"]] == ["ok", "ok"]
    best = (out / "best.cu").read_text()
    assert '"requires":{"t":5}' in best
    assert "u < t" not in best

    kernel = autogpu.compile(conv, pipeline=report["best"]["pipeline"])
    n, m = 4, 3
    args = [np.zeros(n * m, np.float32), np.ones((n + 2) * (m + 2), np.float32),
            np.ones(9, np.float32), n, m, 3]
    with pytest.raises(KernelArgumentError, match="t"):
        kernel(*args, backend="cpu")


@pytest.mark.parametrize("specialize, compiled", [
    ("n,t", "n=20,t=5"), (["t"], "t=5"), ("all", "n=20,m=12,t=5"), (None, None)])
def test_the_api_takes_size_names_as_text_or_a_list(specialize: str | list[str] | None,
                                                    compiled: str | None):
    from autogpu.tuner.adapter import format_pipeline
    from autogpu.tuner.driver import TuneOptions, prepare

    conv = str(ROOT / "examples" / "conv2d.c")
    prepared = prepare(TuneOptions(conv, sizes={"n": 20, "m": 12, "t": 5}, backend="cpu",
                                   specialize=specialize))
    pipeline = format_pipeline(prepared.space.base_pipeline)
    if compiled is None:
        assert not pipeline.startswith("agpu-specialize")
    else:
        assert pipeline.startswith(f'agpu-specialize{{sizes="{compiled}"}},autogpu-optimize')


def test_a_file_with_several_functions_needs_one_chosen(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    import autogpu
    from autogpu.diagnostics import CompileError

    two = tmp_path / "two.c"
    two.write_text("void f(float *a, int n) { for (int i = 0; i < n; i++) a[i] = 0.0f; }\n"
                   "void g(float *a, int n) { for (int i = 0; i < n; i++) a[i] = 1.0f; }\n")
    code, _, err = _run(capsys, two, "--size", "n=8", "--backend", "cpu", "--list-space")
    assert code == 1
    assert "defines 2 functions (f, g): choose one with --function NAME" in err
    code, _, err = _run(capsys, two, "--function", "h", "--size", "n=8", "--list-space")
    assert code == 1
    assert "has no function 'h' (it defines: f, g)" in err
    code, _, err = _run(capsys, two, "--function", "g", "--size", "n=8", "--backend", "cpu",
                        "--list-space")
    assert code == 0, err
    with pytest.raises(CompileError, match=r"defines 2 functions \(f, g\): pass function=NAME"):
        autogpu.compile(str(two))
    assert autogpu.compile(str(two), function="g").name == "g"


def test_no_reference_is_one_cache_context_however_it_is_spelled():
    from autogpu.tuner.driver import TuneOptions, context_description, prepare

    contexts: list[dict[str, object]] = []
    for reference in (None, "none", " None "):
        prepared = prepare(TuneOptions(SAXPY, sizes={"n": 16}, arrays={"x": "n", "y": "n"},
                                       backend="cpu", reference=reference))
        assert prepared.reference is None
        contexts.append(context_description(prepared, {"backend": "cpu"}))
    assert contexts[0] == contexts[1] == contexts[2]


def test_two_gpus_of_one_model_are_one_cache_context():
    """Workers on GPUs 0 and 1 (--workers 2 --device 0,1) must share claims and results."""
    from autogpu.tuner.driver import TuneOptions, context_description, prepare
    from autogpu.tuner.values import DeviceInfo

    prepared = prepare(TuneOptions(SAXPY, sizes={"n": 16}, arrays={"x": "n", "y": "n"},
                                   backend="cpu"))
    first = context_description(prepared, DeviceInfo(
        backend="cuda", gpu="NVIDIA H200", arch="sm_90", pci_bus_id="0000:19:00.0"))
    second = context_description(prepared, DeviceInfo(
        backend="cuda", gpu="NVIDIA H200", arch="sm_90", pci_bus_id="0000:3B:00.0"))
    other = context_description(prepared, DeviceInfo(
        backend="cuda", gpu="NVIDIA H100 80GB HBM3", arch="sm_90", pci_bus_id="0000:19:00.0"))
    assert first == second
    assert first != other


def _live_processes_in_group(pgid: int) -> list[int]:
    """Processes (not zombies) of process group `pgid`, from /proc."""
    pids: list[int] = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except (OSError, ValueError):
            continue
        state, _, group = stat[stat.rindex(")") + 2:].split()[:3]
        if state != "Z" and int(group) == pgid:
            pids.append(int(entry.name))
    return pids


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc")
def test_a_killed_tuner_leaves_no_processes_behind(tmp_path: Path):
    """SIGKILL the tuner alone (not its process group) mid-run: its fork server, compile workers,
    measurement process and resource tracker must not outlive it."""
    cache = tmp_path / "tune.sqlite"
    cmd = [sys.executable, "-m", "autogpu.tools.autogpu_tune", *saxpy_args(50000), "--cache",
           str(cache), "-o", str(tmp_path / "out"), "-q", "--no-plot", "--set",
           "block_size=32,64,128,256", "--repetitions", "12", "-j", "2"]
    tuner = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)  # its process group: the tuner's pid
    try:
        deadline = time.time() + 120
        while time.time() < deadline and tuner.poll() is None:
            if len(_live_processes_in_group(tuner.pid)) >= 4 and _finished_variants(cache):
                break  # the tuner, the fork server, the compile workers and the measurer
            time.sleep(0.05)
        assert tuner.poll() is None, "the run ended before it could be killed"
        os.kill(tuner.pid, signal.SIGKILL)
        tuner.wait()
        deadline = time.time() + 30  # a safety net: they go at once
        while _live_processes_in_group(tuner.pid) and time.time() < deadline:
            time.sleep(0.1)
        assert _live_processes_in_group(tuner.pid) == []
    finally:
        for pid in _live_processes_in_group(tuner.pid):
            os.kill(pid, signal.SIGKILL)


def _finished_variants(cache: Path) -> int:
    if not cache.exists():
        return 0
    try:
        with sqlite3.connect(cache) as db:
            return db.execute("SELECT COUNT(*) FROM variants WHERE status != 'claimed'"
                              ).fetchone()[0]
    except sqlite3.OperationalError:
        return 0
