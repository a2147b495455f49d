"""Translate C-level IR into Python source, one Python function per `func.func`.

Each op becomes one or a few lines of straight-line Python over the value representation of
`c_semantics` (signed-canonical ints, np.float32, Python float); `scf.for` and
`agpu.parallel_for` become Python `for` loops, `scf.while` a `while True` loop, `scf.if` an
`if`. Executing the generated code instead of walking the IR keeps the interpreter fast enough
to run whole kernels at test sizes (about a microsecond per op), and the generated source can
be printed (`CompiledModule.source`) to see exactly what an op means.

`agpu.parallel_for` runs its iterations sequentially, in order: one legal OpenMP schedule, and
the one gcc's serial build of the same C computes, so reductions simply update the shared slot.
"""

# reportPrivateUsage off for this file (a directive takes no comment on its line): the
# module-level _HANDLERS table and handler factories (_wrapping, ...) are _FunctionWriter's
# dispatch and call its protected methods by design.
# pyright: reportPrivateUsage=false

from __future__ import annotations

import keyword
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.arith import CMPF_COMPARISON_OPERATIONS, CMPI_COMPARISON_OPERATIONS
from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.traits import IsTerminator
from xdsl.utils.hints import isa

from autogpu.dialects.agpu_math import MathCallOp
from autogpu.interpreters import c_semantics as cs
from autogpu.interpreters.c_semantics import InterpreterError
from autogpu.passes.analysis.integers import bit_width
from autogpu.target.cuda_atomics import ATOMIC_KINDS

# Helpers the generated code calls, by the names it uses.
_HELPERS: dict[str, Any] = {
    "F32": cs.F32,
    "_np": np,
    "_divsi": cs.divsi,
    "_remsi": cs.remsi,
    "_divui": cs.divui,
    "_remui": cs.remui,
    "_floordivsi": cs.floordivsi,
    "_ceildivsi": cs.ceildivsi,
    "_ceildivui": cs.ceildivui,
    "_shift": cs.shift_amount,
    "_int_to_f32": cs.int_to_f32,
    "_fptosi": cs.fptosi,
    "_fptoui": cs.fptoui,
    "_divf64": cs.divf64,
    "_minimumf": cs.minimumf,
    "_maximumf": cs.maximumf,
    "_minui": cs.minui,
    "_maxui": cs.maxui,
    "_ipowi": cs.ipowi,
    "_ctlz": cs.ctlz,
    "_cttz": cs.cttz,
    "_ctpop": cs.ctpop,
    "_f32_bits": cs.bitcast_f32_to_int,
    "_bits_f32": cs.bitcast_int_to_f32,
    "_f64_bits": cs.bitcast_f64_to_int,
    "_bits_f64": cs.bitcast_int_to_f64,
    "_fminf": cs.FMINF,
    "_fmaxf": cs.FMAXF,
    "_fmin": cs.FMIN,
    "_fmax": cs.FMAX,
}

_CMPI = {
    "eq": "{a} == {b}",
    "ne": "{a} != {b}",
    "slt": "{a} < {b}",
    "sle": "{a} <= {b}",
    "sgt": "{a} > {b}",
    "sge": "{a} >= {b}",
    "ult": "({a} & {m}) < ({b} & {m})",
    "ule": "({a} & {m}) <= ({b} & {m})",
    "ugt": "({a} & {m}) > ({b} & {m})",
    "uge": "({a} & {m}) >= ({b} & {m})",
}

# Python's comparisons are IEEE's ordered ones (false on NaN) except `!=` (true on NaN).
_CMPF = {
    "false": "False",
    "oeq": "{a} == {b}",
    "ogt": "{a} > {b}",
    "oge": "{a} >= {b}",
    "olt": "{a} < {b}",
    "ole": "{a} <= {b}",
    "one": "({a} < {b} or {a} > {b})",
    "ord": "({a} == {a} and {b} == {b})",
    "ueq": "not ({a} < {b} or {a} > {b})",
    "ugt": "not ({a} <= {b})",
    "uge": "not ({a} < {b})",
    "ult": "not ({a} >= {b})",
    "ule": "not ({a} > {b})",
    "une": "{a} != {b}",
    "uno": "({a} != {a} or {b} != {b})",
    "true": "True",
}

_INT_DIVISIONS = {
    "arith.divsi": "_divsi",
    "arith.remsi": "_remsi",
    "arith.divui": "_divui",
    "arith.remui": "_remui",
    "arith.floordivsi": "_floordivsi",
    "arith.ceildivsi": "_ceildivsi",
    "arith.ceildivui": "_ceildivui",
}


def float_kind(type_: Attribute) -> str | None:
    if isinstance(type_, Float32Type):
        return "f32"
    if isinstance(type_, Float64Type):
        return "f64"
    return None


def check_scalar_type(type_: Attribute, where: str) -> None:
    if bit_width(type_) is None and float_kind(type_) is None:
        raise InterpreterError(f"{where}: unsupported type {type_} (integers, f32 and f64 only)")


def _wrap_expr(expr: str, width: int) -> str:
    if width == 1:
        return f"-(({expr}) & 1)"
    half = 1 << (width - 1)
    return f"((({expr}) + {half}) & {(1 << width) - 1}) - {half}"


def _identifier(hint: str | None) -> str:
    if not hint:
        return ""
    cleaned = re.sub(r"\W", "_", hint)
    return "_" + cleaned if not keyword.iskeyword(cleaned) else "_" + cleaned + "_"


@dataclass
class CompiledModule:
    """Python functions for the `func.func`s of a module, keyed by symbol name."""

    functions: dict[str, Callable[..., Any]]
    source: str


class _Site:
    """Names the op an error comes from; printed only when an error is raised (printing every
    op up front would dominate compile time)."""

    def __init__(self, op: Operation, function: str):
        self.op = op
        self.function = function

    def __str__(self) -> str:
        if self.op.regions:
            return f"'{self.op.name}' in @{self.function}"
        return f"'{str(self.op).strip()}' in @{self.function}"


class _FunctionWriter:
    """Emits the Python function for one `func.func`."""

    def __init__(
        self, function: func.FuncOp, namespace: dict[str, Any], python_names: dict[str, str]
    ):
        self.function = function
        self.fname = function.sym_name.data
        self.namespace = namespace
        self.python_names = python_names
        self.lines: list[str] = []
        self.depth = 1
        self.names: dict[SSAValue, str] = {}

    # --- names, constants, lines ------------------------------------------------------------

    def define(self, value: SSAValue) -> str:
        name = f"v{len(self.names)}{_identifier(value.name_hint)}"
        self.names[value] = name
        return name

    def use(self, value: SSAValue) -> str:
        try:
            return self.names[value]
        except KeyError:
            raise InterpreterError(
                f"@{self.fname}: value {value} used before it is defined"
            ) from None

    def bind(self, value: Any, prefix: str) -> str:
        """A module-level constant of the generated code (float literal, error site, ...)."""
        name = f"{prefix}{len(self.namespace)}"
        self.namespace[name] = value
        return name

    def site(self, op: Operation) -> str:
        return self.bind(_Site(op, self.fname), "S")

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def assign(self, targets: list[str], sources: list[str]) -> None:
        if targets:
            self.emit(f"{', '.join(targets)} = {', '.join(sources)}")

    def unsupported(self, op: Operation, why: str = "") -> InterpreterError:
        return InterpreterError(
            f"the interpreter does not support '{op.name}' (in @{self.fname})"
            + (f": {why}" if why else "; it executes the C-level IR (func, scf, arith, math, "
               "memref, agpu) only")
        )

    # --- structure ------------------------------------------------------------------------

    def write(self) -> list[str]:
        block = self._single_block(self.function.body, self.function)
        params = [self.define(arg) for arg in block.args]
        python_name = self.python_names[self.fname]
        header = f"def {python_name}({', '.join(params)}):"
        self._emit_block(block, self._terminator_return)
        return [header, *self.lines]

    def _single_block(self, region: Region, op: Operation) -> Block:
        if len(region.blocks) != 1:
            raise self.unsupported(op, "regions must have exactly one block (structured control "
                                   "flow only)")
        return region.blocks[0]

    def _emit_block(self, block: Block, on_terminator: Callable[[Operation], None]) -> None:
        before = len(self.lines)
        for op in block.ops:
            if op is block.last_op and op.has_trait(IsTerminator):
                on_terminator(op)
            else:
                self._emit_op(op)
        if len(self.lines) == before:
            self.emit("pass")

    def _nested(self, block: Block, on_terminator: Callable[[Operation], None]) -> None:
        self.depth += 1
        self._emit_block(block, on_terminator)
        self.depth -= 1

    def _terminator_return(self, op: Operation) -> None:
        if op.name != "func.return":
            raise self.unsupported(op)
        values = [self.use(v) for v in op.operands]
        if not values:
            self.emit("return")
        elif len(values) == 1:
            self.emit(f"return {values[0]}")
        else:
            self.emit(f"return ({', '.join(values)},)")

    def _assign_from_yield(self, targets: list[str], expected: str) -> Callable[[Operation], None]:
        def on_terminator(op: Operation) -> None:
            if op.name != expected:
                raise self.unsupported(op, f"expected '{expected}' as terminator here")
            self.assign(targets, [self.use(v) for v in op.operands])

        return on_terminator

    def _emit_op(self, op: Operation) -> None:
        handler = _HANDLERS.get(op.name)
        if handler is None:
            if op.name in cs.MATH_FUNCTIONS:
                handler = _FunctionWriter._math_libm
            else:
                raise self.unsupported(op)
        handler(self, op)

    # --- arith: integers -------------------------------------------------------------------

    def _int_operands(self, op: Operation) -> tuple[list[str], int]:
        width = bit_width(op.operands[0].type)
        if width is None:
            raise self.unsupported(op, f"operand type {op.operands[0].type}")
        return [self.use(v) for v in op.operands], width

    def _result(self, op: Operation, expr: str) -> None:
        self.emit(f"{self.define(op.results[0])} = {expr}")

    def _constant(self, op: Operation) -> None:
        value = op.properties.get("value")
        type_ = op.results[0].type
        if isinstance(value, IntegerAttr) and (width := bit_width(type_)) is not None:
            self._result(op, str(cs.wrap(value.value.data, width)))
        elif isinstance(value, FloatAttr) and (kind := float_kind(type_)) is not None:
            constant = cs.F32(value.value.data) if kind == "f32" else float(value.value.data)
            self._result(op, self.bind(constant, "K"))
        else:
            raise self.unsupported(op, f"constant {value} of type {type_}")

    def _int_division(self, op: Operation) -> None:
        (a, b), width = self._int_operands(op)
        self._result(op, f"{_INT_DIVISIONS[op.name]}({a}, {b}, {width}, {self.site(op)})")

    def _shli(self, op: Operation) -> None:
        (a, b), width = self._int_operands(op)
        self._result(op, _wrap_expr(f"{a} << _shift({b}, {width}, {self.site(op)})", width))

    def _shrsi(self, op: Operation) -> None:
        (a, b), width = self._int_operands(op)
        self._result(op, f"{a} >> _shift({b}, {width}, {self.site(op)})")

    def _shrui(self, op: Operation) -> None:
        (a, b), width = self._int_operands(op)
        mask = (1 << width) - 1
        shifted = f"({a} & {mask}) >> _shift({b}, {width}, {self.site(op)})"
        self._result(op, _wrap_expr(shifted, width))

    def _minmax_si(self, op: Operation) -> None:
        (a, b), _ = self._int_operands(op)
        cmp = "<=" if op.name == "arith.minsi" else ">="
        self._result(op, f"{a} if {a} {cmp} {b} else {b}")

    def _minmax_ui(self, op: Operation) -> None:
        (a, b), width = self._int_operands(op)
        helper = "_minui" if op.name == "arith.minui" else "_maxui"
        self._result(op, f"{helper}({a}, {b}, {width})")

    def _cmpi(self, op: Operation) -> None:
        (a, b), width = self._int_operands(op)
        predicate_attr = op.properties["predicate"]
        assert isinstance(predicate_attr, IntegerAttr)
        predicate = CMPI_COMPARISON_OPERATIONS[predicate_attr.value.data]
        test = _CMPI[predicate].format(a=a, b=b, m=(1 << width) - 1)
        self._result(op, f"-1 if {test} else 0")

    def _select(self, op: Operation) -> None:
        c, a, b = (self.use(v) for v in op.operands)
        self._result(op, f"{a} if {c} else {b}")

    # --- arith: conversions ----------------------------------------------------------------

    def _int_cast(self, op: Operation) -> None:
        """extsi/extui/trunci/index_cast between integer widths."""
        source, target = bit_width(op.operands[0].type), bit_width(op.results[0].type)
        if source is None or target is None:
            raise self.unsupported(op, f"{op.operands[0].type} -> {op.results[0].type}")
        a = self.use(op.operands[0])
        zero_extend = op.name == "arith.extui"
        if target > source:
            self._result(op, f"{a} & {(1 << source) - 1}" if zero_extend else a)
        elif target < source:
            self._result(op, _wrap_expr(a, target))
        else:
            self._result(op, a)

    def _int_to_float(self, op: Operation) -> None:
        width = bit_width(op.operands[0].type)
        kind = float_kind(op.results[0].type)
        if width is None or kind is None:
            raise self.unsupported(op, f"{op.operands[0].type} -> {op.results[0].type}")
        a = self.use(op.operands[0])
        if op.name == "arith.uitofp":
            a = f"({a} & {(1 << width) - 1})"
        self._result(op, f"_int_to_f32({a})" if kind == "f32" else f"float({a})")

    def _float_to_int(self, op: Operation) -> None:
        width = bit_width(op.results[0].type)
        if width is None or float_kind(op.operands[0].type) is None:
            raise self.unsupported(op, f"{op.operands[0].type} -> {op.results[0].type}")
        helper = "_fptosi" if op.name == "arith.fptosi" else "_fptoui"
        self._result(op, f"{helper}({self.use(op.operands[0])}, {width})")

    def _float_cast(self, op: Operation) -> None:
        kind = float_kind(op.results[0].type)
        if kind is None or float_kind(op.operands[0].type) is None:
            raise self.unsupported(op, f"{op.operands[0].type} -> {op.results[0].type}")
        a = self.use(op.operands[0])
        self._result(op, f"F32({a})" if kind == "f32" else f"float({a})")

    def _bitcast(self, op: Operation) -> None:
        source, target = op.operands[0].type, op.results[0].type
        a = self.use(op.operands[0])
        conversions: dict[tuple[str | int | None, str | int | None], str] = {
            ("f32", 32): "_f32_bits({a})",
            ("f64", 64): "_f64_bits({a})",
            (32, "f32"): "_bits_f32({a})",
            (64, "f64"): "_bits_f64({a})",
        }
        key = (float_kind(source) or bit_width(source), float_kind(target) or bit_width(target))
        if key[0] == key[1] and key[0] is not None:
            self._result(op, a)
        elif key in conversions:
            self._result(op, conversions[key].format(a=a))
        else:
            raise self.unsupported(op, f"{source} -> {target}")

    # --- arith: floats ---------------------------------------------------------------------

    def _float_operands(self, op: Operation) -> tuple[list[str], str]:
        kind = float_kind(op.operands[0].type)
        if kind is None:
            raise self.unsupported(op, f"operand type {op.operands[0].type}")
        return [self.use(v) for v in op.operands], kind

    def _divf(self, op: Operation) -> None:
        (a, b), kind = self._float_operands(op)
        self._result(op, f"{a} / {b}" if kind == "f32" else f"_divf64({a}, {b})")

    def _negf(self, op: Operation) -> None:
        (a,), _ = self._float_operands(op)
        self._result(op, f"-{a}")

    def _cmpf(self, op: Operation) -> None:
        (a, b), _ = self._float_operands(op)
        predicate_attr = op.properties["predicate"]
        assert isinstance(predicate_attr, IntegerAttr)
        predicate = CMPF_COMPARISON_OPERATIONS[predicate_attr.value.data]
        self._result(op, f"-1 if {_CMPF[predicate].format(a=a, b=b)} else 0")

    def _minmax_f(self, op: Operation) -> None:
        (a, b), kind = self._float_operands(op)
        helper = {
            "arith.minnumf": "_fmin",
            "arith.maxnumf": "_fmax",
            "arith.minimumf": "_minimumf",
            "arith.maximumf": "_maximumf",
        }[op.name]
        if kind == "f32" and op.name.endswith("numf"):
            helper += "f"
        self._result(op, f"{helper}({a}, {b})")

    # --- math ------------------------------------------------------------------------------

    def _math_libm(self, op: Operation) -> None:
        operands, kind = self._float_operands(op)
        c_name, _ = cs.MATH_FUNCTIONS[op.name]
        function = cs.libm_function(c_name, len(operands), single=kind == "f32")
        self._result(op, f"{self.bind(function, 'LIBM_' + c_name + '_')}({', '.join(operands)})")

    def _library_call(self, op: Operation) -> None:
        assert isinstance(op, MathCallOp)
        function = cs.libm_call(op.facts, op.single)
        name = self.bind(function, "LIBM_" + op.facts.c_name(op.single) + "_")
        self._result(op, f"{name}({', '.join(self.use(v) for v in op.operands)})")

    def _absf(self, op: Operation) -> None:
        (a,), _ = self._float_operands(op)
        self._result(op, f"abs({a})")

    def _fpowi(self, op: Operation) -> None:
        kind = float_kind(op.operands[0].type)
        if kind is None:
            raise self.unsupported(op, f"operand type {op.operands[0].type}")
        function = cs.libm_function("pow", 2, single=kind == "f32")
        a, b = (self.use(v) for v in op.operands)
        self._result(op, f"{self.bind(function, 'LIBM_pow_')}({a}, float({b}))")

    def _int_math(self, op: Operation) -> None:
        operands, width = self._int_operands(op)
        a = operands[0]
        if op.name == "math.absi":
            self._result(op, _wrap_expr(f"abs({a})", width))
        elif op.name == "math.ipowi":
            self._result(op, f"_ipowi({a}, {operands[1]}, {width})")
        else:
            self._result(op, f"_{op.name.removeprefix('math.')}({a}, {width})")

    # --- memref ----------------------------------------------------------------------------

    def _memref_type(self, op: Operation, value: SSAValue) -> MemRefType:
        type_ = value.type
        if not isa(type_, MemRefType) or len(type_.get_shape()) > 1:
            raise self.unsupported(op, f"memref type {type_} (rank 0 and 1 only)")
        check_scalar_type(type_.element_type, f"@{self.fname}")
        return type_

    def _alloca(self, op: Operation) -> None:
        type_ = self._memref_type(op, op.results[0])
        element = type_.element_type
        zero = "F32(0)" if float_kind(element) == "f32" else (
            "0.0" if float_kind(element) == "f64" else "0"
        )
        shape = type_.get_shape()
        if not shape:
            size = "1"
        elif shape[0] >= 0:
            size = str(shape[0])
        else:
            size = self.use(op.operands[0])
            message = f"'%s: negative size %d' % ({self.site(op)}, {size})"
            self.emit(f"if {size} < 0: raise _Error({message})")
        self._result(op, f"[{zero}] * {size}")

    def _load_expr(self, element: Attribute, ref: str, index: str) -> str:
        if float_kind(element) == "f32":
            return f"{ref}[{index}]"
        if float_kind(element) == "f64":
            return f"float({ref}[{index}])"
        if bit_width(element) == 1:
            return f"(-1 if {ref}[{index}] else 0)"
        return f"int({ref}[{index}])"

    def _checked_index(self, op: Operation, ref: str, index_value: SSAValue | None) -> str:
        if index_value is None:
            return "0"
        index = self.use(index_value)
        return f"{index} if 0 <= {index} < len({ref}) else _oob({index}, {ref}, {self.site(op)})"

    def _load(self, op: Operation) -> None:
        memref_value, *indices = op.operands
        type_ = self._memref_type(op, memref_value)
        ref = self.use(memref_value)
        index = self._checked_index(op, ref, indices[0] if indices else None)
        self._result(op, self._load_expr(type_.element_type, ref, index))

    def _store(self, op: Operation) -> None:
        value, memref_value, *indices = op.operands
        self._memref_type(op, memref_value)
        ref = self.use(memref_value)
        index = self._checked_index(op, ref, indices[0] if indices else None)
        self.emit(f"{ref}[{index}] = {self.use(value)}")

    def _no_op(self, op: Operation) -> None:
        pass

    # --- atomics and critical sections (one thread: they are their plain C meaning) ---------

    def _atomic_rmw(self, op: Operation) -> None:
        value, memref_value, *indices = op.operands
        type_ = self._memref_type(op, memref_value)
        kind_attr = op.properties["kind"]
        assert isinstance(kind_attr, IntegerAttr)
        kind = ATOMIC_KINDS[kind_attr.value.data]
        ref, index = self._atomic_location(op, memref_value, indices)
        old = self.define(op.results[0])
        self.emit(f"{old} = {self._load_expr(type_.element_type, ref, index)}")
        v = self.use(value)
        new = {"addf": f"{old} + {v}", "mulf": f"{old} * {v}", "assign": v,
               "andi": f"{old} & {v}", "ori": f"{old} | {v}", "xori": f"{old} ^ {v}"}.get(kind)
        if kind in ("addi", "muli"):
            symbol = "+" if kind == "addi" else "*"
            width = bit_width(type_.element_type)
            assert width is not None  # addi and muli act on integers
            new = _wrap_expr(f"{old} {symbol} {v}", width)
        if new is None:
            raise self.unsupported(op, f"atomic kind {kind}")
        self.emit(f"{ref}[{index}] = {new}")

    def _atomic_update(self, op: Operation) -> None:
        memref_value, *indices = op.operands
        type_ = self._memref_type(op, memref_value)
        ref, index = self._atomic_location(op, memref_value, indices)
        old = self.define(op.results[0])
        self.emit(f"{old} = {self._load_expr(type_.element_type, ref, index)}")
        block = self._single_block(op.regions[0], op)
        self.names[block.args[0]] = old

        def store(terminator: Operation) -> None:
            self.emit(f"{ref}[{index}] = {self.use(terminator.operands[0])}")

        self._emit_block(block, store)

    def _atomic_location(
        self, op: Operation, memref_value: SSAValue, indices: list[SSAValue]
    ) -> tuple[str, str]:
        ref = self.use(memref_value)
        index = self.define(op.results[0]) + "_index"
        self.emit(f"{index} = {self._checked_index(op, ref, indices[0] if indices else None)}")
        return ref, index

    def _critical(self, op: Operation) -> None:
        self._emit_block(self._single_block(op.regions[0], op), lambda terminator: None)

    # --- func ------------------------------------------------------------------------------

    def _call(self, op: Operation) -> None:
        callee_attr = op.properties["callee"]
        assert isinstance(callee_attr, SymbolRefAttr)
        callee = callee_attr.string_value()
        if callee not in self.python_names:
            raise self.unsupported(op, f"callee @{callee} is not a function defined in the module")
        call = f"{self.python_names[callee]}({', '.join(self.use(v) for v in op.operands)})"
        results = [self.define(r) for r in op.results]
        if not results:
            self.emit(call)
        elif len(results) == 1:
            self.emit(f"{results[0]} = {call}")
        else:
            self.emit(f"{', '.join(results)}, = {call}")

    # --- loops and conditionals ------------------------------------------------------------

    def _positive_step(self, op: Operation, step_value: SSAValue) -> None:
        owner = step_value.owner
        if isinstance(owner, Operation) and owner.name == "arith.constant":
            constant = owner.properties.get("value")
            if isinstance(constant, IntegerAttr) and constant.value.data > 0:
                return
        step = self.use(step_value)
        message = f"'%s: non-positive step %d' % ({self.site(op)}, {step})"
        self.emit(f"if {step} <= 0: raise _Error({message})")

    def _for(self, op: Operation) -> None:
        """scf.for and agpu.parallel_for: lb, ub, step, then loop-carried values (scf.for)."""
        lb_value, ub_value, step_value = op.operands[:3]
        lb, ub, step = (self.use(v) for v in (lb_value, ub_value, step_value))
        self._positive_step(op, step_value)
        block = self._single_block(op.regions[0], op)
        iv, *carried_args = block.args
        if op.name == "agpu.parallel_for":
            carried_inits: list[SSAValue] = []
            carried_args = []
        else:
            carried_inits = list(op.operands[3:])
        carried = [self.define(a) for a in carried_args]
        self.assign(carried, [self.use(v) for v in carried_inits])
        self.emit(f"for {self.define(iv)} in range({lb}, {ub}, {step}):")
        if op.name == "agpu.parallel_for":
            self._nested(block, self._assign_from_yield([], "agpu.yield"))
        else:
            self._nested(block, self._assign_from_yield(carried, "scf.yield"))
        self.assign([self.define(r) for r in op.results], carried)

    def _while(self, op: Operation) -> None:
        before = self._single_block(op.regions[0], op)
        after = self._single_block(op.regions[1], op)
        before_args = [self.define(a) for a in before.args]
        self.assign(before_args, [self.use(v) for v in op.operands])
        results = [self.define(r) for r in op.results]
        after_args = [self.define(a) for a in after.args]

        def on_condition(terminator: Operation) -> None:
            if terminator.name != "scf.condition":
                raise self.unsupported(terminator, "expected 'scf.condition' here")
            condition, *forwarded = (self.use(v) for v in terminator.operands)
            self.emit(f"if not {condition}:")
            self.depth += 1
            self.assign(results, forwarded)
            self.emit("break")
            self.depth -= 1
            self.assign(after_args, forwarded)

        self.emit("while True:")
        self.depth += 1
        self._emit_block(before, on_condition)
        self._emit_block(after, self._assign_from_yield(before_args, "scf.yield"))
        self.depth -= 1

    def _if(self, op: Operation) -> None:
        results = [self.define(r) for r in op.results]
        self.emit(f"if {self.use(op.operands[0])}:")
        self._nested(self._single_block(op.regions[0], op),
                     self._assign_from_yield(results, "scf.yield"))
        if op.regions[1].blocks:
            self.emit("else:")
            self._nested(self._single_block(op.regions[1], op),
                         self._assign_from_yield(results, "scf.yield"))
        elif results:
            raise self.unsupported(op, "an scf.if with results needs an else region")

    def _execute_region(self, op: Operation) -> None:
        results = [self.define(r) for r in op.results]
        block = self._single_block(op.regions[0], op)
        self._emit_block(block, self._assign_from_yield(results, "scf.yield"))


def _wrapping(symbol: str) -> Callable[[_FunctionWriter, Operation], None]:
    """addi/subi/muli: exact in Python, then wrapped to the width."""

    def handler(self: _FunctionWriter, op: Operation) -> None:
        (a, b), width = self._int_operands(op)
        self._result(op, _wrap_expr(f"{a} {symbol} {b}", width))

    return handler


def _bitwise(symbol: str) -> Callable[[_FunctionWriter, Operation], None]:
    def handler(self: _FunctionWriter, op: Operation) -> None:
        (a, b), _ = self._int_operands(op)
        self._result(op, f"{a} {symbol} {b}")  # preserves signed canonical form

    return handler


def _float_binary(symbol: str) -> Callable[[_FunctionWriter, Operation], None]:
    def handler(self: _FunctionWriter, op: Operation) -> None:
        (a, b), _ = self._float_operands(op)
        self._result(op, f"{a} {symbol} {b}")  # np.float32 or float: rounds per op

    return handler


W = _FunctionWriter
_HANDLERS: dict[str, Callable[[_FunctionWriter, Operation], None]] = {
    "arith.constant": W._constant,
    "arith.addi": _wrapping("+"),
    "arith.subi": _wrapping("-"),
    "arith.muli": _wrapping("*"),
    "arith.andi": _bitwise("&"),
    "arith.ori": _bitwise("|"),
    "arith.xori": _bitwise("^"),
    **{name: W._int_division for name in _INT_DIVISIONS},
    "arith.shli": W._shli,
    "arith.shrsi": W._shrsi,
    "arith.shrui": W._shrui,
    "arith.minsi": W._minmax_si,
    "arith.maxsi": W._minmax_si,
    "arith.minui": W._minmax_ui,
    "arith.maxui": W._minmax_ui,
    "arith.cmpi": W._cmpi,
    "arith.select": W._select,
    "arith.extsi": W._int_cast,
    "arith.extui": W._int_cast,
    "arith.trunci": W._int_cast,
    "arith.index_cast": W._int_cast,
    "arith.sitofp": W._int_to_float,
    "arith.uitofp": W._int_to_float,
    "arith.fptosi": W._float_to_int,
    "arith.fptoui": W._float_to_int,
    "arith.extf": W._float_cast,
    "arith.truncf": W._float_cast,
    "arith.bitcast": W._bitcast,
    "arith.addf": _float_binary("+"),
    "arith.subf": _float_binary("-"),
    "arith.mulf": _float_binary("*"),
    "arith.divf": W._divf,
    "arith.negf": W._negf,
    "arith.cmpf": W._cmpf,
    "arith.minnumf": W._minmax_f,
    "arith.maxnumf": W._minmax_f,
    "arith.minimumf": W._minmax_f,
    "arith.maximumf": W._minmax_f,
    "math.absf": W._absf,
    "agpu.math_call": W._library_call,
    "math.fpowi": W._fpowi,
    "math.absi": W._int_math,
    "math.ipowi": W._int_math,
    "math.ctlz": W._int_math,
    "math.cttz": W._int_math,
    "math.ctpop": W._int_math,
    "memref.alloca": W._alloca,
    "memref.alloc": W._alloca,
    "memref.dealloc": W._no_op,
    "memref.load": W._load,
    "memref.store": W._store,
    "memref.atomic_rmw": W._atomic_rmw,
    "agpu.atomic_update": W._atomic_update,
    "agpu.critical": W._critical,
    "func.call": W._call,
    "scf.for": W._for,
    "agpu.parallel_for": W._for,
    "scf.while": W._while,
    "scf.if": W._if,
    "scf.execute_region": W._execute_region,
}


def _raise_out_of_bounds(index: int, ref: Any, site: str) -> int:
    raise cs.OutOfBoundsError(
        f"{site}: index {index} out of bounds for a memref of {len(ref)} elements"
    )


def reachable_functions(module: ModuleOp, root: str) -> list[func.FuncOp]:
    """`root` and the functions it calls, transitively (other functions may hold ops the
    interpreter does not run, e.g. GPU-level ones)."""
    functions = {
        op.sym_name.data: op for op in module.body.block.ops if isinstance(op, func.FuncOp)
    }
    if root not in functions:
        raise InterpreterError(
            f"no func.func @{root} in the module (functions: "
            f"{', '.join('@' + n for n in functions) or 'none'})"
        )
    order: list[func.FuncOp] = []
    pending = [root]
    seen = {root}
    while pending:
        function = functions[pending.pop()]
        if not function.body.blocks:
            raise InterpreterError(f"@{function.sym_name.data} is a declaration without a body")
        order.append(function)
        for op in function.walk():
            if isinstance(op, func.CallOp):
                callee = op.callee.string_value()
                if callee in functions and callee not in seen:
                    seen.add(callee)
                    pending.append(callee)
    return order


def compile_module(module: ModuleOp, root: str) -> CompiledModule:
    """Python functions for `@root` and its callees."""
    functions = reachable_functions(module, root)
    python_names = {
        f.sym_name.data: f"F{i}{_identifier(f.sym_name.data)}" for i, f in enumerate(functions)
    }
    namespace: dict[str, Any] = dict(_HELPERS)
    namespace["_oob"] = _raise_out_of_bounds
    namespace["_Error"] = cs.UndefinedBehaviorError
    source_lines: list[str] = []
    for function in functions:
        source_lines += _FunctionWriter(function, namespace, python_names).write()
        source_lines.append("")
    source = "\n".join(source_lines)
    exec(compile(source, f"<autogpu interpreter: @{root}>", "exec"), namespace)
    return CompiledModule(
        {name: namespace[python] for name, python in python_names.items()}, source
    )
