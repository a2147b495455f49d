"""Random serial C kernels of autogpu's subset, free of undefined behaviour by construction.

In the spirit of Csmith and YARPGen: a function of sizes, scalars and arrays whose body is a
sequence of loop nests (`#pragma omp parallel for`, with `collapse(k)` on rectangular nests or a
pragma per level, and `reduction(...)` clauses) and serial code between them. Inside, serial
loops of many canonical and non-canonical forms, `if`s, private locals and expressions mixing
every arithmetic type, operator, conversion and math function.

How each kind of undefined behaviour is excluded:

- signed overflow: every integer expression carries an interval (`expr`); a signed operation
  that might overflow is done in the unsigned type, and variables keep an interval invariant
  (assignments to signed ones are reduced modulo a constant, see `expr.wrap_into`);
- division by zero and INT_MIN / -1: divisors are `(b & 15) + 1` or `b | 1`;
- shifts: the count is masked below the width; a left shift that may overflow is unsigned;
- float to integer conversion out of range or of NaN: clamped with fmin/fmax first;
- out of bounds: an index is a loop variable whose range is known relative to a size (plus an
  offset within the array's padding), a remainder by the extent, or a clamp (`reads`);
- uninitialised reads: every local is initialised where it is declared;
- races between parallel iterations: an iteration writes an array of its nest only at an index
  that is an injective function of all parallel variables around the write (`Owned`), reads
  such an array only there, assigns only the locals it declares, and updates reduction
  variables only through their reduction operator.
"""

from __future__ import annotations

import random

from autogpu.testing.fuzz import expr as X
from autogpu.testing.fuzz.program import (
    ArrayParam,
    Assign,
    Block,
    Decl,
    DerivedSize,
    Dim,
    FloatSum,
    If,
    Loop,
    Program,
    ScalarParam,
    SizeParam,
    Stmt,
    Trip,
)
from autogpu.testing.fuzz.reads import Reads
from autogpu.testing.fuzz.scope import Nest, Owned, Reduction, Scope, Var, frozen
from autogpu.testing.fuzz.values import (
    DOUBLE,
    FLOAT,
    FLOATS,
    INT,
    LONG,
    UINT,
    ULONG,
    CType,
    Interval,
    int_interval,
)

MAX_SITE_TRIPS = 1 << 24
"""A statement runs at most this often in one call (loops are chosen so): the bound behind the
intervals of reduction variables."""
MAX_REDUCTION_SITES = 4
SIZE_MAXIMA = (4, 8, 17, 33, 64, 257, 520)
MAX_LOOP_DEPTH = 5

KNOWN_ISSUES: dict[str, str] = {}
"""Bugs found by the fuzzer and reported, not fixed yet (docs/fuzzing.md has reproducers):
the generator avoids them unless asked (`Generator(..., avoid=...)`), so that a run finds
new ones."""


class Generator(Reads):
    """Draws one program from `rng`; `program()` may be called once."""

    def __init__(
        self, rng: random.Random, name: str, avoid: frozenset[str] = frozenset(KNOWN_ISSUES)
    ):
        super().__init__(rng, avoid)
        self.name = name
        self.ired: ArrayParam | None = None
        self.fred: ArrayParam | None = None
        self.float_sums: list[FloatSum] = []
        self.int_reductions: list[Reduction] = []  # of the nests so far
        self.budget = rng.randint(8, 30)  # statements

    # --- the program ------------------------------------------------------------------------

    def program(self) -> Program:
        rng = self.rng
        for k in range(rng.choice((1, 2, 2, 3, 3))):
            ctype = rng.choice((INT, INT, UINT, LONG, ULONG))
            self.sizes.append(SizeParam(f"n{k}", ctype, rng.choice(SIZE_MAXIMA), self.spell(ctype)))
        params = list(self.sizes)
        body: list[Stmt] = self.derived_sizes()
        for k in range(rng.randint(0, 3)):
            ctype = rng.choice((INT, UINT, LONG, ULONG, FLOAT, DOUBLE))
            interval = self.value_interval(ctype)
            self.scalars.append(ScalarParam(f"a{k}", ctype, interval, self.spell(ctype)))
        params += self.scalars
        for _ in range(rng.randint(1, 4)):
            self.arrays.append(self.new_array("x", const=self.chance(0.8)))
        scope = Scope(
            [Var(p.name, p.ctype, (0, p.max)) for p in self.sizes]
            + [Var(p.name, p.ctype, p.interval) for p in self.scalars]
        )
        for _ in range(rng.choice((1, 1, 2, 2, 3))):
            if self.chance(0.35):
                body += self.statements(scope, rng.randint(1, 3))
            body += self.nest(scope)
        params = [p for p in params if not isinstance(p, DerivedSize)] + self.arrays
        params += [a for a in (self.ired, self.fred) if a is not None]
        rng.shuffle(params)
        params.sort(key=lambda p: isinstance(p, ArrayParam) and p.c99)  # sizes first for those
        derived = [s for s in self.sizes if isinstance(s, DerivedSize)]
        return Program(self.name, params, body, self.float_sums, derived)

    def derived_sizes(self) -> list[Stmt]:
        """Up to two sizes computed from the others (`DerivedSize`), declared first; arrays
        and loops use them like the parameters."""
        rng = self.rng
        decls: list[Stmt] = []
        for _ in range(rng.choice((0, 0, 1, 2))):
            a = rng.choice(self.sizes)
            same = [s for s in self.sizes if s.ctype == a.ctype and s is not a]
            forms = (
                ["div", "twice"] + (["min"] if same else []) + (["less"] if a.ctype.signed else [])
            )
            form = rng.choice(forms)
            b = rng.choice(same) if form == "min" else a
            k = rng.randint(2, 3)
            most = {"div": a.max // k + 1, "min": min(a.max, b.max), "twice": 2 * a.max,
                    "less": max(a.max - k, 0)}[form]  # fmt: skip
            d = DerivedSize(
                self.fresh("m"), a.ctype, most, form=form, operands=(a.name, b.name), constant=k
            )
            self.sizes.append(d)
            init = X.Ref(d.ctype, (0, most), name=d.c_expr(), frozen=True)
            decls.append(Decl(d.ctype, d.name, init, const=self.chance(0.5)))
        return decls

    # --- loop nests -------------------------------------------------------------------------

    def nest(self, scope: Scope) -> list[Stmt]:
        """Declarations of the reduction variables, the nest, and the stores of the results."""
        rng = self.rng
        form = rng.choice(("single", "single", "collapse", "collapse", "nested", "serial",
                           "kernel", "kernel"))  # fmt: skip
        if form == "kernel":
            return [self.kernel_nest(scope)]
        levels = 1 if form in ("single", "serial") else rng.randint(2, 3)
        nest = Nest()
        before: list[Stmt] = []
        if form in ("single", "collapse") and self.chance(0.5):
            for _ in range(rng.randint(1, 2)):
                before += self.reduction_for(nest)
        reduced = {r.var.name for r in nest.reductions}  # not readable inside the nest
        inner_scope = scope.child(nest=nest if form != "serial" else None)
        inner_scope.vars = [v for v in inner_scope.vars if v.name not in reduced]
        loop = self.parallel_level(inner_scope, form, levels, 0, nest)
        after = [self.store_reduction(r) for r in nest.reductions]
        for r in nest.reductions:  # integer results may be read by later code
            if r.float_sum is None and r not in self.int_reductions:
                self.int_reductions.append(r)
                scope.vars.append(Var(r.var.name, r.var.ctype, self.reduced_interval(r)))
        return [*before, loop, *after]

    def kernel_nest(self, scope: Scope) -> Loop:
        """A nest shaped like the kernels autogpu optimises (matmul, convolution, stencil):
        a 2D parallel nest whose iteration keeps an accumulator over a serial loop of affine
        reads, then stores it at its own element. Random statements join in."""
        rng = self.rng
        nest = Nest()
        sj, si, sk = (rng.choice(self.sizes) for _ in range(3))
        outer, j, inner = self.sized_loop(scope.child(nest=nest), sj)
        middle, i, inner = self.sized_loop(inner, si)
        inner = inner.child(parallel=(j, i))
        outer.body = [middle]
        outer.pragma = "omp parallel for collapse(2)"
        if self.chance(0.3):
            outer.pragma, middle.pragma = "omp parallel for", "omp parallel for"
        acc_type = rng.choice((FLOAT, FLOAT, DOUBLE, UINT, ULONG))
        acc = Var(self.fresh("acc"), acc_type, self.local_interval(acc_type), assign_depth=2)
        body: list[Stmt] = [Decl(acc_type, acc.name, X.cast(self.constant(), acc_type))]
        inner.vars.append(acc)
        if self.chance(0.45):
            body.append(self.window_sum(inner, acc, (i, si), (j, sj)))
        else:
            body.append(self.dot_product(inner, acc, (i, si), (j, sj), sk))
        body.append(self.store_accumulator(nest, acc, (i, si), (j, sj)))
        middle.body = body + self.statements(inner, rng.randint(0, 2))
        return outer

    def window_sum(self, scope: Scope, acc: Var, row: tuple[Var, SizeParam],
                   column: tuple[Var, SizeParam]) -> Loop:  # fmt: skip
        """`acc += in[i + u][j + v] * w[u][v]` over a t x t window (a stencil's weights are
        a constant)."""
        (i, si), (j, sj) = row, column
        t = self.rng.choice((2, 3))
        loop_u, u, taps = self.constant_window(scope, t)
        loop_v, v, taps = self.constant_window(taps, t)
        loop_u.body = [loop_v]
        a = self.new_array("x", [Dim(si.name, t - 1), Dim(sj.name, t - 1)], const=True)
        w = self.new_array("x", [Dim(None, t), Dim(None, t)], const=True)
        self.arrays += [a, w]
        taps_at = [X.arithmetic("+", i.ref(), u.ref()), X.arithmetic("+", j.ref(), v.ref())]
        weight = self.array_load(w, [u.ref(), v.ref()], None)
        if self.chance(0.4):
            weight = X.const(FLOAT, 0.25)
        term = X.arithmetic("*", self.array_load(a, taps_at, None), weight)
        loop_v.body = [Assign(acc.ref(), "+=", X.cast(term, acc.ctype))]
        return loop_u

    def dot_product(self, scope: Scope, acc: Var, row: tuple[Var, SizeParam],
                    column: tuple[Var, SizeParam], sk: SizeParam) -> Loop:  # fmt: skip
        """`acc += A[i][k] * B[k][j]` over k, each matrix in either layout."""
        (i, si), (j, sj) = row, column
        loop, k, inner = self.sized_loop(scope, sk)
        loads: list[X.Expr] = []
        for first, second in (((i, si), (k, sk)), ((k, sk), (j, sj))):
            pairs = [first, second] if self.chance(0.5) else [second, first]
            array = self.new_array("x", [Dim(s.name, 0) for _, s in pairs], const=True)
            self.arrays.append(array)
            loads.append(self.array_load(array, [v.ref() for v, _ in pairs], None))
        update = Assign(acc.ref(), "+=", X.cast(X.arithmetic("*", *loads), acc.ctype))
        loop.body = [update, *self.statements(inner, self.rng.randint(0, 1))]
        return loop

    def store_accumulator(self, nest: Nest, acc: Var, row: tuple[Var, SizeParam],
                          column: tuple[Var, SizeParam]) -> Stmt:  # fmt: skip
        """`out[i][j] = acc` (or `+=`), at the iteration's own element, in either layout."""
        pairs = [row, column] if self.chance(0.5) else [column, row]
        out = self.new_array("y", [Dim(s.name, 0) for _, s in pairs])
        self.arrays.append(out)
        owned = Owned(out, [v for v, _ in pairs], ["direct", "direct"])
        nest.owned.append(owned)
        op = "+=" if out.ctype.is_float and self.chance(0.5) else "="
        if out.ctype.is_float or out.values == out.ctype.full:
            return Assign(self.owned_load(owned), op, X.cast(acc.ref(), out.ctype))
        values = int_interval(out.values)
        return Assign(self.owned_load(owned), "=", X.wrap_into(acc.ref(), out.ctype, values))

    def sized_loop(self, scope: Scope, size: SizeParam) -> tuple[Loop, Var, Scope]:
        """`for (T v = 0; v < size; v++)`."""
        name = self.fresh("i")
        var = Var(name, size.ctype, (0, size.max - 1), size=size.name, is_loop=True)
        header = f"for ({size.ctype} {name} = 0; {name} < {size.name}; {name}++)"
        return self.enter(scope, var, header, Trip(size.name, 0))

    def constant_window(self, scope: Scope, count: int) -> tuple[Loop, Var, Scope]:
        name = self.fresh("i")
        var = Var(name, INT, (0, count - 1), is_loop=True)
        header = f"for (int {name} = 0; {name} < {count}; {name}++)"
        return self.enter(scope, var, header, Trip(None, count))

    def parallel_level(self, scope: Scope, form: str, levels: int, level: int,
                       nest: Nest) -> Loop:  # fmt: skip
        rectangular = form == "collapse" or level == 0
        loop, var, inner = self.loop(scope, parallel=form != "serial", rectangular=rectangular)
        if form != "serial":
            inner = inner.child(parallel=(*scope.parallel, var))
        if level == 0 and form != "serial":
            clauses = f" collapse({levels})" if form == "collapse" else ""
            for op in dict.fromkeys(r.op for r in nest.reductions):
                names = [
                    name for r in nest.reductions if r.op == op for name in self.reduced_names(r)
                ]
                clauses += f" reduction({op}: {', '.join(names)})"
            loop.pragma = "omp parallel for" + clauses
        elif form == "nested":
            loop.pragma = "omp parallel for"
        if level + 1 < levels:
            around = form == "nested" and self.chance(0.3)
            before = self.statements(inner, 1) if around else []
            inner_loop = self.parallel_level(inner, form, levels, level + 1, nest)
            after = self.statements(inner, 1) if around and self.chance(0.5) else []
            loop.body = [*before, inner_loop, *after]
        else:
            loop.body = self.innermost_body(inner)
        return loop

    def innermost_body(self, scope: Scope) -> list[Stmt]:
        """Statements of the innermost parallel loop: at least one of them writes a result."""
        scope = scope.child()
        if scope.nest is not None and scope.nest.reductions and self.chance(0.5):
            first = self.reduction_update(scope)
        else:
            first = self.write(scope)
        body = self.statements(scope, self.rng.randint(0, 4))
        position = self.rng.randint(0, len(body))  # `first` reads none of their declarations
        return body[:position] + ([first] if first else []) + body[position:]

    def loop(self, scope: Scope, parallel: bool, rectangular: bool) -> tuple[Loop, Var, Scope]:
        """A `for` loop (header and variable) and the scope of its body."""
        rng = self.rng
        name = self.fresh("i")
        candidates = [s for s in self.sizes if scope.trips * (s.max + 2) <= MAX_SITE_TRIPS]
        if not candidates or (not parallel and self.chance(0.15)):
            return self.constant_loop(scope, name, parallel)
        if not parallel and not rectangular and self.chance(0.35):
            outer = [v for v in scope.vars if v.is_loop and v.size is not None]
            if outer:
                return self.triangular_loop(scope, name, rng.choice(outer))
        s = rng.choice(candidates)
        t = self.spell(s.ctype)
        forms = [("up", 0, 0, 1, f"{t} {name} = 0; {name} < {s.name}; {name}++"),
                 ("from1", 1, 0, 1, f"{t} {name} = 1; {name} < {s.name}; ++{name}"),
                 ("beyond", 0, 2, 1, f"{t} {name} = 0; {name} < {s.name} + 2; {name}++"),
                 ("step2", 0, 0, 2, f"{t} {name} = 0; {name} < {s.name}; {name} += 2"),
                 ("step3", 0, 0, 3, f"{t} {name} = 0; {name} < {s.name}; {name} = {name} + 3"),
                 ("down1", 1, 1, 1, f"{t} {name} = {s.name}; {name} > 0; {name}--"),
                 ("ne", 0, 0, 1, f"{t} {name} = 0; {name} != {s.name}; {name}++")]  # fmt: skip
        if s.ctype.signed:
            forms += [
                ("le", 0, 0, 1, f"{t} {name} = 0; {name} <= {s.name} - 1; {name} += 1"),
                ("interior", 1, -1, 1, f"{t} {name} = 1; {name} < {s.name} - 1; {name}++"),
                ("down", 0, 0, 1, f"{t} {name} = {s.name} - 1; {name} >= 0; {name}--"),
            ]
        weights = [6 if f[0] == "up" else 1 for f in forms]
        _, lo, offset, step, header = rng.choices(forms, weights)[0]
        var = Var(name, s.ctype, (lo, s.max - 1 + offset), size=s.name, lo=lo, offset=offset,
                  is_loop=True)  # fmt: skip
        trip = Trip(s.name, offset - lo, step)
        return self.enter(scope, var, f"for ({header})", trip)

    def enter(self, scope: Scope, var: Var, header: str, trip: Trip) -> tuple[Loop, Var, Scope]:
        positive = scope.positive
        if var.size is not None and var.lo >= var.offset:
            positive = positive | {var.size}
        lo, hi = int_interval(var.interval)
        most = hi - lo + 1
        inner = scope.child(positive=positive, trips=scope.trips * max(most, 1),
                            loops=scope.loops + 1)  # fmt: skip
        inner.vars.append(var)
        return Loop(header, [], trip), var, inner

    def constant_loop(self, scope: Scope, name: str, parallel: bool) -> tuple[Loop, Var, Scope]:
        count = self.rng.choice((1, 2, 3, 4, 5, 8))
        if scope.trips * 8 > MAX_SITE_TRIPS:
            count = 1
        var = Var(name, INT, (0, count - 1), is_loop=True)
        if not parallel and self.chance(0.3):  # a data-dependent trip count (at most 7)
            bound = X.bitwise("&", self.int_expr(scope, 1), X.const(INT, 7))
            var.interval = (0, 6)
            header = f"for (int {name} = 0; {name} < {bound.render()}; {name}++)"
            return self.enter(scope, var, header, Trip(None, 7))
        header = f"for (int {name} = 0; {name} < {count}; {name}++)"
        return self.enter(scope, var, header, Trip(None, count))

    def triangular_loop(self, scope: Scope, name: str, outer: Var) -> tuple[Loop, Var, Scope]:
        t = outer.ctype
        if self.chance(0.5):
            last = int_interval(outer.interval)[1]
            var = Var(name, t, (0, max(last - 1, 0)), size=outer.size, lo=0,
                      offset=outer.offset - 1, is_loop=True)  # fmt: skip
            header = f"for ({t} {name} = 0; {name} < {outer.name}; {name}++)"
        else:
            assert outer.size is not None  # the loop variable of a loop over a size
            var = Var(name, t, (outer.lo, self.size(outer.size).max - 1), size=outer.size,
                      lo=outer.lo, offset=0, is_loop=True)  # fmt: skip
            if self.size(outer.size).ctype != t:
                return self.constant_loop(scope, name, False)
            header = f"for ({t} {name} = {outer.name}; {name} < {outer.size}; {name}++)"
        return self.enter(scope, var, header, Trip(outer.size, max(outer.offset, 0)))

    def while_loop(self, scope: Scope) -> Stmt:
        name = self.fresh("w")
        count = self.rng.randint(1, 4) if scope.trips * 4 <= MAX_SITE_TRIPS else 1
        var = Var(name, INT, (0, count - 1))
        inner = scope.child(trips=scope.trips * count, loops=scope.loops + 1)
        inner.vars.append(var)
        body = self.statements(inner, self.rng.randint(1, 2))
        step = Assign(X.ref(name, INT, None), "=", frozen(X.arithmetic(
            "+", X.ref(name, INT, (0, count - 1)), X.const(INT, 1))), removable=False)  # fmt: skip
        loop = Loop(f"while ({name} < {count})", [*body, step], Trip(None, count), removable=False)
        if self.chance(0.4):  # count >= 1: the same iterations
            loop.header, loop.tail = "do", f"while ({name} < {count});"
        return Block([Decl(INT, name, X.const(INT, 0), removable=False), loop])

    # --- reductions -------------------------------------------------------------------------

    def reduction_for(self, nest: Nest) -> list[Stmt]:
        """A new reduction variable of `nest` (its declarations), or now and then an integer
        one of an earlier nest, which goes on accumulating in this one."""
        reusable = [
            r
            for r in self.int_reductions
            if r.sites < MAX_REDUCTION_SITES
            and all(r.var.name != o.var.name for o in nest.reductions)
        ]
        if reusable and self.chance(0.3):
            nest.reductions.append(self.rng.choice(reusable))
            return []
        return self.new_reduction(nest)

    def new_reduction(self, nest: Nest) -> list[Stmt]:
        """A reduction variable (with its companions for a float sum) and its declaration."""
        rng = self.rng
        op = rng.choice(("+", "+", "+", "-", "*", "&", "|", "^", "min", "max"))
        if op == "+" and self.chance(0.4):
            ctype = rng.choice(FLOATS)
        elif op == "-":
            ctype = rng.choice((INT, LONG))
        elif op == "*":
            ctype = rng.choice((UINT, ULONG))
        else:
            ctype = self.int_type()
        name = self.fresh("s")
        if ctype.is_float:
            return self.new_float_sum(nest, name, ctype)
        if op in ("+", "-") and ctype.signed:
            init = rng.randint(-100, 100)
            bound = (ctype.hi - 100) // (MAX_REDUCTION_SITES * MAX_SITE_TRIPS)
            terms = (-bound, bound)
        elif op in ("min", "max"):
            terms = int_interval(self.value_interval(ctype))  # min and max are on integers
            init = rng.randint(*terms) if terms[1] - terms[0] < 1 << 40 else terms[0] // 3
        else:
            terms = None
            init = rng.choice((0, 1, 3, 7, 255, ctype.hi))
        if op == "*":
            init = rng.choice((1, 3))
        var = Var(name, ctype, None)
        nest.reductions.append(Reduction(op, var, terms))
        return [Decl(ctype, name, X.const(ctype, init))]

    def new_float_sum(self, nest: Nest, name: str, ctype: CType) -> list[Stmt]:
        init = self.rng.choice((0.0, 0.5, -1.25, 3.0))
        if self.fred is None:
            self.fred = ArrayParam("fsums", DOUBLE, [Dim(None, 0)], None)
        slot = self.fred.dims[0].pad
        self.fred.dims[0].pad += 3
        float_sum = FloatSum(self.fred.name, slot, init, ctype)
        self.float_sums.append(float_sum)
        nest.reductions.append(Reduction("+", Var(name, ctype, None), None, float_sum=float_sum))
        return [Decl(ctype, name, X.const(ctype, init)),
                Decl(ctype, f"{name}_abs", X.const(ctype, 0.0)),
                Decl(INT, f"{name}_cnt", X.const(INT, 0))]  # fmt: skip

    def reduced_names(self, r: Reduction) -> list[str]:
        if r.float_sum is None:
            return [r.var.name]
        return [r.var.name, f"{r.var.name}_abs", f"{r.var.name}_cnt"]

    def reduced_interval(self, r: Reduction) -> Interval:
        t = r.var.ctype
        if r.op in ("min", "max"):
            return int_interval(r.terms)
        return t.full

    def store_reduction(self, r: Reduction) -> Stmt:
        if r.float_sum is not None:
            slot, name = r.float_sum.slot, r.var.name
            stores: list[Stmt] = [Assign(frozen(X.Load(DOUBLE, None, array="fsums",
                                           indices=[X.const(INT, slot + k)])),
                             "=", frozen(X.ref(f"{name}{suffix}", r.var.ctype if k < 2 else INT,
                                               None)),
                             removable=False)
                      for k, suffix in enumerate(("", "_abs", "_cnt"))]  # fmt: skip
            return Block(stores)
        if self.ired is None:
            self.ired = ArrayParam("isums", ULONG, [Dim(None, 0)], ULONG.full)
        slot = self.ired.dims[0].pad
        self.ired.dims[0].pad += 1
        target = frozen(X.Load(ULONG, None, array="isums", indices=[X.const(INT, slot)]))
        return Assign(target, "=", X.ref(r.var.name, r.var.ctype, None))

    def reduction_update(self, scope: Scope) -> Stmt | None:
        nest = scope.nest
        assert nest is not None  # reductions are updated inside their parallel nest
        open_ = [r for r in nest.reductions if r.sites < MAX_REDUCTION_SITES]
        if not open_:
            return None
        r = self.rng.choice(open_)
        r.sites += 1
        t, s = r.var.ctype, r.var
        term = self.expr(scope, self.rng.randint(0, 3))
        if r.float_sum is not None:
            return self.float_sum_update(scope, r, X.cast(term, t))
        if r.terms is not None:
            term = X.wrap_into(term, t, r.terms)
        else:
            term = X.cast(X.float_to_int(term, t) if term.type.is_float else term, t)
        sref = X.ref(s.name, t, None)
        sref.frozen = True
        if r.op in ("min", "max"):
            temp = self.fresh("t")
            tref = X.ref(temp, t, None)
            compare = ">" if r.op == "max" else "<"
            forms = [
                [Assign(sref, "=", X.Call(t, None, function=r.op, args=[sref, tref], frozen=True),
                        removable=False)],
                [If(X.Binary(INT, (0, 1), op=compare, lhs=tref, rhs=sref, frozen=True),
                    [Assign(sref, "=", tref, removable=False)], removable=False)],
                [Assign(sref, "=", X.Cond(t, None, cond=X.Binary(INT, (0, 1), op=compare, lhs=sref,
                                                                     rhs=tref, frozen=True),
                                          then=sref, other=tref, frozen=True), removable=False)],
            ]  # fmt: skip
            tref.frozen = True
            return Block([Decl(t, temp, term, removable=False), *self.rng.choice(forms)])
        if self.chance(0.7):
            return Assign(sref, f"{r.op}=", term)
        return Assign(sref, "=", X.Binary(t, None, op=r.op, lhs=sref, rhs=term, frozen=True))

    def float_sum_update(self, scope: Scope, r: Reduction, term: X.Expr) -> Stmt:
        t, name = r.var.ctype, r.var.name
        temp = self.fresh("t")
        tref = X.ref(temp, t, None)
        fabs = "fabsf" if t == FLOAT else "fabs"
        updates = [  # the reducer keeps these as they are: they make the tolerance
            Assign(frozen(X.ref(name, t, None)), "+=", frozen(tref), removable=False),
            Assign(frozen(X.ref(f"{name}_abs", t, None)), "+=",
                   frozen(X.Call(t, None, function=fabs, args=[X.ref(temp, t, None)])),
                   removable=False),
            Assign(frozen(X.ref(f"{name}_cnt", INT, None)), "+=", frozen(X.const(INT, 1)),
                   removable=False),
        ]  # fmt: skip
        return Block([Decl(t, temp, term, removable=False), *updates])

    # --- statements -------------------------------------------------------------------------

    def statements(self, scope: Scope, count: int) -> list[Stmt]:
        out: list[Stmt] = []
        for _ in range(count):
            if self.budget <= 0:
                break
            self.budget -= 1
            s = self.statement(scope)
            if s is not None:
                out.append(s)
        return out

    def statement(self, scope: Scope) -> Stmt | None:
        rng = self.rng
        kinds = ["decl", "assign", "write", "write", "if"]
        if scope.nest is not None and scope.nest.reductions:
            kinds += ["reduce", "reduce"]
        if scope.loops < MAX_LOOP_DEPTH:
            kinds += ["loop", "loop"] + (["while"] if self.chance(0.2) else [])
        kind = rng.choice(kinds)
        if kind == "decl":
            return self.declaration(scope)
        if kind == "assign":
            return self.assignment(scope)
        if kind == "write":
            return self.write(scope)
        if kind == "reduce":
            return self.reduction_update(scope)
        if kind == "if":
            cond = self.expr(scope, rng.randint(1, 3))
            then = self.statements(scope.child(), rng.randint(1, 2))
            other = self.statements(scope.child(), rng.randint(1, 2)) if self.chance(0.4) else None
            return If(cond, then, other) if then or other else None
        if kind == "while":
            return self.while_loop(scope)
        loop, _, inner = self.loop(scope, parallel=False, rectangular=False)
        loop.body = self.statements(inner, rng.randint(1, 3))
        return loop if loop.body else None

    def declaration(self, scope: Scope) -> Stmt:
        rng = self.rng
        ctype = rng.choice((INT, INT, UINT, LONG, ULONG, FLOAT, DOUBLE))
        value = self.expr(scope, rng.randint(0, 3))
        name = self.fresh("t")
        mutable = self.chance(0.6)
        if mutable:
            interval = self.local_interval(ctype)
            init = X.wrap_into(value, ctype, interval) if interval else X.cast(value, ctype)
            scope.vars.append(Var(name, ctype, interval, assign_depth=len(scope.parallel)))
        else:
            init = X.cast(value, ctype)
            scope.vars.append(Var(name, ctype, init.interval))
        const = not mutable and self.chance(0.3)
        return Decl(ctype, name, init, const=const, spelling=self.spell(ctype))

    def local_interval(self, ctype: CType) -> Interval | None:
        if ctype.is_float:
            return None
        if ctype.signed:
            return self.rng.choice(((-100, 100), (-1000, 1000), (-(1 << 20), 1 << 20)))
        return ctype.full

    def assignment(self, scope: Scope) -> Stmt | None:
        depth = len(scope.parallel)
        targets = [v for v in scope.vars if v.assign_depth == depth]
        if not targets:
            return self.declaration(scope)
        v = self.rng.choice(targets)
        return self.update(scope, v.ref(), v.ctype, v.interval)

    def update(self, scope: Scope, target: X.Expr, ctype: CType, interval: Interval | None) -> Stmt:
        """An assignment to `target` that keeps it in `interval`."""
        rng = self.rng
        value = self.expr(scope, rng.randint(0, 3))
        target.frozen = True
        if ctype.is_float:
            op = rng.choice(("=", "=", "+=", "-=", "*=", "/="))
            return Assign(target, op, X.cast(value, ctype))
        if interval != ctype.full or ctype.signed:
            return Assign(target, "=", X.wrap_into(value, ctype, int_interval(interval)))
        if self.chance(0.1):
            return Assign(target, rng.choice(("++", "--")), None)
        op = rng.choice(("=", "+=", "-=", "*=", "^=", "|=", "&=", "<<=", ">>=", "/=", "%="))
        value = X.cast(X.float_to_int(value, ctype) if value.type.is_float else value, ctype)
        if op in ("<<=", ">>="):
            value = X.bitwise("&", value, X.const(ctype, ctype.bits - 1))
            value.frozen = True
        elif op in ("/=", "%="):
            value = X.divisor(value)
        return Assign(target, op, value)

    def write(self, scope: Scope) -> Stmt | None:
        """A store to an array: one the nest owns (at the iteration's element), or any output
        element in serial code."""
        if scope.nest is not None:
            owned = [o for o in scope.nest.owned if self.accessible(scope, o)]
            if not owned or (len(scope.nest.owned) < 2 and self.chance(0.3)):
                made = self.new_owned(scope)
                owned = [made] if made else owned
            if not owned:
                return None
            o = self.rng.choice(owned)
            target = self.owned_load(o)
            return self.update(scope, target, o.array.ctype, o.array.values)
        outputs = [a for a in self.arrays if not a.const]
        if not outputs or self.chance(0.2):
            outputs.append(self.new_array("y"))
            self.arrays.append(outputs[-1])
        array = self.rng.choice(outputs)
        target = self.load(scope, array)
        if target is None:
            return None
        return self.update(scope, target, array.ctype, array.values)


def generate(seed: int, name: str | None = None, known_issues: bool = False) -> Program:
    """The program of `seed` (the same seed always gives the same program); with
    `known_issues`, also the constructs of `KNOWN_ISSUES`."""
    avoid: frozenset[str] = frozenset() if known_issues else frozenset(KNOWN_ISSUES)
    program = Generator(random.Random(seed), name or f"fz{seed}", avoid).program()
    program.seed = seed
    return program
