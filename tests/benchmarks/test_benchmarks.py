"""The benchmark runner's CPU-side machinery: suites, problem sizes and references, the peers'
layout and index conventions (with NumPy/SciPy standing in for CuPy/cupyx: same calls), timing,
roofline, launch binding, the runner's verify-then-time logic with fake kernels and timers, the
table/JSON and the CLI. The GPU run itself is one test, skipped without CuPy and a GPU."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from paths import ROOT

from autogpu.diagnostics import CompileError
from benchmarks import devices, run
from benchmarks.devices import CpuDevice, Unavailable, bind_launches, build, missing_feature
from benchmarks.peers import correlate_peer, numpy_gemm, sgemm_peer
from benchmarks.problems import CONV2D, MATMUL
from benchmarks.report import FAILED, OK, UNAVAILABLE, Row, format_table, rows_from_json, to_json
from benchmarks.roofline import Roofline, fp32_peak
from benchmarks.runner import Runner, group_by_size
from benchmarks.suites import MATMUL_VARIANTS, SUITES, Case, paper, sizes_of
from benchmarks.timing import measure

RNG = np.random.default_rng(1)


# --- suites -------------------------------------------------------------------------------------


def names_at(cases: list[Case], **sizes: int) -> list[str]:
    return [c.variant.name for c in cases if all(c.size_dict[k] == v for k, v in sizes.items())]


def test_paper_suite_runs_the_papers_progression_at_its_sizes():
    cases = paper()
    assert names_at(cases, m=2048, n=2048, p=2048) == ["mm_0", "mm_1", "mm_2", "mm_autogpu"]
    assert names_at(cases, m=3000, n=3000, p=3000) == [
        "mm_0", "mm_cond_1", "mm_cond_2", "mm_cond_autogpu"]
    assert names_at(cases, n=8192, m=8192, t=5) == ["conv5_0", "conv5_1", "conv5_autogpu"]
    assert names_at(cases, n=8192, m=8192, t=11) == ["conv11_0", "conv11_1", "conv11_autogpu"]
    assert len(cases) == 14


def test_quick_suite_has_the_same_variants_at_smaller_sizes():
    full, quick = paper(), paper(quick=True)
    assert [c.variant.name for c in quick] == [c.variant.name for c in full]
    for f, q in zip(full, quick):
        assert q.size_dict["t" if "t" in q.size_dict else "m"] <= f.size_dict[
            "t" if "t" in f.size_dict else "m"]
        assert np.prod(list(q.size_dict.values())) < np.prod(list(f.size_dict.values()))


@pytest.mark.parametrize("quick", [False, True])
def test_specialised_variants_are_compiled_for_their_cases_sizes(quick: bool):
    """A kernel specialised for other sizes would index out of bounds (which can kill the CUDA
    context for every later row), so each optimised variant names exactly its case's sizes."""
    from xdsl.utils.arg_spec import parse_pipeline

    for case in [c for suite in SUITES.values() for c in suite(quick)]:
        (spec,) = parse_pipeline(case.variant.pipeline)
        if spec.name in ("autogpu-optimize", "autogpu-tiled") and "sizes" in spec.parameters:
            (sizes,) = spec.parameters["sizes"]
            assert isinstance(sizes, str), sizes
            compiled = dict(item.split("=") for item in sizes.split(","))
            assert {k: int(v) for k, v in compiled.items()} == case.size_dict, case


def test_every_variant_names_an_existing_example_and_a_parsable_pipeline():
    from xdsl.utils.arg_spec import parse_pipeline

    for case in paper():
        assert (ROOT / "examples" / case.variant.example).is_file()
        specs = list(parse_pipeline(case.variant.pipeline))
        assert specs[0].name in ("autogpu-vanilla", "autogpu-optimize")
    spec = next(iter(parse_pipeline(MATMUL_VARIANTS["mm_cond_autogpu"].pipeline)))
    assert spec.parameters["block_size"] == (256,)
    assert spec.parameters["sizes"] == ("m=3000,n=3000,p=3000",)
    assert (spec.parameters["unroll_x"], spec.parameters["unroll_y"]) == ((2,), (8,))
    assert spec.parameters["unroll_serial"] == (16,)


def test_group_by_size_keeps_suite_order_and_shares_inputs_per_size():
    groups = group_by_size(paper())
    assert [len(v) for v in groups.values()] == [4, 4, 3, 3]
    assert next(iter(groups)) == ("matmul", sizes_of(MATMUL, 2048, 2048, 2048))


# --- problems: counts and the reference against the C loops, transcribed literally -----------


def test_flop_and_byte_counts():
    s = {"m": 2, "n": 3, "p": 5}
    assert MATMUL.flops(s) == 2 * 2 * 3 * 5
    assert MATMUL.min_bytes(s) == 4 * (2 * 5 + 5 * 3 + 2 * 2 * 3)
    c = {"n": 8192, "m": 8192, "t": 11}
    assert CONV2D.flops(c) == 2 * 8192 * 8192 * 121
    assert CONV2D.min_bytes(c) == 4 * (8202 * 8202 + 121 + 8192 * 8192)
    assert MATMUL.label({"m": 2048, "n": 2048, "p": 2048}) == "2048x2048x2048"
    assert CONV2D.label(c) == "8192x8192 t=11"


def test_tolerance_grows_with_the_reduction_length():
    eps = float(np.finfo(np.float32).eps)
    assert MATMUL.tolerance({"m": 1, "n": 1, "p": 3000}) == pytest.approx(16 * eps * 3000**0.5)
    assert CONV2D.tolerance({"n": 1, "m": 1, "t": 5}) == pytest.approx(16 * eps * 5)
    # one product of 25 missing from a 5x5 window is far outside it
    assert CONV2D.tolerance({"n": 1, "m": 1, "t": 5}) < 1e-3


def matmul_c(A: np.ndarray, B: np.ndarray, C: np.ndarray, m: int, n: int, p: int) -> np.ndarray:
    A, B, C = (x.astype(np.float64) for x in (A, B, C))  # pyright: ignore[reportConstantRedefinition]  # the C loops' names, as float64 copies
    for j in range(n):
        for i in range(m):
            for k in range(p):
                A[i + j * m] += B[i + k * m] * C[k + j * p]
    return A


def conv2d_c(inp: np.ndarray, tmpl: np.ndarray, n: int, m: int, t: int) -> np.ndarray:
    inp, tmpl, out = inp.astype(np.float64), tmpl.astype(np.float64), np.zeros(n * m)
    pn = n + t - 1
    for j in range(m):
        for i in range(n):
            s = 0.0
            for v in range(t):
                for u in range(t):
                    s += inp[(i + u) + (j + v) * pn] * tmpl[u + v * t]
            out[i + j * n] = s
    return out


def test_matmul_inputs_and_reference_follow_the_c_loops():
    s = {"m": 3, "n": 4, "p": 5}
    arrays = MATMUL.inputs(s, RNG)
    assert {k: (a.shape, a.dtype) for k, a in arrays.items()} == {
        "A": ((12,), np.float32), "B": ((15,), np.float32), "C": ((20,), np.float32)}
    expected = matmul_c(arrays["A"], arrays["B"], arrays["C"], **s)
    np.testing.assert_allclose(MATMUL.reference(np, arrays, s), expected, rtol=1e-12)


@pytest.mark.parametrize("n,m,t", [(4, 3, 3), (5, 2, 2), (3, 4, 1), (6, 5, 5)])
def test_conv_inputs_and_reference_follow_the_c_loops(n: int, m: int, t: int):
    s = {"n": n, "m": m, "t": t}
    arrays = CONV2D.inputs(s, RNG)
    assert arrays["in"].shape == ((n + t - 1) * (m + t - 1),)
    assert arrays["out"].shape == (n * m,)
    assert not arrays["out"].any()
    expected = conv2d_c(arrays["in"], arrays["tmpl"], n, m, t)
    np.testing.assert_allclose(CONV2D.reference(np, arrays, s), expected, rtol=1e-12)


def test_conv_padding_puts_the_image_at_offset_t_div_2_among_zeros():
    n, m, t = 4, 3, 5
    arrays = CONV2D.inputs({"n": n, "m": m, "t": t}, RNG)
    pn = n + t - 1
    padded = arrays["in"]
    for j in range(m + t - 1):
        for i in range(pn):
            inside = 2 <= i < 2 + n and 2 <= j < 2 + m
            value = arrays["image"][(i - 2) + (j - 2) * n] if inside else 0.0
            assert padded[i + j * pn] == value


# --- peers: the calls the GPU peers make, on NumPy/SciPy -----------------------------------------


def test_numpy_gemm_has_cublas_gemm_semantics():
    a, b, out = RNG.random((2, 3)), RNG.random((3, 4)), RNG.random((2, 4))
    expected = 2.0 * a @ b + 0.5 * out
    numpy_gemm("N", "N", a, b, out=out, alpha=2.0, beta=0.5)
    np.testing.assert_allclose(out, expected)
    out2 = np.zeros((2, 4))
    numpy_gemm("T", "N", a.T.copy(), b, out=out2, alpha=1.0, beta=0.0)
    np.testing.assert_allclose(out2, a @ b)


def test_sgemm_peer_computes_the_column_major_product_in_place():
    s = {"m": 5, "n": 3, "p": 7}  # all different, so a transposed layout cannot pass
    arrays = MATMUL.inputs(s, RNG)
    expected = matmul_c(arrays["A"], arrays["B"], arrays["C"], **s)
    a_buffer = arrays["A"]
    sgemm_peer("gemm", numpy_gemm).bind(arrays, s)()
    assert arrays["A"] is a_buffer
    np.testing.assert_allclose(arrays["A"], expected, rtol=1e-5)


@pytest.mark.parametrize("n,m,t", [(7, 4, 3), (5, 6, 5), (6, 5, 4), (9, 8, 11)])
def test_correlate_peer_on_the_unpadded_image_matches_the_padded_c_kernel(n: int, m: int, t: int):
    """The conv peer's convention (ndimage centre t // 2, zeros outside, row-major views of the
    column-major buffers) against the C loops on the kernel's own padded input."""
    import scipy.ndimage  # pyright: ignore[reportMissingTypeStubs]  # SciPy ships no stubs

    s = {"n": n, "m": m, "t": t}
    arrays = CONV2D.inputs(s, RNG)
    expected = conv2d_c(arrays["in"], arrays["tmpl"], n, m, t)
    correlate_peer("scipy", scipy.ndimage).bind(arrays, s)()
    np.testing.assert_allclose(arrays["out"], expected, rtol=1e-5, atol=1e-6)


def test_gpu_peer_reports_a_missing_library_clearly(monkeypatch: pytest.MonkeyPatch):
    from benchmarks import peers

    monkeypatch.setitem(sys.modules, "torch", None)  # "import torch" raises ImportError
    with pytest.raises(peers.PeerUnavailable, match="PyTorch is not installed"):
        peers.gpu_peer("matmul", "torch")
    monkeypatch.setitem(sys.modules, "cupy", None)
    with pytest.raises(peers.PeerUnavailable, match="CuPy is not installed"):
        peers.gpu_peer("matmul", "cupy")
    with pytest.raises(peers.PeerUnavailable, match="no peer"):
        peers.gpu_peer("saxpy")


def test_tf32_is_off_in_the_environment():
    import os

    assert os.environ["NVIDIA_TF32_OVERRIDE"] == "0"
    assert os.environ["CUPY_TF32"] == "0"


# --- timing and roofline ------------------------------------------------------------------------


class FakeTimer:
    """Returns the next of `times` for each timed call, counting them."""

    def __init__(self, *times: float):
        self.times, self.calls = list(times), 0

    def __call__(self, fn: Callable[[], Any]) -> float:
        fn()
        self.calls += 1
        return self.times[(self.calls - 1) % len(self.times)]


def test_measure_warms_up_then_takes_the_median():
    calls: list[int] = []
    timer = FakeTimer(5.0, 1.0, 3.0, 100.0, 2.0)
    timing = measure(lambda: calls.append(1), timer, warmup=2, reps=5)
    assert len(calls) == 7
    assert timer.calls == 5
    assert (timing.median_ms, timing.min_ms, timing.max_ms) == (3.0, 1.0, 100.0)
    with pytest.raises(ValueError, match="rep"):
        measure(lambda: None, timer, warmup=0, reps=0)


def test_fp32_peak_from_device_properties():
    peak, text = fp32_peak(132, 1_980_000, (9, 0))  # H100 SXM
    assert peak == pytest.approx(66.9e12, rel=1e-3)
    assert text == "132 SMs x 1980 MHz x 128 lanes x 2"
    assert fp32_peak(108, 1_410_000, (8, 0))[0] == pytest.approx(19.5e12, rel=1e-2)  # A100


def test_roofline_takes_the_lower_roof():
    roof = Roofline(peak_flops=60e12, bandwidth=3e12, peak_source="", bandwidth_source="")
    # matmul 2048: 256 FLOP/byte, compute bound; conv 5x5: ~6 FLOP/byte, memory bound
    mm = {"m": 2048, "n": 2048, "p": 2048}
    assert roof.bound(MATMUL.flops(mm), MATMUL.min_bytes(mm)) == "compute"
    assert roof.attainable(MATMUL.flops(mm), MATMUL.min_bytes(mm)) == 60e12
    conv = {"n": 8192, "m": 8192, "t": 5}
    flops, nbytes = CONV2D.flops(conv), CONV2D.min_bytes(conv)
    assert roof.bound(flops, nbytes) == "memory"
    assert roof.attainable(flops, nbytes) == pytest.approx(flops / nbytes * 3e12)
    seconds = nbytes / 3e12  # exactly at the memory roof
    assert roof.percent(flops, nbytes, seconds) == pytest.approx(100.0)
    assert roof.percent(flops, nbytes, 2 * seconds) == pytest.approx(50.0)


# --- the compiler adapter and launch binding ----------------------------------------------------


def test_missing_feature_names_the_missing_pass_or_option():
    assert missing_feature("no-such-pass{x=1}") == "pass 'no-such-pass' is not registered"
    assert missing_feature("canonicalize{bogus=1}") == "pass 'canonicalize' has no option 'bogus'"
    assert missing_feature("canonicalize,apply-pdl{pdl_file=\"x\"}") is None
    with pytest.raises(CompileError, match="invalid pipeline"):
        missing_feature("canonicalize{")


def test_build_reports_unavailable_stages_and_keeps_compile_errors(monkeypatch: pytest.MonkeyPatch):
    import autogpu

    with pytest.raises(Unavailable, match="no-such-pass"):
        build("matmul.c", "no-such-pass")

    def missing_stage(*args: object, **kwargs: object):
        raise ImportError("cannot import name 'emit_cuda'")

    monkeypatch.setattr(autogpu, "compile", missing_stage)
    with pytest.raises(Unavailable, match="not implemented yet: cannot import name 'emit_cuda'"):
        build("matmul.c", "canonicalize")

    def bad(*args: object, **kwargs: object):
        raise CompileError("unsupported")

    monkeypatch.setattr(autogpu, "compile", bad)
    with pytest.raises(CompileError, match="unsupported"):
        build("matmul.c", "canonicalize")


MATMUL_PARAMS = [
    {"name": "A", "kind": "array", "dtype": "float32"},
    {"name": "B", "kind": "array", "dtype": "float32"},
    {"name": "C", "kind": "array", "dtype": "float32"},
    {"name": "m", "kind": "scalar", "dtype": "int32"},
    {"name": "n", "kind": "scalar", "dtype": "int32"},
    {"name": "p", "kind": "scalar", "dtype": "int64"},
]


class FakeKernel:
    """An autogpu.Kernel stand-in: a launch description and a NumPy body for backend="cpu"."""

    def __init__(self, body: Callable[..., None] | None = None,
                 launches: list[dict[str, Any]] | None = None,
                 configs: list[dict[str, Any]] | None = None,
                 params: list[dict[str, str]] = MATMUL_PARAMS):
        self.name, self.params, self.body = "matmul", params, body
        self.launch: dict[str, Any] = {"params": params, "launches": launches or []}
        self.configs = configs or []
        self.cuda_source: str | None = None  # the runner compares sources only where one is set
        self.timed_on: dict[str, Any] | None = None  # what the pycuda stand-in was timed on

    def launch_config(self, **scalars: int) -> list[dict[str, Any]]:
        return [dict(c, kernel=e["kernel"]) for c, e in zip(self.configs, self.launch["launches"])]

    def __call__(self, backend: str = "cpu", **named: Any) -> None:
        assert backend == "cpu"
        assert self.body is not None, "this fake kernel was made without a body"
        self.body(**named)

    def program(self, backend: str):
        """A pycuda executor stand-in: `time` runs the body once and reports 1.5 ms."""
        assert backend == "cuda"
        kernel = self

        class Program:
            def time(self, name: str, args: tuple[Any, ...], named: dict[str, Any], repetitions: int,
                     warmup: int, copies: bool) -> types.SimpleNamespace:
                assert (name, args, repetitions, warmup, copies) == ("matmul", (), 3, 1, False)
                kernel.timed_on = dict(named)
                assert kernel.body is not None, "this fake kernel was made without a body"
                kernel.body(**named)
                return types.SimpleNamespace(kernel_s=1.5e-3)

        return Program()


def test_bind_launches_follows_the_launch_description():
    launches = [
        {"kernel": "k0", "args": ["A", "m", "p"]},
        {"kernel": "k1", "args": ["B", "C", "n"]},
        {"kernel": "k2", "args": ["A"]},
    ]
    configs = [
        {"grid": [8, 2048, 1], "block": [256, 1, 1], "shared": 0},
        {"grid": [1, 1, 1], "block": [32, 8, 1], "shared": 64 * 1024},
        {"grid": [0, 1, 1], "block": [256, 1, 1], "shared": 0},  # empty: skipped
    ]
    kernel = FakeKernel(launches=launches, configs=configs)
    issued: list[tuple[str, tuple[int, ...], tuple[int, ...], tuple[Any, ...], int]] = []
    functions: dict[str, Function] = {}

    class Function:
        max_dynamic_shared_size_bytes: int  # set by bind_launches for more than 48 KiB

        def __init__(self, name: str):
            self.name = name

        def __call__(self, grid: tuple[int, ...], block: tuple[int, ...], args: tuple[Any, ...],
                     shared_mem: int = 0) -> None:
            issued.append((self.name, grid, block, args, shared_mem))

    def get_function(name: str) -> Function:
        return functions.setdefault(name, Function(name))

    arrays = {"A": "dA", "B": "dB", "C": "dC"}
    launch = bind_launches(kernel, get_function, arrays, {"m": 2048, "n": 2048, "p": 2048})
    assert issued == []  # binding issues nothing
    launch()
    assert [i[0] for i in issued] == ["k0", "k1"]
    _name, grid, block, args, shared = issued[0]
    assert (grid, block, shared) == ((8, 2048, 1), (256, 1, 1), 0)
    assert args[0] == "dA"
    assert type(args[1]) is np.int32
    assert type(args[2]) is np.int64
    assert args[1] == 2048
    assert issued[1][4] == 64 * 1024
    assert functions["k1"].max_dynamic_shared_size_bytes == 65536
    assert not hasattr(functions["k0"], "max_dynamic_shared_size_bytes")


def test_bind_launches_allocates_the_scratch_of_per_block_partials():
    kernel = build("reductions/histogram_wide.c",
                   "autogpu-vanilla{block_size=256 array_reduction=partials}")
    issued: list[tuple[str, tuple[int, ...], list[Any]]] = []
    arrays = {"keys": "dkeys", "hist": "dhist"}
    allocated: list[tuple[int, np.dtype[Any]]] = []

    def zeros(n: int, dtype: np.dtype[Any]) -> str:
        allocated.append((n, dtype))
        return f"scratch of {n}"

    def kernel_named(name: str) -> Callable[..., None]:
        def launch(grid: tuple[int, ...], block: tuple[int, ...], args: list[Any],
                   shared_mem: int = 0) -> None:
            issued.append((name, grid, args))
        return launch

    launch = bind_launches(kernel, kernel_named, arrays, {"n": 1000, "K": 70000}, zeros)
    launch()
    assert allocated == [(4 * 70000, np.dtype(np.int32))]  # 4 blocks of 256 rows
    assert [(name, grid) for name, grid, _ in issued] == [
        ("histogram_wide_kernel", (4, 1, 1)), ("histogram_wide_kernel_combine", (4, 1, 1))]
    assert all(args[-1] == "scratch of 280000" for _, _, args in issued)


# --- the runner: verify, then time, with fake kernels on the CPU device --------------------------


def good_matmul(A: np.ndarray, B: np.ndarray, C: np.ndarray, m: int, n: int, p: int) -> None:
    A += (B.reshape((m, p), order="F") @ C.reshape((p, n), order="F")).ravel(order="F")  # pyright: ignore[reportConstantRedefinition]  # in place: A is the C kernel's output


def wrong_matmul(A: np.ndarray, B: np.ndarray, C: np.ndarray, m: int, n: int, p: int) -> None:  # drops the last k term
    A += (B.reshape((m, p), order="F")[:, :-1] @ C.reshape((p, n), order="F")[:-1]).ravel(order="F")  # pyright: ignore[reportConstantRedefinition]  # in place: A is the C kernel's output


def corrupting_matmul(A: np.ndarray, B: np.ndarray, C: np.ndarray, m: int, n: int, p: int) -> None:  # right result, but scribbles on its input
    good_matmul(A, B, C, m, n, p)
    B[:] = 0


def crashing_matmul(**_: object):
    raise RuntimeError("an illegal memory access was encountered\nmore text")


SMALL = sizes_of(MATMUL, 12, 10, 9)


def fake_cases(*names: str) -> list[Case]:
    """A case per name; "a|b" is pipeline-a with the fallback pipeline-b."""
    from benchmarks.suites import Variant

    def variant(name: str) -> Variant:
        first, *rest = name.split("|")
        return Variant(name, MATMUL, f"pipeline-{first}", "", tuple(f"pipeline-{r}" for r in rest))

    return [Case(variant(n), SMALL) for n in names]


def fake_builder(example: str, pipeline: str) -> FakeKernel:
    name = pipeline.removeprefix("pipeline-")
    if name == "slow":
        import time

        time.sleep(30)
    bodies = {"good": good_matmul, "wrong": wrong_matmul, "corrupt": corrupting_matmul,
              "crash": crashing_matmul}
    if name == "missing":
        raise Unavailable("pass 'autogpu-optimize' is not registered")
    if name == "bad":
        raise CompileError("block width 7 is not a multiple of the warp size")
    return FakeKernel(bodies[name])


def run_fake(*names: str, timer: FakeTimer | None = None, pycuda: bool = False
             ) -> tuple[list[Row], FakeTimer]:
    timer = timer or FakeTimer(2.0)
    roof = Roofline(1e12, 1e11, "test", "test")
    device = CpuDevice(timer=timer)
    runner = Runner(device, warmup=1, reps=3, builder=fake_builder, roofline=roof,
                    pycuda=pycuda, log=lambda s: None)
    return runner.run(fake_cases(*names)), timer


def test_runner_verifies_then_times_and_compares_with_the_peer():
    # the peer gets 4.0 ms (3 reps), our kernel 2.0 ms
    rows, timer = run_fake("good", timer=FakeTimer(4.0, 4.0, 4.0, 2.0, 2.0, 2.0))
    peer, ours = rows
    assert peer.is_peer
    assert peer.variant == "numpy-gemm"
    assert peer.status == OK
    assert ours.status == OK
    assert ours.median_ms == 2.0
    assert ours.samples_ms == [2.0] * 3
    assert ours.vs_peer == pytest.approx(2.0)
    assert peer.vs_peer == 1.0
    flops = 2 * 12 * 10 * 9
    assert ours.gflops == pytest.approx(flops / 2e-3 / 1e9)
    assert ours.gbs == pytest.approx(MATMUL.min_bytes(dict(SMALL)) / 2e-3 / 1e9)
    assert ours.pct_roofline == pytest.approx(100 * flops / 2e-3 / Roofline(
        1e12, 1e11, "", "").attainable(flops, MATMUL.min_bytes(dict(SMALL))))
    assert ours.rel_err is not None
    assert ours.rel_err < 1e-6
    assert ours.max_abs_err is not None
    assert timer.calls == 6


def test_a_wrong_result_fails_the_row_and_is_not_timed():
    rows, timer = run_fake("wrong")
    assert rows[1].status == FAILED
    assert "wrong result: rel err" in rows[1].detail
    assert rows[1].median_ms is None
    assert rows[1].vs_peer is None
    assert timer.calls == 3  # the peer's only


def test_unavailable_and_compile_errors_are_rows_not_crashes():
    rows, _ = run_fake("missing", "bad", "crash", "good")
    by_name = {r.variant: r for r in rows}
    assert by_name["missing"].status_text == (
        "unavailable: pass 'autogpu-optimize' is not registered")
    assert by_name["bad"].status_text == (
        "FAILED: compile: block width 7 is not a multiple of the warp size")
    assert by_name["crash"].status_text == (
        "FAILED: RuntimeError: an illegal memory access was encountered")
    assert by_name["good"].status == OK


def test_fallback_pipelines_run_when_the_preferred_one_is_unavailable():
    rows, _ = run_fake("missing|good", "missing|missing", "bad|good")
    fallback, none, bad = rows[1:]
    assert fallback.status == OK
    assert fallback.pipeline == "pipeline-good"
    assert fallback.fallback
    assert not none.fallback
    assert not bad.fallback
    table = format_table(rows).splitlines()
    assert table[3].split()[1] == "missing|good*"
    assert table[-1] == "* ran its fallback pipeline (--list shows them)"
    assert none.status_text == ("unavailable: pass 'autogpu-optimize' is not registered "
                                "(fallbacks: pass 'autogpu-optimize' is not registered)")
    assert none.pipeline == "pipeline-missing"
    assert bad.status == FAILED
    assert bad.pipeline == "pipeline-bad"


def test_a_build_that_overruns_its_time_fails_the_row():
    runner = Runner(CpuDevice(timer=FakeTimer(1.0)), warmup=0, reps=1, builder=fake_builder,
                    compile_timeout=0.2, log=lambda s: None)
    rows = runner.run(fake_cases("slow", "good"))
    assert rows[1].status_text == "FAILED: compile: took more than 0.2 s (--compile-timeout)"
    assert rows[2].status == OK
    assert runner.build_seconds["slow"] < 5


def test_a_variant_that_compiles_to_an_earlier_ones_kernel_says_so():
    def builder(example: str, pipeline: str) -> FakeKernel:
        kernel = FakeKernel(good_matmul)
        kernel.cuda_source = "same" if pipeline != "pipeline-c" else "other"
        return kernel

    runner = Runner(CpuDevice(timer=FakeTimer(1.0)), warmup=0, reps=1, builder=builder,
                    log=lambda s: None)
    rows = runner.run(fake_cases("a", "b", "c"))
    assert [r.status_text for r in rows[1:]] == ["ok", "ok: same kernel as a", "ok"]


def test_each_variant_starts_from_fresh_inputs():
    rows, _ = run_fake("corrupt", "good")
    assert [r.status for r in rows] == [OK, OK, OK]


def test_pycuda_cross_check_times_and_verifies_through_the_executor():
    rows, _ = run_fake("good", "corrupt", "wrong", pycuda=True)
    peer, good, corrupt, wrong = rows
    assert good.pycuda_ms == 1.5
    assert good.pycuda_rel_err is not None
    assert good.pycuda_rel_err < 1e-6
    assert good.pycuda_error is None
    assert corrupt.pycuda_ms == 1.5  # its scribbling reached a copy, not the shared inputs
    assert peer.pycuda_ms is None
    assert wrong.pycuda_ms is None
    header = format_table(rows).splitlines()[0]
    assert header.split()[3:6] == ["ms", "pycuda", "ms"]
    assert "pycuda" not in format_table(run_fake("good")[0])


# --- report and CLI -----------------------------------------------------------------------------


def test_the_pycuda_cross_check_runs_on_the_runners_own_device_arrays():
    """No host copies: the executor gets the arrays the runner launched on (CuPy on a GPU),
    reset to the inputs first."""
    seen: list[FakeKernel] = []

    def builder(example: str, pipeline: str) -> FakeKernel:
        kernel = fake_builder(example, pipeline)
        seen.append(kernel)
        return kernel

    device = CpuDevice(timer=FakeTimer(2.0))
    arrays_of_runs: list[dict[str, Any]] = []
    load = device.load
    device.load = lambda kernel, arrays, sizes: (arrays_of_runs.append(arrays),
                                                 load(kernel, arrays, sizes))[1]
    runner = Runner(device, warmup=1, reps=3, builder=builder,
                    roofline=Roofline(1e12, 1e11, "test", "test"), pycuda=True,
                    log=lambda s: None)
    rows = runner.run(fake_cases("good"))
    assert rows[1].pycuda_ms == 1.5
    assert rows[1].pycuda_rel_err is not None
    assert rows[1].pycuda_rel_err < 1e-6
    timed = seen[0].timed_on
    assert timed is not None
    arrays = arrays_of_runs[0]
    assert all(timed[name] is arrays[name] for name in arrays)


def test_table_and_json_carry_the_same_rows():
    rows, _ = run_fake("good", "wrong", "missing")
    table = format_table(rows)
    lines = table.splitlines()
    assert lines[0].split() == ["kernel", "variant", "size", "ms", "GFLOP/s", "GB/s", "vs", "peer",
                                "%", "roof", "abs", "err", "rel", "err", "status"]
    assert "[numpy-gemm]" in lines[2]
    assert "12x10x9" in lines[2]
    assert lines[3].split()[3] == "2.000"
    assert lines[3].rstrip().endswith("ok")
    assert "FAILED: wrong result" in lines[4]
    assert lines[5].rstrip().endswith("unavailable: pass 'autogpu-optimize' is not registered")
    assert len({len(line.rstrip()) <= len(lines[1]) for line in lines}) == 1
    document = to_json(rows, suite="test")
    assert json.loads(document)["suite"] == "test"
    assert rows_from_json(document) == rows


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "benchmarks.run", *args], capture_output=True,
                          text=True, cwd=ROOT, check=False)


def test_cli_help_and_usage_errors():
    help_ = cli("--help")
    assert help_.returncode == 0
    for flag in ("--suite", "--quick", "--variant", "--json", "--list", "--device"):
        assert flag in help_.stdout
    bad_suite = cli("--suite", "nope")
    assert bad_suite.returncode == 2
    assert "invalid choice: 'nope'" in bad_suite.stderr
    bad_variant = cli("--variant", "mm_9", "--list")
    assert bad_variant.returncode == 2
    assert "no variant matches 'mm_9'; the suite has: conv11_0" in bad_variant.stderr
    assert cli("--reps", "0").returncode == 2
    assert "--pycuda times on the GPU" in cli("--pycuda", "--device", "cpu").stderr
    listing = cli("--list", "--quick", "--variant", "mm_cond_*")
    assert listing.returncode == 0
    names = [line.split()[0] for line in listing.stdout.splitlines() if not line[0].isspace()]
    assert names == ["mm_cond_1", "mm_cond_2", "mm_cond_autogpu"]
    assert 'autogpu-optimize{sizes="m=500,n=500,p=500" block_size=256 cache=false}' \
        in listing.stdout


def test_cli_compile_only_builds_each_variant_once(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    calls: list[str] = []

    def builder(example: str, pipeline: str) -> FakeKernel:
        calls.append(pipeline)
        return fake_builder(example, pipeline)

    cases = fake_cases("missing|good", "bad") * 2  # the same variants at two "sizes"
    from benchmarks.suites import Variant

    other = Variant("other", MATMUL, "pipeline-missing", "", ("pipeline-good",))
    cases.append(Case(other, SMALL))  # another name for the same pipelines: built once too
    monkeypatch.setitem(SUITES, "tiny", lambda quick: cases)
    monkeypatch.setattr(devices, "build", builder)
    assert run.main(["--suite", "tiny", "--compile-only"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert calls == ["pipeline-missing", "pipeline-good", "pipeline-bad"]
    assert lines[0].split()[0] == "missing|good"
    assert lines[0].endswith("s  ok (fallback)")
    assert lines[1].strip() == "pipeline-good"
    assert lines[2].endswith("FAILED: block width 7 is not a multiple of the warp size")
    assert lines[3].split()[0] == "other"
    assert lines[3].endswith("s  ok (fallback)")


def test_cli_without_cupy_says_so(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    monkeypatch.setitem(sys.modules, "cupy", None)
    assert run.main(["--variant", "mm_0", "--quick"]) == 1
    assert "the cuda device needs CuPy" in capsys.readouterr().err


def test_cli_runs_a_suite_on_the_cpu_device_and_writes_json(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]):
    def tiny(quick: bool) -> list[Case]:
        return fake_cases("good", "missing")

    monkeypatch.setitem(SUITES, "tiny", tiny)
    monkeypatch.setattr(devices, "build", fake_builder)
    out = tmp_path / "r.json"
    assert run.main(["--suite", "tiny", "--device", "cpu", "--reps", "2", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "  good  " in printed
    assert "unavailable" in printed
    document = json.loads(out.read_text())
    assert document["suite"] == "tiny"
    assert document["settings"]["reps"] == 2
    assert [r["status"] for r in document["rows"]] == [OK, OK, UNAVAILABLE]
    assert len(document["rows"][1]["samples_ms"]) == 2

    monkeypatch.setitem(SUITES, "tiny", lambda quick: fake_cases("wrong"))
    assert run.main(["--suite", "tiny", "--device", "cpu"]) == 1  # a FAILED row


def test_quick_paper_suite_on_the_gpu(tmp_path: Path):
    """The real thing, on the GPU machine: the peers must verify against the float64 reference
    (which checks their layouts), and no autogpu variant may be FAILED."""
    cupy = pytest.importorskip("cupy", reason="needs CuPy and a GPU: run on the GPU machine")
    if cupy.cuda.runtime.getDeviceCount() == 0:
        pytest.skip("needs an NVIDIA GPU: run on the GPU machine")
    import importlib.util

    out = tmp_path / "quick.json"
    pycuda = importlib.util.find_spec("pycuda") is not None
    code = run.main(["--quick", "--reps", "3", "--json", str(out)] + ["--pycuda"] * pycuda)
    rows = json.loads(out.read_text())["rows"]
    peers = [r for r in rows if r["is_peer"]]
    assert peers
    assert all(r["status"] == OK for r in peers), peers
    assert code == 0, [r for r in rows if r["status"] == FAILED]
    verified = [r for r in rows if r["status"] == OK and not r["is_peer"]]
    for r in verified if pycuda else []:  # the executor agrees on the result
        assert r["pycuda_error"] is None, r
        assert r["pycuda_rel_err"] < 1e-4, r


# --- the CuPy glue, against a stand-in module (the real one runs in the GPU test) ---------------


class FakeCupy:
    """Just the CuPy surface the cuda device uses, recording what it is asked."""

    float32, float64 = np.float32, np.float64
    __version__ = "fake"
    ones: Callable[[int, Any], Any]  # set by the tests that need them
    empty_like: Callable[[Any], Any]

    def __init__(self):
        import types

        self.log: list[str | tuple[Any, ...]] = []
        self.clock = iter(range(0, 1000, 4))  # an event records the next "time", 4 ms apart

        fake = self

        class Event:
            def record(self):
                self.t = next(fake.clock)
                fake.log.append("record")

            def synchronize(self):
                fake.log.append("sync")

        class Device:
            id = 0
            compute_capability = "90"
            attributes: ClassVar[dict[str, int]] = {"MultiProcessorCount": 132,
                                                    "ClockRate": 1_980_000}

            def synchronize(self):
                pass

        class RawModule:
            def __init__(self, code: str, options: tuple[str, ...], backend: str):
                fake.log.append(("module", code, options, backend))

            def get_function(self, name: str
                             ) -> Callable[[tuple[int, ...], tuple[int, ...], tuple[Any, ...], int], None]:
                return lambda grid, block, args, shared_mem=0: fake.log.append(
                    ("launch", name, grid, block, shared_mem))

        def get_elapsed_time(a: Event, b: Event) -> float:
            return float(b.t - a.t)

        def get_device_properties(i: int) -> dict[str, bytes]:
            return {"name": b"NVIDIA H100"}

        self.cuda = types.SimpleNamespace(
            Event=Event, Device=Device, get_elapsed_time=get_elapsed_time,
            runtime=types.SimpleNamespace(getDeviceProperties=get_device_properties))
        self.RawModule = RawModule

    def asarray(self, a: np.ndarray) -> np.ndarray:
        return np.array(a)


def test_cuda_event_timer_records_around_the_call_and_waits_for_the_end():
    from benchmarks.timing import cuda_event_timer

    fake = FakeCupy()
    elapsed = cuda_event_timer(fake)(lambda: fake.log.append("launch"))
    assert fake.log == ["record", "launch", "record", "sync"]
    assert elapsed == 4.0


def test_gpu_peak_and_copy_bandwidth_from_the_device():
    from benchmarks.roofline import copy_bandwidth, gpu_fp32_peak

    fake = FakeCupy()
    assert gpu_fp32_peak(fake)[0] == pytest.approx(66.9e12, rel=1e-3)
    fake.cuda.Device.attributes = {"MultiProcessorCount": 132}
    with pytest.raises(RuntimeError, match="--peak-tflops"):
        gpu_fp32_peak(fake)

    copies: list[int] = []

    class Buffer:
        def __init__(self, n: int):
            self.nbytes = 4 * n
            self.data = self

        def copy_from_device_async(self, src: Buffer, size: int) -> None:
            copies.append(size)

    fake.ones = lambda n, dtype: Buffer(n)
    fake.empty_like = lambda a: Buffer(a.nbytes // 4)
    bandwidth, text = copy_bandwidth(fake, FakeTimer(2.0), 1 << 30, reps=4)
    assert copies == [1 << 30] * 6  # 2 warm-up + 4 timed, each the whole buffer
    assert bandwidth == pytest.approx(2 * 2**30 / 2e-3)  # read + written in 2 ms
    assert text == "cudaMemcpy D2D of 1024 MiB, median of 4"


def test_cuda_device_compiles_the_kernel_source_and_launches_its_description(monkeypatch: pytest.MonkeyPatch):
    fake = FakeCupy()
    monkeypatch.setitem(sys.modules, "cupy", fake)
    device = devices.CudaDevice(compiler="nvcc", options=("-lineinfo",))
    assert device.describe()["name"] == "NVIDIA H100"
    kernel = FakeKernel(launches=[{"kernel": "matmul_kernel", "args": ["A", "m"]}],
                        configs=[{"grid": (2, 3, 1), "block": (256, 1, 1), "shared": 0}])
    kernel.cuda_source = "extern \"C\" __global__ void matmul_kernel(float *A, int m) {}"
    launch = device.load(kernel, {"A": device.put(np.zeros(4))}, {"m": 4, "n": 1, "p": 1})
    launch()
    assert fake.log == [("module", kernel.cuda_source, ("-lineinfo",), "nvcc"),
                        ("launch", "matmul_kernel", (2, 3, 1), (256, 1, 1), 0)]


def fake_module(name: str, **attributes: object) -> types.ModuleType:
    """A module holding `attributes`, to stand in for one in sys.modules."""
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    return module


def test_gpu_peers_call_cublas_gemm_and_cupyx_correlate(monkeypatch: pytest.MonkeyPatch):
    """With NumPy/SciPy installed under CuPy's module names, the GPU peers compute the right
    thing: this checks their wiring; the layouts are checked above."""
    import types

    import scipy.ndimage  # pyright: ignore[reportMissingTypeStubs]  # SciPy ships no stubs

    from benchmarks.peers import gpu_peer

    cupy = fake_module("cupy", cublas=types.SimpleNamespace(gemm=numpy_gemm))
    cupyx = fake_module("cupyx", scipy=types.SimpleNamespace(ndimage=scipy.ndimage))
    for name, module in {"cupy": cupy, "cupy.cublas": cupy.cublas, "cupyx": cupyx,
                         "cupyx.scipy": cupyx.scipy, "cupyx.scipy.ndimage": scipy.ndimage}.items():
        monkeypatch.setitem(sys.modules, name, module)

    s = {"m": 4, "n": 6, "p": 5}
    arrays = MATMUL.inputs(s, RNG)
    expected = MATMUL.reference(np, arrays, s)
    peer = gpu_peer("matmul")
    assert peer.name == "cublas-sgemm (cupy)"
    peer.bind(arrays, s)()
    np.testing.assert_allclose(arrays["A"], expected, rtol=1e-5)

    c = {"n": 9, "m": 7, "t": 5}
    arrays = CONV2D.inputs(c, RNG)
    peer = gpu_peer("conv2d")
    assert peer.name == "cupyx.correlate"
    peer.bind(arrays, c)()
    np.testing.assert_allclose(arrays["out"], CONV2D.reference(np, arrays, c), rtol=1e-5, atol=1e-6)


def test_real_vanilla_kernels_verify_on_the_cpu_device():
    """The whole chain with the real compiler: build (frontend, autogpu-vanilla, cuda target),
    the CPU emulation of the emitted CUDA, the reference check, the peer."""
    from benchmarks.suites import Variant, vanilla

    cases = [Case(Variant("mm_0", MATMUL, "no-such-pass", "", (vanilla(64),)),
                  sizes_of(MATMUL, 70, 40, 33)),
             Case(Variant("conv5_0", CONV2D, vanilla(32), ""), sizes_of(CONV2D, 40, 30, 5))]
    runner = Runner(CpuDevice(timer=FakeTimer(1.0)), warmup=0, reps=1, log=lambda s: None)
    rows = runner.run(cases)
    assert [(r.variant, r.status) for r in rows] == [
        ("numpy-gemm", OK), ("mm_0", OK), ("scipy.correlate", OK), ("conv5_0", OK)], rows
    assert all(r.rel_err is not None and r.rel_err < 1e-6 for r in rows)


# --- the out-of-core suite ------------------------------------------------------------------


def test_the_out_of_core_suite_is_run_by_benchmarks_run_with_a_matmul_row(capsys: pytest.CaptureFixture[str]):
    from benchmarks import out_of_core
    from benchmarks.run import main

    assert main(["--suite", "out-of-core", "--list", "--quick"]) == 0
    listed = capsys.readouterr().out.split()
    assert "matmul_12GiB_budget_8GiB" in listed
    assert set(listed) == set(out_of_core.cases(quick=True))
    full, quick = out_of_core.cases(quick=False), out_of_core.cases(quick=True)
    matmul = full["matmul_12GiB_budget_8GiB"]
    assert matmul["data"] > matmul["budget"]  # A and C exceed the budget: it runs in parts
    for name, case in quick.items():  # the same cases, 1/64 of the data and of the budget
        assert case["data"] * 64 == full[name]["data"]


def test_the_matmul_row_compiles_in_parts_and_in_core():
    import autogpu
    from benchmarks.out_of_core import MATMUL, MATMUL_PIPELINE

    in_parts = autogpu.compile(MATMUL, pipeline=f"agpu-out-of-core,{MATMUL_PIPELINE}")
    (function,) = in_parts.launch_description["functions"]
    assert [a["name"] for a in function["parts"]["arrays"] if a.get("whole")] == ["B"]
    assert "parts" not in autogpu.compile(MATMUL, pipeline=MATMUL_PIPELINE) \
        .launch_description["functions"][0]


# --- the remap suite (issue #13) ----------------------------------------------------------------


def test_remap_suite_compares_flat_remapping_with_the_3d_mapping_at_the_issues_sizes():
    from benchmarks.suites import remap

    def names_at(cases: list[Case], **sizes: int) -> list[str]:
        return [c.variant.name for c in cases if c.size_dict == sizes]

    cases = remap()
    variants = ["3d", "flat_all", "flat_outer", "flat_all_spec"]
    assert names_at(cases, na=1000, nb=1000, ni=4, nj=4, nk=4) == [f"bmm4_{v}" for v in variants]
    assert names_at(cases, n0=256, n1=256, n2=8, n3=4, n4=4) == [f"scale5_{v}" for v in variants]
    assert names_at(cases, n0=1000, n1=1000, n2=1, n3=1, n4=1) == [
        f"scale5_{v}" for v in variants]
    jacobi = ["jacobi_2d", "jacobi_2d_collapse2"]
    assert names_at(cases, tsteps=100, n=8192) == jacobi
    assert names_at(cases, tsteps=1, n=8192) == jacobi
    quick = remap(quick=True)
    assert [c.variant.name for c in quick] == [c.variant.name for c in cases]
    assert all(math.prod(q.size_dict.values()) < math.prod(f.size_dict.values())
               for q, f in zip(quick, cases))


def test_remap_references_and_peers_follow_the_c_loops():
    from benchmarks.remap import BMM4, JACOBI_2D, SCALE5, numpy_peer

    rng = np.random.default_rng(2)
    for problem, sizes in ((BMM4, dict(na=3, nb=2, ni=4, nj=3, nk=5)),
                           (SCALE5, dict(n0=2, n1=3, n2=2, n3=1, n4=3)),
                           (JACOBI_2D, dict(tsteps=3, n=7))):
        arrays = problem.inputs(sizes, rng)
        reference = problem.reference(np, arrays, sizes)
        numpy_peer(problem.name).bind(arrays, sizes)()
        np.testing.assert_allclose(arrays[problem.output], reference, rtol=1e-6, atol=1e-6)
    s = dict(na=3, nb=2, ni=4, nj=3, nk=5)
    a, b = (RNG.uniform(size=k) for k in (3 * 2 * 4 * 5, 3 * 2 * 5 * 3))
    loops = np.zeros(3 * 2 * 4 * 3)
    for ia, ib, i, j in np.ndindex(3, 2, 4, 3):  # C[a][b][i][j] as the C loops index it
        loops[((ia * 2 + ib) * 4 + i) * 3 + j] = sum(
            a[((ia * 2 + ib) * 4 + i) * 5 + k] * b[((ia * 2 + ib) * 5 + k) * 3 + j]
            for k in range(5))
    np.testing.assert_allclose(BMM4.reference(np, {"A": a, "B": b}, s), loops)


def test_remap_suite_runs_its_real_kernels_on_the_cpu_device():
    from benchmarks.remap import BMM4, JACOBI_2D, JACOBI_2D_COLLAPSED, SCALE5
    from benchmarks.suites import Variant, optimize

    cases = [Case(Variant("bmm4_flat_all", BMM4, optimize(flatten=True), ""),
                  sizes_of(BMM4, 5, 3, 4, 3, 2)),
             Case(Variant("scale5_flat_outer", SCALE5,
                          optimize(flatten=True, flatten_mode="outer"), ""),
                  sizes_of(SCALE5, 3, 5, 1, 2, 3)),
             Case(Variant("jacobi_2d", JACOBI_2D, optimize(), ""), sizes_of(JACOBI_2D, 3, 9)),
             Case(Variant("jacobi_2d_collapse2", JACOBI_2D_COLLAPSED, optimize(), ""),
                  sizes_of(JACOBI_2D, 3, 9))]
    runner = Runner(CpuDevice(timer=FakeTimer(1.0)), warmup=0, reps=1, log=lambda s: None)
    rows = runner.run(cases)
    assert [(r.variant, r.status) for r in rows] == [
        ("numpy (torch.matmul)", OK), ("bmm4_flat_all", OK),
        ("numpy (torch.addcmul)", OK), ("scale5_flat_outer", OK),
        ("numpy (torch eager loop)", OK), ("jacobi_2d", OK), ("jacobi_2d_collapse2", OK)], rows


def test_launch_overhead_compares_t_steps_with_t_times_one():
    from benchmarks.remap import launch_overhead
    from benchmarks.report import Row

    def row(variant: str, tsteps: int, ms: float | None, pycuda_ms: float | None = None,
            status: str = OK) -> Row:
        return Row("jacobi_2d", variant, "", {"tsteps": tsteps, "n": 64}, None, status=status,
                   median_ms=ms, pycuda_ms=pycuda_ms)

    rows = [row("jacobi_2d", 100, 110.0, 104.0), row("jacobi_2d", 1, 1.0, 1.0),
            row("other", 100, 5.0), row("broken", 100, None, status=FAILED),
            row("broken", 1, 1.0)]
    assert launch_overhead(rows) == [
        "jacobi_2d jacobi_2d n=64 (cupy): whole 110.000 ms, 100 x single 100.000 ms, launch "
        "overhead 9.1 %",
        "jacobi_2d jacobi_2d n=64 (pycuda): whole 104.000 ms, 100 x single 100.000 ms, launch "
        "overhead 3.8 %"]


# --- the gemm and conv suites (issue #14) ---------------------------------------------------


GEMM_INDICES = {"nn": ("i*k+l", "l*n+j", "i*n+j"), "tn": ("l*m+i", "l*n+j", "i*n+j"),
                "nt": ("i*k+l", "j*k+l", "i*n+j"), "cm": ("i+l*m", "l+j*k", "i+j*m"),
                "c99": ("i*k+l", "l*n+j", "i*n+j")}


@pytest.mark.parametrize("precision", ["s", "d"])
@pytest.mark.parametrize("layout", sorted(GEMM_INDICES))
def test_gemm_reference_and_cublas_views_follow_the_c_loops(layout: str, precision: str):
    """Each layout's reference and its cuBLAS call (addmm_ on .T views, on NumPy) against
    the C loops of examples/gemm/, transcribed; m, n, k all different."""
    from benchmarks.gemm import GEMMS, numpy_peer

    problem = GEMMS[f"{precision}gemm_{layout}"]
    assert (ROOT / "examples" / problem.example).is_file()
    s = {"m": 3, "n": 5, "k": 4, "alpha": 3, "beta": -2}
    arrays = problem.inputs(s, RNG)
    a_index, b_index, c_index = GEMM_INDICES[layout]
    expected = arrays["C"].astype(np.float64)
    for i, j in np.ndindex(3, 5):
        env = {"i": i, "j": j, "m": 3, "n": 5, "k": 4}
        acc = sum(float(arrays["A"][eval(a_index, {**env, "l": l})])
                  * float(arrays["B"][eval(b_index, {**env, "l": l})]) for l in range(4))
        c = eval(c_index, env)
        expected[c] = 3 * acc - 2 * expected[c]
    np.testing.assert_allclose(problem.reference(np, arrays, s), expected, rtol=1e-12)
    numpy_peer(problem.name).bind(arrays, s)()
    np.testing.assert_allclose(arrays["C"], expected, rtol=1e-5, atol=1e-6)


def test_gemm_and_conv_suites_cover_the_issues_sizes():
    from benchmarks.suites import conv, gemm

    cases = gemm()
    labels = {c.variant.problem.label(c.size_dict) for c in cases}
    assert {"1024x1024x1024", "8192x8192x8192", "3000x3000x3000", "4095x4097x1023"} <= labels
    names = {c.variant.name for c in cases}
    assert {f"{p}gemm_{lay}_tiled" for p in "sd" for lay in GEMM_INDICES} <= names
    assert {"ssyrk_tiled", "sgemm_bias_relu_tiled"} <= names
    windows = {c.size_dict["t"] for c in conv()}
    assert windows == {5, 7, 11}
    assert {c.variant.name for c in gemm(quick=True)} == names


def test_quick_gemm_and_conv_rows_verify_on_the_cpu_device():
    """One layout of the quick gemm suite and one convolution with its folded halo tile,
    real kernels on the CPU emulation against the reference and the NumPy/SciPy peers."""
    from benchmarks.suites import conv, gemm

    cases = [c for c in gemm(quick=True) if c.variant.name == "sgemm_tn_tiled"][1:]
    cases += [c for c in conv(quick=True) if c.variant.name == "conv5_tiled_4x4"]
    runner = Runner(CpuDevice(timer=FakeTimer(1.0)), warmup=0, reps=1, log=lambda s: None)
    rows = runner.run(cases)
    assert [(r.variant, r.status) for r in rows] == [
        ("numpy (torch addmm_)", OK), ("sgemm_tn_tiled", OK),
        ("scipy.correlate", OK), ("conv5_tiled_4x4", OK)], rows
