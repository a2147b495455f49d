"""Expressions to IR: C's operators, conversions and math functions on typed values.

`Emitter` places ops (constants at the top of their block, reused there; index casts reused)
and gives each the location of the C construct being translated (`at`), and `ExpressionGen`
turns typed expressions (sema.py) into arith/math/memref ops. Each C value
is a `Val`: an SSA value with its C type, where a C `int` that holds a comparison result stays
an `i1` until it is used as a number (then `extui`), so conditions read naturally.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Generator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from xdsl.dialects import arith, math, memref, scf
from xdsl.dialects.builtin import (
    UNKNOWN_LOC,
    FileLineColLoc,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    LocationAttr,
    StringAttr,
    i1,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue

from autogpu.dialects import agpu_math, c_math
from autogpu.frontend import ast
from autogpu.frontend.consteval import fold_binary
from autogpu.frontend.expressions import MATH_FUNCTIONS
from autogpu.frontend.symbols import Var, walk_expr
from autogpu.frontend.types import (
    DOUBLE,
    FLOAT,
    INT,
    LONG,
    ULONG,
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


_INT_OPS: dict[str, Callable[..., Operation]] = {
            "+": arith.AddiOp, "-": arith.SubiOp, "*": arith.MuliOp, "&": arith.AndIOp,
            "|": arith.OrIOp, "^": arith.XOrIOp, "<<": arith.ShLIOp}  # fmt: skip
# `+ - * <<` in a signed C type: overflow is undefined in C, so the op carries `overflow<nsw>`
# (docs/ir.md, "Integer overflow"); in an unsigned type C wraps, as the flagless op does.
_NSW = arith.IntegerOverflowAttr([arith.IntegerOverflowFlag.NSW])
_MAY_OVERFLOW = ("+", "-", "*", "<<")
_SIGNED_OPS = {"/": (arith.DivSIOp, arith.DivUIOp), "%": (arith.RemSIOp, arith.RemUIOp),
               ">>": (arith.ShRSIOp, arith.ShRUIOp)}  # fmt: skip
_FLOAT_OPS = {"+": arith.AddfOp, "-": arith.SubfOp, "*": arith.MulfOp, "/": arith.DivfOp}
_INT_PREDICATES = {"==": ("eq", "eq"), "!=": ("ne", "ne"), "<": ("slt", "ult"),
                   "<=": ("sle", "ule"), ">": ("sgt", "ugt"), ">=": ("sge", "uge")}  # fmt: skip
_FLOAT_PREDICATES = {"==": "oeq", "!=": "une", "<": "olt", "<=": "ole", ">": "ogt", ">=": "oge"}
# The `math`/`arith` op of each name the table of <math.h> gives (dialects/c_math.py).
_MATH_OPS: dict[str, Callable[..., Operation]] = {
    op.name: op for op in (*math.Math.operations, arith.MinnumfOp, arith.MaxnumfOp)}
_MIN_MAX = {"min": (arith.MinSIOp, arith.MinUIOp, arith.MinnumfOp),
            "max": (arith.MaxSIOp, arith.MaxUIOp, arith.MaxnumfOp)}  # fmt: skip


class Emitter:
    """Where ops go, and the values a function's code shares (see FunctionGen)."""

    def __init__(self, filename: str = "<input>"):
        self.filename = StringAttr(filename)
        self.location: LocationAttr = UNKNOWN_LOC  # of the C construct being translated
        self.locations: dict[ast.Pos, FileLineColLoc] = {}
        self.block = Block()
        self.values: dict[Var, Val] = {}  # SSA variables (and loop variables in their loop)
        self.slots: dict[Var, SSAValue] = {}
        self.args: dict[str, Val] = {}  # parameters' entry values (array extents use them)
        self.reading_entry = False  # names read `args` (`ExpressionGen.at_entry`)
        # Constants and index casts already emitted in a block, reused later in that same
        # block only, so that every region stays self-contained.
        self.reuse: dict[tuple[Block, object] | tuple[Block, SSAValue, bool], SSAValue] = {}
        self.last_constant: dict[Block, Operation] = {}

    def loc(self, pos: ast.Pos) -> FileLineColLoc:
        """The location of `pos`, one attribute per position (many ops share it)."""
        if pos not in self.locations:
            self.locations[pos] = FileLineColLoc(self.filename, IntAttr(pos[0]), IntAttr(pos[1]))
        return self.locations[pos]

    @contextmanager
    def at(self, pos: ast.Pos) -> Generator[None]:
        """Ops emitted inside get the location of the C construct at `pos` (docs/ir.md)."""
        saved = self.location
        self.location = self.loc(pos)
        try:
            yield
        finally:
            self.location = saved

    def emit(self, op: Operation, name: str | None = None) -> Operation:
        op.location = self.location
        self.block.add_op(op)
        if name is not None and op.results:
            op.results[0].name_hint = name
        return op

    def value(self, op: Operation, ctype: Scalar, name: str | None = None) -> Val:
        return Val(self.emit(op, name).results[0], ctype)

    @contextmanager
    def into(self, block: Block) -> Generator[Block]:
        saved, self.block = self.block, block
        try:
            yield block
        finally:
            self.block = saved

    def constant(self, value: int | float, ctype: Scalar) -> Val:
        if ctype.is_int and ctype.is_bool:
            return Val(self.bool_constant(value != 0), ctype, int(value != 0))
        if ctype.is_float:
            value = float(value)
            attr = FloatAttr(value, ctype.float_ir)
            name = "cst"
            key = (self.block, (ctype.ir, struct.pack("<d", value)))  # tells -0.0 from 0.0
        else:
            value = wrap(int(value), ctype)
            attr = IntegerAttr(ir_int_value(value, ctype), ctype.int_ir)
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
        op.location = self.location
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
        """`v` as a memref index: C's `a[e]` reads element `(ptrdiff_t)e` of a signed `e`
        (`index_cast` sign-extends) and `(size_t)e` of an unsigned one, so a 32-bit unsigned
        `e` is zero-extended to i64 first (docs/ir.md, "Arrays are flat")."""
        key = (self.block, v.ssa, v.ctype.signed)
        if key not in self.reuse:
            value = v.ssa
            if not v.ctype.signed and v.ctype.bits < ULONG.bits:
                value = self.emit(arith.ExtUIOp(value, ULONG.int_ir)).results[0]
            self.reuse[key] = self.emit(arith.IndexCastOp(value, IndexType())).results[0]
        return self.reuse[key]

    def region_of(self, body: Callable[..., object],
                  terminator: Callable[[], Operation] | None = None,
                  arg_types: Sequence[Attribute] = (), arg_names: Sequence[str] = ()) -> Region:
        block = Block(arg_types=arg_types)
        for arg, name in zip(block.args, arg_names):
            arg.name_hint = name
        with self.into(block):
            body(*block.args) if arg_types else body()
            if terminator is not None:
                self.emit(terminator())
        return Region(block)


class FunctionHooks(Protocol):
    """What `ExpressionGen` reads from `irgen.FunctionGen`: variables and the entry block."""

    entry_args: tuple[BlockArgument, ...]

    def read(self, var: Var) -> Val: ...

    def write(self, var: Var, value: Val) -> None: ...


class ExpressionGen(Emitter, FunctionHooks):
    """Expressions and conversions; variables are read through FunctionGen (`FunctionHooks`)."""

    def expr(self, e: ast.Expr) -> Val:
        with self.at(e.pos):
            return self._expr(e)

    def _expr(self, e: ast.Expr) -> Val:
        if isinstance(e, ast.IntLit):
            return self.constant(e.value, e.type)
        if isinstance(e, ast.FloatLit):
            return self.constant(e.value, e.type)
        if isinstance(e, ast.Name):
            return self.args[e.name] if self.reading_entry else self.read(e.resolved_var)
        if isinstance(e, ast.Index):
            array, index = self.element(e)
            return self.value(memref.LoadOp.get(array, [index]), e.scalar)
        if isinstance(e, ast.Call):
            return self.call(e)
        if isinstance(e, ast.Unary):
            return self.unary(e)
        if isinstance(e, ast.Binary):
            return self.binary(e)
        if isinstance(e, ast.Conditional):
            return self.conditional(e)
        if isinstance(e, ast.Cast):
            return self.convert(self.expr(e.operand), e.scalar)
        raise AssertionError(f"sema let an unexpected expression through: {e}")

    def element(self, e: ast.Index) -> tuple[SSAValue, SSAValue]:
        """The memref and flat `index` of `A[i]` / `A[i][j]` (row-major: i * n + j)."""
        indices: list[ast.Expr] = []
        base: ast.Expr = e
        while isinstance(base, ast.Index):
            indices.insert(0, base.index)
            base = base.base
        assert isinstance(base, ast.Name), "sema indexes arrays by name only"
        var = base.resolved_var
        t = var.array
        array = self.block_arg(var)
        flat = self.expr(indices[0])
        # `A[i][j]` is `*(*(A + i) + j)`: C scales each subscript as pointer arithmetic does,
        # in `ptrdiff_t`, so the row-major offset `i * n + j` is computed in `long` (with
        # `nsw`: an address fits `ptrdiff_t`) whatever the subscripts' type; an `int i` on an
        # array of 2^31 or more elements is valid C (docs/ir.md). One subscript `A[i]` is
        # converted as C converts it, by `index_cast` below.
        wide = LONG if len(indices) > 1 else None
        expressions = t.expressions or (None,) * t.dims
        for extent, expression, index in zip(t.extents[1:], expressions[1:], indices[1:]):
            if expression is not None:
                size = self.at_entry(expression)
            elif isinstance(extent, str):
                size = self.args[extent]
            else:
                assert extent is not None, "only the first extent may be left out"
                size = self.constant(extent, INT if extent <= max_value(INT) else LONG)
            flat = self.arith("*", flat, size, wide)
            flat = self.arith("+", flat, self.expr(index), wide)
        return array, self.index_cast(self.as_number(flat))

    def at_entry(self, e: ast.Expr) -> Val:
        """`e`, an extent of parameters, with each parameter's value at function entry (C
        evaluates array parameter extents there)."""
        saved, self.reading_entry = self.reading_entry, True
        try:
            return self.expr(e)
        finally:
            self.reading_entry = saved

    def block_arg(self, var: Var) -> SSAValue:
        """The memref of an array: a parameter's block argument, a local array's alloca."""
        if var.param_index is None:
            return self.slots[var]
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

    def arith(self, op: str, lhs: Val, rhs: Val, t: Scalar | None, *, wraps: bool = False) -> Val:
        """`lhs op rhs` in type `t` (None: the usual arithmetic conversions; shifts: the
        promoted left operand's type). C's own `+ - * <<` on a signed type get `nsw`; the
        frontend's arithmetic with no such C operation behind it (loop trip counts, ...)
        passes `wraps=True` and gets no flag."""
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
        if op in _MAY_OVERFLOW:
            overflow = _NSW if t.signed and not wraps else arith.IntegerOverflowAttr("none")
            return self.value(_INT_OPS[op](lhs.ssa, rhs.ssa, overflow=overflow), t)
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
        t = e.scalar
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
        assert isinstance(e.callee, ast.Name), "sema calls functions by name only"
        name = e.callee.name
        params, result = MATH_FUNCTIONS[name]
        if name in _MIN_MAX:
            t = e.scalar
            a, b = (self.convert(self.expr(arg), t) for arg in e.args)
            signed_op, unsigned_op, float_op = _MIN_MAX[name]
            op = float_op if t.is_float else signed_op if t.signed else unsigned_op
            return self.value(op(a.ssa, b.ssa), t)
        if name in c_math.CLASSIFICATION:
            return self.classify(name, self.expr(e.args[0]))
        # Only min, max (above) and the classifications take arguments of any type.
        assert result is not None, f"{name} has a result type"
        args: list[Val] = []
        for a, p in zip(e.args, params):
            assert p is not None, f"{name} has parameter types"
            args.append(self.convert(self.expr(a), p))
        if name in c_math.INTEGER_ABS:
            return self.value(math.AbsIOp(args[0].ssa), result)
        found = c_math.lookup(name)
        assert found is not None, f"{name} is in the table of <math.h> (MATH_FUNCTIONS)"
        function, single = found
        floating = FLOAT if single else DOUBLE
        if function.op is None:
            return self.value(agpu_math.MathCallOp(function.name, [a.ssa for a in args],
                                                   result.ir), result)  # fmt: skip
        value = self.value(_MATH_OPS[function.op](*(a.ssa for a in args)), floating)
        return self.convert(value, result)  # lround: the rounded value as a long

    def classify(self, name: str, x: Val) -> Val:
        """`isnan`, `isinf`, `isfinite`, `signbit` of `x` (an integer `x` as a double) with the
        values gcc gives them on x86-64 (C promises only zero or not): `isinf` is -1 for
        -infinity, `signbit` the sign bit in place on a float (INT_MIN) and 1 on a double."""
        x = self.convert(x, x.ctype if x.ctype.is_float else DOUBLE)
        if name == "isnan":  # NaN is unordered with itself
            return self.value(arith.CmpfOp(x.ssa, x.ssa, "uno"), INT)
        if name == "signbit":
            if x.ctype.bits == 32:
                bits = self.value(arith.BitcastOp(x.ssa, INT.ir), INT)
                return self.arith("&", bits, self.constant(-(1 << 31), INT), INT)
            bits = self.value(arith.BitcastOp(x.ssa, ULONG.ir), ULONG)
            return self.convert(self.arith(">>", bits, self.constant(63, ULONG), ULONG), INT)
        infinity = self.constant(float("inf"), x.ctype)
        if name == "isfinite":  # |x| < inf, false for NaN
            magnitude = self.value(math.AbsFOp(x.ssa), x.ctype)
            return self.value(arith.CmpfOp(magnitude.ssa, infinity.ssa, "olt"), INT)
        negative = self.value(arith.NegfOp(infinity.ssa), x.ctype)
        is_positive = self.emit(arith.CmpfOp(x.ssa, infinity.ssa, "oeq")).results[0]
        is_negative = self.emit(arith.CmpfOp(x.ssa, negative.ssa, "oeq")).results[0]
        sign = arith.SelectOp(is_negative, self.constant(-1, INT).ssa, self.constant(0, INT).ssa)
        inner = self.value(sign, INT)
        return self.value(arith.SelectOp(is_positive, self.constant(1, INT).ssa, inner.ssa), INT)

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
            return self.value(arith.ExtUIOp(v.ssa, INT.int_ir), INT)
        return v

    def convert(self, v: Val, to: Scalar) -> Val:
        """C's conversion of a value to type `to` (assignment, casts, usual conversions)."""
        if to.is_int and to.is_bool:  # (_Bool)x is x != 0, also for floats (NaN gives 1)
            if v.ctype == to:
                return v
            if v.const is not None:
                return self.constant(v.const != 0, to)
            return Val(self.truth(v), to)
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
                return self.value(op(v.ssa, to.int_ir), to)
            return self.value(arith.TruncIOp(v.ssa, to.int_ir), to)
        if source.is_int:
            op = arith.SIToFPOp if source.signed else arith.UIToFPOp
            return self.value(op(v.ssa, to.float_ir), to)
        if to.is_int:
            op = arith.FPToSIOp if to.signed else arith.FPToUIOp
            return self.value(op(v.ssa, to.int_ir), to)
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
