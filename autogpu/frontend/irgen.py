"""IR generation: the analysed AST (sema.py) -> `func` + `scf` + `arith` + `math` + `memref`
(+ `agpu.parallel_for`), exactly as docs/ir.md describes the C level.

Nothing is rejected here: sema has checked everything. Each C value is a `Val`: an SSA value
with its C type, where a C `int` that holds a comparison result stays an `i1` until it is used
as a number (then `extui`), so conditions read naturally.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from xdsl.dialects import arith, func, math, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i1,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from autogpu.dialects.agpu import ParallelForOp, YieldOp
from autogpu.frontend import ast
from autogpu.frontend.consteval import fold_binary
from autogpu.frontend.expressions import MATH_FUNCTIONS
from autogpu.frontend.loops import CanonicalLoop
from autogpu.frontend.symbols import Function, Var, walk_expr
from autogpu.frontend.types import (
    INT,
    LONG,
    UINT,
    ArrayType,
    Scalar,
    fold_convert,
    ir_int_value,
    max_value,
    promote,
    usual_arithmetic,
    wrap,
)


@dataclass(frozen=True)
class Val:
    ssa: SSAValue
    ctype: Scalar
    const: int | float | None = None  # known value, for folding

    @property
    def is_bool(self) -> bool:
        return self.ssa.type == i1


_INT_OPS = {"+": arith.AddiOp, "-": arith.SubiOp, "*": arith.MuliOp, "&": arith.AndIOp,
            "|": arith.OrIOp, "^": arith.XOrIOp, "<<": arith.ShLIOp}  # fmt: skip
_SIGNED_OPS = {"/": (arith.DivSIOp, arith.DivUIOp), "%": (arith.RemSIOp, arith.RemUIOp),
               ">>": (arith.ShRSIOp, arith.ShRUIOp)}  # fmt: skip
_FLOAT_OPS = {"+": arith.AddfOp, "-": arith.SubfOp, "*": arith.MulfOp, "/": arith.DivfOp}
_INT_PREDICATES = {"==": ("eq", "eq"), "!=": ("ne", "ne"), "<": ("slt", "ult"),
                   "<=": ("sle", "ule"), ">": ("sgt", "ugt"), ">=": ("sge", "uge")}  # fmt: skip
_FLOAT_PREDICATES = {"==": "oeq", "!=": "une", "<": "olt", "<=": "ole", ">": "ogt", ">=": "oge"}
_MATH_OPS = {"sqrt": math.SqrtOp, "exp": math.ExpOp, "log": math.LogOp, "fabs": math.AbsFOp,
             "sin": math.SinOp, "cos": math.CosOp, "floor": math.FloorOp, "ceil": math.CeilOp,
             "pow": math.PowFOp, "fmin": arith.MinnumfOp, "fmax": arith.MaxnumfOp}  # fmt: skip
_MIN_MAX = {"min": (arith.MinSIOp, arith.MinUIOp, arith.MinnumfOp),
            "max": (arith.MaxSIOp, arith.MaxUIOp, arith.MaxnumfOp)}  # fmt: skip


def generate(functions: list[Function]) -> ModuleOp:
    return ModuleOp([FunctionGen(f).run() for f in functions])


def memref_type(t: ArrayType) -> MemRefType:
    return MemRefType(t.element.ir, [DYNAMIC_INDEX])


class FunctionGen:
    def __init__(self, function: Function):
        self.function = function
        self.block = Block()
        self.values: dict[Var, Val] = {}  # SSA variables (and loop variables in their loop)
        self.slots: dict[Var, SSAValue] = {}
        self.args: dict[str, Val] = {}  # parameters' entry values (array extents use them)
        # Constants and index casts already emitted in a block, reused later in that same
        # block only, so that every region stays self-contained.
        self.reuse: dict[tuple[Block, object], Val | SSAValue] = {}
        self.last_constant: dict[Block, Operation] = {}

    # ---- emission helpers ---------------------------------------------------------------------

    def emit(self, op: Operation, name: str | None = None) -> Operation:
        self.block.add_op(op)
        if name is not None and op.results:
            op.results[0].name_hint = name
        return op

    def value(self, op: Operation, ctype: Scalar, name: str | None = None) -> Val:
        return Val(self.emit(op, name).results[0], ctype)

    @contextmanager
    def into(self, block: Block) -> Iterator[Block]:
        saved, self.block = self.block, block
        try:
            yield block
        finally:
            self.block = saved

    def constant(self, value: int | float, ctype: Scalar) -> Val:
        if ctype.is_float:
            value = float(value)
            attr = FloatAttr(value, ctype.ir)
            name = "cst"
            key = (self.block, (ctype.ir, struct.pack("<d", value)))  # tells -0.0 from 0.0
        else:
            value = wrap(int(value), ctype)
            attr = IntegerAttr(ir_int_value(value, ctype), ctype.ir)
            name = f"c{value}" if value >= 0 else f"cm{-value}"
            key = (self.block, (ctype.ir, ir_int_value(value, ctype)))
        if key not in self.reuse:
            self.reuse[key] = self.emit_constant(arith.ConstantOp(attr), name)
        return Val(self.reuse[key], ctype, value)

    def bool_constant(self, value: bool) -> SSAValue:
        key = (self.block, bool(value))
        if key not in self.reuse:
            self.reuse[key] = self.emit_constant(arith.ConstantOp(IntegerAttr(int(value), i1)))
        return self.reuse[key]

    def emit_constant(self, op: arith.ConstantOp, name: str | None = None) -> SSAValue:
        """Constants go to the top of their block, in order, where they read like MLIR's."""
        last = self.last_constant.get(self.block)
        if last is not None:
            self.block.insert_op_after(op, last)
        elif self.block.first_op is not None:
            self.block.insert_op_before(op, self.block.first_op)
        else:
            self.block.add_op(op)
        self.last_constant[self.block] = op
        op.result.name_hint = name
        return op.result

    def index_cast(self, v: Val) -> SSAValue:
        key = (self.block, v.ssa)
        if key not in self.reuse:
            self.reuse[key] = self.emit(arith.IndexCastOp(v.ssa, IndexType())).results[0]
        return self.reuse[key]

    # ---- the function -------------------------------------------------------------------------

    def run(self) -> func.FuncOp:
        fn = self.function
        types: list[Attribute] = []
        attrs: list[DictionaryAttr] = []
        for var in fn.params:
            types.append(memref_type(var.type) if var.is_array else var.type.ir)
            attrs.append(DictionaryAttr(self.arg_attrs(var)))
        self.block = Block(arg_types=types)
        self.entry_args = self.block.args
        for var, arg in zip(fn.params, self.block.args):
            arg.name_hint = var.name
            if var.is_array:
                continue
            entry = Val(arg, var.type)
            self.args[var.name] = entry
            if var.needs_slot:
                self.new_slot(var, entry)
            else:
                self.values[var] = entry
        self.statements(fn.body.items)
        self.emit(func.ReturnOp())
        function = func.FuncOp(
            fn.name, (types, []), Region(self.block), arg_attrs=ArrayAttr(attrs)
        )
        _erase_unused_constants(function)
        return function

    def arg_attrs(self, var: Var) -> dict[str, Attribute]:
        attrs: dict[str, Attribute] = {
            "agpu.name": StringAttr(var.name),
            "agpu.ctype": StringAttr(var.spelling),
        }
        t = var.type
        if (var.const if not isinstance(t, ArrayType) else t.const):
            attrs["agpu.const"] = UnitAttr()
        if isinstance(t, ArrayType):
            if t.restrict:
                attrs["agpu.restrict"] = UnitAttr()
            if t.dims > 1 or t.extents[0] is not None:
                attrs["agpu.extents"] = ArrayAttr(
                    StringAttr("?" if e is None else str(e)) for e in t.extents
                )
        return attrs

    # ---- variables ----------------------------------------------------------------------------

    def new_slot(self, var: Var, init: Val | None) -> None:
        alloca = self.emit(memref.AllocaOp.get(var.type.ir, shape=[]), var.name)
        self.slots[var] = alloca.results[0]
        if init is not None:
            self.emit(memref.StoreOp.get(self.convert(init, var.type).ssa, alloca, []))

    def read(self, var: Var) -> Val:
        if var in self.values:
            return self.values[var]
        return self.value(memref.LoadOp.get(self.slots[var], []), var.type, var.name)

    def write(self, var: Var, value: Val) -> None:
        self.emit(memref.StoreOp.get(self.convert(value, var.type).ssa, self.slots[var], []))

    # ---- statements ---------------------------------------------------------------------------

    def statements(self, items: list[ast.Stmt]) -> None:
        for item in items:
            self.statement(item)

    def statement(self, stmt: ast.Stmt) -> None:
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
            var = d.var
            init = None if d.init is None else self.convert(self.expr(d.init), var.type)
            if var.needs_slot:
                self.new_slot(var, init)
            else:
                if init.const is not None:  # its own constant, named after the variable
                    attr = arith.ConstantOp(init.ssa.owner.value)
                    init = Val(self.emit(attr).results[0], init.ctype, init.const)
                if init.ssa.name_hint is None or init.const is not None:
                    init.ssa.name_hint = var.name
                self.values[var] = init

    def effect(self, expr: ast.Expr) -> None:
        if isinstance(expr, ast.Assign):
            self.assign(expr)
        elif isinstance(expr, ast.IncDec):
            one = ast.IntLit(expr.pos, 1, INT, "1")
            one.ctype = INT
            self.update(expr.target, "+" if expr.op == "++" else "-", one, expr.operand_type)
        elif isinstance(expr, ast.Comma):
            for item in expr.items:
                self.effect(item)
        # Any other expression statement has no effect (sema typed it; nothing can trap).

    def assign(self, e: ast.Assign) -> None:
        if e.op == "=":
            value = self.expr(e.value)
            if isinstance(e.target, ast.Name):
                self.write(e.target.var, value)
            else:
                array, index = self.element(e.target)
                converted = self.convert(value, e.target.ctype)
                self.emit(memref.StoreOp.get(converted.ssa, array, [index]))
            return
        self.update(e.target, e.op[:-1], e.value, e.operand_type)

    def update(self, target: ast.Expr, op: str, rhs: ast.Expr, operand_type: Scalar) -> None:
        """`target op= rhs`: computed in `operand_type`, converted back to the target's type."""
        if isinstance(target, ast.Name):
            current = self.read(target.var)
            result = self.arith(op, current, self.expr(rhs), operand_type)
            self.write(target.var, result)
            return
        array, index = self.element(target)
        current = self.value(memref.LoadOp.get(array, [index]), target.ctype)
        result = self.arith(op, current, self.expr(rhs), operand_type)
        converted = self.convert(result, target.ctype)
        self.emit(memref.StoreOp.get(converted.ssa, array, [index]))

    def if_(self, stmt: ast.If) -> None:
        cond = self.truth(self.expr(stmt.cond))
        then = self.region_of(lambda: self.statement(stmt.then), scf.YieldOp)
        otherwise = None
        if stmt.otherwise is not None:
            otherwise = self.region_of(lambda: self.statement(stmt.otherwise), scf.YieldOp)
        self.emit(scf.IfOp(cond, [], then, otherwise))

    def region_of(self, body, terminator=None, arg_types=(), arg_names=()) -> Region:
        block = Block(arg_types=arg_types)
        for arg, name in zip(block.args, arg_names):
            arg.name_hint = name
        with self.into(block):
            body(*block.args) if arg_types else body()
            if terminator is not None:
                self.emit(terminator())
        return Region(block)

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
        var, t = canonical.var, canonical.var.type
        # scf.for compares signed: an `unsigned` loop counts in i64, where its zero-extended
        # bounds compare as C compares them, also across 2^31.
        lt = LONG if t == UINT else t
        if canonical.start is None:
            start = self.read(var)
        else:
            start = self.convert(self.expr(canonical.start), t)
        if canonical.declared_in_init and var.needs_slot:  # pragma: no cover - sema guarantee
            raise AssertionError("a canonical loop variable declared in its init has no slot")
        bound = self.convert(self.expr(canonical.bound), t)
        if isinstance(canonical.step, int):
            step = self.constant(canonical.step, lt)
        else:
            step = self.convert(self.convert(self.expr(canonical.step), t), lt)
        start, bound = self.convert(start, lt), self.convert(bound, lt)
        if canonical.increasing:
            lb, ub = start, bound
            if canonical.inclusive:
                ub = self.arith("+", bound, self.constant(1, lt), lt)
            trip = None
        else:
            lb, ub = self.constant(0, lt), self.trip_count(start, bound, step, canonical)
            trip = ub
        loop_step = step if canonical.increasing else self.constant(1, lt)

        def body(index: SSAValue):
            i = Val(index, lt)
            if not canonical.increasing:
                offset = i if step.const == 1 else self.arith("*", i, step, lt)
                i = self.arith("-", start, offset, lt)
            i = self.convert(i, t)
            if i.ssa is not index:
                i.ssa.name_hint = var.name
            saved = self.values.get(var)
            self.values[var] = i
            self.statement(loop.body)
            if saved is None:
                del self.values[var]
            else:  # pragma: no cover - a variable is only ever one loop's variable at a time
                self.values[var] = saved

        name = f"{var.name}_k" if not canonical.increasing else var.name
        if lt != t and canonical.increasing:
            name = f"{var.name}_wide"
        if loop.parallel is not None:
            reductions = [(kind, self.slots[v]) for kind, v in loop.parallel.reductions]
            region = self.region_of(body, YieldOp, [lt.ir], [name])
            self.emit(ParallelForOp(lb.ssa, ub.ssa, loop_step.ssa, region, reductions))
        else:
            region = self.region_of(body, scf.YieldOp, [lt.ir], [name])
            self.emit(scf.ForOp(lb.ssa, ub.ssa, loop_step.ssa, [], region))
        if not canonical.declared_in_init:
            exit_value = self.exit_value(canonical, start, ub, step, trip)
            self.write(var, self.convert(exit_value, t))

    def trip_count(self, start: Val, bound: Val, step: Val, c: CanonicalLoop) -> Val:
        """Iterations of a decreasing loop: ceil((start - bound) / step), or
        (start - bound) / step + 1 with >=; zero when the loop does not run at all."""
        t = start.ctype
        diff = self.arith("-", start, bound, t)
        if c.inclusive:
            numerator = self.arith("+", diff, step, t)
        elif step.const == 1:
            numerator = diff
        else:
            numerator = self.arith("-", self.arith("+", diff, step, t), self.constant(1, t), t)
        trip = numerator if step.const == 1 else self.arith("/", numerator, step, t)
        if t.signed:
            return trip  # negative when the loop does not run: scf.for runs it zero times
        runs = self.compare(">=" if c.inclusive else ">", start, bound)
        return self.value(arith.SelectOp(runs, trip.ssa, self.constant(0, t).ssa), t)

    def exit_value(self, c: CanonicalLoop, start: Val, ub: Val, step: Val, trip: Val | None):
        """The value C leaves in the loop variable when the loop ends."""
        t = start.ctype
        if c.increasing:
            runs = self.compare("<", start, ub)
            if step.const == 1:
                return self.value(arith.SelectOp(runs, ub.ssa, start.ssa), t)
            span = self.arith("-", ub, start, t)
            rounded = self.arith("-", self.arith("+", span, step, t), self.constant(1, t), t)
            trip = self.arith("/", rounded, step, t)
            trip = self.value(arith.SelectOp(runs, trip.ssa, self.constant(0, t).ssa), t)
            return self.arith("+", start, self.arith("*", trip, step, t), t)
        zero = self.constant(0, t)
        runs = self.compare(">", trip, zero) if t.signed else self.compare("!=", trip, zero)
        trip = self.value(arith.SelectOp(runs, trip.ssa, zero.ssa), t)
        offset = trip if step.const == 1 else self.arith("*", trip, step, t)
        return self.arith("-", start, offset, t)

    # ---- expressions --------------------------------------------------------------------------

    def expr(self, e: ast.Expr) -> Val:
        if isinstance(e, ast.IntLit):
            return self.constant(e.value, e.type)
        if isinstance(e, ast.FloatLit):
            return self.constant(e.value, e.type)
        if isinstance(e, ast.Name):
            return self.read(e.var)
        if isinstance(e, ast.Index):
            array, index = self.element(e)
            return self.value(memref.LoadOp.get(array, [index]), e.ctype)
        if isinstance(e, ast.Call):
            return self.call(e)
        if isinstance(e, ast.Unary):
            return self.unary(e)
        if isinstance(e, ast.Binary):
            return self.binary(e)
        if isinstance(e, ast.Conditional):
            return self.conditional(e)
        if isinstance(e, ast.Cast):
            return self.convert(self.expr(e.operand), e.ctype)
        raise AssertionError(f"sema let an unexpected expression through: {e}")

    def element(self, e: ast.Index) -> tuple[SSAValue, SSAValue]:
        """The memref and flat `index` of `A[i]` / `A[i][j]` (row-major: i * n + j)."""
        indices = []
        base: ast.Expr = e
        while isinstance(base, ast.Index):
            indices.insert(0, base.index)
            base = base.base
        var: Var = base.var
        array = self.block_arg(var)
        flat = self.expr(indices[0])
        for extent, index in zip(var.type.extents[1:], indices[1:]):
            if isinstance(extent, str):
                size = self.args[extent]
            else:
                size = self.constant(extent, INT if extent <= max_value(INT) else LONG)
            flat = self.arith("*", flat, size, None)
            flat = self.arith("+", flat, self.expr(index), None)
        return array, self.index_cast(self.as_number(flat))

    def block_arg(self, var: Var) -> SSAValue:
        return self.entry_args[var.param_index]

    def unary(self, e: ast.Unary) -> Val:
        operand = self.expr(e.operand)
        if e.op == "!":
            if operand.is_bool:
                return self.value(arith.XOrIOp(operand.ssa, self.bool_constant(True)), INT)
            if operand.ctype.is_float:
                zero = self.constant(0.0, operand.ctype)
                return self.value(arith.CmpfOp(operand.ssa, zero.ssa, "oeq"), INT)
            zero = self.constant(0, operand.ctype)
            return self.value(arith.CmpiOp(operand.ssa, zero.ssa, "eq"), INT)
        t = promote(operand.ctype)
        operand = self.convert(operand, t)
        if e.op == "+":
            return operand
        if e.op == "-":
            if operand.const is not None:
                return self.constant(-operand.const, t)
            if t.is_float:
                return self.value(arith.NegfOp(operand.ssa), t)
            return self.arith("-", self.constant(0, t), operand, t)
        return self.arith("^", operand, self.constant(-1, t), t)  # ~x

    def binary(self, e: ast.Binary) -> Val:
        if e.op in ("&&", "||"):
            return self.logical(e)
        lhs, rhs = self.expr(e.lhs), self.expr(e.rhs)
        if e.op in _INT_PREDICATES:
            return Val(self.compare(e.op, lhs, rhs, e.operand_type), INT)
        return self.arith(e.op, lhs, rhs, e.operand_type)

    def arith(self, op: str, lhs: Val, rhs: Val, t: Scalar | None) -> Val:
        """`lhs op rhs` in type `t` (None: the usual arithmetic conversions; shifts: the
        promoted left operand's type)."""
        if t is None:
            t = usual_arithmetic(lhs.ctype, rhs.ctype)
        lhs = self.convert(lhs, t)
        rhs = self.convert(rhs, t)  # a shift count converted to the shifted type: same value
        if t.is_int and lhs.const is not None and rhs.const is not None:
            folded = fold_binary(op, int(lhs.const), int(rhs.const), t)
            if folded is not None:
                return self.constant(folded, t)
        if t.is_float:
            return self.value(_FLOAT_OPS[op](lhs.ssa, rhs.ssa), t)
        if op in _SIGNED_OPS:
            signed_op, unsigned_op = _SIGNED_OPS[op]
            return self.value((signed_op if t.signed else unsigned_op)(lhs.ssa, rhs.ssa), t)
        return self.value(_INT_OPS[op](lhs.ssa, rhs.ssa), t)

    def compare(self, op: str, lhs: Val, rhs: Val, t: Scalar | None = None) -> SSAValue:
        t = t or usual_arithmetic(lhs.ctype, rhs.ctype)
        lhs, rhs = self.convert(lhs, t), self.convert(rhs, t)
        if t.is_float:
            return self.emit(arith.CmpfOp(lhs.ssa, rhs.ssa, _FLOAT_PREDICATES[op])).results[0]
        predicate = _INT_PREDICATES[op][0 if t.signed else 1]
        return self.emit(arith.CmpiOp(lhs.ssa, rhs.ssa, predicate)).results[0]

    def logical(self, e: ast.Binary) -> Val:
        lhs = self.truth(self.expr(e.lhs))
        if not _may_trap(e.rhs):
            rhs = self.truth(self.expr(e.rhs))
            op = arith.AndIOp if e.op == "&&" else arith.OrIOp
            return self.value(op(lhs, rhs), INT)

        def evaluate_rhs():
            self.emit(scf.YieldOp(self.truth(self.expr(e.rhs))))

        def short_circuit():
            self.emit(scf.YieldOp(self.bool_constant(e.op == "||")))

        if e.op == "&&":
            regions = self.region_of(evaluate_rhs), self.region_of(short_circuit)
        else:
            regions = self.region_of(short_circuit), self.region_of(evaluate_rhs)
        return self.value(scf.IfOp(lhs, [i1], *regions), INT)

    def conditional(self, e: ast.Conditional) -> Val:
        cond = self.truth(self.expr(e.cond))
        t: Scalar = e.ctype
        if not _may_trap(e.then) and not _may_trap(e.otherwise):
            then = self.convert(self.expr(e.then), t)
            otherwise = self.convert(self.expr(e.otherwise), t)
            return self.value(arith.SelectOp(cond, then.ssa, otherwise.ssa), t)

        def branch(expr: ast.Expr):
            return lambda: self.emit(scf.YieldOp(self.convert(self.expr(expr), t).ssa))

        op = scf.IfOp(cond, [t.ir], self.region_of(branch(e.then)),
                      self.region_of(branch(e.otherwise)))  # fmt: skip
        return self.value(op, t)

    def call(self, e: ast.Call) -> Val:
        name = e.callee.name
        params, result = MATH_FUNCTIONS[name]
        if name in _MIN_MAX:
            t: Scalar = e.ctype
            a, b = (self.convert(self.expr(arg), t) for arg in e.args)
            signed_op, unsigned_op, float_op = _MIN_MAX[name]
            op = float_op if t.is_float else signed_op if t.signed else unsigned_op
            return self.value(op(a.ssa, b.ssa), t)
        args = [self.convert(self.expr(a), p) for a, p in zip(e.args, params)]
        op_class = _MATH_OPS[name.removesuffix("f") if name not in _MATH_OPS else name]
        return self.value(op_class(*(a.ssa for a in args)), result)

    # ---- conversions --------------------------------------------------------------------------

    def truth(self, v: Val) -> SSAValue:
        """A C scalar as a condition (non-zero is true; NaN is true)."""
        if v.is_bool:
            return v.ssa
        if v.ctype.is_float:
            zero = self.constant(0.0, v.ctype)
            return self.emit(arith.CmpfOp(v.ssa, zero.ssa, "une")).results[0]
        zero = self.constant(0, v.ctype)
        return self.emit(arith.CmpiOp(v.ssa, zero.ssa, "ne")).results[0]

    def as_number(self, v: Val) -> Val:
        """An `i1` comparison result as the C `int` 0 or 1."""
        if v.is_bool:
            return self.value(arith.ExtUIOp(v.ssa, INT.ir), INT)
        return v

    def convert(self, v: Val, to: Scalar) -> Val:
        """C's conversion of a value to type `to` (assignment, casts, usual conversions)."""
        v = self.as_number(v)
        source = v.ctype
        if source == to:
            return v
        if v.const is not None:
            folded = fold_convert(v.const, source, to)
            if folded is not None:
                return self.constant(folded, to)
        if source.is_int and to.is_int:
            if source.bits == to.bits:
                return Val(v.ssa, to, v.const)
            if source.bits < to.bits:
                op = arith.ExtSIOp if source.signed else arith.ExtUIOp
                return self.value(op(v.ssa, to.ir), to)
            return self.value(arith.TruncIOp(v.ssa, to.ir), to)
        if source.is_int:
            op = arith.SIToFPOp if source.signed else arith.UIToFPOp
            return self.value(op(v.ssa, to.ir), to)
        if to.is_int:
            op = arith.FPToSIOp if to.signed else arith.FPToUIOp
            return self.value(op(v.ssa, to.ir), to)
        op = arith.ExtFOp if to.bits > source.bits else arith.TruncFOp
        return self.value(op(v.ssa, to.ir), to)


def _may_trap(expr: ast.Expr) -> bool:
    """Whether evaluating `expr` when C would not could fault: an array read (out of bounds
    behind a guard) or an integer division (by zero behind a guard)."""
    for node in walk_expr(expr):
        if isinstance(node, ast.Index):
            return True
        if isinstance(node, ast.Binary) and node.op in ("/", "%"):
            if node.operand_type is not None and node.operand_type.is_int:
                return True
    return False


def _erase_unused_constants(op: Operation) -> None:
    """Constants folded into others (a literal converted at compile time) leave unused
    `arith.constant`s behind; they would only clutter the IR."""
    for constant in [o for o in op.walk() if isinstance(o, arith.ConstantOp)]:
        if not constant.result.uses:
            constant.detach()
            constant.erase()
