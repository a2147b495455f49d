"""Runs cases on a device: per problem size, one set of inputs resident on the device, a float64
reference, the peer, then every variant; each result is checked before it is timed.

A variant that does not compile yet is `unavailable`; one that fails to compile or launch, or
whose output differs from the reference, is `FAILED` and is not timed.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from autogpu.diagnostics import CompileError
from benchmarks import devices
from benchmarks.devices import Unavailable
from benchmarks.peers import PeerUnavailable
from benchmarks.problems import Problem
from benchmarks.report import FAILED, OK, UNAVAILABLE, Row
from benchmarks.roofline import Roofline
from benchmarks.suites import Case, Variant
from benchmarks.timing import measure

Builder = Callable[[str, str], Any]  # (example, pipeline) -> autogpu.Kernel


class CompileTimeout(BaseException):
    """Raised by the alarm inside a build that overran its time. A BaseException, so that no
    `except Exception` inside a pass swallows it."""


def group_by_size(cases: Iterable[Case]
                  ) -> dict[tuple[str, tuple[tuple[str, int], ...]], list[Variant]]:
    """Cases grouped by (problem, sizes), in first-appearance order."""
    groups: dict[tuple[str, tuple[tuple[str, int], ...]], list[Variant]] = {}
    for case in cases:
        groups.setdefault((case.variant.problem.name, case.sizes), []).append(case.variant)
    return groups


class Runner:
    def __init__(self, device: Any, *, warmup: int, reps: int, seed: int = 0,
                 builder: Builder | None = None, roofline: Roofline | None = None,
                 pycuda: bool = False, compile_timeout: float = 0,
                 log: Callable[[str], None] = lambda s: print(s, file=sys.stderr, flush=True)):
        self.device, self.warmup, self.reps, self.seed = device, warmup, reps, seed
        self.pycuda, self.compile_timeout = pycuda, compile_timeout
        self.build_seconds: dict[str, float] = {}  # by variant name
        self._seconds: dict[tuple[str, tuple[str, ...]], float] = {}
        self.builder = builder or devices.build  # looked up now: tests replace it
        self.log = log
        self.roofline = roofline or device.roofline()
        self._kernels: dict[tuple[str, tuple[str, ...]], Any] = {}

    def run(self, cases: list[Case]) -> list[Row]:
        rows: list[Row] = []
        for (_, sizes), variants in group_by_size(cases).items():
            rows += self.run_size(variants[0].problem, dict(sizes), variants)
        return rows

    def kernel(self, variant: Variant) -> tuple[Any, str]:
        """The kernel of the first of the variant's pipelines that can be built, and that
        pipeline. Unavailable (the preferred pipeline's reason) when none can; a CompileError
        is not passed over. Compiled once per variant; failures are remembered too."""
        key = (variant.example, variant.candidates)
        if key not in self._kernels:
            self._kernels[key] = Unavailable("no pipeline")
            reasons: list[str] = []
            begin = time.perf_counter()
            for pipeline in variant.candidates:
                try:
                    self._kernels[key] = (self.build(variant.example, pipeline), pipeline)
                    break
                except Unavailable as e:
                    reasons.append(str(e))
                except CompileError as e:
                    self._kernels[key] = e
                    break
                except CompileTimeout:
                    self._kernels[key] = CompileError(
                        f"took more than {self.compile_timeout:g} s (--compile-timeout)")
                    break
            else:
                more = f" (fallbacks: {'; '.join(reasons[1:])})" if len(reasons) > 1 else ""
                self._kernels[key] = Unavailable(reasons[0] + more)
            self._seconds[key] = time.perf_counter() - begin
        self.build_seconds[variant.name] = self._seconds[key]
        result = self._kernels[key]
        if isinstance(result, Exception):
            raise result
        return result

    def build(self, example: str, pipeline: str) -> Any:
        """The builder, stopped by an alarm after `compile_timeout` seconds (main thread only:
        signals are delivered there)."""
        if not self.compile_timeout or threading.current_thread() is not threading.main_thread():
            return self.builder(example, pipeline)

        def alarm(signum: int, frame: Any) -> None:
            raise CompileTimeout

        previous = signal.signal(signal.SIGALRM, alarm)
        signal.setitimer(signal.ITIMER_REAL, self.compile_timeout)
        try:
            return self.builder(example, pipeline)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    def run_size(self, problem: Problem, sizes: dict[str, int],
                 variants: list[Variant]) -> list[Row]:
        device, xp = self.device, self.device.xp
        host = problem.inputs(sizes, np.random.default_rng(self.seed))
        pristine = {name: device.put(a) for name, a in host.items()}
        arrays = {name: device.put(a) for name, a in host.items()}
        reference = problem.reference(xp, pristine, sizes)
        scale = max(float(xp.abs(reference).max()), np.finfo(np.float64).tiny)

        def new_row(variant: str, pipeline: str | None, is_peer: bool = False) -> Row:
            return Row(problem.name, variant, problem.label(sizes), dict(sizes), pipeline,
                       is_peer=is_peer)

        def evaluate(row: Row, bind: Callable[[], Callable[[], None]]) -> Row:
            """Bind, run once on fresh inputs, check against the reference, then time."""
            try:
                run = bind()
                for name in arrays:
                    arrays[name][...] = pristine[name]
                run()
                device.synchronize()
                out = arrays[problem.output]
                row.max_abs_err = float(xp.abs(out - reference).max())
                row.rel_err = row.max_abs_err / scale
                tolerance = problem.tolerance(sizes)
                if not bool(xp.isfinite(out).all()) or not row.rel_err <= tolerance:
                    row.status = FAILED
                    row.detail = f"wrong result: rel err {row.rel_err:.1e} > {tolerance:.1e}"
                    return row
                timing = measure(run, device.timer, self.warmup, self.reps)
            except Exception as e:  # noqa: BLE001 - a launch or library error is a row's result
                row.status, row.detail = FAILED, f"{type(e).__name__}: {e}".splitlines()[0]
                return row
            self.fill_metrics(row, problem, sizes, timing)
            return row

        peer_row = new_row("peer", None, is_peer=True)
        try:
            peer = device.peer(problem.name)
            peer_row.variant = peer.name
            evaluate(peer_row, lambda: peer.bind(arrays, sizes))
        except PeerUnavailable as e:
            peer_row.status, peer_row.detail = UNAVAILABLE, str(e)
        self.report(peer_row)
        rows = [peer_row, *self.extra_peer_rows(problem, sizes, arrays, new_row, evaluate)]
        sources: dict[str, str] = {}  # CUDA source -> the first variant of this size with it

        for variant in variants:
            row = new_row(variant.name, variant.pipeline)
            try:
                kernel, row.pipeline = self.kernel(variant)
                row.fallback = row.pipeline != variant.pipeline
            except Unavailable as e:
                row.status, row.detail = UNAVAILABLE, str(e)
            except CompileError as e:
                row.status, row.detail = FAILED, f"compile: {e.message}".splitlines()[0]
            else:
                evaluate(row, lambda kernel=kernel: device.load(kernel, arrays, sizes))
                source = getattr(kernel, "cuda_source", None)
                if source is not None and row.status == OK and source in sources:
                    row.detail = f"same kernel as {sources[source]}"  # a transformation did nothing
                if source is not None:
                    sources.setdefault(source, variant.name)
                if self.pycuda and row.status == OK:
                    self.time_with_executor(row, kernel, problem, sizes, arrays, pristine,
                                            reference, scale)
            if (row.status == OK and peer_row.status == OK and row.median_ms is not None
                    and peer_row.median_ms is not None):
                row.vs_peer = peer_row.median_ms / row.median_ms
            self.report(row)
            rows.append(row)
        if peer_row.status == OK:
            peer_row.vs_peer = 1.0
            for row in rows[1:]:
                if row.is_peer and row.median_ms is not None and peer_row.median_ms is not None:
                    row.vs_peer = peer_row.median_ms / row.median_ms
        return rows

    def extra_peer_rows(self, problem: Problem, sizes: dict[str, int], arrays: dict[str, Any],
                        new_row: Callable[..., Row], evaluate: Callable[..., Row]) -> list[Row]:
        """The problem's further peers (a device without `extra_peers` has none), checked and
        timed like the first; their vs_peer (the caller's) is against the first peer."""
        rows: list[Row] = []
        no_peers: Callable[[str], list[Callable[[], Any]]] = lambda name: []  # noqa: E731 (a default)
        extra_peers: Callable[[str], list[Callable[[], Any]]] = getattr(
            self.device, "extra_peers", no_peers)
        for make in extra_peers(problem.name):
            row = new_row("peer", None, is_peer=True)
            try:
                peer = make()
                row.variant = peer.name
                evaluate(row, lambda peer=peer: peer.bind(arrays, sizes))
            except PeerUnavailable as e:
                row.status, row.detail = UNAVAILABLE, str(e)
            self.report(row)
            rows.append(row)
        return rows

    def time_with_executor(self, row: Row, kernel: Any, problem: Problem, sizes: dict[str, int],
                           arrays: dict[str, Any], pristine: dict[str, Any], reference: Any,
                           scale: float) -> None:
        """The same kernel through autogpu's own executor (`kernel.program("cuda").time`: pycuda,
        nvcc, its CUDA events) on the very device arrays the runner launched on (CuPy: no
        host copy, so the time is the kernel's own), checked too: a cross-check of the launch
        path this runner uses."""
        for name in arrays:
            arrays[name][...] = pristine[name]
        named = {p["name"]: arrays[p["name"]] if p["kind"] == "array" else sizes[p["name"]]
                 for p in kernel.params}
        try:
            timing = kernel.program("cuda").time(kernel.name, (), named, repetitions=self.reps,
                                                 warmup=self.warmup, copies=False)
        except Exception as e:  # noqa: BLE001 - the pycuda path's failure is a row's result
            row.pycuda_error = f"{type(e).__name__}: {e}".splitlines()[0]
            return
        row.pycuda_ms = timing.kernel_s * 1e3
        xp = self.device.xp
        row.pycuda_rel_err = float(xp.abs(arrays[problem.output] - reference).max()) / scale

    def fill_metrics(self, row: Row, problem: Problem, sizes: dict[str, int], timing: Any) -> None:
        flops, nbytes = problem.flops(sizes), problem.min_bytes(sizes)
        seconds = timing.median_ms * 1e-3
        row.median_ms, row.min_ms, row.max_ms = timing.median_ms, timing.min_ms, timing.max_ms
        row.samples_ms = list(timing.samples_ms)
        row.gflops = flops / seconds / 1e9
        row.gbs = nbytes / seconds / 1e9
        row.pct_roofline = self.roofline.percent(flops, nbytes, seconds)
        row.bound = self.roofline.bound(flops, nbytes)

    def report(self, row: Row) -> None:
        timing = f"{row.median_ms:.3f} ms" if row.median_ms is not None else ""
        self.log(f"{row.problem} {row.variant} {row.size}: {row.status_text} {timing}".rstrip())
