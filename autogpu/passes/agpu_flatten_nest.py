"""`agpu-flatten-nest`: a parallel nest of any depth becomes one parallel loop over a linear
index (the loop-nest remapping method; docs/flatten-nest.md).

    agpu-flatten-nest{min_depth=4 mode=all}

The lowering maps at most three parallel loops of a nest to the x, y and z dimensions; deeper
levels run serially in each thread, so a nest of sizes (1000, 1000, 1, 1, 1) launches one block.
This pass rewrites every nest whose flat chain (`analysis/flat_nests.py`: rectangular,
parallelogram and one triangular level) is at least `min_depth` deep into

    total = n_0 * n_1 * ... * n_{d-1}               // before the nest: the host's launch size
    agpu.parallel_for %L = 0 to total step 1 {       // i32 where total provably fits, else i64
      q = L; idx_{d-1} = q - (q / n_{d-1}) * n_{d-1}; q = q / n_{d-1}; ...; idx_0 = q
      i_k = lb_k + idx_k * step_k                   // innermost fastest: coalesced as before
      <the levels' bodies, with i_k for their variables>
    }

with unsigned `/` on loop-invariant trip counts (nvcc strength-reduces a constant divisor). A
triangular pair (outer `i`, inner `j` whose count is `i + c` or `c - i`) is one factor of the
product, its count `m * a + m (m - 1) / 2` (`m` non-empty rows of `a, a + 1, ...` iterations);
a flat index `p` in it is decomposed by the closed-form inverse: the row `s` is the largest with
`S(s) = s * a + s (s - 1) / 2 <= p`, estimated in double precision as
`4p / (sqrt(b^2 + 8p) + b)` with `b = 2a - 1` (no cancellation) and corrected by one integer
step each way, exact for every total below 2^63 (proof in docs/flatten-nest.md).

`mode=outer` merges only the levels above the innermost two, so that the nest keeps x and y for
them and the merged loop goes to z (a grid-stride loop): today's 2D mapping plus a flat outer
space. Nests whose chain is shallower than `min_depth` are left as they are; where a deeper nest
cannot be flattened (a `mapping` or `unroll` already set, reductions of one variable with two
operators), it is left alone too, and `remarks=true` says why, at the loop's source location.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, func, math, scf
from xdsl.dialects.builtin import ModuleOp, i32, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from autogpu.diagnostics import CompileError, location_of
from autogpu.dialects.agpu import ParallelForOp, ReductionKind, YieldOp
from autogpu.passes.analysis.flat_nests import Bound, Chain, FlatLevel, flat_chain
from autogpu.passes.analysis.integers import constant_int
from autogpu.passes.analysis.loops import inside_parallel_loop
from autogpu.passes.analysis.value_ranges import ValueRanges
from autogpu.passes.options import DeclaredOptionsPass, at_least, one_of, option
from autogpu.passes.utils.slices import is_inside
from autogpu.passes.utils.typed_arith import TypedArith, f64_const

MODES = ("all", "outer")
INT32_MAX = 2**31 - 1


@dataclass(frozen=True)
class _Rect:
    """A factor of the flat space: one level with an invariant trip count."""

    level: FlatLevel


@dataclass(frozen=True)
class _Triangle:
    """A factor of the flat space: a triangular level and the level around it."""

    outer: FlatLevel
    inner: FlatLevel


_Factor = _Rect | _Triangle


@dataclass
class _TriangleShape:
    """The non-empty rows of a triangle, before the nest (i64): `rows` rows of `first`,
    `first + 1`, ... iterations; row `s` is the outer loop's iteration `start + s` (growing
    rows) or `rows - 1 - s` (shrinking rows)."""

    rows: SSAValue
    first: SSAValue
    start: SSAValue | None  # None: shrinking rows


def _factors(levels: tuple[FlatLevel, ...]) -> list[_Factor]:
    factors: list[_Factor] = []
    for k, level in enumerate(levels):
        if k + 1 < len(levels) and levels[k + 1].triangular:
            continue
        factors.append(_Triangle(levels[k - 1], level) if level.triangular else _Rect(level))
    return factors


def _reductions(levels: tuple[FlatLevel, ...]) -> list[tuple[ReductionKind, SSAValue]] | str:
    """The reductions of the merged levels, each variable once; or why they cannot merge."""
    kinds: dict[SSAValue, ReductionKind] = {}
    for level in levels:
        for kind, var in level.loop.reduction_list:
            seen = kinds.setdefault(var, kind)
            alike = {seen, kind} <= {ReductionKind.ADD, ReductionKind.SUB}
            if seen != kind and not alike:
                return (f"'{var.name_hint or '?'}' is reduced with both '{seen.value}' and "
                        f"'{kind.value}'")
    return list((kind, var) for var, kind in kinds.items())


def _refusal(levels: tuple[FlatLevel, ...]) -> str | None:
    for level in levels:
        loop = level.loop
        name = loop.induction_var.name_hint or "?"
        if loop.mapping is not None:
            return f"the loop over '{name}' is mapped to {loop.mapping.data.value} explicitly"
        if loop.unroll.value.data != 1:
            return (f"the loop over '{name}' is unrolled already (run agpu-unroll-parallel "
                    "after agpu-flatten-nest)")
    reductions = _reductions(levels)
    return reductions if isinstance(reductions, str) else None


class _Flattener:
    """Rewrites one nest: trip counts before it, the flat loop in its place."""

    def __init__(self, nest: ParallelForOp, levels: tuple[FlatLevel, ...]):
        self.nest = nest
        self.levels = levels
        self.before = Builder(InsertPoint.before(nest))
        self.host = TypedArith(self.before, i64)
        self.outside: dict[SSAValue, SSAValue] = {}

    # -- before the nest (also what the host computes for the launch) -------------------------

    def _at_nest(self, value: SSAValue) -> SSAValue:
        """`value` (invariant in the nest) available before it: pure ops inside it cloned."""
        if not is_inside(value, self.nest):
            return value
        if value not in self.outside:
            owner = value.owner
            assert isinstance(owner, Operation)
            for operand in owner.operands:
                self._at_nest(operand)
            self.before.insert(owner.clone(value_mapper=self.outside))
        return self.outside[value]

    def _wide(self, value: SSAValue) -> SSAValue:
        if (known := constant_int(value)) is not None:
            return self.host.const(known)
        return self.host.convert(self._at_nest(value))

    def _offset(self, bound: Bound) -> SSAValue:
        """The invariant part of a bound, `sign * x`, in i64."""
        if bound.x is None:
            return self.host.const(0)
        x = self._wide(bound.x)
        return x if bound.sign > 0 else self.host.sub(self.host.const(0), x)

    def _count(self, level: FlatLevel) -> SSAValue:
        """`ceil(max(ub - lb, 0) / step)` of a level whose trip count is invariant (for a
        parallelogram, `ub - lb` is the difference of the offsets)."""
        h = self.host
        name = f"{level.loop.induction_var.name_hint or 'iv'}_count"
        lo, hi = self._offset(level.lower), self._offset(level.upper)
        span = h.maxsi(h.sub(hi, lo), h.const(0))
        return h.ceildivsi(span, self._wide(level.loop.step), name)

    def _triangle(self, factor: _Triangle) -> tuple[SSAValue, _TriangleShape]:
        """The triangle's count and rows (see `_TriangleShape`)."""
        h = self.host
        outer, inner = factor.outer, factor.inner
        lb = self._offset(outer.lower)
        rows_all = h.maxsi(h.sub(self._offset(outer.upper), lb), h.const(0))
        offsets = h.sub(self._offset(inner.upper), self._offset(inner.lower))
        one, zero = h.const(1), h.const(0)
        if inner.upper.a == 1:  # row r has lb + r + offsets iterations: growing
            alpha = h.add(lb, offsets)
            start = h.maxsi(h.sub(one, alpha), zero, "first_row")
            rows = h.maxsi(h.sub(rows_all, start), zero, "rows")
            first = h.add(alpha, start, "first_len")
            shape = _TriangleShape(rows, first, start)
        else:  # row r has offsets - lb - r iterations: shrinking
            alpha = h.sub(offsets, lb)
            rows = h.maxsi(h.minsi(rows_all, alpha), zero, "rows")
            first = h.add(h.sub(alpha, rows), one, "first_len")
            shape = _TriangleShape(rows, first, None)
        name = "_".join(f.loop.induction_var.name_hint or "iv" for f in (outer, inner))
        pairs = h.divsi(h.mul(rows, h.sub(rows, one)), h.const(2))
        return h.add(h.mul(rows, first), pairs, f"{name}_count"), shape

    # -- the flat loop ------------------------------------------------------------------------

    def rewrite(self, reductions: list[tuple[ReductionKind, SSAValue]]) -> ParallelForOp:
        factors = _factors(self.levels)
        counts: list[SSAValue] = []
        shapes: dict[int, _TriangleShape] = {}
        for k, factor in enumerate(factors):
            if isinstance(factor, _Rect):
                counts.append(self._count(factor.level))
            else:
                count, shapes[k] = self._triangle(factor)
                counts.append(count)
        total = counts[0]
        for count in counts[1:]:
            total = self.host.mul(total, count)
        if total.name_hint is None and constant_int(total) is None:
            total.name_hint = "flat_total"
        flat_type = i32 if ValueRanges().of(total).hi <= INT32_MAX else i64
        narrow = self.host if flat_type == i64 else TypedArith(self.before, flat_type)
        bound = narrow.convert(total)
        body = Block(arg_types=[flat_type])
        body.args[0].name_hint = "_".join(
            level.loop.induction_var.name_hint or "iv" for level in self.levels) + "_flat"
        factor_counts = [narrow.convert(c) for c in counts]
        narrow_shapes = {k: _TriangleShape(narrow.convert(s.rows), narrow.convert(s.first),
                                           None if s.start is None else narrow.convert(s.start))
                         for k, s in shapes.items()}
        flat = ParallelForOp(narrow.const(0), bound, narrow.const(1), body, reductions)
        flat.attributes.update(self.nest.attributes)
        flat.location = self.nest.location
        self.before.insert(flat)  # nothing is inserted before the nest after it
        inside = Builder(InsertPoint.at_end(body))
        w = TypedArith(inside, flat_type)
        if flat_type == i64 and not shapes and _needs_narrow_version(bound, factor_counts):
            indices = _decompose_versioned(inside, body.args[0], factor_counts, bound)
        else:
            indices = _decompose(w, body.args[0], factor_counts)
        mapping: dict[SSAValue, SSAValue] = {}
        for k, factor in enumerate(factors):
            if isinstance(factor, _Rect):
                self._enter(inside, factor.level, indices[k], mapping)
                continue
            shape = narrow_shapes[k]
            row, offset = _triangle_row(w, indices[k], shape.first)
            if shape.start is None:
                row = w.sub(w.sub(shape.rows, w.const(1)), row)
            else:
                row = w.add(shape.start, row)
            self._enter(inside, factor.outer, row, mapping)
            self._enter(inside, factor.inner, offset, mapping)
        inside.insert(YieldOp())
        return flat

    def _enter(self, inside: Builder, level: FlatLevel, index: SSAValue,
               mapping: dict[SSAValue, SSAValue]) -> None:
        """`iv = lb + index * step` for `level`, then its body's ops but the next level (all of
        them for the last level), cloned with the variables recovered so far."""
        loop = level.loop
        iv = loop.induction_var
        t = TypedArith(inside, iv.type)
        lb, step = (mapping.get(v, v) for v in (loop.lb, loop.step))
        known_lb = constant_int(lb)
        fits = known_lb is not None and known_lb >= 0  # lb + index * step < ub then fits
        value = t.add(lb, t.mul(t.convert(index, signed=False), step, nsw=fits), nsw=fits)
        owner = value.owner
        if isinstance(owner, Operation) and owner.parent_block() is inside.insertion_point.block:
            value.name_hint = iv.name_hint  # a value of its own, not a shared one
        mapping[iv] = value
        inner = next((lv.loop for lv in self.levels if lv.loop.parent_op() is loop), None)
        for op in loop.body.block.ops:
            if op is inner or isinstance(op, YieldOp):
                continue
            inside.insert(op.clone(value_mapper=mapping))


def _decompose(w: TypedArith, flat: SSAValue, counts: list[SSAValue]) -> list[SSAValue]:
    """The index of each factor from the flat index, innermost fastest: `idx = q - (q / n) * n`,
    `q = q / n` (unsigned; a count of 1 costs nothing; the outermost needs no division)."""
    indices: list[SSAValue] = []
    q = flat
    for count in reversed(counts[1:]):
        if constant_int(count) == 1:
            indices.append(w.const(0))
            continue
        quotient = w.divui(q, count)
        indices.append(w.sub(q, w.mul(quotient, count, nsw=True), nsw=True))
        q = quotient
    indices.append(q)
    return indices[::-1]


def _needs_narrow_version(total: SSAValue, counts: list[SSAValue]) -> bool:
    """A 64-bit flat index whose total is known only at run time, decomposed by at least one
    division: worth a 32-bit version (on the H100, ncu counts ~39 instructions per 64-bit
    division by a run-time value and ~33 per 32-bit one: 11 % off a 5-deep elementwise nest)."""
    divisions = [c for c in counts[1:] if constant_int(c) != 1]
    return constant_int(total) is None and bool(divisions)


def _decompose_versioned(inside: Builder, flat: SSAValue, counts: list[SSAValue],
                         total: SSAValue) -> list[SSAValue]:
    """The factors' indices (i64) from a 64-bit flat index, computed in 32-bit arithmetic when
    the total is at most 2^31 (every index and count then fits an `int`, and the unsigned 32-bit
    divisions are exact) and in 64-bit arithmetic otherwise: a branch uniform over the grid."""
    wide = TypedArith(inside, i64)
    fits = wide.cmpi(total, wide.const(INT32_MAX + 1), "sle", "fits_i32")
    narrow_block, wide_block = Block(), Block()
    narrow = TypedArith(Builder(InsertPoint.at_end(narrow_block)), i32)
    # the outermost count is no divisor (`_decompose` reads counts[1:]): left as it is
    narrow_counts = [counts[0], *(narrow.convert(c) for c in counts[1:])]
    narrow_indices = _decompose(narrow, narrow.convert(flat), narrow_counts)
    widened = [TypedArith(narrow.builder, i64).convert(v, signed=False) for v in narrow_indices]
    narrow_block.add_op(scf.YieldOp(*widened))
    wide_indices = _decompose(TypedArith(Builder(InsertPoint.at_end(wide_block)), i64), flat,
                              counts)
    wide_block.add_op(scf.YieldOp(*wide_indices))
    branch = scf.IfOp(fits, [i64] * len(counts), Region(narrow_block), Region(wide_block))
    inside.insert(branch)
    return list(branch.results)


def _triangle_row(w: TypedArith, p: SSAValue, first: SSAValue) -> tuple[SSAValue, SSAValue]:
    """Row `s` and offset `u` of flat index `p` in rows of `first`, `first + 1`, ... iterations:
    the largest `s` with `S(s) = s * first + s (s - 1) / 2 <= p`, and `p - S(s)`.

    The real root of `S(s) = p` is `r = 4p / (sqrt(b^2 + 8p) + b)`, `b = 2 first - 1 >= 1`; in
    double precision every operation has a relative error of at most 2^-53 and no difference
    cancels, so the computed `r` is within `r * 2^-50` of the exact one, less than 2^-17 since
    `r` is below the rows (< 2^33 for any total below 2^63). Its truncation is thus `s - 1`, `s`
    or `s + 1`, and one exact integer correction each way gives `s`. `S` never overflows: its
    values up to `S(rows) = total` fit, and `s (s - 1) / 2 = (s >> 1) * ((s - 1) | 1)` is computed
    without the product `s (s - 1)`."""
    b = w.builder

    def f(op: Operation) -> SSAValue:
        b.insert(op)
        return op.results[0]

    def starts(s: SSAValue) -> SSAValue:
        pairs = w.mul(w.shrui(s, 1), w.ori(w.sub(s, w.const(1)), w.const(1)), nsw=True)
        return w.add(w.mul(s, first, nsw=True), pairs, nsw=True)

    pf, firstf = w.to_f64(p), w.to_f64(first)
    bf = f(arith.SubfOp(f(arith.MulfOp(firstf, f64_const(b, 2.0))), f64_const(b, 1.0)))
    disc = f(arith.AddfOp(f(arith.MulfOp(bf, bf)), f(arith.MulfOp(pf, f64_const(b, 8.0)))))
    denominator = f(arith.AddfOp(f(math.SqrtOp(disc)), bf))
    estimate = w.from_f64(f(arith.DivfOp(f(arith.MulfOp(pf, f64_const(b, 4.0))), denominator)),
                          "row_estimate")
    one = w.const(1)
    too_far = w.cmpi(starts(estimate), p, "ugt")
    below = w.select(too_far, w.sub(estimate, one, nsw=True), estimate)
    next_row = w.add(below, one, nsw=True)
    row = w.select(w.cmpi(starts(next_row), p, "ule"), next_row, below, "row")
    return row, w.sub(p, starts(row), "offset", nsw=True)


def _outermost_parallel_loops(module: ModuleOp) -> list[ParallelForOp]:
    loops: list[ParallelForOp] = []
    for fn in module.ops:
        if isinstance(fn, func.FuncOp):
            loops += [op for op in fn.walk() if isinstance(op, ParallelForOp)
                      and not inside_parallel_loop(op)]
    return loops


@dataclass(frozen=True)
class AgpuFlattenNestPass(DeclaredOptionsPass):
    """Flatten parallel nests of at least `min_depth` levels into one loop over a linear index."""

    name = "agpu-flatten-nest"

    min_depth: int = option(
        4, doc="Flatten nests whose flat chain has at least this many parallel levels (4: the "
        "1-3 deep nests the lowering maps to x, y, z stay as they are).", check=at_least(2))
    mode: str = option(
        "all", doc="all: every level of the chain becomes one flat loop (on x); outer: only the "
        "levels above the innermost two (on z), which keep x and y.", check=one_of(*MODES))
    remarks: bool = option(
        False, doc="Print, at each deep nest left alone, why it was not flattened (stderr).")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for nest in _outermost_parallel_loops(op):
            chain = flat_chain(nest)
            levels = self._levels(chain)
            if levels is None:
                continue
            why = _refusal(levels)
            if why is not None:
                self._remark(nest, f"not flattened: {why}")
                continue
            reductions = _reductions(levels)
            assert not isinstance(reductions, str)
            _Flattener(nest, levels).rewrite(reductions)
            nest.detach()
            nest.erase()

    def _levels(self, chain: Chain) -> tuple[FlatLevel, ...] | None:
        """The levels to merge, or None (with a remark where the nest is deep)."""
        depth = len(chain.levels)
        if depth < self.min_depth:
            if chain.stopped is not None and self._deep(chain):
                loop, why = chain.stopped
                self._remark(loop, f"not flattened: only {depth} levels can merge ({why})")
            return None
        if self.mode == "all":
            return chain.levels
        merged = chain.levels[: depth - 2]
        return merged if len(merged) >= 2 else None

    def _deep(self, chain: Chain) -> bool:
        """The parallel loops nested in the chain's first level reach `min_depth`."""
        if not chain.levels:
            return False
        nest = chain.levels[0].loop
        depth, loop = 1, nest
        while (inner := [o for o in loop.body.block.ops if isinstance(o, ParallelForOp)]):
            depth, loop = depth + 1, inner[0]
        return depth >= self.min_depth

    def _remark(self, op: Operation, message: str) -> None:
        if self.remarks:
            remark = CompileError(f"agpu-flatten-nest: {message}", location_of(op), None,
                                  severity="remark")
            print(remark.format(), file=sys.stderr)


