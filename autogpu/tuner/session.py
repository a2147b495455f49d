"""The tuning loop: compile ahead on all cores, measure one variant at a time, cache everything.

    strategy.ask() -> claim in the cache -> compile (process pool) -> pre-launch checks
        -> measure (one process per GPU, with a timeout) -> cache.finish -> strategy.tell()

Variants already in the cache are answered from it (nothing is compiled or measured again);
variants another tuner has claimed are set aside and their result is read when it lands, or
measured here if that tuner dies. Compilation is CPU-bound (xDSL passes, nvcc), so up to
`jobs` variants compile in parallel while the GPU measures; measurement is serial, so timings do
not disturb each other. On interruption every claim this run holds is released, so a re-run
resumes where this one stopped.
"""

from __future__ import annotations

import concurrent.futures as cf
import math
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from autogpu.tuner.cache import Cache, Record, canonical
from autogpu.tuner.lifetime import lifeline, watch_lifeline
from autogpu.tuner.measure import (
    ENVIRONMENT,
    Outcome,
    is_environment_failure,
    no_main_reimport,
    process_context,
)
from autogpu.tuner.strategies import Strategy
from autogpu.tuner.values import DeviceInfo

#: How often a variant is tried when the environment fails it (out of memory, a killed process,
#: a driver error): such a failure says nothing about the variant, so it is compiled or
#: measured again in a fresh process, and if it keeps failing it is reported but never cached.
ENVIRONMENT_ATTEMPTS = 3


@dataclass
class Evaluation:
    """One variant as this run saw it, in the order results arrived."""

    params: dict[str, Any]
    status: str  # ok | failed
    time_s: float | None
    stage: str | None = None
    reason: str | None = None
    cached: bool = False  # answered from the cache (this run measured nothing)
    elapsed_s: float = 0.0  # since the run started
    times: list[float] = field(default_factory=list[float])
    extra: dict[str, Any] = field(default_factory=dict[str, Any])
    digest: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def as_dict(self, index: int) -> dict[str, Any]:
        return {"index": index, "params": self.params, "status": self.status,
                "time_s": self.time_s, "times_s": self.times, "stage": self.stage,
                "reason": self.reason, "cached": self.cached,
                "elapsed_s": round(self.elapsed_s, 6), "digest": self.digest, **self.extra}


class Compiler(Protocol):
    """Turns a configuration into an artifact, in a worker process."""

    def task(self, config: Mapping[str, Any]) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        """A picklable (module-level function, arguments) that compiles `config`."""
        ...

    def check(self, config: Mapping[str, Any], artifact: Any) -> str | None:
        """A reason not to launch this artifact (too many threads, too much shared memory)."""
        ...

    def to_record(self, artifact: Any) -> dict[str, Any]:
        """What to keep of a successful artifact in the cache (source, launch, digest)."""
        ...


class MeasureProxy(Protocol):
    def start(self) -> DeviceInfo: ...

    def measure(self, config: Mapping[str, Any], artifact: Any) -> Outcome: ...

    def restart(self) -> None:
        """Measure the next variant in a fresh process."""

    def close(self) -> None: ...


def compile_in_worker(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[Any, ...]:
    """Pool entry point: ("ok", artifact, seconds) or ("failed", stage, reason); never raises,
    so no unpicklable exception crosses the process boundary. The seconds are the worker's own
    (passes, target and nvcc), without the wait in the pool's queue: where a run's time goes."""
    start = time.perf_counter()
    try:
        return ("ok", fn(*args), time.perf_counter() - start)
    except Exception as e:  # noqa: BLE001 — every compile error is a result
        format_error = getattr(e, "format", None)  # CompileError's file:line:col form
        text = str(format_error()) if callable(format_error) else f"{type(e).__name__}: {e}"
        text, stage = text.strip() or type(e).__name__, getattr(e, "stage", "compile")
        if is_environment_failure(e):
            return ("failed", ENVIRONMENT, f"{stage}: {text}")
        return ("failed", stage, text)


class _InlineFuture:
    """A finished 'future' for compiling in this process (jobs=0)."""

    def __init__(self, result: Any):
        self._result = result

    def done(self) -> bool:
        return True

    def result(self, timeout: float | None = None) -> Any:
        return self._result


class CompilePool:
    """A process pool that survives crashed and hung compilations."""

    def __init__(self, jobs: int, timeout: float, start_method: str = "forkserver"):
        self.jobs = jobs
        self.timeout = timeout
        self.start_method = start_method
        self._pool: cf.ProcessPoolExecutor | None = None
        self.generation = 0  # how many pools were killed: tells a dead pool's futures apart

    def _ensure(self) -> cf.ProcessPoolExecutor:
        if self._pool is None:
            ctx = process_context(self.start_method)
            self._pool = cf.ProcessPoolExecutor(max_workers=self.jobs, mp_context=ctx,
                                                initializer=watch_lifeline,
                                                initargs=(lifeline(),))
        return self._pool

    def submit(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        if self.jobs == 0:
            return _InlineFuture(compile_in_worker(fn, args))
        with no_main_reimport():  # the pool starts its processes in submit()
            return self._ensure().submit(compile_in_worker, fn, args)

    def _processes(self) -> list[Any]:
        processes: dict[int, Any] = getattr(self._pool, "_processes", None) or {}
        return list(processes.values())

    def kill(self) -> None:
        """Terminate the workers (a hung compilation) and start afresh on the next submit."""
        if self._pool is None:
            return
        processes = self._processes()
        for p in processes:
            if p.is_alive():
                p.kill()
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = None
        self.generation += 1

    def close(self) -> None:
        """Stop the workers: idle ones exit on their own, busy ones are killed."""
        if self._pool is None:
            return
        processes = self._processes()
        self._pool.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + 2.0
        for p in processes:
            p.join(max(0.0, deadline - time.monotonic()))
            if p.is_alive():
                p.kill()
        self._pool = None


class EvaluationCounter:
    """The distinct variants evaluated or being evaluated, shared by the workers of one run
    (threads), so that a budget is one budget for all of them."""

    def __init__(self) -> None:
        self._done: set[str] = set()
        self._busy: set[str] = set()
        self._lock = threading.Lock()

    def reserve(self, config: Mapping[str, Any], budget: int | None) -> bool:
        """Count `config` as in progress, unless that would go over `budget`."""
        key = canonical(config)
        with self._lock:
            if key in self._done or key in self._busy:
                return True
            if budget is not None and len(self._done) + len(self._busy) >= budget:
                return False
            self._busy.add(key)
            return True

    def release(self, config: Mapping[str, Any]) -> None:
        with self._lock:
            self._busy.discard(canonical(config))

    def add(self, config: Mapping[str, Any]) -> None:
        key = canonical(config)
        with self._lock:
            self._busy.discard(key)
            self._done.add(key)

    @property
    def count(self) -> int:
        with self._lock:
            return len(self._done)

    @property
    def total(self) -> int:
        with self._lock:
            return len(self._done) + len(self._busy)


@dataclass
class _Pending:
    config: dict[str, Any]
    future: Any = None
    submitted: float = 0.0
    attempts: int = 0
    generation: int = 0  # of the pool it was submitted to
    compile_s: float | None = None  # the worker's seconds compiling it (passes, nvcc)


class Session:
    """One tuner's run over a context."""

    def __init__(self, strategy: Strategy, compiler: Compiler, measurer: MeasureProxy,
                 cache: Cache, context: str, *, jobs: int = 1, budget: int | None = None,
                 time_limit: float | None = None, compile_timeout: float = 300.0,
                 lookahead: int | None = None, progress: Any = None, poll_interval: float = 0.1,
                 start_method: str = "forkserver", stop: Any = None,
                 counter: EvaluationCounter | None = None):
        self.strategy = strategy
        self.compiler = compiler
        self.measurer = measurer
        self.cache = cache
        self.context = context
        self.budget = budget
        self.time_limit = time_limit
        self.jobs = jobs
        self.lookahead = lookahead if lookahead is not None else max(1, jobs) + 1
        # Asks outstanding when the next is made, were compilations to finish in order: an
        # adaptive strategy learns in proposal order with this lag (strategies.Strategy).
        strategy.window = self.lookahead - 1
        self.progress = progress
        self.poll_interval = poll_interval
        self.pool = CompilePool(jobs, compile_timeout, start_method)
        self.evaluations: list[Evaluation] = []
        self.measured = 0  # variants this run compiled or measured itself
        self._by_digest: dict[str, tuple[dict[str, Any], Outcome]] = {}  # kernels measured
        self._start = 0.0
        self._compiling: deque[_Pending] = deque()
        self._ready: deque[tuple[_Pending, Any]] = deque()
        self._deferred: list[dict[str, Any]] = []
        self.stopped_by: str | None = None
        self._exhausted = False
        self.stop = stop  # a threading.Event another thread sets to end the run early
        self.counter = counter or EvaluationCounter()

    # --- the loop ------------------------------------------------------------------------------

    def run(self) -> list[Evaluation]:
        self._start = time.monotonic()
        try:
            while True:
                if self.stop is not None and self.stop.is_set():
                    self.stopped_by = "interrupted"
                    break
                self._fill()
                self._collect()
                if self._ready:
                    if self._over_time():
                        self.stopped_by = "time limit"
                        break
                    self._measure(*self._ready.popleft())
                    continue
                if self._compiling:
                    self._wait_for_compile()
                    continue
                if self._deferred:
                    if self._over_time():
                        self.stopped_by = "time limit"
                        break
                    time.sleep(self.poll_interval)
                    self._recheck_deferred()
                    continue
                if not self._exhausted and self._may_ask():
                    continue  # everything asked so far was answered without measuring
                break
        finally:
            self._shutdown()
        if self.stopped_by is None:
            self.stopped_by = "space exhausted" if self._exhausted else "budget"
        return self.evaluations

    def _elapsed(self) -> float:
        return time.monotonic() - self._start

    def _over_time(self) -> bool:
        return self.time_limit is not None and self._elapsed() >= self.time_limit

    def _may_ask(self) -> bool:
        if self._over_time():
            return False
        if self.budget is not None and self.counter.total >= self.budget:
            return False
        return len(self._compiling) + len(self._ready) < self.lookahead

    def _fill(self) -> None:
        self._recheck_deferred()
        while self._may_ask():
            config = self.strategy.ask()
            if config is None:
                self._exhausted = not self.strategy.waiting
                return
            if not self.counter.reserve(config, self.budget):
                self.strategy.forget(config)  # another worker took the last of the budget
                return
            self._claim_or_defer(config)

    def _claim_or_defer(self, config: dict[str, Any]) -> None:
        claim = self.cache.claim(self.context, config)
        if claim.state == "done":
            self._record_cached(config, claim.record)
        elif claim.state == "busy":
            self._deferred.append(config)
        else:
            self._compiling.append(self._submit(_Pending(config)))

    def _submit(self, pending: _Pending) -> _Pending:
        """(Re)start compiling a pending variant in the pool."""
        fn, args = self.compiler.task(pending.config)
        try:
            pending.future = self.pool.submit(fn, args)
        except cf.process.BrokenProcessPool:
            # Another compilation killed its worker since the last poll (its own future says
            # so, and is retried from there): this one goes to a fresh pool.
            self.pool.kill()
            pending.future = self.pool.submit(fn, args)
        pending.submitted, pending.generation = time.monotonic(), self.pool.generation
        return pending

    def _recheck_deferred(self) -> None:
        if not self._deferred:
            return
        waiting, self._deferred = self._deferred, []
        for config in waiting:
            self._claim_or_defer(config)

    def _collect(self) -> None:
        """Move finished compilations to the ready queue (in submission order)."""
        finished: list[_Pending] = []
        still: deque[_Pending] = deque()
        for pending in self._compiling:
            (finished if pending.future.done() else still).append(pending)
        self._compiling = still
        for pending in finished:
            self._compiled(pending)

    def _restart_pool(self) -> None:
        """A fresh compile pool (the old one hung or lost a worker), with what was compiling."""
        self.pool.kill()
        for pending in self._compiling:
            self._submit(pending)

    def _compiled(self, pending: _Pending) -> None:
        try:
            result = pending.future.result()
        except Exception as e:  # noqa: BLE001 - compile_in_worker never raises: the pool broke
            if pending.generation == self.pool.generation:  # not already replaced
                self._restart_pool()
            result = ("failed", ENVIRONMENT,
                      f"compile: the compiler process died ({type(e).__name__})")
        if result[0] == "failed" and result[1] == ENVIRONMENT:
            pending.attempts += 1
            if pending.attempts < ENVIRONMENT_ATTEMPTS:
                self._compiling.append(self._submit(pending))
                return
            result = ("failed", ENVIRONMENT, _after_attempts(result[2]))
        if result[0] == "failed":
            self._finish(pending.config, Outcome.failed(result[1], result[2]), None)
            return
        artifact = result[1]
        seconds: Any = result[2] if len(result) > 2 else None
        pending.compile_s = float(seconds) if seconds is not None else None
        problem = self.compiler.check(pending.config, artifact)
        if problem is not None:
            self._finish(pending.config, Outcome.failed("resources", problem), artifact,
                         pending.compile_s)
            return
        self._ready.append((pending, artifact))

    def _wait_for_compile(self) -> None:
        oldest = self._compiling[0]
        futures = [p.future for p in self._compiling if hasattr(p.future, "_state")]
        if futures:
            cf.wait(futures, timeout=min(0.5, self.pool.timeout), return_when=cf.FIRST_COMPLETED)
        if not oldest.future.done() and time.monotonic() - oldest.submitted > self.pool.timeout:
            # A hung compilation: fail the oldest, resubmit the others to a fresh pool.
            self._compiling.popleft()
            self._restart_pool()
            self._finish(oldest.config, Outcome.failed(
                "compile", f"compilation did not finish within {self.pool.timeout:g} s"), None)

    def _measure(self, pending: _Pending, artifact: Any) -> None:
        """Measure a compiled variant, unless this run already measured the very same kernel:
        options that change nothing for this kernel (caching with nothing to cache, unrolling
        a loop it lacks) then cost a compile but no GPU time."""
        digest = self.compiler.to_record(artifact).get("digest")
        start = time.monotonic()
        if digest is not None and digest in self._by_digest:
            twin, outcome = self._by_digest[digest]
            outcome = replace(outcome, extra={**outcome.extra, "same_kernel_as": twin})
        else:
            self.cache.renew(self.context, pending.config)
            outcome = self._measure_retrying(pending.config, artifact)
            if digest is not None and outcome.stage != ENVIRONMENT:
                self._by_digest[digest] = (dict(pending.config), outcome)
        outcome = replace(outcome, extra={**outcome.extra,
                                          "measure_s": round(time.monotonic() - start, 6)})
        self._finish(pending.config, outcome, artifact, pending.compile_s)

    def _measure_retrying(self, config: dict[str, Any], artifact: Any) -> Outcome:
        """Measure; while the environment fails it, again in a fresh measurement process,
        ENVIRONMENT_ATTEMPTS times in all."""
        outcome = self.measurer.measure(config, artifact)
        for _ in range(ENVIRONMENT_ATTEMPTS - 1):
            if outcome.stage != ENVIRONMENT:
                return outcome
            self.measurer.restart()
            outcome = self.measurer.measure(config, artifact)
        if outcome.stage != ENVIRONMENT:
            return outcome
        return replace(outcome, reason=_after_attempts(outcome.reason or ""))

    # --- results -------------------------------------------------------------------------------

    def _finish(self, config: dict[str, Any], outcome: Outcome, artifact: Any,
                compile_s: float | None = None) -> None:
        """Record a result; a failure of the environment is not the variant's verdict, so it is
        reported but not cached (the claim is given back: a later run tries again)."""
        saved = self.compiler.to_record(artifact) if artifact is not None else {}
        if compile_s is not None:
            outcome = replace(outcome, extra={**outcome.extra, "compile_s": round(compile_s, 6)})
        record = Record(params=config, status=outcome.status, time_s=outcome.time_s,
                        times=list(outcome.times), stage=outcome.stage, reason=outcome.reason,
                        digest=saved.get("digest"),
                        cuda_source=saved.get("cuda_source"),
                        launch=saved.get("launch"), extra=dict(outcome.extra))
        if outcome.stage == ENVIRONMENT:
            self.cache.release(self.context, config)
        else:
            self.cache.finish(self.context, config, record)
        self.measured += 1
        self._tell(config, record, cached=False)

    def _record_cached(self, config: dict[str, Any], record: Record | None) -> None:
        assert record is not None
        self._tell(config, record, cached=True)

    def _tell(self, config: dict[str, Any], record: Record, cached: bool) -> None:
        value = record.time_s if record.ok else None
        self.strategy.tell(config, value)
        evaluation = Evaluation(dict(config), record.status, value, record.stage, record.reason,
                                cached, self._elapsed(), list(record.times), dict(record.extra),
                                record.digest)
        self.evaluations.append(evaluation)
        self.counter.add(config)
        if self.progress is not None:
            self.progress(evaluation, self.evaluations)

    def _shutdown(self) -> None:
        for pending in self._compiling:
            self.strategy.forget(pending.config)
            self.counter.release(pending.config)
        for pending, _ in self._ready:
            self.strategy.forget(pending.config)
            self.counter.release(pending.config)
        for config in self._deferred:
            self.strategy.forget(config)
            self.counter.release(config)
        self._compiling.clear()
        self._ready.clear()
        self._deferred.clear()
        self.strategy.settle()
        self.pool.close()
        try:
            self.cache.release_all()
        except Exception:  # noqa: BLE001 — the cache may already be closed on interpreter exit
            pass


def _after_attempts(reason: str) -> str:
    return f"{reason} (each of {ENVIRONMENT_ATTEMPTS} attempts; not cached: the environment " \
        "failed, not the variant)"


def ranked(evaluations: Sequence[Evaluation]) -> list[Evaluation]:
    """The verified variants, fastest first."""
    return sorted((e for e in evaluations if e.ok and e.time_s is not None
                   and math.isfinite(e.time_s)),
                  key=lambda e: math.inf if e.time_s is None else e.time_s)


def best(evaluations: Sequence[Evaluation]) -> Evaluation | None:
    fastest = ranked(evaluations)
    return fastest[0] if fastest else None


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover
        return max(1, os.cpu_count() or 1)
