"""The options of a tuning run, in the four groups Kernel Tuner keeps apart.

- `KernelOptions`: what is tuned: the C source, its function, the pipeline, the sizes and the
  data of the arguments (Kernel Tuner's kernel options: source, name, problem size, arguments);
- `SearchOptions`: which variants are tried: the space, its restrictions and device limits, the
  strategy and when it stops (Kernel Tuner's tuning options);
- `MeasurementOptions`: how a variant is built, verified and timed: backend and devices, workers,
  repetitions, timeouts, the reference and the tolerance (Kernel Tuner's device options, with
  `answer`/`atol`);
- `OutputOptions`: what is kept: the cache, the output folder, the progress bar and the plot.

`TuneOptions` holds one of each. It is still built from the flat keywords of `autogpu.tune`
(`TuneOptions("k.c", sizes={"n": 64}, backend="cpu")`): each keyword belongs to exactly one
group, so the flat spelling is unambiguous. Plain data, so workers can receive it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from autogpu.diagnostics import CompileError
from autogpu.tuner import reference as reference_mod
from autogpu.tuner.kernel import VariantHook
from autogpu.tuner.strategies import STRATEGIES
from autogpu.tuner.values import Restriction, SizeValue, SpaceValues

if TYPE_CHECKING:
    from autogpu.tuner.host_program import HostProgram

BACKENDS = ("cuda", "cpu")


@dataclass
class KernelOptions:
    """The kernel to tune and the data it runs on."""

    source: str  # a path to a .c file, or C source text (the flat keyword `kernel`)
    function: str | None = None
    pipeline: str = "autogpu-optimize"
    sizes: dict[str, SizeValue] = field(default_factory=dict[str, SizeValue])
    # sizes compiled into every variant (agpu-specialize before the pipeline): None none,
    # "all" every integer size, or names ("n,t" or a list)
    specialize: str | list[str] | None = None
    # array name -> length expression
    arrays: dict[str, str] = field(default_factory=dict[str, str])
    # parameter name -> a .npy file, or (tune()'s API) the array itself: NumPy, CuPy, a PyTorch
    # tensor, any __cuda_array_interface__ or DLPack object (copied to the host once: the
    # measurement process is another process, and the reference runs on the CPU)
    inputs: dict[str, Any] = field(default_factory=dict[str, Any])
    input_seed: int = 0
    variant_hook: VariantHook = None  # test-only: corrupt/hang chosen variants after compiling


@dataclass
class SearchOptions:
    """The space of variants and how it is searched."""

    # parameter -> values/generator
    space: dict[str, SpaceValues] = field(default_factory=dict[str, SpaceValues])
    space_file: str | None = None
    # expressions or callables
    restrictions: list[Restriction] = field(default_factory=list[Restriction])
    use_default_space: bool = True
    max_threads: int | None = None
    max_shared: int | None = None
    strategy: str = "exhaustive"
    budget: int | None = None
    time_limit: float | None = None
    seed: int = 0
    compare: bool = False
    compare_seeds: int = 10


@dataclass
class MeasurementOptions:
    """Where and how variants are compiled, verified and timed."""

    backend: str = "cuda"
    device: int = 0
    devices: list[int] | None = None
    workers: int = 1
    storage: str | None = None  # Optuna storage URL shared by the workers (model strategy)
    jobs: int | None = None
    warmup: int = 1
    repetitions: int = 5
    timeout: float = 60.0
    compile_timeout: float = 300.0
    # "gcc" (the serial C), "interpreter", a pipeline, or None/"none": no verification
    reference: str | None = reference_mod.DEFAULT
    reference_backend: str | None = None  # where a pipeline reference runs
    reduction_length: str | None = None
    tolerance_factor: float = 8.0
    isolate: bool = True
    host: HostProgram | None = None  # testing-platform mode: the user's program measures
    # bytes of device memory a function made by agpu-out-of-core runs within (in parts where
    # its data exceed it); None: the executor's default (the GPU's free memory, no limit on
    # the CPU emulation). Part of the cache context.
    memory_budget: int | None = None

    def device_of(self, worker: int) -> int:
        """The GPU of worker `worker` (round robin over `devices`)."""
        devices = self.devices or [self.device]
        return devices[worker % len(devices)]

    def lease_seconds(self) -> float:
        """How long a claim on a variant holds: a compile and a measurement, twice over."""
        return 2 * (self.timeout + self.compile_timeout) + 60


@dataclass
class OutputOptions:
    """What the run keeps and shows."""

    cache: str | None = None  # None: the user cache file; "" or "none": a fresh temporary one
    retry_failed: bool = False
    output_dir: str | None = None
    progress: bool = True
    top: int = 10
    plot: bool = True


_GROUPS: dict[str, type] = {"kernel": KernelOptions, "search": SearchOptions,
                            "measurement": MeasurementOptions, "output": OutputOptions}
_FLAT_NAMES: dict[str, tuple[str, str]] = {
    ("kernel" if f.name == "source" else f.name): (group, f.name)
    for group, cls in _GROUPS.items() for f in dataclasses.fields(cls)
}
"""Flat keyword -> (group, field): every field of every group, `kernel` for the source."""


@dataclass(init=False)
class TuneOptions:
    """Everything a tuning run needs, grouped; built from groups or from the flat keywords."""

    kernel: KernelOptions
    search: SearchOptions
    measurement: MeasurementOptions
    output: OutputOptions

    def __init__(self, kernel: str | KernelOptions, search: SearchOptions | None = None,
                 measurement: MeasurementOptions | None = None,
                 output: OutputOptions | None = None, **flat: object):
        self.kernel = kernel if isinstance(kernel, KernelOptions) else KernelOptions(kernel)
        self.search = search if search is not None else SearchOptions()
        self.measurement = measurement if measurement is not None else MeasurementOptions()
        self.output = output if output is not None else OutputOptions()
        if flat:
            self._set(flat)

    def updated(self, **flat: object) -> TuneOptions:
        """A copy with some flat options changed (the groups are copied, never shared)."""
        copy = TuneOptions(dataclasses.replace(self.kernel), dataclasses.replace(self.search),
                           dataclasses.replace(self.measurement), dataclasses.replace(self.output))
        copy._set(flat)
        return copy

    def _set(self, flat: dict[str, object]) -> None:
        changes: dict[str, dict[str, object]] = {}
        for name, value in flat.items():
            if name not in _FLAT_NAMES:
                raise TypeError(f"TuneOptions() got an unexpected keyword argument '{name}'")
            group, field_name = _FLAT_NAMES[name]
            changes.setdefault(group, {})[field_name] = value
        for group, values in changes.items():
            setattr(self, group, dataclasses.replace(getattr(self, group), **values))


def flat_names() -> list[str]:
    """The flat keywords `autogpu.tune` and `TuneOptions` accept."""
    return list(_FLAT_NAMES)


def check_options(o: TuneOptions) -> None:
    """CompileError for an option outside its range (the CLI's parser checks its flags the same
    way; the API gets here)."""
    search, measurement = o.search, o.measurement
    if search.strategy not in STRATEGIES and search.strategy != "tpe":
        raise CompileError(f"unknown strategy '{search.strategy}': choose one of "
                           f"{', '.join(STRATEGIES)}")
    if measurement.backend not in BACKENDS:
        raise CompileError(f"unknown backend '{measurement.backend}': choose one of "
                           f"{', '.join(BACKENDS)}")
    for name, value, low in (("budget", search.budget, 1), ("workers", measurement.workers, 1),
                             ("repetitions", measurement.repetitions, 1),
                             ("warmup", measurement.warmup, 0),
                             ("compare_seeds", search.compare_seeds, 1),
                             ("memory_budget", measurement.memory_budget, 1)):
        if value is not None and value < low:
            raise CompileError(f"{name} must be at least {low} (got {value})")
    for name, limit in (("time_limit", search.time_limit), ("timeout", measurement.timeout),
                        ("compile_timeout", measurement.compile_timeout)):
        if limit is not None and not limit > 0:
            raise CompileError(f"{name} must be positive (got {limit})")
    if measurement.jobs is not None and measurement.jobs < 0:
        raise CompileError(f"jobs must be >= 0 (got {measurement.jobs})")


__all__ = ["BACKENDS", "KernelOptions", "MeasurementOptions", "OutputOptions", "SearchOptions",
           "TuneOptions", "check_options", "flat_names"]
