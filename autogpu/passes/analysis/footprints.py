"""Which rows of each array a part of a parallel nest touches (out-of-core execution).

A part is a range `[lo, hi)` of the nest's outermost parallel loop `i`. Every subscript of an
array must be affine in `i`, `c*i + r`, with one row size `c` per array (a polynomial in the
scalar parameters, e.g. `m` for `A[i][j]` of `double A[n][m]`, 1 for `x[i]`), and `r = k*c + t`
with `k` a constant (the halo: `A[i - 1][j]` has k = -1) and `t` inside one row: 0, a constant
in `[0, c)`, or the last subscripts of a C99 array whose inner extents multiply to `c` (C
keeps each subscript within its extent). A part then touches rows `lo + kmin .. hi + kmax - 1`,
i.e. elements `[(lo + kmin)*c, (hi + kmax)*c)`. A subscript free of `i` (`x[j]` in a matrix-vector
product) reads the whole array in every part.

Writes must land exactly once, so each part must own the rows it writes: every store to an array
has the same `k` (iteration `i` writes row `i + k` and no other part writes it), no store is free
of `i`, and a part may read an array it writes only in the rows it writes itself (`A[i] = A[i]
+ 1`, never `A[i] = A[i - 1]`: a neighbour part would have written it, or not yet). Anything
else (a subscript read from memory, a row size depending on an inner loop, a call) is refused,
naming the access.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import ArrayAttr, StringAttr
from xdsl.ir import BlockArgument, Operation, SSAValue

from autogpu.dialects.agpu import ParallelForOp
from autogpu.dialects.signature import EXTENTS
from autogpu.passes.analysis.aliasing import (
    argument_attrs,
    c_name,
    function_argument,
    is_local_allocation,
    memory_accesses,
)
from autogpu.passes.analysis.polynomial import Polynomial, PolynomialAnalysis


class FootprintError(Exception):
    """The nest cannot be split into parts; `op` is where (an access or the loop)."""

    def __init__(self, message: str, op: Operation):
        super().__init__(message)
        self.op = op


@dataclass
class ArrayFootprint:
    """The rows of one array parameter a part `[lo, hi)` touches: `row` elements per row, read
    rows `lo + k` for `k` in `reads`, written rows `lo + write` (None: not written); `whole`: some
    read does not depend on the part, so every part reads all of it."""

    name: str
    row: str  # the row size, in the launch language
    reads: set[int] = field(default_factory=set[int])
    write: int | None = None
    whole: bool = False

    def range_text(self, offsets: Sequence[int], lo: str, hi: str) -> tuple[str, str]:
        """[first, end) elements, in the launch language, for rows `lo + min(offsets)` to
        `hi + max(offsets)`."""
        def row_of(bound: str, k: int) -> str:
            shifted = bound if k == 0 else f"({bound} {'-' if k < 0 else '+'} {abs(k)})"
            return shifted if self.row == "1" else f"{shifted} * {self.row}"

        return row_of(lo, min(offsets)), row_of(hi, max(offsets))


@dataclass(frozen=True)
class NestFootprints:
    """The loop split into parts (its bounds in the launch language) and each array's rows."""

    lb: str
    ub: str
    arrays: tuple[ArrayFootprint, ...]


def _text(poly: Polynomial, names: dict[int, str]) -> str | None:
    """A polynomial over scalar parameters as a launch-language expression (None if an atom is
    no parameter)."""
    parts = []
    for monomial, _ in sorted(poly.terms.items(), key=lambda t: (-len(t[0]), t[0])):
        if any(a not in names for a in monomial):
            return None
        coefficient = poly.signed(monomial)
        factors = [names[a] for a in sorted(monomial, key=lambda a: names[a])]
        if coefficient != 1 or not factors:
            factors.insert(0, str(coefficient))
        parts.append(" * ".join(factors))
    text = " + ".join(parts).replace("+ -", "- ") or "0"
    return text if len(parts) < 2 and "-" not in text[1:] else f"({text})"


class _Nest:
    def __init__(self, nest: ParallelForOp, function: func.FuncOp):
        self.nest = nest
        self.iv = nest.body.block.args[0]
        self.polys = _through_extensions()
        self.params: dict[int, str] = {}  # atom id -> C name of a scalar parameter
        for arg in function.body.block.args:
            name = c_name(arg)
            if name is not None and not hasattr(arg.type, "element_type"):
                self.params[self.polys.atom_id(arg)] = name
        self.i = self.polys.atom_id(self.iv)
        self.inner_ivs = {
            self.polys.atom_id(arg)
            for op in nest.walk() if op is not nest
            for region in op.regions for block in region.blocks for arg in block.args
        }

    def bound(self, value: SSAValue, what: str) -> str:
        poly = self.polys.poly(value)
        text = _text(poly, self.params)
        if text is None:
            raise FootprintError(
                f"out-of-core: the {what} bound of the parallel loop is not a polynomial in the "
                "scalar parameters, so the parts cannot be computed on the host", self.nest)
        return text

    def classify(self, access: memref.LoadOp | memref.StoreOp, footprint: ArrayFootprint | None,
                 name: str) -> tuple[str, Polynomial | None, int | None]:
        """(row text, row polynomial or None when free of `i`, k) of one access."""
        where = f"the subscript of '{name}'"
        if len(access.indices) != 1:
            raise FootprintError(f"out-of-core: {where} is not a flat index", access)
        poly = self.polys.index_poly(access.indices[0])
        allowed = set(self.params) | self.inner_ivs | {self.i}
        if any(a not in allowed for a in poly.atom_ids()):
            raise FootprintError(
                f"out-of-core: {where} depends on a value read from memory or computed in a "
                "way the index analysis does not follow (indirect subscript), so the rows a "
                "part touches are unknown", access)
        split = poly.split(self.i)
        if split is None:
            raise FootprintError(f"out-of-core: {where} is not affine in the split loop's "
                                 "index", access)
        row, rest = split
        if not row.terms:
            return "", None, None
        if row.atom_ids() - set(self.params):
            raise FootprintError(f"out-of-core: {where} has a row size that depends on an "
                                 "inner loop", access)
        text = _text(row, self.params)
        assert text is not None
        return text, row, self._halo(row, rest, access, where)

    def _halo(self, row: Polynomial, rest: Polynomial, access: Operation, where: str) -> int:
        """k with rest = k*row + t, t within one row."""
        if len(row.terms) != 1:
            raise FootprintError(f"out-of-core: {where} has a row size that is not one product "
                                 "of parameters", access)
        (monomial, _), = row.terms.items()
        scale = row.signed(monomial)
        if scale <= 0:
            raise FootprintError(f"out-of-core: {where} runs backwards over rows", access)
        multiple = rest.signed(monomial) if monomial in rest.terms else 0
        inside = {m: rest.signed(m) for m in rest.terms if m != monomial}
        if not monomial:  # a constant row size: k and t from the constant term
            return multiple // scale if not inside else self._inner(
                scale, multiple, inside, access, where)
        if multiple % scale:
            raise FootprintError(f"out-of-core: {where} is not a whole number of rows "
                                 "from the split index", access)
        if inside:
            self._check_inside(row, access, where)
        return multiple // scale

    def _inner(self, scale: int, multiple: int, inside: dict, access: Operation,
               where: str) -> int:
        raise FootprintError(
            f"out-of-core: {where} mixes the split index with inner indices in rows of "
            f"{scale} elements that no extents bound", access)

    def _check_inside(self, row: Polynomial, access: memref.LoadOp | memref.StoreOp,
                      where: str) -> None:
        """The in-row part is bounded by C's rule when the array is declared with extents whose
        inner ones multiply to the row size."""
        extents = argument_attrs(access.memref).get(EXTENTS)
        inner = []
        if isinstance(extents, ArrayAttr):
            inner = [e.data for e in extents.data[1:] if isinstance(e, StringAttr)]
        (monomial, _), = row.terms.items()
        names = sorted(self.params[a] for a in monomial)
        if sorted(inner) != names or row.signed(monomial) != 1:
            raise FootprintError(
                f"out-of-core: {where} indexes within a row of {_text(row, self.params)} "
                "elements that no extents bound (declare the array with its extents, as "
                "`double A[n][m]`, so each subscript stays within its row)", access)


def _through_extensions() -> PolynomialAnalysis:
    from autogpu.passes.analysis.polynomial import through_sign_extensions

    return through_sign_extensions()


def nest_footprints(nest: ParallelForOp, function: func.FuncOp) -> NestFootprints:
    """The footprints of the parts of `nest` (the outermost parallel loop of a nest at the top
    of `function`), or a FootprintError saying why it cannot be split."""
    reader = _Nest(nest, function)
    accesses = memory_accesses(nest)
    if accesses is None:
        raise FootprintError("out-of-core: the nest touches memory other than by loads and "
                             "stores (a call or a copy), so its footprint is unknown", nest)
    arrays: dict[SSAValue, ArrayFootprint] = {}
    rows: dict[SSAValue, Polynomial] = {}
    stores: dict[SSAValue, memref.StoreOp] = {}
    for access in accesses:
        array = access.memref
        if is_local_allocation(array):
            continue
        if function_argument(array) is None or not isinstance(array, BlockArgument):
            raise FootprintError("out-of-core: an access to memory that is no array parameter",
                                 access.op)
        name = c_name(array) or "?"
        text, row, k = reader.classify(access.op, arrays.get(array), name)
        footprint = arrays.setdefault(array, ArrayFootprint(name, text or "1"))
        writes = isinstance(access.op, memref.StoreOp)
        if row is None:
            if writes:
                raise FootprintError(
                    f"out-of-core: every part would write the same elements of '{name}' (the "
                    "subscript does not depend on the split loop): writes must land once",
                    access.op)
            footprint.whole = True
            continue
        if array in rows and rows[array].key != row.key:
            raise FootprintError(f"out-of-core: the subscripts of '{name}' use different row "
                                 "sizes", access.op)
        rows[array], footprint.row = row, text
        assert k is not None
        if writes:
            if footprint.write is not None and footprint.write != k:
                raise FootprintError(f"out-of-core: an iteration writes two rows of '{name}', "
                                     "so a part does not own what it writes", access.op)
            footprint.write = k
            stores[array] = access.op  # type: ignore[assignment]
        else:
            footprint.reads.add(k)
    for array, footprint in arrays.items():
        if footprint.write is None:
            continue
        foreign = footprint.whole or any(k != footprint.write for k in footprint.reads)
        if foreign:
            raise FootprintError(
                f"out-of-core: a part reads rows of '{footprint.name}' that another part writes "
                "in the same nest (the parts would race): only the rows it writes itself may be "
                "read", stores[array])
    return NestFootprints(reader.bound(nest.lb, "lower"), reader.bound(nest.ub, "upper"),
                          tuple(arrays.values()))
