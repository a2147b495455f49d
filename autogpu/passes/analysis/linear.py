"""Index expressions as linear forms: sum of coefficient x atom, plus a constant.

The frontend computes every array index in its C integer type (docs/ir.md: "Arrays are flat"),
e.g. `A[i + j*m]` is `index_cast(addi(i, muli(j, m)))`. Decomposing that value gives
`1*i + 1*(j*m) + 0`: atoms are values the decomposition does not look through (loop induction
variables, function arguments, loads, products of two non-constants, ...). Coefficients and the
constant live in Z/2^w for the w-bit type the index is computed in, because `arith` wraps: the
decomposition is exact even when the C arithmetic overflows, so

- two indices with equal forms are the same element, and
- two indices whose forms differ by a non-zero constant are different elements

(`index_cast` sign-extends, which keeps equal values equal and different values different).

Atoms are identified structurally: two separately computed `j * m` (the frontend recomputes an
index for the load and for the store of `A[idx] += x`) are the same atom, because a side-effect
free op applied to the same operands yields the same value. Results of ops with memory effects
(loads) are identified by the SSA value only.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.traits import is_side_effect_free

INDEX_WIDTH = 64
"""Width assumed for `index` (the GPU targets are 64-bit)."""


def bit_width(type: Attribute) -> int | None:
    """Bits of an integer or index type, None for anything else."""
    if isinstance(type, IntegerType):
        return type.width.data
    if isinstance(type, IndexType):
        return INDEX_WIDTH
    return None


def to_signed(value: int, width: int) -> int:
    """The two's complement reading of `value` modulo 2^width."""
    value %= 1 << width
    return value - (1 << width) if value >= 1 << (width - 1) else value


def constant_int(value: SSAValue) -> int | None:
    """The integer held by a value defined by `arith.constant`, read as signed."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        width = bit_width(value.type)
        data = owner.value.value.data
        return data if width is None else to_signed(data, width)
    return None


@dataclass(frozen=True)
class LinearForm:
    """`sum(coeff * atom) + constant` over the integers modulo 2^width of `type`."""

    type: Attribute
    terms: Mapping[Hashable, int]
    """Atom key -> coefficient, non-zero, reduced modulo 2^width."""
    constant: int
    """Reduced modulo 2^width (so always non-negative)."""
    atoms: Mapping[Hashable, SSAValue] = field(compare=False, hash=False, repr=False)
    """Atom key -> one SSA value computing the atom (to inspect what the atom depends on)."""

    @property
    def width(self) -> int:
        width = bit_width(self.type)
        assert width is not None
        return width

    @staticmethod
    def make(
        type: Attribute,
        terms: Mapping[Hashable, int],
        constant: int,
        atoms: Mapping[Hashable, SSAValue],
    ) -> LinearForm:
        width = bit_width(type)
        assert width is not None, f"not an integer type: {type}"
        modulus = 1 << width
        reduced = {k: c % modulus for k, c in terms.items() if c % modulus}
        return LinearForm(
            type, reduced, constant % modulus, {k: atoms[k] for k in reduced}
        )

    def scaled(self, factor: int) -> LinearForm:
        return LinearForm.make(
            self.type,
            {k: c * factor for k, c in self.terms.items()},
            self.constant * factor,
            self.atoms,
        )

    def plus(self, other: LinearForm, sign: int = 1) -> LinearForm:
        assert self.type == other.type
        terms = dict(self.terms)
        for k, c in other.terms.items():
            terms[k] = terms.get(k, 0) + sign * c
        return LinearForm.make(
            self.type,
            terms,
            self.constant + sign * other.constant,
            {**self.atoms, **other.atoms},
        )

    def minus(self, other: LinearForm) -> LinearForm:
        return self.plus(other, -1)

    @property
    def is_constant(self) -> bool:
        return not self.terms

    @property
    def signed_constant(self) -> int:
        return to_signed(self.constant, self.width)

    def atom_values(self) -> Iterable[SSAValue]:
        return self.atoms.values()


def provably_equal(a: LinearForm, b: LinearForm) -> bool:
    """Both forms compute the same value whenever both are evaluated with the same atoms."""
    return a.type == b.type and a.minus(b) == LinearForm.make(a.type, {}, 0, {})


def provably_distinct(a: LinearForm, b: LinearForm) -> bool:
    """The forms differ by a non-zero constant, so they never compute the same value."""
    if a.type != b.type:
        return False
    difference = a.minus(b)
    return difference.is_constant and difference.constant != 0


class LinearAnalysis:
    """Decomposes integer/index SSA values into linear forms (memoised per value)."""

    def __init__(self) -> None:
        self._forms: dict[SSAValue, LinearForm] = {}
        self._keys: dict[SSAValue, Hashable] = {}

    def atom_key(self, value: SSAValue) -> Hashable:
        """Structural identity of a value: equal keys mean equal values at any one point."""
        if (key := self._keys.get(value)) is not None:
            return key
        owner = value.owner
        if (
            isinstance(owner, Operation)
            and not owner.regions
            and is_side_effect_free(owner)
        ):
            key = (
                owner.name,
                value.index,  # pyright: ignore[reportAttributeAccessIssue]
                value.type,
                tuple(sorted(owner.properties.items())),
                tuple(sorted(owner.attributes.items())),
                tuple(self.atom_key(operand) for operand in owner.operands),
            )
        else:
            key = ("value", value)
        self._keys[value] = key
        return key

    def form(self, value: SSAValue) -> LinearForm:
        """The linear form of an integer or index value, in the arithmetic of its own type."""
        if (known := self._forms.get(value)) is not None:
            return known
        form = self._decompose(value)
        self._forms[value] = form
        return form

    def index_form(self, value: SSAValue) -> LinearForm:
        """The form of a memref index: looks through the frontend's final `index_cast`, so the
        form is in the C type the index was computed in."""
        owner = value.owner
        if (
            isinstance(owner, arith.IndexCastOp)
            and isinstance(value.type, IndexType)
            and isinstance(owner.input.type, IntegerType)
        ):
            return self.form(owner.input)
        return self.form(value)

    def _atom(self, value: SSAValue) -> LinearForm:
        key = self.atom_key(value)
        return LinearForm.make(value.type, {key: 1}, 0, {key: value})

    def _decompose(self, value: SSAValue) -> LinearForm:
        type = value.type
        if bit_width(type) is None:
            raise ValueError(f"linear forms need an integer or index value, got {type}")
        if (c := constant_int(value)) is not None:
            return LinearForm.make(type, {}, c, {})
        owner = value.owner
        match owner:
            case arith.AddiOp():
                return self.form(owner.lhs).plus(self.form(owner.rhs))
            case arith.SubiOp():
                return self.form(owner.lhs).minus(self.form(owner.rhs))
            case arith.MuliOp():
                lhs, rhs = self.form(owner.lhs), self.form(owner.rhs)
                if rhs.is_constant:
                    return lhs.scaled(rhs.constant)
                if lhs.is_constant:
                    return rhs.scaled(lhs.constant)
            case arith.ShLIOp():
                shift = constant_int(owner.rhs)
                width = bit_width(type)
                assert width is not None
                if shift is not None and 0 <= shift < width:
                    return self.form(owner.lhs).scaled(1 << shift)
            case _:
                pass
        return self._atom(value)
