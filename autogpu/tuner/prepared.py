"""`prepare`: everything that can fail on the user's input, before anything is compiled or run.

The C source, the function, the sizes, the array lengths, the pipeline and its space, the
restrictions and the reference are checked and computed here, so tools can report such errors
first (and `--list-space` needs nothing more).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from xdsl.dialects import func

from autogpu.api import load_source
from autogpu.diagnostics import CompileError
from autogpu.tuner import adapter, inputs
from autogpu.tuner import reference as reference_mod
from autogpu.tuner import space as space_mod
from autogpu.tuner.options import TuneOptions, check_options
from autogpu.tuner.values import Argument, Config, Sizes


@dataclass
class Prepared:
    """The validated run: what `prepare` computed from the options."""

    options: TuneOptions
    source: str
    filename: str
    function: str
    params: list[adapter.Param]
    sizes: Sizes
    lengths: dict[str, int]
    args: list[Argument]
    space: space_mod.Space
    candidates: list[Config]
    reduction_length: int
    reference: reference_mod.Reference | None  # None: no verification
    started: float = field(default_factory=time.time)  # for the report's wall time
    thread_limit: int | None = None  # the kernel's OpenMP thread_limit(N), if any


def prepare(options: TuneOptions) -> Prepared:
    """Validate the options; raise CompileError with a clear message on bad input."""
    check_options(options)
    kernel, search, measurement = options.kernel, options.search, options.measurement
    source, filename = load_source(kernel.source)
    c_function = adapter.c_function(source, filename, kernel.function)
    function, params = c_function.sym_name.data, adapter.kernel_signature(c_function)

    space_file = space_mod.load_space_file(search.space_file) if search.space_file else None
    raw_sizes = {**(space_file.sizes if space_file else {}), **kernel.sizes}
    host_mode = measurement.host is not None
    sizes = inputs.check_sizes(params, raw_sizes, function, require_all=not host_mode)
    _check_work(c_function, function, sizes)
    given_arrays = {**(space_file.arrays if space_file else {}), **kernel.arrays}
    lengths: dict[str, int]
    args: list[Argument]
    if host_mode:  # the user's program owns the data
        lengths, args = {}, []
    else:
        touched = None
        if inputs.arrays_without_length(params, given_arrays):
            touched = adapter.touched_lengths(c_function, sizes)
        lengths = inputs.array_lengths(params, sizes, given_arrays, function, touched)
        subscripts = adapter.subscript_values(c_function, sizes, lengths)
        args = inputs.make_arguments(params, sizes, lengths, kernel.input_seed, kernel.inputs,
                                     subscripts)

    base = adapter.parse_pipeline_spec(_specialized_pipeline(options, params, sizes))
    option_infos = {p.name: adapter.pass_options(p.name) for p in base}
    pass_restrictions = {p.name: adapter.pass_restrictions(p.name) for p in base}
    overrides = {**(space_file.parameters if space_file else {}), **search.space}
    restrictions = [*(space_file.restrictions if space_file else []), *search.restrictions]
    limit = adapter.thread_limit(c_function, sizes)
    environment = {**sizes,
                   "max_threads": capped(search.max_threads or space_mod.DEFAULT_MAX_THREADS,
                                         limit),
                   "max_shared": search.max_shared or space_mod.DEFAULT_MAX_SHARED,
                   "array_reductions": adapter.array_reductions(c_function),
                   "scalar_reductions": adapter.scalar_reductions(c_function),
                   "split_accumulations": adapter.split_accumulations(
                       c_function, _assumes_no_alias(base)),
                   "element_bytes": space_mod.widest_element(params)}
    space = space_mod.build_space(
        base, option_infos, environment, overrides=overrides, restrictions=restrictions,
        pass_restrictions=pass_restrictions,
        parallel_dims=adapter.parallel_depth(c_function),
        use_defaults=search.use_default_space and (space_file.use_defaults if space_file
                                                   else True),
    )
    candidates = space.enumerate()
    if not candidates:
        raise CompileError(_empty_space_message(space))
    reference = reference_mod.requested(measurement.reference, source, filename, function,
                                        measurement.reference_backend)
    inferred = None
    if measurement.reduction_length is None:
        inferred = adapter.reduction_length(c_function, sizes)
    k = inputs.reduction_length(sizes, measurement.reduction_length, inferred)
    return Prepared(options, source, filename, function, params, sizes, lengths, args, space,
                    candidates, k, reference, thread_limit=limit)


def capped(max_threads: int, thread_limit: int | None) -> int:
    """Threads per block: the device's (or the user's) limit, within OpenMP's thread_limit."""
    return max_threads if thread_limit is None else min(max_threads, thread_limit)


def _specialized_pipeline(options: TuneOptions, params: list[adapter.Param],
                          sizes: Sizes) -> str:
    """The tuned pipeline, after `agpu-specialize` when sizes are to be compiled in (the
    reference stays general: it checks the specialised variants)."""
    pipeline, spec = options.kernel.pipeline, options.kernel.specialize
    if spec is None:
        return pipeline
    names: list[str] | None
    if isinstance(spec, str):
        names = None if spec.strip() == "all" else [n.strip() for n in spec.split(",")
                                                    if n.strip()]
    else:
        names = list(spec)
    text = inputs.specialization(params, sizes, names)
    if not text:
        return pipeline
    return f'agpu-specialize{{sizes="{text}"}},{pipeline}'


def _check_work(c_function: func.FuncOp, function: str, sizes: Sizes) -> None:
    """Sizes for which the parallel loops do nothing (n=0, n=-5) are legal C, but a run on them
    would time empty kernels."""
    if adapter.parallel_iterations(c_function, sizes) == 0:
        given = ", ".join(f"{k}={v}" for k, v in sizes.items() if isinstance(v, int))
        raise CompileError(f"at {given}, the parallel loops of {function} run no iteration: "
                           "tuning would measure nothing; give sizes for which they run")


def _empty_space_message(space: space_mod.Space) -> str:
    sample = next(space_mod.product_of(space))  # {} when every option is fixed
    reason = space.rejects(sample)
    if not sample:
        return f"the search space is empty: its only configuration violates {reason}"
    return (f"the search space is empty: all {space.product_size} configurations violate a "
            f"restriction (e.g. {', '.join(f'{k}={v}' for k, v in sample.items())} violates "
            f"{reason})")


__all__ = ["Prepared", "prepare"]


def _assumes_no_alias(base: list[adapter.PassSpec]) -> bool:
    """The pipeline's `assume_no_alias` as written (autogpu-optimize's default, true, if not)."""
    for spec in base:
        if "assume_no_alias" in spec.options:
            return spec.options["assume_no_alias"][0] in (True, "true")
    return True
