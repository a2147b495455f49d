"""`agpu-split-accumulations`: split the serial loop a parallel loop's body accumulates over
across a second parallel dimension (column sums at library speed, issue #12).

A thread per column of `out[j] = sum_i A[i][j]` has only n threads, each walking n rows: too
few to fill a GPU. This pass gives the rows to `walkers` parallel row-walkers as well:

    for j in parallel:                     for j in parallel:           // a kernel of its own
      s = init                               out[j] = init              // (or out[j] op= init)
      for (i = lb; i < ub; i += st)    ==>   for w in parallel [0, walkers):      // on y
        s = s op e(i)                          for j in parallel:                 // on x
      out[j] = s     (or out[j] op= s)           p = identity(op)
                                                 for (i = lb + w*st; i < ub; i += walkers*st)
                                                   p = p op e(i)
                                                 atomic out[j] op= p

so `out[j]` ends as `init op e(lb) op ... op e(last)` (or that combined into its old value) in
some order: exact for the integer operators (wrapping `+ *`, `& | ^`, min/max) and for
floating-point min/max; floating-point `+`/`*` reassociate as an OpenMP `reduction` clause
lets them (rounding may differ from the serial loop). The identity keeps an empty share exact
(`-0.0` for a float `+`: `x + -0.0` is `x`). The walkers step the loop in 64 bits, so
`i + walkers * st` never wraps a 32-bit counter.

What qualifies (anything else is left as it is): an outermost `agpu.parallel_for` without
reductions or parallel loops inside, whose body is side-effect-free ops plus
  - a rank-0 slot `s` (as `agpu-stage-accumulations` leaves an accumulated element, or a C
    local) stored once before an `scf.for` and updated in it by exactly `s = s op e` (one load
    and one store of `s` at the loop's top level, `op` among the ops below, `e` not reading `s`);
  - that loop only loading memory (no stores, calls or atomics), and nothing it loads may
    alias `out` (`analysis.aliasing`; `assume_no_alias` as in the other passes);
  - after the loop, `s` loaded once and stored as `out[idx] = s` or `out[idx] = out[idx] op s`
    (the same `op`, the same index values).

Off by default (walkers = 0): it is the tuner's choice (`split_walkers` of `convert-agpu-to-gpu`,
which runs this transformation unless `deterministic` is set; the unsplit kernel is
deterministic, and a deterministic split is not built).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, MemRefType, ModuleOp, i64
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import RecursiveMemoryEffect
from xdsl.utils.hints import isa

from autogpu.dialects.agpu import ParallelForOp, ReductionKind, YieldOp
from autogpu.passes.analysis.aliasing import Access, may_alias
from autogpu.passes.analysis.loops import inside_parallel_loop
from autogpu.passes.convert_agpu_to_gpu.reductions import ATOMIC_RMW_KIND, identity
from autogpu.passes.options import DeclaredOptionsPass, at_least, option
from autogpu.passes.utils.slices import is_pure

_COMBINERS: dict[type[Operation], tuple[ReductionKind, str]] = {
    arith.AddfOp: (ReductionKind.ADD, "addf"),
    arith.MulfOp: (ReductionKind.MUL, "mulf"),
    arith.MinnumfOp: (ReductionKind.MIN, "minnumf"),
    arith.MaxnumfOp: (ReductionKind.MAX, "maxnumf"),
    arith.AddiOp: (ReductionKind.ADD, "addi"),
    arith.MuliOp: (ReductionKind.MUL, "muli"),
    arith.MinSIOp: (ReductionKind.MIN, "mins"),
    arith.MaxSIOp: (ReductionKind.MAX, "maxs"),
    arith.MinUIOp: (ReductionKind.UMIN, "minu"),
    arith.MaxUIOp: (ReductionKind.UMAX, "maxu"),
    arith.AndIOp: (ReductionKind.AND, "andi"),
    arith.OrIOp: (ReductionKind.OR, "ori"),
    arith.XOrIOp: (ReductionKind.XOR, "xori"),
}
"""The associative and commutative updates (OpenMP's reduction operators on one type) and the
kind of the atomic combining a walker's share into the output."""

@dataclass(frozen=True)
class Accumulation:
    """One parallel loop that qualifies, and the ops the split rewrites."""

    loop: ParallelForOp
    serial: scf.ForOp
    initial_store: memref.StoreOp  # s = init
    update: Operation  # s op e, in the serial loop
    final_store: memref.StoreOp  # out[idx] = s (or = out[idx] op s)
    final_load: memref.LoadOp  # the load of s after the loop
    old_value: memref.LoadOp | None  # out[idx] of the `op=` form, or s's start when staged
    staged: bool  # s starts as out[idx] (agpu-stage-accumulations): no initialising loop
    atomic_kind: str
    kind: ReductionKind


def find_accumulation(loop: ParallelForOp, assume_no_alias: bool) -> Accumulation | None:
    """The split `loop` qualifies for (module docstring), or None."""
    if loop.reduction_vars or any(isinstance(o, ParallelForOp) for o in loop.body.walk()):
        return None
    body = loop.body.block
    blocks = [body]
    guards = [o for o in body.ops if isinstance(o, scf.IfOp)]
    if len(guards) == 1 and not guards[0].results and not guards[0].false_region.blocks:
        blocks.append(guards[0].true_region.block)  # agpu-stage-accumulations' `if (lb < ub)`
    for block in blocks:
        for serial in block.ops:
            if isinstance(serial, scf.ForOp) and not serial.results:
                found = _accumulation(loop, block, serial, assume_no_alias)
                if found is not None:
                    return found
    return None


def _accumulation(loop: ParallelForOp, body: Block, serial: scf.ForOp,
                  assume_no_alias: bool) -> Accumulation | None:
    """`body` is the loop's body or the body of the guard around the serial loop."""
    inner = _accesses(serial)
    if inner is None:
        return None
    stores = [a.op for a in inner if isinstance(a.op, memref.StoreOp)]
    if len(stores) != 1:
        return None
    update_store = stores[0]
    slot = update_store.memref
    if (not isinstance(slot.owner, memref.AllocaOp)
            or not loop.is_ancestor(slot.owner)
            or update_store.parent_block() is not serial.body.block):
        return None
    update = update_store.value.owner
    slot_loads = [a.op for a in inner if a.memref is slot and a.op is not update_store]
    if (not isinstance(update, Operation) or update.parent_block() is not serial.body.block
            or update.results[0].uses.get_length() != 1 or not slot_loads
            or any(load.parent_block() is not serial.body.block for load in slot_loads)):
        return None
    combiner = _combiner(update, {load.results[0] for load in slot_loads})
    if combiner is None:
        return None
    outside = [use.operation for use in slot.uses if not serial.is_ancestor(use.operation)]
    initial = [o for o in outside if isinstance(o, memref.StoreOp)]
    finals = [o for o in outside if isinstance(o, memref.LoadOp)]
    if len(initial) != 1 or len(finals) != 1 or len(outside) != 2:
        return None
    initial_store, final_load = initial[0], finals[0]
    if (initial_store.parent_block() is not body or final_load.parent_block() is not body
            or not initial_store.is_before_in_block(serial)
            or not serial.is_before_in_block(final_load)):
        return None
    final = _final_store(final_load, type(update))
    if final is None:
        return None
    final_store, old_value = final
    out = final_store.memref
    if any(may_alias(a.memref, out, assume_no_alias) for a in inner if a.memref is not slot):
        return None
    loaded = initial_store.value.owner
    if (old_value is None and isinstance(loaded, memref.LoadOp) and loaded.memref is out
            and loaded.parent_block() is body and loaded.res.uses.get_length() == 1
            and all(a is b for a, b in zip(loaded.indices, final_store.indices, strict=True))):
        old_value = loaded  # the staged `out[idx] op= e`: s starts as out[idx]
    staged = old_value is loaded
    allowed = {slot.owner, initial_store, serial, final_load, final_store, old_value,
               body.last_op, loop.body.block.last_op}
    for block in {body, loop.body.block}:
        for op in block.ops:
            if op not in allowed and not (op.regions and body.parent_op() is op) and (
                    op.regions or not is_pure(op)):
                return None
    kind, atomic = combiner
    return Accumulation(loop, serial, initial_store, update, final_store, final_load, old_value,
                        staged, atomic, kind)


_SELECTED: dict[str, tuple[ReductionKind, str]] = {
    "sgt": (ReductionKind.MAX, "maxs"), "sge": (ReductionKind.MAX, "maxs"),
    "slt": (ReductionKind.MIN, "mins"), "sle": (ReductionKind.MIN, "mins"),
    "ugt": (ReductionKind.UMAX, "maxu"), "uge": (ReductionKind.UMAX, "maxu"),
    "ult": (ReductionKind.UMIN, "minu"), "ule": (ReductionKind.UMIN, "minu"),
}
"""`a pred b ? a : b` on integers: the min/max it computes (ties pick equal values)."""
_SWAPPED = {"maxs": (ReductionKind.MIN, "mins"), "mins": (ReductionKind.MAX, "maxs"),
            "maxu": (ReductionKind.UMIN, "minu"), "minu": (ReductionKind.UMAX, "maxu")}


def _combiner(update: Operation, current: set[SSAValue]) -> tuple[ReductionKind, str] | None:
    """The reduction `update` computes from the accumulator's value (the loads `current` of
    it) and a value not read from it: an associative op of `_COMBINERS`, or an integer
    `s > e ? s : e` (any comparison and order of the operands); None for anything else."""
    uses = {use.operation for value in current for use in value.uses}

    def token(value: SSAValue) -> object:
        return "s" if value in current else value

    if type(update) in _COMBINERS:
        tokens = [token(v) for v in update.operands]
        if uses != {update} or tokens.count("s") != 1:
            return None
        return _COMBINERS[type(update)]
    if not isinstance(update, arith.SelectOp):
        return None
    compare = update.cond.owner
    if not isinstance(compare, arith.CmpiOp) or uses != {update, compare}:
        return None
    chosen = (token(update.lhs), token(update.rhs))
    compared = (token(compare.lhs), token(compare.rhs))
    if "s" not in chosen or set(chosen) != set(compared) or chosen[0] == chosen[1]:
        return None
    if compare.results[0].uses.get_length() != 1:
        return None
    predicate = compare.predicate.value.data
    found = _SELECTED.get(arith.CMPI_COMPARISON_OPERATIONS[predicate])
    if found is None:
        return None
    return found if chosen == compared else _SWAPPED[found[1]]


def _accesses(serial: scf.ForOp) -> list[Access] | None:
    """The loads and stores in `serial`, or None if some other op may touch memory (the
    lowering's notion of pure ops: `slices.is_pure`)."""
    accesses: list[Access] = []
    for op in serial.walk():
        if isinstance(op, (memref.LoadOp, memref.StoreOp)):
            accesses.append(Access(op))
        elif not (op.has_trait(RecursiveMemoryEffect) or is_pure(op)):
            return None
    return accesses


def _final_store(final_load: memref.LoadOp, combiner: type[Operation]
                 ) -> tuple[memref.StoreOp, memref.LoadOp | None] | None:
    """`out[idx] = s` or `out[idx] = out[idx] op s` after the loop (same op as the update)."""
    uses = list(final_load.res.uses)
    if len(uses) != 1:
        return None
    user = uses[0].operation
    body = final_load.parent_block()
    if isinstance(user, memref.StoreOp) and user.value is final_load.res:
        store = user
        old = None
    elif isinstance(user, combiner) and user.results[0].uses.get_length() == 1:
        store = next(iter(user.results[0].uses)).operation
        others = [o for o in user.operands if o is not final_load.res]
        if (not isinstance(store, memref.StoreOp) or store.value is not user.results[0]
                or len(others) != 1 or not isinstance(others[0].owner, memref.LoadOp)):
            return None
        old = others[0].owner
        if (old.memref is not store.memref or old.res.uses.get_length() != 1
                or old.parent_block() is not body
                or any(a is not b for a, b in zip(old.indices, store.indices, strict=True))):
            return None
    else:
        return None
    if store.parent_block() is not body or not isa(store.memref.type, MemRefType):
        return None
    if not store.memref.type.get_shape():
        return None  # a scalar of the function: every iteration writes the same variable
    return store, old


def split_accumulation(acc: Accumulation, walkers: int) -> None:
    """Rewrite `acc.loop` into the initialising loop and the split nest (module docstring)."""
    loop = acc.loop
    rewriter = Rewriter()
    if not acc.staged:  # out[idx] = init (op= form: out[idx] op= init) before the walkers
        initialiser = loop.clone()
        rewriter.insert_op(initialiser, InsertPoint.before(loop))
        copy = next(b for a, b in zip(loop.walk(), initialiser.walk(), strict=True)
                    if a is acc.serial)
        rewriter.erase_op(copy)

    slot_type = acc.initial_store.memref.type
    assert isa(slot_type, MemRefType)
    start = arith.ConstantOp(identity(acc.kind, slot_type.element_type))
    rewriter.insert_op(start, InsertPoint.before(acc.initial_store))
    rewriter.replace_op(acc.initial_store,
                        memref.StoreOp.get(start.result, acc.initial_store.memref, ()))

    walker_body = Block(arg_types=[IndexType()])
    walker = walker_body.args[0]
    walker.name_hint = "walker"
    _walk_share(acc.serial, walker, walkers)

    share = acc.final_load.res
    atomic = memref.AtomicRMWOp.create(
        operands=[share, acc.final_store.memref, *acc.final_store.indices],
        result_types=[share.type],
        properties={"kind": IntegerAttr(ATOMIC_RMW_KIND[acc.atomic_kind], i64)})
    rewriter.insert_op(atomic, InsertPoint.before(acc.final_store))
    combined = acc.final_store.value.owner
    rewriter.erase_op(acc.final_store)
    if acc.old_value is not None and not acc.staged:
        assert isinstance(combined, Operation)
        rewriter.erase_op(combined)
        rewriter.erase_op(acc.old_value)
    elif acc.staged:
        assert acc.old_value is not None
        rewriter.erase_op(acc.old_value)  # its only use, s's start, is the identity now

    zero, one, count = (arith.ConstantOp(IntegerAttr(v, IndexType())) for v in (0, 1, walkers))
    rewriter.insert_op([zero, one, count], InsertPoint.before(loop))
    nest = ParallelForOp(zero, count, one, walker_body)
    for name, attr in loop.attributes.items():
        nest.attributes[name] = attr  # num_teams, thread_limit: the nest's launch bounds
    rewriter.insert_op(nest, InsertPoint.before(loop))
    loop.detach()
    walker_body.add_ops([loop, YieldOp()])


def _walk_share(serial: scf.ForOp, walker: SSAValue, walkers: int) -> None:
    """`for (i = lb + w*st; i < ub; i += walkers*st)` over 64 bits: walker `w`'s share."""
    builder = Builder(InsertPoint.before(serial))
    iv_type = serial.body.block.args[0].type
    wide = i64

    def widen(value: SSAValue) -> SSAValue:
        if value.type == wide:
            return value
        if isinstance(value.type, IndexType):
            return builder.insert(arith.IndexCastOp(value, wide)).result
        return builder.insert(arith.ExtSIOp(value, wide)).result

    lb, ub, step = (widen(v) for v in (serial.lb, serial.ub, serial.step))
    w = builder.insert(arith.IndexCastOp(walker, wide)).result
    first = builder.insert(arith.AddiOp(lb, builder.insert(arith.MuliOp(w, step)).result))
    count = builder.insert(arith.ConstantOp(IntegerAttr(walkers, wide))).result
    stride = builder.insert(arith.MuliOp(step, count)).result
    first.result.name_hint = f"{serial.body.block.args[0].name_hint or 'i'}_first"
    body = Block(arg_types=[wide])
    body.args[0].name_hint = f"{serial.body.block.args[0].name_hint or 'i'}_wide"
    inner = Builder(InsertPoint.at_end(body))
    if iv_type == wide:
        narrow = body.args[0]
    elif isinstance(iv_type, IndexType):
        narrow = inner.insert(arith.IndexCastOp(body.args[0], iv_type)).result
    else:
        assert isa(iv_type, IntegerType)
        narrow = inner.insert(arith.TruncIOp(body.args[0], iv_type)).result
    narrow.name_hint = serial.body.block.args[0].name_hint
    old_body = serial.body.block
    old_body.args[0].replace_all_uses_with(narrow)
    for op in list(old_body.ops):
        op.detach()
        body.add_op(op)
    split = scf.ForOp(first.result, ub, stride, [], body)
    Rewriter.replace_op(serial, split)


def split_accumulations(module: ModuleOp, walkers: int, assume_no_alias: bool = False) -> int:
    """Split every outermost parallel loop of `module` that qualifies; how many."""
    if walkers <= 0:
        return 0
    found = [acc for op in list(module.walk()) if isinstance(op, ParallelForOp)
             and not inside_parallel_loop(op)
             and (acc := find_accumulation(op, assume_no_alias)) is not None]
    for acc in found:
        split_accumulation(acc, walkers)
    return len(found)


def splittable_loops(function: Operation, assume_no_alias: bool, stage: bool = True) -> int:
    """How many outermost parallel loops of a frontend function the split takes: its own
    predicate (`find_accumulation`) on a copy, after `agpu-stage-accumulations` where the
    pipeline runs it (an accumulated `out[j] +=` qualifies once staged). The tuner's cue to
    try `split_walkers`: a parallel loop with a serial loop that is no accumulation (a stencil
    in a time loop) gets no variants."""
    from autogpu.passes.agpu_stage_accumulations import AgpuStageAccumulationsPass

    module = ModuleOp([function.clone()])
    if stage:
        AgpuStageAccumulationsPass(assume_no_alias=assume_no_alias).apply(Context(), module)
    return sum(1 for op in module.walk() if isinstance(op, ParallelForOp)
               and not inside_parallel_loop(op)
               and find_accumulation(op, assume_no_alias) is not None)


@dataclass(frozen=True)
class AgpuSplitAccumulationsPass(DeclaredOptionsPass):
    """Split the serial accumulation loop of a parallel loop over `walkers` row-walkers."""

    name = "agpu-split-accumulations"

    walkers: int = option(
        0, doc="Parallel walkers sharing each qualifying serial accumulation loop (a second "
        "parallel dimension, combined into the output with one atomic per walker and "
        "element); 0: no split. Floating-point sums and products reassociate.",
        check=at_least(0))
    assume_no_alias: bool = option(
        False, doc="Assume distinct pointer parameters never overlap, as if all were "
        "`restrict` (the paper's assumption).")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        split_accumulations(op, self.walkers, self.assume_no_alias)
