"""`autogpu.tune`: the whole tuning run, from C source to the fastest verified kernel.

`prepare()` (prepared.py) does everything that can fail on the user's input without compiling
or running anything, so tools can report such errors first. `run()` then opens the cache and
runs one tuner (single.py) or several workers (workers.py), and writes the outputs
(outputs.py). This module only composes them; it is what `autogpu.tuner` exports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, TextIO

from autogpu.api import Kernel
from autogpu.diagnostics import CompileError
from autogpu.tuner import adapter, report
from autogpu.tuner import reference as reference_mod
from autogpu.tuner.options import (
    BACKENDS,
    KernelOptions,
    MeasurementOptions,
    OutputOptions,
    SearchOptions,
    TuneOptions,
)
from autogpu.tuner.outputs import (
    TuneResult,
    compare_from_cache,
    confirmed_best,
    finish,
    write_outputs,
)
from autogpu.tuner.prepared import Prepared, prepare
from autogpu.tuner.single import TUNER_VERSION, context_description, open_cache, single_session
from autogpu.tuner.strategies import MODEL_STRATEGIES
from autogpu.tuner.values import SizeValue
from autogpu.tuner.workers import make_storage, run_workers


def run(prepared: Prepared, *, out: TextIO | None = None) -> TuneResult:
    """Tune: measure the variants (resuming from the cache) and write the outputs."""
    o = prepared.options
    if o.output.output_dir:
        report.check_output_dir(o.output.output_dir)
    prepared = replace(prepared, reference=reference_mod.resolved(prepared.reference))
    if o.measurement.workers > 1:
        return run_workers(prepared, out=out)
    with open_cache(o) as cache:
        storage = None
        if o.measurement.storage is not None and o.search.strategy in MODEL_STRATEGIES:
            storage = make_storage(o.measurement.storage)
        session, context, device, space = single_session(prepared, cache, out=out,
                                                         storage=storage)
        return finish(prepared, cache, context, device, space, session.evaluations,
                      measured=session.measured, stopped_by=session.stopped_by, out=out)


@dataclass
class TunedKernel(Kernel):
    """The kernel `tune` chose, with the run that chose it (`tuning`)."""

    tuning: TuneResult = field(kw_only=True, repr=False)


def tune(path_or_source: str, pipeline: str = "autogpu-optimize", function: str | None = None, *,
         sizes: Mapping[str, SizeValue], backend: str = "cuda", **options: Any) -> TunedKernel:
    """Tune a C kernel and return the fastest verified variant as a callable `Kernel`.

        kernel = autogpu.tune("examples/saxpy.c", sizes={"n": 1 << 20}, strategy="model",
                              budget=20)
        kernel(n, 2.0, x, y, backend="cuda")
        kernel.tuning.table()            # every variant measured, best first

    Keyword options are the fields of `TuneOptions`' groups, spelled flat (space, restrictions,
    budget, time_limit, cache, output_dir, jobs, workers, ...; `options.flat_names()`). The
    returned kernel carries the run's `TuneResult` as `kernel.tuning`. Raises CompileError if no
    variant passes verification.
    """
    o = TuneOptions(kernel=str(path_or_source), pipeline=pipeline, function=function,
                    sizes=dict(sizes), backend=backend, **options)
    prepared = prepare(o)
    result = run(prepared)
    if result.best_pipeline is None:
        failures = [v for v in result.variants if v["status"] != "ok"]
        first = failures[0] if failures else None
        detail = f": e.g. [{first['stage']}] {first['reason']}" if first else ""
        raise CompileError(f"no variant of {result.function} passed verification{detail}")
    kernel = adapter.compile_kernel(prepared.source, prepared.filename, result.function,
                                    result.best_pipeline)
    return TunedKernel(**{f.name: getattr(kernel, f.name) for f in fields(Kernel)}, tuning=result)


__all__ = ["BACKENDS", "TUNER_VERSION", "KernelOptions", "MeasurementOptions", "OutputOptions",
           "Prepared", "SearchOptions", "TuneOptions", "TuneResult", "TunedKernel",
           "compare_from_cache", "confirmed_best", "context_description", "prepare", "run", "tune",
           "write_outputs"]
