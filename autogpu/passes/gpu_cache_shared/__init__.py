"""`gpu-cache-shared`: cache global reads that threads of a block share in `__shared__` memory
(AutoGPU 2.3.3, the step from mm_1 to mm_2), generalised to stencil and convolution windows.

Runs on the GPU level (after `convert-agpu-to-gpu`/`autogpu-vanilla`): shared memory, barriers,
thread indices and the block shape (`gpu.known_block_size`) only exist there, and the thread
guards that must be restructured around barriers are the lowering's.

A group of loads of a read-only array `G` (never written by the kernel, nor through a pointer
that may alias it) is cached when the threads of a block read its elements more than once
(see `gpu_cache_shared/footprint.py` for the tile model):

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
the guards are split around the barriers (`gpu_cache_shared/uniform_control.py`), and every element
loaded is one the original kernel reads, so nothing is read out of bounds.

- *block tiles of both operands* (issue #14): with 2D blocks and register tiles (the parallel
  loops unroll-and-jammed by `agpu-unroll-parallel`, each thread owning tm x tn outputs), a
  matrix product's `B[i + k*m]` (i on x) and `C[k + j*p]` (j on y) are each shared by a
  row or column of threads and walk k: the k loop is strip-mined by `tile` (bk) once, and each
  operand gets a BM x bk or bk x BN tile loaded cooperatively per k-tile between the same
  barriers, for any layout the index polynomials prove (`A[i*p + k]`, `A[k*m + i]`, transposed
  operands). Strip-mining is refused only for a *window along the loop* (a thread index and
  the loop's variable moving one dimension of the tile, a convolution's `in[i + k]`), where a
  tile would cut the window. The tile is loaded with the array's stride-1 dimension fastest
  (coalesced), and stored transposed when threadIdx.x reads it along another dimension
  (`B[j*p + k]` with j on x), so that a warp's reads fall into neighbouring banks.
  The register tile itself needs no pass of its own: the jammed replicas read each operand
  element of a k step once (cse merges their loads), so a thread's tm + tn fragment values
  feed its tm x tn products from registers. This is an extension of the footprint model
  rather than a separate GEMM pass because the same analysis (index polynomials, exact
  footprints, guard splitting around barriers) already decides every tile; only the rule
  that forbade strip-mining shifted replicas, and the fixed shared layout, stood in the way.

Loads whose offsets differ by constants or whole rows join one tile: the taps of a stencil, the
replicas of a parallel loop unrolled and jammed by the lowering (the tile covers the block's
U*B elements), the copies of an unrolled serial loop. The partial-tile path of an unrolled
loop (threads a guard excludes) is left uncached, so that full blocks never wait at its
barriers. The pass runs on a copy of each kernel and replaces it only when something was
cached.

`remarks=true` prints, for every array considered, what was cached or why not.

The pieces, in this package:

- `facts`: what a kernel knows about its threads: block shape, block-uniform values, guards,
  polynomial index forms with the thread indices as atoms, ops that may run speculatively;
- `materialize`: recomputing block-uniform values (and polynomials) at another point;
- `uniform_control`: making barriers reachable by every thread of the block (thread loops
  turned into uniform loops, thread guards distributed around barriers);
- `footprint`: which elements the threads of a block read through a group of loads, as a box
  of offsets (the tile, with its halo);
- `tiling`: strip-mining a serial loop, and emitting the cooperative load and the shared reads;
- `versioning`: a cached and an uncached version of a kernel where extents decide, and the
  guard-free versions of whole tiles (`full_tiles`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import gpu, memref, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, NoneAttr, UnitAttr, i64
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import RecursiveMemoryEffect
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.transforms.dead_code_elimination import region_dce
from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.hints import isa

from autogpu.passes.analysis.integers import constant_int
from autogpu.passes.gpu_cache_shared.facts import (
    GPU_ID_OPS,
    KernelFacts,
    ancestors,
    argument_name,
    has_no_memory_effects,
    loop_name,
)
from autogpu.passes.gpu_cache_shared.footprint import (
    EXCLUDED_PATH,
    NO_REUSE,
    STRUCTURE,
    AccessAnalysis,
    Group,
    Refused,
    element_bytes,
    excluded_path,
    pad_transposed,
    reads_and_elements,
    unbounded_vars,
    window_along,
)
from autogpu.passes.gpu_cache_shared.materialize import NotAvailable
from autogpu.passes.gpu_cache_shared.tiling import (
    BARRIER_ROLE,
    SKIP,
    cache_group,
    shared_bytes,
    strip_mine,
)
from autogpu.passes.gpu_cache_shared.uniform_control import (
    COLLECTIVE,
    NotUniform,
    distribute_guards,
    place_barriers_around,
    uniformize_thread_loops,
)
from autogpu.passes.gpu_cache_shared.versioning import (
    TILE_LOOP,
    version_on_extents,
    version_whole_tile_loop,
)
from autogpu.passes.options import (
    DeclaredOptionsPass,
    at_least,
    device_shared,
    one_of_ints,
    option,
)
from autogpu.passes.utils.errors import PassError
from autogpu.target.cuda_limits import SHARED_BYTES_PER_BLOCK


@dataclass(frozen=True)
class GpuCacheSharedPass(DeclaredOptionsPass):
    """Cache global reads shared by the threads of a block in `__shared__` tiles."""

    name = "gpu-cache-shared"

    thread_invariant: bool = option(
        True, doc="Cache reads whose index does not depend on the thread but walks a serial "
        "loop (the paper's mm_1 -> mm_2), strip-mining the loop by `tile` when its trip count "
        "is unknown.")

    halo: bool = option(
        True, doc="Cache reads that neighbouring threads share (stencil and convolution "
        "windows).")

    arrays: tuple[str, ...] = option(
        (), doc="C names of the arrays that may be cached; empty: all.")

    tile: int = option(
        0, doc="Iterations per tile when strip-mining; 0: a block width (threads along x) of "
        "elements, i.e. the block width divided by the loop's step (a loop unrolled by 16 steps "
        "by 16).", check=at_least(0, says="at least 1 (or 0)"))

    shared_budget: int = option(
        SHARED_BYTES_PER_BLOCK, doc="Bytes of `__shared__` memory a kernel may use in all; "
        "tiles beyond it are not made.", check=at_least(0, says="at least 0 bytes"),
        role=device_shared())

    max_extent: int = option(
        0, doc="Largest trip count assumed for window loops whose trip count is not a constant "
        "(checked at run time, with the uncached code as fallback); 0: constants only.",
        check=at_least(0))

    assume_no_alias: bool = option(
        False, doc="Assume distinct pointer parameters never overlap, as if all were `restrict` "
        "(the paper's assumption): an array is cached only if nothing the kernel writes may "
        "alias it.")

    full_tiles: bool = option(
        False, doc="Version every tile on whether it is whole: blocks whose tile lies inside "
        "the problem load it without per-element bounds checks and run the loop over a "
        "strip-mined tile with a constant trip count (unrollable); the ragged edge keeps the "
        "guarded code.")

    copy_width: int = option(
        1, doc="Consecutive elements each thread copies in a whole tile (1, 2 or 4), where the "
        "tile's fastest dimension is the same in the array and in shared memory and its extent "
        "and the tile divide by them: neighbouring accesses that gpu-vectorize makes one "
        "vector access.", check=one_of_ints(1, 2, 4))

    pad: int = option(
        0, doc="Elements added to the row of a tile stored transposed (a multiple of 4 keeps "
        "its rows aligned for vector reads): the copy's stores of one warp, which walk a "
        "column, then spread over more banks.", check=at_least(0))

    remarks: bool = option(
        False, doc="Print what was cached, and why the other arrays were not, on stderr.")

    def __post_init__(self) -> None:
        super().__post_init__()
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
        for kernel in kernels:
            if kernel.known_block_size is None or not kernel.body.blocks:
                continue
            if (cached := _KernelCaching(self, kernel).run()) is not None:
                _tidy(cached)
        for nested in op.walk():
            for tag in (SKIP, COLLECTIVE, BARRIER_ROLE, TILE_LOOP):
                nested.attributes.pop(tag, None)


class _Outcome:
    """Why a load was not cached, and whether the reason holds for its whole array; the
    `similar` loads (the groups it formed) are not tried again either, which keeps the pass
    fast on large unrolled bodies."""

    def __init__(
        self,
        reason: str,
        load: memref.LoadOp,
        whole_array: bool = False,
        similar: list[memref.LoadOp] | None = None,
    ):
        self.reason = reason
        self.load = load
        self.whole_array = whole_array
        self.similar = similar or []


class _Abandon(Exception):
    """A rewrite failed half-way: start the kernel over without the loads of that group."""

    def __init__(self, array: str, origins: list[int], reason: str):
        super().__init__(reason)
        self.array = array
        self.origins = origins


class _KernelCaching:
    """Caches the groups of one kernel, one at a time.

    Works on a copy of the kernel whose thread loops are made uniform (`work`): the analyses
    only read it and decide everything before a group is rewritten, in place. Should a
    rewrite still fail half-way, the work is dropped and the kernel started over without
    that load (copying a large unrolled kernel before every rewrite would cost more). The
    kernel is replaced by the work when something was cached."""

    def __init__(self, options: GpuCacheSharedPass, kernel: gpu.FuncOp):
        self.options = options
        self.kernel = kernel
        self.reported: set[tuple[str, str]] = set()
        self.written: dict[int, str | None] = {}  # by argument position

    def run(self) -> gpu.FuncOp | None:
        """Caches what it can; returns the new kernel (None: the kernel is unchanged)."""
        if KernelFacts(self.kernel).threads == 1:
            return None
        excluded: set[int] = set()
        while True:
            try:
                return self._run_once(excluded)
            except _Abandon as abandon:
                excluded.update(abandon.origins)
                self._remark(abandon.array, f"not cached: {abandon} (rewrite abandoned)")

    def _run_once(self, excluded: set[int]) -> gpu.FuncOp | None:
        work = self.kernel.clone()
        uniformize_thread_loops(KernelFacts(work))
        self._set_work(work)
        self.origin = {load: i for i, load in enumerate(self.loads)}
        for i in excluded:
            self.loads[i].attributes[SKIP] = UnitAttr()
        changed = False
        while (load := self._next_candidate()) is not None:
            name = self.facts.array_name(load.memref)
            outcome = self._try(load)
            if isinstance(outcome, str):
                changed = True
                self._remark(name, outcome)
                continue
            self._remark(name, f"not cached: {outcome.reason}")
            targets = self.loads_of_array[load.memref] if outcome.whole_array else [load]
            for target in [*targets, *outcome.similar]:
                target.attributes[SKIP] = UnitAttr()
        if not changed:
            return None
        if self.options.full_tiles:
            for loop in [op for op in self.work.walk() if TILE_LOOP in op.attributes]:
                assert isinstance(loop, scf.ForOp)
                span = loop.attributes[TILE_LOOP]
                assert isinstance(span, IntegerAttr)
                version_whole_tile_loop(loop, span.value.data)
        try:
            self.work.verify()
        except DiagnosticException as e:
            raise PassError(f"internal error: gpu-cache-shared produced invalid IR: {e}") from e
        Rewriter.replace_op(self.kernel, self.work)
        return self.work

    def _set_work(self, work: gpu.FuncOp) -> None:
        """A new version of the work: fresh facts and index of its loads."""
        self.work = work
        self.facts = KernelFacts(work)
        self.shared_in_use = shared_bytes(work)
        self.loads = [op for op in work.walk() if isinstance(op, memref.LoadOp)]
        self.loads_of_array: dict[SSAValue, list[memref.LoadOp]] = {}
        for load in self.loads:
            self.loads_of_array.setdefault(load.memref, []).append(load)
        self.cursor = 0

    def _remark(self, array: str, message: str) -> None:
        if not self.options.remarks or (array, message) in self.reported:
            return
        self.reported.add((array, message))
        print(
            f"remark: gpu-cache-shared: @{self.kernel.sym_name.data}: '{array}' {message}",
            file=sys.stderr,
        )

    def _next_candidate(self) -> memref.LoadOp | None:
        facts = self.facts
        while self.cursor < len(self.loads):
            op = self.loads[self.cursor]
            self.cursor += 1
            if SKIP in op.attributes or op.parent is None:
                continue
            array = op.memref
            if not facts.is_argument(array):
                continue
            assert isa(array.type, MemRefType)
            if not isinstance(array.type.memory_space, NoneAttr):
                continue
            if self.options.arrays and facts.array_name(array) not in self.options.arrays:
                continue
            return op
        return None

    # -- one attempt ---------------------------------------------------------------------

    def _try(self, load: memref.LoadOp) -> str | _Outcome:
        """Caches the group of `load` at the outermost anchor where it can, else
        strip-mined; returns the remark of success, or why not."""
        array = load.memref
        assert isinstance(array, BlockArgument)
        if array.index not in self.written:
            self.written[array.index] = self._written(array)
        if (why := self.written[array.index]) is not None:
            return _Outcome(why, load, whole_array=True)
        if excluded_path(load, self.facts):
            return _Outcome(EXCLUDED_PATH, load, similar=self._excluded_loads())
        reasons: list[Refused] = []
        for depth in range(len(ancestors(load, self.work)) + 1):
            p_op = _p_op_at(load, depth, self.facts)
            if p_op is None:
                continue
            try:
                group = self._group(p_op, load, allow_check=True)
            except Refused as refused:
                reasons.append(refused)
                continue
            return self._apply(load, group, p_op, None)
        if self.options.thread_invariant:
            for loop, tile in self._strip_candidates(load, reasons):
                name = loop_name(loop)
                _, inner = strip_mine(loop, tile)
                step = constant_int(inner.step) or 1
                inner.attributes[TILE_LOOP] = IntegerAttr(tile * step, i64)
                self.facts = KernelFacts(self.work)
                try:
                    group = self._group(inner, load, allow_check=False)
                except (Refused, NotAvailable) as failure:  # the work has changed: start over
                    name = self.facts.array_name(load.memref)
                    raise _Abandon(name, self._origins([load]), str(failure)) from failure
                return self._apply(load, group, inner, (name, tile))
        members = [m for r in reasons for m in r.members]
        return _Outcome(_best_reason(reasons), load, similar=members)

    def _origins(self, loads: list[memref.LoadOp]) -> list[int]:
        """Where `loads` are in a fresh work (to leave them out when starting over)."""
        return [self.origin[load] for load in loads if load in self.origin]

    def _excluded_loads(self) -> list[memref.LoadOp]:
        return [op for op in self.loads if excluded_path(op, self.facts)]

    def _strip_candidates(self, load: memref.LoadOp, reasons: list[Refused]):
        """Paper-style caching: the serial loops the index walks (innermost first) whose
        tiles would be cached: not a halo, reuse, within the budget (judged on the group over
        the whole loop, with the tile's trip count)."""
        for loop in ancestors(load, self.work):
            if not isinstance(loop, scf.ForOp) or not _walks(self.facts, load, loop):
                continue
            tile = self.options.tile or _default_tile(loop, self.facts)
            try:
                if not place_barriers_around(self.facts, loop):
                    raise Refused("no place for barriers around the loop", STRUCTURE)
                analysis = AccessAnalysis(self.facts, loop, 0, tiles={loop: tile})
                group = analysis.group(load, self._loads_below(loop, load.memref))
                if window_along(group, loop):
                    raise Refused(
                        "strip-mining only serves reads that are not windows along the loop",
                        STRUCTURE,
                    )
                self._check(group)
            except Refused as refused:
                reasons.append(refused)
                continue
            yield loop, tile
            return

    def _loads_below(self, op: Operation, array: SSAValue) -> list[memref.LoadOp]:
        """The loads of `array` in `op` not excluded from caching."""
        return [
            nested
            for nested in self.loads_of_array.get(array, [])
            if SKIP not in nested.attributes
            and nested.parent is not None
            and op.is_ancestor(nested)
        ]

    def _group(self, p_op: Operation, load: memref.LoadOp, allow_check: bool) -> Group:
        """The group of `load` at P (before `p_op`), checked against the options; its
        members are attached to a refusal."""
        options = self.options
        if not place_barriers_around(self.facts, p_op):
            raise Refused("no place for barriers around the tile", STRUCTURE)
        analysis = AccessAnalysis(self.facts, p_op, options.max_extent if allow_check else 0)
        group = analysis.group(load, self._loads_below(p_op, load.memref))
        pad_transposed(group, options.pad)
        try:
            self._check(group)
        except Refused as refused:
            refused.members = [access.load for access in group.accesses]
            raise
        return group

    def _check(self, group: Group) -> None:
        """Refuses a group the options exclude, without reuse, not static, or too large."""
        options = self.options
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
        needed = group.storage * element_bytes(group.array) + self.shared_in_use
        if needed > options.shared_budget:
            raise Refused(
                f"a tile of {group.storage} elements needs {needed} bytes of shared memory "
                f"in all, over the budget of {options.shared_budget}"
            )

    def _apply(
        self,
        load: memref.LoadOp,
        group: Group,
        p_op: Operation,
        strip: tuple[str, int] | None,
    ) -> str:
        """Caches `group` at P (before `p_op`) in the work, makes its barriers uniform;
        returns the remark."""
        facts = self.facts
        name = facts.array_name(group.array)
        in_loop = any(isinstance(a, scf.ForOp) for a in ancestors(p_op, self.work))
        try:
            if group.checked_vars:
                p_op = version_on_extents(facts, group, p_op, SKIP)
            shared = cache_group(facts, group, p_op, name, in_loop, self.options.full_tiles,
                                 self.options.copy_width)
            distribute_guards(KernelFacts(self.work))
        except (NotUniform, NotAvailable) as failure:
            members = [load, *(access.load for access in group.accesses)]
            raise _Abandon(name, self._origins(members), _describe(failure)) from failure
        self._set_work(self.work)
        shape = "x".join(str(d.extent) for d in group.dims) or "1"
        where = (
            f"a tile of the loop over {strip[0]} strip-mined by {strip[1]}"
            if strip is not None
            else ("halo window" if group.halo else "whole footprint")
        )
        kind = "halo" if group.halo else "thread-invariant"
        return (
            f"cached ({kind}) in __shared__ {shared.memref.name_hint}[{group.storage}] "
            f"(extents {shape}, {len(group.accesses)} load(s), {where})"
        )

    def _written(self, array: SSAValue) -> str | None:
        """Why `array` cannot be cached because the kernel may write it, or None."""
        facts = self.facts
        for op in self.work.walk():
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


def _default_tile(loop: scf.ForOp, facts: KernelFacts) -> int:
    """Iterations per tile: a block width of elements (of a loop unrolled by 16, 1/16th of
    that many iterations)."""
    step = constant_int(loop.step) or 1
    return max(1, facts.block[0] // step)


def _tidy(kernel: gpu.FuncOp) -> None:
    """Cleans up what the rewrites leave in a kernel: `if (true)` and `if (false)` (decided
    version checks, cooperative loads that need no bound), dead and repeated arithmetic.
    (Cheaper than `canonicalize` on large unrolled kernels.)"""
    for op in list(kernel.walk()):
        if not isinstance(op, scf.IfOp) or op.results:
            continue
        if not kernel.is_ancestor(op):
            continue  # erased with the branch of a decided `if` around it
        decided = constant_int(op.cond)
        if decided is None:
            continue
        region = op.true_region if decided else op.false_region
        if region.blocks:
            block = region.block
            for inner in list(block.ops):
                if not isinstance(inner, scf.YieldOp):
                    inner.detach()
                    Rewriter.insert_op(inner, InsertPoint.before(op))
        Rewriter.erase_op(op)
    region_dce(kernel.body)
    cse(kernel)


def _touches_unknown_memory(op: Operation) -> bool:
    if isinstance(
        op,
        (memref.LoadOp, memref.StoreOp, memref.AtomicRMWOp, memref.AllocaOp, gpu.BarrierOp,
         gpu.ReturnOp, gpu.FuncOp, *GPU_ID_OPS),
    ):  # fmt: skip
        return False
    return not (op.has_trait(RecursiveMemoryEffect) or has_no_memory_effects(op))


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
