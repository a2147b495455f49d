"""`gpu-narrow-indices`: compute a kernel's index arithmetic in 32 bits where that is exact.

The lowering computes every thread index, replica offset, tile counter and shared-memory
subscript in `index` (`long long`), so that no size can overflow it; on a GPU that costs two
registers per value and 64-bit multiply-adds in the inner loops. Most of those values are small.
Two arguments make a 32-bit version exact, and nothing else is narrowed:

1. **Ranges.** A value whose every possible value fits a signed 32-bit integer, computed from
   operands that do (`analysis/value_ranges.py`: CUDA's limits on thread and block indices, the
   parameters' C types, loop bounds), is computed in `i32` with `nsw` — thread and block
   indices and dims, replica offsets, shared tile offsets, the counters of loops whose bound
   plus step stays below 2^31, and the comparisons, quotients and remainders of such values.
   Where a 64-bit user remains (a global subscript, a size), it reads the sign extension.
2. **Bounded subscripts** (option `subscripts`). The subscript of an access to a memref of
   static shape (a `__shared__` tile, a private array) lies in `[0, extent)` whenever the
   access runs (otherwise the program is undefined). A subscript built by `+ - *` only is
   therefore computed exactly by the same tree in wrapping 32-bit arithmetic (a ring
   homomorphism modulo 2^32, whose result read as signed is the subscript itself), even when
   an intermediate value (`(k - k_first) * 128`) has no 32-bit range. The tree is cloned for
   the subscript alone; its other users keep their values.

Global subscripts of runtime sizes are left as they are (C already computes `A[i * m + j]` in
the parameters' types).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, gpu, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp, i32
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from autogpu.passes.analysis.integers import constant_int, to_signed
from autogpu.passes.analysis.value_ranges import ValueRanges
from autogpu.passes.options import DeclaredOptionsPass, option

_BUILTINS = (gpu.ThreadIdOp, gpu.BlockIdOp, gpu.BlockDimOp, gpu.GridDimOp)
_RING = (arith.AddiOp, arith.SubiOp, arith.MuliOp)
_SAME_VALUE = (arith.MinSIOp, arith.MaxSIOp, arith.DivSIOp, arith.RemSIOp)
"""Ops whose 32-bit result equals the 64-bit one when operands and result fit (C truncates
quotients toward zero in both)."""
_NSW = arith.IntegerOverflowFlag.NSW
_INT_MAX = 2**31 - 1


@dataclass(frozen=True)
class GpuNarrowIndicesPass(DeclaredOptionsPass):
    """Compute index arithmetic in 32 bits where its range or a static-shape subscript proves
    that exact (see the module docstring)."""

    name = "gpu-narrow-indices"

    subscripts: bool = option(
        True,
        doc="Also compute the subscripts of static-shape memrefs (shared tiles, private arrays) "
        "built by + - * in wrapping 32-bit arithmetic: exact because the subscript lies in "
        "[0, extent) whenever the access runs.",
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in op.walk():
            if isinstance(kernel, gpu.FuncOp):
                narrowing = _Narrowing(ValueRanges())
                narrowing.narrow_ranges(kernel)
                if self.subscripts:
                    narrowing.narrow_subscripts(kernel)
                narrowing.erase_dead()


def _is_index(value: SSAValue) -> bool:
    return isinstance(value.type, IndexType)


def _fits(low: int, high: int) -> bool:
    return -(2**31) <= low and high <= _INT_MAX


class _Narrowing:
    """The 32-bit twins of one kernel's index values, built and then used."""

    def __init__(self, ranges: ValueRanges) -> None:
        self.ranges = ranges
        self.twin: dict[SSAValue, SSAValue] = {}
        self.widened: dict[SSAValue, SSAValue] = {}  # twin -> its sign extension to index
        self.replaced: list[Operation] = []  # originals computed again as a twin
        self.narrowed: set[Operation] = set()  # the same, for look-ups
        self.old_variables: list[BlockArgument] = []  # `index` variables of narrowed loops
        self.maybe_dead: list[Operation] = []  # built or bypassed here; erased if unused

    # -- 1. ranges ---------------------------------------------------------------------------
    def narrow_ranges(self, kernel: gpu.FuncOp) -> None:
        originals: list[SSAValue] = []
        for op in list(kernel.walk()):
            if isinstance(op, scf.ForOp):
                if self._narrow_loop(op):
                    originals.append(op.body.block.args[1])
            elif len(op.results) == 1 and _is_index(op.results[0]) and self._in_range(op):
                twin = self._build_twin(op)
                if twin is not None:
                    self.twin[op.results[0]] = twin
                    originals.append(op.results[0])
        for value in originals:
            self._move_users(value)
        self.old_variables = [v for v in originals if isinstance(v, BlockArgument)]

    def _in_range(self, op: Operation) -> bool:
        value = op.results[0]
        found = self.ranges.of(value)
        if not _fits(found.lo, found.hi):
            return False
        return all(o in self.twin or not _is_index(o) for o in op.operands)

    def _build_twin(self, op: Operation) -> SSAValue | None:
        """The i32 value equal to `op`'s result, inserted after it; None for an op whose
        32-bit form is not known to be the same value."""
        at = InsertPoint.after(op)
        if isinstance(op, _BUILTINS):
            cast = arith.IndexCastOp(op.results[0], i32)
            Rewriter.insert_op(cast, at)
            cast.result.name_hint = op.results[0].name_hint
            self.maybe_dead.append(cast)
            return cast.result
        if isinstance(op, arith.ConstantOp):
            value = constant_int(op.results[0])
            assert value is not None
            constant = arith.ConstantOp(IntegerAttr(value, i32))
            Rewriter.insert_op(constant, at)
            self.maybe_dead.append(constant)
            return constant.result
        if isinstance(op, arith.IndexCastOp):
            source = op.input
            if source.type == i32:
                return source  # a sign extension: the 32-bit value itself
            return None
        if isinstance(op, _RING):
            nsw = arith.IntegerOverflowAttr([_NSW])
            twin = type(op)(self.twin[op.lhs], self.twin[op.rhs], overflow=nsw)
        elif isinstance(op, _SAME_VALUE):
            twin = type(op)(self.twin[op.lhs], self.twin[op.rhs])
        elif isinstance(op, arith.SelectOp):
            twin = arith.SelectOp(op.cond, self.twin[op.lhs], self.twin[op.rhs])
        else:
            return None
        self.replaced.append(op)
        self.narrowed.add(op)
        Rewriter.insert_op(twin, at)
        twin.results[0].name_hint = op.results[0].name_hint
        return twin.results[0]

    def _narrow_loop(self, loop: scf.ForOp) -> bool:
        """An `index` loop whose bounds have twins and whose last step cannot pass 2^31 - 1
        becomes a loop on i32 (the old variable a twin of the new one)."""
        iv = loop.body.block.args[0]
        if not _is_index(iv) or not all(b in self.twin for b in (loop.lb, loop.ub, loop.step)):
            return False
        step = constant_int(loop.step)
        if step is None or step <= 0:
            return False
        if not _fits(self.ranges.of(loop.lb).lo, self.ranges.of(loop.ub).hi + step - 1):
            return False
        self.ranges.of(iv)  # known before the variable moves to argument 1
        block = loop.body.block
        narrow = block.insert_arg(i32, 0)
        narrow.name_hint = iv.name_hint
        self.twin[iv] = narrow
        loop.operands[0] = self.twin[loop.lb]
        loop.operands[1] = self.twin[loop.ub]
        loop.operands[2] = self.twin[loop.step]
        return True

    def _move_users(self, value: SSAValue) -> None:
        """Every user of `value` that is not narrowed itself reads the twin: a truncation is the
        twin, a comparison of two narrowed values compares twins, the others read its sign
        extension (built once)."""
        twin = self.twin[value]
        for use in list(value.uses):
            user = use.operation
            if user in self.narrowed:
                continue  # narrowed itself: its twin reads `twin`
            if isinstance(user, arith.IndexCastOp) and user.result.type == i32:
                if user.result is twin:
                    continue
                user.result.replace_all_uses_with(twin)
                Rewriter.erase_op(user)
            elif isinstance(user, arith.CmpiOp) and all(o in self.twin for o in user.operands):
                compare = arith.CmpiOp(self.twin[user.lhs], self.twin[user.rhs],
                                       user.predicate.value.data)
                Rewriter.replace_op(user, compare)
            elif isinstance(value.owner, (*_BUILTINS, arith.IndexCastOp, arith.ConstantOp)):
                continue  # the original is as cheap as the extension
            else:
                user.operands[use.index] = self._widen(twin)

    def _widen(self, twin: SSAValue) -> SSAValue:
        if twin not in self.widened:
            wide = arith.IndexCastOp(twin, IndexType())
            if isinstance(twin, BlockArgument):
                block = twin.owner
                assert isinstance(block, Block)
                Rewriter.insert_op(wide, InsertPoint.at_start(block))
            else:
                assert isinstance(twin.owner, Operation)
                Rewriter.insert_op(wide, InsertPoint.after(twin.owner))
            wide.result.name_hint = twin.name_hint
            self.widened[twin] = wide.result
        return self.widened[twin]

    # -- 2. bounded subscripts ---------------------------------------------------------------
    def narrow_subscripts(self, kernel: gpu.FuncOp) -> None:
        for op in list(kernel.walk()):
            if isinstance(op, memref.LoadOp | memref.StoreOp):
                memory = op.memref.type
                if not isinstance(memory, MemRefType):
                    continue
                shape = memory.get_shape()
                for position, subscript in enumerate(op.indices):
                    if 0 <= shape[position] <= _INT_MAX:
                        narrow = self._wrapping_tree(subscript, op)
                        if narrow is not None:
                            wide = arith.IndexCastOp(narrow, IndexType())
                            Rewriter.insert_op(wide, InsertPoint.before(op))
                            op.operands[subscript_operand(op, position)] = wide.result
                            assert isinstance(subscript.owner, Operation)
                            self.maybe_dead.append(subscript.owner)

    def _wrapping_tree(self, subscript: SSAValue, before: Operation) -> SSAValue | None:
        """The subscript recomputed in wrapping i32 from its `+ - *` tree, or None where it
        is already narrow or a leaf has no exact 32-bit residue."""
        owner = subscript.owner
        if not isinstance(owner, _RING):
            return None
        built: dict[SSAValue, SSAValue] = {}

        def residue(value: SSAValue) -> SSAValue | None:
            if value in self.twin:
                return self.twin[value]
            if value in built:
                return built[value]
            known = constant_int(value)
            op = value.owner
            if known is not None:
                new: Operation = arith.ConstantOp(IntegerAttr(to_signed(known, 32), i32))
            elif isinstance(op, arith.IndexCastOp) and op.input.type == i32:
                return op.input
            elif isinstance(op, _RING):
                lhs, rhs = residue(op.lhs), residue(op.rhs)
                if lhs is None or rhs is None:
                    return None
                new = type(op)(lhs, rhs)
            else:
                return None
            Rewriter.insert_op(new, InsertPoint.before(before))
            built[value] = new.results[0]
            return new.results[0]

        return residue(subscript)

    # -- cleanup -------------------------------------------------------------------------------
    def erase_dead(self) -> None:
        """Erases what this pass made unused: the originals computed again as twins, the old
        subscripts' trees, twins nothing reads."""
        for op in reversed(self.replaced):
            _erase_if_unused(op)
        for op in self.maybe_dead:
            _erase_if_unused(op)
        for variable in self.old_variables:
            block = variable.owner
            assert isinstance(block, Block)
            block.erase_arg(variable)


def _erase_if_unused(op: Operation) -> None:
    """Erases a pure `arith` op nothing reads, then the operands' owners it was the last
    reader of."""
    if op.parent is None or any(r.uses for r in op.results) or not op.name.startswith("arith."):
        return
    owners = [o.owner for o in op.operands if isinstance(o.owner, Operation)]
    Rewriter.erase_op(op)
    for owner in owners:
        _erase_if_unused(owner)


def subscript_operand(op: memref.LoadOp | memref.StoreOp, position: int) -> int:
    """The operand number of subscript `position` (after the stored value and the memref)."""
    return position + (2 if isinstance(op, memref.StoreOp) else 1)
