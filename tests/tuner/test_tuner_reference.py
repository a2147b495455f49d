"""The tuner's reference is independent of autogpu: the serial C compiled by gcc (the IR
interpreter where gcc is missing), so a bug every variant shares is caught, not "verified"."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from paths import EXAMPLES
from xdsl.dialects.builtin import ModuleOp

import autogpu
from autogpu.diagnostics import CompileError
from autogpu.narrowing import is_dict
from autogpu.tuner import reference as reference_mod
from autogpu.tuner.driver import TunedKernel

SAXPY = str(EXAMPLES / "saxpy.c")


def _tune(tmp_path: Path, **options: Any) -> TunedKernel:
    """saxpy on the CPU, everything in this process (so monkeypatches reach it)."""
    settings: dict[str, Any] = dict(sizes={"n": 100}, backend="cpu", space={"block_size": [32, 64]},
                    cache="none", isolate=False, jobs=0, repetitions=1, warmup=0,
                    progress=False, plot=False, output_dir=str(tmp_path / "out"))
    settings.update(options)
    return autogpu.tune(SAXPY, "autogpu-vanilla", **settings)


@pytest.fixture
def frontend_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in the shared front half: the frontend turns every float multiply into an add,
    so the vanilla kernel and every variant compute the same wrong saxpy."""
    from xdsl.dialects import arith
    from xdsl.rewriter import Rewriter

    import autogpu.frontend

    real = autogpu.frontend.parse_c

    def parse_c(source: str, filename: str = "<input>",
                warn: Callable[[CompileError], None] | None = None, **options: Any) -> ModuleOp:
        module = real(source, filename, warn, **options)
        for op in list(module.walk()):
            if isinstance(op, arith.MulfOp):
                Rewriter.replace_op(op, arith.AddfOp(op.lhs, op.rhs))
        return module

    monkeypatch.setattr(autogpu.frontend, "parse_c", parse_c)


def test_a_bug_every_variant_shares_is_caught_by_gcc(tmp_path: Path, frontend_bug: None):
    with pytest.raises(CompileError, match="no variant of saxpy passed verification") as caught:
        _tune(tmp_path)
    assert "[verify] y[" in str(caught.value)
    # A reference built by autogpu itself shares the bug: asked for explicitly, it "verifies".
    kernel = _tune(tmp_path, reference="autogpu-vanilla")
    assert kernel.tuning.report["reference"]["kind"] == "pipeline"
    assert "not independent" in kernel.tuning.report["reference"]["description"]


def test_the_report_says_the_reference_is_gcc(tmp_path: Path):
    kernel = _tune(tmp_path)
    entry = kernel.tuning.report["reference"]
    assert entry["kind"] == "gcc"
    assert entry["note"] is None
    assert entry["description"].startswith("gcc: the C compiled by gcc")  # saxpy: -fopenmp
    assert "-ffp-contract=off" in entry["flags"]
    assert "-fwrapv" in entry["flags"]
    assert all(v["status"] == "ok" and v["max_error"] == 0.0 for v in kernel.tuning.variants)


def test_without_gcc_the_interpreter_is_the_reference_and_the_report_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    def which(name: str) -> None:  # gcc is not on PATH
        return None

    monkeypatch.setattr(reference_mod.shutil, "which", which)
    kernel = _tune(tmp_path)
    entry = kernel.tuning.report["reference"]
    assert entry["kind"] == "interpreter"
    assert entry["note"] == "gcc was not found on PATH"
    assert "gcc was not found" in entry["description"]
    assert all(v["status"] == "ok" for v in kernel.tuning.variants)


def test_the_reference_kind_is_part_of_the_cache_context():
    from autogpu.tuner.driver import TuneOptions, context_description, prepare

    def context(**options: Any) -> dict[str, Any]:
        prepared = prepare(TuneOptions(SAXPY, sizes={"n": 16}, backend="cpu", **options))
        reference = context_description(prepared, {"backend": "cpu"})["reference"]
        assert is_dict(reference), reference
        return reference

    assert context()["kind"] == "gcc"
    assert context(reference="interpreter") == {"kind": "interpreter"}
    assert context(reference="autogpu-vanilla", reference_backend="cpu") == {
        "kind": "pipeline", "pipeline": "autogpu-vanilla", "backend": "cpu"}
    with pytest.raises(CompileError, match="--reference-backend applies to a pipeline"):
        context(reference_backend="cpu")


def _cli(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str]:
    from autogpu.tools.autogpu_tune import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, err


def test_a_hanging_reference_times_out_after_timeout_seconds_saying_so(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    spin = tmp_path / "spin.c"
    spin.write_text("void spin(float *a, int n) {\n#pragma omp parallel for\n"
                    "  for (int i = 0; i < n; i++)\n"
                    "    while (a[i] < 2.0f) a[i] = a[i] * 1.0f;\n}\n")
    code, err = _cli(capsys, spin, "--size", "n=4", "--backend", "cpu", "-p",
                     "autogpu-vanilla", "--set", "block_size=32", "--no-cache", "--timeout", "2",
                     "-q", "--no-plot", "-o", tmp_path / "out", "-j", "0")
    assert code == 1
    assert "the measurement process timed out after 2 s computing the reference (gcc): " \
           "raise --timeout" in err
    assert len(err.strip().splitlines()) == 1


def test_a_crashing_reference_says_which_signal(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    import numpy as np

    poke = tmp_path / "poke.c"
    poke.write_text("void poke(float *a, const float *b, const int *idx, int n) {\n"
                    "#pragma omp parallel for\n"
                    "  for (int i = 0; i < n; i++)\n    a[i] = b[idx[i]];\n}\n")
    np.save(tmp_path / "idx.npy", np.full(4, 2_000_000_000, np.int32))  # far out of bounds
    code, err = _cli(capsys, poke, "--size", "n=4", "--array", "a=n", "--array", "b=n", "--input",
                     f"idx={tmp_path / 'idx.npy'}", "--backend", "cpu", "-p", "autogpu-vanilla",
                     "--set", "block_size=32", "--no-cache", "-q", "--no-plot",
                     "-o", tmp_path / "out", "-j", "0")
    assert code == 1
    assert "the measurement process crashed with signal SIGSEGV while computing the " \
           "reference (gcc)" in err
    assert len(err.strip().splitlines()) == 1


PRIVATE_TEMPORARY = """
void square(int n, const float *x, float *y) {
  float t;
#pragma omp parallel for
  for (int i = 0; i < n; i++) { t = x[i]; y[i] = t * t; }
}
"""
INNER_COUNTER_OUTSIDE = """
void rows(int n, int m, const float *x, float *y) {
  int j;
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (j = 0; j < m; j++) y[i * m + j] = 2.0f * x[i * m + j];
}
"""
SCATTER = """
void scatter(int n, const int *idx, const float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) y[idx[i]] = x[i];
}
"""


def _resolved(source: str, function: str) -> reference_mod.Reference:
    resolved = reference_mod.resolved(reference_mod.Reference(reference_mod.GCC, source, "k.c",
                                                              function))
    assert resolved is not None  # a reference resolves to one
    return resolved


@pytest.mark.parametrize("example, function", [("matmul.c", "matmul"), ("dot.c", "dot"),
                                               ("stencil2d.c", "jacobi2d")])
def test_gcc_runs_proven_parallel_loops_with_openmp(example: str, function: str):
    ref = _resolved((EXAMPLES / example).read_text(), function)
    assert ref.kind == "gcc"
    assert ref.openmp
    assert "-fopenmp" in ref.identity()["flags"]
    assert "-fopenmp" in ref.describe()


@pytest.mark.parametrize("source, function", [
    (PRIVATE_TEMPORARY, "square"),  # OpenMP would share t: a race under gcc -fopenmp
    (INNER_COUNTER_OUTSIDE, "rows"),  # and j
    (SCATTER, "scatter"),  # not proven free of conflicts
])
def test_gcc_runs_the_loops_serially_unless_openmp_gives_the_serial_result(source: str, function: str):
    ref = _resolved(source, function)
    assert ref.kind == "gcc"
    assert not ref.openmp
    assert "-fopenmp" not in ref.identity()["flags"]
    assert "serially" in ref.describe()


def test_the_openmp_reference_computes_the_serial_result():
    """gcc -fopenmp on the examples agrees with the serial build: integers exactly (a min
    reduction), floats within rounding (the dot product's partial sums)."""
    import numpy as np
    import numpy.typing as npt

    from autogpu.testing.gcc_reference import compile_c_reference

    rng = np.random.default_rng(7)
    source = (EXAMPLES / "matmul.c").read_text()
    m, n, p = 67, 45, 33
    b, c = rng.random(m * p, np.float32), rng.random(p * n, np.float32)
    results: list[npt.NDArray[np.float32]] = []
    for openmp in (False, True):
        a = np.zeros(m * n, np.float32)
        compile_c_reference(source, "matmul", "matmul.c", True, openmp)(a, b, c, m, n, p)
        results.append(a)
    assert np.array_equal(results[0], results[1])  # each element is one thread's serial sum
    source = (EXAMPLES / "dot.c").read_text()
    x, y = rng.random(100_003, np.float32), rng.random(100_003, np.float32)
    sums: list[np.float32] = []
    for openmp in (False, True):
        out = np.zeros(1, np.float32)
        compile_c_reference(source, "dot", "dot.c", True, openmp)(x, y, out, len(x))
        sums.append(out[0])
    assert sums[1] == pytest.approx(sums[0], rel=1e-4)


def test_the_frontends_warnings_are_shown_once_not_once_per_variant(tmp_path: Path):
    import subprocess
    import sys

    source = tmp_path / "scatter.c"
    source.write_text(SCATTER)
    run = subprocess.run(
        [sys.executable, "-m", "autogpu.tools.autogpu_tune", str(source), "--size", "n=64",
         "--array", "y=n", "--backend", "cpu", "--set", "block_size=[32,64,128]",
         "--no-default-space", "-p", "autogpu-vanilla", "--cache", "none", "--reference", "none",
         "--jobs", "0", "-o", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=300, check=False)
    assert run.stderr.count("warning: cannot prove") == 1, run.stderr
