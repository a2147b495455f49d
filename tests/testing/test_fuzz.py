"""The differential fuzzer (docs/fuzzing.md) in CI.

A fixed-seed batch of generated programs must agree with gcc under autogpu-vanilla,
autogpu-optimize, one random option set of it and one with sizes compiled in; the generator
keeps its promises (same seed, same program; gcc compiles every program; no undefined behaviour
under ASan and UBSan); and the harness can fail: a wrong result, a refused program and a crash
are all reported.
"""

from __future__ import annotations

import random
import re
import shutil
from typing import Any, NoReturn

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from autogpu.numeric import is_ndarray
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.testing.fuzz import runner
from autogpu.testing.fuzz.generator import KNOWN_ISSUES, generate
from autogpu.testing.fuzz.program import FloatSum, Program
from autogpu.testing.fuzz.reduce import reduce_program
from autogpu.testing.fuzz.runner import (
    OPTIMIZE,
    VANILLA,
    batch_pipelines,
    check_batch,
    compare_float_sum,
    float_sum_tolerance,
)
from autogpu.testing.fuzz.sanitize import check_in_subprocess
from autogpu.testing.fuzz.values import FLOAT
from autogpu.testing.gcc_reference import ReferenceCompileError, compile_shared_object

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

CI_BATCHES = [range(first, first + 8) for first in range(0, 24, 8)]
"""24 programs in 3 batches (one translation unit each), 3 size cases each."""


@pytest.mark.parametrize("seeds", CI_BATCHES, ids=lambda r: f"seeds{r.start}-{r.stop - 1}")
def test_fixed_seed_batch_agrees_with_gcc(seeds: range):
    programs = [generate(seed) for seed in seeds]
    pipelines = batch_pipelines(random.Random(seeds.start), extra=1, programs=programs)
    findings = check_batch(programs, pipelines, cases=3, seed=seeds.start)
    assert not findings, "\n\n".join(f.report() for f in findings)


def test_generator_is_deterministic():
    assert generate(7).source() == generate(7).source()
    assert generate(7).source() != generate(8).source()


def test_gcc_compiles_every_program():
    for seed in range(100, 160):
        compile_shared_object(generate(seed).source(), "fuzz.c")


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc with libasan")
def test_programs_are_free_of_undefined_behaviour():
    """gcc's build with ASan and UBSan (no -fwrapv) runs the fuzzer's cases without a report."""
    result = check_in_subprocess(range(0, 40), cases=3)
    assert result.returncode == 0, result.stderr[-4000:]


def test_fixed_issues_are_generated_again():
    """Both bugs the fuzzer found are fixed (docs/fuzzing.md): the generator draws their forms
    (a decreasing unsigned long parallel loop, an unsigned min/max reduction) by default."""
    sources = [generate(seed).source() for seed in range(300)]
    assert KNOWN_ISSUES == {}
    assert any(re.search(r"unsigned long \w+ = \w+; \w+ > 0; \w+--", s) for s in sources)
    assert any(re.search(r"reduction\((min|max): ", s) for s in sources)


# --- the harness can fail ----------------------------------------------------------------------


class WrongRunner:
    """An emulation that adds one to the first element of every non-const array it is given."""

    def __init__(self, real: CpuProgram):
        self.real = real

    def run(self, name: str, *args: Any) -> None:
        self.real.run(name, *args)
        for a in args:
            if is_ndarray(a) and a.size and a.flags.writeable:
                a.flat[0] += 1


def test_a_wrong_result_is_a_mismatch(monkeypatch: pytest.MonkeyPatch):
    real_lower = runner.lower

    def wrong_lower(module: ModuleOp, pipeline: runner.Pipeline, seed: int) -> WrongRunner:
        return WrongRunner(real_lower(module, pipeline, seed))

    monkeypatch.setattr(runner, "lower", wrong_lower)
    findings = check_batch([generate(3)], [VANILLA], cases=2, seed=3)
    assert findings
    assert findings[0].kind == "mismatch", [f.kind for f in findings]
    report = findings[0].report()
    assert "void fz3(" in report
    assert "data seed" in report
    assert "autogpu-vanilla" in report


def test_a_refusal_and_a_crash_are_findings(monkeypatch: pytest.MonkeyPatch):
    from autogpu.diagnostics import CompileError

    def refuse(*_: object) -> NoReturn:
        raise CompileError("error: no")

    def crash(*_: object) -> NoReturn:
        raise IndexError("list index out of range")

    monkeypatch.setattr(runner, "lower", refuse)
    monkeypatch.setattr(runner, "run_pipeline", refuse)
    (finding,) = check_batch([generate(4)], [OPTIMIZE], cases=1, seed=4)
    assert finding.kind == "compile-error"

    monkeypatch.setattr(runner, "run_pipeline", crash)
    (finding,) = check_batch([generate(4)], [OPTIMIZE], cases=1, seed=4)
    assert finding.kind == "crash"
    assert "IndexError" in finding.detail


def test_float_sum_tolerance_accepts_reordering_and_rejects_a_lost_term():
    rng = np.random.default_rng(0)
    terms = rng.uniform(-1, 1, 5000).astype(np.float32)
    serial = np.float32(0.5)
    for t in terms:
        serial = np.float32(serial + t)
    pairwise = np.float32(0.5) + terms.reshape(50, 100).sum(axis=1, dtype=np.float32).sum(
        dtype=np.float32)  # fmt: skip
    magnitude = float(np.abs(terms).sum(dtype=np.float64))
    total = FloatSum("fsums", 0, 0.5, FLOAT)
    expected = np.array([serial, magnitude, len(terms)], dtype=np.float64)
    assert compare_float_sum(total, np.array([pairwise, magnitude, len(terms)]), expected) is None
    lost = np.array([pairwise - terms[17], magnitude, len(terms)])
    if abs(terms[17]) > float_sum_tolerance(total, magnitude, len(terms)):
        assert compare_float_sum(total, lost, expected) is not None
    one_less = np.array([pairwise, magnitude, len(terms) - 1])
    problem = compare_float_sum(total, one_less, expected)
    assert problem is not None
    assert "terms" in problem


def test_reducer_keeps_the_property_and_shrinks():
    def has_reduction(program: Program) -> bool:
        source = program.source()
        if "reduction(" not in source:
            return False
        try:
            compile_shared_object(source, "fuzz.c")
            return True
        except ReferenceCompileError:
            return False

    program = next(p for p in map(generate, range(20)) if has_reduction(p))
    reduced = reduce_program(program, has_reduction, seconds=60)
    assert has_reduction(reduced)
    assert len(reduced.source()) < len(program.source()) / 2
    assert program.source() != reduced.source()  # the original is left alone
