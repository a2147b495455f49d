"""Which elements of each array a C-level function touches, for concrete scalar sizes.

Arrays are flat `memref<?xT>` parameters indexed by `index_cast` of C integer expressions
(docs/ir.md), so the range of every index follows by interval arithmetic once the scalar
parameters have values: loop induction variables range over `[lb, ub - 1]` (an over-approximation
for stepped loops), `scf.if` guards narrow the values they compare (`i < n && A[i] > 0`), and a
rank-0 slot stored once before its load stands for the stored value. Interval arithmetic forgets
how the variables of dependent (triangular) bounds relate: in `for (k = 0; k <= i; k++) b[i - k]`
it sees `i - k` over [0, n-1] - [0, n-1]; so each index is also bounded symbolically, by
replacing the induction variables of the loops around it, innermost first, with the bound that
makes the index smallest (largest), e.g. `i - k` >= `i - i` = 0, and the two ranges are
intersected. Anything else (data read from an array, a `while` loop's variable, wrapping
arithmetic) has no bound, and neither has the array it indexes: its entry is None. This lets the
API reject a too-short NumPy array before a kernel reads past it, and lets the tuner size the
arrays it generates.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType, StringAttr
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue

from autogpu.dialects.agpu import ParallelForOp
from autogpu.dialects.signature import NAME
from autogpu.passes.analysis.integers import bit_width, ceil_div, to_signed
from autogpu.passes.analysis.loops import bound_over_loops, enclosing_loops
from autogpu.passes.analysis.polynomial import Polynomial, PolynomialAnalysis


@dataclass(frozen=True)
class Interval:
    """All integers `lo..hi` (inclusive), read as signed."""

    lo: int
    hi: int

    def union(self, other: Interval) -> Interval:
        return Interval(min(self.lo, other.lo), max(self.hi, other.hi))

    def meet(self, lo: int | None = None, hi: int | None = None) -> Interval:
        """The part within `lo..hi` (kept non-empty: an impossible guard narrows nothing)."""
        new_lo = self.lo if lo is None else max(self.lo, lo)
        new_hi = self.hi if hi is None else min(self.hi, hi)
        return Interval(new_lo, new_hi) if new_lo <= new_hi else self

    @property
    def nonnegative(self) -> bool:
        return self.lo >= 0


@dataclass(frozen=True)
class IndexRange:
    """The smallest and largest index the accesses to one array may use."""

    lo: int
    hi: int

    @property
    def extent(self) -> int:
        """Elements the array needs: 1 + the largest index."""
        return max(0, self.hi + 1)


def _corners(a: Interval, b: Interval, f: Callable[[int, int], int]) -> Interval:
    values = [f(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return Interval(min(values), max(values))


def _div_trunc(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y > 0) else -q


def _div_floor(x: int, y: int) -> int:
    return x // y


def _swapped(pred: int, swap: bool) -> int:
    """The predicate with its operands swapped (`a < b` is `b > a`)."""
    if not swap:
        return pred
    return {0: 0, 1: 1, 2: 4, 3: 5, 4: 2, 5: 3, 6: 8, 7: 9, 8: 6, 9: 7}[pred]


_NEGATED = {0: 1, 1: 0, 2: 5, 3: 4, 4: 3, 5: 2, 6: 9, 7: 8, 8: 7, 9: 6}
"""arith.cmpi predicates (eq ne slt sle sgt sge ult ule ugt uge = 0..9) and their negation."""


def parameter_names(function: func.FuncOp) -> list[str]:
    """The C parameter names (`agpu.name`) of a frontend function, in order."""
    attrs = function.arg_attrs.data if function.arg_attrs is not None else ()
    names: list[str] = []
    for i, arg in enumerate(function.body.blocks[0].args):
        name = attrs[i].data.get(NAME) if i < len(attrs) else None
        names.append(name.data if isinstance(name, StringAttr) else (arg.name_hint or f"arg{i}"))
    return names


class _Analysis:
    """Per-function state: scalar values, loop intervals and one evaluator per guard context."""

    def __init__(self, function: func.FuncOp, sizes: Mapping[str, int]):
        self.function = function
        self.entry = function.body.blocks[0]
        self.args: dict[SSAValue, Interval | None] = {}
        self.arrays: dict[str, BlockArgument] = {}
        names = parameter_names(function)
        for arg, name in zip(self.entry.args, names):
            if isinstance(arg.type, MemRefType):
                self.arrays[name] = arg
            elif (width := bit_width(arg.type)) is not None and name in sizes:
                value = to_signed(int(sizes[name]), width)
                self.args[arg] = Interval(value, value)
            else:
                self.args[arg] = None
        self.loops: dict[Operation, Interval | str | None] = {}
        self.evaluators: dict[tuple[tuple[SSAValue, bool], ...], _Evaluator] = {}
        self.polynomials = PolynomialAnalysis()

    # --- contexts ---------------------------------------------------------------------------
    def guards(self, op: Operation) -> tuple[tuple[SSAValue, bool], ...]:
        """The `scf.if` conditions known at `op`, outermost first, with the branch taken."""
        chain: list[tuple[SSAValue, bool]] = []
        node = op
        while (parent := node.parent_op()) is not None and parent is not self.function:
            if isinstance(parent, scf.IfOp):
                chain.append((parent.cond, node.parent_region() is parent.true_region))
            node = parent
        return tuple(reversed(chain))

    def evaluator_at(self, op: Operation) -> _Evaluator:
        return self._evaluator(self.guards(op))

    def _evaluator(self, chain: tuple[tuple[SSAValue, bool], ...]) -> _Evaluator:
        if (known := self.evaluators.get(chain)) is not None:
            return known
        if not chain:
            evaluator = _Evaluator(self, {})
        else:
            parent = self._evaluator(chain[:-1])
            cond, truth = chain[-1]
            evaluator = _Evaluator(self, {**parent.overrides, **parent.refine(cond, truth)})
        self.evaluators[chain] = evaluator
        return evaluator

    # --- loops ------------------------------------------------------------------------------
    def loop_interval(self, loop: Operation) -> Interval | str | None:
        """The induction variable's values, None if unbounded, "empty" if the loop never runs."""
        if loop in self.loops:
            return self.loops[loop]
        self.loops[loop] = None  # a bound that depends on its own loop: unbounded
        assert isinstance(loop, (scf.ForOp, ParallelForOp))
        evaluator = self.evaluator_at(loop)
        lb, ub, step = (evaluator.eval(v) for v in (loop.lb, loop.ub, loop.step))
        result: Interval | str | None = None
        if lb is not None and ub is not None:
            if ub.hi <= lb.lo:
                result = "empty"
            elif step is not None and step.lo > 0:
                last = ub.hi - 1
                if lb.lo == lb.hi and step.lo == step.hi:  # the exact last iteration
                    last = lb.lo + (ub.hi - 1 - lb.lo) // step.lo * step.lo
                result = Interval(lb.lo, last)
        self.loops[loop] = result
        return result

    def never_runs(self, op: Operation) -> bool:
        """`op` sits in a loop that, for these sizes, runs no iteration."""
        parent = op.parent_op()
        while parent is not None and parent is not self.function:
            if isinstance(parent, (scf.ForOp, ParallelForOp)):
                if self.loop_interval(parent) == "empty":
                    return True
            parent = parent.parent_op()
        return False

    # --- indices ----------------------------------------------------------------------------
    def index_interval(self, access: Operation, index: SSAValue) -> Interval | None:
        """The values `index` may take at `access`: interval arithmetic, narrowed by the
        symbolic bounds of `_eliminated` (both are over-approximations, so their meet is)."""
        evaluator = self.evaluator_at(access)
        interval = evaluator.eval(index)
        if interval is None:  # unbounded, or it may wrap: the polynomial says nothing either
            return None
        index_poly = self.polynomials.index_poly(index)
        low = self._eliminated(access, index_poly, evaluator, upper=False)
        high = self._eliminated(access, index_poly, evaluator, upper=True)
        lo = None if low is None else _poly_interval(low, evaluator)
        hi = None if high is None else _poly_interval(high, evaluator)
        return interval.meet(lo.lo if lo else None, hi.hi if hi else None)

    def _eliminated(
        self, access: Operation, poly: Polynomial, evaluator: _Evaluator, upper: bool
    ) -> Polynomial | None:
        """`poly` bounded over the loops around `access` (`bound_over_loops`), the signs of
        coefficients from their intervals; None if a bound may wrap."""
        loops = enclosing_loops(access, self.function)
        for loop in loops:
            bounds = self.evaluator_at(loop)
            if bounds.eval(loop.lb) is None or bounds.eval(loop.ub) is None:
                return None

        def sign(coefficient: Polynomial) -> int | None:
            interval = _poly_interval(coefficient, evaluator)
            if interval is None or interval.lo < 0 < interval.hi:
                return None
            return 1 if interval.lo >= 0 else -1

        return bound_over_loops(poly, loops, self.polynomials, sign, upper)

    # --- slots ------------------------------------------------------------------------------
    def single_store(self, slot: SSAValue, load: Operation) -> memref.StoreOp | None:
        """The only store into the rank-0 `slot`, if every other use is a load and the store
        comes before `load` on every path (its block encloses the load)."""
        stores: list[memref.StoreOp] = []
        for use in slot.uses:
            user = use.operation
            if isinstance(user, memref.StoreOp) and user.memref == slot and use.index == 1:
                stores.append(user)
            elif not isinstance(user, memref.LoadOp):
                return None
        if len(stores) != 1:
            return None
        store = stores[0]
        block = store.parent_block()
        ancestor = block.find_ancestor_op_in_block(load) if block is not None else None
        if ancestor is None or ancestor is store or not store.is_before_in_block(ancestor):
            return None
        return store


class _Evaluator:
    """Intervals of integer values under some guards (`overrides` of compared values)."""

    def __init__(self, analysis: _Analysis, overrides: dict[SSAValue, Interval]):
        self.analysis = analysis
        self.overrides = overrides
        self.memo: dict[SSAValue, Interval | None] = {}
        self.active: set[SSAValue] = set()

    def eval(self, value: SSAValue) -> Interval | None:
        if value in self.overrides:
            return self.overrides[value]
        if value in self.memo:
            return self.memo[value]
        if value in self.active:  # a cycle through a slot: no bound
            return None
        self.active.add(value)
        try:
            result = self._compute(value)
        finally:
            self.active.discard(value)
        width = bit_width(value.type)
        if result is not None and width is not None:
            if result.lo < -(1 << (width - 1)) or result.hi >= 1 << (width - 1):
                result = None  # the C arithmetic may wrap: no bound
        self.memo[value] = result
        return result

    def _compute(self, value: SSAValue) -> Interval | None:
        analysis = self.analysis
        if isinstance(value, BlockArgument):
            if value.owner is analysis.entry:
                return analysis.args.get(value)
            parent = value.owner.parent_op()
            if isinstance(parent, (scf.ForOp, ParallelForOp)) and value.index == 0:
                interval = analysis.loop_interval(parent)
                return interval if isinstance(interval, Interval) else None
            return None
        assert isinstance(value, OpResult)  # not a block argument: an operation's result
        op = value.owner
        if isinstance(op, arith.ConstantOp):
            if isinstance(op.value, IntegerAttr) and (width := bit_width(value.type)):
                c = to_signed(op.value.value.data, width)
                return Interval(c, c)
            return None
        if isinstance(op, memref.LoadOp):
            return self._slot_load(op)
        if isinstance(op, scf.IfOp):
            return self._if_result(op, value.index)
        if isinstance(op, arith.SelectOp):
            a = self._refined(op.cond, True).eval(op.lhs)
            b = self._refined(op.cond, False).eval(op.rhs)
            return a.union(b) if a is not None and b is not None else None
        operands = [self.eval(v) for v in op.operands]
        if any(x is None for x in operands):
            return None
        return _arith(op, value, operands)  # pyright: ignore[reportArgumentType]

    def _slot_load(self, load: memref.LoadOp) -> Interval | None:
        slot = load.memref
        if load.indices or not isinstance(slot.owner, memref.AllocaOp):
            return None
        store = self.analysis.single_store(slot, load)
        if store is None:
            return None
        return self.analysis.evaluator_at(store).eval(store.value)

    def _if_result(self, op: scf.IfOp, index: int) -> Interval | None:
        result = None
        for region in (op.true_region, op.false_region):
            if not region.blocks:
                return None
            terminator = region.blocks[-1].last_op
            if terminator is None:
                return None
            branch = self.analysis.evaluator_at(terminator).eval(terminator.operands[index])
            if branch is None:
                return None
            result = branch if result is None else result.union(branch)
        return result

    def _refined(self, cond: SSAValue, truth: bool) -> _Evaluator:
        return _Evaluator(self.analysis, {**self.overrides, **self.refine(cond, truth)})

    def refine(self, cond: SSAValue, truth: bool) -> dict[SSAValue, Interval]:
        """What `cond == truth` says about the values it compares."""
        op = cond.owner
        if (isinstance(op, arith.AndIOp) and truth) or (isinstance(op, arith.OrIOp) and not truth):
            return {**self.refine(op.lhs, truth), **self.refine(op.rhs, truth)}
        if isinstance(op, scf.IfOp):  # `a && b` (`a || b`): if a, b; else false (true)
            other = op.false_region if truth else op.true_region
            if other.blocks and (yielded := other.blocks[-1].last_op) is not None:
                assert isinstance(cond, OpResult)  # a result of the scf.if
                constant = yielded.operands[cond.index].owner
                if (
                    isinstance(constant, arith.ConstantOp)
                    and isinstance(constant.value, IntegerAttr)
                    and bool(constant.value.value.data) != truth
                ):
                    return self.refine(op.cond, truth)
            return {}
        if not isinstance(op, arith.CmpiOp):
            return {}
        pred = op.predicate.value.data
        if not truth:
            pred = _NEGATED[pred]
        facts: dict[SSAValue, Interval] = {}
        for subject, other, swap in ((op.lhs, op.rhs, False), (op.rhs, op.lhs, True)):
            mine, theirs = self.eval(subject), self.eval(other)
            if mine is None or theirs is None or isinstance(subject.owner, arith.ConstantOp):
                continue
            p = _swapped(pred, swap)
            narrowed = None
            if p in (8, 9) or (p in (6, 7) and not theirs.nonnegative):
                narrowed = None  # unsigned `>`: says nothing on the signed reading
            elif p == 0:
                narrowed = mine.meet(theirs.lo, theirs.hi)
            elif p in (2, 3):  # mine < theirs (or <=)
                narrowed = mine.meet(hi=theirs.hi - (1 if p == 2 else 0))
            elif p in (4, 5):
                narrowed = mine.meet(lo=theirs.lo + (1 if p == 4 else 0))
            elif p in (6, 7):  # unsigned <, with a non-negative bound: 0 <= mine
                narrowed = mine.meet(0, theirs.hi - (1 if p == 6 else 0))
            if narrowed is not None:
                facts[subject] = narrowed
        return facts


def _arith(op: Operation, value: SSAValue, x: list[Interval]) -> Interval | None:
    """The interval of an integer op's result from its operands' intervals (None: no bound)."""
    match op:
        case arith.AddiOp():
            return Interval(x[0].lo + x[1].lo, x[0].hi + x[1].hi)
        case arith.SubiOp():
            return Interval(x[0].lo - x[1].hi, x[0].hi - x[1].lo)
        case arith.MuliOp():
            return _corners(x[0], x[1], lambda a, b: a * b)
        case arith.DivSIOp() | arith.CeilDivSIOp() | arith.FloorDivSIOp():
            if x[1].lo <= 0 <= x[1].hi:
                return None
            f = {
                arith.DivSIOp: _div_trunc,
                arith.CeilDivSIOp: ceil_div,
                arith.FloorDivSIOp: _div_floor,
            }[type(op)]
            return _corners(x[0], x[1], f)
        case arith.DivUIOp() | arith.CeilDivUIOp():
            if not (x[0].nonnegative and x[1].lo > 0):
                return None
            f = _div_trunc if isinstance(op, arith.DivUIOp) else ceil_div
            return _corners(x[0], x[1], f)
        case arith.RemSIOp():
            if x[1].lo <= 0 <= x[1].hi:
                return None
            bound = max(abs(x[1].lo), abs(x[1].hi)) - 1
            lo = 0 if x[0].nonnegative else max(x[0].lo, -bound)
            hi = 0 if x[0].hi <= 0 else min(x[0].hi, bound)
            return Interval(lo, hi)
        case arith.RemUIOp():
            if not (x[0].nonnegative and x[1].lo > 0):
                return None
            return Interval(0, min(x[0].hi, x[1].hi - 1))
        case arith.MinSIOp():
            return Interval(min(x[0].lo, x[1].lo), min(x[0].hi, x[1].hi))
        case arith.MaxSIOp():
            return Interval(max(x[0].lo, x[1].lo), max(x[0].hi, x[1].hi))
        case arith.MinUIOp() | arith.MaxUIOp():
            if not (x[0].nonnegative and x[1].nonnegative):
                return None
            pick = min if isinstance(op, arith.MinUIOp) else max
            return Interval(pick(x[0].lo, x[1].lo), pick(x[0].hi, x[1].hi))
        case arith.ShLIOp():
            if x[1].lo != x[1].hi or not 0 <= x[1].lo < 63:
                return None
            return Interval(x[0].lo << x[1].lo, x[0].hi << x[1].lo)
        case arith.ShRSIOp() | arith.ShRUIOp():
            if x[1].lo != x[1].hi or not 0 <= x[1].lo < 63:
                return None
            if isinstance(op, arith.ShRUIOp) and not x[0].nonnegative:
                return None
            return Interval(x[0].lo >> x[1].lo, x[0].hi >> x[1].lo)
        case arith.ExtSIOp() | arith.IndexCastOp() | arith.TruncIOp():
            return x[0]  # sign-extends, or truncates (checked for wrapping by the caller)
        case arith.ExtUIOp():
            if x[0].nonnegative:
                return x[0]
            width = bit_width(op.operands[0].type)
            if width is None:
                return None
            if x[0].hi < 0:  # all read as unsigned: 2^width more (a[2^31 + i] on unsigned)
                return Interval(x[0].lo + (1 << width), x[0].hi + (1 << width))
            return Interval(0, (1 << width) - 1)
        case _:
            return None


def _poly_interval(poly: Polynomial, evaluator: _Evaluator) -> Interval | None:
    """The values of a polynomial from its atoms' intervals (None if one is unbounded or the
    result does not fit its type)."""
    lo = hi = 0
    for monomial, _ in poly.terms.items():
        term = Interval(poly.signed(monomial), poly.signed(monomial))
        for atom in monomial:
            factor = evaluator.eval(poly.atoms[atom])
            if factor is None:
                return None
            term = _corners(term, factor, lambda a, b: a * b)
        lo, hi = lo + term.lo, hi + term.hi
    half = 1 << (poly.width - 1)
    return Interval(lo, hi) if -half <= lo and hi < half else None


def _accesses(op: Operation, array: SSAValue) -> list[SSAValue] | None:
    """The index of an access to `array` by `op`, or None if `op` uses it otherwise."""
    if isinstance(op, memref.LoadOp) and op.memref == array:
        return list(op.indices)
    if isinstance(op, memref.StoreOp) and op.memref == array and op.value != array:
        return list(op.indices)
    return None


def touched_ranges(function: func.FuncOp, sizes: Mapping[str, int]) -> dict[str, IndexRange | None]:
    """For each array parameter (by `agpu.name`): the range of indices its loads and stores
    may use with these scalar `sizes`; None when unbounded. An array never accessed (or only in
    loops that do not run for these sizes) gets `IndexRange(0, -1)`: extent 0."""
    analysis = _Analysis(function, sizes)
    ranges: dict[str, IndexRange | None] = {}
    for name, array in analysis.arrays.items():
        touched: IndexRange | None = IndexRange(0, -1)
        lo: int | None = None
        hi: int | None = None
        for use in array.uses:
            indices = _accesses(use.operation, array)
            if indices is None or len(indices) != 1:
                touched = None
                break
            if analysis.never_runs(use.operation):
                continue
            interval = analysis.index_interval(use.operation, indices[0])
            if interval is None:
                touched = None
                break
            lo = interval.lo if lo is None else min(lo, interval.lo)
            hi = interval.hi if hi is None else max(hi, interval.hi)
        if touched is not None and lo is not None and hi is not None:
            touched = IndexRange(lo, hi)
        ranges[name] = touched
    return ranges


class ValueIntervals:
    """The values integers (and polynomials of them) may take at an op of `function`, for
    concrete scalar `sizes`: the evaluator `touched_ranges` uses, for other analyses."""

    def __init__(self, function: func.FuncOp, sizes: Mapping[str, int]):
        self._analysis = _Analysis(function, sizes)

    def of_poly(self, op: Operation, poly: Polynomial) -> Interval | None:
        """The values of `poly` at `op` (None: unbounded, or it may wrap)."""
        return _poly_interval(poly, self._analysis.evaluator_at(op))

    def never_runs(self, op: Operation) -> bool:
        return self._analysis.never_runs(op)


def touched_extents(function: func.FuncOp, sizes: Mapping[str, int]) -> dict[str, int | None]:
    """For each array parameter (by `agpu.name`): how many elements it needs, 1 + the largest
    index any load or store on it may use with these scalar `sizes`; None when unbounded."""
    return {
        name: None if r is None else r.extent
        for name, r in touched_ranges(function, sizes).items()
    }


def find_function(module: Operation, name: str) -> func.FuncOp | None:
    """The `func.func` called `name` in `module`."""
    for op in module.walk():
        if isinstance(op, func.FuncOp) and op.sym_name.data == name:
            return op
    return None


__all__ = [
    "IndexRange",
    "Interval",
    "ValueIntervals",
    "find_function",
    "parameter_names",
    "touched_extents",
    "touched_ranges",
]
