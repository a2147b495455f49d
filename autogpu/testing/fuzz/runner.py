"""Runs generated programs through autogpu and compares them with gcc's serial build.

A batch of programs shares one C translation unit: one gcc build, one frontend parse and, per
pipeline, one g++ build of the emitted CUDA (compiling the emulation is the cost that counts).
When a batch fails to compile, each of its programs is compiled alone to name the culprit.

Each program runs on several size cases (0, 1, sizes that divide nothing), each with fresh
random data, under every pipeline of the batch, on the CPU emulation with a seeded random
thread order. Outputs must be equal to gcc's bit for bit (integers; floats up to the NaN
payload), except float sums, which a parallel reduction reassociates (`compare_float_sum`).
"""

from __future__ import annotations

import random
import re
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from autogpu.api import Kernel, pipeline_spec, run_pipeline
from autogpu.diagnostics import CompileError
from autogpu.frontend import parse_c
from autogpu.runtime.arguments import (
    KernelArgumentError,
    KernelCompileError,
    KernelLaunchError,
    LaunchDescriptionError,
)
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.target.cuda_limits import MAX_THREADS_PER_BLOCK, SHARED_BYTES_PER_BLOCK
from autogpu.target.cuda_target import emit_cuda
from autogpu.testing.c_signature import parse_c_signature
from autogpu.testing.fuzz.program import ArrayParam, FloatSum, Program
from autogpu.testing.gcc_reference import (
    CReference,
    ReferenceCompileError,
    compile_shared_object,
)

SIZE_VALUES = (0, 1, 2, 3, 7, 8, 16, 17, 32, 33, 64, 100, 255, 256, 257, 511, 513)
WORK_BUDGET = 200_000  # loop iterations per run, at most


@dataclass(frozen=True)
class Pipeline:
    name: str
    options: tuple[tuple[str, Any], ...] = ()
    sizes: tuple[tuple[str, int], ...] = ()
    """Sizes compiled in (agpu-specialize): the programs then run only with these."""

    @property
    def spec(self) -> str:
        options = dict(self.options)
        if self.sizes:
            options["sizes"] = ",".join(f"{n}={v}" for n, v in self.sizes)  # api quotes it
        return pipeline_spec(self.name, options)

    def only(self, programs: Sequence[Program]) -> Pipeline:
        """The pipeline for some programs of its batch: sizes of other programs left out
        (agpu-specialize refuses names no function has)."""
        names = {s.name for p in programs for s in p.sizes}
        return replace(self, sizes=tuple((n, v) for n, v in self.sizes if n in names))


VANILLA = Pipeline("autogpu-vanilla")
OPTIMIZE = Pipeline("autogpu-optimize")


def random_vanilla(rng: random.Random) -> Pipeline:
    """autogpu-vanilla with a block shape of the tuner's space (any width up to 1024)."""
    while True:
        x, y, z = (
            rng.choice((32, 64, 128, 256, 512, 1024)),
            rng.choice((1, 2, 4)),
            rng.choice((1, 2)),
        )
        if x * y * z <= MAX_THREADS_PER_BLOCK:
            return Pipeline("autogpu-vanilla", (("block_size", x), ("block_y", y), ("block_z", z)))


def random_options(rng: random.Random) -> Pipeline:
    """A random option set: mostly of autogpu-optimize, now and then autogpu-vanilla's."""
    return random_vanilla(rng) if rng.random() < 0.2 else random_optimize(rng)


def random_optimize(rng: random.Random) -> Pipeline:
    """autogpu-optimize with options drawn from the legal values (the tuner's default space,
    autogpu/tuner/space.py, and the other options' documented ranges)."""
    while True:
        options = {
            "block_size": rng.choice((32, 64, 128, 256, 512)),
            "block_y": rng.choice((1, 1, 2, 4, 8, 16)),
            "block_z": rng.choice((1, 1, 2, 4)),
            "unroll_x": rng.choice((1, 2, 4)),
            "unroll_y": rng.choice((1, 2, 4, 8)),
            "unroll_z": rng.choice((1, 1, 2)),
            "unroll_serial": rng.choice((1, 2, 4, 8, 16)),
            "cache": rng.choice((False, True, True)),
            "cache_halo": rng.choice((False, True, True)),
            "stage": rng.choice((False, True, True)),
            "jam": rng.choice((False, True, True)),
            "assume_no_alias": rng.choice((False, True, True)),
            "dense_threshold": rng.choice((64, 64, 2, 1)),
            "cache_tile": rng.choice((0, 0, 8, 32)),
            "full_unroll_limit": rng.choice((16, 16, 0, 4)),
            "shared_budget": rng.choice((SHARED_BYTES_PER_BLOCK, 4096, 512)),
            "cache_max_extent": rng.choice((0, 4, 64)),
        }
        options = {k: v for k, v in options.items() if rng.random() < 0.6}
        value = {"block_size": 256, "block_y": 1, "block_z": 1, "unroll_x": 1, "unroll_y": 1}
        value |= options
        threads = value["block_size"] * value["block_y"] * value["block_z"]
        if threads <= MAX_THREADS_PER_BLOCK and value["unroll_x"] * value["unroll_y"] <= 32:
            return Pipeline("autogpu-optimize", tuple(options.items()))


def specialized(rng: random.Random, programs: Sequence[Program]) -> Pipeline:
    """autogpu-optimize with random options and sizes compiled in: values every program of
    the batch allows (its sizes' maxima), within the work budget."""
    limits: dict[str, int] = {}
    for p in programs:
        for size in p.sizes:
            limits[size.name] = min(limits.get(size.name, size.max), size.max)
    sizes = {n: rng.choice([v for v in SIZE_VALUES if v <= limit]) for n, limit in limits.items()}
    for _ in range(20):
        if all(p.work(sizes) <= WORK_BUDGET for p in programs):
            break
        big = max(sizes, key=lambda n: sizes[n])
        sizes[big] = max(sizes[big] // 3, 1)
    return replace(random_optimize(rng), sizes=tuple(sorted(sizes.items())))


def batch_pipelines(
    rng: random.Random, extra: int, programs: Sequence[Program] = ()
) -> list[Pipeline]:
    """autogpu-vanilla, autogpu-optimize, `extra` random option sets of it, and one with
    sizes compiled in when `programs` are given."""
    pipelines = [VANILLA, OPTIMIZE] + [random_options(rng) for _ in range(extra)]
    return pipelines + ([specialized(rng, programs)] if programs else [])


# --- findings --------------------------------------------------------------------------------


@dataclass
class Finding:
    """A disagreement with gcc, a refusal of a valid program, or a crash."""

    kind: str  # mismatch, compile-error, crash, emulation-compile-error, launch-error, rejected
    program: Program
    pipeline: Pipeline | None  # None: the argument check, which needs no pipeline
    detail: str
    case: Case | None = None
    arguments: dict[str, Any] | None = None  # the scalar arguments of the case
    thread_seed: int = 0

    def report(self) -> str:
        where = self.pipeline.spec if self.pipeline else "the argument check"
        case = ""
        if self.case is not None:
            case = f"\nsizes and scalars: {self.arguments} (data seed {self.case.seed})"
        return (f"== {self.kind} in {self.program.name} (seed {self.program.seed}) under "
                f"'{where}'{case}\n{self.detail.rstrip()}\n-- program:\n"
                f"{self.program.source()}")  # fmt: skip

    def signature(self) -> str:
        """What must stay the same while the reducer shrinks the program."""
        lines = self.detail.strip().splitlines() or [""]
        if self.kind == "compile-error":  # its message
            return f"{self.kind}: {_without_names(lines[0])}"
        if self.kind == "crash":  # the exception, after the traceback
            return f"{self.kind}: {_without_names(lines[-1])}"
        return self.kind


def _without_names(text: str) -> str:
    """An error message without the names and numbers that change when a program shrinks."""
    return re.sub(r"'[^']*'|\b[a-z]+\d+\b|\d+", "_", text)[:120]


# --- cases -----------------------------------------------------------------------------------


@dataclass
class Case:
    sizes: dict[str, int]
    seed: int  # of the data (and of the scalar parameters that are not sizes)


def scalar_arguments(program: Program, args: Sequence[Any]) -> dict[str, Any]:
    return {p.name: a for p, a in zip(program.params, args) if not isinstance(a, np.ndarray)}


def cases_for(program: Program, rng: random.Random, count: int) -> list[Case]:
    """Size cases: all 1, one with a 0, then random ones, each within the work budget."""
    names = [s.name for s in program.sizes]
    maxima = {s.name: s.max for s in program.sizes}
    chosen: list[dict[str, int]] = [{n: min(1, maxima[n]) for n in names}]
    if names:
        zero = {n: rng.choice([v for v in SIZE_VALUES if v <= maxima[n]]) for n in names}
        zero[rng.choice(names)] = 0
        chosen.append(zero)
    while len(chosen) < count:
        sizes = {n: rng.choice([v for v in SIZE_VALUES if v <= maxima[n]]) for n in names}
        for _ in range(20):
            if program.work(sizes) <= WORK_BUDGET:
                break
            big = max(sizes, key=lambda n: sizes[n])
            sizes[big] = max(sizes[big] // 3, 1)
        chosen.append(sizes)
    return [Case(s, rng.randrange(1 << 30)) for s in chosen[:count]]


# --- comparison ------------------------------------------------------------------------------


def same_values(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Element-wise: identical bits, or both NaN (the payload of a NaN is not compared)."""
    if expected.dtype.kind != "f":
        return actual == expected
    bits = f"u{expected.dtype.itemsize}"
    return (actual.view(bits) == expected.view(bits)) | (np.isnan(actual) & np.isnan(expected))


def float_sum_tolerance(total: FloatSum, magnitude: float, count: float) -> float:
    """|ours - gcc| allowed for a float sum: any summation order of n = count + 1 terms (the
    initial value too) is within gamma_n * sum|terms| of the exact sum (Higham, Accuracy and
    Stability, 4.2), so two orders are within 2 gamma_n of each other; with underflow each
    addition may add 2^-150 (float) or 2^-1075 (double) more. `magnitude` is gcc's sum of
    |terms|, itself at least (1 - gamma_n) of the exact one: hence the 1.1."""
    u = 2.0**-24 if total.ctype.bits == 32 else 2.0**-53
    tiny = 2.0**-149 if total.ctype.bits == 32 else 2.0**-1074
    n = count + 1
    return 2.2 * n * u * (abs(total.init) + magnitude) + n * tiny


def compare_float_sum(total: FloatSum, actual: np.ndarray, expected: np.ndarray) -> str | None:
    """The three slots of a float sum: the count exactly, the sum and the sum of magnitudes
    within `float_sum_tolerance` (not compared when the magnitudes overflow: inf or NaN)."""
    value, magnitude, count = (float(expected[total.slot + k]) for k in range(3))
    mine = [float(actual[total.slot + k]) for k in range(3)]
    if mine[2] != count:
        return f"float sum at {total.slot}: {mine[2]} terms, gcc {count}"
    if not np.isfinite(magnitude):
        return None
    tolerance = float_sum_tolerance(total, magnitude, count)
    for got, want, what in ((mine[0], value, "sum"), (mine[1], magnitude, "sum of |terms|")):
        if np.isnan(want) and np.isnan(got):
            continue
        if not abs(got - want) <= tolerance:
            return (
                f"float sum at {total.slot}: {what} {got!r}, gcc {want!r} (tolerance "
                f"{tolerance:.3g} for {count:g} terms of total magnitude {magnitude:.6g})"
            )
    return None


def compare(program: Program, actual: Sequence[Any], expected: Sequence[Any]) -> str | None:
    """None when the outputs agree (see the module docstring), else the first difference."""
    problems: list[str] = []
    for param, a, e in zip(program.params, actual, expected):
        if not isinstance(param, ArrayParam):
            continue
        if param.name == "fsums" and program.float_sums:
            problems += [p for s in program.float_sums if (p := compare_float_sum(s, a, e))]
            continue
        same = same_values(a, e)
        if not same.all():
            where = int(np.flatnonzero(~same)[0])
            problems.append(f"{param.name}: {int((~same).sum())} of {same.size} elements differ;"
                            f" first [{where}]: {a[where]!r}, gcc {e[where]!r}")  # fmt: skip
    return "\n".join(problems) or None


# --- running ---------------------------------------------------------------------------------


def reference(source: str, programs: Sequence[Program]) -> dict[str, CReference]:
    library = compile_shared_object(source, "fuzz.c")
    return {p.name: CReference(library, parse_c_signature(source, p.name)) for p in programs}


def valid_programs(programs: Sequence[Program], findings: list[Finding]) -> list[Program]:
    """The programs gcc compiles; the others are bugs of the generator (findings)."""
    try:
        compile_shared_object("\n".join(p.source() for p in programs), "fuzz.c")
        return list(programs)
    except ReferenceCompileError:
        pass
    valid: list[Program] = []
    for p in programs:
        try:
            compile_shared_object(p.source(), "fuzz.c")
            valid.append(p)
        except ReferenceCompileError as e:
            findings.append(Finding("invalid-program", p, None, str(e)))
    return valid


def describe_exception(e: BaseException) -> tuple[str, str]:
    """(kind, detail) of an exception raised by autogpu."""
    if isinstance(e, CompileError):
        return "compile-error", str(e)
    if isinstance(e, KernelArgumentError):
        return "rejected", str(e)
    if isinstance(e, KernelCompileError):  # g++ rejected the emitted CUDA: its messages too
        return "emulation-compile-error", "\n".join(map(str, e.args))
    if isinstance(e, (KernelLaunchError, LaunchDescriptionError)):
        return "launch-error", str(e)
    return "crash", "".join(traceback.format_exception(e))[-4000:]


def parse(source: str) -> ModuleOp:
    return parse_c(source, "fuzz.c", warn=lambda w: None)


def lower(module: ModuleOp, pipeline: Pipeline, thread_seed: int) -> CpuProgram:
    """The emulation of `module` (changed in place) under `pipeline`."""
    run_pipeline(module, pipeline.spec)
    program = emit_cuda(module)
    return CpuProgram(program.source, program.launch, threads=1, thread_order="random",
                      seed=thread_seed)  # fmt: skip


def check_arguments(program: Program, c_module: ModuleOp, args: Sequence[Any]) -> None:
    """`autogpu.compile(...)(*args)` checks the arrays' lengths against what the kernel
    indexes (`Kernel.check_array_sizes`): the generator's lengths are exact, so it must
    accept them."""
    Kernel(program.name, c_module, "", "fuzz.c", c_module).check_array_sizes(*args)


@dataclass
class Stats:
    programs: int = 0
    runs: int = 0
    compiles: int = 0
    seconds: float = 0.0
    findings: list[Finding] = field(default_factory=list[Finding])


@dataclass
class Expected:
    """gcc's outputs for one case (`args` are the inputs, left unchanged)."""

    case: Case
    args: list[Any]
    outputs: list[Any]


def check_batch(
    programs: Sequence[Program],
    pipelines: Sequence[Pipeline],
    cases: int = 4,
    seed: int = 0,
    stats: Stats | None = None,
    log: Callable[[str], None] = lambda text: None,
) -> list[Finding]:
    """Every program of the batch under every pipeline against gcc; the findings."""
    stats = stats or Stats()
    started = time.perf_counter()
    rng = random.Random(seed)
    findings: list[Finding] = []
    programs = valid_programs(programs, findings)
    if programs:
        source = "\n".join(p.source() for p in programs)
        gcc = reference(source, programs)
        c_module = parse(source)
        expected = {p.name: [expect(p, gcc[p.name], c_module, case, findings)
                             for case in cases_for(p, rng, cases)] for p in programs}  # fmt: skip
        for pipeline in pipelines:
            thread_seed = rng.randrange(1 << 30)
            runners = compile_programs(programs, c_module, pipeline, thread_seed, findings, stats)
            for p in programs:
                if p.name not in runners:
                    continue
                if pipeline.sizes:
                    fixed = {s.name: dict(pipeline.sizes)[s.name] for s in p.sizes}
                    wanted = [expect(p, gcc[p.name], c_module, Case(fixed, rng.randrange(1 << 30)),
                                     findings)]  # fmt: skip
                else:
                    wanted = expected[p.name]
                run_cases(p, runners[p.name], pipeline, thread_seed, wanted, findings, stats)
            log(f"  {pipeline.spec}: {len(runners)}/{len(programs)} compiled")
    stats.programs += len(programs)
    stats.seconds += time.perf_counter() - started
    stats.findings += findings
    return findings


def expect(
    program: Program, gcc: CReference, c_module: ModuleOp, case: Case, findings: list[Finding]
) -> Expected:
    """gcc's outputs for `case`; the argument check of `autogpu.compile` must accept it."""
    args = program.arguments(case.sizes, np.random.default_rng(case.seed))
    outputs: list[Any] = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    gcc(*outputs)
    try:
        check_arguments(program, c_module, args)
    except Exception as e:  # noqa: BLE001 - every exception is a finding
        kind, detail = describe_exception(e)
        findings.append(Finding(kind, program, None, detail, case, scalar_arguments(program, args)))
    return Expected(case, args, outputs)


def run_cases(
    program: Program,
    runner: CpuProgram,
    pipeline: Pipeline,
    thread_seed: int,
    wanted: Sequence[Expected],
    findings: list[Finding],
    stats: Stats,
) -> None:
    """The program on each case under `pipeline`: the first difference or error is a
    finding."""
    for want in wanted:
        got: list[Any] = [a.copy() if isinstance(a, np.ndarray) else a for a in want.args]
        stats.runs += 1
        try:
            runner.run(program.name, *got)
            kind, detail = "mismatch", compare(program, got, want.outputs)
        except Exception as e:  # noqa: BLE001
            kind, detail = describe_exception(e)
        if detail:
            findings.append(Finding(kind, program, pipeline.only([program]), detail, want.case,
                                    scalar_arguments(program, want.args), thread_seed))  # fmt: skip
            return


def compile_programs(
    programs: Sequence[Program],
    module: ModuleOp,
    pipeline: Pipeline,
    thread_seed: int,
    findings: list[Finding],
    stats: Stats,
) -> dict[str, CpuProgram]:
    """The emulation of the batch under `pipeline`, by program name. When the batch does not
    compile, each program goes through the pipeline alone (cheap: no g++) to name the failing
    ones (findings), and the others are compiled together again."""
    stats.compiles += 1
    try:
        runner = lower(module.clone(), pipeline, thread_seed)
        return {p.name: runner for p in programs}
    except Exception:  # noqa: BLE001 - attributed below
        pass
    good: list[Program] = []
    for p in programs:
        try:
            run_pipeline(parse(p.source()), pipeline.only([p]).spec)
            good.append(p)
        except Exception as e:  # noqa: BLE001
            kind, detail = describe_exception(e)
            findings.append(Finding(kind, p, pipeline.only([p]), detail, thread_seed=thread_seed))
    if len(good) > 1 and len(good) < len(programs):
        stats.compiles += 1
        try:
            source = "\n".join(p.source() for p in good)
            runner = lower(parse(source), pipeline.only(good), thread_seed)
            return {p.name: runner for p in good}
        except Exception:  # noqa: BLE001
            pass
    runners: dict[str, CpuProgram] = {}
    for p in good:
        stats.compiles += 1
        try:
            runners[p.name] = lower(parse(p.source()), pipeline.only([p]), thread_seed)
        except Exception as e:  # noqa: BLE001
            kind, detail = describe_exception(e)
            findings.append(Finding(kind, p, pipeline.only([p]), detail, thread_seed=thread_seed))
    return runners
