"""Barriers reached by every thread of the block.

`__syncthreads()` must be executed by all threads of a block or by none; the lowering's kernels
stop the threads with no work with guards (`if (i < m) {...}`) and, with 2D blocks, run their
own grid-stride loops on y (`for (j = by*bdy + ty; j < n; j += gdy*bdy)`, whose trip count
depends on the thread). Two rewrites make a barrier placed anywhere correct, without changing
what any thread computes:

- `uniformize_thread_loops`: `for (j = b0 + ty; j < ub; j += s) body(j)` becomes
  `for (jb = b0; jb < ub; jb += s) { j = jb + ty; if (j < ub) body(j) }`: the same iterations
  for each thread, and a loop all threads of the block run alike;
- `distribute_guards`: a guard `if (c) { A; barrier; B }` becomes
  `if (c) { A }; barrier; if (c) { B }` (and pushes itself into the uniform loops and uniform
  `if`s that contain barriers). Ops that may run speculatively are hoisted out of the guard
  (they then also run in the threads that skip it, with no effect), private variables
  (`memref.alloca`) too; any other value that crosses from one part to a later one goes
  through a private variable.

Ops tagged `COLLECTIVE` (the cooperative loads of tiles) are treated like barriers: every thread
of the block runs them.
"""

from __future__ import annotations

from xdsl.dialects import arith, gpu, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, UnitAttr, i1
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from autogpu.passes.analysis.loops import defined_inside
from autogpu.passes.gpu_cache_shared.facts import KernelFacts, enclosing_block_in, is_speculatable
from autogpu.passes.gpu_cache_shared.materialize import Materializer

COLLECTIVE = "gpu_cache_shared.collective"
"""Discardable attribute on ops that every thread of a block must run (removed by the pass)."""


class NotUniform(Exception):
    """Barriers cannot be made reachable by every thread; the message says why."""


def is_required(op: Operation) -> bool:
    """An op every thread of the block must execute: a barrier or a collective op."""
    return isinstance(op, gpu.BarrierOp) or COLLECTIVE in op.attributes


def contains_required(op: Operation) -> bool:
    return any(is_required(nested) for nested in op.walk())


def mark_collective(op: Operation) -> None:
    op.attributes[COLLECTIVE] = UnitAttr()


# ---------------------------------------------------------------------------------------------
# Thread loops
# ---------------------------------------------------------------------------------------------


def uniformize_thread_loops(facts: KernelFacts) -> None:
    """Rewrites every grid-stride loop whose start is `uniform + threadIdx` (an `index` loop
    with uniform bound and step) into a uniform loop with a guard."""
    for loop in [op for op in facts.kernel.walk() if isinstance(op, scf.ForOp)]:
        if loop.iter_args or not isinstance(loop.lb.type, IndexType) or is_required(loop):
            continue
        if facts.is_uniform(loop.lb) or not (
            facts.is_uniform(loop.ub) and facts.is_uniform(loop.step)
        ):
            continue
        poly = facts.polys.poly(loop.lb)
        threads = [a for a in poly.atom_ids() if facts.thread_dim(poly.atoms[a]) is not None]
        if len(threads) != 1:
            continue
        split = poly.split(threads[0])
        if split is None:
            continue
        coefficient, rest = split
        if not coefficient.is_constant or coefficient.constant < 1:
            continue
        materializer = Materializer(facts, loop)
        if not materializer.can_poly(rest):
            continue
        thread = poly.atoms[threads[0]]
        if coefficient.constant > 1:  # a blocked distribution: threadIdx * replicas
            thread = materializer.mul(thread, materializer.const(coefficient.constant))
        _uniformize(loop, materializer.poly(rest, "base"), thread)


def _uniformize(loop: scf.ForOp, start: SSAValue, thread: SSAValue) -> None:
    """`for (iv = start + thread; ...)` -> `for (iv_base = start; ...) { iv = iv_base +
    thread; if (iv < ub) ... }` (`thread`: the thread's offset, a multiple of threadIdx)."""
    old_block = loop.body.block
    iv = old_block.args[0]
    block = Block(arg_types=[IndexType()])
    block.args[0].name_hint = f"{iv.name_hint or 'iv'}_base"
    new_iv = arith.AddiOp(block.args[0], thread)
    new_iv.result.name_hint = iv.name_hint
    active = arith.CmpiOp(new_iv.result, loop.ub, "slt")
    active.result.name_hint = "in_bounds"
    body = Block()
    guard = scf.IfOp(active.result, [], Region(body))
    block.add_ops([new_iv, active, guard, scf.YieldOp()])
    for op in list(old_block.ops):
        if isinstance(op, scf.YieldOp):
            continue
        op.detach()
        body.add_op(op)
    body.add_op(scf.YieldOp())
    iv.replace_all_uses_with(new_iv.result)
    new_loop = scf.ForOp(start, loop.ub, loop.step, [], block)
    Rewriter.replace_op(loop, new_loop)


# ---------------------------------------------------------------------------------------------
# Guards around barriers
# ---------------------------------------------------------------------------------------------


def place_barriers_around(facts: KernelFacts, op: Operation) -> bool:
    """Whether barriers before and after `op` can be made reachable by all threads: only
    uniform loops and `if`s without results (uniform ones, or guards to distribute) around
    it."""
    parent = op.parent_op()
    while parent is not None and parent is not facts.kernel:
        if isinstance(parent, scf.ForOp):
            if not facts.is_uniform_loop(parent):
                return False
        elif not isinstance(parent, scf.IfOp) or parent.results:
            return False
        parent = parent.parent_op()
    return True


def distribute_guards(facts: KernelFacts) -> None:
    """Splits every guard that contains a barrier or a collective op, until none does; raises
    `NotUniform` when a barrier would stay under thread-dependent control flow."""
    required = [op for op in facts.kernel.walk() if is_required(op)]
    while (guard := _next_guard(facts, required)) is not None:
        _distribute(guard, facts)
    check_uniform(facts, required)


def _next_guard(facts: KernelFacts, required: list[Operation]) -> scf.IfOp | None:
    """The outermost guard around one of the `required` ops."""
    for op in required:
        outermost = None
        parent = op.parent_op()
        while parent is not None and parent is not facts.kernel:
            if facts.is_guard(parent):
                outermost = parent
            parent = parent.parent_op()
        if outermost is not None:
            assert isinstance(outermost, scf.IfOp)
            return outermost
    return None


def check_uniform(facts: KernelFacts, required: list[Operation]) -> None:
    for op in required:
        parent = op.parent_op()
        while parent is not None and parent is not facts.kernel:
            if isinstance(parent, scf.IfOp):
                if not facts.is_uniform(parent.cond):
                    raise NotUniform("a barrier would stay under a thread guard")
            elif isinstance(parent, scf.ForOp):
                if not facts.is_uniform_loop(parent):
                    raise NotUniform(
                        "a barrier would be inside a loop whose iterations differ between "
                        "the threads of a block"
                    )
            elif not is_required(parent):
                raise NotUniform(f"a barrier would be inside '{parent.name}'")
            parent = parent.parent_op()


def _outside(value: SSAValue, guard: Operation) -> bool:
    """Defined outside the guard (the hoisted ops now are)."""
    return not defined_inside(value, guard)


def _distribute(guard: scf.IfOp, facts: KernelFacts) -> None:
    if guard.results:
        raise NotUniform("a guard with results contains a barrier")
    if guard.false_region.blocks and _has_ops(guard.false_region.block):
        _split_else(guard)
    cond = guard.cond
    then = guard.true_region.block
    ops = [op for op in then.ops if not isinstance(op, scf.YieldOp)]
    # 1. what may run in every thread goes before the guard
    remaining: list[Operation] = []
    for op in ops:
        hoistable = (isinstance(op, memref.AllocaOp) and not op.operands) or (
            is_speculatable(op) and all(_outside(v, guard) for v in op.operands)
        )
        if hoistable and not is_required(op):
            op.detach()
            Rewriter.insert_op(op, InsertPoint.before(guard))
        else:
            remaining.append(op)
    # 2. runs of ordinary ops (guarded) between the ops all threads must run
    parts: list[list[Operation] | Operation] = []
    for op in remaining:
        if contains_required(op):
            parts.append(op)
        elif parts and isinstance(parts[-1], list):
            parts[-1].append(op)
        else:
            parts.append([op])
    _spill_crossing_values(parts, guard)
    for part in parts:
        if isinstance(part, list):
            body = Block()
            for op in part:
                op.detach()
                body.add_op(op)
            body.add_op(scf.YieldOp())
            Rewriter.insert_op(scf.IfOp(cond, [], Region(body)), InsertPoint.before(guard))
        else:
            part.detach()
            Rewriter.insert_op(part, InsertPoint.before(guard))
            _push_into(part, cond, guard, facts)
    Rewriter.erase_op(guard)


def _split_else(guard: scf.IfOp) -> scf.IfOp:
    """`if (c) T else E` becomes `if (c) T; if (!c) E`: each thread runs one of them, so
    their order does not matter to it, and each is then a guard without else."""
    else_block = guard.false_region.block
    ops = [op for op in else_block.ops if not isinstance(op, scf.YieldOp)]
    body = Block()
    for op in ops:
        op.detach()
        body.add_op(op)
    body.add_op(scf.YieldOp())
    true = arith.ConstantOp(IntegerAttr(1, i1))
    negated = arith.XOrIOp(guard.cond, true.result)
    negated.result.name_hint = "outside"
    otherwise = scf.IfOp(negated.result, [], Region(body))
    Rewriter.insert_op([true, negated, otherwise], InsertPoint.after(guard))
    guard.false_region.detach_block(else_block).erase()
    return otherwise


def _has_ops(block: Block) -> bool:
    return any(not isinstance(op, scf.YieldOp) for op in block.ops)


def _push_into(op: Operation, cond: SSAValue, guard: Operation, facts: KernelFacts) -> None:
    """Makes `op` (which contains barriers) run in every thread, its own guarded work under
    `cond`."""
    if is_required(op):
        for operand in op.operands:
            if defined_inside(operand, op) or not _outside(operand, guard):
                raise NotUniform("a collective op uses a value computed under the guard")
        return
    for operand in op.operands:
        if not _outside(operand, guard):
            raise NotUniform(f"'{op.name}' depends on a value computed under a thread guard")
    if isinstance(op, scf.ForOp):
        if not facts.is_uniform_loop(op):
            raise NotUniform("a loop whose iterations differ between threads contains a barrier")
        _wrap_block(op.body.block, cond)
    elif isinstance(op, scf.IfOp) and not op.results:
        if facts.is_uniform(op.cond):
            _wrap_block(op.true_region.block, cond)
            if op.false_region.blocks:
                _wrap_block(op.false_region.block, cond)
        else:  # a guard in a guard: one guard on both conditions (and one for its else)
            guards = [op]
            if op.false_region.blocks and _has_ops(op.false_region.block):
                guards.append(_split_else(op))
            for nested in guards:
                both = arith.AndIOp(cond, nested.cond)
                Rewriter.insert_op(both, InsertPoint.before(nested))
                nested.operands[0] = both.result
    else:
        raise NotUniform(f"'{op.name}' contains a barrier")


def _wrap_block(block: Block, cond: SSAValue) -> None:
    """Puts the ops of `block` (but its terminator) under `if (cond)`."""
    ops = [op for op in block.ops if not isinstance(op, scf.YieldOp | gpu.ReturnOp)]
    if not ops:
        return
    terminator = block.last_op
    body = Block()
    for op in ops:
        op.detach()
        body.add_op(op)
    body.add_op(scf.YieldOp())
    wrapper = scf.IfOp(cond, [], Region(body))
    if terminator is not None and isinstance(terminator, scf.YieldOp | gpu.ReturnOp):
        block.insert_op_before(wrapper, terminator)
    else:
        block.add_op(wrapper)


def _spill_crossing_values(parts: list[list[Operation] | Operation], guard: Operation) -> None:
    """Values computed in one guarded part and used in another part go through a private
    variable (stored where computed, loaded where used; both under the guard)."""
    top_of: dict[Operation, int] = {}
    for index, part in enumerate(parts):
        for op in part if isinstance(part, list) else [part]:
            top_of[op] = index
    then = guard.regions[0].block
    for index, part in enumerate(parts):
        if not isinstance(part, list):
            continue
        for op in part:
            for result in op.results:
                users = [u.operation for u in result.uses]
                crossing = [
                    u
                    for u in users
                    if (top := enclosing_block_in(u, then)) is None or top_of.get(top) != index
                ]
                if not crossing:
                    continue
                if not isinstance(result.type, (IndexType,)) and not _scalar(result.type):
                    raise NotUniform("a non-scalar value crosses a barrier under a guard")
                slot = memref.AllocaOp.get(result.type, shape=[])
                slot.memref.name_hint = f"{result.name_hint or 'spill'}_slot"
                Rewriter.insert_op(slot, InsertPoint.before(guard))
                Rewriter.insert_op(
                    memref.StoreOp.get(result, slot.memref, []), InsertPoint.after(op)
                )
                for user in crossing:
                    if is_required(user) or _is_control_operand_user(user, result):
                        raise NotUniform(
                            "a value computed under a guard decides control flow around a "
                            "barrier"
                        )
                    reload = memref.LoadOp.get(slot.memref, [])
                    reload.res.name_hint = result.name_hint
                    Rewriter.insert_op(reload, InsertPoint.before(user))
                    for i, operand in enumerate(user.operands):
                        if operand is result:
                            user.operands[i] = reload.res


def _is_control_operand_user(user: Operation, value: SSAValue) -> bool:
    return isinstance(user, (scf.ForOp, scf.IfOp)) and contains_required(user)


def _scalar(type: Attribute) -> bool:
    from xdsl.dialects.builtin import AnyFloat, IntegerType

    return isinstance(type, (IntegerType, AnyFloat)) and not isinstance(type, MemRefType)
