"""Which elements the threads of a block read through a group of loads: the tile.

The tile of a group is cached at a point P of the kernel (in the body of an *anchor*: a uniform
loop, a uniform `if` or the kernel itself), just before the op `P_op` that contains the loads.
Below P, each load reads `G[f]` where, for its *variables* (the thread indices `threadIdx.x/y/z`
and the induction variables of the loops between P and the load),

    f = r + sum(c_v * v)                  (r and the c_v are polynomials of block-uniform values
                                           available at P, exact in f's wrapping arithmetic)

Writing a loop variable as `v = lb_v + step_v * q_v` (and a thread index as `q_v = v`), the
element a thread reads at some iteration is `base + sum(c_v * step_v * q_v)`. Variables whose
`c_v * step_v` are equal polynomials move along one *dimension* d of the tile with stride
`K_d = c_v * step_v`: `(i + u) + (j + v) * pn` has the dimensions `1` (for threadIdx.x and u)
and `pn` (for v). Loads of the group whose bases differ by a combination `sum(delta_d * K_d)`
with integer `delta_d` (the other taps of a stencil, the replicas of an unrolled loop) share the
tile: along d it spans `delta_d + sum(q_v)` for all loads, i.e.

    E_d = max(delta_d + sum over v in d of (N_v - 1) + 1) - min(delta_d)

elements, where N_v bounds the number of values of q_v: the block size for a thread index, the
trip count for a loop: a constant (after `agpu-specialize`, or a strip-mined tile loop
`for (k = kk; k < min(kk + T, p); k++)`), or the `max_extent` option (checked at run time).

Which elements are really read (so that loading them is safe: the out-of-range threads and
iterations of the original kernel read nothing) is exact, not a bounding box: a load reads
offset o iff every `o_d - delta_d` lies in the sum of the ranges of its variables' q_v, each
range being `[0, trip count)` for a loop and `[lo, hi)` for a thread index, from the guards of
the kernel (`gid < ub` is `threadIdx.x < ub - blockIdx.x * blockDim.x`), and the uniform
conditions on the way to the load hold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import permutations
from typing import TypeVar

from xdsl.dialects import arith, gpu, memref, scf
from xdsl.dialects.builtin import MemRefType
from xdsl.dialects.gpu import DimensionAttr, DimensionEnum
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.hints import isa

from autogpu.passes.analysis.integers import bit_width, ceil_div, constant_int
from autogpu.passes.analysis.loops import constant_trip_count
from autogpu.passes.analysis.polynomial import Polynomial, PolynomialKey
from autogpu.passes.gpu_cache_shared.facts import DIMS, KernelFacts, ancestors, loop_name
from autogpu.passes.gpu_cache_shared.materialize import Materializer

_T = TypeVar("_T")

UNKNOWN_EXTENT = 16
"""Stand-in for a trip count unknown at compile time when judging whether a tile has reuse."""

_CMPI_SIGNED = {2: "slt", 3: "sle", 4: "sgt", 5: "sge"}
EXCLUDED_PATH = (
    "the load runs in the threads a guard excludes (such as the partial tile of an unrolled "
    "loop): left uncached, so that full blocks do not wait at its barriers"
)


STRUCTURE, NO_REUSE, LIMIT = 0, 1, 2
"""How telling a refusal is for remarks: the shape of the code around one anchor (another
anchor may do), no reuse of the elements, or a limit the user can lift (sizes, options)."""


class Refused(Exception):
    """The group cannot be cached at this anchor; the message says why (for remarks).
    `members` are the loads of the group it refused, when one was formed."""

    def __init__(self, message: str, rank: int = LIMIT):
        super().__init__(message)
        self.rank = rank
        self.members: list[memref.LoadOp] = []


def excluded_path(load: Operation, facts: KernelFacts) -> bool:
    """Whether `load` runs only in threads a guard excludes: in the else branch of a thread
    guard, or under `if (!guard)` (the partial tile of an unrolled loop)."""
    child = load
    for op in ancestors(load, facts.kernel):
        if facts.is_guard(op):
            assert isinstance(op, scf.IfOp)
            if child.parent_region() is not op.true_region or _is_negation(op.cond):
                return True
        child = op
    return False


def _is_negation(cond: SSAValue) -> bool:
    owner = cond.owner
    return isinstance(owner, arith.XOrIOp) and -1 in (
        constant_int(owner.lhs),
        constant_int(owner.rhs),
    )


@dataclass
class Var:
    """A variable of an access: a thread index or the induction variable of a loop below P."""

    value: SSAValue
    loop: scf.ForOp | None
    thread_dim: DimensionEnum | None
    step: int | None  # constant step (None: unknown, allowed when the index ignores it)
    bound: int | None  # static maximum number of values of q (None: unknown)
    needs_check: bool = False  # bound is the max_extent option: checked at run time
    atom: int | None = None  # atom id in the index polynomial (None: the index ignores it)
    grid: bool = False  # a grid-stride loop (runs about once per block)

    @property
    def name(self) -> str:
        if self.loop is not None:
            return loop_name(self.loop)
        assert self.thread_dim is not None
        return f"threadIdx.{self.thread_dim.value}"


@dataclass(frozen=True)
class ThreadBound:
    """`ceil(value / divisor)` (divisor >= 1): a bound of a thread index scaled in its guard
    (`c * threadIdx + r < ub` of a blocked distribution: threadIdx < ceil((ub - r) / c))."""

    value: Polynomial
    divisor: int = 1


@dataclass
class ThreadRange:
    """`lo <= threadIdx.d < hi` (besides 0 <= threadIdx.d < B_d), each a `ThreadBound` of
    polynomials in `index`."""

    lows: list[ThreadBound] = field(default_factory=list[ThreadBound])
    highs: list[ThreadBound] = field(default_factory=list[ThreadBound])


@dataclass
class Access:
    """One load of the group, analysed at P."""

    load: memref.LoadOp
    type: Attribute  # the integer type the index is computed in (`ui32`: zero-extended)
    vars: list[Var]
    coefficients: dict[int, Polynomial]  # var position -> c_v (non-zero)
    base: Polynomial  # the index with every q_v = 0
    conditions: list[tuple[SSAValue, bool]]  # uniform conditions on the way (value, branch)
    threads: dict[DimensionEnum, ThreadRange]


@dataclass
class Dim:
    """One dimension of the tile: stride `stride` (a polynomial) between its elements."""

    stride: Polynomial
    min_delta: int = 0
    extent: int = 1
    layout_stride: int = 1  # of the shared array (the dimension threadIdx.x reads along fastest)
    load_stride: int = 1  # in the order of the cooperative load (stride 1 in the array fastest)


@dataclass
class Group:
    """Loads of one array cached together in one tile."""

    array: SSAValue
    accesses: list[Access]
    deltas: list[dict[int, int]]  # per access: dim index -> delta
    members: list[dict[int, list[int]]]  # per access: dim index -> var positions
    dims: list[Dim]
    # per access: var position -> how many elements of its dimension one step of q moves
    # (1 unless a coarser dimension was folded into a finer one: `_fold_overlapping`)
    scales: list[dict[int, int]] = field(default_factory=list[dict[int, int]])

    def scale(self, k: int, position: int) -> int:
        return self.scales[k].get(position, 1) if self.scales else 1

    def span(self, k: int, d: int, unknown: int | None = None) -> int | None:
        """Elements of dimension `d` access k's variables sweep (1 + sum of scale * (N - 1)),
        unbounded variables counted as `unknown` (None: no static span)."""
        access, span = self.accesses[k], 1
        for position in self.members[k].get(d, []):
            bound = access.vars[position].bound
            if bound is None:
                if unknown is None:
                    return None
                bound = unknown
            span += self.scale(k, position) * (max(bound, 1) - 1)
        return span

    @property
    def elements(self) -> int:
        total = 1
        for d in self.dims:
            total *= d.extent
        return total

    @property
    def halo(self) -> bool:
        """Neighbouring threads read overlapping windows: along some dimension of the tile a
        thread index moves together with a loop, or the loads are shifted from one another.
        Otherwise the threads of the block share whole rows of the tile (thread-invariant
        reads, the paper's caching, mm_1 -> mm_2)."""
        for d in range(len(self.dims)):
            movers = [
                access.vars[p] for access, mine in zip(self.accesses, self.members)
                for p in mine.get(d, [])
            ]  # fmt: skip
            if not any(v.thread_dim is not None for v in movers):
                continue
            shifted = len({delta.get(d, 0) for delta in self.deltas}) > 1
            if shifted or any(v.thread_dim is None for v in movers):
                return True
        return False

    @property
    def storage(self) -> int:
        """Elements of the shared array: the tile's, more when its rows are padded."""
        if not self.dims:
            return 1
        return 1 + sum((max(d.extent, 1) - 1) * d.layout_stride for d in self.dims)

    def movers(self, d: int) -> list[Var]:
        """The variables that move the element read along dimension `d`."""
        return [
            access.vars[p] for access, mine in zip(self.accesses, self.members)
            for p in mine.get(d, [])
        ]  # fmt: skip

    @property
    def checked_vars(self) -> list[tuple[Access, Var]]:
        return [(a, v) for a in self.accesses for v in a.vars if v.needs_check]


class AccessAnalysis:
    """Analyses loads at one point P (before `p_op`, in the anchor's block)."""

    def __init__(
        self,
        facts: KernelFacts,
        p_op: Operation,
        max_extent: int,
        tiles: dict[scf.ForOp, int] | None = None,
    ):
        self.facts = facts
        self.p_op = p_op
        self.max_extent = max_extent
        self.tiles = tiles or {}  # loops to be strip-mined: their tile's trip count
        self.at_p = Materializer(facts, p_op)

    # -- one load ------------------------------------------------------------------------

    def access(self, load: memref.LoadOp) -> Access:
        facts = self.facts
        if len(load.indices) != 1:
            raise Refused("only flat (rank-1) arrays are cached")
        chain = [op for op in reversed(ancestors(load, facts.kernel))]
        inside = chain[chain.index(self.p_op) :] if self.p_op in chain else None
        if inside is None:
            raise Refused("internal: the load is not below the anchor", STRUCTURE)
        vars: list[Var] = []
        conditions: list[tuple[SSAValue, bool]] = []
        threads = {d: ThreadRange() for d in DIMS if facts.block_size(d) > 1}
        child: Operation = load
        for op in reversed(chain):  # from the load outwards: which branch holds the load
            if isinstance(op, scf.IfOp):
                branch = child.parent_region() is op.true_region
                below = op in inside
                if facts.is_uniform(op.cond):
                    if below:
                        if not self.at_p.can(op.cond):
                            raise Refused(
                                "a condition on the way is not known before the tile", STRUCTURE
                            )
                        conditions.append((op.cond, branch))
                else:
                    if not branch:
                        raise Refused(EXCLUDED_PATH, STRUCTURE)
                    self._guard(op.cond, threads, conditions)
            elif isinstance(op, scf.ForOp) and op in inside:
                vars.append(self._loop_var(op))
            elif op in inside:
                raise Refused(f"the load is inside '{op.name}'")
            elif isinstance(op, scf.ForOp) and not facts.is_uniform_loop(op):
                raise Refused("the load is in a loop whose iterations differ between threads")
            child = op
        for dim in threads:
            vars.append(
                Var(self._thread_value(dim), None, dim, 1, facts.block_size(dim))
            )
        return self._decompose(load, vars, conditions, threads)

    def _loop_var(self, loop: scf.ForOp) -> Var:
        facts = self.facts
        if not facts.is_uniform_loop(loop):
            raise Refused(
                f"the loop over {loop_name(loop)} is not run alike by all threads of a block",
                STRUCTURE,
            )
        step = constant_int(loop.step)
        if step is not None and step <= 0:
            raise Refused(f"the loop over {loop_name(loop)} has a step <= 0", STRUCTURE)
        if not (self.at_p.can(loop.lb) and self.at_p.can(loop.ub)):
            raise Refused(
                f"the bounds of the loop over {loop_name(loop)} are not known before the tile"
            )
        bound, needs_check = self._trip_bound(loop, step) if step else (None, False)
        grid = any(
            isinstance(poly.atoms[a].owner, (gpu.BlockIdOp, gpu.GridDimOp))
            for poly in (facts.polys.poly(loop.lb), facts.polys.poly(loop.step))
            for a in poly.atom_ids()
        )
        return Var(loop.body.block.args[0], loop, None, step, bound, needs_check, grid=grid)

    def _trip_bound(self, loop: scf.ForOp, step: int) -> tuple[int | None, bool]:
        if loop in self.tiles:
            return self.tiles[loop], False
        if (count := constant_trip_count(loop)) is not None:
            return count, False
        start, end = _uncast(loop.lb), _uncast(loop.ub)
        owner = end.owner
        # a strip-mined tile: min(kk + T, ub), or kk + T when the tiles divide the loop
        sides = owner.operands if isinstance(owner, arith.MinSIOp) else [end]
        if start.type == end.type:
            for side in sides:
                span = self.facts.polys.poly(side).minus(self.facts.polys.poly(start))
                if span.is_constant and span.constant > 0:
                    return ceil_div(span.constant, step), False
        if self.max_extent > 0:
            return self.max_extent, True
        return None, False

    def _thread_value(self, dim: DimensionEnum) -> SSAValue:
        return thread_index(self.facts, dim)

    def _guard(
        self,
        cond: SSAValue,
        threads: dict[DimensionEnum, ThreadRange],
        conditions: list[tuple[SSAValue, bool]],
    ) -> None:
        """Reads `c1 && c2 && ...`: uniform conjuncts become conditions, `threadIdx.d + r < ub`
        (and <=, >, >=, either side) thread ranges; anything else refuses."""
        facts = self.facts
        owner = cond.owner
        if isinstance(owner, arith.AndIOp):
            self._guard(owner.lhs, threads, conditions)
            self._guard(owner.rhs, threads, conditions)
            return
        if facts.is_uniform(cond):
            if not self.at_p.can(cond):
                raise Refused("a guard condition is not known before the tile", STRUCTURE)
            conditions.append((cond, True))
            return
        if _is_negation(cond):
            raise Refused(EXCLUDED_PATH, STRUCTURE)
        if not isinstance(owner, arith.CmpiOp) or owner.predicate.value.data not in _CMPI_SIGNED:
            raise Refused("a thread guard that is not a signed comparison")
        if bit_width(owner.lhs.type) != 64:
            raise Refused("a thread guard compares values narrower than 64 bits")
        predicate = _CMPI_SIGNED[owner.predicate.value.data]
        difference = facts.polys.poly(owner.lhs).minus(facts.polys.poly(owner.rhs))
        thread_atoms = [
            a for a in difference.atom_ids() if facts.thread_dim(difference.atoms[a]) is not None
        ]
        if len(thread_atoms) != 1:
            raise Refused("a thread guard that involves several thread indices")
        split = difference.split(thread_atoms[0])
        if split is None or not split[0].is_constant or split[0].constant == 0:
            raise Refused("a thread guard not of the form c * threadIdx + uniform < uniform")
        scale, rest = split[0].constant, split[1]
        if not self.at_p.can_poly(rest):
            raise Refused("a thread guard bound is not known before the tile", STRUCTURE)
        dim = facts.thread_dim(difference.atoms[thread_atoms[0]])
        assert dim is not None
        rng = threads[dim]
        # scale * t + rest (pred) 0; with c = |scale| every case is t >= or t < ceil(x / c)
        one = Polynomial.constant_of(rest.type, 1)
        c = abs(scale)
        if scale > 0:  # c*t < -rest, c*t < 1 - rest, c*t >= 1 - rest, c*t >= -rest
            x = rest.scaled(-1)
            if predicate in ("sle", "sgt"):
                x = x.plus(one)
            (rng.highs if predicate in ("slt", "sle") else rng.lows).append(ThreadBound(x, c))
        else:  # c*t > rest, c*t >= rest, c*t < rest, c*t <= rest
            x = rest.plus(one) if predicate in ("slt", "sge") else rest
            (rng.lows if predicate in ("slt", "sle") else rng.highs).append(ThreadBound(x, c))

    def _decompose(
        self,
        load: memref.LoadOp,
        vars: list[Var],
        conditions: list[tuple[SSAValue, bool]],
        threads: dict[DimensionEnum, ThreadRange],
    ) -> Access:
        polys = self.facts.polys
        index = load.indices[0]
        poly = polys.index_poly(index)
        atoms = {polys.atom_id(v.value): position for position, v in enumerate(vars)}
        coefficients: dict[int, Polynomial] = {}
        rest = poly
        for atom, position in atoms.items():
            if atom not in rest.atom_ids():
                continue
            split = rest.split(atom)
            if split is None:
                raise Refused(f"the index is not affine in {vars[position].name}")
            coefficient, rest = split
            if not coefficient.terms:
                continue
            if vars[position].step is None:
                raise Refused(
                    f"the loop over {vars[position].name} has no constant step", STRUCTURE
                )
            coefficients[position] = coefficient
            vars[position].atom = atom
        for position, c in coefficients.items():
            if c.atom_ids() & set(atoms):
                raise Refused(f"the index multiplies {vars[position].name} by another variable")
            if not self.at_p.can_poly(c):
                raise Refused(
                    f"the stride of {vars[position].name} in the index is not known before the "
                    "tile"
                )
        leftover = [a for a in rest.atom_ids() if self.facts.thread_dim(rest.atoms[a])]
        if leftover or not self.at_p.can_poly(rest):
            raise Refused("the index depends on values not known before the tile")
        base = rest
        for position, c in coefficients.items():
            var = vars[position]
            if var.loop is None:
                continue
            lb = polys.poly(var.loop.lb)
            if (lb_width := bit_width(lb.type)) is None or lb_width < base.width:
                if lb.is_constant:
                    lb = Polynomial.constant_of(base.type, lb.constant)
                elif polys.sign_extends_exactly(var.loop.lb):  # `(long)k` of an `int k`
                    lb = lb.widened(base.type)
                else:
                    raise Refused(f"the loop over {var.name} is narrower than the index")
            elif lb.type != base.type:
                lb = lb.truncated(base.type)
            base = base.plus(c.times(lb))
        return Access(load, poly.type, vars, coefficients, base, conditions, threads)

    # -- the group -----------------------------------------------------------------------

    def group(self, target: memref.LoadOp, loads: list[memref.LoadOp]) -> Group:
        """The tile of `target` and of the other `loads` of its array below P that can share
        it (those that cannot stay global loads)."""
        first = self.access(target)
        accesses = [first]
        for load in loads:
            if load is target:
                continue
            try:
                access = self.access(load)
            except Refused:
                continue
            if access.type == first.type:
                accesses.append(access)
        dims: list[Dim] = []
        keys: dict[PolynomialKey, int] = {}
        members: list[dict[int, list[int]]] = []
        kept: list[Access] = []
        deltas: list[dict[int, int]] = []
        for access in accesses:
            trial_dims = list(dims)
            trial_keys = dict(keys)
            mine: dict[int, list[int]] = {}
            for position, c in access.coefficients.items():
                step = access.vars[position].step
                assert step is not None
                stride = c.scaled(step)
                if stride.key not in trial_keys:
                    trial_keys[stride.key] = len(trial_dims)
                    trial_dims.append(Dim(stride))
                mine.setdefault(trial_keys[stride.key], []).append(position)
            limits = _limits(trial_dims, list(zip(kept, members, deltas)), (access, mine))
            difference = access.base.minus(first.base)
            delta = _decompose_offset(difference, trial_dims, limits)
            if delta is None:
                # another row: `in[(i - 1) * m + j]` next to `in[i * m + j]` (i uniform)
                for stride in _row_strides(first.base, difference, trial_dims):
                    delta = _decompose_offset(
                        difference, [*trial_dims, Dim(stride)], [*limits, None]
                    )
                    if delta is not None:
                        trial_keys[stride.key] = len(trial_dims)
                        trial_dims.append(Dim(stride))
                        break
            if delta is None:
                if access is first:
                    raise Refused("internal: the first access does not decompose")
                continue
            dims, keys = trial_dims, trial_keys
            kept.append(access)
            members.append(mine)
            deltas.append(delta)
        group = Group(target.memref, kept, deltas, members, dims, [{} for _ in kept])
        if not self.tiles:  # a strip-mined loop keeps its own tiles (`window_along`)
            _fold_overlapping(group)
        _shape(group)
        return group


def _fold_overlapping(group: Group) -> None:
    """Folds a dimension of stride K * s into one of stride s (K >= 2 a constant) when the
    latter's extent exceeds K: the windows of neighbouring threads overlap, as in a
    convolution's `in[tx * tm + r + u]` with tm replicas per thread (blocked) and a window u
    of t. Kept apart, the threads' dimension (stride tm) and the window's (r + u: tm + t - 1
    elements) make a tile of threads * (tm + t - 1) elements, each halo loaded once per
    thread; folded, the dimension has tm * (threads - 1) + tm + t - 1 elements, the block's
    window loaded once. Loading the hull is safe even where a run-time trip count leaves gaps:
    every element lies between two elements read along the same dimension of the array."""
    while True:
        shape = extents(group)
        if shape is None:
            return
        fold = next(
            ((coarse, fine, factor) for coarse, fine in permutations(range(len(group.dims)), 2)
             if (factor := _multiple(group.dims[coarse].stride, group.dims[fine].stride))
             and shape[fine][1] > factor),
            None,
        )  # fmt: skip
        if fold is None:
            return
        coarse, fine, factor = fold
        for k in range(len(group.accesses)):
            deltas, members, scales = group.deltas[k], group.members[k], group.scales[k]
            if (delta := deltas.pop(coarse, 0)) != 0:
                deltas[fine] = deltas.get(fine, 0) + factor * delta
            for position in members.pop(coarse, []):
                scales[position] = factor * group.scale(k, position)
                members.setdefault(fine, []).append(position)
            group.deltas[k] = _renumbered(deltas, coarse)
            group.members[k] = _renumbered(members, coarse)
        del group.dims[coarse]


def _renumbered(by_dim: dict[int, _T], removed: int) -> dict[int, _T]:
    """`by_dim` with the dimensions after `removed` moved down by one."""
    return {d - (d > removed): value for d, value in by_dim.items()}


def _multiple(coarse: Polynomial, fine: Polynomial) -> int | None:
    """K >= 2 with coarse == K * fine, else None."""
    lead = next((m for m in sorted(fine.terms) if m), ())
    unit, have = fine.signed(lead), coarse.signed(lead)
    if unit == 0 or have % unit or have // unit < 2:
        return None
    factor = have // unit
    return factor if fine.scaled(factor).key == coarse.key else None


def _row_strides(base: Polynomial, difference: Polynomial, dims: list[Dim]):
    """Strides for a dimension without variables that may make `difference` decompose: the
    coefficients of the uniform atoms in the base index (`(j + v) * pn` gives `pn`, the
    rows of a replica j + 1 of an unrolled loop), the non-constant part of `difference`
    divided by the gcd of its coefficients, and 1 (the copies k + 1, k + 2, ... of an
    unrolled serial loop of step 16, or constant taps)."""
    known = {dim.stride.key for dim in dims}
    for atom in sorted(base.atom_ids()):
        split = base.split(atom)
        if split is not None and not split[0].is_constant and split[0].key not in known:
            yield split[0]
    terms = {m: difference.signed(m) for m in difference.terms if m}
    if terms:
        divisor = math.gcd(*terms.values())
        if terms[min(terms)] < 0:
            divisor = -divisor
        yield Polynomial.make(
            difference.type, {m: c // divisor for m, c in terms.items()}, difference.atoms
        )
    elif difference.constant:  # a row of a constant length: `(j + 1) * 2048`
        row = Polynomial.constant_of(difference.type, abs(difference.constant))
        if row.key not in known:
            yield row
    unit = Polynomial.constant_of(difference.type, 1)
    if unit.key not in known:
        yield unit


def _limits(
    dims: list[Dim],
    kept: list[tuple[Access, dict[int, list[int]], dict[int, int]]],
    current: tuple[Access, dict[int, list[int]]],
) -> list[tuple[int, int] | None]:
    """Per dimension, the constant shifts of the current access that keep the tile in one
    piece along it: its window must touch the windows of the accesses kept so far (a tap at
    +1 beside a window of 32, the next replica 16 further along a window of 18; not a row 2048
    further along a window of 256, which is another dimension). None: no limit (no variables
    along it, or unknown bounds)."""

    def span(access: Access, positions: list[int]) -> int | None:
        bounds = [access.vars[p].bound for p in positions]
        if any(b is None for b in bounds):
            return None
        return sum(max(b, 1) - 1 for b in bounds if b is not None) + 1

    access, mine = current
    limits: list[tuple[int, int] | None] = []
    for d in range(len(dims)):
        has_variables = bool(mine.get(d)) or any(theirs.get(d) for _, theirs, _ in kept)
        own = span(access, mine.get(d, []))
        windows = [(delta.get(d, 0), span(other, theirs.get(d, [])))
                   for other, theirs, delta in kept]  # fmt: skip
        if not has_variables or own is None or any(w is None for _, w in windows):
            limits.append(None)
            continue
        starts = [start for start, _ in windows] or [0]
        ends = [start + (w or 1) for start, w in windows] or [own]
        limits.append((min(starts) - own, max(ends)))
    return limits


def _decompose_offset(
    difference: Polynomial, dims: list[Dim], limits: list[tuple[int, int] | None]
) -> dict[int, int] | None:
    """Integers delta_d with difference == sum(delta_d * stride_d), or None: greedily, the
    strides with more terms first, then the larger ones, each taking the multiple of itself
    it can (within its limit)."""
    remaining = difference
    deltas: dict[int, int] = {}

    def size(d: int) -> tuple[int, int]:
        stride = dims[d].stride
        lead = next((m for m in sorted(stride.terms) if m), ())
        return (-len(stride.terms), -abs(stride.signed(lead)))

    for constant_pass in (False, True):
        for d in sorted(range(len(dims)), key=size):
            stride = dims[d].stride
            if stride.is_constant != constant_pass:
                continue
            if constant_pass:
                lead: tuple[int, ...] = ()
            else:
                lead = next(m for m in sorted(stride.terms) if m)
            have, unit = remaining.signed(lead), stride.signed(lead)
            count = abs(have) // abs(unit) * (1 if (have >= 0) == (unit > 0) else -1)
            limit = limits[d]
            if not count or (limit is not None and not limit[0] <= count <= limit[1]):
                continue
            deltas[d] = count
            remaining = remaining.minus(stride.scaled(count))
        if not constant_pass and not remaining.is_constant:
            return None
    return deltas if not remaining.terms else None


def _uncast(value: SSAValue) -> SSAValue:
    """The value an integer cast converts (the tile bounds are computed in `index`)."""
    owner = value.owner
    if isinstance(owner, arith.IndexCastOp | arith.TruncIOp | arith.ExtSIOp):
        return owner.operands[0]
    return value


def extents(group: Group, unknown: int | None = None) -> list[tuple[int, int]] | None:
    """(min delta, extent) of each dimension; variables without a static bound count as
    `unknown` values (None: then there is no static shape)."""
    result: list[tuple[int, int]] = []
    for d in range(len(group.dims)):
        lows, highs = list[int](), list[int]()
        for k, delta in enumerate(group.deltas):
            span = group.span(k, d, unknown)
            if span is None:
                return None
            lows.append(delta.get(d, 0))
            highs.append(delta.get(d, 0) + span)
        result.append((min(lows), max(highs) - min(lows)))
    return result


def _shape(group: Group) -> None:
    """Fixes the tile's extents (when static), the order of the cooperative load and the
    layout of the shared array. The load walks the dimension of stride 1 in the array
    fastest, so that neighbouring threads read neighbouring elements (coalesced). The shared
    array keeps that order, unless threadIdx.x moves the reads of the tile along another
    dimension only (a transposed operand: `B[j*p + k]` with j on x): then that dimension is
    fastest in the tile, stored transposed, so that the threads of a warp read neighbouring
    banks of it instead of one bank every p elements. With a blocked distribution (a dimension
    only the replicas of a thread walk) that dimension is fastest, then the thread indices':
    a thread's fragment is contiguous, stored transposed where the array has it otherwise."""
    shape = extents(group) or [(0, 0)] * len(group.dims)
    for dim, (min_delta, extent) in zip(group.dims, shape):
        dim.min_delta, dim.extent = min_delta, extent
    unit = ((), 1)

    def strided(d: int) -> bool:
        return group.dims[d].stride.key != (unit,)

    def along_x(d: int) -> bool:
        return any(v.thread_dim == DimensionEnum.X for v in group.movers(d))

    def replicas_only(d: int) -> bool:
        """The replicas of a blocked thread walk `d` alone: no variable moves it, and the
        threads of some dimension continue where its extent ends (`t * U + u`), unlike
        replicas of a dimension without threads (1D blocks' y replicas, the paper's)."""
        if group.movers(d) or len({delta.get(d, 0) for delta in group.deltas}) < 2:
            return False
        run = group.dims[d].stride.scaled(max(group.dims[d].extent, 1)).key
        return any(
            any(v.thread_dim is not None for v in group.movers(e))
            and group.dims[e].stride.key == run
            for e in range(len(group.dims)) if e != d
        )

    def thread_axis(d: int) -> int:
        dims = {v.thread_dim for v in group.movers(d)} - {None}
        return min((DIMS.index(t) for t in dims if t is not None), default=len(DIMS))

    def constant_stride(d: int) -> float:
        stride = group.dims[d].stride
        return abs(stride.constant) if stride.is_constant else float("inf")

    load_order = sorted(range(len(group.dims)), key=lambda d: (strided(d), d))
    layout_order = load_order
    if any(replicas_only(d) for d in load_order):
        # A blocked distribution: the load walks constant strides by size (the replicas,
        # then the threads reading `t * replicas + r` on: one run of the array), and the
        # layout has each thread's replicas contiguous (vector reads of its fragment), then
        # the threads that read the tile, then the rest.
        load_order = sorted(load_order, key=lambda d: (strided(d), constant_stride(d), d))
        layout_order = sorted(load_order, key=lambda d: (not replicas_only(d), thread_axis(d)))
    elif not any(along_x(d) and not strided(d) for d in load_order):
        layout_order = sorted(load_order, key=lambda d: not along_x(d))
    for order, attribute in ((load_order, "load_stride"), (layout_order, "layout_stride")):
        stride = 1
        for d in order:
            setattr(group.dims[d], attribute, stride)
            stride *= max(group.dims[d].extent, 1)


def pad_transposed(group: Group, pad: int) -> None:
    """Adds `pad` elements to the layout stride of the dimension the cooperative load walks
    fastest when the tile is stored transposed (it is not fastest in the layout), and scales
    the dimensions laid out after it: the stores of neighbouring threads, `layout_stride`
    apart, fall into different banks."""
    if pad == 0:
        return
    loaded_fastest = [d for d in group.dims if d.load_stride == 1]
    if len(loaded_fastest) != 1 or loaded_fastest[0].layout_stride == 1:
        return
    stride = 1
    for dim in sorted(group.dims, key=lambda d: d.layout_stride):
        if dim is loaded_fastest[0]:
            stride += pad
        dim.layout_stride = stride
        stride *= max(dim.extent, 1)


def window_along(group: Group, loop: scf.ForOp) -> bool:
    """Whether neighbouring threads read overlapping windows along `loop` (a thread index
    moves along one dimension of the tile with the loop's variable, as in a convolution's
    `in[i + u]`): strip-mining the loop would cut the window, and each tile would reload
    its halo. Reads whose thread indices move along other dimensions than the loop's (both
    operands of a matrix product with 2D blocks: `B[i + k*m]`, `C[k + j*p]`) strip-mine into
    a block tile per step of the loop."""
    for d in range(len(group.dims)):
        movers = group.movers(d)
        if any(v.loop is loop for v in movers) and any(v.thread_dim is not None for v in movers):
            return True
    return False


def unbounded_vars(group: Group) -> list[Var]:
    """Variables that move the element read but have no static bound."""
    return [
        a.vars[p] for a in group.accesses for p in a.coefficients if a.vars[p].bound is None
    ]


def reads_and_elements(group: Group) -> tuple[int, int]:
    """(loads the block executes, elements of the tile), unknown trip counts taken as
    `UNKNOWN_EXTENT`: caching pays only when the first exceeds the second."""
    reads = 0
    for access in group.accesses:
        product = 1
        for var in access.vars:
            if var.grid:
                continue  # a grid-stride loop gives each block about one iteration
            product *= var.bound if var.bound is not None else UNKNOWN_EXTENT
        reads += product
    elements = 1
    for _, extent in extents(group, UNKNOWN_EXTENT) or []:
        elements *= extent
    return reads, elements


def thread_index(facts: KernelFacts, dim: DimensionEnum) -> SSAValue:
    """A `threadIdx` value of the kernel (created at its entry if there is none)."""
    for op in facts.kernel.walk():
        if isinstance(op, gpu.ThreadIdOp) and op.dimension.data == dim:
            return op.result
    op = gpu.ThreadIdOp(DimensionAttr(dim))
    op.result.name_hint = f"t{dim.value}"
    first = facts.entry.first_op
    assert first is not None  # a kernel's entry block ends with its terminator
    facts.entry.insert_op_before(op, first)
    return op.result


def element_bytes(array: SSAValue) -> int:
    assert isa(array.type, MemRefType)
    width = bit_width(array.type.element_type)
    if width is None:
        from xdsl.dialects.builtin import AnyFloat

        element = array.type.element_type
        assert isinstance(element, AnyFloat)
        width = element.bitwidth
    return max(width // 8, 1)
