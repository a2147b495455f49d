"""The outputs of a run: the best variant confirmed (its cached code proven by its digest, or
compiled again), the report, the strategy comparison and the files (best.cu, best.json,
report.json, search.png)."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from autogpu.diagnostics import CompileError
from autogpu.tuner import adapter, report
from autogpu.tuner import reference as reference_mod
from autogpu.tuner import space as space_mod
from autogpu.tuner.cache import Cache, canonical
from autogpu.tuner.kernel import compile_config
from autogpu.tuner.prepared import Prepared
from autogpu.tuner.session import Evaluation, ranked
from autogpu.tuner.strategies import compare_strategies
from autogpu.tuner.values import Config, DeviceInfo


@dataclass
class TuneResult:
    """A finished run: every variant, the best one, and where the outputs went."""

    function: str
    pipeline: str
    best_params: Config | None
    best_time_s: float | None
    best_pipeline: str | None
    variants: list[dict[str, Any]]
    report: dict[str, Any]
    context: str
    device: DeviceInfo
    files: dict[str, str] = field(default_factory=dict[str, str])
    measured: int = 0
    stopped_by: str | None = None

    def table(self, top: int = 10) -> str:
        return report.table(self.variants, top, list(self.report["space"]["parameters"]))


def finish(prepared: Prepared, cache: Cache, context: str, device: DeviceInfo,
           space: space_mod.Space, evaluations: Sequence[Evaluation], *, measured: int,
           stopped_by: str | None, out: TextIO | None = None,
           workers: list[dict[str, object]] | None = None) -> TuneResult:
    """The run's result from its evaluations: the best variant confirmed, the report, the
    strategy comparison if asked for, and the output files."""
    o = prepared.options
    winner, artifact = confirmed_best(prepared, cache, context, space, evaluations)
    variants = [e.as_dict(i) for i, e in enumerate(evaluations)]
    best_entry = None
    best_pipeline = None
    tuned_pipeline = adapter.format_pipeline(space.base_pipeline)  # with agpu-specialize, if any
    if winner is not None:
        best_pipeline = adapter.format_pipeline(space.pipeline(winner.params))
        best_entry = {"params": winner.params, "time_s": winner.time_s,
                      "pipeline": best_pipeline}
    data: dict[str, Any] = {
        "schema": report.REPORT_SCHEMA,
        "kernel": prepared.filename,
        "function": prepared.function,
        "pipeline": tuned_pipeline,
        "backend": o.measurement.backend,
        "device": dict(device),
        "sizes": prepared.sizes,
        "arrays": prepared.lengths,
        "strategy": o.search.strategy,
        "budget": o.search.budget,
        "time_limit_s": o.search.time_limit,
        "seed": o.search.seed,
        "repetitions": o.measurement.repetitions,
        "warmup": o.measurement.warmup,
        "reference": reference_mod.report_entry(prepared.reference,
                                                o.measurement.host is not None),
        "reduction_length": prepared.reduction_length,
        "context": context,
        "space": space.describe(),
        "valid_variants": len(prepared.candidates),
        "evaluated": len(variants),
        "measured": measured,
        "stopped_by": stopped_by,
        "wall_s": round(time.time() - prepared.started, 3),
        "workers": workers or [{"worker": 0, "measured": measured, "stopped_by": stopped_by}],
        "best": best_entry,
        "variants": variants,
    }
    if o.search.compare:
        try:
            data["compare_strategies"] = compare_from_cache(prepared, cache, context, space,
                                                            seeds=o.search.compare_seeds)
        except CompileError as e:  # an incomplete table: the run's results still count
            data["compare_strategies"] = {"skipped": e.message}
            print(f"autogpu-tune: strategy comparison skipped: {e.message}", file=sys.stderr)
    result = TuneResult(prepared.function, tuned_pipeline, winner.params if winner else None,
                        winner.time_s if winner else None, best_pipeline, variants, data,
                        context, DeviceInfo(**device), measured=measured, stopped_by=stopped_by)
    if o.output.output_dir:
        result.files = write_outputs(Path(o.output.output_dir), prepared, result, space,
                                     artifact)
    return result


def verified_code(cache: Cache, context: str, evaluation: Evaluation,
                  function: str) -> adapter.Artifact | None:
    """The code the cache keeps with the result, if it is the code that was verified: its
    digest (of the source and the launch description) is the one stored with the result. The
    context holds a hash of the compiler, so compiling again would give this very code; the
    digest rules out a damaged row. None: compile again."""
    record = cache.lookup(context, evaluation.params)
    if record is None or record.cuda_source is None or record.launch is None:
        return None
    artifact = adapter.Artifact(record.cuda_source, record.launch, function)
    return artifact if evaluation.digest is not None and artifact.digest == evaluation.digest \
        else None


def confirmed_best(prepared: Prepared, cache: Cache, context: str, space: space_mod.Space,
                   evaluations: Sequence[Evaluation]
                   ) -> tuple[Evaluation | None, adapter.Artifact | None]:
    """The fastest verified variant and its code: the cached code where its digest proves it
    is the code that was verified (a re-run from the cache compiles nothing: passes of seconds
    for a GEMM register tile), else compiled again now from its parameters, which must give the
    verified digest. A variant whose cached result belongs to other code (a stale or damaged
    row) is removed from the cache and reported, and the next fastest is tried: best.cu is
    only ever verified code."""
    o = prepared.options
    for evaluation in ranked(evaluations):
        cached = verified_code(cache, context, evaluation, prepared.function)
        if cached is not None:
            return evaluation, cached
        pipeline = adapter.format_pipeline(space.pipeline(evaluation.params))
        try:
            artifact = compile_config(prepared.source, prepared.filename, prepared.function,
                                      pipeline, o.kernel.variant_hook, evaluation.params)
        except Exception as e:  # noqa: BLE001 — reported as the variant's problem
            problem = f"it does not compile again ({type(e).__name__}: {e})"
        else:
            if artifact.digest == evaluation.digest:
                return evaluation, artifact
            problem = (f"its code now ({artifact.digest}) is not the code that was verified "
                       f"({evaluation.digest})")
        cache.forget(context, evaluation.params)
        evaluation.status, evaluation.time_s, evaluation.stage = "failed", None, "stale"
        evaluation.reason = f"{problem}: removed from the cache, the next run measures it again"
    return None, None


def compare_from_cache(prepared: Prepared, cache: Cache, context: str, space: space_mod.Space,
                       seeds: int = 10,
                       strategies: Sequence[str] = ("exhaustive", "random", "model"),
                       ) -> dict[str, Any]:
    """Replay strategies against the cache's complete table of this space."""
    records = {canonical(r.params): r for r in cache.records(context)}
    candidates = space.enumerate()
    missing = [c for c in candidates if canonical(c) not in records]
    if missing:
        raise CompileError(
            f"--compare-strategies needs every variant measured: {len(missing)} of "
            f"{len(candidates)} are not in the cache yet (run with --strategy exhaustive first)")
    table = [(c, records[canonical(c)].time_s if records[canonical(c)].ok else None)
             for c in candidates]
    return compare_strategies(table, strategies, tuple(range(seeds)))


def write_outputs(outdir: Path, prepared: Prepared, result: TuneResult,
                  space: space_mod.Space, artifact: adapter.Artifact | None) -> dict[str, str]:
    """The files of a run; best.cu is `artifact`, the best variant's code as confirmed_best
    compiled it again."""
    outdir.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    if result.best_params is not None and artifact is not None:
        try:
            launch_config = adapter.launch_config(artifact, prepared.sizes)
        except Exception:  # noqa: BLE001 — best effort: the description is still written
            launch_config = None
        cu, meta = report.write_best(outdir, result.report["best"], artifact.cuda_source,
                                     artifact.launch, launch_config)
        files["best_cu"], files["best_json"] = str(cu), str(meta)
        result.report["best"]["launch_config"] = launch_config
    path = outdir / "report.json"
    report.write_json(path, result.report)
    files["report"] = str(path)
    if prepared.options.output.plot and result.variants:
        png = report.plot(outdir / "search.png", result.variants, space.names,
                          f"{prepared.function}: {len(result.variants)} variants")
        files["plot"] = str(png)
    return files


__all__ = ["TuneResult", "compare_from_cache", "confirmed_best", "finish", "write_outputs"]
