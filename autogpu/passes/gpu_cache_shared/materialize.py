"""Recomputing block-uniform values at another point of a kernel.

The cooperative load of a tile runs before the loops that read it, outside the guards that
stop the threads with no work, so everything it needs (bases, strides, bounds, trip counts) is
recomputed there: a value that is available at the point (it dominates the point and lies
outside every guard around it, or is the induction variable of an enclosing uniform loop) is
used as it is; a value computed by ops that may run speculatively (`facts.is_speculatable`) is
recomputed by cloning them; anything else (a load, a value of a thread) cannot be had, and the
transformation does not fire.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.hints import isa

from autogpu.passes.analysis.integers import (
    INDEX_WIDTH,
    bit_width,
    constant_int,
    signless,
    to_signed,
)
from autogpu.passes.analysis.loops import defined_inside
from autogpu.passes.analysis.polynomial import Polynomial
from autogpu.passes.gpu_cache_shared.facts import (
    KernelFacts,
    ancestors,
    enclosing_block_in,
    is_speculatable,
)

INDEX = IndexType()


class NotAvailable(Exception):
    """A value cannot be recomputed at the point."""


class Emitter:
    """Folded integer arithmetic inserted before an op (constants folded on the fly)."""

    def __init__(self, point: Operation):
        self.point = point

    def insert(self, op: Operation, name: str | None = None) -> SSAValue:
        Rewriter.insert_op(op, InsertPoint.before(self.point))
        result = op.results[0]
        if name is not None and result.name_hint is None:
            result.name_hint = name
        return result

    def const(self, value: int, type: Attribute = INDEX) -> SSAValue:
        width = bit_width(type)
        assert width is not None
        assert isa(type, IntegerType | IndexType)
        return self.insert(arith.ConstantOp(IntegerAttr(to_signed(value, width), type)))

    def cast(self, value: SSAValue, type: Attribute, name: str | None = None) -> SSAValue:
        """`value` as an integer of `type`: sign-extended when wider, truncated when narrower."""
        if value.type == type:
            return value
        if (known := constant_int(value)) is not None:
            return self.const(known, type)
        if isinstance(value.type, IndexType) or isinstance(type, IndexType):
            return self.insert(arith.IndexCastOp(value, type), name)
        source, target = bit_width(value.type), bit_width(type)
        assert source is not None
        assert target is not None
        assert isa(type, IntegerType)
        if target < source:
            return self.insert(arith.TruncIOp(value, type), name)
        return self.insert(arith.ExtSIOp(value, type), name)

    def index(self, value: SSAValue, zero_extend: bool) -> SSAValue:
        """A memref index from an integer `value`, extended as the frontend extends a C index
        of that signedness (docs/ir.md): sign-extended, or zero-extended for an unsigned one."""
        width = bit_width(value.type)
        assert width is not None
        if not zero_extend or width >= INDEX_WIDTH:
            return self.cast(value, IndexType())
        if (known := constant_int(value)) is not None:
            return self.const(known % (1 << width))
        return self.cast(self.insert(arith.ExtUIOp(value, IntegerType(INDEX_WIDTH))), IndexType())

    def add(self, a: SSAValue, b: SSAValue, name: str | None = None) -> SSAValue:
        ca, cb = constant_int(a), constant_int(b)
        if cb == 0:
            return a
        if ca == 0:
            return b
        if ca is not None and cb is not None:
            return self.const(ca + cb, a.type)
        if cb is not None and cb < 0 and -cb < 1 << 31:  # x + -1 reads better as x - 1
            return self.insert(arith.SubiOp(a, self.const(-cb, a.type)), name)
        return self.insert(arith.AddiOp(a, b), name)

    def sub(self, a: SSAValue, b: SSAValue, name: str | None = None) -> SSAValue:
        ca, cb = constant_int(a), constant_int(b)
        if cb == 0:
            return a
        if ca is not None and cb is not None:
            return self.const(ca - cb, a.type)
        return self.insert(arith.SubiOp(a, b), name)

    def mul(self, a: SSAValue, b: SSAValue, name: str | None = None) -> SSAValue:
        ca, cb = constant_int(a), constant_int(b)
        if cb == 1:
            return a
        if ca == 1:
            return b
        if ca == 0 or cb == 0:
            return self.const(0, a.type)
        if ca is not None and cb is not None:
            return self.const(ca * cb, a.type)
        return self.insert(arith.MuliOp(a, b), name)

    def div(self, a: SSAValue, divisor: int, name: str | None = None) -> SSAValue:
        """`a / divisor` for a positive constant divisor (exact or floor for a >= 0)."""
        if divisor == 1:
            return a
        if (ca := constant_int(a)) is not None:
            return self.const(ca // divisor, a.type)
        return self.insert(arith.DivSIOp(a, self.const(divisor, a.type)), name)

    def rem(self, a: SSAValue, divisor: int, name: str | None = None) -> SSAValue:
        if (ca := constant_int(a)) is not None:
            return self.const(ca % divisor, a.type)
        return self.insert(arith.RemSIOp(a, self.const(divisor, a.type)), name)

    def min(self, a: SSAValue, b: SSAValue, name: str | None = None) -> SSAValue:
        ca, cb = constant_int(a), constant_int(b)
        if ca is not None and cb is not None:
            return self.const(min(ca, cb), a.type)
        return self.insert(arith.MinSIOp(a, b), name)

    def max(self, a: SSAValue, b: SSAValue, name: str | None = None) -> SSAValue:
        ca, cb = constant_int(a), constant_int(b)
        if ca is not None and cb is not None:
            return self.const(max(ca, cb), a.type)
        return self.insert(arith.MaxSIOp(a, b), name)

    def lt(self, a: SSAValue, b: SSAValue, name: str | None = None) -> SSAValue:
        ca, cb = constant_int(a), constant_int(b)
        if ca is not None and cb is not None:
            return self.true() if ca < cb else self.false()
        return self.insert(arith.CmpiOp(a, b, "slt"), name)

    def le(self, a: SSAValue, b: SSAValue, name: str | None = None) -> SSAValue:
        ca, cb = constant_int(a), constant_int(b)
        if ca is not None and cb is not None:
            return self.true() if ca <= cb else self.false()
        return self.insert(arith.CmpiOp(a, b, "sle"), name)

    def true(self) -> SSAValue:
        return self.insert(arith.ConstantOp(IntegerAttr(1, IntegerType(1))))

    def false(self) -> SSAValue:
        return self.insert(arith.ConstantOp(IntegerAttr(0, IntegerType(1))))

    def and_(self, a: SSAValue | None, b: SSAValue, name: str | None = None) -> SSAValue:
        """Conjunction (None stands for true); folds constant operands."""
        if a is None or constant_int(a) == -1 or constant_int(a) == 1:
            return b
        if constant_int(b) in (1, -1):
            return a
        if constant_int(a) == 0 or constant_int(b) == 0:
            return self.false()
        return self.insert(arith.AndIOp(a, b), name)

    def or_(self, a: SSAValue | None, b: SSAValue, name: str | None = None) -> SSAValue:
        if a is None or constant_int(a) == 0:
            return b
        if constant_int(b) == 0:
            return a
        if constant_int(a) in (1, -1) or constant_int(b) in (1, -1):
            return self.true()
        return self.insert(arith.OrIOp(a, b), name)

    def not_(self, a: SSAValue) -> SSAValue:
        c = constant_int(a)
        if c is not None:
            return self.false() if c else self.true()
        return self.insert(arith.XOrIOp(a, self.true()))


class Materializer(Emitter):
    """Provides block-uniform values (and polynomials of them) before `point`."""

    def __init__(self, facts: KernelFacts, point: Operation):
        super().__init__(point)
        self.facts = facts
        enclosing = ancestors(point, facts.kernel)
        self._loops = {op for op in enclosing if isinstance(op, scf.ForOp)}
        self._guards = [op for op in enclosing if facts.is_guard(op)]
        self._values: dict[SSAValue, SSAValue] = {}

    # -- availability -------------------------------------------------------------------------

    def _available_as_is(self, value: SSAValue) -> bool:
        if isinstance(value, BlockArgument):
            if value.block is self.facts.entry:
                return True
            loop = value.block.parent_op()  # an enclosing loop stays around the point
            return loop in self._loops and value.index == 0
        if any(defined_inside(value, guard) for guard in self._guards):
            return False
        owner = value.owner
        assert isinstance(owner, Operation)
        block = owner.parent_block()
        if block is None:
            return False
        anchor = enclosing_block_in(self.point, block)
        return anchor is not None and anchor is not owner and owner.is_before_in_block(anchor)

    def can(self, value: SSAValue) -> bool:
        if value in self._values:
            return True
        if not self.facts.is_uniform(value):
            return False
        if self._available_as_is(value):
            return True
        owner = value.owner
        if not isinstance(owner, Operation) or not is_speculatable(owner):
            return False
        return all(self.can(operand) for operand in owner.operands)

    def get(self, value: SSAValue) -> SSAValue:
        if (known := self._values.get(value)) is not None:
            return known
        if not self.facts.is_uniform(value):
            raise NotAvailable(value)
        if self._available_as_is(value):
            result = value
        else:
            owner = value.owner
            if not isinstance(owner, Operation) or not is_speculatable(owner):
                raise NotAvailable(value)
            mapping = {operand: self.get(operand) for operand in owner.operands}
            clone = owner.clone(value_mapper=mapping)
            Rewriter.insert_op(clone, InsertPoint.before(self.point))
            assert isinstance(value, OpResult)
            result = clone.results[list(owner.results).index(value)]
        self._values[value] = result
        return result

    # -- polynomials -------------------------------------------------------------------------

    def can_poly(self, poly: Polynomial) -> bool:
        return all(self.can(poly.atoms[a]) for a in poly.atom_ids())

    def poly(self, poly: Polynomial, name: str | None = None) -> SSAValue:
        """A value computing `poly` (in its type, signless) from its atoms: the terms with
        positive coefficients added, then the others subtracted (`m - 32 * bx`)."""
        type = signless(poly.type)

        def monomial(atoms: tuple[int, ...]) -> SSAValue | None:
            product: SSAValue | None = None
            for atom in atoms:
                factor = self.cast(self.get(poly.atoms[atom]), type)
                product = factor if product is None else self.mul(product, factor)
            return product

        total: SSAValue | None = None
        terms = sorted(poly.terms, key=lambda m: (poly.signed(m) < 0, len(m) == 0, m))
        for atoms in terms:
            coefficient = poly.signed(atoms)
            product = monomial(atoms)
            if total is not None and coefficient < 0:
                amount = (
                    self.const(-coefficient, type)
                    if product is None
                    else self.mul(self.const(-coefficient, type), product)
                )
                total = self.sub(total, amount)
                continue
            if product is None:
                term = self.const(coefficient, type)
            else:
                term = self.mul(self.const(coefficient, type), product)
            total = term if total is None else self.add(total, term)
        result = total if total is not None else self.const(0, type)
        if name is not None and result.name_hint is None and constant_int(result) is None:
            result.name_hint = name
        return result
