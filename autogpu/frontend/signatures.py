"""The C signature of a function, from the frontend: what `irgen` records as argument attributes
(`autogpu.dialects.signature` owns the convention) and what `parse_signature` reads off the
source, through the one C parser (c.lark) and sema's checks of parameters."""

from __future__ import annotations

from autogpu.diagnostics import located
from autogpu.dialects.signature import LEFT_OUT, CParameter, CSignature
from autogpu.frontend import ast
from autogpu.frontend.parse import parse_text
from autogpu.frontend.preprocess import preprocess
from autogpu.frontend.sema import Sema
from autogpu.frontend.symbols import Var
from autogpu.frontend.types import ArrayType


def parameter(var: Var) -> CParameter:
    """The C parameter a sema `Var` stands for (`agpu.extents` only for C99 array parameters)."""
    t = var.type
    if not isinstance(t, ArrayType):
        return CParameter(var.name, var.spelling, t.ir, False, var.const)
    extents = None
    if t.dims > 1 or t.extents[0] is not None:
        extents = tuple(LEFT_OUT if e is None else str(e) for e in t.extents)
    return CParameter(var.name, var.spelling, t.element.ir, True, t.const, t.restrict, extents)


def parse_signature(source: str, function: str, filename: str = "<input>") -> CSignature:
    """The signature of the definition of `function` in C `source` (prototypes are skipped).
    Bodies are parsed but not analysed, so a non-void helper has a signature too. Bad input
    raises a located CompileError; a missing definition a ValueError."""
    pre = preprocess(source, filename)
    unit = parse_text(pre, source, filename)
    for item in unit.items:
        if isinstance(item, ast.FunctionDef) and item.declarator.name == function:
            sema = Sema(source, filename, {}, lambda warning: None)
            params = tuple(parameter(var) for var in sema.parameters(item))
            return CSignature(function, params, _result(item, filename, source))
    raise ValueError(f"no definition of function '{function}' in the C source")


def _result(fn: ast.FunctionDef, filename: str, source: str) -> str | None:
    if fn.declarator.pointers:
        line, column = fn.declarator.pos
        raise located(f"function '{fn.declarator.name}' returns a pointer: not supported",
                      filename, source, line, column)
    return None if fn.type.base is None else fn.type.spelling
