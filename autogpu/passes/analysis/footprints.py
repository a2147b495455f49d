"""Which rows of each array a part of a parallel nest touches (out-of-core execution).

A part is a range `[lo, hi)` of the nest's outermost parallel loop `i`. Every subscript of an
array must be affine in `i`, `c*i + r`, with one row size `c` per array (one product of scalar
parameters, e.g. `m` for `A[i][j]` of `double A[n][m]`, 1 for `x[i]`), and `r = (s + k)*c + t`
with `k` a constant (the halo: `A[i - 1][j]` has k = -1), `s` an offset the host computes from
the parameters, the same for all accesses to the array (the lower bound of a 64-bit loop, which
the frontend normalises to start at 0; usually none), and `t` inside one row: 0, or the last
subscripts of a C99 array whose inner extents multiply to `c` (C keeps each subscript within
its extent). A part then touches rows `lo + s + kmin .. hi + s + kmax - 1`, i.e. elements
`[(lo + s + kmin)*c, (hi + s + kmax)*c)`. A subscript free of `i` (`x[j]` in a matrix-vector
product) reads the whole array in every part.

Writes must land exactly once, so each part must own the rows it writes: every store to an array
has the same `k` (iteration `i` writes row `i + k` and no other part writes it), no store is free
of `i`, and a part may read an array it writes only in the rows it writes itself (`A[i] = A[i]
+ 1`, never `A[i] = A[i - 1]`: a neighbour part would have written it, or not yet). Anything
else (a subscript read from memory, a row size depending on an inner loop, a call) is refused,
naming the access.

An array the nest writes and never reads is *allocated*, not copied in, for each part (`alloc`)
where every iteration provably writes the whole of its row: the store runs under loops only,
each covering one inner extent (`writes_whole_rows`), e.g. `C` of a row-major matmul.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import ArrayAttr, MemRefType, StringAttr
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.utils.hints import isa

from autogpu.dialects.agpu import ParallelForOp
from autogpu.dialects.signature import EXTENTS
from autogpu.passes.analysis.aliasing import (
    argument_attrs,
    c_name,
    function_argument,
    is_local_allocation,
    memory_accesses,
)
from autogpu.passes.analysis.integers import constant_int
from autogpu.passes.analysis.polynomial import (
    Monomial,
    Polynomial,
    PolynomialAnalysis,
    PolynomialKey,
)


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
    shift: str = ""  # a symbolic row offset (a normalised loop's lower bound), "" if none
    alloc: bool = False  # every element of the written rows is written, none read: no copy in

    def range_text(self, offsets: Sequence[int], lo: str, hi: str) -> tuple[str, str]:
        """[first, end) elements, in the launch language, for rows `lo + min(offsets)` to
        `hi + max(offsets)`."""
        def row_of(bound: str, k: int) -> str:
            start = f"{bound} + {self.shift}" if self.shift else bound
            shifted = start if k == 0 else f"{start} {'-' if k < 0 else '+'} {abs(k)}"
            shifted = shifted if shifted == bound else f"({shifted})"
            return shifted if self.row == "1" else f"{shifted} * {self.row}"

        return row_of(lo, min(offsets)), row_of(hi, max(offsets))


@dataclass(frozen=True)
class NestFootprints:
    """The loop split into parts (its bounds in the launch language) and each array's rows."""

    lb: str
    ub: str
    arrays: tuple[ArrayFootprint, ...]


_PRINTED: dict[type[Operation], str] = {
    arith.AddiOp: "+", arith.SubiOp: "-", arith.MuliOp: "*", arith.DivSIOp: "/",
    arith.RemSIOp: "%", arith.MinSIOp: "min", arith.MaxSIOp: "max",
}


def host_text(value: SSAValue, names: dict[SSAValue, str], depth: int = 0) -> str | None:
    """A value computed from scalar parameters and constants as a launch-language expression
    (`min(1, n - 1)` of a normalised 64-bit loop), None if it is anything else."""
    if value in names:
        return names[value]
    if (constant := constant_int(value)) is not None:
        return str(constant)
    owner = value.owner
    if depth > 16 or not isinstance(owner, Operation):
        return None
    if isinstance(owner, (arith.ExtSIOp, arith.IndexCastOp)):
        return host_text(owner.operands[0], names, depth + 1)
    op = _PRINTED.get(type(owner))
    if op is None:
        return None
    a, b = (host_text(v, names, depth + 1) for v in owner.operands)
    if a is None or b is None:
        return None
    return f"{op}({a}, {b})" if op in ("min", "max") else f"({a} {op} {b})"


def _text(poly: Polynomial, names: Callable[[int], str | None]) -> str | None:
    """A polynomial over host-computable atoms as a launch-language expression (None if an atom
    is not one)."""
    parts: list[str] = []
    for monomial, _ in sorted(poly.terms.items(), key=lambda t: (-len(t[0]), t[0])):
        factors = [names(a) for a in monomial]
        if any(f is None for f in factors):
            return None
        coefficient = poly.signed(monomial)
        texts = sorted(f for f in factors if f is not None)
        if coefficient != 1 or not texts:
            texts.insert(0, str(coefficient))
        parts.append(" * ".join(texts))
    text = " + ".join(parts).replace("+ -", "- ") or "0"
    return text if len(parts) < 2 and "-" not in text[1:] else f"({text})"


@dataclass(frozen=True)
class _Subscript:
    """One access split as `row * (i + shift + k) + t`: `shift` symbolic (text, "" if 0)."""

    row_text: str
    row_key: PolynomialKey
    shift: str
    k: int
    inside: tuple[tuple[tuple[int, ...], int], ...] = ()  # `t`: (monomial, coefficient) terms


class _Nest:
    def __init__(self, nest: ParallelForOp, function: func.FuncOp):
        self.nest = nest
        self.iv = nest.body.block.args[0]
        self.polys = _through_extensions()
        self.arg_names: dict[SSAValue, str] = {}  # scalar parameters by C name
        for arg in function.body.block.args:
            name = c_name(arg)
            if name is not None and not isinstance(arg.type, MemRefType):
                self.arg_names[arg] = name
        self.i = self.polys.atom_id(self.iv)
        self.inner_ivs = {
            self.polys.atom_id(arg)
            for op in nest.walk() if op is not nest
            for region in op.regions for block in region.blocks for arg in block.args
        }
        self._names: dict[int, str | None] = {}

    def name(self, atom: int, poly: Polynomial) -> str | None:
        """The launch-language text of an atom computed on the host from parameters."""
        if atom not in self._names:
            value = poly.atoms[atom]
            self._names[atom] = None if atom == self.i or atom in self.inner_ivs \
                else host_text(value, self.arg_names)
        return self._names[atom]

    def text(self, poly: Polynomial) -> str | None:
        return _text(poly, lambda a: self.name(a, poly))

    def bound(self, value: SSAValue, what: str) -> str:
        text = host_text(value, self.arg_names)
        if text is None:
            raise FootprintError(
                f"out-of-core: the {what} bound of the parallel loop is not computed from the "
                "scalar parameters, so the parts cannot be computed on the host", self.nest)
        return text

    def classify(self, access: memref.LoadOp | memref.StoreOp, name: str) -> _Subscript | None:
        """The access's rows, or None when it does not depend on `i`."""
        where = f"the subscript of '{name}'"
        if len(access.indices) != 1:
            raise FootprintError(f"out-of-core: {where} is not a flat index", access)
        poly = self.polys.index_poly(access.indices[0])
        for atom in poly.atom_ids():
            if atom != self.i and atom not in self.inner_ivs and self.name(atom, poly) is None:
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
            return None
        text = self.text(row)
        if text is None:
            raise FootprintError(f"out-of-core: {where} has a row size that depends on an "
                                 "inner loop", access)
        if len(row.terms) != 1:
            raise FootprintError(f"out-of-core: {where} has a row size that is not one product "
                                 "of parameters", access)
        (monomial, _), = row.terms.items()
        scale = row.signed(monomial)
        if scale <= 0:
            raise FootprintError(f"out-of-core: {where} runs backwards over rows", access)
        rows: dict[Monomial, int] = {}  # rest = row * rows + inside
        inside: dict[Monomial, int] = {}
        for term, coefficient in rest.terms.items():
            quotient = list(term)
            try:
                for atom in monomial:
                    quotient.remove(atom)
            except ValueError:
                inside[term] = coefficient
                continue
            value = rest.signed(term)
            if value % scale:
                raise FootprintError(f"out-of-core: {where} is not a whole number of rows "
                                     "from the split index", access)
            rows[tuple(quotient)] = value // scale
        offset = Polynomial.make(rest.type, rows, rest.atoms)
        k = offset.constant
        shifted = offset.minus(Polynomial.constant_of(rest.type, k))
        shift = self.text(shifted) if shifted.terms else ""
        if shift is None:
            raise FootprintError(f"out-of-core: {where} mixes the split index with inner "
                                 "indices in one row: the rows a part touches are unknown",
                                 access)
        if inside:
            self._check_inside(row, access, where)
        terms = tuple((term, rest.signed(term)) for term in inside)
        return _Subscript(text, row.key, shift, k, terms)

    def writes_whole_rows(self, store: memref.StoreOp, subscript: _Subscript) -> bool:
        """Whether every iteration `i` of the nest writes every element of its row of the array
        (`C[i][j] = ...` under `for (j = 0; j < m; j++)` of `float C[n][m]`): the store runs
        under loops only (no `if`), each from 0 to one inner extent with step 1, and the in-row
        subscript is those loops' indices weighted by the inner extents (C's row-major
        layout), so together they cover `[0, row)`."""
        extents = argument_attrs(store.memref).get(EXTENTS)
        inner = [e.data for e in extents.data[1:] if isinstance(e, StringAttr)] \
            if isa(extents, ArrayAttr) else []
        loops: dict[int, str] = {}  # the enclosing loops below the nest: index atom -> bound
        op = store.parent_op()
        while op is not self.nest:
            if not isinstance(op, (ParallelForOp, scf.ForOp)) or \
                    constant_int(op.lb) != 0 or constant_int(op.step) != 1:
                return False
            bound = host_text(op.ub, self.arg_names)
            if bound is None:
                return False
            loops[self.polys.atom_id(op.body.block.args[0])] = bound
            op = op.parent_op()
        if subscript.row_text != "1" and len(inner) != len(subscript.inside):
            return False
        covered: set[int] = set()
        for monomial, coefficient in subscript.inside:
            indices = [a for a in monomial if a in loops]
            if coefficient != 1 or len(indices) != 1:
                return False
            # the weights' atoms were named when the subscript was classified
            weights = sorted(self._names.get(a) or "?" for a in monomial if a not in loops)
            position = len(inner) - 1 - len(weights)
            if position < 0 or inner[position] != loops[indices[0]] or \
                    sorted(inner[position + 1:]) != weights or position in covered:
                return False
            covered.add(position)
        return len(covered) == len(loops)

    def _check_inside(self, row: Polynomial, access: memref.LoadOp | memref.StoreOp,
                      where: str) -> None:
        """The in-row part is bounded by C's rule when the array is declared with extents whose
        inner ones multiply to the row size."""
        extents = argument_attrs(access.memref).get(EXTENTS)
        inner: list[str] = []
        if isa(extents, ArrayAttr):
            inner = [e.data for e in extents.data[1:] if isinstance(e, StringAttr)]
        (monomial, _), = row.terms.items()
        names = sorted(self.name(a, row) or "?" for a in monomial)
        if sorted(inner) != names or row.signed(monomial) != 1:
            raise FootprintError(
                f"out-of-core: {where} indexes within a row of {self.text(row)} "
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
    shapes: dict[SSAValue, tuple[PolynomialKey, str]] = {}
    stores: dict[SSAValue, list[tuple[memref.StoreOp, _Subscript]]] = {}
    for access in accesses:
        array = access.memref
        if is_local_allocation(array):
            continue
        if function_argument(array) is None or not isinstance(array, BlockArgument):
            raise FootprintError("out-of-core: an access to memory that is no array parameter",
                                 access.op)
        name = c_name(array) or "?"
        subscript = reader.classify(access.op, name)
        footprint = arrays.setdefault(array, ArrayFootprint(name, "1"))
        writes = isinstance(access.op, memref.StoreOp)
        if subscript is None:
            if writes:
                raise FootprintError(
                    f"out-of-core: every part would write the same elements of '{name}' (the "
                    "subscript does not depend on the split loop): writes must land once",
                    access.op)
            footprint.whole = True
            continue
        shape = (subscript.row_key, subscript.shift)
        if shapes.setdefault(array, shape) != shape:
            raise FootprintError(f"out-of-core: the subscripts of '{name}' use different row "
                                 "sizes or offsets", access.op)
        footprint.row, footprint.shift = subscript.row_text, subscript.shift
        if writes:
            if footprint.write is not None and footprint.write != subscript.k:
                raise FootprintError(f"out-of-core: an iteration writes two rows of '{name}', "
                                     "so a part does not own what it writes", access.op)
            footprint.write = subscript.k
            assert isinstance(access.op, memref.StoreOp)  # a write is a store here
            stores.setdefault(array, []).append((access.op, subscript))
        else:
            footprint.reads.add(subscript.k)
    for array, footprint in arrays.items():
        if footprint.write is None:
            continue
        foreign = footprint.whole or any(k != footprint.write for k in footprint.reads)
        if foreign:
            raise FootprintError(
                f"out-of-core: a part reads rows of '{footprint.name}' that another part writes "
                "in the same nest (the parts would race): only the rows it writes itself may be "
                "read", stores[array][-1][0])
        footprint.alloc = not footprint.reads and any(
            reader.writes_whole_rows(store, subscript) for store, subscript in stores[array])
    return NestFootprints(reader.bound(nest.lb, "lower"), reader.bound(nest.ub, "upper"),
                          tuple(arrays.values()))
