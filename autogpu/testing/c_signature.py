"""The parameter list of a C function, for the reference runners: from its source or from the
frontend's IR. Both are `autogpu.dialects.signature.CSignature`s: the source is read by the
frontend's parser (`autogpu.frontend.signatures`), the IR by `CSignature.of`; gcc still
compiles the C itself, so the reference shares only the prototype with what it checks."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from autogpu.dialects.signature import CParameter, CSignature, c_type
from autogpu.frontend.signatures import parse_signature

__all__ = ["CParameter", "CSignature", "dtype_of_ctype", "parse_c_signature", "signature_of"]


def dtype_of_ctype(ctype: str) -> np.dtype:
    """NumPy dtype of a C arithmetic type on x86-64 Linux (LP64), e.g. `unsigned long` ->
    uint64. Word order does not matter (`long unsigned int`)."""
    known = c_type(ctype)
    if known is None:
        raise ValueError(f"unsupported C type '{ctype}'")
    return known.numpy


def parse_c_signature(source: str, function: str, filename: str = "kernel.c") -> CSignature:
    """The signature of the definition of `function` in `source`."""
    return parse_signature(source, function, filename)


def signature_of(
    obj: CSignature | func.FuncOp | ModuleOp, function: str | None = None
) -> CSignature:
    """A CSignature from a signature, a func.func, or a module (and a function name, which may
    be omitted when the module holds a single function)."""
    if isinstance(obj, CSignature):
        return obj
    if isinstance(obj, func.FuncOp):
        return CSignature.of(obj)
    functions = [op for op in obj.body.block.ops if isinstance(op, func.FuncOp)]
    if function is not None:
        functions = [f for f in functions if f.sym_name.data == function]
    if len(functions) != 1:
        raise ValueError(
            f"cannot pick a function: {len(functions)} candidates"
            + (f" named {function}" if function else "; pass function=")
        )
    return CSignature.of(functions[0])
