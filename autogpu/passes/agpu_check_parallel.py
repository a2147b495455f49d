"""`agpu-check-parallel`: the legality check of `agpu.parallel_for` loops for IR given to the
passes directly (the C frontend checks everything it produces, and `convert-agpu-to-gpu` refuses
proven conflicts itself). Iterations that provably touch one element are an error; pairs of
accesses the check cannot decide are warnings on stderr, or errors with `werror`. See
`autogpu/passes/analysis/dependences.py`."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from autogpu.diagnostics import CompileError
from autogpu.passes.analysis.dependences import check_parallel_loops
from autogpu.passes.options import DeclaredOptionsPass, option
from autogpu.passes.utils.errors import PassError


@dataclass(frozen=True)
class AgpuCheckParallelPass(DeclaredOptionsPass):
    """Checks that the iterations of every parallel loop touch different elements."""

    name = "agpu-check-parallel"

    werror: bool = option(
        False, doc="Unprovable pairs of accesses are errors instead of warnings.")

    assume_no_alias: bool = option(
        True, doc="Distinct pointer parameters never overlap, as if all were `restrict` (the "
        "paper's assumption, which autogpu's executors enforce); false: a store into one and an "
        "access to another that is not provably distinct is a warning.")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        def warn(warning: CompileError) -> None:
            if self.werror:
                raise PassError(warning.message, warning.location)
            print(warning.format(), file=sys.stderr)

        check_parallel_loops(op, warn, self.assume_no_alias)
