"""`gpu-cache-shared`: cache global reads that threads of a block share in `__shared__` memory
(AutoGPU 2.3.3, the step from mm_1 to mm_2), generalised to stencil and convolution windows.

Runs on the GPU level (after `convert-agpu-to-gpu`/`autogpu-vanilla`): shared memory, barriers,
thread indices and the block shape (`gpu.known_block_size`) only exist there, and the thread
guards that must be restructured around barriers are the lowering's.

A group of loads of a read-only array `G` (never written by the kernel, nor through a pointer
that may alias it) is cached when the threads of a block read its elements more than once
(see `caching/footprint.py` for the tile model):

- *thread-invariant* reads (option `thread_invariant`): the index does not depend on the
  thread but walks a serial loop, like matmul's `C[k + j*p]`. When the loop's trip count is a
  constant the whole footprint is loaded once; otherwise the loop is strip-mined by `tile`
  (default: the block width) and each tile is loaded cooperatively between barriers:

      for (kk = 0; kk < p; kk += T) {
        if (tid < T && kk + tid < p && <the block has a thread with work>)
          C_sh[tid] = C[(kk + tid) + j*p];
        __syncthreads();
        if (i < m) for (k = kk; k < min(kk + T, p); k++) A_acc += B[i + k*m] * C_sh[k - kk];
        __syncthreads();
      }

- *halo* reads (option `halo`): neighbouring threads read overlapping windows, like conv2d's
  `in[(i + u) + (j + v) * pn]` (a tile of B + t - 1 elements per row v, (B + t - 1) x t
  elements, or (Bx + t - 1) x (By + t - 1) with 2D blocks) or a 5-point stencil (a 2D tile
  plus a halo of one). The window's loops need constant trip counts (specialise the sizes), or
  the option `max_extent`, which bounds them and checks the bound at run time (falling back to
  the uncached code).

The tile is cached at the outermost point where its shape is static and it fits the
`shared_budget`; the loads of the group become reads of the tile. Threads without work (out of
range, killed by the guards of the vanilla kernel) still take part in the loads and barriers:
the guards are split around the barriers (`caching/uniform_control.py`), and every element
loaded is one the original kernel reads, so nothing is read out of bounds.

`remarks=true` prints, for every array considered, what was cached or why not.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import gpu, memref, scf
from xdsl.dialects.builtin import MemRefType, ModuleOp, NoneAttr, UnitAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
from xdsl.utils.exceptions import DiagnosticException

from autogpu.passes.analysis.linear import constant_int
from autogpu.passes.caching.facts import (
    GPU_ID_OPS,
    KernelFacts,
    ancestors,
    argument_name,
    loop_name,
)
from autogpu.passes.caching.footprint import (
    AccessAnalysis,
    Group,
    NO_REUSE,
    STRUCTURE,
    Refused,
    element_bytes,
    reads_and_elements,
    unbounded_vars,
)
from autogpu.passes.caching.materialize import NotAvailable
from autogpu.passes.caching.tiling import (
    BARRIER_ROLE,
    SKIP,
    cache_group,
    shared_bytes,
    strip_mine,
)
from autogpu.passes.caching.uniform_control import (
    COLLECTIVE,
    NotUniform,
    distribute_guards,
    uniformize_thread_loops,
)
from autogpu.passes.caching.versioning import version_on_extents
from autogpu.passes.utils.errors import PassError


DEFAULT_BUDGET = 48 * 1024


@dataclass(frozen=True)
class GpuCacheSharedPass(ModulePass):
    """Cache global reads shared by the threads of a block in `__shared__` tiles."""

    name = "gpu-cache-shared"

    thread_invariant: bool = True
    """Cache reads whose index does not depend on the thread but walks a serial loop (the
    paper's mm_1 -> mm_2), strip-mining the loop by `tile` when its trip count is unknown."""

    halo: bool = True
    """Cache reads that neighbouring threads share (stencil and convolution windows)."""

    arrays: tuple[str, ...] = ()
    """C names of the arrays that may be cached; empty: all."""

    tile: int = 0
    """Iterations per tile when strip-mining; 0: the block width (threads along x)."""

    shared_budget: int = DEFAULT_BUDGET
    """Bytes of `__shared__` memory a kernel may use in all; tiles beyond it are not made."""

    max_extent: int = 0
    """Largest trip count assumed for window loops whose trip count is not a constant
    (checked at run time, with the uncached code as fallback); 0: constants only."""

    assume_no_alias: bool = False
    """Assume distinct pointer parameters never overlap, as if all were `restrict` (the paper's
    assumption): an array is cached only if nothing the kernel writes may alias it."""

    remarks: bool = False
    """Print what was cached, and why the other arrays were not, on stderr."""

    def __post_init__(self) -> None:
        if self.tile < 0:
            raise PassError(f"gpu-cache-shared: tile must be at least 1 (or 0), got {self.tile}")
        if self.shared_budget < 0:
            raise PassError(
                f"gpu-cache-shared: shared_budget must be at least 0 bytes, got "
                f"{self.shared_budget}"
            )
        if self.max_extent < 0:
            raise PassError(
                f"gpu-cache-shared: max_extent must be at least 0, got {self.max_extent}"
            )
        for name in self.arrays:
            if not name.isidentifier():
                raise PassError(
                    f"gpu-cache-shared: arrays must list C parameter names, got '{name}'"
                )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        kernels = [k for k in op.walk() if isinstance(k, gpu.FuncOp) and k.kernel is not None]
        if self.arrays:
            known = {argument_name(k, arg) for k in kernels for arg in k.body.block.args}
            for name in self.arrays:
                if name not in known:
                    raise PassError(
                        f"gpu-cache-shared: arrays={name}: no kernel has a parameter '{name}'"
                    )
        changed = False
        for kernel in kernels:
            if kernel.known_block_size is None or not kernel.body.blocks:
                continue
            changed |= _KernelCaching(self, kernel).run()
        for nested in op.walk():
            for tag in (SKIP, COLLECTIVE, BARRIER_ROLE):
                nested.attributes.pop(tag, None)
        if changed:  # fold what the rewrites leave (`if (true)`, repeated index arithmetic)
            CanonicalizePass().apply(ctx, op)
            CommonSubexpressionElimination().apply(ctx, op)


class _KernelCaching:
    """Caches the groups of one kernel, one at a time, each on a copy that replaces the
    kernel only when every step succeeded."""

    def __init__(self, options: GpuCacheSharedPass, kernel: gpu.FuncOp):
        self.options = options
        self.kernel = kernel
        self.reported: set[tuple[str, str]] = set()

    def run(self) -> bool:
        """Caches what it can; returns whether the kernel changed."""
        changed = False
        if KernelFacts(self.kernel).threads == 1:
            return changed
        while (load := self._next_candidate()) is not None:
            facts = KernelFacts(self.kernel)
            name = facts.array_name(load.memref)
            outcome = self._try(load, facts)
            if isinstance(outcome, tuple):
                new_kernel, message = outcome
                Rewriter.replace_op(self.kernel, new_kernel)
                self.kernel = new_kernel
                changed = True
                self._remark(name, message)
            else:
                load.attributes[SKIP] = UnitAttr()
                self._remark(name, f"not cached: {outcome}")
        return changed

    def _remark(self, array: str, message: str) -> None:
        if not self.options.remarks or (array, message) in self.reported:
            return
        self.reported.add((array, message))
        print(
            f"remark: gpu-cache-shared: @{self.kernel.sym_name.data}: '{array}' {message}",
            file=sys.stderr,
        )

    def _next_candidate(self) -> memref.LoadOp | None:
        facts = KernelFacts(self.kernel)
        for op in self.kernel.walk():
            if not isinstance(op, memref.LoadOp) or SKIP in op.attributes:
                continue
            array = op.memref
            if not facts.is_argument(array):
                continue
            assert isinstance(array.type, MemRefType)
            if not isinstance(array.type.memory_space, NoneAttr):
                continue
            if self.options.arrays and facts.array_name(array) not in self.options.arrays:
                continue
            return op
        return None

    # -- one attempt ---------------------------------------------------------------------

    def _try(self, load: memref.LoadOp, facts: KernelFacts) -> tuple[gpu.FuncOp, str] | str:
        if (why := self._written(load.memref, facts)) is not None:
            return why
        reasons: list[Refused] = []
        position = _position(self.kernel, load)
        anchors = _anchor_count(self.kernel, load)
        for depth in range(anchors):
            work, facts, work_load = self._prepared(position)
            p_op = _p_op_at(work_load, depth, facts)
            if p_op is None:
                continue
            try:
                group = self._group(facts, p_op, work_load, allow_check=True)
                return self._apply(work, facts, group, p_op, None)
            except Refused as refused:
                reasons.append(refused)
            except (NotUniform, NotAvailable) as failure:
                reasons.append(Refused(_describe(failure), STRUCTURE))
        if self.options.thread_invariant:
            outcome = self._strip_mined(position, reasons)
            if outcome is not None:
                return outcome
        return _best_reason(reasons)

    def _strip_mined(
        self, position: int, reasons: list[Refused]
    ) -> tuple[gpu.FuncOp, str] | None:
        """Paper-style caching: strip-mine a serial loop the index walks, cache one tile."""
        work, facts, work_load = self._prepared(position)
        loops = [
            (i, op)
            for i, op in enumerate(ancestors(work_load, work))
            if isinstance(op, scf.ForOp) and _walks(facts, work_load, op)
        ]
        for i, _ in loops:
            work, facts, work_load = self._prepared(position)
            loop = ancestors(work_load, work)[i]
            assert isinstance(loop, scf.ForOp)
            name = loop_name(loop)
            tile = self.options.tile or facts.block[0]
            _, inner = strip_mine(loop, tile)
            facts = KernelFacts(work)
            try:
                group = self._group(facts, inner, work_load, allow_check=False)
                if group.halo:
                    raise Refused(
                        "strip-mining only serves reads that are not halo windows", STRUCTURE
                    )
                return self._apply(work, facts, group, inner, (name, tile))
            except Refused as refused:
                reasons.append(refused)
            except (NotUniform, NotAvailable) as failure:
                reasons.append(Refused(_describe(failure), STRUCTURE))
        return None

    def _prepared(self, position: int) -> tuple[gpu.FuncOp, KernelFacts, memref.LoadOp]:
        """A copy of the kernel with its thread loops made uniform, and the load in it."""
        work = self.kernel.clone()
        work_load = list(work.walk())[position]
        assert isinstance(work_load, memref.LoadOp)
        uniformize_thread_loops(KernelFacts(work))
        return work, KernelFacts(work), work_load

    def _group(
        self, facts: KernelFacts, p_op: Operation, load: memref.LoadOp, allow_check: bool
    ) -> Group:
        options = self.options
        analysis = AccessAnalysis(facts, p_op, options.max_extent if allow_check else 0)
        loads = [
            op
            for op in p_op.walk()
            if isinstance(op, memref.LoadOp)
            and op.memref is load.memref
            and SKIP not in op.attributes
        ]
        group = analysis.group(load, loads)
        invariant = not group.halo
        if invariant and not options.thread_invariant:
            raise Refused("thread-invariant caching is disabled (thread_invariant=false)")
        if not invariant and not options.halo:
            raise Refused("halo caching is disabled (halo=false)")
        reads, elements = reads_and_elements(group)
        if reads <= elements:
            raise Refused("no reuse: the block reads each element of the tile only once", NO_REUSE)
        moving = [v for a in group.accesses for p, v in enumerate(a.vars) if p in a.coefficients]
        if invariant and not any(v.loop is not None for v in moving):
            raise Refused("no reuse worth a tile: no loop walks the elements shared", NO_REUSE)
        if unbounded := unbounded_vars(group):
            raise Refused(
                f"the trip count of the loop over {unbounded[0].name} is not a compile-time "
                "constant (specialise the sizes, or give max_extent)"
            )
        needed = group.elements * element_bytes(group.array) + shared_bytes(facts.kernel)
        if needed > options.shared_budget:
            raise Refused(
                f"a tile of {group.elements} elements needs {needed} bytes of shared memory "
                f"in all, over the budget of {options.shared_budget}"
            )
        return group

    def _apply(
        self,
        work: gpu.FuncOp,
        facts: KernelFacts,
        group: Group,
        p_op: Operation,
        strip: tuple[str, int] | None,
    ) -> tuple[gpu.FuncOp, str]:
        name = facts.array_name(group.array)
        in_loop = any(isinstance(a, scf.ForOp) for a in ancestors(p_op, work))
        if group.checked_vars:
            p_op = version_on_extents(facts, group, p_op, SKIP)
        shared = cache_group(facts, group, p_op, name, in_loop)
        distribute_guards(KernelFacts(work))
        try:
            work.verify()
        except DiagnosticException as e:
            raise PassError(f"internal error: gpu-cache-shared produced invalid IR: {e}")
        shape = "x".join(str(d.extent) for d in group.dims) or "1"
        where = (
            f"a tile of the loop over {strip[0]} strip-mined by {strip[1]}"
            if strip is not None
            else ("halo window" if group.halo else "whole footprint")
        )
        kind = "halo" if group.halo else "thread-invariant"
        return work, (
            f"cached ({kind}) in __shared__ {shared.memref.name_hint}[{group.elements}] "
            f"(extents {shape}, {len(group.accesses)} load(s), {where})"
        )

    def _written(self, array: SSAValue, facts: KernelFacts) -> str | None:
        """Why `array` cannot be cached because the kernel may write it, or None."""
        for op in self.kernel.walk():
            target: SSAValue | None = None
            if isinstance(op, (memref.StoreOp, memref.AtomicRMWOp)):
                target = op.memref
            elif _touches_unknown_memory(op):
                return f"the kernel contains '{op.name}', which may write it"
            if target is None:
                continue
            if target is array:
                return "the kernel writes it"
            if self._may_alias(target, array, facts):
                return (
                    f"the kernel writes '{facts.array_name(target)}', which may alias it "
                    "(mark the pointers restrict, or set assume_no_alias)"
                )
        return None

    def _may_alias(self, written: SSAValue, array: SSAValue, facts: KernelFacts) -> bool:
        if not facts.is_argument(written):
            return False  # locals, shared memory and device globals are not the user's arrays
        if self.options.assume_no_alias:
            return False
        return not (facts.is_restrict(written) or facts.is_restrict(array))


def _touches_unknown_memory(op: Operation) -> bool:
    from xdsl.traits import RecursiveMemoryEffect, is_side_effect_free

    if isinstance(
        op,
        (memref.LoadOp, memref.StoreOp, memref.AtomicRMWOp, memref.AllocaOp, gpu.BarrierOp,
         gpu.ReturnOp, gpu.FuncOp, *GPU_ID_OPS),
    ):  # fmt: skip
        return False
    return not (op.has_trait(RecursiveMemoryEffect) or is_side_effect_free(op))


def _position(kernel: gpu.FuncOp, op: Operation) -> int:
    for i, candidate in enumerate(kernel.walk()):
        if candidate is op:
            return i
    raise AssertionError("op not in kernel")


def _anchor_count(kernel: gpu.FuncOp, load: Operation) -> int:
    return len(ancestors(load, kernel)) + 1


def _p_op_at(load: Operation, depth: int, facts: KernelFacts) -> Operation | None:
    """The op before which a tile at anchor number `depth` (0: the kernel, then the
    uniform loops and `if`s enclosing the load, outermost first) is loaded: the anchor's
    child on the way to the load; None when that anchor is not one."""
    chain = list(reversed(ancestors(load, facts.kernel)))
    anchors: list[Operation | None] = [None]
    for op in chain:
        if isinstance(op, scf.ForOp) and facts.is_uniform_loop(op):
            anchors.append(op)
        elif isinstance(op, scf.IfOp) and facts.is_uniform(op.cond) and not op.results:
            anchors.append(op)
    if depth >= len(anchors):
        return None
    anchor = anchors[depth]
    below = chain if anchor is None else chain[chain.index(anchor) + 1 :]
    if not below or not isinstance(below[0], (scf.ForOp, scf.IfOp)):
        return None
    return below[0]


def _walks(facts: KernelFacts, load: memref.LoadOp, loop: scf.ForOp) -> bool:
    """Whether the index of `load` moves with the induction variable of `loop`."""
    step = constant_int(loop.step)
    if not facts.is_uniform_loop(loop) or step is None or step <= 0 or len(load.indices) != 1:
        return False
    poly = facts.polys.index_poly(load.indices[0])
    iv = facts.polys.atom_id(loop.body.block.args[0])
    if iv not in poly.atom_ids():
        return False
    bounds = facts.polys.poly(loop.lb).plus(facts.polys.poly(loop.step))
    return not any(
        isinstance(bounds.atoms[a].owner, (gpu.BlockIdOp, gpu.GridDimOp))
        for a in bounds.atom_ids()
    )


def _describe(failure: Exception) -> str:
    if isinstance(failure, NotAvailable):
        return "a value the tile needs is not known where the tile would be loaded"
    return str(failure)


def _best_reason(reasons: list[Refused]) -> str:
    """The most telling refusal (the innermost anchor's among equals)."""
    if not reasons:
        return "no point of the kernel where a tile could be loaded"
    best = max(r.rank for r in reasons)
    return str([r for r in reasons if r.rank == best][-1])
