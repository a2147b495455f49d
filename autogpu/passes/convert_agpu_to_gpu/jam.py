"""Unroll-and-jam of a thread's replicas (AutoGPU 2.3.4, parallel unrolling).

A thread that runs `R` iterations of the mapped loops (its *replicas*, `unroll` per dimension)
could run the body `R` times in a row; jamming instead emits the body once, with every op
repeated for each replica in place, and goes *through* serial control flow whose bounds or
condition are the same for all replicas:

    for k: { acc0 += B[i0 + k*m] * C[k + j*p];  acc1 += B[i1 + k*m] * C[k + j*p]; }

Per op of the body, in program order:

- an op without regions that is side-effect free or a `memref.load` is emitted once per
  *distinct* operand tuple: replicas whose operands are the same values share one result (the
  load of `C[k + j*p]` above, index arithmetic that does not depend on the replica). This is
  legal without any alias reasoning: the replicas' copies of one op run back to back in the
  jammed order, so nothing can write memory between them;
- `scf.for` with the same bounds for every replica becomes one loop whose body is jammed (its
  `iter_args` are replicated), `scf.if` with the same condition one `if` with both branches
  jammed (results replicated);
- everything else (stores, allocations, calls, atomics, loops or ifs whose bounds or condition
  depend on the replica, `scf.while`, nested parallel loops) is repeated per replica, in replica
  order. Each replica thus keeps its own `memref.alloca` slots (staged accumulators, locals).

Legality: jamming reorders the statements of *different* iterations of a parallel loop, which the
user promised independent (`#pragma omp parallel for`: no iteration touches memory another one
writes). Memory the lowering makes private to a *thread* (privatised variables, reduction
copies) would be shared by its replicas: the caller gives each replica its own copy through the
replica environments.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import memref, scf
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from autogpu.passes.utils.slices import is_pure

Env = dict[SSAValue, SSAValue]


def _mapped(env: Env, value: SSAValue) -> SSAValue:
    return env.get(value, value)


def _uniform(values: Sequence[SSAValue], envs: Sequence[Env]) -> bool:
    """The values are the same SSA values for every replica."""
    return all(
        all(_mapped(env, v) is _mapped(envs[0], v) for env in envs[1:]) for v in values
    )


def _shareable(op: Operation) -> bool:
    return not op.regions and (isinstance(op, memref.LoadOp) or is_pure(op))


class Jammer:
    """Emits jammed copies of ops at a builder's insertion point. `envs[r]` maps the original
    values to replica r's values and receives the mapping of every op emitted."""

    def __init__(self, builder: Builder):
        self.builder = builder

    def emit_ops(self, ops: Iterable[Operation], envs: Sequence[Env]) -> None:
        for op in ops:
            self.emit(op, envs)

    def emit(self, op: Operation, envs: Sequence[Env]) -> None:
        if _shareable(op):
            self._shared(op, envs)
        elif isinstance(op, scf.ForOp) and _uniform([op.lb, op.ub, op.step], envs):
            self._jam_for(op, envs)
        elif isinstance(op, scf.IfOp) and _uniform([op.cond], envs):
            self._jam_if(op, envs)
        else:
            for env in envs:
                self.builder.insert(op.clone(value_mapper=env))

    def _shared(self, op: Operation, envs: Sequence[Env]) -> None:
        emitted: dict[tuple[SSAValue, ...], Operation] = {}
        for env in envs:
            key = tuple(_mapped(env, v) for v in op.operands)
            if (clone := emitted.get(key)) is None:
                clone = self.builder.insert(op.clone(value_mapper=env))
                emitted[key] = clone
            else:
                env.update(zip(op.results, clone.results))

    def _region(self, block: Block, envs: Sequence[Env]) -> list[SSAValue]:
        """Jams `block` (all ops but its `scf.yield`) at the builder's insertion point and
        returns the replicas' yielded values, replica after replica."""
        terminator = block.last_op
        assert isinstance(terminator, scf.YieldOp)
        self.emit_ops((op for op in block.ops if op is not terminator), envs)
        return [_mapped(env, v) for env in envs for v in terminator.arguments]

    def _jam_for(self, op: scf.ForOp, envs: Sequence[Env]) -> None:
        old = op.body.block
        inits = [_mapped(env, v) for env in envs for v in op.iter_args]
        body = Block(arg_types=[old.args[0].type, *(v.type for v in inits)])
        body.args[0].name_hint = old.args[0].name_hint
        carried = len(op.iter_args)
        for r, env in enumerate(envs):
            env[old.args[0]] = body.args[0]
            for k, arg in enumerate(old.args[1:]):
                new = body.args[1 + r * carried + k]
                new.name_hint = arg.name_hint
                env[arg] = new
        first = envs[0]
        loop = scf.ForOp(
            _mapped(first, op.lb), _mapped(first, op.ub), _mapped(first, op.step), inits, body
        )
        self.builder.insert(loop)
        self._fill(body, old, envs)
        for r, env in enumerate(envs):
            for k, result in enumerate(op.results):
                env[result] = loop.results[r * carried + k]
                loop.results[r * carried + k].name_hint = result.name_hint

    def _jam_if(self, op: scf.IfOp, envs: Sequence[Env]) -> None:
        """One `if` for all replicas. A result that every replica yields alike in both branches
        (the replicas agree on everything it depends on) is yielded once."""
        blocks = [Block()] + ([Block()] if op.false_region.blocks else [])
        olds = [op.true_region.block] + ([op.false_region.block] if op.false_region.blocks else [])
        yields = [self._filled(block, old, envs) for block, old in zip(blocks, olds)]
        count = len(op.results)
        # slots[r][k]: the position of replica r's result k among the new if's results
        slots: list[list[int]] = [[0] * count for _ in envs]
        kept: list[tuple[int, int]] = []  # (replica, result) yielded by the new if
        for k in range(count):
            shared = all(
                len({y[r * count + k] for r in range(len(envs))}) == 1 for y in yields
            )
            for r in range(len(envs)):
                if r and shared:
                    slots[r][k] = slots[0][k]
                    continue
                slots[r][k] = len(kept)
                kept.append((r, k))
        for block, yielded in zip(blocks, yields):
            block.add_op(scf.YieldOp(*(yielded[r * count + k] for r, k in kept)))
        new = scf.IfOp(
            _mapped(envs[0], op.cond),
            [op.results[k].type for _, k in kept],
            Region(blocks[0]),
            Region(blocks[1]) if len(blocks) > 1 else Region(),
        )
        self.builder.insert(new)
        for r, env in enumerate(envs):
            for k, result in enumerate(op.results):
                env[result] = new.results[slots[r][k]]
                new.results[slots[r][k]].name_hint = result.name_hint

    def _filled(self, block: Block, old: Block, envs: Sequence[Env]) -> list[SSAValue]:
        """Jams the ops of `old` (but its yield) into the empty `block`; returns the replicas'
        yielded values, replica after replica."""
        outer = self.builder.insertion_point
        self.builder.insertion_point = InsertPoint.at_end(block)
        yielded = self._region(old, envs)
        self.builder.insertion_point = outer
        return yielded

    def _fill(self, block: Block, old: Block, envs: Sequence[Env]) -> None:
        """Jams the ops of `old` into the empty `block`, ending with the replicas' yield."""
        outer = self.builder.insertion_point
        self.builder.insertion_point = InsertPoint.at_end(block)
        yielded = self._region(old, envs)
        self.builder.insert(scf.YieldOp(*yielded))
        self.builder.insertion_point = outer
