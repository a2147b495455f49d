"""The exact value of an unsigned 32-bit subscript, for the dependence check.

C computes `a[i + 0x80000000u]` on `unsigned i` modulo 2^32 and zero-extends the result
(docs/ir.md: `index_cast(extui)`); `PolynomialAnalysis.index_poly` gives its polynomial in `ui32`,
whose coefficients are residues. Reading them as signed integers (as a signed index may be read,
its overflow being undefined) is wrong here: `i + 0x80000000u` would become `i - 2^31`, so that
iterations `i` and `i + 2^31`, which touch the same element, would look independent. A polynomial
in Z/2^32 is its integer value only where that value cannot leave one window of 2^32; the atoms'
ranges (loop variables within their bounds, zero-extended values, constants) say where it lies.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, scf
from xdsl.ir import Attribute, BlockArgument, SSAValue

from autogpu.dialects.agpu import ParallelForOp
from autogpu.passes.analysis.integers import bit_width, constant_int
from autogpu.passes.analysis.polynomial import Polynomial

Range = tuple[int, int]


def exact_unsigned(poly: Polynomial, index_type: Attribute) -> Polynomial | None:
    """`poly` (an unsigned subscript's polynomial, e.g. in `ui32`) as a polynomial in
    `index_type` whose integer value is the zero-extended subscript for every value its atoms can
    take; None when the subscript may wrap around 2^width (then only the residues are known)."""
    wide = poly.widened(index_type)  # coefficients read as signed: one representative
    span = _poly_range(wide)
    if span is None:
        return None
    window = span[0] >> poly.width
    if span[1] >> poly.width != window:
        return None
    return wide.plus(Polynomial.constant_of(index_type, -window << poly.width))


def residues_decide(
    first: Sequence[tuple[Polynomial, SSAValue]],
    second: Sequence[tuple[Polynomial, SSAValue]],
    rest: Polynomial,
    width: int = 32,
) -> bool:
    """Whether two subscripts known modulo 2^width are equal exactly when the integers that
    represent them are: their difference `sum(c * v) - sum(c' * v') + rest` (each variable `v`
    of one access and `v'` of the other ranging independently, `rest` the difference of the
    parts both share) provably lies strictly between -2^width and 2^width. `a[off + i]` against
    `a[off + i']` (`i - i'`, less than 2^32 apart) qualifies; `a[2u * i]` does not."""
    lo = hi = 0
    for terms, sign in ((first, 1), (second, -1)):
        for coefficient, variable in terms:
            factor, values = _poly_range(coefficient), value_range(variable)
            if factor is None or values is None:
                return False
            corners = [sign * a * b for a in factor for b in values]
            lo, hi = lo + min(corners), hi + max(corners)
    shared = _poly_range(rest)
    if shared is None:
        return False
    lo, hi = lo + shared[0], hi + shared[1]
    return -(1 << width) < lo and hi < 1 << width


def _poly_range(poly: Polynomial) -> Range | None:
    """The smallest and largest integer value of `poly` over its atoms' ranges."""
    lo = hi = 0
    for monomial in poly.terms:
        term: Range = (poly.signed(monomial), poly.signed(monomial))
        for atom in monomial:
            factor = value_range(poly.atoms[atom])
            if factor is None:
                return None
            corners = [a * b for a in term for b in factor]
            term = (min(corners), max(corners))
        lo, hi = lo + term[0], hi + term[1]
    return lo, hi


def value_range(value: SSAValue, depth: int = 0) -> Range | None:
    """The integer values `value` may take, as the dependence check reads it: constants,
    zero-extended values (`[0, 2^w - 1]`), loop variables within their bounds, sums, differences
    and products of those that cannot wrap, anything else anywhere in its type's signed
    range."""
    width = bit_width(value.type)
    if width is None:
        return None
    full = (-(1 << (width - 1)), (1 << (width - 1)) - 1)
    if depth > 32:
        return full
    if (constant := constant_int(value)) is not None:
        return constant, constant
    owner = value.owner
    if isinstance(owner, arith.ExtUIOp):
        source = bit_width(owner.input.type) or width
        inner = value_range(owner.input, depth + 1)
        if inner is not None and inner[0] >= 0:
            return inner
        return 0, (1 << source) - 1
    if isinstance(owner, (arith.ExtSIOp, arith.IndexCastOp)):
        source = bit_width(owner.operands[0].type)
        if source is not None and source <= width:
            return value_range(owner.operands[0], depth + 1)
    if isinstance(owner, (arith.AddiOp, arith.SubiOp, arith.MuliOp)):
        a, b = value_range(owner.lhs, depth + 1), value_range(owner.rhs, depth + 1)
        if a is not None and b is not None:
            if isinstance(owner, arith.MuliOp):
                corners = [x * y for x in a for y in b]
                result = (min(corners), max(corners))
            elif isinstance(owner, arith.AddiOp):
                result = (a[0] + b[0], a[1] + b[1])
            else:
                result = (a[0] - b[1], a[1] - b[0])
            if full[0] <= result[0] and result[1] <= full[1]:  # else it may wrap
                return result
    if isinstance(value, BlockArgument) and value.index == 0:
        loop = value.block.parent_op()
        if isinstance(loop, (scf.ForOp, ParallelForOp)) and value.block is loop.body.blocks[0]:
            lb, ub = value_range(loop.lb, depth + 1), value_range(loop.ub, depth + 1)
            if lb is not None and ub is not None:
                return lb[0], max(lb[0], ub[1] - 1)
    return full


__all__ = ["exact_unsigned", "residues_decide", "value_range"]
