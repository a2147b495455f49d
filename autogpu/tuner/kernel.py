"""Compiling variants of a C kernel (the `Compiler` of a tuning session).

A configuration becomes a pipeline string (the space fills the tuned options into the passes),
which a pool worker compiles through `autogpu.compile` and the cuda target (see adapter.py).
Before a variant is built by nvcc its launch configuration is evaluated for the sizes and
checked against the device: threads per block and shared memory per block (the static
`__shared__` bytes the launch description gives, plus the dynamic shared bytes). The pool worker
checks it right after the passes, so a variant that could not launch never costs an nvcc run
(seconds of a core, for a fully unrolled register tile); the session checks it again and
records the reason.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from autogpu.tuner import adapter
from autogpu.tuner.space import DEFAULT_MAX_SHARED, DEFAULT_MAX_THREADS, Space

#: A test-only hook: called as hook(config, artifact) -> artifact after compiling, to inject
#: deliberately wrong or hanging variants. A module-level function or "module:function".
VariantHook = Callable[[Mapping[str, Any], adapter.Artifact], adapter.Artifact] | str | None


def resolve_hook(
    hook: VariantHook,
) -> Callable[[Mapping[str, Any], adapter.Artifact], adapter.Artifact] | None:
    if hook is None or callable(hook):
        return hook
    module, _, name = str(hook).partition(":")
    return getattr(importlib.import_module(module), name)


def compile_config(source: str, filename: str, function: str, pipeline: str, hook: VariantHook,
                   config: Mapping[str, Any]) -> adapter.Artifact:
    """One variant, compiled to plain data (and passed through the test-only hook)."""
    artifact = adapter.compile_variant(source, filename, function, pipeline)
    fn = resolve_hook(hook)
    return artifact if fn is None else fn(config, artifact)


@dataclass(frozen=True)
class LaunchLimits:
    """What a launch may use on the device, and the sizes its launch expressions read."""

    scalars: Mapping[str, Any]
    max_threads: int = DEFAULT_MAX_THREADS
    max_shared: int = DEFAULT_MAX_SHARED
    must_evaluate: bool = True  # a launch that cannot be evaluated for the sizes fails

    def problem(self, artifact: adapter.Artifact) -> str | None:
        """Why `artifact` cannot launch on the device (threads, shared memory), or None."""
        try:
            launches = adapter.launch_config(artifact, self.scalars)
        except ImportError:
            return None
        except Exception as e:  # noqa: BLE001 — a launch expression that cannot be evaluated
            if not self.must_evaluate:
                return None
            return f"cannot evaluate the launch configuration: {e}"
        for launch in launches:
            threads = math.prod(launch["block"])
            if threads > self.max_threads:
                return (f"{launch['kernel']}: {threads} threads per block > device limit "
                        f"{self.max_threads}")
            if threads <= 0 or any(g <= 0 for g in launch["grid"]):
                continue  # an empty launch: the executor skips it
            shared = launch["static_shared"] + launch["shared"]
            if shared > self.max_shared:
                return (f"{launch['kernel']}: {shared} bytes of shared memory per block > "
                        f"limit {self.max_shared}")
        return None


def compile_task(source: str, filename: str, function: str, pipeline: str, hook: VariantHook,
                 backend: str | None, arch: str | None, config: Mapping[str, Any],
                 limits: LaunchLimits | None = None) -> adapter.Artifact:
    """Runs in a pool worker: one variant, compiled to plain data (and, for `backend`, built
    into the executor's cache, unless `limits` says it cannot launch: the session then rejects
    it without nvcc having run)."""
    artifact = compile_config(source, filename, function, pipeline, hook, config)
    if backend is not None and (limits is None or limits.problem(artifact) is None):
        adapter.prebuild(artifact, backend, arch)
    return artifact


@dataclass
class KernelCompiler:
    """Compiles configurations of `space` for one C function."""

    source: str
    filename: str
    function: str
    space: Space
    scalars: dict[str, Any]
    max_threads: int = DEFAULT_MAX_THREADS
    max_shared: int = DEFAULT_MAX_SHARED
    hook: VariantHook = None
    backend: str | None = None  # prebuild the executor's binary in the pool worker
    arch: str | None = None  # the GPU's architecture (sm_90), for prebuilding with nvcc

    #: A launch configuration that cannot be evaluated for the sizes fails the variant (in
    #: testing-platform mode the user's program chooses its sizes: the device will tell).
    launch_must_evaluate: ClassVar[bool] = True

    def pipeline(self, config: Mapping[str, Any]) -> str:
        return adapter.format_pipeline(self.space.pipeline(config))

    @property
    def limits(self) -> LaunchLimits:
        return LaunchLimits(dict(self.scalars), self.max_threads, self.max_shared,
                            self.launch_must_evaluate)

    def task(self, config: Mapping[str, Any]) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return compile_task, (self.source, self.filename, self.function, self.pipeline(config),
                              self.hook, self.backend, self.arch, dict(config), self.limits)

    def check(self, config: Mapping[str, Any], artifact: adapter.Artifact) -> str | None:
        return self.limits.problem(artifact)

    def to_record(self, artifact: adapter.Artifact) -> dict[str, Any]:
        return {"digest": artifact.digest, "cuda_source": artifact.cuda_source,
                "launch": artifact.launch}
