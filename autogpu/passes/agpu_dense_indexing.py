"""`agpu-dense-indexing`: choose dense or sparse indexing for each parallel loop (AutoGPU 2.3.1).

With sparse indexing thread t takes `i = lb + t` and only every step-th thread has work; with
dense indexing thread t takes `i = lb + t * step` and none idles. For step 1 both are the same.
For a small step, sparse indexing wastes few threads and keeps the warps' accesses inside a
narrow window; once the step reaches a whole warp, a warp under sparse indexing would hold a
single active thread. The rule:

    indexing = dense   iff   step >= threshold     (threshold defaults to 64 = 2 x warp size)

A step that is not a compile-time constant gets dense indexing: under sparse indexing an
unknown (possibly almost every) fraction of the threads would idle, while dense indexing is
never worse than launching those idle threads.

`mode=dense` or `mode=sparse` forces every parallel loop to that scheme.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from autogpu.dialects.agpu import Indexing, IndexingAttr, ParallelForOp
from autogpu.passes.analysis.integers import constant_int
from autogpu.passes.options import DeclaredOptionsPass, at_least, one_of, option

MODES = ("auto", "dense", "sparse")


def choose_indexing(loop: ParallelForOp, threshold: int) -> Indexing:
    """Dense for a constant step of at least `threshold`, or for a non-constant step."""
    step = constant_int(loop.step)
    if step is None or step >= threshold:
        return Indexing.DENSE
    return Indexing.SPARSE


@dataclass
class SetIndexing(RewritePattern):
    threshold: int
    mode: str

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ParallelForOp, rewriter: PatternRewriter) -> None:
        if self.mode == "auto":
            wanted = choose_indexing(op, self.threshold)
        else:
            wanted = Indexing(self.mode)
        if op.indexing.data != wanted:
            op.properties["indexing"] = IndexingAttr(wanted)
            rewriter.notify_op_modified(op)


@dataclass(frozen=True)
class AgpuDenseIndexingPass(DeclaredOptionsPass):
    """Set `indexing = dense` on parallel loops with a large or unknown step."""

    name = "agpu-dense-indexing"

    threshold: int = option(
        64, doc="Smallest constant step that gets dense indexing (at least 1).",
        check=at_least(1))

    mode: str = option(
        "auto", doc="`auto`: dense for a constant step of at least `threshold` or a step that "
        "is not constant; `dense` or `sparse`: that for every parallel loop.",
        check=one_of(*MODES))

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(SetIndexing(self.threshold, self.mode)).rewrite_module(op)
