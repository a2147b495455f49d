"""`autogpu.tune`: the whole tuning run, from C source to the fastest verified kernel.

`prepare()` does everything that can fail on the user's input (the C source, the function, the
sizes, the array lengths, the pipeline and its space, the restrictions) without compiling or
running anything, so tools can report such errors first. `run()` then starts the measurement
process, opens the cache, runs the session (or several workers, see workers.py) and writes the
outputs.
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from autogpu.api import options_text
from autogpu.diagnostics import CompileError
from autogpu.tuner import adapter, inputs, report, space as space_mod
from autogpu.tuner import reference as reference_mod
from autogpu.tuner.cache import Cache, canonical, default_cache_path, digest
from autogpu.tuner.kernel import KernelCompiler, VariantHook, compile_config
from autogpu.tuner.measure import Isolated, KernelMeasurer, Local, MeasurementSetupError
from autogpu.tuner.session import Evaluation, Session, default_jobs, ranked
from autogpu.tuner.strategies import (
    MODEL_STRATEGIES,
    STRATEGIES,
    compare_strategies,
    make_strategy,
)

TUNER_VERSION = 1
BACKENDS = ("cuda", "cpu")


@dataclass
class TuneOptions:
    """Everything a tuning run needs; plain data, so workers can receive it."""

    kernel: str  # a path to a .c file, or C source text
    function: str | None = None
    pipeline: str = "autogpu-optimize"
    sizes: dict[str, Any] = field(default_factory=dict)
    # sizes compiled into every variant (agpu-specialize before the pipeline): None none,
    # "all" every integer size, or names ("n,t" or a list)
    specialize: str | list[str] | None = None
    arrays: dict[str, str] = field(default_factory=dict)  # array name -> length expression
    inputs: dict[str, str] = field(default_factory=dict)  # parameter name -> .npy file
    space: dict[str, Any] = field(default_factory=dict)  # parameter -> values/generator
    space_file: str | None = None
    restrictions: list[Any] = field(default_factory=list)  # expressions or callables
    use_default_space: bool = True
    strategy: str = "exhaustive"
    budget: int | None = None
    time_limit: float | None = None
    backend: str = "cuda"
    device: int = 0
    devices: list[int] | None = None
    cache: str | None = None  # None: the user cache file; "" or "none": a fresh temporary one
    retry_failed: bool = False
    output_dir: str | None = None
    jobs: int | None = None
    workers: int = 1
    storage: str | None = None  # Optuna storage URL shared by the workers (model strategy)
    seed: int = 0
    input_seed: int = 0
    warmup: int = 1
    repetitions: int = 5
    timeout: float = 60.0
    compile_timeout: float = 300.0
    # "gcc" (the serial C), "interpreter", a pipeline, or None/"none": no verification
    reference: str | None = reference_mod.DEFAULT
    reference_backend: str | None = None  # where a pipeline reference runs
    reduction_length: str | None = None
    tolerance_factor: float = 8.0
    max_threads: int | None = None
    max_shared: int | None = None
    isolate: bool = True
    progress: bool = True
    compare: bool = False
    compare_seeds: int = 10
    top: int = 10
    plot: bool = True
    variant_hook: VariantHook = None  # test-only: corrupt/hang chosen variants after compiling
    host: Any = None  # host_program.HostProgram: testing-platform mode


@dataclass
class Prepared:
    """The validated run: what `prepare` computed from the options."""

    options: TuneOptions
    source: str
    filename: str
    function: str
    params: list[adapter.Param]
    sizes: dict[str, Any]
    lengths: dict[str, int]
    args: list[Any]
    space: space_mod.Space
    candidates: list[dict[str, Any]]
    reduction_length: int
    reference: reference_mod.Reference | None  # None: no verification
    started: float = field(default_factory=time.time)  # for the report's wall time


@dataclass
class TuneResult:
    """A finished run: every variant, the best one, and where the outputs went."""

    function: str
    pipeline: str
    best_params: dict[str, Any] | None
    best_time_s: float | None
    best_pipeline: str | None
    variants: list[dict[str, Any]]
    report: dict[str, Any]
    context: str
    device: dict[str, Any]
    files: dict[str, str] = field(default_factory=dict)
    measured: int = 0
    stopped_by: str | None = None

    def table(self, top: int = 10) -> str:
        return report.table(self.variants, top, list(self.report["space"]["parameters"]))


# --- prepare -----------------------------------------------------------------------------------


def prepare(options: TuneOptions) -> Prepared:
    """Validate the options; raise CompileError with a clear message on bad input."""
    _check_options(options)
    from autogpu.api import load_source

    source, filename = load_source(options.kernel)
    c_function = adapter.c_function(source, filename, options.function)
    function, params = c_function.sym_name.data, adapter.kernel_signature(c_function)

    space_file = space_mod.load_space_file(options.space_file) if options.space_file else None
    raw_sizes = {**(space_file.sizes if space_file else {}), **options.sizes}
    host_mode = options.host is not None
    sizes = inputs.check_sizes(params, raw_sizes, function, require_all=not host_mode)
    _check_work(c_function, function, sizes)
    given_arrays = {**(space_file.arrays if space_file else {}), **options.arrays}
    if host_mode:  # the user's program owns the data
        lengths, args = {}, []
    else:
        touched = None
        if inputs.arrays_without_length(params, given_arrays):
            touched = adapter.touched_lengths(c_function, sizes)
        lengths = inputs.array_lengths(params, sizes, given_arrays, function, touched)
        args = inputs.make_arguments(params, sizes, lengths, options.input_seed, options.inputs)

    base = adapter.parse_pipeline_spec(_specialized_pipeline(options, params, sizes))
    option_infos = {p.name: adapter.pass_options(p.name) for p in base}
    pass_restrictions = {p.name: adapter.pass_restrictions(p.name) for p in base}
    overrides = {**(space_file.parameters if space_file else {}), **options.space}
    restrictions = [*(space_file.restrictions if space_file else []), *options.restrictions]
    environment = {**sizes, "max_threads": options.max_threads or space_mod.DEFAULT_MAX_THREADS,
                   "max_shared": options.max_shared or space_mod.DEFAULT_MAX_SHARED}
    space = space_mod.build_space(
        base, option_infos, environment, overrides=overrides, restrictions=restrictions,
        pass_restrictions=pass_restrictions,
        parallel_dims=adapter.parallel_depth(c_function),
        use_defaults=options.use_default_space and (space_file.use_defaults if space_file else True),
    )
    candidates = space.enumerate()
    if not candidates:
        raise CompileError(_empty_space_message(space))
    reference = reference_mod.requested(options.reference, source, filename, function,
                                        options.reference_backend)
    inferred = None
    if options.reduction_length is None:
        inferred = adapter.reduction_length(c_function, sizes)
    k = inputs.reduction_length(sizes, options.reduction_length, inferred)
    return Prepared(options, source, filename, function, params, sizes, lengths, args, space,
                    candidates, k, reference)


def _specialized_pipeline(options: TuneOptions, params: list[adapter.Param],
                          sizes: dict[str, Any]) -> str:
    """The tuned pipeline, after `agpu-specialize` when sizes are to be compiled in (the
    reference stays general: it checks the specialised variants)."""
    if options.specialize is None:
        return options.pipeline
    spec = options.specialize
    if isinstance(spec, str):
        spec = None if spec.strip() == "all" else [n.strip() for n in spec.split(",") if n.strip()]
    text = inputs.specialization(params, sizes, None if spec is None else list(spec))
    if not text:
        return options.pipeline
    return f'agpu-specialize{{sizes="{text}"}},{options.pipeline}'


def _check_work(c_function: Any, function: str, sizes: dict[str, Any]) -> None:
    """Sizes for which the parallel loops do nothing (n=0, n=-5) are legal C, but a run on them
    would time empty kernels."""
    if adapter.parallel_iterations(c_function, sizes) == 0:
        given = ", ".join(f"{k}={v}" for k, v in sizes.items() if isinstance(v, int))
        raise CompileError(f"at {given}, the parallel loops of {function} run no iteration: "
                           "tuning would measure nothing; give sizes for which they run")


def _check_options(o: TuneOptions) -> None:
    if o.strategy not in STRATEGIES and o.strategy != "tpe":
        raise CompileError(f"unknown strategy '{o.strategy}': choose one of {', '.join(STRATEGIES)}")
    if o.backend not in BACKENDS:
        raise CompileError(f"unknown backend '{o.backend}': choose one of {', '.join(BACKENDS)}")
    for name, value, low in (("budget", o.budget, 1), ("workers", o.workers, 1),
                             ("repetitions", o.repetitions, 1), ("warmup", o.warmup, 0),
                             ("compare_seeds", o.compare_seeds, 1)):
        if value is not None and value < low:
            raise CompileError(f"{name} must be at least {low} (got {value})")
    for name, value in (("time_limit", o.time_limit), ("timeout", o.timeout),
                        ("compile_timeout", o.compile_timeout)):
        if value is not None and not value > 0:
            raise CompileError(f"{name} must be positive (got {value})")
    if o.jobs is not None and o.jobs < 0:
        raise CompileError(f"jobs must be >= 0 (got {o.jobs})")


def _empty_space_message(space: space_mod.Space) -> str:
    sample = next(space_mod.product_of(space))  # {} when every option is fixed
    reason = space.rejects(sample)
    if not sample:
        return f"the search space is empty: its only configuration violates {reason}"
    return (f"the search space is empty: all {space.product_size} configurations violate a "
            f"restriction (e.g. {', '.join(f'{k}={v}' for k, v in sample.items())} violates "
            f"{reason})")


# --- run ---------------------------------------------------------------------------------------


def run(prepared: Prepared, *, out: Any = None) -> TuneResult:
    """Tune: measure the variants (resuming from the cache) and write the outputs."""
    o = prepared.options
    if o.output_dir:
        report.check_output_dir(o.output_dir)
    prepared = replace(prepared, reference=reference_mod.resolved(prepared.reference))
    if o.workers > 1:
        from autogpu.tuner.workers import run_workers

        return run_workers(prepared, out=out)
    with _open_cache(o) as cache:
        storage = None
        if o.storage is not None and o.strategy in MODEL_STRATEGIES:
            from autogpu.tuner.workers import make_storage

            storage = make_storage(o.storage)
        session, context, device, space = _single_session(prepared, cache, out=out,
                                                          storage=storage)
        return finish(prepared, cache, context, device, space, session.evaluations,
                      measured=session.measured, stopped_by=session.stopped_by, out=out)


def lease_seconds(o: TuneOptions) -> float:
    """How long a claim on a variant holds: a compile and a measurement, twice over."""
    return 2 * (o.timeout + o.compile_timeout) + 60


class _open_cache:
    """The cache file of the options (a temporary one for cache="none")."""

    def __init__(self, o: TuneOptions):
        self.o = o
        self.tmp = None

    def __enter__(self) -> Cache:
        path = self.o.cache
        if path is not None and path.strip().lower() in ("", "none"):
            import tempfile

            self.tmp = tempfile.TemporaryDirectory(prefix="autogpu-tune-")
            path = str(Path(self.tmp.name) / "cache.sqlite")
        self.cache = Cache(path or default_cache_path(), retry_failed=self.o.retry_failed,
                           lease_seconds=lease_seconds(self.o))
        return self.cache

    def __exit__(self, *exc: Any) -> None:
        self.cache.close()
        if self.tmp is not None:
            self.tmp.cleanup()


def start_measurer(prepared: Prepared, device: int):
    """The measurement process (or in-process measurer) for this run, started."""
    o = prepared.options
    if o.host is not None:
        from autogpu.tuner.host_program import HostMeasurer

        proxy = Local(HostMeasurer(o.host))
        return proxy, proxy.start()
    measurer = KernelMeasurer(o.backend, prepared.function, prepared.args, prepared.reference,
                              prepared.reduction_length,
                              o.tolerance_factor, o.warmup, o.repetitions, device)
    proxy = Isolated(measurer, o.timeout) if o.isolate else Local(measurer)
    try:
        info = proxy.start()
    except MeasurementSetupError as e:
        raise CompileError(f"cannot measure on the {o.backend} backend: {e}") from None
    return proxy, info


def context_description(prepared: Prepared, device_info: Mapping[str, Any]) -> dict[str, Any]:
    """Everything a result depends on (the cache context)."""
    import autogpu

    o = prepared.options
    return {
        "tuner": TUNER_VERSION,
        "autogpu": autogpu.__version__,
        "compiler": adapter.compiler_fingerprint(),
        "kernel_sha256": hashlib.sha256(prepared.source.encode()).hexdigest(),
        "function": prepared.function,
        "pipeline": adapter.format_pipeline(prepared.space.base_pipeline),
        "sizes": prepared.sizes,
        "arrays": prepared.lengths,
        "inputs": inputs.fingerprint(prepared.args),
        "device": dict(device_info),
        "reference": prepared.reference.identity() if prepared.reference else None,
        "reduction_length": prepared.reduction_length, "tolerance_factor": o.tolerance_factor,
        "host_program": o.host.fingerprint() if o.host is not None else None,
        "hook": None if o.variant_hook is None else str(getattr(o.variant_hook, "__qualname__",
                                                                o.variant_hook)),
    }


def _device_space(prepared: Prepared, info: Mapping[str, Any]) -> tuple[space_mod.Space, list]:
    """The space re-evaluated with the device's real limits (unless the user fixed them)."""
    o = prepared.options
    env = dict(prepared.space.environment)
    changed = False
    for key, option, limit in (("max_threads", o.max_threads, "max_threads_per_block"),
                               ("max_shared", o.max_shared, "max_shared_per_block")):
        if option is None and limit in info and env.get(key) != info[limit]:
            env[key], changed = int(info[limit]), True
    if not changed:
        return prepared.space, prepared.candidates
    new_space = replace(prepared.space, environment=env)
    return new_space, new_space.enumerate()


def _single_session(prepared: Prepared, cache: Cache, *, out: Any = None, worker: int = 0,
                    jobs: int | None = None, storage: Any = None,
                    on_context: Callable[[str, dict], None] | None = None, stop: Any = None,
                    counter: Any = None):
    o = prepared.options
    device = (o.devices or [o.device])[worker % len(o.devices or [o.device])]
    measurer, info = start_measurer(prepared, device)
    try:
        space, candidates = _device_space(prepared, info)
        context = cache.register_context(context_description(prepared, info))
        if on_context is not None:
            on_context(context, info)
        compiler = make_compiler(prepared, space, info.get("arch"))
        strategy_options = {}
        if o.strategy in MODEL_STRATEGIES and storage is not None:
            strategy_options = {"storage": storage,
                                "study_name": study_name(context, space, o)}
        strategy = make_strategy(o.strategy, candidates, o.seed + worker, **strategy_options)
        jobs = default_jobs() if (jobs is None and o.jobs is None) else (jobs if jobs is not None
                                                                          else o.jobs)
        total = min(o.budget or len(candidates), len(candidates))
        progress = _Progress(total, o.progress and worker == 0 and o.workers == 1, out)
        session = Session(strategy, compiler, measurer, cache, context, jobs=jobs,
                          budget=o.budget, time_limit=o.time_limit,
                          compile_timeout=o.compile_timeout, progress=progress, stop=stop,
                          counter=counter)
        try:
            session.run()
        except MeasurementSetupError as e:
            raise CompileError(f"cannot measure on the {o.backend} backend: {e}") from None
        finally:
            progress.close()
    finally:
        measurer.close()
    return session, context, info, space


def make_compiler(prepared: Prepared, space: space_mod.Space,
                  arch: str | None = None) -> KernelCompiler:
    o = prepared.options
    args = (prepared.source, prepared.filename, prepared.function, space, prepared.sizes,
            space.environment["max_threads"], space.environment["max_shared"], o.variant_hook)
    if o.host is None:
        return KernelCompiler(*args, backend=o.backend, arch=arch)
    from autogpu.tuner.host_program import HostCompiler

    workdir = o.host.workdir or str(Path(o.output_dir or ".") / "variants")
    return HostCompiler(*args, host=replace(o.host, workdir=workdir))


def study_name(context: str, space: space_mod.Space, o: TuneOptions) -> str:
    return f"autogpu-{context}-{digest(space.describe())[:12]}-{o.strategy}-{o.seed}"


class _Progress:
    """tqdm progress bar with the best time so far (and its parameters)."""

    def __init__(self, total: int, enabled: bool, out: Any = None):
        self.bar = None
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc="tuning", unit="variant", file=out or sys.stderr,
                            dynamic_ncols=True, leave=True)
        self.best: float | None = None

    def __call__(self, evaluation: Evaluation, evaluations: Sequence[Evaluation]) -> None:
        if self.bar is None:
            return
        if evaluation.ok and (self.best is None or evaluation.time_s < self.best):
            self.best = evaluation.time_s
            params = options_text(evaluation.params)
            self.bar.set_postfix_str(f"best {report.format_time(self.best)} ({params})")
        self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# --- outputs -----------------------------------------------------------------------------------


def finish(prepared: Prepared, cache: Cache, context: str, device: Mapping[str, Any],
           space: space_mod.Space, evaluations: Sequence[Evaluation], *, measured: int,
           stopped_by: str | None, out: Any = None,
           workers: list[dict[str, Any]] | None = None) -> TuneResult:
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
        "backend": o.backend,
        "device": dict(device),
        "sizes": prepared.sizes,
        "arrays": prepared.lengths,
        "strategy": o.strategy,
        "budget": o.budget,
        "time_limit_s": o.time_limit,
        "seed": o.seed,
        "repetitions": o.repetitions,
        "warmup": o.warmup,
        "reference": reference_mod.report_entry(prepared.reference, o.host is not None),
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
    if o.compare:
        try:
            data["compare_strategies"] = compare_from_cache(prepared, cache, context, space,
                                                            seeds=o.compare_seeds)
        except CompileError as e:  # an incomplete table: the run's results still count
            data["compare_strategies"] = {"skipped": e.message}
            print(f"autogpu-tune: strategy comparison skipped: {e.message}", file=sys.stderr)
    result = TuneResult(prepared.function, tuned_pipeline, winner.params if winner else None,
                        winner.time_s if winner else None, best_pipeline, variants, data,
                        context, dict(device), measured=measured, stopped_by=stopped_by)
    if o.output_dir:
        result.files = write_outputs(Path(o.output_dir), prepared, result, space, artifact)
    return result


def confirmed_best(prepared: Prepared, cache: Cache, context: str, space: space_mod.Space,
                   evaluations: Sequence[Evaluation]) -> tuple[Evaluation | None, Any]:
    """The fastest verified variant and its code, compiled again now from its parameters: the
    code must be the code that was verified (the digest stored with its result). A variant
    whose cached result belongs to other code (a stale or damaged row) is removed from the
    cache and reported, and the next fastest is tried: best.cu is only ever verified code."""
    o = prepared.options
    for evaluation in ranked(evaluations):
        pipeline = adapter.format_pipeline(space.pipeline(evaluation.params))
        try:
            artifact = compile_config(prepared.source, prepared.filename, prepared.function,
                                      pipeline, o.variant_hook, evaluation.params)
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
                       strategies: Sequence[str] = ("exhaustive", "random", "model")) -> dict:
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
                  space: space_mod.Space, artifact: Any) -> dict[str, str]:
    """The files of a run; best.cu is `artifact`, the best variant's code as confirmed_best
    compiled it again."""
    outdir.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    if result.best_params is not None:
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
    if prepared.options.plot and result.variants:
        png = report.plot(outdir / "search.png", result.variants, space.names,
                          f"{prepared.function}: {len(result.variants)} variants")
        files["plot"] = str(png)
    return files


# --- the API -------------------------------------------------------------------------------------


def tune(path_or_source: str, pipeline: str = "autogpu-optimize", function: str | None = None, *,
         sizes: Mapping[str, Any], backend: str = "cuda", **options: Any):
    """Tune a C kernel and return the fastest verified variant as a callable `Kernel`.

        kernel = autogpu.tune("examples/saxpy.c", sizes={"n": 1 << 20}, strategy="model",
                              budget=20)
        kernel(n, 2.0, x, y, backend="cuda")
        kernel.tuning.table()            # every variant measured, best first

    Keyword options are the fields of `TuneOptions` (space, restrictions, budget, time_limit,
    cache, output_dir, jobs, workers, ...). The returned kernel carries the run's `TuneResult`
    as `kernel.tuning`. Raises CompileError if no variant passes verification.
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
    kernel.tuning = result
    return kernel
