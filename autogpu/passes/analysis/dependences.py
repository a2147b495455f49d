"""May two iterations of a parallel loop touch the same array element? The legality check of
`#pragma omp parallel for`.

The pragma asserts that the iterations of the loop are independent, and the GPU lowering runs
them concurrently, in any order; a loop-carried dependence (`a[i] = a[i - 1] + 1`, `out[0] +=
x[i]` without a reduction clause, an in-place transpose) would silently give a wrong kernel. So
for every `agpu.parallel_for` (`collapse(n)` nests one per level), and every pair of accesses to
one array inside it, at least one a store, the check asks whether two *different* iterations
can touch the same element. The answer is

- no, proven: nothing to report (the accesses of any correct kernel: `A[i + j*m]`, `y[i]`,
  `a[2*i]` against `a[2*i + 1]`, `a[i]` against `a[i + n]` in a loop of n iterations);
- yes, proven: an error (`Finding.proven`) naming both accesses and two iterations that
  conflict whenever the sizes are large enough;
- unknown: a warning saying what the pragma asserts (an index read from memory, `a[idx[i]]`;
  non-affine indices; arrays that may overlap; a conflict that depends on the sizes, `a[i]`
  against `a[i + k]`).

**Independence.** An index is `sum(c_v * v) + r`: `v` the induction variables of the loops from
the parallel loop down to the access, `c_v` and `r` polynomials (`polynomial.py`) in values that
are the same in every iteration (sizes, outer loops' variables); anything else is unknown. The
difference of two indices groups into levels of equal stride `g`, `sum(g * E_g)` with each `E_g`
an integer combination of variables plus a constant (`A[i + j*m]` against itself: `m*(j - j')
+ 1*(i - i')`). Top down, if what the lower levels add up to lies strictly between `-g` and `g`
(`|i - i'| <= m - 1`, from the loop bounds, bounded symbolically by `loops.bound_over_loops`),
an equal element needs `E_g = 0`; a level whose equation is impossible (`-1 = 0` for `a[i]`
against `a[i + n]`; `2*i - 2*i' - 1 = 0`, the GCD test) or forces the same iteration (`j = j'`)
proves independence. Comparisons of polynomials rely on lower bounds of the sizes that the loops
around the accesses imply (`for (i = 0; i < m; i++)` runs, so `m >= 1`).

**Conflicts.** Values of both accesses' variables are searched among simple candidates (a
loop's first values and last values, in terms of the sizes) for which the two indices are the
same polynomial, the iterations of the parallel loop differ, and every value lies in its loop's
range for all large enough sizes: a conflict whatever the sizes, once large enough (`a[i]`
written by iteration `i = 1` is read as `a[i - 1]` by iteration `i = 2`). Accesses under `if`
(or in `while` loops) have no witness: they may not run.

Atomic updates (`memref.atomic_rmw`, `agpu.atomic_update`: `#pragma omp atomic`) count as
writes; two of them never conflict, nor do two accesses inside critical sections of one name
(`agpu.critical`): they are the user's way to combine iterations. An atomic against a plain
access, or an access in a critical section against one outside, is checked as usual.

Not checked: accesses by one iteration (never a conflict), reads of arrays the loop does not
write, scalars (races on them are `convert_agpu_to_gpu/function_plan.py`'s), reduction variables and
arrays allocated inside the loop. Distinct arrays may overlap only as `aliasing.may_alias` says,
by default with its `assume_no_alias` (the paper's assumption; autogpu's executors refuse
overlapping arrays). Signed index arithmetic is assumed not to wrap (its overflow is undefined
in C); unsigned subscripts wrap modulo 2^32 as C defines, so one is read as its zero-extended
value only where that value provably stays in one window of 2^32 (`wrapping.py`), and otherwise
proves conflicts but never independence (`a[2u * i]`: iterations `i` and `i + 2^31` collide).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from math import comb, gcd

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.utils.hints import isa

from autogpu.diagnostics import CompileError
from autogpu.dialects.agpu import ParallelForOp
from autogpu.dialects.agpu_sync import AtomicUpdateOp, critical_around, is_atomic
from autogpu.passes.analysis.aliasing import c_name, may_alias
from autogpu.passes.analysis.integers import constant_int, is_unsigned, to_signed
from autogpu.passes.analysis.loops import bound_over_loops, enclosing_loops, is_invariant
from autogpu.passes.analysis.polynomial import (
    Polynomial,
    PolynomialAnalysis,
    PolynomialKey,
    through_sign_extensions,
)
from autogpu.passes.analysis.wrapping import exact_unsigned, residues_decide
from autogpu.passes.utils.c_text import c_expression
from autogpu.passes.utils.errors import error_at, location_of

Loop = scf.ForOp | ParallelForOp
Access = memref.LoadOp | memref.StoreOp | memref.AtomicRMWOp | AtomicUpdateOp

MAX_CANDIDATES = 2000
"""Candidate values of the variables of one access that the conflict search tries at most."""


@dataclass(frozen=True)
class Finding:
    """Two accesses that different iterations of `loop` may (`proven`: do) make to one
    element, `write` being a store or an atomic write."""

    proven: bool
    loop: ParallelForOp
    write: Access
    other: Access
    message: str

    def diagnostic(self) -> CompileError:
        """An error (a `PassError`) or a warning, located at the store."""
        if self.proven:
            return error_at(self.write, self.message)
        return CompileError(self.message, location_of(self.write), severity="warning")


def check_parallel_loops(
    root: Operation,
    warn: Callable[[CompileError], None] | None = None,
    assume_no_alias: bool = True,
) -> None:
    """Raises the first proven conflict in the parallel loops under `root`; gives the
    unprovable ones, as warnings, to `warn` (None: drops them)."""
    findings = parallel_loop_findings(root, assume_no_alias)
    for finding in findings:
        if finding.proven:
            raise finding.diagnostic()
    if warn is not None:
        for finding in findings:
            warn(finding.diagnostic())


def parallel_loop_findings(root: Operation, assume_no_alias: bool = True) -> list[Finding]:
    """The conflicts and the unprovable pairs of accesses of every parallel loop under `root`
    (outer loops first), at most one per store, a proven one if there is one."""
    by_write: dict[Access, Finding] = {}
    polys = through_sign_extensions()
    for loop in root.walk():
        if not isinstance(loop, ParallelForOp):
            continue
        for finding in _loop_findings(loop, polys, assume_no_alias):
            known = by_write.get(finding.write)
            if known is None or (finding.proven and not known.proven):
                by_write[finding.write] = finding
    return list(by_write.values())


def same_result_under_openmp(root: Operation) -> bool:
    """Whether an OpenMP compiler running the parallel loops under `root` concurrently computes
    what the serial loops do: no finding at all, and no scalar assigned in a parallel loop that
    OpenMP would share (autogpu makes a scalar written before it is read private to each
    iteration; OpenMP needs `private` for that, and reduction variables are reduced)."""
    if parallel_loop_findings(root):
        return False
    for loop in root.walk():
        if not isinstance(loop, ParallelForOp):
            continue
        for op in loop.body.walk():
            if (isinstance(op, memref.StoreOp) and not op.indices
                    and op.memref not in _reduced(op) and critical_around(op) is None
                    and not _allocated_inside(op.memref, loop)):
                return False
    return True


def _loop_findings(
    loop: ParallelForOp, polys: PolynomialAnalysis, assume_no_alias: bool
) -> Iterator[Finding]:
    accesses = _checked_accesses(loop)
    forms: dict[Access, _Form | str] = {}
    for position, write in enumerate(accesses):
        if not _writes(write):
            continue
        for other_position, other in enumerate(accesses):
            if _writes(other) and other_position < position:
                continue  # two stores make one pair
            if _synchronized_pair(write, other):
                continue
            if not may_alias(write.memref, other.memref, assume_no_alias):
                continue
            for access in (write, other):
                if access not in forms:
                    forms[access] = _form(access, loop, polys)
            finding = _pair_finding(loop, write, other, forms[write], forms[other], polys)
            if finding is not None:
                yield finding


def _checked_accesses(loop: ParallelForOp) -> list[Access]:
    """Loads and stores of one-dimensional arrays shared by the iterations of `loop`: not the
    reduction variables of the parallel loops around them, not allocated inside the loop."""
    accesses: list[Access] = []
    for op in loop.body.walk():
        if not isinstance(op, Access) or len(op.indices) != 1:
            continue
        if op.memref in _reduced(op) or _allocated_inside(op.memref, loop):
            continue
        accesses.append(op)
    return accesses


def _writes(access: Access) -> bool:
    """A store, or an atomic other than a read (`#pragma omp atomic read`)."""
    if isinstance(access, AtomicUpdateOp):
        return not access.is_read
    return isinstance(access, memref.StoreOp) or is_atomic(access)


def _synchronized_pair(x: Access, y: Access) -> bool:
    """Two atomics, or two accesses in critical sections of one name: never a race."""
    if is_atomic(x) and is_atomic(y):
        return True
    x_critical, y_critical = critical_around(x), critical_around(y)
    return (x_critical is not None and y_critical is not None
            and x_critical.lock == y_critical.lock)  # fmt: skip


def _reduced(access: Access) -> set[SSAValue]:
    """The reduction variables of the parallel loops around `access`."""
    return {
        var
        for around in enclosing_loops(access, None)
        if isinstance(around, ParallelForOp)
        for _, var in around.reduction_list
    }


def _allocated_inside(array: SSAValue, loop: Operation) -> bool:
    owner = array.owner
    return isinstance(owner, Operation) and loop.is_ancestor(owner)


# --- index forms -------------------------------------------------------------------------------
@dataclass
class _Form:
    """An index as `sum(coefficients[l] * variable of l) + rest`, for an access inside a
    parallel loop: the variables are those of `loops` (from the access out to the parallel
    loop), the coefficients and `rest` are the same in every iteration of the parallel loop."""

    access: Access
    poly: Polynomial
    loops: list[Loop]
    coefficients: dict[Loop, Polynomial]
    rest: Polynomial
    wraps: bool = False
    """An unsigned subscript that may wrap around 2^32: `poly` is then one representative of
    its residue, good for proving a conflict, not independence (`wrapping.py`)."""


def _form(access: Access, loop: ParallelForOp, polys: PolynomialAnalysis) -> _Form | str:
    """The form of `access`'s index, or why there is none."""
    poly, wraps = _index_poly(access, polys)
    loops = enclosing_loops(access, loop)
    variables = {polys.atom_id(_variable(inner)): inner for inner in loops}
    for atom, value in poly.atoms.items():
        if atom not in variables and not is_invariant(value, loop):
            return _why_varying(value)
    coefficients: dict[Loop, Polynomial] = {}
    rest = poly
    for atom, inner in variables.items():
        split = rest.split(atom)
        if split is None or split[0].atom_ids() & variables.keys():
            return f"'{c_expression(access.indices[0])}' is not affine in the loop variables"
        coefficient, rest = split
        if coefficient.terms:
            coefficients[inner] = coefficient
    return _Form(access, poly, loops, coefficients, rest, wraps)


def _index_poly(access: Access, polys: PolynomialAnalysis) -> tuple[Polynomial, bool]:
    """The polynomial of `access`'s index, in `index`, and whether it is only known modulo
    2^32 (an unsigned subscript that may wrap). A signed subscript is sign-extended (its
    overflow is undefined); an unsigned one is its zero-extended value where that is exact."""
    index = access.indices[0]
    poly = polys.index_poly(index)
    if is_unsigned(poly.type):
        exact = exact_unsigned(poly, index.type)
        if exact is None:
            return poly.widened(index.type), True
        return exact, False
    return poly.widened(index.type), False


def _residues_decide(x: _Form, y: _Form) -> bool:
    """Whether the two (wrapping) subscripts differ by less than 2^32 in any two iterations, so
    that their representatives collide exactly when the subscripts do (`wrapping.py`)."""
    terms = [[(c, _variable(loop)) for loop, c in form.coefficients.items()] for form in (x, y)]
    return residues_decide(terms[0], terms[1], x.rest.minus(y.rest))


def _why_varying(value: SSAValue) -> str:
    owner = value.owner
    if isinstance(owner, memref.LoadOp):
        if not owner.indices:
            return f"'{c_expression(value)}' is assigned in the loop"
        return f"'{c_expression(value)}' is read from memory"
    return f"'{c_expression(value)}' is not affine in the loop variables"


def _variable(loop: Loop) -> BlockArgument:
    return loop.body.block.args[0]


# --- one pair ----------------------------------------------------------------------------------
def _pair_finding(
    loop: ParallelForOp,
    write: Access,
    other: Access,
    x: _Form | str,
    y: _Form | str,
    polys: PolynomialAnalysis,
) -> Finding | None:
    if other.memref is not write.memref:
        why = (
            f"'{c_name(write.memref)}' and '{c_name(other.memref)}' are pointers that may "
            "overlap (neither is restrict)"
        )
        return _unproven(loop, write, other, why)
    if isinstance(x, str) or isinstance(y, str):
        return _unproven(loop, write, other, x if isinstance(x, str) else str(y))
    facts = _Facts.around(x, y, loop, polys)
    levels = _levels(x, y)
    if _independent(levels, x, y, loop, facts, polys):
        wrapping = next((f for f in (x, y) if f.wraps), None)
        if wrapping is None or _residues_decide(x, y):
            return None
        why = (f"the unsigned index '{c_expression(wrapping.access.indices[0])}' may wrap "
               "around 2^32")
        return _unproven(loop, write, other, why)
    witness = _witness(x, y, loop, levels, polys)
    if witness is not None:
        return Finding(True, loop, write, other, _conflict_message(loop, x, y, *witness))
    return _unproven(loop, write, other, None)


def _unproven(
    loop: ParallelForOp, write: Access, other: Access, why: str | None
) -> Finding:
    first = _access_text(write)
    if other is write:
        pair = f"{first} written here may be written by another iteration too"
    else:
        verb = "written" if _writes(other) else "read"
        pair = (
            f"{first} written here and {_access_text(other)} {verb}"
            f"{_where(other)} may be the same element in two iterations"
        )
    reason = f" ({why})" if why else ""
    return Finding(
        False,
        loop,
        write,
        other,
        f"cannot prove that the iterations of the parallel loop over {_loop_name(loop)} "
        f"access different elements: {pair}{reason}; '#pragma omp parallel for' asserts that "
        "no two iterations access the same element when one of them writes it",
    )


# --- levels ------------------------------------------------------------------------------------
@dataclass
class _Level:
    """The terms of an index difference whose coefficient is an integer multiple of `stride`:
    `stride * (sum(first[l] * l) - sum(second[l] * l') + constant)`, where `l` is a variable
    of the first access and `l'` of the second."""

    stride: Polynomial
    first: dict[Loop, int] = field(default_factory=dict[Loop, int])
    second: dict[Loop, int] = field(default_factory=dict[Loop, int])
    constant: int = 0


def _levels(x: _Form, y: _Form) -> list[_Level]:
    """The difference of two indices by levels, largest stride first: a level per coefficient,
    except that a coefficient made of smaller ones (`n + 1` next to `n` and `1`, as in
    `A[i*n + i]` against `A[i*n + j]`) goes into those; the constant difference is split over
    the levels as a mixed radix (`1025` is `1 * 1024 + 1`), what remains makes levels of its
    own."""
    levels: dict[PolynomialKey, _Level] = {}
    for side, form in (("first", x), ("second", y)):
        for inner, coefficient in form.coefficients.items():
            stride, sign = _stride(coefficient)
            level = levels.setdefault(stride.key, _Level(stride))
            getattr(level, side)[inner] = sign
    ordered = sorted(levels.values(), key=_magnitude, reverse=True)
    for position, level in enumerate(ordered):
        smaller = [lower for lower in ordered[position + 1 :] if lower.stride.key in levels]
        multiples, rest = _divided(level.stride, smaller)
        if rest.terms or len(multiples) < 2:
            continue
        del levels[level.stride.key]
        for lower in smaller:
            _merge(lower, level, multiples.get(lower.stride.key, 0))
    ordered = sorted(levels.values(), key=_magnitude, reverse=True)
    multiples, rest = _divided(x.rest.minus(y.rest), ordered)
    for level in ordered:
        level.constant = multiples.get(level.stride.key, 0)
    for monomial in rest.terms:
        stride = Polynomial.make(rest.type, {monomial: 1}, rest.atoms)
        levels[stride.key] = _Level(stride, constant=rest.signed(monomial))
    return sorted(levels.values(), key=_magnitude, reverse=True)


def _divided(
    poly: Polynomial, levels: list[_Level]
) -> tuple[dict[PolynomialKey, int], Polynomial]:
    """`poly` as `sum(q * stride) + rest` over `levels` (largest first), greedily: each level
    takes the multiple of its stride that its leading term allows (constant strides rounding
    toward zero, others exactly)."""
    multiples: dict[PolynomialKey, int] = {}
    for level in levels:
        lead = _lead(level.stride)
        stride, value = level.stride.signed(lead), poly.signed(lead)
        quotient = abs(value) // abs(stride) * (1 if (value < 0) == (stride < 0) else -1)
        if not quotient or (lead and quotient * stride != value):
            continue
        multiples[level.stride.key] = quotient
        poly = poly.minus(level.stride.scaled(quotient))
    return multiples, poly


def _merge(into: _Level, level: _Level, multiple: int) -> None:
    """Adds `multiple` times the variables of `level` to `into`."""
    if not multiple:
        return
    for side in ("first", "second"):
        terms = getattr(into, side)
        for inner, k in getattr(level, side).items():
            terms[inner] = terms.get(inner, 0) + k * multiple
            if not terms[inner]:
                del terms[inner]


def _stride(poly: Polynomial) -> tuple[Polynomial, int]:
    """(g, k) with poly = k * g, k = 1 or -1 and the leading coefficient of g positive: the
    level of a coefficient (`A[1024*j + i]` has levels 1024 and 1, `A[i*m + j]` m and 1)."""
    sign = 1 if poly.signed(_lead(poly)) > 0 else -1
    return poly.scaled(sign), sign


def _lead(poly: Polynomial) -> tuple[int, ...]:
    return max(poly.terms, key=lambda m: (len(m), m))


def _magnitude(level: _Level) -> tuple[int, int]:
    """Orders strides: by degree, then by their value for large sizes (only the order in which
    `_independent` tries them; it proves what it uses)."""
    stride = level.stride
    large = sum(stride.signed(m) * (1 << (16 * len(m))) for m in stride.terms)
    return max(len(m) for m in stride.terms), large


# --- independence ------------------------------------------------------------------------------
def _independent(
    levels: list[_Level],
    x: _Form,
    y: _Form,
    loop: ParallelForOp,
    facts: _Facts,
    polys: PolynomialAnalysis,
) -> bool:
    """Whether equal indices need the same iteration of `loop` (module docstring)."""
    if _disjoint(x, y, facts, polys) or _gcd_test(levels):
        return True
    for position, level in enumerate(levels):
        if not _dominates(level, levels[position + 1 :], x, y, facts, polys):
            return False
        if _impossible(level, loop, facts, polys):
            return True
    return False


def _gcd_test(levels: list[_Level]) -> bool:
    """With constant strides only, whether the difference is never 0 because the gcd of the
    variables' coefficients does not divide the constant (`a[4*i]` against `a[6*i + 1]`); a
    variable of a loop with a constant start `a` and step `s` counts as `a + s*t` (`a[3*i]`
    against `a[2*i + 1]` for even `i`)."""
    if not all(level.stride.is_constant for level in levels):
        return False
    coefficients: list[int] = []
    constant = 0
    for level in levels:
        constant += level.stride.constant * level.constant
        for sign, terms in ((1, level.first), (-1, level.second)):
            for inner, k in terms.items():
                coefficient = sign * level.stride.constant * k
                start, step = constant_int(inner.lb), constant_int(inner.step)
                if start is not None and step is not None:
                    constant += coefficient * start
                    coefficient *= step
                coefficients.append(coefficient)
    return constant % gcd(*coefficients) != 0 if coefficients else constant != 0


def _disjoint(x: _Form, y: _Form, facts: _Facts, polys: PolynomialAnalysis) -> bool:
    """Whether all the first access's elements lie below all the second's, or above: `a[t +
    i]` against `a[k]` with `k < t`."""
    bounds = _difference_bounds(x.poly, y.poly, x, y, facts, polys)
    if bounds is None:
        return False
    largest, smallest = bounds
    one = _one(largest)
    return facts.nonnegative(largest.scaled(-1).minus(one)) or facts.nonnegative(
        smallest.minus(one)
    )


def _dominates(
    level: _Level,
    below: list[_Level],
    x: _Form,
    y: _Form,
    facts: _Facts,
    polys: PolynomialAnalysis,
) -> bool:
    """Whether the levels `below` add up to strictly less than the stride of `level` in
    absolute value (then equal indices need `level`'s equation to hold)."""
    first = _lower_part(x, below, "first", polys)
    second = _lower_part(y, below, "second", polys)
    bounds = _difference_bounds(first, second, x, y, facts, polys)
    if bounds is None:
        return False
    constant = Polynomial.constant_of(level.stride.type, 0)
    for lower in below:
        constant = constant.plus(lower.stride.scaled(lower.constant))
    largest, smallest = (bound.plus(constant) for bound in bounds)
    limit = level.stride.minus(_one(level.stride))
    return facts.nonnegative(limit.minus(largest)) and facts.nonnegative(limit.plus(smallest))


def _difference_bounds(
    first: Polynomial,
    second: Polynomial,
    x: _Form,
    y: _Form,
    facts: _Facts,
    polys: PolynomialAnalysis,
) -> tuple[Polynomial, Polynomial] | None:
    """The largest and the smallest value of `first - second`, `first` in the variables of the
    first access and `second` in those of the second, each over the loops around its access
    (`loops.bound_over_loops`); None if a bound is unknown."""
    bounds = [
        bound_over_loops(part, form.loops, polys, facts.sign, upper)
        for part, form in ((first, x), (second, y))
        for upper in (True, False)
    ]
    first_max, first_min, second_max, second_min = bounds
    if first_max is None or first_min is None or second_max is None or second_min is None:
        return None
    return first_max.minus(second_min), first_min.minus(second_max)


def _lower_part(
    form: _Form, below: list[_Level], side: str, polys: PolynomialAnalysis
) -> Polynomial:
    """The terms of `form` (the `side` of the levels) in the levels `below`."""
    part = Polynomial.constant_of(form.poly.type, 0)
    for level in below:
        for inner, k in getattr(level, side).items():
            variable = polys.atom(_variable(inner)).widened(part.type)
            part = part.plus(level.stride.scaled(k).times(variable))
    return part


def _impossible(
    level: _Level, loop: ParallelForOp, facts: _Facts, polys: PolynomialAnalysis
) -> bool:
    """Whether `level`'s equation has no solution in two different iterations of `loop`."""
    terms = [k for k in level.first.values() if k] + [k for k in level.second.values() if k]
    if not terms:
        return level.constant != 0
    if level.constant % gcd(*terms):
        return True  # the GCD test
    if set(level.first) != {loop} or set(level.second) != {loop}:
        return False
    if level.first[loop] != level.second[loop]:
        return False
    # k * (i - i') + c = 0: the iterations are `-c / k` apart.
    distance = -level.constant // level.first[loop]
    step = constant_int(loop.step)
    if distance == 0 or (step is not None and distance % step):
        return True
    span = polys.poly(loop.ub).minus(polys.poly(loop.lb))  # more than any distance in range
    return facts.nonnegative(span.scaled(-1).plus(Polynomial.constant_of(span.type, abs(distance))))


@dataclass
class _Facts:
    """Lower bounds of the values in index polynomials that hold wherever both accesses run:
    every loop around them runs, so `for (i = a; i < n; ...)` with a constant `a` means
    `n >= a + 1` and (for loops outside the parallel one, whose variables are values here)
    `i >= a`."""

    lower: dict[int, int]

    @staticmethod
    def around(x: _Form, y: _Form, loop: ParallelForOp, polys: PolynomialAnalysis) -> _Facts:
        lower: dict[int, int] = {}

        def at_least(atom: int, bound: int) -> None:
            lower[atom] = max(bound, lower.get(atom, bound))

        for around in {*enclosing_loops(x.access, None), *enclosing_loops(y.access, None)}:
            first = constant_int(around.lb)
            if first is None:
                continue
            at_least(polys.atom_id(_variable(around)), first)
            ub = polys.poly(around.ub)
            monomials = [m for m in ub.terms if m]
            if len(monomials) == 1 and len(monomials[0]) == 1 and ub.signed(monomials[0]) > 0:
                (atom,) = monomials[0]
                if not is_invariant(ub.atoms[atom], loop):
                    continue  # a variable of one of the two accesses only
                # a * n + b >= first + 1
                at_least(atom, -((ub.constant - first - 1) // ub.signed(monomials[0])))
        return _Facts(lower)

    def nonnegative(self, poly: Polynomial) -> bool:
        """Whether `poly >= 0` follows from the lower bounds: with each value written as its
        lower bound plus a non-negative part, every coefficient is non-negative."""
        for atom in poly.atom_ids():
            if atom not in self.lower:
                return False
            poly = _shifted(poly, atom, self.lower[atom])
        return all(poly.signed(m) >= 0 for m in poly.terms)

    def sign(self, poly: Polynomial) -> int | None:
        if self.nonnegative(poly):
            return 1
        if self.nonnegative(poly.scaled(-1)):
            return -1
        return None


def _shifted(poly: Polynomial, atom: int, offset: int) -> Polynomial:
    """`poly` with `atom` replaced by `atom + offset`."""
    terms: dict[tuple[int, ...], int] = {}
    for monomial, _ in poly.terms.items():
        power = monomial.count(atom)
        others = tuple(a for a in monomial if a != atom)
        for kept in range(power + 1):
            term = tuple(sorted(others + (atom,) * kept))
            value = poly.signed(monomial) * comb(power, kept) * offset ** (power - kept)
            terms[term] = terms.get(term, 0) + value
    return Polynomial.make(poly.type, terms, poly.atoms)


# --- conflicts ---------------------------------------------------------------------------------
Values = dict[Loop, Polynomial]


def _witness(
    x: _Form, y: _Form, loop: ParallelForOp, levels: list[_Level], polys: PolynomialAnalysis
) -> tuple[Values, Values] | None:
    """Values of the variables of both accesses (module docstring: conflicts), or None."""
    if not (_always_runs(x.access) and _always_runs(y.access)):
        return None
    sizes = _size_atoms(loop, polys)
    if sizes is None or not _outer_loops_run(loop, sizes, polys):
        return None
    offsets = sorted(
        {0, 1, 2}
        | {abs(level.constant) for level in levels if abs(level.constant) < 64}
        | {
            abs(level.constant // k)
            for level in levels
            for k in (*level.first.values(), *level.second.values())
            if k and level.constant % k == 0 and abs(level.constant // k) < 64
        }
    )
    numbers = _Numbers(polys)
    firsts = _valid_assignments(x, loop, offsets, numbers, sizes, polys)
    seconds: dict[int, list[tuple[_Assignment, Values]]] = {}
    for second in _valid_assignments(y, loop, offsets, numbers, sizes, polys):
        seconds.setdefault(second[0].index, []).append(second)
    for first, first_values in firsts:
        for second, second_values in seconds.get(first.index, []):
            if first.numbers[loop] == second.numbers[loop]:
                continue
            same = _substituted(x.poly, first_values, polys).minus(
                _substituted(y.poly, second_values, polys)
            )
            apart = first_values[loop].minus(second_values[loop])
            if not same.terms and (
                _eventually_nonnegative(apart.minus(_one(apart)), sizes)
                or _eventually_nonnegative(apart.scaled(-1).minus(_one(apart)), sizes)
            ):
                return first_values, second_values
    return None


def _valid_assignments(
    form: _Form,
    loop: ParallelForOp,
    offsets: list[int],
    numbers: _Numbers,
    sizes: set[int],
    polys: PolynomialAnalysis,
) -> list[tuple[_Assignment, Values]]:
    """The candidate assignments of `form`'s variables that are in range for all large sizes
    (among the first `MAX_CANDIDATES`), with their symbolic values; `index` set to the index's
    value for the numbers."""
    valid: list[tuple[_Assignment, Values]] = []
    candidates = _assignments(form, loop, offsets, numbers, polys)
    for assignment in itertools.islice(candidates, MAX_CANDIDATES):
        values = _symbolic(form, assignment, sizes, polys)
        if values is not None:
            assignment.index = numbers.value(form.poly, assignment.numbers)
            valid.append((assignment, values))
    return valid


def _always_runs(access: Access) -> bool:
    """No `if` or `while` between the function and `access`: it runs in every iteration of
    the loops around it."""
    parent = access.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        if not isinstance(parent, (scf.ForOp, ParallelForOp)):
            return False
        parent = parent.parent_op()
    return True


def _size_atoms(loop: ParallelForOp, polys: PolynomialAnalysis) -> set[int] | None:
    """The atoms of the function's integer parameters: the sizes that may grow."""
    function = loop.parent_op()
    while function is not None and not isinstance(function, func.FuncOp):
        function = function.parent_op()
    if function is None:
        return None
    sizes: set[int] = set()
    for arg in function.body.blocks[0].args:
        if isa(arg.type, IntegerType) and arg.type.width.data > 1:
            sizes.add(polys.atom_id(arg))
            for use in arg.uses:  # `(unsigned long)n`: the same size, wider
                if isinstance(use.operation, (arith.ExtUIOp, arith.ExtSIOp)):
                    sizes.add(polys.atom_id(use.operation.results[0]))
    return sizes


def _outer_loops_run(loop: ParallelForOp, sizes: set[int], polys: PolynomialAnalysis) -> bool:
    """The loops around `loop` run for all large sizes."""
    for outer in enclosing_loops(loop, None):
        span = polys.poly(outer.ub).minus(polys.poly(outer.lb))
        if not _eventually_nonnegative(span.minus(_one(span)), sizes):
            return False
    return True


class _Numbers:
    """Large distinct numbers for the values the loops do not change: the search compares
    indices there first (a fast filter; a witness is then checked symbolically)."""

    def __init__(self, polys: PolynomialAnalysis):
        self.polys = polys
        self.numbers: dict[int, int] = {}

    def value(self, poly: Polynomial, variables: Mapping[Loop, int]) -> int:
        known = {self.polys.atom_id(_variable(inner)): v for inner, v in variables.items()}
        total = 0
        for monomial in poly.terms:
            term = poly.signed(monomial)
            for atom in monomial:
                if atom not in known:
                    known[atom] = self.numbers.setdefault(atom, 1000 + 97 * len(self.numbers))
                term *= known[atom]
            total += term
        return to_signed(total, poly.width)


@dataclass
class _Assignment:
    """Values of the variables of one access: numbers, how each was chosen (an offset from
    its loop's first or last value), and the index they give."""

    numbers: dict[Loop, int]
    choices: dict[Loop, tuple[int, bool]]
    index: int = 0


def _assignments(
    form: _Form,
    loop: ParallelForOp,
    offsets: list[int],
    numbers: _Numbers,
    polys: PolynomialAnalysis,
) -> Iterator[_Assignment]:
    """Candidate values of `form`'s variables, outermost first, each in its loop's range for
    the numbers of `numbers`; variables the index does not use take their first value."""
    loops = list(reversed(form.loops))

    def extend(position: int, current: _Assignment) -> Iterator[_Assignment]:
        if position == len(loops):
            yield current
            return
        inner = loops[position]
        first = numbers.value(polys.poly(inner.lb), current.numbers)
        last = numbers.value(polys.poly(inner.ub), current.numbers) - 1
        step = constant_int(inner.step)
        used = inner is loop or inner in form.coefficients
        choices = [(0, False)]
        if used:
            choices = [(o, False) for o in offsets if step is not None or o == 0]
            choices += [(o, True) for o in offsets if step == 1]
        for offset, from_end in choices:
            value = last - offset if from_end else first + offset * (step or 1)
            if first <= value <= last:
                yield from extend(
                    position + 1,
                    _Assignment(
                        {**current.numbers, inner: value},
                        {**current.choices, inner: (offset, from_end)},
                    ),
                )

    return extend(0, _Assignment({}, {}))


def _symbolic(
    form: _Form, assignment: _Assignment, sizes: set[int], polys: PolynomialAnalysis
) -> Values | None:
    """The assignment's values in terms of the sizes, if each lies in its loop's range for all
    large enough sizes."""
    values: Values = {}
    for inner in reversed(form.loops):
        first = _substituted(polys.poly(inner.lb), values, polys)
        last = _substituted(polys.poly(inner.ub), values, polys)
        last = last.minus(_one(last))
        offset, from_end = assignment.choices[inner]
        step = constant_int(inner.step) or 1
        if from_end:
            value = last.minus(Polynomial.constant_of(last.type, offset))
        else:
            value = first.plus(Polynomial.constant_of(first.type, offset * step))
        if not (
            _eventually_nonnegative(value.minus(first), sizes)
            and _eventually_nonnegative(last.minus(value), sizes)
        ):
            return None
        values[inner] = value
    return values


def _substituted(poly: Polynomial, values: Values, polys: PolynomialAnalysis) -> Polynomial:
    """`poly` with the variables of the loops of `values` replaced by their values (in `poly`'s
    type: sign-extended, or truncated as `arith.trunci` does)."""
    def converted(value: Polynomial) -> Polynomial:
        if value.width <= poly.width:
            return value.widened(poly.type)
        return value.truncated(poly.type)

    return poly.substituted(
        {polys.atom_id(_variable(inner)): converted(value) for inner, value in values.items()}
    )


def _eventually_nonnegative(poly: Polynomial, sizes: set[int]) -> bool:
    """`poly >= 0` for all large enough sizes: a polynomial in the sizes only, its constant
    non-negative or some other term positive, and no negative coefficient but the constant."""
    if not poly.atom_ids() <= sizes:
        return False
    growing = [poly.signed(m) for m in poly.terms if m]
    if any(c < 0 for c in growing):
        return False
    return bool(growing) or poly.constant >= 0


def _one(poly: Polynomial) -> Polynomial:
    return Polynomial.constant_of(poly.type, 1)


# --- messages ----------------------------------------------------------------------------------
def _conflict_message(
    loop: ParallelForOp, x: _Form, y: _Form, first: Values, second: Values
) -> str:
    written = _access_text(x.access)
    name = _loop_name(loop)
    reads = isinstance(y.access, memref.LoadOp)
    if not x.coefficients and not y.coefficients:
        message = (
            f"every iteration of the parallel loop over {name} "
            f"{'reads and writes' if reads else 'writes'} the same element {written}; the loop "
            "is not parallel"
        )
        if reads:
            message += (
                " (to combine values from all iterations, accumulate them in a local scalar "
                "listed in 'reduction(+: ...)' and store it after the loop)"
            )
        return message
    if y.access is x.access:
        other = "written again"
    else:
        verb = "read" if reads else "also written"
        other = f"{verb} as {_access_text(y.access)}{_where(y.access)}"
    return (
        f"iterations of the parallel loop over {name} conflict: {written} written here by "
        f"the iteration with {_values_text(x, first, loop)} is {other} by the iteration with "
        f"{_values_text(y, second, loop)}; the loop is not parallel"
    )


def _values_text(form: _Form, values: Values, loop: ParallelForOp) -> str:
    """`i = 1, j = 0`: the C variables of the parallel loop and of the loops the index uses."""
    polys = through_sign_extensions()
    shown = [inner for inner in reversed(form.loops) if inner is loop or inner in form.coefficients]
    texts: list[str] = []
    for inner in shown:
        variable = _c_variable(inner)
        value = _substituted(polys.poly(variable), {inner: values[inner]}, polys)
        texts.append(f"{variable.name_hint or '?'} = {_c_text(value)}")
    return ", ".join(texts)


def _c_variable(loop: Loop) -> SSAValue:
    """The value of the C loop variable: the induction variable, or, for a loop the frontend
    normalised (`i_k` counting up for a decreasing `i`, `i_wide` for an unsigned one), the
    value it computes from it under the C name."""
    counter = _variable(loop)
    name = counter.name_hint or ""
    for suffix in ("_k", "_wide"):
        if name.endswith(suffix):
            for op in loop.body.block.ops:
                for result in op.results:
                    if result.name_hint == name[: -len(suffix)]:
                        return result
    return counter


def _loop_name(loop: ParallelForOp) -> str:
    return f"'{_c_variable(loop).name_hint or '?'}'"


def _where(op: Operation) -> str:
    location = location_of(op)
    return f" (line {location.line}:{location.column})" if location is not None else ""


def _access_text(access: Access) -> str:
    """The C text of an access, rebuilt from the IR: `'a[i - 1]'`."""
    return f"'{_array_text(access)}'"


def _array_text(access: Access) -> str:
    return f"{c_name(access.memref) or '?'}[{c_expression(access.indices[0])}]"


def _c_text(poly: Polynomial) -> str:
    """A polynomial as C text over the names of its atoms: `n - 1`."""
    if not poly.terms:
        return "0"
    ordered = sorted(poly.terms, key=lambda m: (not m, -len(m), [_atom_name(poly, a) for a in m]))
    positive = [m for m in ordered if poly.signed(m) > 0]
    if positive and poly.signed(ordered[0]) < 0:
        ordered.remove(positive[0])
        ordered.insert(0, positive[0])
    text = ""
    for monomial in ordered:
        coefficient = poly.signed(monomial)
        factors = [_atom_name(poly, a) for a in monomial]
        if abs(coefficient) != 1 or not factors:
            factors.insert(0, str(abs(coefficient)))
        term = "*".join(factors)
        if not text:
            text = f"-{term}" if coefficient < 0 else term
        else:
            text += f" - {term}" if coefficient < 0 else f" + {term}"
    return text


def _atom_name(poly: Polynomial, atom: int) -> str:
    return c_expression(poly.atoms[atom], 6)


__all__ = ["Finding", "check_parallel_loops", "parallel_loop_findings"]
