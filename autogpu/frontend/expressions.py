"""Typing C expressions with C's rules (`types.py`), and rejecting what the subset leaves out.

A mixin of `Sema`: it uses the analyser's scopes (`lookup`), its error and warning reporting and
its record of writes (`assigned`, `stored`).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol

from autogpu.diagnostics import CompileError
from autogpu.dialects import c_math
from autogpu.frontend import ast
from autogpu.frontend.consteval import const_int, undefined_operation
from autogpu.frontend.symbols import Var, array_var, describe
from autogpu.frontend.types import (
    DOUBLE,
    FLOAT,
    INT,
    LONG,
    ArrayType,
    CType,
    RowType,
    Scalar,
    promote,
    usual_arithmetic,
    wrap,
)


def _math_signatures() -> dict[str, tuple[tuple[Scalar | None, ...], Scalar | None]]:
    """Each callable name -> (parameter types, result type), from the table of <math.h>
    (`dialects/c_math.py`). None: the usual arithmetic conversions of the arguments
    (`min`/`max`, commonly macros in kernels) or, for a classification macro (`isnan`), the
    argument's own floating type (an integer argument is converted to double)."""
    kinds = {"int": INT, "long": LONG}
    signatures: dict[str, tuple[tuple[Scalar | None, ...], Scalar | None]] = {}
    for function in c_math.MATH_FUNCTIONS.values():
        for single, floating in ((False, DOUBLE), (True, FLOAT)):
            params = tuple(floating if k == c_math.FLOATING else kinds[k] for k in function.params)
            result = floating if function.result == c_math.FLOATING else kinds[function.result]
            signatures[function.c_name(single)] = (params, result)
    for name in c_math.CLASSIFICATION:
        signatures[name] = ((None,), INT)
    for name, kind in c_math.INTEGER_ABS.items():
        signatures[name] = ((kinds[kind],), kinds[kind])
    signatures["min"] = signatures["max"] = ((None, None), None)
    return signatures


# C math functions: name -> (parameter types, result type); see `_math_signatures`.
MATH_FUNCTIONS = _math_signatures()


_ASSIGN_OPS = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%", "<<=": "<<", ">>=": ">>",
               "&=": "&", "|=": "|", "^=": "^"}  # fmt: skip
_INTEGER_ONLY = {"%", "<<", ">>", "&", "|", "^"}
_COMPARISONS = {"<", ">", "<=", ">=", "==", "!="}


class SemaState(Protocol):
    """What `ExpressionTyping` reads from `sema.Sema`."""

    user_functions: dict[str, ast.Pos]
    current: str

    def error(self, message: str, pos: ast.Pos) -> CompileError: ...

    def warning(self, message: str, pos: ast.Pos) -> None: ...

    def nested(self, pos: ast.Pos, what: str) -> AbstractContextManager[None]: ...

    def lookup(self, name: str) -> Var | None: ...

    def assigned(self, var: Var) -> None: ...

    def stored(self) -> None: ...

    def condition(self, expr: ast.Expr) -> None: ...


class ExpressionTyping(SemaState):
    def rvalue(self, expr: ast.Expr) -> Scalar:
        """Types an expression used for its value: a number (never an array)."""
        return self.as_value(self.expr(expr), expr)

    def as_value(self, t: Scalar | ArrayType | RowType, expr: ast.Expr) -> Scalar:
        """`t`, the type of the already typed `expr`, used for its value: arrays and rows of
        arrays are rejected."""
        if isinstance(t, ArrayType):
            raise self.error(
                f"array '{describe(expr)}' cannot be used as a value: index it",
                expr.pos,
            )
        if isinstance(t, RowType):
            raise self.error(
                f"'{describe(expr)}' is a row of a {t.array.dims}-D array: index it further",
                expr.pos,
            )
        return t

    def integer(self, expr: ast.Expr, what: str) -> Scalar:
        t = self.rvalue(expr)
        if not t.is_int:
            raise self.error(f"{what} must be an integer, not '{t}'", expr.pos)
        return t

    def expr(self, e: ast.Expr) -> CType:
        with self.nested(e.pos, "expression"):
            t = self._expr(e)
        e.ctype = t
        return t

    def _expr(self, e: ast.Expr) -> CType:
        if isinstance(e, ast.IntLit):
            return e.type
        if isinstance(e, ast.FloatLit):
            if e.long_double:
                self.warning(f"long double literal '{e.text}' is computed as double", e.pos)
            return e.type
        if isinstance(e, ast.Name):
            t = self.name(e)
            self.check_assigned(e.resolved_var, e.pos)
            return t
        if isinstance(e, ast.Index):
            return self.index(e)
        if isinstance(e, ast.Call):
            return self.call(e)
        if isinstance(e, ast.Unary):
            return self.unary(e)
        if isinstance(e, ast.Binary):
            return self.binary(e)
        if isinstance(e, ast.Conditional):
            self.condition(e.cond)
            return usual_arithmetic(self.rvalue(e.then), self.rvalue(e.otherwise))
        if isinstance(e, ast.Cast):
            return self.cast(e)
        if isinstance(e, ast.Assign):
            raise self.error(
                "assignment inside an expression is not supported: write it as its own "
                "statement",
                e.pos,
            )
        if isinstance(e, ast.IncDec):
            raise self.error(
                f"'{e.op}' inside an expression is not supported: write it as its own statement",
                e.pos,
            )
        if isinstance(e, ast.Comma):
            raise self.error("the comma operator is not supported here: write each expression "
                             "as a statement of its own (commas may separate the clauses of "
                             "a for)", e.pos)
        raise self.error("unsupported expression", e.pos)  # pragma: no cover

    def name(self, e: ast.Name):
        var = self.lookup(e.name)
        if var is None:
            if e.name in MATH_FUNCTIONS or e.name in self.user_functions:
                raise self.error(
                    f"function '{e.name}' used as a value: function pointers are not supported",
                    e.pos,
                )
            raise self.error(f"use of undeclared identifier '{e.name}'", e.pos)
        if var.initializing:
            raise self.error(f"'{e.name}' is used in its own initializer", e.pos)
        e.var = var
        return var.type

    def check_assigned(self, var: Var, pos: ast.Pos) -> None:
        """Warns (once per variable) about a read of a local declared without initializer
        before anything assigns it, in source order (gcc's -Wuninitialized)."""
        if var.unassigned:
            var.unassigned = False
            self.warning(
                f"'{var.name}' is used uninitialized: its value is undefined (initialize it "
                "where it is declared)",
                pos,
            )

    def index(self, e: ast.Index) -> Scalar | RowType:
        if not isinstance(e.base, ast.Name | ast.Index):
            self.expr(e.base)  # rejects pointer arithmetic and pointer casts, saying why
            raise self.error("only array parameters can be indexed", e.base.pos)
        base = self.expr(e.base)
        if isinstance(base, Scalar):
            raise self.error(
                f"subscripted value '{describe(e.base)}' is not an array (it is a {base})",
                e.base.pos,
            )
        index_type = self.rvalue(e.index)
        if not index_type.is_int:
            raise self.error(f"array index must be an integer, not '{index_type}'", e.index.pos)
        if isinstance(base, ArrayType):
            return base.element if base.dims == 1 else RowType(base, base.dims - 1)
        if base.remaining == 1:
            return base.array.element
        return RowType(base.array, base.remaining - 1)

    def call(self, e: ast.Call):
        if not isinstance(e.callee, ast.Name):
            raise self.error("only math functions can be called, by name", e.callee.pos)
        name = e.callee.name
        if self.lookup(name) is not None:
            raise self.error(f"called object '{name}' is not a function", e.callee.pos)
        if name in self.user_functions:  # helpers with a body are inlined (inlining.py)
            raise self.error(
                f"'{name}' is declared but not defined in this file: define it here, so that "
                f"it can be inlined into '{self.current}'",
                e.callee.pos,
            )
        if name not in MATH_FUNCTIONS:
            raise self.error(self.unknown_function(name), e.callee.pos)
        params, result = MATH_FUNCTIONS[name]
        if len(e.args) != len(params):
            plural = "s" if len(params) != 1 else ""
            raise self.error(
                f"'{name}' takes {len(params)} argument{plural}, got {len(e.args)}", e.pos
            )
        types = [self.rvalue(a) for a in e.args]
        if name in c_math.CLASSIFICATION:
            return INT
        if result is None:  # min / max
            return usual_arithmetic(*types)
        return result

    @staticmethod
    def unknown_function(name: str) -> str:
        """Why `name` cannot be called, and what to write instead."""
        if name in c_math.REFUSED:
            return f"'{name}' is not supported: {c_math.REFUSED[name]}"
        double = c_math.long_double_form(name)
        if double is not None:
            return (
                f"'{name}' computes in long double, which is not supported: call '{double}' "
                "(double)"
            )
        return (
            f"call to undeclared function '{name}': the functions are those of <math.h> (in "
            "float and double forms: sqrtf, sqrt, ...), the classification macros isnan, "
            "isinf, isfinite and signbit, abs, labs, llabs, min and max (docs/c-subset.md)"
        )

    def unary(self, e: ast.Unary):
        if e.op == "&":
            raise self.error(
                "taking an address ('&') is not supported: pass arrays as parameters and "
                "index them",
                e.pos,
            )
        if e.op == "*":
            raise self.error(
                "dereferencing an expression with '*' is not supported: write p[i] for *(p + i) "
                "(*p on a pointer parameter is p[0])",
                e.pos,
            )
        t = self.rvalue(e.operand)
        if e.op == "!":
            return INT
        if e.op == "~" and not t.is_int:
            raise self.error(f"'~' needs an integer operand, not '{t}'", e.pos)
        if e.op == "-":
            self.check_defined("-", 0, e.operand, promote(t), e.pos)  # -INT_MIN
        return promote(t)

    def binary(self, e: ast.Binary):
        lt, rt = self.expr(e.lhs), self.expr(e.rhs)
        for side, t in ((e.lhs, lt), (e.rhs, rt)):
            if isinstance(t, ArrayType | RowType) and e.op in ("+", "-"):
                raise self.error(
                    f"pointer arithmetic on '{describe(side)}' is not supported: index the "
                    f"array instead ({describe(side)}[i + 1], not {describe(side)} + 1)",
                    e.pos,
                )
        lt, rt = self.as_value(lt, e.lhs), self.as_value(rt, e.rhs)
        if e.op in ("&&", "||"):
            return INT
        if e.op in _INTEGER_ONLY and not (lt.is_int and rt.is_int):
            bad = lt if not lt.is_int else rt
            raise self.error(
                f"invalid operand of type '{bad}' to '{e.op}': it needs integers", e.pos
            )
        if e.op in ("<<", ">>"):
            e.operand_type = promote(lt)
            self.check_defined(e.op, e.lhs, e.rhs, e.operand_type, e.pos)
            return e.operand_type
        e.operand_type = usual_arithmetic(lt, rt)
        if e.op in _COMPARISONS:
            return INT
        self.check_defined(e.op, e.lhs, e.rhs, e.operand_type, e.pos)
        return e.operand_type

    def check_defined(self, op: str, lhs: ast.Expr | int | None, rhs: ast.Expr, t: Scalar,
                      pos: ast.Pos) -> None:  # fmt: skip
        """Warns when C leaves `lhs op rhs` (computed in `t`; `lhs` an expression, a known
        value or None) undefined whatever the inputs: a constant zero divisor, an out-of-range
        shift count, a constant expression that overflows a signed type (as gcc warns)."""
        if not t.is_int:
            return
        rhs_value = const_int(rhs)
        if isinstance(lhs, int) or lhs is None:
            lhs_value = lhs
        else:
            lhs_value = None if rhs_value is None else const_int(lhs)
        if op not in ("<<", ">>"):  # both operands are converted to `t` first
            rhs_value = None if rhs_value is None else wrap(rhs_value, t)
            lhs_value = None if lhs_value is None else wrap(lhs_value, t)
        why = undefined_operation(op, lhs_value, rhs_value, t)
        if why is not None:
            self.warning(f"{why} (undefined behaviour in C)", pos)

    def cast(self, e: ast.Cast):
        to = e.to
        if to.pointers or to.base is None:
            raise self.error(
                "only casts to arithmetic types (int, float, ...) are supported", to.pos
            )
        self.rvalue(e.operand)
        return to.base

    # ---- assignments --------------------------------------------------------------------------

    def target(self, target: ast.Expr, op: str) -> Scalar:
        """Types the left side of an assignment (operator `op`) and records the write."""
        if isinstance(target, ast.Name):
            t = self.name(target)
            target.ctype = t
            var = target.resolved_var
            if isinstance(t, ArrayType) and op in ("++", "--", "+=", "-="):
                raise self.error(
                    f"pointer arithmetic ('{op}' on '{var.name}') is not supported: keep the "
                    f"pointer fixed and index it ({var.name}[i])",
                    target.pos,
                )
            if isinstance(t, ArrayType):
                raise self.error(
                    f"cannot assign to array '{var.name}': assign its elements", target.pos
                )
            if var.const:
                raise self.error(f"cannot assign to const variable '{var.name}'", target.pos)
            if op != "=":  # `s += e` and `s++` read s
                self.check_assigned(var, target.pos)
            var.unassigned = False
            self.assigned(var)
            return t
        if isinstance(target, ast.Index):
            t = self.expr(target)
            if isinstance(t, RowType):
                raise self.error(
                    f"cannot assign to '{describe(target)}', a row of an array: index it "
                    "further",
                    target.pos,
                )
            array = array_var(target)
            if array.array.const and array.array.local:
                raise self.error(
                    f"cannot write to '{describe(target)}': '{array.name}' is a const array",
                    target.pos,
                )
            if array.array.const:
                raise self.error(
                    f"cannot write to '{describe(target)}': '{array.name}' points to const "
                    f"{array.array.element} (drop the const)",
                    target.pos,
                )
            self.stored()
            assert isinstance(t, Scalar), "an array element is a scalar (index())"
            return t
        self.expr(target)  # rejects `*p = ...` and other unsupported forms, saying why
        raise self.error("expression is not assignable", target.pos)

    def assignment(self, e: ast.Assign) -> None:
        t = self.target(e.target, e.op)
        value_type = self.rvalue(e.value)
        e.ctype = t
        if e.op == "=":
            return
        op = _ASSIGN_OPS[e.op]
        if op in _INTEGER_ONLY and not (t.is_int and value_type.is_int):
            bad = t if not t.is_int else value_type
            raise self.error(f"invalid operand of type '{bad}' to '{e.op}': it needs integers",
                             e.pos)  # fmt: skip
        e.operand_type = promote(t) if op in ("<<", ">>") else usual_arithmetic(t, value_type)
        self.check_defined(op, None, e.value, e.operand_type, e.pos)

    def incdec(self, e: ast.IncDec) -> None:
        t = self.target(e.target, e.op)
        e.ctype = t
        e.operand_type = usual_arithmetic(t, INT)
