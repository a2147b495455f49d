"""What every variant is verified against: by default the user's serial C, compiled by gcc.

A reference built by autogpu itself (the `autogpu-vanilla` pipeline) shares the frontend with
every variant, so a bug there would be "verified" and could be selected. gcc shares nothing
with autogpu: the C is compiled as written (`#pragma omp` ignored, so the loops run serially and
in order) by `autogpu.testing.gcc_reference`, with `-O2 -ffp-contract=off -fno-fast-math
-fwrapv` (one IEEE operation per C operation). In order of preference:

- `gcc` (the default): the serial C compiled by gcc; where the dependence check proves every
  parallel loop free of conflicts (`autogpu.passes.analysis.dependences`: no finding at all),
  gcc builds it with `-fopenmp`, so that libgomp, not autogpu, runs those loops on every core
  (the same result, up to the reassociation of floating-point reductions that the tolerance
  allows for every variant anyway; a serial 4096^3 matmul would take minutes);
- `interpreter`: the frontend's IR run by `autogpu.interpreters` (it shares the frontend but no
  pass and no backend); used where gcc is missing or rejects the source, with the reason
  stated in the report and on the terminal;
- a pipeline (`--reference autogpu-vanilla`), only when asked, on the measuring backend or
  `--reference-backend`;
- none (`--reference none`): nothing is verified, and the report says so.

`requested()` validates the option without compiling anything (for `prepare`); `resolved()`
builds gcc's library before the run, so the cache context says which reference was really used;
`Reference.run` computes the outputs in the measurement process.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, replace
from typing import Any

GCC = "gcc"
INTERPRETER = "interpreter"
PIPELINE = "pipeline"
DEFAULT = GCC


@dataclass(frozen=True)
class Reference:
    """The reference of a run: which kind, and what it needs to compute its outputs."""

    kind: str  # GCC | INTERPRETER | PIPELINE
    source: str
    filename: str
    function: str
    pipeline: str | None = None  # PIPELINE: the pipeline string
    backend: str | None = None  # PIPELINE: where it runs (None: the measuring backend)
    note: str | None = None  # why this is not the reference that was asked for
    compiler: str | None = None  # GCC: gcc's version line, once resolved
    openmp: bool = False  # GCC: the OpenMP pragmas honoured by gcc (every parallel loop proven)

    def identity(self) -> dict[str, Any]:
        """What the verdicts depend on (part of the cache context)."""
        if self.kind == GCC:
            from autogpu.testing.gcc_reference import gcc_flags

            return {"kind": GCC, "compiler": self.compiler,
                    "flags": list(gcc_flags(True, self.openmp))}
        if self.kind == PIPELINE:
            return {"kind": PIPELINE, "pipeline": self.pipeline, "backend": self.backend}
        return {"kind": self.kind}

    @property
    def name(self) -> str:
        """A word for messages: gcc, interpreter, or the pipeline."""
        return self.pipeline if self.kind == PIPELINE and self.pipeline else self.kind

    def describe(self) -> str:
        """One line for the terminal and the report."""
        if self.kind == GCC:
            from autogpu.testing.gcc_reference import gcc_flags

            flags = " ".join(gcc_flags(True)[:5])
            if self.openmp:
                return (f"gcc: the C compiled by gcc {flags} -fopenmp (every parallel loop "
                        f"proven free of conflicts, so libgomp runs them)")
            text = f"gcc: the serial C compiled by gcc {flags}"
            return f"{text} ({self.note})" if self.note else text
        if self.kind == INTERPRETER:
            text = "interpreter: the frontend's IR run serially by autogpu.interpreters"
            return f"{text} ({self.note})" if self.note else text
        where = f" on the {self.backend} backend" if self.backend else ""
        return f"pipeline: {self.pipeline}{where} (autogpu's own code: not independent)"

    def report(self) -> dict[str, Any]:
        return {**self.identity(), "description": self.describe(), "note": self.note}

    def run(self, args: list[Any], backend: str, device: int = 0) -> None:
        """Compute the reference outputs into `args` (C parameter order, arrays in place)."""
        if self.kind == GCC:
            from autogpu.testing.gcc_reference import compile_c_reference

            compile_c_reference(self.source, self.function, self.filename, optimize=True,
                                openmp=self.openmp)(*args)
        elif self.kind == INTERPRETER:
            from autogpu.frontend import parse_c
            from autogpu.interpreters import run_function

            run_function(parse_c(self.source, self.filename), self.function, args)
        else:
            from autogpu.tuner import adapter

            assert self.pipeline is not None  # a PIPELINE reference names its pipeline
            artifact = adapter.compile_variant(self.source, self.filename, self.function,
                                               self.pipeline)
            program = adapter.make_program(artifact, self.backend or backend, device)
            adapter.run_program(program, self.function, args)


def report_entry(reference: Reference | None, host_program: bool = False) -> dict[str, Any]:
    """The report's `reference`: which one was used, in words too."""
    if reference is not None:
        return reference.report()
    if host_program:
        return {"kind": "host-program", "description": "the host program's own checks"}
    return {"kind": "none", "description": "none: the variants were not verified"}


def requested(option: str | None, source: str, filename: str, function: str,
              backend: str | None = None) -> Reference | None:
    """The reference the option asks for (None: no verification); a pipeline is checked, nothing
    is compiled. Raises CompileError on an unknown pass."""
    text = (option if option is not None else "none").strip()
    if text.lower() in ("", "none"):
        return None
    base = Reference(DEFAULT, source, filename, function)
    if text.lower() in (GCC, INTERPRETER):
        if backend is not None:
            from autogpu.diagnostics import CompileError

            raise CompileError(f"--reference-backend applies to a pipeline reference "
                               f"(--reference PIPELINE), not to {text.lower()}")
        return replace(base, kind=text.lower())
    from autogpu.tuner import adapter

    adapter.parse_pipeline_spec(text)
    return replace(base, kind=PIPELINE, pipeline=text, backend=backend)


def resolved(reference: Reference | None) -> Reference | None:
    """The reference as it will run: gcc's library built now (cached on disk), or the
    interpreter, with the reason, where gcc is missing or rejects the source."""
    if reference is None or reference.kind != GCC:
        return reference
    from autogpu.testing.gcc_reference import (
        ReferenceCompileError,
        compile_c_reference,
        gcc_version,
    )

    if shutil.which("gcc") is None:
        return replace(reference, kind=INTERPRETER, note="gcc was not found on PATH")
    try:
        compile_c_reference(reference.source, reference.function, reference.filename,
                            optimize=True)
        reference = replace(reference, compiler=gcc_version())
    except (ReferenceCompileError, ValueError) as e:
        first = next((line for line in str(e).splitlines()[1:] if "error" in line),
                     str(e).splitlines()[0])
        return replace(reference, kind=INTERPRETER, note=f"gcc cannot build it: {first.strip()}")
    if not _parallel_loops_proven(reference):
        return replace(reference, note="a parallel loop is not proven to give the serial "
                                       "result under OpenMP, so it runs serially")
    try:
        compile_c_reference(reference.source, reference.function, reference.filename,
                            optimize=True, openmp=True)
        return replace(reference, openmp=True)
    except ReferenceCompileError:
        return replace(reference, note="gcc -fopenmp cannot build it, so it runs serially")


def _parallel_loops_proven(reference: Reference) -> bool:
    """Whether gcc's OpenMP build of the function computes its serial result (see
    `dependences.same_result_under_openmp`)."""
    from xdsl.dialects import func

    from autogpu.frontend import parse_c
    from autogpu.passes.analysis.dependences import same_result_under_openmp

    module = parse_c(reference.source, reference.filename, warn=lambda _: None)
    functions = [op for op in module.walk()
                 if isinstance(op, func.FuncOp) and op.sym_name.data == reference.function]
    return bool(functions) and all(same_result_under_openmp(f) for f in functions)
