"""How one C function splits into kernel launches, and where its variables live on the GPU.

The function body is read as a sequence of *segments* in program order: each outermost
`agpu.parallel_for` is a parallel segment (one kernel over the nest's iteration space); the code
between nests that touches memory is a serial segment (one single-thread kernel, `<<<1,1>>>`).
Pure scalar code is no segment: it is recomputed wherever it is used (in kernels, and on the host
for launch sizes).

Variables (function-level `memref.alloca` slots) used by one segment only become locals of its
kernel. Those shared by several launches, and reduction variables, live in module-level device
memory (`memref.global` in the `gpu.module`, `__device__ T name;` in CUDA). Values computed by a
serial kernel and used by a later one are *spilled* to such a global the same way.

A variable assigned inside a parallel loop (other than a reduction) is private to each thread,
which is only the C semantics when every iteration assigns it before reading it and no code
after the loop reads the value the loop left in it; otherwise the lowering refuses (OpenMP calls
this a data race on a shared variable). The store of a `lastprivate` copy-out (marked
`agpu.last_iteration`) is no such assignment: one iteration writes the shared variable. A
variable that a parallel loop accesses only through atomics (`#pragma omp atomic`) or inside
critical sections is shared by its threads instead: it lives in device memory; any other access
to it in that loop is refused as a race.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
)
from xdsl.ir import Block, Operation, SSAValue

from autogpu.dialects.agpu import LAST_ITERATION, ParallelForOp, ReductionKind
from autogpu.dialects.agpu_sync import AtomicUpdateOp, is_synchronized
from autogpu.passes.analysis.nest_mapping import NestMapping, map_nest
from autogpu.passes.utils.errors import PassError, describe_value, error_at
from autogpu.passes.utils.slices import external_operands, is_pure, slice_leaves


@dataclass
class Segment:
    index: int
    ops: list[Operation]
    mapping: NestMapping | None = None  # parallel segments only
    externals: list[SSAValue] = field(default_factory=list[SSAValue])

    @property
    def is_parallel(self) -> bool:
        return self.mapping is not None

    def reductions(self) -> list[tuple[ReductionKind, SSAValue]]:
        """The reductions over the mapped loops (deduplicated, in order)."""
        if self.mapping is None:
            return []
        seen: dict[SSAValue, ReductionKind] = {}
        for level in self.mapping.levels:
            for kind, var in level.loop.reduction_list:
                combines_like = ReductionKind.ADD if kind == ReductionKind.SUB else kind
                previous = seen.setdefault(var, combines_like)
                if previous != combines_like:
                    raise error_at(
                        level.loop,
                        f"{describe_value(var)} is reduced with both '{previous.value}' and "
                        f"'{kind.value}' in one loop nest",
                    )
        return [(kind, var) for var, kind in seen.items()]

    def scalar_reductions(self) -> list[tuple[ReductionKind, SSAValue]]:
        return [(kind, var) for kind, var in self.reductions() if not _is_array(var)]

    def array_reductions(self) -> list[tuple[ReductionKind, SSAValue, SSAValue, SSAValue]]:
        """`(kind, array, lo, len)` of each reduced section (from the outermost loop naming
        the array)."""
        result = []
        for kind, var in self.reductions():
            if _is_array(var):
                assert self.mapping is not None
                loop = next(level.loop for level in self.mapping.levels
                            if var in level.loop.reduction_vars)  # fmt: skip
                section = loop.section_of(var)
                assert section is not None
                result.append((kind, var, *section))
        return result


@dataclass
class Slot:
    """A function-level variable (a `memref.alloca` at the top of the function)."""

    alloca: memref.AllocaOp
    users: list[int] = field(default_factory=list[int])  # segment indices, in order
    reduction_in: set[int] = field(default_factory=set[int])
    private_in: set[int] = field(default_factory=set[int])
    global_name: str | None = None  # set when it lives in device memory

    @property
    def value(self) -> SSAValue:
        return self.alloca.memref


@dataclass
class Spill:
    """A value a serial kernel computes and a later kernel uses, passed through a global."""

    value: SSAValue
    producer: int
    global_name: str


@dataclass
class FunctionPlan:
    func: func.FuncOp
    segments: list[Segment]
    slots: dict[SSAValue, Slot]
    spills: dict[SSAValue, Spill]


class SymbolNamer:
    """Unique symbol names in the `gpu.module`."""

    def __init__(self, taken: set[str]):
        self.taken = taken

    def fresh(self, base: str) -> str:
        name, k = base, 0
        while name in self.taken:
            k += 1
            name = f"{base}_{k}"
        self.taken.add(name)
        return name


def plan_function(fn: func.FuncOp, namer: SymbolNamer) -> FunctionPlan:
    body = _single_block(fn)
    _remove_dead_slots(body)
    top = list(body.ops)[:-1]
    slots = {op.memref: Slot(op) for op in top if isinstance(op, memref.AllocaOp)}
    segments = _segments(fn, [op for op in top if not isinstance(op, memref.AllocaOp)])
    owner_segment = {op: seg.index for seg in segments for op in seg.ops}

    spills: dict[SSAValue, Spill] = {}
    for seg in segments:
        seg.externals = external_operands(seg.ops)
        _, leaves = slice_leaves(seg.externals, is_leaf=lambda v: v in slots)
        for leaf in leaves:
            if leaf in slots:
                if seg.index not in slots[leaf].users:
                    slots[leaf].users.append(seg.index)
                continue
            owner = leaf.owner
            if not isinstance(owner, Operation):
                continue  # a parameter
            producer = owner_segment.get(owner)
            if producer is None or producer == seg.index:
                continue
            if leaf not in spills:
                _check_spillable(leaf, owner)
                spills[leaf] = Spill(leaf, producer, namer.fresh(_global_base(fn, leaf)))

    for seg in segments:
        for kind, var in seg.reductions():
            _check_reduction(seg, kind, var, slots)
            if not _is_array(var):
                slots[var].reduction_in.add(seg.index)
    for slot in slots.values():
        slot.users.sort()
        shared_by_threads = _synchronized_in(slot, segments)
        if len(slot.users) > 1 or slot.reduction_in or shared_by_threads:
            slot.global_name = namer.fresh(_global_base(fn, slot.value))
        _plan_privatization(slot, segments)
    return FunctionPlan(fn, segments, slots, spills)


def _single_block(fn: func.FuncOp) -> Block:
    if not fn.body.blocks:
        raise error_at(fn, f"function '{fn.sym_name.data}' has no body")
    if len(fn.body.blocks) != 1:
        raise error_at(fn, f"function '{fn.sym_name.data}' has more than one block")
    body = fn.body.block
    ret = body.last_op
    if not isinstance(ret, func.ReturnOp):
        raise error_at(fn, f"function '{fn.sym_name.data}' does not end with func.return")
    if ret.arguments or fn.function_type.outputs.data:
        raise error_at(
            fn,
            f"function '{fn.sym_name.data}' returns a value: only void functions can be "
            "lowered to kernels (write results through a pointer parameter)",
        )
    return body


def _remove_dead_slots(body: Block) -> None:
    """Drops function-level variables that are only ever assigned (e.g. the exit value of a
    loop counter declared outside its loop), so they cost no single-thread launch."""
    for op in list(body.ops):
        if not isinstance(op, memref.AllocaOp):
            continue
        users = [use.operation for use in op.memref.uses]
        if all(isinstance(u, memref.StoreOp) and u.memref is op.memref for u in users):
            for user in users:
                user.detach()
                user.erase()
            op.detach()
            op.erase()


def _segments(fn: func.FuncOp, ops: list[Operation]) -> list[Segment]:
    segments: list[Segment] = []
    pending: list[Operation] = []

    def flush() -> None:
        if any(not is_pure(op) for op in pending):
            segments.append(Segment(len(segments), list(pending)))
        pending.clear()

    for op in ops:
        if isinstance(op, ParallelForOp):
            flush()
            segments.append(Segment(len(segments), [op], map_nest(op)))
            continue
        for inner in op.walk():
            if isinstance(inner, ParallelForOp):
                raise error_at(
                    inner,
                    f"a parallel loop inside serial control flow ({op.name}) cannot be "
                    "launched from the host: only parallel loops at the top level of "
                    f"function '{fn.sym_name.data}' become kernels",
                )
        pending.append(op)
    flush()
    return segments


def _check_spillable(value: SSAValue, owner: Operation) -> None:
    if not isinstance(value.type, IntegerType | AnyFloat | IndexType):
        raise error_at(
            owner,
            f"{describe_value(value)} ({value.type}) is computed by one kernel and used by "
            "a later one, which is only supported for scalars",
        )


def _global_base(fn: func.FuncOp, value: SSAValue) -> str:
    return f"{fn.sym_name.data}_{value.name_hint or 'tmp'}"


def _check_reduction(
    seg: Segment, kind: ReductionKind, var: SSAValue, slots: dict[SSAValue, Slot]
) -> None:
    assert seg.mapping is not None
    loop = seg.mapping.nest
    assert isinstance(var.type, MemRefType)
    if _is_array(var) and (var.owner is not seg.mapping.nest.parent_block()
                           or var.type.get_shape() != (DYNAMIC_INDEX,)):  # fmt: skip
        raise error_at(
            loop, f"the reduced array {describe_value(var)} must be an array parameter of the "
            "function"
        )
    if _is_array(var):
        for user in _accesses(seg.ops, var):
            if not isinstance(user, memref.AtomicRMWOp | AtomicUpdateOp | ParallelForOp):
                raise error_at(
                    user, f"the reduced array {describe_value(var)} is accessed here other "
                    "than by an atomic update of one of its elements (the frontend makes each "
                    "reduction update one)"
                )
    if not _is_array(var) and var not in slots:
        raise error_at(
            loop,
            f"the reduction variable {describe_value(var)} must be a local variable of the "
            "function",
        )
    element = var.type.element_type
    if isinstance(element, IntegerType) and element.width.data == 1:
        raise error_at(
            loop, f"reductions over a _Bool ({describe_value(var)}) are not lowered yet"
        )


def _is_array(var: SSAValue) -> bool:
    assert isinstance(var.type, MemRefType)
    return bool(var.type.get_shape())


def _accesses(ops: list[Operation], slot: SSAValue) -> list[Operation]:
    """The ops that use `slot`, in program (pre-)order."""
    return [inner for op in ops for inner in op.walk() if slot in inner.operands]


def _writes(ops: list[Operation], slot: SSAValue) -> bool:
    """Whether the iterations write `slot` as their own variable: a `lastprivate` copy-out
    (`agpu.last_iteration`) is one iteration's write to the shared variable."""
    return any(
        not isinstance(op, memref.LoadOp) and LAST_ITERATION not in op.attributes
        for op in _accesses(ops, slot)
    )


def _assigned_first(seg: Segment, slot: SSAValue) -> bool:
    """Every run of the segment (every iteration, for a parallel one) assigns `slot` before
    anything reads it: the first access is a store that runs unconditionally, at the top of the
    segment (of the innermost parallel loop's body) or in serial loops there that provably run
    at least once."""
    accesses = _accesses(seg.ops, slot)
    if not accesses or not isinstance(first := accesses[0], memref.StoreOp):
        return False
    if first.memref is not slot:
        return False
    top = seg.ops[0].parent_op() if seg.mapping is None else seg.mapping.innermost
    parent = first.parent_op()
    while parent is not top:  # only serial loops that run at least once lie in between
        if not isinstance(parent, scf.ForOp) or not _runs_at_least_once(parent):
            return False
        parent = parent.parent_op()
    return True


def _runs_at_least_once(loop: scf.ForOp) -> bool:
    """A serial loop with constant bounds `lb < ub` (`for (j = 0; j < 4; j++)`)."""
    bounds = [_constant_int(loop.lb), _constant_int(loop.ub)]
    return None not in bounds and bounds[0] < bounds[1]


def _constant_int(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _synchronized_in(slot: Slot, segments: list[Segment]) -> bool:
    """Whether a parallel loop shares `slot` between its threads through atomics or critical
    sections; refuses one that also accesses it otherwise (a race)."""
    shared = False
    for index in slot.users:
        seg = segments[index]
        if not seg.is_parallel:
            continue
        accesses = _accesses(seg.ops, slot.value)
        synchronized = [a for a in accesses if is_synchronized(a)]
        if not synchronized:
            continue
        for access in accesses:
            if not is_synchronized(access) and not isinstance(access, memref.AllocaOp):
                raise error_at(
                    access,
                    f"{describe_value(slot.value)} is shared by the iterations of a parallel "
                    "loop through '#pragma omp atomic' or '#pragma omp critical', and accessed "
                    "here without: a race (make this access atomic too)",
                )
        shared = True
    return shared


def _plan_privatization(slot: Slot, segments: list[Segment]) -> None:
    for position, index in enumerate(slot.users):
        seg = segments[index]
        if not seg.is_parallel or index in slot.reduction_in:
            continue
        if any(is_synchronized(a) for a in _accesses(seg.ops, slot.value)):
            continue  # shared by the threads (_synchronized_in)
        if not _writes(seg.ops, slot.value):
            continue
        slot.private_in.add(index)
        if slot.global_name is None:
            continue  # used by this loop only: a private variable of each thread
        if not _assigned_first(seg, slot.value):
            first = _accesses(seg.ops, slot.value)[0]
            raise _shared_variable(first, slot, "it may be read before the iteration assigns it")
        for later in slot.users[position + 1 :]:
            later_seg = segments[later]
            if later in slot.reduction_in or not _assigned_first(later_seg, slot.value):
                read = _accesses(later_seg.ops, slot.value)[0]
                raise _shared_variable(
                    read, slot, "code after the loop reads the value the loop left in it"
                )


def _shared_variable(access: Operation, slot: Slot, why: str) -> PassError:
    """The race, located at the access that shows it (the read of the shared value)."""
    return error_at(
        access,
        f"{describe_value(slot.value)} is assigned by the iterations of a parallel loop and "
        f"{why}; declare it inside the loop, list it private, or make it a reduction",
    )
