"""Measuring one variant: run it, verify it against the reference, time it — in isolation.

A `Measurer` lives in the measurement process and measures variants one at a time. The kernel
measurer (`KernelMeasurer`) holds the inputs and the reference outputs; for each variant it
builds the executor (stage `build`: nvcc errors), runs it on fresh copies of the arrays it may
write (stage `launch`: too many registers or too much shared memory, illegal addresses) and
compares each of them with the reference (stage `verify`; `const` arrays can change neither in
the kernel nor through the executors): once on the GPU, and on the CPU emulation once per thread
order of `adapter.CPU_VERIFY_ORDERS` (shuffled, reversed), so that a race or a missing barrier
that happens to agree with the serial order fails too. Then it times it (stage `time`): the
executor's CUDA-event timer on the GPU (warm-up, median of repetitions, outputs restored between
runs),
wall-clock around the executor on the CPU (fresh inputs before each run, not timed).

`Isolated` runs a measurer in a child process and waits at most `timeout` seconds per variant: a
hung or crashed variant is killed, recorded as `timeout`/`crash`, and a fresh process carries on.

Verification tolerance (floating-point outputs), with eps the dtype's machine epsilon and K the
reduction length (the most terms accumulated into one value: the product of the trip counts of
nested serial loops, or a reduction loop's trip count, for the tuned sizes; see
adapter.reduction_length):

    |out - ref| <= rtol * (|ref| + max|ref|),   rtol = c * eps * sqrt(K),  c = 8

The sqrt(K) is the typical (random-walk) growth of rounding error when a sum of K terms is
reassociated (unrolling, different thread mapping); the `max|ref|` term makes the check normwise,
so outputs that cancel to almost zero do not need relative accuracy. Integer and boolean outputs
must match exactly. NaNs must appear exactly where the reference has them.
"""

from __future__ import annotations

import errno
import multiprocessing
import re
import signal
import statistics
import sys
import time
import traceback
from collections.abc import Generator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from autogpu.runtime.arguments import KernelEnvironmentError
from autogpu.tuner.lifetime import lifeline, run_tied
from autogpu.tuner.values import DeviceInfo

TOLERANCE_FACTOR = 8.0

#: What the tuner's forkserver imports once, so that measurement processes (restarted after a
#: timeout) and compile workers start in milliseconds. None of it initialises CUDA.
FORKSERVER_PRELOAD = ["numpy", "autogpu.tuner.measure", "autogpu.tuner.kernel", "autogpu.api",
                      "autogpu.frontend"]


def process_context(method: str = "forkserver") -> Any:
    """The multiprocessing context for the tuner's child processes."""
    ctx = multiprocessing.get_context(method)
    if method == "forkserver":
        ctx.set_forkserver_preload(FORKSERVER_PRELOAD)
    return ctx


@contextmanager
def no_main_reimport() -> Generator[None]:
    """Start child processes without re-running the user's main script in them.

    spawn and forkserver children normally re-import `__main__` (so that objects defined there
    unpickle); the tuner's children need nothing from it, and re-running a script that calls
    `autogpu.tune()` without an `if __name__ == "__main__":` guard (or one read from stdin)
    would fail. While a child starts, `__main__` looks like an interactive session's.
    """
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved = {k: main.__dict__[k] for k in ("__file__", "__spec__") if k in main.__dict__}
    main.__dict__.pop("__file__", None)
    main.__dict__["__spec__"] = None
    try:
        yield
    finally:
        main.__dict__.pop("__spec__", None)
        main.__dict__.update(saved)


@dataclass
class Outcome:
    """The result of measuring a variant."""

    status: str  # "ok" | "failed"
    time_s: float | None = None
    times: list[float] = field(default_factory=list[float])
    stage: str | None = None  # where it failed: compile, resources, build, launch, verify, ...
    reason: str | None = None
    extra: dict[str, Any] = field(default_factory=dict[str, Any])

    @staticmethod
    def failed(stage: str, reason: str, **extra: Any) -> Outcome:
        return Outcome("failed", stage=stage, reason=reason, extra=extra)


#: The stage of a failure that is the machine's, not the variant's: out of memory, a killed
#: process, a driver error. Such a variant is measured again in a fresh process (session.py) and
#: its failure is never cached as its verdict.
ENVIRONMENT = "environment"

#: Exceptions that are the environment's whatever they say.
ENVIRONMENT_ERRORS: tuple[type[BaseException], ...] = (MemoryError, KernelEnvironmentError)
_ENVIRONMENT_ERRNOS = {errno.ENOMEM, errno.EAGAIN, errno.ENOSPC}
#: What the environment's failures say: the OS, gcc/nvcc killed for memory, the CPU emulation,
#: the CUDA driver through pycuda. A variant's own failures (wrong results, too many resources
#: for a launch, an illegal address) say none of these.
_ENVIRONMENT_MESSAGES = re.compile("|".join([
    r"out of memory", r"cannot allocate", r"could not allocate", r"failed to map segment",
    r"resource temporarily unavailable", r"virtual memory exhausted",
    r"killed signal terminated program", r"no space left on device",
    r"cuInit failed", r"cuCtxCreate failed", r"cuDevicePrimaryCtxRetain failed",
    r"busy or unavailable", r"uncorrectable ECC", r"driver shutting down",
    r"insufficient driver", r"unsupported display driver",
    r"CUDA_ERROR_(OUT_OF_MEMORY|NO_DEVICE|DEVICES?_UNAVAILABLE|ECC_UNCORRECTABLE|"
    r"SYSTEM_DRIVER_MISMATCH|INSUFFICIENT_DRIVER|SYSTEM_NOT_READY)",
]), re.IGNORECASE)


def is_environment_failure(error: BaseException | str) -> bool:
    """Whether a failure is the machine's (memory, the driver, the OS) rather than the
    variant's: by the exception's type, else by what it says."""
    if isinstance(error, ENVIRONMENT_ERRORS):
        return True
    if isinstance(error, OSError) and error.errno in _ENVIRONMENT_ERRNOS:
        return True
    return bool(_ENVIRONMENT_MESSAGES.search(str(error)))


def failure(stage: str, error: BaseException | str, order: str | None = None) -> Outcome:
    """The outcome of a failure at `stage` (under the CPU emulation's thread `order`, if any);
    stage ENVIRONMENT, the original stage in the reason, where the environment failed."""
    text = _in_order(error if isinstance(error, str) else _message(error), order)
    if is_environment_failure(error):
        return Outcome.failed(ENVIRONMENT, f"{stage}: {text}")
    return Outcome.failed(stage, text)


def tolerance(dtype: DTypeLike, reduction_length: int, factor: float = TOLERANCE_FACTOR) -> float:
    """rtol for floating-point outputs of `dtype` (0 for exact types)."""
    dtype = np.dtype(dtype)
    if dtype.kind not in "fc":
        return 0.0
    return float(factor * np.finfo(dtype).eps * np.sqrt(max(1, reduction_length)))


#: Elements compared at a time: a chunk's temporaries stay in the CPU's cache.
CHUNK = 1 << 18


@dataclass
class Check:
    """The outcome of comparing one output with its reference."""

    problem: str | None  # None: within the tolerance
    max_error: float  # max |out - ref| / max |ref| (normwise), over finite reference values


def check(name: str, out: np.ndarray, ref: np.ndarray, rtol: float,
          scale: float | None = None) -> Check:
    """Compares `out` with `ref` (see the module docstring for the tolerance), chunk by chunk.

    A chunk is first checked in its own dtype (a 67-million-element float32 output in a fraction
    of a second); only a chunk with an error, a NaN or an infinity is checked again in float64,
    to find and describe the worst element. `scale` is `reference_scale(ref)`, if known."""
    if out.shape != ref.shape:
        return Check(f"{name}: shape {out.shape} != reference {ref.shape}", float("inf"))
    if out.dtype.kind not in "fc" or rtol == 0.0:
        return _check_exact(name, out.reshape(-1), ref.reshape(-1))
    out, ref = out.reshape(-1), ref.reshape(-1)
    scale = reference_scale(ref) if scale is None else scale
    worst_error = 0.0
    bad_count, worst_bad, worst_ratio = 0, -1, -1.0
    for lo in range(0, out.size, CHUNK):
        o, r = out[lo:lo + CHUNK], ref[lo:lo + CHUNK]
        with np.errstate(invalid="ignore", over="ignore"):
            err = np.abs(o - r)
            if np.all(err <= rtol * (np.abs(r) + scale)):  # False for any NaN or infinity
                worst_error = max(worst_error, float(np.max(err)))
                continue
        o, r = o.astype(np.float64), r.astype(np.float64)
        nan_o, nan_r = np.isnan(o), np.isnan(r)
        if np.any(nan_o != nan_r):
            i = lo + int(np.flatnonzero(nan_o != nan_r)[0])
            return Check(f"{name}[{i}] = {out[i].item()!r}, reference {ref[i].item()!r} "
                         "(NaN mismatch)", float("inf"))
        finite = np.isfinite(r)
        infinite = ~finite & ~nan_r
        if np.any(o[infinite] != r[infinite]):
            i = lo + int(np.flatnonzero(infinite & (o != r))[0])
            return Check(f"{name}[{i}] = {out[i].item()!r}, reference {ref[i].item()!r} "
                         "(infinity mismatch)", float("inf"))
        with np.errstate(invalid="ignore"):
            err = np.where(finite, np.abs(o - r), 0.0)
            bound = rtol * (np.abs(np.where(finite, r, 0.0)) + scale)
            bad = np.flatnonzero(~(err <= bound))
        worst_error = max(worst_error, float(np.max(err)))
        if bad.size:
            bad_count += bad.size
            ratios = err[bad] / bound[bad]
            k = int(np.argmax(ratios))
            if ratios[k] > worst_ratio:
                worst_ratio, worst_bad = float(ratios[k]), lo + int(bad[k])
    max_error = worst_error / scale
    if bad_count:
        i = worst_bad
        o_i, r_i = float(out[i]), float(ref[i])
        bound_i = rtol * (abs(r_i) + scale)
        return Check(f"{name}[{i}] = {o_i!r}, reference {r_i!r}: error {abs(o_i - r_i):.3g} > "
                     f"tolerance {bound_i:.3g} ({bad_count} of {out.size} elements wrong; "
                     f"rtol {rtol:.3g})", max_error)
    return Check(None, max_error)


def reference_scale(values: np.ndarray) -> float:
    """max |v| over the finite values (1 if there are none or it is 0): the normwise scale."""
    scale = 0.0
    values = values.reshape(-1)
    for lo in range(0, values.size, CHUNK):
        v = np.abs(values[lo:lo + CHUNK])
        top = float(np.max(v)) if v.size else 0.0
        if not np.isfinite(top):
            v = v[np.isfinite(v)]
            top = float(np.max(v)) if v.size else 0.0
        scale = max(scale, top)
    return scale or 1.0


def _check_exact(name: str, out: np.ndarray, ref: np.ndarray) -> Check:
    bad = np.flatnonzero(out != ref)
    if not bad.size:
        return Check(None, 0.0)
    i = int(bad[0])
    return Check(f"{name}[{i}] = {out[i].item()!r}, reference {ref[i].item()!r} "
                 f"({bad.size} of {out.size} elements differ)", float("inf"))


def compare(name: str, out: np.ndarray, ref: np.ndarray, rtol: float) -> str | None:
    """None if `out` matches `ref` within the tolerance, else a sentence saying where not."""
    return check(name, out, ref, rtol).problem


# --- measurers --------------------------------------------------------------------------------


class Measurer:
    """Measures variants; lives in the measurement process. Subclasses must be picklable."""

    def setup(self) -> DeviceInfo:
        """Initialise the device; returns its description (part of the cache context). Quick:
        the tuner starts compiling once it has this."""
        return {}

    def static_info(self) -> DeviceInfo | None:
        """The device description if it can be had without starting the measurement process
        (then the process starts only when a variant needs measuring: a run answered entirely
        from the cache never starts it); None otherwise."""
        return None

    #: What `prepare` does, for messages ("timed out after 60 s computing the reference").
    preparation = "getting ready"

    def prepare(self) -> Any:
        """The slow part of starting (compute the reference outputs); an exception here makes
        every measurement impossible and stops the run. Returns what a fresh measurement
        process needs to skip it (given to `adopt`), or None."""
        return None

    def adopt(self, state: Any) -> None:
        """Take what `prepare` computed in another process, so a restarted measurement process
        (after a timeout or a crash) does not compute it again."""

    def measure(self, config: Mapping[str, Any], artifact: Any) -> Outcome:
        raise NotImplementedError

    def close(self) -> None:
        pass


@dataclass
class KernelMeasurer(Measurer):
    """Runs CUDA variants through an executor on the given arguments and checks their outputs."""

    backend: str
    function: str
    args: list[Any]
    reference: Any = None  # a reference.Reference; None: no verification
    reduction_length: int = 1
    tolerance_factor: float = TOLERANCE_FACTOR
    warmup: int = 1
    repetitions: int = 5
    device: int = 0
    memory_budget: int | None = None  # functions in parts (agpu-out-of-core) run within it
    _reference_outputs: list[Any] | None = field(default=None, repr=False)
    _reference_scales: dict[int, float] = field(default_factory=dict[int, float], repr=False)

    def _uses_gpu(self) -> bool:
        return self.backend == "cuda" or getattr(self.reference, "backend", None) == "cuda"

    def setup(self) -> DeviceInfo:
        from autogpu.tuner import adapter

        if self._uses_gpu():
            adapter.select_gpu(self.device)
        return adapter.cuda_device_info(self.device) if self.backend == "cuda" \
            else adapter.cpu_device_key()

    def static_info(self) -> DeviceInfo | None:
        from autogpu.tuner import adapter

        return None if self._uses_gpu() else adapter.cpu_device_key()

    @property
    def preparation(self) -> str:
        return f"computing the reference ({self.reference.name})" if self.reference \
            else "getting ready"

    def prepare(self) -> Any:
        if self.reference is None or self._reference_outputs is not None:
            return None
        args = self._fresh()
        try:
            self.reference.run(args, self.backend, self.device)
        except Exception as e:  # noqa: BLE001 - any failure of the reference is reported
            raise MeasurementSetupError(f"the reference ({self.reference.name}) failed: "
                                        f"{_message(e)}") from None
        self._reference_outputs = args
        return args

    def adopt(self, state: Any) -> None:
        if state is not None:
            self._reference_outputs = state

    def _fresh(self, written: set[int] | None = None) -> list[Any]:
        """The arguments, with a copy of each array the variant may write (all by default)."""
        return [a.copy() if isinstance(a, np.ndarray) and (written is None or i in written)
                else a for i, a in enumerate(self.args)]

    def measure(self, config: Mapping[str, Any], artifact: Any) -> Outcome:
        from autogpu.tuner import adapter

        try:
            programs = adapter.verification_programs(artifact, self.backend, self.device,
                                                     memory_budget=self.memory_budget)
        except Exception as e:  # noqa: BLE001 - a variant's failure is recorded, never raised
            return failure("build", e)
        written = {i for i in _written_arrays(artifact, len(self.args))
                   if isinstance(self.args[i], np.ndarray)}
        if self._reference_outputs is None:
            programs = programs[:1]  # nothing to compare the other orders with
        worst = 0.0
        for order, program in programs:
            args = self._fresh(written)
            try:
                adapter.run_program(program, self.function, args)
            except Exception as e:  # noqa: BLE001 - a variant's failure is recorded, never raised
                return failure("launch", e, order)
            if self._reference_outputs is not None:
                problem, error = self._verify(artifact, args, written)
                if problem is not None:
                    return Outcome.failed("verify", _in_order(problem, order))
                worst = max(worst, error)
        extra = {} if self._reference_outputs is None else {"max_error": worst}
        program = programs[0][1]
        try:
            times = adapter.time_program(program, self.function, self._fresh(written),
                                         warmup=self.warmup, repetitions=self.repetitions)
            if times is None:
                times = self._wall_times(program, written)
        except Exception as e:  # noqa: BLE001 - a variant's failure is recorded, never raised
            return failure("time", e)
        return Outcome("ok", statistics.median(times), list(times), extra=extra)

    def _verify(self, artifact: Any, args: list[Any], written: set[int]) -> tuple[str | None,
                                                                                   float]:
        """The first written array that differs from the reference (None if none), and the
        largest normwise error."""
        worst = 0.0
        assert self._reference_outputs is not None  # computed before any variant is measured
        for i in sorted(written):
            out, ref = args[i], self._reference_outputs[i]
            rtol = tolerance(out.dtype, self.reduction_length, self.tolerance_factor)
            result = check(self._name(artifact, i), out, ref, rtol, self._scale(i))
            if result.problem is not None:
                return result.problem, result.max_error
            worst = max(worst, result.max_error)
        return None, worst

    def _scale(self, i: int) -> float:
        """The normwise scale of reference output i, computed once."""
        if i not in self._reference_scales:
            assert self._reference_outputs is not None
            self._reference_scales[i] = reference_scale(self._reference_outputs[i])
        return self._reference_scales[i]

    def _wall_times(self, program: Any, written: set[int]) -> list[float]:
        from autogpu.tuner import adapter

        times: list[float] = []
        for r in range(self.warmup + self.repetitions):
            args = self._fresh(written)
            start = time.perf_counter()
            adapter.run_program(program, self.function, args)
            elapsed = time.perf_counter() - start
            if r >= self.warmup:
                times.append(elapsed)
        return times

    def _name(self, artifact: Any, i: int) -> str:
        try:
            return artifact.entry["params"][i]["name"]
        except (AttributeError, LookupError, TypeError):  # an artifact without a signature
            return f"argument {i}"


def _written_arrays(artifact: Any, count: int) -> set[int]:
    """Indices of the array arguments the variant may write: all but its `const` ones and those
    the OpenMP maps never copy back (`to`, `alloc`: the kernels' writes stay on the device,
    where the serial reference wrote the caller's array). A const array is neither written by
    the kernel (the C type forbids it) nor copied back by the executors, so comparing it with
    the reference, or copying it afresh, is wasted time (a second per variant for conv2d's
    268 MB input)."""
    try:
        params = artifact.entry["params"]
    except Exception:  # noqa: BLE001 — no launch description: assume every array is written
        return set(range(count))
    return {i for i, p in enumerate(params[:count])
            if p.get("kind") == "array" and not p.get("const")
            and p.get("map", "tofrom") in ("tofrom", "from")}


def _in_order(text: str, order: str | None) -> str:
    """A failure's reason, with the CPU emulation's thread order it happened under."""
    return text if order is None else f"{text} [threads in {order} order]"


def _message(e: BaseException) -> str:
    text = str(e).strip() or type(e).__name__
    lines = text.splitlines()
    if len(lines) > 12:
        text = "\n".join([*lines[:6], "...", *lines[-5:]])
    return f"{type(e).__name__}: {text}" if not hasattr(e, "format") else text


# --- isolation --------------------------------------------------------------------------------


class Local:
    """Runs the measurer in this process (no timeout: for tests and debugging)."""

    def __init__(self, measurer: Measurer):
        self.measurer = measurer
        self.device_info: DeviceInfo | None = None

    def start(self) -> DeviceInfo:
        self.device_info = self.measurer.setup()
        self.measurer.prepare()
        return self.device_info

    def measure(self, config: Mapping[str, Any], artifact: Any) -> Outcome:
        try:
            return self.measurer.measure(config, artifact)
        except Exception as e:  # noqa: BLE001 - a variant's failure is recorded, never raised
            return failure("crash", e)

    def restart(self) -> None:
        """Nothing to restart in this process."""

    def close(self) -> None:
        self.measurer.close()


def _serve(conn: Any, measurer: Measurer) -> None:
    """The measurement process: set up, then measure what the parent sends until told to stop."""
    try:
        info = measurer.setup()
        conn.send(("ready", info))
    except BaseException as e:  # noqa: BLE001 — reported to the parent
        conn.send(("error", _setup_message(e)))
        return
    try:
        state = measurer.prepare()  # meanwhile the parent compiles variants
        conn.send(("prepared", state))
    except BaseException as e:  # noqa: BLE001 — reported to the parent
        conn.send(("fatal", _setup_message(e)))
        return
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        if message[0] == "stop":
            measurer.close()
            return
        _, config, artifact = message
        try:
            outcome = measurer.measure(config, artifact)
        except BaseException as e:  # noqa: BLE001
            outcome = failure("crash", e)
        conn.send(("done", outcome))


class MeasurementSetupError(Exception):
    """The measurement process could not start (no GPU, the reference failed, ...)."""


def _setup_message(e: BaseException) -> str:
    """Why the measurement process cannot start, for the user (a traceback only with
    AUTOGPU_DEBUG=1 in the environment)."""
    import os

    if isinstance(e, MeasurementSetupError):
        return str(e)
    text = getattr(e, "message", None) or _message(e)
    if os.environ.get("AUTOGPU_DEBUG"):
        text += "\n" + traceback.format_exc()
    return text


def _how_it_ended(process: Any) -> tuple[str, bool]:
    """How a child process ended, in words, and whether the environment ended it: SIGKILL is
    the kernel's out-of-memory killer or someone else (autogpu kills only on timeouts)."""
    if process is None:
        return "died", False
    process.join(1.0)
    code = process.exitcode
    if code is None:
        return "stopped answering", False
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        return f"crashed with signal {name}", code == -signal.SIGKILL
    return f"exited with status {code}", False


class Isolated:
    """Runs the measurer in a child process with a per-variant timeout.

    The child is started once and reused; a variant that runs past `timeout` seconds (or kills
    the child) is recorded as failed and the child is restarted for the next one. The first
    child's `prepare` (the reference) is bounded by `timeout` too, and what it computed is
    handed to the children that replace it.
    """

    def __init__(self, measurer: Measurer, timeout: float = 60.0,
                 start_method: str = "forkserver"):
        self.measurer = measurer
        self.timeout = timeout
        # forkserver: restarts after a timeout are cheap (the server has imported everything)
        # and each child still starts without any CUDA state (the server never touches CUDA).
        self.context = process_context(start_method)
        self.process = None
        self.conn = None
        self.device_info: DeviceInfo | None = None
        self.setup_timeout = max(120.0, timeout)  # initialising a device can take a while
        self._fresh = False  # the next measurement is the first of this process (it waits
        # for the reference too)
        self._ready_at = 0.0  # when the child started preparing

    def start(self) -> DeviceInfo:
        """The device description; starts the process now unless the measurer can describe
        the device without it (then it starts with the first measurement)."""
        info = self.measurer.static_info()
        if info is not None:
            self.device_info = info
            return info
        return self._spawn()

    def _spawn(self) -> DeviceInfo:
        parent, child = self.context.Pipe()
        self.process = self.context.Process(target=run_tied,  # it ends if the tuner is killed
                                            args=(lifeline(), _serve, child, self.measurer),
                                            daemon=True)
        with no_main_reimport():
            self.process.start()
        child.close()
        self.conn = parent
        payload = self._receive_setup("ready", "starting", self.setup_timeout,
                                      self.setup_timeout)
        self._ready_at = time.monotonic()
        self.device_info = payload
        self._fresh = True
        return payload

    def _wait_prepared(self) -> None:
        """Wait for the child's slow start (the reference, at most `timeout` seconds from its
        start) before the first measurement, so that the per-variant timeout covers the variant
        alone; keep what it computed for the children that may replace it."""
        self._fresh = False
        left = self._ready_at + self.timeout - time.monotonic()
        state = self._receive_setup("prepared", self.measurer.preparation, left, self.timeout,
                                    hint=": raise --timeout")
        self.measurer.adopt(state)

    def _receive_setup(self, expected: str, what: str, wait: float, limit: float,
                       hint: str = "") -> Any:
        """The payload of the child's next setup message, which must be `expected`; otherwise
        (silence for `wait` more seconds, `limit` in all; death; an error report) the child is
        killed and the run stops with what happened."""
        assert self.conn is not None
        if not self.conn.poll(max(0.0, wait)):
            self._kill()
            raise MeasurementSetupError(f"the measurement process timed out after {limit:g} s "
                                        f"{what}{hint}")
        try:
            kind, payload = self.conn.recv()
        except EOFError:
            ended, _ = _how_it_ended(self.process)
            self._kill()
            raise MeasurementSetupError(f"the measurement process {ended} while "
                                        f"{what}") from None
        if kind != expected:
            self._kill()
            raise MeasurementSetupError(payload)
        return payload

    def measure(self, config: Mapping[str, Any], artifact: Any) -> Outcome:
        if self.process is None or not self.process.is_alive():
            self._spawn()
        if self._fresh:
            self._wait_prepared()
        assert self.conn is not None
        assert self.process is not None
        try:
            self.conn.send(("measure", dict(config), artifact))
        except (BrokenPipeError, OSError):
            self._kill()
            self._spawn()
            self._wait_prepared()
            self.conn.send(("measure", dict(config), artifact))
        if self.conn.poll(self.timeout):
            try:
                _kind, outcome = self.conn.recv()
                return outcome
            except EOFError:
                pass
            ended, by_environment = _how_it_ended(self.process)
            self._kill()
            if by_environment:
                return Outcome.failed(ENVIRONMENT, f"crash: the measurement process {ended} "
                                      "(out of memory?)")
            return Outcome.failed("crash", f"the measurement process {ended}")
        self._kill()
        return Outcome.failed("timeout", f"did not finish within {self.timeout:g} s")

    def restart(self) -> None:
        """A fresh process for the next measurement (this one may be what failed)."""
        self._kill()

    def _kill(self) -> None:
        if self.process is not None:
            if self.process.is_alive():
                self.process.kill()
            self.process.join(5.0)
        if self.conn is not None:
            self.conn.close()
        self.process, self.conn = None, None

    def close(self) -> None:
        if self.process is not None and self.process.is_alive() and self.conn is not None:
            try:
                self.conn.send(("stop",))
                self.process.join(5.0)
            except (BrokenPipeError, OSError):
                pass
        self._kill()
