"""How one C function splits into kernel launches, and where its variables live on the GPU.

The function body is read as a sequence of *segments* in program order: each outermost
`agpu.parallel_for` is a parallel segment (one kernel over the nest's iteration space); the code
between nests that touches memory is a serial segment (one single-thread kernel, `<<<1,1>>>`).
Pure scalar code is no segment: it is recomputed wherever it is used (in kernels, and on the host
for launch sizes).

Serial control flow around parallel loops (a time loop `for (t = 0; t < T; t++)`, an `if`) stays
on the host: the function is a tree of *host steps* (`HostFor`, `HostIf`, segments), each body
read into segments the same way. The counter of a host loop is a *host value*: a kernel that
uses it (directly, or through pure code it recomputes) takes it as an extra argument after the
C parameters. The host computes loop bounds and conditions from the scalar parameters and host
values. A condition that depends on memory or floating point (a convergence test `while (diff >
tol)`, `if (x[0] > 0)`: *data-dependent control*, `HostWhile` and `HostIf`) is computed by the
serial kernel of the code before it, which stores it in a device variable (a spill, listed in
`FunctionPlan.host_reads`); the host reads that one value back between launches. The data stays
on the device.

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

from collections.abc import Iterable
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
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.utils.hints import isa

from autogpu.dialects.agpu import LAST_ITERATION, ParallelForOp, ReductionKind
from autogpu.dialects.agpu_sync import AtomicUpdateOp, is_synchronized
from autogpu.dialects.signature import CType, of_ir
from autogpu.passes.analysis.nest_mapping import NestMapping, map_nest
from autogpu.passes.convert_agpu_to_gpu.constant_tables import Table, take_tables
from autogpu.passes.utils.errors import PassError, describe_value, error_at
from autogpu.passes.utils.slices import (
    external_operands,
    is_pure,
    is_recomputable,
    slice_leaves,
)


@dataclass
class Segment:
    index: int
    ops: list[Operation]
    mapping: NestMapping | None = None  # parallel segments only
    externals: list[SSAValue] = field(default_factory=list[SSAValue])
    depth: int = 0  # host loops around it
    host_args: list[SSAValue] = field(default_factory=list[SSAValue])  # host values it takes

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
        result: list[tuple[ReductionKind, SSAValue, SSAValue, SSAValue]] = []
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
    """A variable of the function: a `memref.alloca` at the top of its body or of the body of
    a host loop or if (declared there, as C scopes it)."""

    alloca: memref.AllocaOp
    depth: int = 0  # host loops around its declaration
    users: list[int] = field(default_factory=list[int])  # segment indices, in order
    reduction_in: set[int] = field(default_factory=set[int])
    private_in: set[int] = field(default_factory=set[int])
    global_name: str | None = None  # set when it lives in device memory
    table: Table | None = None  # a constant table: an initialised global (constant_tables.py)

    @property
    def value(self) -> SSAValue:
        return self.alloca.memref


@dataclass
class Spill:
    """A value a serial kernel computes and a later kernel uses, passed through a global."""

    value: SSAValue
    producer: int
    global_name: str


@dataclass(frozen=True)
class HostValue:
    """A value the host computes and passes to kernels: the counter of a host loop."""

    name: str  # unique among the parameters and other host values
    ctype: CType


@dataclass
class HostFor:
    """A serial `scf.for` around kernels, run by the host; its counter is a host value."""

    op: scf.ForOp
    var: HostValue  # its counter
    body: list[HostStep]


@dataclass
class HostIf:
    """A serial `scf.if` around kernels, its condition computed by the host (or by a kernel
    and read back: `FunctionPlan.host_reads`)."""

    op: scf.IfOp
    then: list[HostStep]
    orelse: list[HostStep]


@dataclass
class HostWhile:
    """A serial `scf.while` around kernels (a convergence loop): `before` computes `cond`
    (usually in a serial kernel, whose result the host reads back), `body` runs while it
    holds."""

    op: scf.WhileOp
    before: list[HostStep]
    cond: SSAValue
    body: list[HostStep]


HostStep = Segment | HostFor | HostIf | HostWhile


@dataclass
class FunctionPlan:
    func: func.FuncOp
    segments: list[Segment]
    slots: dict[SSAValue, Slot]
    spills: dict[SSAValue, Spill]
    steps: list[HostStep] = field(default_factory=list[HostStep])
    host_values: dict[SSAValue, HostValue] = field(default_factory=dict[SSAValue, HostValue])
    host_reads: dict[SSAValue, str] = field(default_factory=dict[SSAValue, str])
    """Conditions a kernel computes and the host reads back: value -> its device variable."""


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
    tables = take_tables(body)
    reader = _StepReader(fn)
    steps = reader.read(list(body.ops)[:-1], depth=0)
    slots, segments, host_values = reader.slots, reader.segments, reader.host_values
    for value, table in tables.items():
        slots[value].table = table
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
            if leaf in host_values:
                seg.host_args.append(leaf)
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
    host_reads: dict[SSAValue, str] = {}
    for cond in reader.device_conditions:
        owner = cond.owner
        producer = owner_segment.get(owner) if isinstance(owner, Operation) else None
        if producer is None:
            continue  # no kernel computes it: the host builder says why it cannot
        if cond not in spills:
            name = namer.fresh(f"{fn.sym_name.data}_{cond.name_hint or 'cond'}")
            spills[cond] = Spill(cond, producer, name)
        host_reads[cond] = spills[cond].global_name

    for seg in segments:
        for kind, var in seg.reductions():
            _check_reduction(seg, kind, var, slots)
            if not _is_array(var):
                slots[var].reduction_in.add(seg.index)
    for slot in slots.values():
        slot.users.sort()
        shared_by_threads = _synchronized_in(slot, segments)
        if (
            slot.table is not None
            or len(slot.users) > 1
            or slot.reduction_in
            or shared_by_threads
            or _outlives_launches(slot, segments)
        ):
            slot.global_name = namer.fresh(_global_base(fn, slot.value))
        _plan_privatization(slot, segments)
    return FunctionPlan(fn, segments, slots, spills, steps, host_values, host_reads)


def _outlives_launches(slot: Slot, segments: list[Segment]) -> bool:
    """A variable used by one kernel that a host loop launches again and again, declared
    outside that loop: the value one launch leaves must reach the next (`count++` in a time
    loop), unless every launch assigns it first."""
    if len(slot.users) != 1:
        return False
    seg = segments[slot.users[0]]
    return seg.depth > slot.depth and _read_before_assigned(seg, slot.value) is not None


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
    """Drops function-level variables (and those of host loop bodies) that are only ever
    assigned (e.g. the exit value of a loop counter declared outside its loop), so they cost
    no single-thread launch."""
    for op in list(body.ops):
        if isinstance(op, scf.ForOp | scf.IfOp | scf.WhileOp) and _contains_parallel(op):
            for region in op.regions:
                for block in region.blocks:
                    _remove_dead_slots(block)
        if not isinstance(op, memref.AllocaOp):
            continue
        users = [use.operation for use in op.memref.uses]
        if all(isinstance(u, memref.StoreOp) and u.memref is op.memref for u in users):
            for user in users:
                user.detach()
                user.erase()
            op.detach()
            op.erase()


class _StepReader:
    """Reads a function body (and the bodies of its host control flow) into host steps."""

    def __init__(self, fn: func.FuncOp):
        self.fn = fn
        self.segments: list[Segment] = []
        self.slots: dict[SSAValue, Slot] = {}
        self.host_values: dict[SSAValue, HostValue] = {}
        self.device_conditions: list[SSAValue] = []  # computed by kernels, read by the host
        # host loop counters are named apart from the parameters
        self.counter_names = SymbolNamer({arg.name_hint for arg in fn.body.block.args
                                          if arg.name_hint})  # fmt: skip

    def read(self, ops: list[Operation], depth: int, keep: SSAValue | None = None
             ) -> list[HostStep]:
        """The steps of `ops`; `keep`, a condition the host reads back, is computed by a
        kernel even where the code computing it is pure (`while (tol < 1.0f)`)."""
        steps: list[HostStep] = []
        pending: list[Operation] = []

        def flush(keep: SSAValue | None = None) -> None:
            kept = keep is not None and keep.owner in pending
            if kept or any(not is_pure(op) for op in pending):
                seg = Segment(len(self.segments), list(pending), depth=depth)
                self.segments.append(seg)
                steps.append(seg)
            pending.clear()

        for op in ops:
            if isinstance(op, memref.AllocaOp):
                self.slots[op.memref] = Slot(op, depth)  # a variable of this (host) scope
            elif isinstance(op, ParallelForOp):
                flush()
                seg = Segment(len(self.segments), [op], map_nest(op), depth=depth)
                self.segments.append(seg)
                steps.append(seg)
            elif _contains_parallel(op):
                cond = op.cond if isinstance(op, scf.IfOp) else None
                flush(cond if cond is not None and self._on_device(cond) else None)
                steps.append(self._host_control(op, depth))
            else:
                pending.append(op)
        flush(keep)
        return steps

    def _on_device(self, cond: SSAValue) -> bool:
        """Whether a host condition needs a kernel: it reads memory (a variable, an array
        element) or computes in floating point, which the launch language cannot."""
        _, leaves = slice_leaves([cond], is_leaf=lambda v: v in self.host_values)
        on_device = any(isinstance(leaf.owner, Operation) and not is_recomputable(leaf.owner)
                        for leaf in leaves)  # fmt: skip
        seen: set[SSAValue] = set()
        work = [cond]
        while work and not on_device:
            value = work.pop()
            owner = value.owner
            if value in seen or not isinstance(owner, Operation):
                continue
            seen.add(value)
            if any(isinstance(v.type, AnyFloat) for v in (*owner.operands, *owner.results)):
                on_device = True
            work.extend(owner.operands)
        if on_device:
            self.device_conditions.append(cond)
        return on_device

    def _host_control(self, op: Operation, depth: int) -> HostStep:
        if isinstance(op, scf.ForOp):
            if op.iter_args or op.results:
                raise error_at(op, "a loop around parallel loops cannot carry values (iter_args)")
            iv = op.body.block.args[0]
            var = HostValue(self.counter_names.fresh(iv.name_hint or "iv"), of_ir(iv.type))
            self.host_values[iv] = var
            return HostFor(op, var, self.read(_region_ops(op.body), depth + 1))
        if isinstance(op, scf.IfOp):
            if op.results:
                raise error_at(op, "an 'if' around parallel loops cannot yield values")
            return HostIf(
                op, self.read(_region_ops(op.true_region), depth),
                self.read(_region_ops(op.false_region), depth),
            )
        if isinstance(op, scf.WhileOp):
            return self._host_while(op, depth)
        inner = next(i for i in op.walk() if isinstance(i, ParallelForOp))
        raise error_at(
            inner,
            f"a parallel loop inside {op.name} cannot be launched from the host: only serial "
            "'for' loops and 'if's around parallel loops run on the host",
        )


    def _host_while(self, op: scf.WhileOp, depth: int) -> HostWhile:
        """A `while` (or a `for` the frontend cannot count) around kernels: the frontend keeps
        its variables in memory, so it carries no values."""
        if op.arguments or op.results or op.before_region.block.args \
                or op.after_region.block.args:
            raise error_at(op, "a 'while' loop around parallel loops cannot carry values")
        condition = op.before_region.block.last_op
        assert isinstance(condition, scf.ConditionOp)
        if condition.args:
            raise error_at(op, "a 'while' loop around parallel loops cannot carry values")
        cond = condition.condition
        before_ops = [o for o in op.before_region.block.ops if o is not condition]
        if any(_contains_parallel(o) for o in before_ops):
            inner = next(i for o in before_ops for i in o.walk() if isinstance(i, ParallelForOp))
            raise error_at(inner, "a parallel loop in the condition of a 'while' loop cannot "
                                  "be launched from the host")
        keep = cond if self._on_device(cond) else None
        before = self.read(before_ops, depth + 1, keep)
        return HostWhile(op, before, cond, self.read(_region_ops(op.after_region), depth + 1))


def _contains_parallel(op: Operation) -> bool:
    return any(isinstance(inner, ParallelForOp) for inner in op.walk())


def _region_ops(region: Region) -> list[Operation]:
    """The ops of a single-block `scf` region, without its `scf.yield`."""
    if not region.blocks:
        return []
    return [op for op in region.block.ops if not isinstance(op, scf.YieldOp)]


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
    assert isa(var.type, MemRefType)
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
    if isa(element, IntegerType) and element.width.data == 1 and not kind.is_bitwise:
        raise error_at(
            loop,
            f"a '{kind.value}' reduction over a _Bool ({describe_value(var)}) is not lowered: "
            "the frontend writes a _Bool's reductions as 'and', 'or' or 'xor'",
        )


def _is_array(var: SSAValue) -> bool:
    assert isa(var.type, MemRefType)
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


def _read_before_assigned(seg: Segment, slot: SSAValue) -> Operation | None:
    """The first access of `slot` in a run of the segment (an iteration, for a parallel one)
    that may see a value the run did not store; None when there is none: on every path
    through the run, a store comes before each read. Stores count in the code of the run (the
    innermost parallel loop's body), in both branches of an `if`, and in serial loops that
    provably run at least once; a read inside a serial loop is preceded by a store earlier in
    the same trip of it (`for (j...) { t = ...; ... = t; }`) or before the loop."""
    if seg.mapping is None:
        top, ops = seg.ops[0].parent_op(), seg.ops
    else:
        top = seg.mapping.innermost
        ops = list(top.body.block.ops)
    for access in _accesses(seg.ops, slot):
        if _enclosing_run(access, top) is None:
            return access  # between the mapped loops of a nest: before any iteration
    return _stores_before_reads(ops, slot, assigned=False)[0]


def _enclosing_run(op: Operation, top: Operation | None) -> Operation | None:
    """`top` if `op` lies inside it, else None."""
    parent = op.parent_op()
    while parent is not None and parent is not top:
        parent = parent.parent_op()
    return parent


def _stores_before_reads(ops: Iterable[Operation], slot: SSAValue,
                         assigned: bool) -> tuple[Operation | None, bool]:  # fmt: skip
    """(the first access in `ops` that may read a value of `slot` stored before them, unless
    `assigned` already; whether `slot` is surely assigned after them)."""
    for op in ops:
        if isinstance(op, memref.StoreOp) and op.memref is slot:
            assigned = True
        elif isinstance(op, scf.ForOp):
            culprit, after = _stores_before_reads(op.body.block.ops, slot, assigned)
            if culprit is not None:
                return culprit, assigned
            assigned = after if _runs_at_least_once(op) else assigned
        elif isinstance(op, scf.IfOp):
            branches = [_stores_before_reads(r.block.ops if r.blocks else (), slot, assigned)
                        for r in (op.true_region, op.false_region)]  # fmt: skip
            for culprit, _ in branches:
                if culprit is not None:
                    return culprit, assigned
            assigned = all(after for _, after in branches)
        elif not assigned:
            for inner in op.walk():  # a read, or an access this walk does not follow
                if slot in inner.operands:
                    return inner, assigned
    return None, assigned


def _runs_at_least_once(loop: scf.ForOp) -> bool:
    """A serial loop whose upper bound provably exceeds its lower bound: constant bounds
    `lb < ub` (`for (j = 0; j < 4; j++)`), or an upper bound at least one above an enclosing
    loop's variable that never goes below `lb` (`for (j = 0; j <= i; j++)` inside `i` from 0).
    With other bounds it may not run, and C then reads the value from before it."""
    lb = _constant_int(loop.lb)
    least = _least_value(loop.ub)
    return lb is not None and least is not None and lb < least


def _least_value(value: SSAValue) -> int | None:
    """A lower bound of `value` (signed), where it is a constant, the variable of an enclosing
    loop that counts up from a constant, or one of those plus a positive constant that cannot
    wrap (marked `nsw`, or + 1 on a loop variable, which stays below its loop's bound)."""
    constant = _constant_int(value)
    if constant is not None:
        return constant
    owner = value.owner
    loop = owner.parent_op() if isinstance(owner, Block) else None
    if isinstance(loop, scf.ForOp | ParallelForOp):
        step = _constant_int(loop.step)
        assert isinstance(owner, Block)
        if value is owner.args[0] and step is not None and step > 0:
            return _constant_int(loop.lb)
        return None
    if isinstance(owner, arith.AddiOp):
        added = _constant_int(owner.rhs)
        base = _least_value(owner.lhs)
        if added is None or added < 1 or base is None:
            return None
        no_wrap = arith.IntegerOverflowFlag.NSW in owner.overflow_flags.data or (
            added == 1 and isinstance(owner.lhs.owner, Block))  # the loop variable + 1
        return base + added if no_wrap else None
    return None


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
        read = _read_before_assigned(seg, slot.value)
        if read is not None:  # it may see another iteration's value
            raise _shared_variable(read, slot, "it may be read before the iteration assigns it")
        if slot.global_name is None:
            continue  # used by this loop only: a private variable of each thread
        for later in slot.users[position + 1 :]:
            later_seg = segments[later]
            reads = _read_before_assigned(later_seg, slot.value)
            if later in slot.reduction_in or reads is not None:
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
