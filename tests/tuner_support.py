"""Shared helpers of the tuner tests: a synthetic kernel with a known cost model.

The synthetic "compiler" turns a configuration into a dict; the synthetic measurer returns a
time computed from the parameters (minimum at a known configuration), can be told to fail
verification, to hang or to crash for chosen configurations, and counts its measurements in a
file (so tests can count measurements across processes).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from autogpu.tuner.measure import Measurer, Outcome
from autogpu.tuner.values import DeviceInfo

if TYPE_CHECKING:
    from autogpu.tuner.adapter import Artifact


def synthetic_cost(config: Mapping[str, Any]) -> float:
    """A smooth bowl with its minimum at block_size=128, unroll=4 (and cache=True)."""
    import math

    b = math.log2(config.get("block_size", 128)) - 7
    u = math.log2(config.get("unroll", 4)) - 2
    c = 0.0 if config.get("cache", True) else 0.3
    return 1e-3 * (1.0 + 0.5 * b * b + 0.25 * u * u + c + 0.05 * b * u)


def synthetic_compile(config: Mapping[str, Any], die: tuple[int, ...] = ()) -> dict[str, Any]:
    if config.get("block_size") in die:  # the compile worker is killed (out of memory)
        os.kill(os.getpid(), signal.SIGKILL)
    if config.get("block_size") == 1024 and config.get("unroll", 1) == 8:
        raise ValueError("synthetic compile failure: too many registers")
    return {"config": dict(config)}


@dataclass
class SyntheticCompiler:
    fail_check: tuple[int, ...] = ()
    die: tuple[int, ...] = ()  # block sizes whose compile worker gets SIGKILL

    def task(self, config: Mapping[str, Any]
             ) -> tuple[Callable[..., dict[str, Any]], tuple[dict[str, Any], tuple[int, ...]]]:
        return synthetic_compile, (dict(config), self.die)

    def check(self, config: Mapping[str, Any], artifact: dict[str, Any]) -> str | None:
        return "too much shared memory" if config.get("block_size") in self.fail_check else None

    def to_record(self, artifact: dict[str, Any]) -> dict[str, Any]:
        return {"digest": str(sorted(artifact["config"].items()))}


@dataclass
class SyntheticMeasurer(Measurer):
    log: str | None = None  # a file that gets one line per measurement
    wrong: tuple[int, ...] = ()  # block sizes whose output is "wrong"
    hang: tuple[int, ...] = ()  # block sizes that never finish
    crash: tuple[int, ...] = ()  # block sizes that kill the measurement process
    delay: float = 0.0
    interrupt_after: int | None = None  # raise KeyboardInterrupt at this measurement (Ctrl-C)
    out_of_memory: tuple[int, ...] = ()  # block sizes the environment fails: an out-of-memory error...
    killed: tuple[int, ...] = ()  # ... or SIGKILL for the measurement process (the OOM killer) ...
    environment_times: int = 1 << 30  # ... on their first this many attempts (counted in `log`)
    setups: int = field(default=0)
    measured: int = field(default=0)
    reference: str | None = None  # what prepare() computed (here or in another process)
    prepare_log: str | None = None  # a file that gets one line per prepare() that computes

    def setup(self) -> DeviceInfo:
        self.setups += 1
        return {"backend": "synthetic"}

    def prepare(self) -> str | None:
        if self.reference is not None:
            return None
        if self.prepare_log:
            with open(self.prepare_log, "a") as f:
                f.write(f"{os.getpid()}\n")
        self.reference = "the reference outputs"
        return self.reference

    def adopt(self, state: str | None) -> None:
        if state is not None:
            self.reference = state

    def measure(self, config: Mapping[str, Any], artifact: dict[str, Any]) -> Outcome:
        if self.interrupt_after is not None and self.measured == self.interrupt_after:
            raise KeyboardInterrupt
        self.measured += 1
        attempts = 0
        if self.log:
            line = f"{sorted(config.items())}\n"
            if os.path.exists(self.log):
                with open(self.log) as f:
                    attempts = sum(entry.endswith(" " + line) for entry in f)
            with open(self.log, "a") as f:
                f.write(f"{os.getpid()} {line}")
        b = config.get("block_size")
        if attempts < self.environment_times:
            if b in self.out_of_memory:
                from autogpu.runtime.arguments import KernelLaunchError

                raise KernelLaunchError("kernel 'k' failed on the CPU: cannot allocate a fiber "
                                        "stack (out of memory)")
            if b in self.killed:
                os.kill(os.getpid(), signal.SIGKILL)
        if b in self.hang:
            time.sleep(3600)
        if b in self.crash:
            os._exit(3)
        if self.delay:
            time.sleep(self.delay)
        if b in self.wrong:
            return Outcome.failed("verify", "y[3] = 0.5, reference 0.25")
        t = synthetic_cost(config)
        return Outcome("ok", t, [t])


def synthetic_candidates(block_sizes: tuple[int, ...] = (32, 64, 128, 256, 512, 1024),
                         unrolls: tuple[int, ...] = (1, 2, 4, 8)) -> list[dict[str, Any]]:
    return [{"block_size": b, "unroll": u} for b in block_sizes for u in unrolls]


# --- hooks for the real pipeline (test-only variant_hook of TuneOptions) -------------------------


def corrupt_block_64(config: Mapping[str, Any], artifact: Artifact) -> Artifact:
    """Make the block_size=64 variant of saxpy compute a wrong y (off by one)."""
    import re
    from dataclasses import replace

    if config.get("block_size") != 64:
        return artifact
    source, n = re.subn(r"(\by\[\w+\]\s*=\s*)", r"\g<1>1.0f + ", artifact.cuda_source, count=1)
    assert n == 1, artifact.cuda_source
    return replace(artifact, cuda_source=source)


def hang_block_128(config: Mapping[str, Any], artifact: Artifact) -> Artifact:
    """Make the block_size=128 variant of saxpy spin forever (on a volatile read of global
    memory, which no compiler may remove)."""
    from dataclasses import replace

    if config.get("block_size") != 128:
        return artifact
    source = artifact.cuda_source
    body = source.index("{", source.index("__global__")) + 1
    spin = " while (*(volatile const float *)x == *(volatile const float *)x) { } "
    return replace(artifact, cuda_source=source[:body] + spin + source[body:])


def shrink_grid_block_64(config: Mapping[str, Any], artifact: Artifact) -> Artifact:
    """Launch the block_size=64 variant with one block along x, so most rows are never
    computed (a wrong result that only the user's host program can notice)."""
    import copy
    from dataclasses import replace

    if config.get("block_size") != 64:
        return artifact
    launch = copy.deepcopy(artifact.launch)
    for function in launch["functions"]:
        for entry in function["launches"]:
            entry["grid"][0] = "1"
    return replace(artifact, launch=launch)


def wrong_and_hang(config: Mapping[str, Any], artifact: Artifact) -> Artifact:
    return hang_block_128(config, corrupt_block_64(config, artifact))


def claim_everything(path: str, context: str, configs: list[dict[str, Any]], barrier: str = "",
                     parties: int = 1) -> int:
    """A competing tuner: claim and 'measure' every configuration it can; returns how many.
    `barrier` is a directory where `parties` competitors meet before starting."""
    from pathlib import Path

    from autogpu.tuner.cache import Cache, Record

    if barrier:
        Path(barrier, str(os.getpid())).touch()
        deadline = time.time() + 60
        while len(list(Path(barrier).iterdir())) < parties and time.time() < deadline:
            time.sleep(0.01)
    done = 0
    with Cache(path) as cache:
        for config in configs:
            if cache.claim(context, config).state == "claimed":
                time.sleep(0.01)
                cache.finish(context, config, Record(config, "ok", synthetic_cost(config)))
                done += 1
    return done


def slow_compile(config: Mapping[str, Any], seconds: float) -> dict[str, Any]:
    """A compilation that takes `seconds` of the worker (passes and nvcc of a large variant)."""
    time.sleep(seconds)
    return {"config": dict(config)}


@dataclass
class SlowCompiler:
    seconds: float = 1.0

    def task(self, config: Mapping[str, Any]
             ) -> tuple[Callable[[Mapping[str, Any], float], dict[str, Any]],
                        tuple[dict[str, Any], float]]:
        return slow_compile, (dict(config), self.seconds)

    def check(self, config: Mapping[str, Any], artifact: dict[str, Any]) -> str | None:
        return None

    def to_record(self, artifact: dict[str, Any]) -> dict[str, Any]:
        config: dict[str, Any] = artifact["config"]
        return {"digest": str(sorted(config.items()))}


def jittery_compile(config: Mapping[str, Any], seconds: float, log: str) -> dict[str, Any]:
    """A compilation of `seconds`, logged in `log` (one line per compilation, any process)."""
    time.sleep(seconds)
    with open(log, "a") as f:
        f.write(f"{sorted(config.items())}\n")
    return synthetic_compile(config)


@dataclass
class JitteryCompiler:
    """Compilations of random length (drawn from `jitter_seed` and the configuration), so a
    pool of several workers finishes them out of order, in a different order for each seed;
    each compilation is logged in `log`."""

    log: str
    jitter_seed: int = 0
    longest: float = 0.04

    def task(self, config: Mapping[str, Any]
             ) -> tuple[Callable[..., dict[str, Any]], tuple[dict[str, Any], float, str]]:
        import random

        seconds = random.Random(f"{self.jitter_seed} {sorted(config.items())}").uniform(
            0, self.longest)
        return jittery_compile, (dict(config), seconds, self.log)

    def check(self, config: Mapping[str, Any], artifact: dict[str, Any]) -> str | None:
        return None

    def to_record(self, artifact: dict[str, Any]) -> dict[str, Any]:
        config: dict[str, Any] = artifact["config"]
        return {"digest": str(sorted(config.items()))}
