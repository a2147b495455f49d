"""TuneOptions in Kernel Tuner's four groups, still spelled flat by `autogpu.tune`'s keywords
and the CLI's flags."""

from __future__ import annotations

import pytest

from autogpu.tools.autogpu_tune import build_parser, options_from_args
from autogpu.tuner.options import (
    KernelOptions,
    MeasurementOptions,
    OutputOptions,
    SearchOptions,
    TuneOptions,
    flat_names,
)

#: The 43 keywords `autogpu.tune` accepted before the split: all must still be accepted.
PUBLIC_KEYWORDS = {
    "kernel", "function", "pipeline", "sizes", "specialize", "arrays", "inputs", "space",
    "space_file", "restrictions", "use_default_space", "strategy", "budget", "time_limit",
    "backend", "device", "devices", "cache", "retry_failed", "output_dir", "jobs", "workers",
    "storage", "seed", "input_seed", "warmup", "repetitions", "timeout", "compile_timeout",
    "reference", "reference_backend", "reduction_length", "tolerance_factor", "max_threads",
    "memory_budget",
    "max_shared", "isolate", "progress", "compare", "compare_seeds", "top", "plot",
    "variant_hook", "host",
}


def test_every_public_keyword_lands_in_exactly_one_group():
    assert set(flat_names()) == PUBLIC_KEYWORDS
    o = TuneOptions("k.c", pipeline="autogpu-vanilla", sizes={"n": 4}, space={"x": [1]},
                    budget=3, backend="cpu", repetitions=2, cache="none", plot=False)
    assert o.kernel == KernelOptions("k.c", pipeline="autogpu-vanilla", sizes={"n": 4})
    assert o.search == SearchOptions(space={"x": [1]}, budget=3)
    assert o.measurement == MeasurementOptions(backend="cpu", repetitions=2)
    assert o.output == OutputOptions(cache="none", plot=False)


def test_unknown_keywords_are_rejected_and_updates_copy():
    with pytest.raises(TypeError, match="unexpected keyword argument 'bugdet'"):
        TuneOptions("k.c", bugdet=3)
    o = TuneOptions("k.c", backend="cpu")
    changed = o.updated(reference=None, output_dir="out")
    assert (changed.measurement.reference, changed.output.output_dir) == (None, "out")
    assert (o.measurement.reference, o.output.output_dir) == ("gcc", None)
    assert changed.measurement.backend == "cpu"
    assert changed.kernel is not o.kernel


def test_the_command_line_fills_the_groups():
    args = build_parser().parse_args(["k.c", "--size", "n=8", "--strategy", "random",
                                      "--device", "1,2", "--timeout", "9", "--no-plot", "-q"])
    o = options_from_args(args)
    assert (o.kernel.source, o.kernel.sizes) == ("k.c", {"n": "8"})
    assert o.search.strategy == "random"
    assert (o.measurement.devices, o.measurement.device_of(3), o.measurement.timeout) == (
        [1, 2], 2, 9.0)
    assert (o.output.plot, o.output.progress) == (False, False)
