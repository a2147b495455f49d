"""IR generation: the analysed AST (sema.py) -> `func` + `scf` + `arith` + `math` + `memref`
(+ `agpu.parallel_for`), exactly as docs/ir.md describes the C level.

Nothing is rejected here: sema has checked everything. This module builds functions, variables
(SSA values or memref slots), statements and loops; expressions are `irgen_expr.py`'s.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from autogpu.dialects.agpu import LAST_ITERATION, ParallelForOp, YieldOp
from autogpu.dialects.signature import MAPS
from autogpu.frontend import ast
from autogpu.frontend.irgen_atomics import SynchronizationGen
from autogpu.frontend.irgen_expr import ExpressionGen, Val
from autogpu.frontend.irgen_reductions import ReductionGen
from autogpu.frontend.loops import CanonicalLoop
from autogpu.frontend.openmp import ParallelInfo, PrivateCopy
from autogpu.frontend.signatures import parameter
from autogpu.frontend.symbols import Function, Var
from autogpu.frontend.types import INT, LONG, UINT, ULONG, ArrayType, Scalar

_UNSIGNED = {INT: UINT, LONG: ULONG, UINT: UINT, ULONG: ULONG}


def generate(functions: list[Function], filename: str = "<input>") -> ModuleOp:
    return ModuleOp([FunctionGen(f, filename).run() for f in functions])


def memref_type(t: ArrayType) -> MemRefType:
    return MemRefType(t.element.ir, [DYNAMIC_INDEX])


class FunctionGen(ReductionGen, SynchronizationGen, ExpressionGen):
    def __init__(self, function: Function, filename: str = "<input>"):
        super().__init__(filename)
        self.function = function
        # (counter, upper bound, step) of each enclosing parallel loop, outermost first
        self.parallel_levels: list[tuple[Val, Val, Val]] = []
        self.first_values: dict[Var, Val] = {}  # firstprivate and lastprivate: read before

    # ---- the function -------------------------------------------------------------------------

    def run(self) -> func.FuncOp:
        with self.at(self.function.pos):
            return self.function_op()

    def function_op(self) -> func.FuncOp:
        fn = self.function
        types: list[Attribute] = []
        attrs: list[DictionaryAttr] = []
        for var in fn.params:
            types.append(memref_type(var.array) if var.is_array else var.scalar.ir)
            attrs.append(DictionaryAttr(self.arg_attrs(var)))
        self.block = Block(arg_types=types)
        self.entry_args = self.block.args
        for var, arg in zip(fn.params, self.block.args):
            arg.name_hint = var.name
            arg.location = self.loc(var.pos)
            if var.is_array:
                continue
            entry = Val(arg, var.scalar)
            self.args[var.name] = entry
            if var.needs_slot:
                with self.at(var.pos):
                    self.new_slot(var, entry)
            else:
                self.values[var] = entry
        self.statements(fn.body.items)
        self.emit(func.ReturnOp())
        function = func.FuncOp(
            fn.name, (types, []), Region(self.block), arg_attrs=ArrayAttr(attrs)
        )
        function.location = self.location
        if fn.maps:  # docs/ir.md, "Data mapping"
            function.attributes[MAPS] = DictionaryAttr(
                {name: StringAttr(kind) for name, kind in fn.maps.items()})
        _erase_unused_constants(function)
        return function

    def arg_attrs(self, var: Var) -> dict[str, Attribute]:
        return parameter(var).attributes()

    # ---- variables ----------------------------------------------------------------------------

    def new_slot(self, var: Var, init: Val | None) -> None:
        alloca = self.emit(memref.AllocaOp.get(var.scalar.ir, shape=[]), var.name)
        self.slots[var] = alloca.results[0]
        if init is not None:
            self.emit(memref.StoreOp.get(self.convert(init, var.scalar).ssa, alloca, []))

    def local_array(self, d: ast.InitDeclarator) -> None:
        """A local array: a flat `memref.alloca` of its constant size, indexed as parameters
        are (`i * n + j`); an initializer stores every element, zero where it gives none."""
        var = d.resolved_var
        t = var.array
        alloca = self.emit(memref.AllocaOp.get(t.element.ir, shape=[t.size]), var.name)
        self.slots[var] = alloca.results[0]
        if d.init is None:
            return
        given = dict(d.elements)
        for index in range(t.size):
            if index in given:
                with self.at(given[index].pos):
                    value = self.convert(self.expr(given[index]), t.element)
            else:
                value = self.constant(0, t.element)
            self.emit(memref.StoreOp.get(value.ssa, alloca, [self.index_constant(index)]))

    def index_constant(self, value: int) -> SSAValue:
        key = (self.block, ("index", value))
        if key not in self.reuse:
            op = arith.ConstantOp(IntegerAttr(value, IndexType()))
            self.reuse[key] = self.emit_constant(op, f"c{value}_index")
        return self.reuse[key]

    def read(self, var: Var) -> Val:
        if var in self.values:
            return self.values[var]
        return self.value(memref.LoadOp.get(self.slots[var], []), var.scalar, var.name)

    def write(self, var: Var, value: Val) -> None:
        self.emit(memref.StoreOp.get(self.convert(value, var.scalar).ssa, self.slots[var], []))

    # ---- statements ---------------------------------------------------------------------------

    def statements(self, items: list[ast.Stmt]) -> None:
        for item in items:
            self.statement(item)

    def statement(self, stmt: ast.Stmt) -> None:
        with self.at(stmt.pos):
            if stmt.sync is not None:
                self.synchronized(stmt, self._statement)
            else:
                self._statement(stmt)

    def _statement(self, stmt: ast.Stmt) -> None:
        if isinstance(stmt, ast.Block):
            self.statements(stmt.items)
        elif isinstance(stmt, ast.Decl):
            self.declaration(stmt)
        elif isinstance(stmt, ast.ExprStmt):
            if stmt.expr is not None:
                self.effect(stmt.expr)
        elif isinstance(stmt, ast.If):
            self.if_(stmt)
        elif isinstance(stmt, ast.While):
            self.while_(stmt.cond, stmt.body, None)
        elif isinstance(stmt, ast.DoWhile):
            self.do_while(stmt)
        elif isinstance(stmt, ast.For):
            self.for_(stmt)
        elif isinstance(stmt, ast.Return):
            pass  # the final `return;` (sema rejects any other)

    def declaration(self, decl: ast.Decl) -> None:
        for d in decl.declarators:
            with self.at(d.declarator.pos):
                self.declarator(d)

    def declarator(self, d: ast.InitDeclarator) -> None:
        """One declared variable: a slot, or the SSA value of its initializer (docs/ir.md)."""
        var = d.resolved_var
        if var.aliases is not None:  # `float *restrict p = A;`: p names A's memref
            if var.param_index is None:
                self.slots[var] = self.slots[var.aliases]
            return
        if var.is_array:
            self.local_array(d)
            return
        assert not isinstance(d.init, ast.BraceInit), "sema rejects braces around a scalar's"
        init = None if d.init is None else self.convert(self.expr(d.init), var.scalar)
        if var.needs_slot:
            self.new_slot(var, init)
        else:
            assert init is not None, "sema gives a variable declared without a value a slot"
            if init.const is not None:  # its own constant, named after the variable
                constant = init.ssa.owner
                assert isinstance(constant, arith.ConstantOp), "a known value is a constant"
                attr = arith.ConstantOp(constant.value)
                init = Val(self.emit(attr).results[0], init.ctype, init.const)
            if init.ssa.name_hint is None or init.const is not None:
                init.ssa.name_hint = var.name
            self.values[var] = init

    def effect(self, expr: ast.Expr) -> None:
        with self.at(expr.pos):
            self._effect(expr)

    def _effect(self, expr: ast.Expr) -> None:
        if isinstance(expr, ast.Assign):
            self.assign(expr)
        elif isinstance(expr, ast.IncDec):
            one = ast.IntLit(expr.pos, 1, INT, "1")
            one.ctype = INT
            assert expr.operand_type is not None, "sema types every ++ and --"
            self.update(expr.target, "+" if expr.op == "++" else "-", one, expr.operand_type)
        elif isinstance(expr, ast.Comma):
            for item in expr.items:
                self.effect(item)
        # Any other expression statement has no effect (sema typed it; nothing can trap).

    def assign(self, e: ast.Assign) -> None:
        if e.op == "=":
            value = self.expr(e.value)
            if isinstance(e.target, ast.Name):
                self.write(e.target.resolved_var, value)
            else:
                assert isinstance(e.target, ast.Index), "sema assigns names and elements only"
                array, index = self.element(e.target)
                converted = self.convert(value, e.target.scalar)
                self.emit(memref.StoreOp.get(converted.ssa, array, [index]))
            return
        assert e.operand_type is not None, "sema types every compound assignment"
        self.update(e.target, e.op[:-1], e.value, e.operand_type)

    def update(self, target: ast.Expr, op: str, rhs: ast.Expr, operand_type: Scalar) -> None:
        """`target op= rhs`: computed in `operand_type`, converted back to the target's type."""
        if isinstance(target, ast.Name):
            current = self.read(target.resolved_var)
            result = self.arith(op, current, self.expr(rhs), operand_type)
            self.write(target.resolved_var, result)
            return
        assert isinstance(target, ast.Index), "sema assigns names and elements only"
        array, index = self.element(target)
        current = self.value(memref.LoadOp.get(array, [index]), target.scalar)
        result = self.arith(op, current, self.expr(rhs), operand_type)
        converted = self.convert(result, target.scalar)
        self.emit(memref.StoreOp.get(converted.ssa, array, [index]))

    def if_(self, stmt: ast.If) -> None:
        cond = self.truth(self.expr(stmt.cond))
        then = self.region_of(lambda: self.statement(stmt.then), scf.YieldOp)
        otherwise = None
        if (other := stmt.otherwise) is not None:
            otherwise = self.region_of(lambda: self.statement(other), scf.YieldOp)
        self.emit(scf.IfOp(cond, [], then, otherwise))

    def while_(self, cond: ast.Expr | None, body: ast.Stmt, step: ast.Expr | None) -> None:
        def before():
            c = self.bool_constant(True) if cond is None else self.truth(self.expr(cond))
            self.emit(scf.ConditionOp(c))

        def after():
            self.statement(body)
            if step is not None:
                self.effect(step)

        self.emit(scf.WhileOp([], [], self.region_of(before), self.region_of(after, scf.YieldOp)))

    def do_while(self, stmt: ast.DoWhile) -> None:
        def before():
            self.statement(stmt.body)
            self.emit(scf.ConditionOp(self.truth(self.expr(stmt.cond))))

        self.emit(scf.WhileOp([], [], self.region_of(before), self.region_of(lambda: None,
                                                                              scf.YieldOp)))

    # ---- for loops ----------------------------------------------------------------------------

    def for_(self, loop: ast.For) -> None:
        canonical = loop.canonical
        if canonical is None:
            if isinstance(loop.init, ast.Decl):
                self.declaration(loop.init)
            elif loop.init.expr is not None:
                self.effect(loop.init.expr)
            self.while_(loop.cond, loop.body, loop.step)
            return
        var, t = canonical.var, canonical.var.scalar
        # scf.for compares signed. An `unsigned` loop counts in i64, where its zero-extended
        # bounds compare as C compares them, also across 2^31. A 64-bit loop, and every
        # decreasing loop, counts k = 0, 1, ... up to its trip count, computed without
        # overflow (`trip_count`), and takes i = start +- k * step: the threads of a kernel
        # beyond the last iteration then test k, whereas start + k * step could wrap past the
        # bound for them. Trip counts of 2^63 or more are beyond the model, so a 64-bit loop
        # from 0 by 1 (whose trip count is its bound) counts i itself.
        # A `_Bool`, `char` or `short` loop counts in `int`, where C compares it with the bound
        # (loops.py proved that it never wraps); the body sees it converted back.
        narrow = t.bits < 32
        lt = LONG if t in (UINT, ULONG) else INT if narrow else t
        if canonical.start is None:
            start = self.read(var)
        else:
            start = self.convert(self.expr(canonical.start), t)
        if canonical.declared_in_init and var.needs_slot:  # pragma: no cover - sema guarantee
            raise AssertionError("a canonical loop variable declared in its init has no slot")
        bound = self.convert(self.expr(canonical.bound), lt if narrow else t)
        # The type the bounds are compared and the trip counted in.
        ct = t if t == ULONG else lt
        if isinstance(canonical.step, int):
            step = self.constant(canonical.step, ct)
        else:
            step = self.convert(self.convert(self.expr(canonical.step), t), ct)
        counted = not canonical.increasing or (
            t.bits == 64 and not (start.const == 0 and step.const == 1)
        )
        span = self.modular_span(start, bound, canonical) if canonical.modular else None
        start = self.convert(start, ct)
        if span is None:
            bound = self.convert(bound, ct)
        if not counted:
            lb, ub = start, bound
            if canonical.inclusive:
                ub = self.arith("+", bound, self.constant(1, lt), lt, wraps=True)
            if span is not None:
                ub = self.arith("+", start, span, lt, wraps=True)
            trip = None
        else:
            lb = self.constant(0, lt)
            trip = span if span is not None else self.trip_count(start, bound, step, canonical)
            trip = self.convert(trip, ct)
            ub = self.convert(trip, lt)
        loop_step = step if not counted else self.constant(1, lt)

        parallel = loop.parallel
        if parallel is not None and not parallel.inner:
            self.firstprivate_before(parallel)

        def body(index: SSAValue):
            if parallel is not None:
                self.parallel_levels.append((Val(index, lt), ub, loop_step))
            i = Val(index, lt)
            if counted:
                k = self.convert(i, ct)
                offset = k if step.const == 1 else self.arith("*", k, step, ct, wraps=True)
                if canonical.increasing and start.const == 0:
                    i = offset
                else:
                    move = "+" if canonical.increasing else "-"
                    i = self.arith(move, start, offset, ct, wraps=True)
            i = self.convert(i, t)
            if i.ssa is not index:
                i.ssa.name_hint = var.name
            saved = self.values.get(var)
            self.values[var] = i
            if parallel is not None and parallel.collapse == 1:
                self.private_copies(parallel)
            self.statement(loop.body)
            if parallel is not None and parallel.collapse == 1:
                self.copy_out_last(parallel)
            if parallel is not None:
                self.parallel_levels.pop()
            if saved is None:
                del self.values[var]
            else:  # pragma: no cover - a variable is only ever one loop's variable at a time
                self.values[var] = saved

        name = f"{var.name}_k" if counted else var.name
        if lt.bits != t.bits and not counted:
            name = f"{var.name}_wide"
        if parallel is not None and not parallel.serial:
            reductions, sections = self.reduction_operands(parallel)
            region = self.region_of(body, YieldOp, [lt.ir], [name])
            op = ParallelForOp(lb.ssa, ub.ssa, loop_step.ssa, region, reductions, sections)
            for name, value in loop.launch_bounds.items():  # docs/ir.md
                op.attributes[f"agpu.{name}"] = (
                    IntegerAttr(value, i64) if isinstance(value, int) else StringAttr(value))
            self.emit(op)
        else:
            region = self.region_of(body, scf.YieldOp, [lt.ir], [name])
            self.emit(scf.ForOp(lb.ssa, ub.ssa, loop_step.ssa, [], region))
        if not canonical.declared_in_init:
            exit_value = self.exit_value(canonical, start, ub, step, trip)
            self.write(var, self.convert(exit_value, t))

    # ---- data-sharing clauses (data_sharing.py) ------------------------------------------------

    def firstprivate_before(self, parallel: ParallelInfo) -> None:
        """The original value of a variable both firstprivate and lastprivate, read before the
        loop: inside it, the last iteration may already have written it back."""
        for copy in parallel.copies:
            if copy.first and copy.last:
                self.first_values[copy.copy] = self.read(copy.original)

    def private_copies(self, parallel: ParallelInfo) -> None:
        """Each iteration's own variables, declared at the top of the innermost loop body."""
        for copy in parallel.copies:
            if copy.copy.is_array:
                with self.at(copy.original.pos):
                    self.private_array(copy)
                continue
            with self.at(copy.original.pos):
                init = self.first_values.get(copy.copy)
                if copy.first and init is None:
                    init = self.read(copy.original)
                if copy.copy.needs_slot:
                    self.new_slot(copy.copy, init)
                else:
                    assert init is not None, "a private copy not firstprivate has a slot"
                    self.values[copy.copy] = init

    def private_array(self, copy: PrivateCopy) -> None:
        """A local array's copy: an array of its size, uninitialised (private) or a copy of
        the original's elements, one by one in a loop (firstprivate)."""
        t = copy.copy.array
        alloca = self.emit(memref.AllocaOp.get(t.element.ir, shape=[t.size]), copy.copy.name)
        self.slots[copy.copy] = alloca.results[0]
        if not copy.first:
            return
        original = self.slots[copy.original]

        def copy_element(k: SSAValue) -> None:
            index = self.emit(arith.IndexCastOp(k, IndexType())).results[0]
            element = self.emit(memref.LoadOp.get(original, [index])).results[0]
            self.emit(memref.StoreOp.get(element, alloca, [index]))

        start, end = self.constant(0, INT), self.constant(t.size, INT)
        one = self.constant(1, INT)
        region = self.region_of(copy_element, scf.YieldOp, [INT.ir], [f"{copy.copy.name}_k"])
        self.emit(scf.ForOp(start.ssa, end.ssa, one.ssa, [], region))

    def copy_out_last(self, parallel: ParallelInfo) -> None:
        """lastprivate: `if (last iteration) original = copy;`, the store marked
        `agpu.last_iteration` (one iteration writes the shared variable, docs/ir.md). An
        iteration is the last of its loop when `ub - iv <= step` (unsigned: the true
        difference is in (0, 2^width) for every iteration that runs)."""
        last = [copy for copy in parallel.copies if copy.last]
        if not last:
            return
        with self.at(parallel.pragma_position):
            condition = None
            for index, ub, step in self.parallel_levels[-parallel.total :]:
                unsigned = _UNSIGNED[index.ctype]
                remaining = self.arith("-", ub, index, index.ctype, wraps=True)
                is_last = self.compare("<=", remaining, step, unsigned)
                if condition is not None:
                    is_last = self.emit(arith.AndIOp(condition, is_last)).results[0]
                condition = is_last

            def copy_back():
                for copy in last:
                    value = self.convert(self.read(copy.copy), copy.original.scalar)
                    store = self.emit(memref.StoreOp.get(value.ssa, self.slots[copy.original], []))
                    store.attributes[LAST_ITERATION] = UnitAttr()

            assert condition is not None, "a parallel loop is at least one level"
            self.emit(scf.IfOp(condition, [], self.region_of(copy_back, scf.YieldOp)))

    def modular_span(self, start: Val, bound: Val, c: CanonicalLoop) -> Val:
        """Iterations of an unsigned `!=` loop: the distance to the bound in the variable's
        own (wrapping) type, zero-extended to the counting type. A `char` or `short` one:
        `(d + 2^N) % 2^N` of the distance `d` in `int` (a launch size computes it; both ends
        are in the type's range, loops.py)."""
        if c.var.scalar.bits < 32:
            near, far = (start, bound) if c.increasing else (bound, start)
            near, far = self.convert(near, INT), self.convert(far, INT)
            modulus = self.constant(1 << c.var.scalar.bits, INT)
            distance = self.arith("-", far, near, INT)
            positive = self.arith("+", distance, modulus, INT)
            return self.convert(self.arith("%", positive, modulus, INT), LONG)
        if c.increasing:
            distance = self.arith("-", bound, start, start.ctype, wraps=True)
        else:
            distance = self.arith("-", start, bound, start.ctype, wraps=True)
        return self.convert(distance, LONG)

    def trip_count(self, start: Val, bound: Val, step: Val, c: CanonicalLoop) -> Val:
        """Iterations of a counted loop, in the type the bounds compare in. Unsigned, and
        64-bit increasing: ceil(d / step) in unsigned arithmetic for the distance
        d = far - min(near, far) (exact below 2^64 even where the signed difference
        overflows), zero when the loop does not run, with far one past the bound when
        inclusive; the launch description can compute it (it has min and ceildiv, not
        select). Signed decreasing: ceil((start - bound) / step), or (start - bound) / step + 1
        with >=, negative when the loop does not run (scf.for then runs it zero times)."""
        t = start.ctype
        near, far = (start, bound) if c.increasing else (bound, start)
        if not t.signed or c.increasing:
            if c.inclusive:
                far = self.arith("+", far, self.constant(1, t), t, wraps=True)
            if near.const is not None and far.const is not None:  # constant bounds: fold
                mask = (1 << t.bits) - 1
                distance = self.constant(max(int(far.const) - int(near.const), 0) & mask, t)
            elif near.const == 0 and not t.signed:  # min(0, far) is 0: the distance is far
                distance = far
            else:
                least = arith.MinSIOp if t.signed else arith.MinUIOp
                nearest = self.value(least(near.ssa, far.ssa), t)
                distance = self.arith("-", far, nearest, t, wraps=True)
            if step.const == 1:
                return distance
            if distance.const is not None and step.const is not None:
                return self.constant(-(-int(distance.const) // int(step.const)), t)
            return self.value(arith.CeilDivUIOp(distance.ssa, step.ssa), t)
        diff = self.arith("-", far, near, t, wraps=True)
        if c.inclusive:
            numerator = self.arith("+", diff, step, t, wraps=True)
        elif step.const == 1:
            numerator = diff
        else:
            bumped = self.arith("+", diff, step, t, wraps=True)
            numerator = self.arith("-", bumped, self.constant(1, t), t, wraps=True)
        return numerator if step.const == 1 else self.arith("/", numerator, step, t)

    def exit_value(self, c: CanonicalLoop, start: Val, ub: Val, step: Val, trip: Val | None):
        """The value C leaves in the loop variable when the loop ends."""
        t = start.ctype
        if trip is None:
            runs = self.compare("<", start, ub)
            if step.const == 1:
                return self.value(arith.SelectOp(runs, ub.ssa, start.ssa), t)
            span = self.arith("-", ub, start, t, wraps=True)
            bumped = self.arith("+", span, step, t, wraps=True)
            rounded = self.arith("-", bumped, self.constant(1, t), t, wraps=True)
            trip = self.arith("/", rounded, step, t)
            trip = self.value(arith.SelectOp(runs, trip.ssa, self.constant(0, t).ssa), t)
            advance = self.arith("*", trip, step, t, wraps=True)
            return self.arith("+", start, advance, t, wraps=True)
        if t.signed:  # a negative trip count runs zero times
            zero = self.constant(0, t)
            runs = self.compare(">", trip, zero)
            trip = self.value(arith.SelectOp(runs, trip.ssa, zero.ssa), t)
        offset = trip if step.const == 1 else self.arith("*", trip, step, t, wraps=True)
        return self.arith("+" if c.increasing else "-", start, offset, t, wraps=True)


def _erase_unused_constants(op: Operation) -> None:
    """Constants folded into others (a literal converted at compile time) leave unused
    `arith.constant`s behind; they would only clutter the IR."""
    for constant in [o for o in op.walk() if isinstance(o, arith.ConstantOp)]:
        if not constant.result.uses:
            constant.detach()
            constant.erase()
