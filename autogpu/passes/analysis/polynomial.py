"""Integer expressions as polynomials over atoms: the one index analysis of the passes.

The frontend computes every array index in its C integer type (docs/ir.md: "Arrays are flat"),
e.g. `A[i + j*m]` is `index_cast(addi(i, muli(j, m)))`, and tiling an access needs to see through
products: `in[(i - 1) * m + j]` is `i*m - m + j`, whose coefficient of `i` is `m` and which
differs from `in[(i + 1) * m + j]` by `-2*m`, i.e. by two rows. A polynomial is
`sum(coefficient * monomial)`, a monomial a product of atoms: values the decomposition does not
look through (loop induction variables, function arguments, loads, ...). Coefficients live in
Z/2^w of the w-bit type the value is computed in, because `arith` wraps, and so does ring
arithmetic on polynomials: the decomposition is exact whatever overflows, so

- two indices with equal polynomials are the same element (`provably_equal`), and
- two indices whose polynomials differ by a non-zero constant are different elements
  (`provably_distinct`; `index_cast` sign-extends, and `extui` zero-extends, which keeps equal
  values equal and different values different).

Atoms are identified structurally, by interned integer ids so that large unrolled bodies stay
cheap: two separately computed `j * m` (the frontend recomputes an index for the load and for the
store of `A[idx] += x`) are the same atom, because a side-effect free op applied to the same
operands yields the same value. Results of ops with memory effects (loads) are identified by the
SSA value only.

Truncations (`arith.trunci`, and `arith.index_cast` to a type no wider) are ring homomorphisms
Z/2^m -> Z/2^n, so the decomposition looks through them (the GPU lowering computes thread indices
in `index` and casts them to the loop's C type): a truncated polynomial keeps its atoms, which
then stand for their truncated values. Sign extensions are not homomorphisms: an extended value
is an atom, unless it is a constant (zero extensions alike).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.traits import is_side_effect_free

from autogpu.passes.analysis.integers import bit_width, constant_int, to_signed, unsigned

Monomial = tuple[int, ...]
"""The atoms of a product as sorted atom ids (repeated for powers); `()` is the constant 1."""

PolynomialKey = tuple[tuple[Monomial, int], ...]
"""`Polynomial.key`: the sorted terms, hashable."""

MAX_TERMS = 64
"""Products with more terms than this are left as atoms (indices are short formulas)."""


def _narrower(a: SSAValue, b: SSAValue) -> bool:
    width_a, width_b = bit_width(a.type), bit_width(b.type)
    return width_a is not None and width_b is not None and width_a < width_b


def _same_width(a: SSAValue, b: SSAValue) -> bool:
    return bit_width(a.type) is not None and bit_width(a.type) == bit_width(b.type)


def _merge(a: Monomial, b: Monomial) -> Monomial:
    return tuple(sorted(a + b))


@dataclass(frozen=True)
class Polynomial:
    """`sum(coefficient * monomial)` over the integers modulo 2^width of `type`."""

    type: Attribute
    terms: Mapping[Monomial, int]
    """Monomial -> coefficient, non-zero, reduced modulo 2^width."""
    atoms: Mapping[int, SSAValue] = field(compare=False, hash=False, repr=False)
    """Atom id -> one SSA value computing the atom."""

    @property
    def width(self) -> int:
        width = bit_width(self.type)
        assert width is not None
        return width

    @staticmethod
    def make(
        type: Attribute, terms: Mapping[Monomial, int], atoms: Mapping[int, SSAValue]
    ) -> Polynomial:
        width = bit_width(type)
        assert width is not None, f"not an integer type: {type}"
        modulus = 1 << width
        reduced = {m: c % modulus for m, c in terms.items() if c % modulus}
        used = {a for m in reduced for a in m}
        return Polynomial(type, reduced, {a: atoms[a] for a in used})

    @staticmethod
    def constant_of(type: Attribute, value: int) -> Polynomial:
        return Polynomial.make(type, {(): value}, {})

    @property
    def key(self) -> PolynomialKey:
        """A hashable canonical form (polynomials of one analysis and type compare by it)."""
        return tuple(sorted(self.terms.items()))

    @property
    def is_constant(self) -> bool:
        return all(not m for m in self.terms)

    @property
    def constant(self) -> int:
        """The constant term, read as signed."""
        return to_signed(self.terms.get((), 0), self.width)

    def signed(self, monomial: Monomial) -> int:
        return to_signed(self.terms.get(monomial, 0), self.width)

    def plus(self, other: Polynomial, sign: int = 1) -> Polynomial:
        assert self.type == other.type, (self.type, other.type)
        terms = dict(self.terms)
        for m, c in other.terms.items():
            terms[m] = terms.get(m, 0) + sign * c
        return Polynomial.make(self.type, terms, {**self.atoms, **other.atoms})

    def minus(self, other: Polynomial) -> Polynomial:
        return self.plus(other, -1)

    def scaled(self, factor: int) -> Polynomial:
        return Polynomial.make(
            self.type, {m: c * factor for m, c in self.terms.items()}, self.atoms
        )

    def times(self, other: Polynomial) -> Polynomial:
        assert self.type == other.type, (self.type, other.type)
        terms: dict[Monomial, int] = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in other.terms.items():
                m = _merge(m1, m2)
                terms[m] = terms.get(m, 0) + c1 * c2
        return Polynomial.make(self.type, terms, {**self.atoms, **other.atoms})

    def truncated(self, type: Attribute) -> Polynomial:
        """The same polynomial in a type at most as wide (coefficients reduced)."""
        width = bit_width(type)
        assert width is not None
        assert width <= self.width
        return Polynomial.make(type, self.terms, self.atoms)

    def widened(self, type: Attribute) -> Polynomial:
        """The same polynomial, coefficients read as signed, in a type at least as wide: the
        sign extension of its value when that does not wrap (not a ring homomorphism, so only
        for analyses that assume no overflow, as C does for signed arithmetic)."""
        width = bit_width(type)
        assert width is not None
        assert width >= self.width
        if type == self.type:
            return self
        return Polynomial.make(type, {m: self.signed(m) for m in self.terms}, self.atoms)

    def substituted(self, values: Mapping[int, Polynomial]) -> Polynomial:
        """The polynomial with the atoms of `values` replaced by their polynomials (of this
        type)."""
        result = Polynomial.constant_of(self.type, 0)
        for monomial, coefficient in self.terms.items():
            term = Polynomial.make(self.type, {(): coefficient}, {})
            for atom in monomial:
                factor = values.get(atom)
                if factor is None:
                    factor = Polynomial.make(self.type, {(atom,): 1}, self.atoms)
                term = term.times(factor)
            result = result.plus(term)
        return result

    def split(self, atom: int) -> tuple[Polynomial, Polynomial] | None:
        """(c, r) with self = c * atom + r and neither c nor r containing `atom`; None when the
        polynomial is not affine in `atom`."""
        coefficient: dict[Monomial, int] = {}
        rest: dict[Monomial, int] = {}
        for m, c in self.terms.items():
            count = m.count(atom)
            if count > 1:
                return None
            if count == 1:
                reduced = list(m)
                reduced.remove(atom)
                coefficient[tuple(reduced)] = c
            else:
                rest[m] = c
        return (
            Polynomial.make(self.type, coefficient, self.atoms),
            Polynomial.make(self.type, rest, self.atoms),
        )

    def atom_ids(self) -> set[int]:
        return {a for m in self.terms for a in m}


def provably_equal(a: Polynomial, b: Polynomial) -> bool:
    """Both compute the same value whenever their atoms have the same values."""
    return a.type == b.type and not a.minus(b).terms


def provably_distinct(a: Polynomial, b: Polynomial) -> bool:
    """They differ by a non-zero constant, so they never compute the same value."""
    if a.type != b.type:
        return False
    difference = a.minus(b)
    return difference.is_constant and bool(difference.terms)


class PolynomialAnalysis:
    """Decomposes integer/index SSA values into polynomials (memoised per value).

    `leaf` may give the polynomial of a value itself (e.g. 0 for `threadIdx.y` in a block of
    one row); `special_key` may give the structural identity of values of ops that have no
    traits (e.g. `gpu.thread_id x`, the same wherever it is computed).
    """

    def __init__(
        self,
        leaf: Callable[[SSAValue], Polynomial | None] | None = None,
        special_key: Callable[[SSAValue], Hashable | None] | None = None,
        max_terms: int = MAX_TERMS,
    ) -> None:
        self.leaf = leaf
        self.special_key = special_key
        self.max_terms = max_terms
        self._polys: dict[SSAValue, Polynomial] = {}
        self._value_ids: dict[SSAValue, int] = {}
        self._interned: dict[Hashable, int] = {}

    def atom_id(self, value: SSAValue) -> int:
        """Structural identity: equal ids mean equal values at any one point. A side-effect
        free op applied to operands of equal ids gives equal ids (two separately computed
        `j * m` are one atom); anything else is identified by the SSA value itself."""
        if (known := self._value_ids.get(value)) is not None:
            return known
        key: Hashable | None = self.special_key(value) if self.special_key else None
        owner = value.owner
        if key is None:
            if isinstance(owner, Operation) and not owner.regions and is_side_effect_free(owner):
                assert isinstance(value, OpResult)  # its owner is an operation
                key = (
                    owner.name,
                    value.index,
                    value.type,
                    tuple(sorted(owner.properties.items())),
                    tuple(sorted(owner.attributes.items())),
                    tuple(self.atom_id(operand) for operand in owner.operands),
                )
            else:
                key = ("value", id(value))
        result = self._interned.setdefault(key, len(self._interned))
        self._value_ids[value] = result
        return result

    def atom(self, value: SSAValue) -> Polynomial:
        a = self.atom_id(value)
        return Polynomial.make(value.type, {(a,): 1}, {a: value})

    def poly(self, value: SSAValue) -> Polynomial:
        """The polynomial of an integer or index value, in the arithmetic of its own type."""
        if (known := self._polys.get(value)) is not None:
            return known
        result = self._decompose(value)
        self._polys[value] = result
        return result

    def index_poly(self, value: SSAValue) -> Polynomial:
        """The polynomial of a memref index, in the type the index was computed in: looks
        through the frontend's final extension (docs/ir.md): a sign-extending `index_cast` of a
        narrower value, or `index_cast(extui)` of a narrower unsigned one, whose polynomial is
        then in the unsigned type (`ui32`). Equal (or distinct) polynomials are equal (or
        distinct) elements only when extended alike, and polynomials of different types are
        never compared: that keeps `a[u]` and `a[(int)u]` apart."""
        owner = value.owner
        if isinstance(owner, arith.IndexCastOp):
            source = owner.input
            widened = source.owner
            if isinstance(widened, arith.ExtUIOp) and _same_width(source, value):
                inner = self.poly(widened.input)
                return Polynomial.make(unsigned(inner.type), inner.terms, inner.atoms)
            if _narrower(source, value):
                return self.poly(source)
        return self.poly(value)

    def _decompose(self, value: SSAValue) -> Polynomial:
        type = value.type
        width = bit_width(type)
        if width is None:
            raise ValueError(f"polynomials need an integer or index value, got {type}")
        if self.leaf is not None and (given := self.leaf(value)) is not None:
            return given
        if (c := constant_int(value)) is not None:
            return Polynomial.constant_of(type, c)
        owner = value.owner
        match owner:
            case arith.AddiOp():
                return self.poly(owner.lhs).plus(self.poly(owner.rhs))
            case arith.SubiOp():
                return self.poly(owner.lhs).minus(self.poly(owner.rhs))
            case arith.MuliOp():
                product = self.poly(owner.lhs).times(self.poly(owner.rhs))
                if len(product.terms) <= self.max_terms:
                    return product
            case arith.ShLIOp():
                shift = constant_int(owner.rhs)
                if shift is not None and 0 <= shift < width:
                    return self.poly(owner.lhs).scaled(1 << shift)
            case arith.IndexCastOp() | arith.TruncIOp() | arith.ExtSIOp():
                source = owner.operands[0]
                source_width = bit_width(source.type)
                if source_width is not None:
                    inner = self.poly(source)
                    if source_width >= width:
                        return inner.truncated(type)
                    if inner.is_constant:  # sign extension of a known value
                        return Polynomial.constant_of(type, inner.constant)
                    if isinstance(owner, arith.ExtSIOp) and self.sign_extends_exactly(source):
                        return inner.widened(type)
            case arith.ExtUIOp():
                inner = self.poly(owner.input)
                if inner.is_constant:  # zero extension of a known value (bits, unsigned)
                    return Polynomial.constant_of(type, inner.terms.get((), 0))
            case _:
                pass
        return self.atom(value)


    def sign_extends_exactly(self, value: SSAValue) -> bool:
        """Whether `value`'s polynomial equals its value read as signed, with no wrap-around
        anywhere in it, so that its sign extension is the same polynomial widened (`(long)i *
        n + j` of the frontend's row-major subscripts, docs/ir.md): every step `poly` looked
        through is C's signed arithmetic (`nsw`: an overflow is undefined) or the lowering's
        `index_cast` of a loop index to the C variable it runs over (whose values are that
        variable's); an atom is a value of its type. A truncation (`(int)x`) or wrapping
        arithmetic may wrap, and is refused."""
        if constant_int(value) is not None:
            return True
        if self.leaf is not None and self.leaf(value) is not None:
            return True
        owner = value.owner
        match owner:
            case arith.AddiOp() | arith.SubiOp() | arith.MuliOp() | arith.ShLIOp():
                if self.poly(value).terms == {(self.atom_id(value),): 1}:
                    return True  # not looked through: an atom
                nsw = arith.IntegerOverflowFlag.NSW in owner.overflow_flags.data
                return nsw and all(self.sign_extends_exactly(o) for o in owner.operands)
            case arith.IndexCastOp():
                source = owner.input
                return isinstance(source.type, IndexType) or self.sign_extends_exactly(source)
            case arith.TruncIOp():
                return self.poly(value).is_constant
            case arith.ExtSIOp():
                return self.sign_extends_exactly(owner.input)
            case _:
                return True


def through_sign_extensions() -> PolynomialAnalysis:
    """Polynomials that see through sign extensions of narrower values (`(long)i * n`,
    `index_cast`): signed overflow is undefined in C, so an extended value is the value, and a
    loaded value (`(long)col[i] * m`) stays the atom. The dependence check and the tuner's
    subscript ranges read indices this way."""

    def extended(value: SSAValue) -> Polynomial | None:
        owner = value.owner
        if isinstance(owner, (arith.ExtSIOp, arith.IndexCastOp)):
            inner = polys.poly(owner.operands[0])
            if inner.width < (bit_width(value.type) or 0):
                return inner.widened(value.type)
        return None

    polys = PolynomialAnalysis(leaf=extended)
    return polys
