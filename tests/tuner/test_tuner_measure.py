"""Verification of a variant's outputs against the reference: the tolerance formula
rtol = c * eps * sqrt(K), applied normwise; exact for integers; NaNs must match."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from paths import EXAMPLES

from autogpu.runtime.arguments import KernelEnvironmentError
from autogpu.tuner import measure
from autogpu.tuner.measure import TOLERANCE_FACTOR, compare, tolerance


def mismatch(name: str, out: np.ndarray, ref: np.ndarray, rtol: float) -> str:
    """compare's sentence for outputs that must not match."""
    problem = compare(name, out, ref, rtol)
    assert problem is not None, "the outputs should not match"
    return problem


def checked_problem(name: str, out: np.ndarray, ref: np.ndarray, rtol: float) -> str:
    """measure.check's problem for outputs that must not match."""
    problem = measure.check(name, out, ref, rtol).problem
    assert problem is not None, "the outputs should not match"
    return problem


def test_tolerance_formula():
    eps32 = np.finfo(np.float32).eps
    assert tolerance(np.float32, 1) == pytest.approx(TOLERANCE_FACTOR * eps32)
    assert tolerance(np.float32, 1024) == pytest.approx(TOLERANCE_FACTOR * eps32 * 32)
    assert tolerance(np.float64, 100) == pytest.approx(TOLERANCE_FACTOR * np.finfo(np.float64).eps * 10)
    assert tolerance(np.int32, 10**6) == 0.0


def test_reassociated_sums_pass_and_a_missing_term_fails():
    """A dot product of length K summed in another order (what unrolling and a different
    thread mapping do) is within the tolerance; dropping one term is not."""
    rng = np.random.default_rng(0)
    k, rows = 4096, 64
    a = rng.uniform(-1, 1, (rows, k)).astype(np.float32)
    ref = np.zeros(rows, np.float32)
    for j in range(k):  # serial order, in float32
        ref += a[:, j]
    pairwise = a.sum(axis=1, dtype=np.float32)  # numpy's pairwise order
    strided = np.zeros(rows, np.float32)
    for s in range(8):  # an 8-way unrolled accumulation, then combined
        part = np.zeros(rows, np.float32)
        for j in range(s, k, 8):
            part += a[:, j]
        strided += part
    rtol = tolerance(np.float32, k)
    assert not np.array_equal(pairwise, ref)  # the orders really differ
    assert compare("out", pairwise, ref, rtol) is None
    assert compare("out", strided, ref, rtol) is None
    missing = ref - a[:, 100]
    problem = compare("out", missing, ref, rtol)
    assert problem is not None
    assert "out[" in problem
    assert "tolerance" in problem


def test_outputs_that_cancel_to_zero_are_checked_normwise():
    ref = np.array([1.0, 1e-9, -2.0], np.float32)
    out = ref + np.float32(1e-7)
    assert compare("y", out, ref, tolerance(np.float32, 16)) is None
    out[1] = 0.5
    assert "y[1]" in mismatch("y", out, ref, tolerance(np.float32, 16))


def test_the_check_goes_chunk_by_chunk_and_reports_the_worst_element(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(measure, "CHUNK", 4)
    ref = np.linspace(-1.0, 1.0, 22, dtype=np.float32)
    out = ref.copy()
    out[2] += np.float32(0.01)
    out[13] += np.float32(0.5)  # the worst, in a later chunk than the first bad one
    result = measure.check("y", out, ref, tolerance(np.float32, 4))
    assert result.problem is not None
    assert result.problem.startswith("y[13] = ")
    assert "(2 of 22 elements wrong" in result.problem
    assert result.max_error == pytest.approx(0.5, rel=1e-6)
    out = ref.copy()
    out[21] = np.nan  # NaN in the last, partial chunk
    assert "y[21] = nan" in checked_problem("y", out, ref, 1e-6)
    assert measure.check("y", ref.copy(), ref, 1e-6) == measure.Check(None, 0.0)


def test_integers_must_match_exactly():
    ref = np.arange(10, dtype=np.int32)
    assert compare("c", ref.copy(), ref, tolerance(np.int32, 10)) is None
    out = ref.copy()
    out[7] += 1
    assert compare("c", out, ref, 0.0) == "c[7] = 8, reference 7 (1 of 10 elements differ)"


def test_nan_and_infinity_must_match():
    ref = np.array([1.0, np.nan, np.inf], np.float64)
    assert compare("z", ref.copy(), ref, 1e-12) is None
    assert "NaN mismatch" in mismatch("z", np.array([1.0, 0.0, np.inf]), ref, 1e-12)
    assert "NaN mismatch" in mismatch("z", np.array([np.nan, np.nan, np.inf]), ref, 1e-12)
    assert "infinity" in mismatch("z", np.array([1.0, np.nan, -np.inf]), ref, 1e-12)
    assert mismatch("z", np.array([1.0, np.nan, np.inf, 1.0]), ref, 1e-12).startswith("z: shape")


@pytest.mark.parametrize("example, function, sizes, k", [
    ("saxpy", "saxpy", {"n": 1000}, 1),  # no loop accumulates
    ("dot", "dot", {"n": 4096}, 4096),  # the reduction loop's trip count
    ("matmul", "matmul", {"m": 8, "n": 9, "p": 77}, 77),  # the serial k loop
    ("conv2d", "conv2d", {"n": 100, "m": 100, "t": 5}, 25),  # two nested serial loops
    ("stencil2d", "jacobi2d", {"n": 10, "m": 10}, 1),
])
def test_the_reduction_length_comes_from_the_kernels_loops(example: str, function: str,
                                                           sizes: dict[str, int], k: int):

    from autogpu.tuner.adapter import c_function, reduction_length

    path = EXAMPLES / f"{example}.c"
    assert reduction_length(c_function(path.read_text(), str(path), function), sizes) == k


def test_unknown_trip_counts_fall_back_to_the_largest_size():
    from autogpu.tuner.adapter import c_function, reduction_length
    from autogpu.tuner.inputs import reduction_length as choose

    source = ("void f(float *a, const int *len, int n) {\n#pragma omp parallel for\n"
              "  for (int i = 0; i < n; i++) {\n    int k = 0;\n"
              "    while (k < len[i]) { a[i] += 1.0f; k++; }\n  }\n}\n")
    assert reduction_length(c_function(source, "f.c", "f"), {"n": 64}) is None
    assert choose({"n": 64, "m": 7}, None, None) == 64
    assert choose({"n": 64}, "n * 2", None) == 128
    assert choose({"n": 64}, None, 3) == 3


def test_writable_inputs_are_verified_and_const_ones_are_not_copied():
    """A variant that clobbers a non-const input fails verification, naming it; const inputs
    (which neither the kernel nor the executors can change) are shared, not copied."""
    from dataclasses import replace

    from autogpu.tuner import adapter
    from autogpu.tuner.measure import (
        KernelMeasurer,
        _written_arrays,  # pyright: ignore[reportPrivateUsage]  # the analysis under test
    )
    from autogpu.tuner.reference import requested

    source = ("void f(float *out, float *scratch, const float *in, int n) {\n"
              "#pragma omp parallel for\n"
              "  for (int i = 0; i < n; i++) out[i] = in[i] * 2.0f + scratch[i];\n}\n")
    n = 64
    rng = np.random.default_rng(1)
    args = [np.zeros(n, np.float32), rng.uniform(-1, 1, n).astype(np.float32),
            rng.uniform(-1, 1, n).astype(np.float32), n]
    measurer = KernelMeasurer("cpu", "f", args, requested("gcc", source, "f.c", "f"),
                              repetitions=1, warmup=0)
    measurer.setup()
    measurer.prepare()
    good = adapter.compile_variant(source, "f.c", "f", "autogpu-optimize{block_size=32}")
    assert _written_arrays(good, len(args)) == {0, 1}
    fresh = measurer._fresh(_written_arrays(good, len(args)))  # pyright: ignore[reportPrivateUsage]  # what it hands the kernel
    assert fresh[2] is args[2]
    assert fresh[1] is not args[1]
    assert measurer.measure({}, good).status == "ok"

    clobbering = replace(good, cuda_source=good.cuda_source.replace(
        "const float *__restrict__ scratch", "float *scratch").replace(
        "+ scratch[i];", "+ scratch[i];\n    scratch[i] = 0.0f;", 1))
    assert clobbering.cuda_source != good.cuda_source
    outcome = measurer.measure({}, clobbering)
    assert outcome.stage == "verify"
    assert outcome.reason is not None
    assert outcome.reason.startswith("scratch[")


def test_a_race_that_agrees_with_the_serial_order_fails_under_another_thread_order(tmp_path: Path):
    """`out[idx[i]] = x[i]` with colliding indices races: the serial C keeps the last write, and
    so does the CPU emulation's forward order. Every variant is also run with the threads
    shuffled and reversed, and then disagrees with gcc's serial reference."""
    import autogpu
    from autogpu.diagnostics import CompileError

    source = tmp_path / "scatter.c"
    source.write_text("void scatter(float *out, const float *x, const int *idx, int n) {\n"
                      "#pragma omp parallel for\n"
                      "  for (int i = 0; i < n; i++)\n    out[idx[i]] = x[i];\n}\n")
    n = 64
    np.save(tmp_path / "idx.npy", (np.arange(n) // 2).astype(np.int32))  # pairs collide
    with pytest.raises(CompileError, match="no variant of scatter passed verification") as e:
        autogpu.tune(str(source), "autogpu-vanilla", sizes={"n": n}, backend="cpu",
                     arrays={"out": "n"}, inputs={"idx": str(tmp_path / "idx.npy")},
                     space={"block_size": [32, 64]}, cache="none", isolate=False, jobs=0,
                     repetitions=1, warmup=0, progress=False, plot=False)
    assert "[verify] out[" in str(e.value)
    assert "order]" in str(e.value)


@pytest.mark.parametrize("error, environment", [
    (MemoryError(), True),
    (OSError(12, "Cannot allocate memory"), True),
    (OSError("libkernels.so: failed to map segment from shared object"), True),
    ("kernel 'k' failed on the CPU: cannot allocate a fiber stack (out of memory)", True),
    ("cuMemAlloc failed: out of memory", True),
    ("cuInit failed: no CUDA-capable device is detected", True),
    ("cuCtxCreate failed: all CUDA-capable devices are busy or unavailable", True),
    ("g++: fatal error: Killed signal terminated program cc1plus", True),
    ("y[3] = 0.5, reference 0.25: error 0.25 > tolerance 9.5e-07", False),
    ("cuLaunchKernel failed: too many resources requested for launch", False),
    ("an illegal memory access was encountered", False),
    (ValueError("unroll_x=3 does not divide 64"), False),
    # the CPU emulation's own type, whatever it says (a compiler killed with no message)
    (KernelEnvironmentError("g++ ran out of resources (killed by signal 9)"), True),
])
def test_environment_failures_are_told_apart_from_the_variants(error: BaseException | str,
                                                                environment: bool):
    assert measure.is_environment_failure(error) is environment
    outcome = measure.failure("launch", error)
    assert outcome.stage == ("environment" if environment else "launch")
