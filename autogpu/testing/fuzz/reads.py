"""Array accesses and expressions: in-bounds indices, an iteration's own elements, typed
expressions over everything a scope may read (the half of the generator that builds `Expr`s).

An index is in bounds for every run that reaches its scope: a loop variable whose range is
known relative to a size (plus an offset within the array's padding), its mirror `n - 1 - i`,
a clamp (`min(i + 2, n - 1)`, `max(i - 1, 0)`), a constant below the extent, or a remainder by
the extent (`(i * 7 + 2) % n`, `(i * j) % n`, data `% n`) where the extent is known positive.
"""

from __future__ import annotations

import random

from autogpu.testing.fuzz import expr as X
from autogpu.testing.fuzz.program import ArrayParam, DerivedSize, Dim, ScalarParam, SizeParam
from autogpu.testing.fuzz.scope import Owned, Scope, Var
from autogpu.testing.fuzz.values import (
    DOUBLE,
    FLOAT,
    INT,
    LONG,
    SPELLINGS,
    UINT,
    ULONG,
    CType,
    Interval,
    int_interval,
)

SIGNED_INTERVALS = ((-100, 100), (-1000, 1000), (-(1 << 20), 1 << 20))


class Reads:
    """The generator's state and its expression builders (`Generator` adds the statements)."""

    def __init__(self, rng: random.Random, avoid: frozenset[str]):
        self.rng = rng
        self.avoid = avoid  # the known issues not to generate (generator.KNOWN_ISSUES)
        self.counter = 0
        self.sizes: list[SizeParam] = []
        self.arrays: list[ArrayParam] = []
        self.scalars: list[ScalarParam] = []
        # Kernel-like programs index mostly with loop variables plus constants (what staging
        # and caching recognise); the others mix in remainders, clamps and data.
        self.affine_weight = rng.choice((1, 8))
        self.data_indices = 0  # indices computed from data being built now

    # --- names and small choices ------------------------------------------------------------

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def spell(self, ctype: CType) -> str:
        """`ctype`'s usual name, or now and then another spelling (`long long`, `size_t`)."""
        others = SPELLINGS.get(ctype, ())
        return self.rng.choice(others) if others and self.chance(0.2) else ctype.name

    def int_type(self) -> CType:
        return self.rng.choice((INT, INT, UINT, UINT, LONG, ULONG))

    def value_interval(self, ctype: CType) -> Interval | None:
        if ctype.is_float:
            return None
        if not ctype.signed:
            return ctype.full if self.chance(0.7) else (0, 100)
        choices = [*list(SIGNED_INTERVALS), ctype.full]
        return self.rng.choice(choices)

    def new_array(
        self, prefix: str, dims: list[Dim] | None = None, const: bool = False
    ) -> ArrayParam:
        rng = self.rng
        if dims is None:
            dims = [self.random_dim() for _ in range(rng.choice((1, 1, 2, 2, 3)))]
        ctype = rng.choice((FLOAT, FLOAT, DOUBLE, INT, UINT, LONG, ULONG))
        c99 = all(d.size is None or d.pad == 0 for d in dims) and self.chance(0.3)
        c99 = c99 and all(d.pad > 0 or d.size for d in dims)
        c99 = c99 and not any(
            isinstance(s, DerivedSize) and s.name == d.size for s in self.sizes for d in dims
        )  # a local: no parameter extent
        return ArrayParam(self.fresh(prefix), ctype, dims, self.value_interval(ctype), const=const,
                          restrict=self.chance(0.3), c99=c99,
                          specials=ctype.is_float and self.chance(0.2),
                          spelling=self.spell(ctype))  # fmt: skip

    def random_dim(self) -> Dim:
        if self.chance(0.2):
            return Dim(None, self.rng.choice((1, 3, 8, 16, 61)))
        return Dim(self.rng.choice(self.sizes).name, self.rng.choice((0, 0, 1, 2, 3)))

    def size(self, name: str) -> SizeParam:
        return next(s for s in self.sizes if s.name == name)

    # --- arrays and their indices -----------------------------------------------------------

    def accessible(self, scope: Scope, o: Owned) -> bool:
        in_scope = all(any(v is w for w in scope.vars) for v in o.key)
        return in_scope and all(any(p is v for v in o.key) for p in scope.parallel)

    def new_owned(self, scope: Scope) -> Owned | None:
        key = list(scope.parallel)
        serial = [v for v in scope.vars if v.is_loop and not any(v is p for p in key)]
        if serial and self.chance(0.3):
            key.append(self.rng.choice(serial))
        if not key:
            return None
        self.rng.shuffle(key)
        dims: list[Dim] = []
        parts: list[str] = []
        for v in key:
            if v.size is None:
                dims.append(Dim(None, int_interval(v.interval)[1] + 1))
                parts.append("direct")
            elif v.offset <= 0 and self.chance(0.3):
                dims.append(Dim(v.size, self.rng.choice((0, 1))))
                parts.append("reverse")
            elif v.lo > 0 and self.chance(0.5):
                dims.append(Dim(v.size, max(v.offset - v.lo, 0) + self.rng.choice((0, 0, 1))))
                parts.append("shifted")
            else:
                dims.append(Dim(v.size, max(v.offset, 0) + self.rng.choice((0, 0, 1))))
                parts.append("direct")
        array = self.new_array("y", dims)
        self.arrays.append(array)
        o = Owned(array, key, parts)
        assert scope.nest is not None  # arrays are owned by the nest that writes them
        scope.nest.owned.append(o)
        return o

    def owned_load(self, o: Owned) -> X.Load:
        indices: list[X.Expr] = []
        for v, part, dim in zip(o.key, o.parts, o.array.dims):
            if part == "reverse":
                assert dim.size is not None  # reversed over the size of its loop
                size = self.size_ref(dim.size)
                e = X.arithmetic("-", X.arithmetic("-", size, X.const(size.type, 1)), v.ref())
            elif part == "shifted":
                e = X.arithmetic("-", v.ref(), X.const(v.ctype, v.lo))
            else:
                e = v.ref()
            indices.append(self.equivalent(e) if self.chance(0.2) else e)
        return self.array_load(o.array, indices, keep=None)

    def equivalent(self, e: X.Expr) -> X.Expr:
        """The same value written differently (`(e + 3) - 3`, `e * 1`, `0 + e`, for unsigned
        `e` also `(e + UINT_MAX) + 1`, which wraps around): an analysis that tells an element's
        accesses apart by their spelling, or an index computed without C's wrap-around, gets it
        wrong."""
        c = X.const(e.type, self.rng.randint(1, 5))
        forms = ["shift", "times", "plus"]
        if not e.type.is_float and not e.type.signed:
            forms.append("wrap")
        form = self.rng.choice(forms)
        if form == "wrap":  # (e + UINT_MAX) + 1 wraps back to e
            most = X.const(e.type, e.type.hi)
            return X.arithmetic("+", X.arithmetic("+", e, most), X.const(e.type, 1))
        if form == "shift":
            return X.arithmetic("-", X.arithmetic("+", e, c), X.const(e.type, c.value))
        if form == "times":
            return X.arithmetic("*", e, X.const(e.type, 1))
        return X.arithmetic("+", X.const(e.type, 0), e)

    def size_ref(self, name: str) -> X.Expr:
        s = self.size(name)
        return X.ref(s.name, s.ctype, (0, s.max))

    def extent(self, dim: Dim) -> X.Expr:
        if dim.size is None:
            return X.const(INT, dim.pad)
        size = self.size_ref(dim.size)
        return X.arithmetic("+", size, X.const(size.type, dim.pad)) if dim.pad else size

    def array_load(
        self, array: ArrayParam, indices: list[X.Expr], keep: list[X.Expr] | None
    ) -> X.Load:
        """`array` at these per-dimension indices, linearised unless it is a C99 array; every
        node is frozen except the subtrees in `keep` (data the reducer may shrink)."""
        if not array.c99:
            swap = self.chance(0.2)  # `j + i * n` as well as `i * n + j`
            linear = indices[0]
            for dim, index in zip(array.dims[1:], indices[1:]):
                scaled = X.arithmetic("*", linear, self.extent(dim))
                linear = X.arithmetic("+", *((index, scaled) if swap else (scaled, index)))
            indices = [linear]
        free = {id(n) for k in keep or [] for n in k.walk()}
        for index in indices:
            for node in index.walk():
                node.frozen = node.frozen or id(node) not in free
        return X.Load(array.ctype, array.values, array=array.name, indices=indices)

    def load(self, scope: Scope, array: ArrayParam) -> X.Load | None:
        """A read (or a serial store) of `array` at an in-bounds index, or None if no index
        of this scope is provably in bounds."""
        indices: list[X.Expr] = []
        keep: list[X.Expr] = []
        for dim in array.dims:
            index = self.index(scope, dim, keep)
            if index is None:
                return None
            indices.append(index)
        return self.array_load(array, indices, keep)

    def index(self, scope: Scope, dim: Dim, keep: list[X.Expr]) -> X.Expr | None:
        """An index in [0, extent of `dim`) for every run that reaches this scope."""
        rng = self.rng
        size, pad = dim.size, dim.pad
        options: list[tuple[str, Var | None, int]] = []  # (kind, its loop, its constant)
        loops = [v for v in scope.vars if v.is_loop]
        for v in loops:
            if size is not None and v.size == size:
                shifts = range(-v.lo, pad - v.offset + 1)
                if shifts:
                    options.append(("shift", v, rng.choice(shifts)))
                if v.offset <= 0 and v.lo >= 0:
                    options.append(("reverse", v, 0))
                if v.offset <= pad and v.ctype.signed:
                    options.append(("clamp_low", v, rng.randint(1, 3)))
                if size in scope.positive and v.lo >= 0:
                    options.append(("clamp_high", v, rng.randint(0, 2)))
            elif size is None and v.size is None and int_interval(v.interval)[1] < pad:
                options.append(("shift", v, 0))
        positive = size is None or size in scope.positive
        if positive or pad >= 1:
            options += [("modulo", v, 0) for v in loops]
            if self.data_indices < 2:  # an index read from data whose index is read from...
                options.append(("data", None, 0))
            limit = pad + (1 if positive and size is not None else 0)
            if limit >= 1:
                options.append(("constant", None, rng.randrange(limit)))
        if not options:
            return None
        weights = [self.affine_weight if kind == "shift" else 1 for kind, _, _ in options]
        kind, v, c = rng.choices(options, weights)[0]
        if v is None:  # the kinds offered without a loop
            if kind == "constant":
                return X.const(INT, c)
            extent = self.extent(dim) if pad or size is None else self.size_ref(size)
            self.data_indices += 1
            e = self.int_expr(scope, rng.randint(0, 2))
            self.data_indices -= 1
            keep.append(e)
            return self.wrapped(e, extent, dim)
        if kind == "shift":
            return (
                X.arithmetic("+", v.ref(), X.const(v.ctype, c))
                if c > 0
                else X.arithmetic("-", v.ref(), X.const(v.ctype, -c))
                if c < 0
                else v.ref()
            )
        if kind == "reverse":
            assert size is not None  # offered for a loop over this size only
            s = self.size_ref(size)
            return X.arithmetic("-", X.arithmetic("-", s, X.const(s.type, 1)), v.ref())
        if kind == "clamp_low":
            return X.min_max(
                "max", X.arithmetic("-", v.ref(), X.const(v.ctype, c)), X.const(v.ctype, 0)
            )
        if kind == "clamp_high":
            assert size is not None  # offered for a loop over this size only
            s = self.size_ref(size)
            return X.min_max("min", X.arithmetic("+", v.ref(), X.const(v.ctype, c)),
                             X.arithmetic("-", s, X.const(s.type, 1)))  # fmt: skip
        assert kind == "modulo"
        extent = self.extent(dim) if pad or size is None else self.size_ref(size)
        other = rng.choice(loops)
        if other is not v and self.chance(0.3):
            e = X.arithmetic("*", v.ref(), other.ref())  # i * j
        else:
            e = X.arithmetic("+", X.arithmetic("*", v.ref(), X.const(INT, rng.randint(1, 9))),
                             X.const(INT, rng.randint(0, 5)))  # fmt: skip
        return self.wrapped(e, extent, dim)

    def wrapped(self, e: X.Expr, extent: X.Expr, dim: Dim) -> X.Expr:
        """`e` brought into [0, extent of `dim`) by a modulo (or a mask of a power of two)."""
        size, pad = dim.size, dim.pad
        if e.int_interval[0] < 0:
            e = X.to_unsigned(e)
        if extent.type.signed and not e.type.signed and extent.type.bits <= e.type.bits:
            extent = X.cast(extent, e.type)
        if dim.size is None and dim.pad & (dim.pad - 1) == 0 and self.chance(0.5):
            return X.bitwise("&", e, X.const(e.type, dim.pad - 1))
        largest = (self.size(size).max if size else 0) + pad - 1
        return X.Binary(X.common_type(e.type, extent.type), (0, largest), op="%", lhs=e, rhs=extent)

    # --- expressions ------------------------------------------------------------------------

    def int_expr(self, scope: Scope, depth: int) -> X.Expr:
        e = self.expr(scope, depth)
        return X.float_to_int(e, self.int_type()) if e.type.is_float else e

    def expr(self, scope: Scope, depth: int) -> X.Expr:
        rng = self.rng
        if depth <= 0 or self.chance(0.2):
            return self.leaf(scope)
        kind = rng.choice(("arith", "arith", "arith", "div", "bit", "shift", "compare", "logic",
                           "unary", "cast", "cond", "minmax", "math", "math"))  # fmt: skip
        sub = depth - 1
        if kind == "arith":
            return X.arithmetic(rng.choice("+-*"), self.expr(scope, sub), self.expr(scope, sub))
        if kind == "div":
            a, b = self.expr(scope, sub), self.expr(scope, sub)
            if a.type.is_float or b.type.is_float:
                return X.division("/", X.cast(a, DOUBLE) if not a.type.is_float else a, b)
            if self.chance(0.3):
                return X.guarded_division(rng.choice("/%"), a, b)
            return X.division(rng.choice("/%"), a, b)
        if kind == "bit":
            return X.bitwise(
                rng.choice("&|^"), self.int_expr(scope, sub), self.int_expr(scope, sub)
            )
        if kind == "shift":
            return X.shift(
                rng.choice(("<<", ">>")), self.int_expr(scope, sub), self.int_expr(scope, sub)
            )
        if kind == "compare":
            op = rng.choice(("<", "<=", ">", ">=", "==", "!="))
            return X.compare(op, self.expr(scope, sub), self.expr(scope, sub))
        if kind == "logic":
            return X.compare(rng.choice(("&&", "||")), self.expr(scope, sub), self.expr(scope, sub))
        if kind == "unary":
            a = self.expr(scope, sub)
            op = rng.choice("-~!")
            if op == "!":
                return X.logical_not(a)
            if op == "~":
                return X.complement(
                    a if not a.type.is_float else X.float_to_int(a, self.int_type())
                )
            return X.negate(a)
        if kind == "cast":
            return X.cast(
                self.expr(scope, sub), rng.choice((INT, UINT, LONG, ULONG, FLOAT, DOUBLE))
            )
        if kind == "cond":
            return X.conditional(
                self.expr(scope, sub), self.expr(scope, sub), self.expr(scope, sub)
            )
        if kind == "minmax":
            return X.min_max(
                rng.choice(("min", "max")), self.expr(scope, sub), self.expr(scope, sub)
            )
        single = self.chance(0.5)
        if self.chance(0.3):
            name = rng.choice(X.MATH_BINARY)
            return X.math_call(name, [self.expr(scope, sub), self.expr(scope, sub)], single)
        return X.math_call(rng.choice(X.MATH_UNARY), [self.expr(scope, sub)], single)

    def leaf(self, scope: Scope) -> X.Expr:
        rng = self.rng
        r = rng.random()
        if r < 0.35:
            readable = [v for v in scope.vars]
            if readable:
                return rng.choice(readable).ref()
        if r < 0.75:
            e = self.read(scope)
            if e is not None:
                return e
        return self.constant()

    def read(self, scope: Scope) -> X.Expr | None:
        owned = (
            [] if scope.nest is None else [o for o in scope.nest.owned if self.accessible(scope, o)]
        )
        if owned and self.chance(0.25):
            return self.owned_load(self.rng.choice(owned))
        mine = {o.array.name for o in scope.nest.owned} if scope.nest is not None else set[str]()
        free = [a for a in self.arrays if a.name not in mine]
        if not free:
            return None
        return self.load(scope, self.rng.choice(free))

    def constant(self) -> X.Expr:
        rng = self.rng
        ctype = rng.choice((INT, INT, UINT, LONG, ULONG, FLOAT, DOUBLE))
        if ctype.is_float:
            value = rng.choice(
                (0.0, 0.5, 1.0, 2.0, -3.25, 1e-3, 1e10, round(rng.uniform(-4, 4), 3))
            )
            return X.const(ctype, float(ctype.dtype.type(value)))
        if self.chance(0.15):
            return X.const(ctype, rng.choice((ctype.hi, ctype.lo, ctype.hi // 2 + 1)))
        return X.const(ctype, rng.randint(0, 9) if not ctype.signed or self.chance(0.7) else
                       rng.randint(-9, -1))  # fmt: skip
