"""One tuner on one device: its measurement process, its cache context and its session.

`run` uses one; `workers.run_workers` runs several on one cache, one per GPU. Both reach the
same functions here, so neither imports the other's internals.
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from autogpu.api import options_text
from autogpu.diagnostics import CompileError
from autogpu.tuner import adapter, inputs, report
from autogpu.tuner import space as space_mod
from autogpu.tuner.cache import Cache, default_cache_path, digest
from autogpu.tuner.kernel import KernelCompiler
from autogpu.tuner.measure import Isolated, KernelMeasurer, Local, MeasurementSetupError
from autogpu.tuner.options import TuneOptions
from autogpu.tuner.prepared import Prepared, capped
from autogpu.tuner.session import (
    Evaluation,
    EvaluationCounter,
    MeasureProxy,
    Session,
    default_jobs,
)
from autogpu.tuner.strategies import MODEL_STRATEGIES, make_strategy
from autogpu.tuner.values import Config, DeviceInfo
from autogpu.version import __version__

if TYPE_CHECKING:
    from optuna.storages import BaseStorage

#: The tuner's own version in the cache key: a change of what a result means bumps it.
TUNER_VERSION = 1



class open_cache:
    """The cache file of the options (a temporary one for cache="none")."""

    def __init__(self, o: TuneOptions):
        self.o = o
        self.tmp: tempfile.TemporaryDirectory[str] | None = None

    def __enter__(self) -> Cache:
        path = self.o.output.cache
        if path is not None and path.strip().lower() in ("", "none"):
            self.tmp = tempfile.TemporaryDirectory(prefix="autogpu-tune-")
            path = str(Path(self.tmp.name) / "cache.sqlite")
        self.cache = Cache(path or default_cache_path(), retry_failed=self.o.output.retry_failed,
                           lease_seconds=self.o.measurement.lease_seconds())
        return self.cache

    def __exit__(self, *exc: object) -> None:
        self.cache.close()
        if self.tmp is not None:
            self.tmp.cleanup()


def start_measurer(prepared: Prepared, device: int) -> tuple[MeasureProxy, DeviceInfo]:
    """The measurement process (or in-process measurer) for this run, started."""
    m = prepared.options.measurement
    if m.host is not None:
        from autogpu.tuner.host_program import HostMeasurer

        local = Local(HostMeasurer(m.host))
        return local, local.start()
    measurer = KernelMeasurer(m.backend, prepared.function, prepared.args, prepared.reference,
                              prepared.reduction_length, m.tolerance_factor, m.warmup,
                              m.repetitions, device, memory_budget=m.memory_budget)
    proxy: Isolated | Local = Isolated(measurer, m.timeout) if m.isolate else Local(measurer)
    try:
        info = proxy.start()
    except MeasurementSetupError as e:
        raise CompileError(f"cannot measure on the {m.backend} backend: {e}") from None
    return proxy, info


SLOT_FIELDS = ("pci_bus_id",)
"""What tells apart two GPUs of one model in one host: shown in reports, kept out of the cache
context (a measurement depends on the model, not on the slot)."""


def context_description(prepared: Prepared, device_info: DeviceInfo) -> dict[str, object]:
    """Everything a result depends on (the cache context)."""
    o = prepared.options
    hook = o.kernel.variant_hook
    return {
        "tuner": TUNER_VERSION,
        "autogpu": __version__,
        "compiler": adapter.compiler_fingerprint(),
        "kernel_sha256": hashlib.sha256(prepared.source.encode()).hexdigest(),
        "function": prepared.function,
        "pipeline": adapter.format_pipeline(prepared.space.base_pipeline),
        "sizes": prepared.sizes,
        "arrays": prepared.lengths,
        "inputs": inputs.fingerprint(prepared.args),
        # the GPU's model, not its slot: workers on identical GPUs (--device 0,1) share one
        # context, hence their claims and results, instead of each tuning the space alone
        "device": {k: v for k, v in device_info.items() if k not in SLOT_FIELDS},
        "reference": prepared.reference.identity() if prepared.reference else None,
        "reduction_length": prepared.reduction_length,
        "tolerance_factor": o.measurement.tolerance_factor,
        "host_program": (o.measurement.host.fingerprint() if o.measurement.host is not None
                         else None),
        "hook": None if hook is None else str(getattr(hook, "__qualname__", hook)),
        # only where set, so that the contexts of runs without a budget keep their keys
        **({"memory_budget": o.measurement.memory_budget}
           if o.measurement.memory_budget is not None else {}),
    }


def device_space(prepared: Prepared, info: DeviceInfo) -> tuple[space_mod.Space, list[Config]]:
    """The space re-evaluated with the device's real limits (unless the user fixed them)."""
    search = prepared.options.search
    env = dict(prepared.space.environment)
    changed = False
    for key, option, limit in (("max_threads", search.max_threads, "max_threads_per_block"),
                               ("max_shared", search.max_shared, "max_shared_per_block")):
        value = info.get(limit)
        if key == "max_threads" and value is not None:
            value = capped(int(value), prepared.thread_limit)
        if option is None and value is not None and env.get(key) != value:
            env[key], changed = int(value), True
    if not changed:
        return prepared.space, prepared.candidates
    new_space = replace(prepared.space, environment=env)
    return new_space, new_space.enumerate()


def single_session(prepared: Prepared, cache: Cache, *, out: TextIO | None = None,
                   worker: int = 0, jobs: int | None = None,
                   storage: BaseStorage | None = None,
                   on_context: Callable[[str, DeviceInfo], None] | None = None,
                   stop: threading.Event | None = None,
                   counter: EvaluationCounter | None = None,
                   ) -> tuple[Session, str, DeviceInfo, space_mod.Space]:
    """Run one tuner (worker `worker`) against `cache`: the session, the cache context, the
    device's description and the space its limits gave."""
    o = prepared.options
    search, measurement = o.search, o.measurement
    measurer, info = start_measurer(prepared, measurement.device_of(worker))
    try:
        space, candidates = device_space(prepared, info)
        context = cache.register_context(context_description(prepared, info))
        if on_context is not None:
            on_context(context, info)
        compiler = make_compiler(prepared, space, info.get("arch"))
        strategy_options: dict[str, object] = {}
        if search.strategy in MODEL_STRATEGIES and storage is not None:
            strategy_options = {"storage": storage,
                                "study_name": study_name(context, space, o)}
        strategy = make_strategy(search.strategy, candidates, search.seed + worker,
                                 **strategy_options)
        if jobs is None:
            jobs = default_jobs() if measurement.jobs is None else measurement.jobs
        total = min(search.budget or len(candidates), len(candidates))
        progress = Progress(total, o.output.progress and worker == 0
                            and measurement.workers == 1, out)
        session = Session(strategy, compiler, measurer, cache, context, jobs=jobs,
                          budget=search.budget, time_limit=search.time_limit,
                          compile_timeout=measurement.compile_timeout, progress=progress,
                          stop=stop, counter=counter)
        try:
            session.run()
        except MeasurementSetupError as e:
            raise CompileError(f"cannot measure on the {measurement.backend} backend: {e}"
                               ) from None
        finally:
            progress.close()
    finally:
        measurer.close()
    return session, context, info, space


def make_compiler(prepared: Prepared, space: space_mod.Space,
                  arch: str | None = None) -> KernelCompiler:
    """The compiler of the variants: the kernel's, or the user's host program's."""
    o = prepared.options
    args = (prepared.source, prepared.filename, prepared.function, space, prepared.sizes,
            space.environment["max_threads"], space.environment["max_shared"],
            o.kernel.variant_hook)
    host = o.measurement.host
    if host is None:
        return KernelCompiler(*args, backend=o.measurement.backend, arch=arch)
    from autogpu.tuner.host_program import HostCompiler

    workdir = host.workdir or str(Path(o.output.output_dir or ".") / "variants")
    return HostCompiler(*args, host=replace(host, workdir=workdir))


def study_name(context: str, space: space_mod.Space, o: TuneOptions) -> str:
    return (f"autogpu-{context}-{digest(space.describe())[:12]}-{o.search.strategy}-"
            f"{o.search.seed}")


class Progress:
    """tqdm progress bar with the best time so far (and its parameters)."""

    def __init__(self, total: int, enabled: bool, out: TextIO | None = None):
        self.bar = None
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc="tuning", unit="variant", file=out or sys.stderr,
                            dynamic_ncols=True, leave=True)
        self.best: float | None = None

    def __call__(self, evaluation: Evaluation, evaluations: Sequence[Evaluation]) -> None:
        if self.bar is None:
            return
        if evaluation.ok and evaluation.time_s is not None and (
                self.best is None or evaluation.time_s < self.best):
            self.best = evaluation.time_s
            params = options_text(evaluation.params)
            self.bar.set_postfix_str(f"best {report.format_time(self.best)} ({params})")
        self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


__all__ = ["TUNER_VERSION", "Progress", "context_description", "device_space",
           "make_compiler", "open_cache", "single_session", "start_measurer", "study_name"]
