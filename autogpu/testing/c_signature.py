"""The parameter list of a C function, from its source or from the frontend's IR arg attrs.

Both reference runners need to know, per parameter, whether it is an array (a pointer or a C99
array parameter) or a scalar, and its C type, which fixes the NumPy dtype (`unsigned` ->
uint32, `size_t` -> uint64, ...). The source parser handles the declarations serial kernels
use (qualifiers, `restrict`, `T *p`, `T a[n][m]`); anything else is a clear ValueError.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute

_QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "__restrict__", "static", "register"}
_FIXED_WIDTH = {
    "int8_t": "int8", "int16_t": "int16", "int32_t": "int32", "int64_t": "int64",
    "uint8_t": "uint8", "uint16_t": "uint16", "uint32_t": "uint32", "uint64_t": "uint64",
    "size_t": "uint64", "ptrdiff_t": "int64", "ssize_t": "int64", "intptr_t": "int64",
    "uintptr_t": "uint64", "_Bool": "bool", "bool": "bool", "float": "float32",
    "double": "float64",
}


def dtype_of_ctype(ctype: str) -> np.dtype:
    """NumPy dtype of a C arithmetic type on x86-64 Linux (LP64), e.g. `unsigned long` ->
    uint64. Word order does not matter (`long unsigned int`)."""
    words = ctype.split()
    if len(words) == 1 and words[0] in _FIXED_WIDTH:
        return np.dtype(_FIXED_WIDTH[words[0]])
    known = {"unsigned", "signed", "long", "short", "char", "int"}
    if not words or not set(words) <= known:
        raise ValueError(f"unsupported C type '{ctype}'")
    is_unsigned = "unsigned" in words
    if "char" in words:
        bits = 8
    elif "short" in words:
        bits = 16
    elif "long" in words:
        bits = 64
    else:
        bits = 32
    return np.dtype(f"{'u' if is_unsigned else ''}int{bits}")


@dataclass(frozen=True)
class CParam:
    name: str
    ctype: str  # the base type as written, e.g. "float", "unsigned int"
    is_array: bool  # a pointer or C99 array parameter: passed as a NumPy array
    const: bool = False  # the pointee (or scalar) is const: never written

    @property
    def dtype(self) -> np.dtype:
        return dtype_of_ctype(self.ctype)


@dataclass(frozen=True)
class CSignature:
    name: str
    params: tuple[CParam, ...]
    result: str | None  # the C return type, None for void

    def param(self, name: str) -> CParam:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


# --- from C source -----------------------------------------------------------------------------


def _strip_comments_and_directives(source: str) -> str:
    source = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group()), source, flags=re.S)
    source = re.sub(r"//[^\n]*", "", source)
    return re.sub(r"^\s*#[^\n]*", "", source, flags=re.M)


def _split_top_level(text: str) -> list[str]:
    parts, depth, current = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [p.strip() for p in parts]


def _parse_param(text: str, function: str) -> CParam:
    # Array extents ("[n][m]", "[static n]") mark an array parameter; their contents don't matter.
    is_array = "[" in text
    without_extents = re.sub(r"\[[^\]]*\]", " ", text)
    if without_extents.count("*") > 1 or "(" in without_extents:
        raise ValueError(f"{function}: unsupported parameter declaration '{text}'")
    before_star, star, after_star = without_extents.partition("*")
    is_array = is_array or bool(star)
    words = re.findall(r"[A-Za-z_]\w*", before_star + " " + after_star)
    const = "const" in re.findall(r"[A-Za-z_]\w*", before_star) or (
        not is_array and "const" in words
    )
    words = [w for w in words if w not in _QUALIFIERS]
    if len(words) < 2:
        raise ValueError(f"{function}: parameter '{text}' needs a type and a name")
    name, type_words = words[-1], words[:-1]
    ctype = " ".join(type_words)
    dtype_of_ctype(ctype)  # validate early, with the parameter in the message on failure
    return CParam(name, ctype, is_array, const)


def parse_c_signature(source: str, function: str) -> CSignature:
    """The signature of the definition of `function` in `source`."""
    text = _strip_comments_and_directives(source)
    depth = 0
    for match in re.finditer(r"[{}]|\b" + re.escape(function) + r"\s*\(", text):
        token = match.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
        elif depth == 0:
            start = match.end()
            level, end = 1, start
            while level:
                if end >= len(text):
                    raise ValueError(f"unbalanced parentheses in the declaration of {function}")
                level += {"(": 1, ")": -1}.get(text[end], 0)
                end += 1
            if not text[end:].lstrip().startswith("{"):
                continue  # a prototype; keep looking for the definition
            prefix = re.split(r"[;}]", text[: match.start()])[-1]
            result_words = [
                w for w in re.findall(r"[A-Za-z_]\w*", prefix)
                if w not in {"static", "inline", "extern", "__inline__"} | _QUALIFIERS
            ]
            result = " ".join(result_words)
            if "*" in prefix:
                raise ValueError(f"{function}: functions returning pointers are not supported")
            params_text = text[start : end - 1].strip()
            params = [] if params_text in ("", "void") else [
                _parse_param(p, function) for p in _split_top_level(params_text)
            ]
            if result != "void":
                dtype_of_ctype(result)
            return CSignature(function, tuple(params), None if result == "void" else result)
    raise ValueError(f"no definition of function '{function}' in the C source")


# --- from the frontend's IR ------------------------------------------------------------------


def _ctype_of_ir_type(type_: Attribute) -> str:
    if isinstance(type_, MemRefType):
        type_ = type_.element_type
    if isinstance(type_, Float32Type):
        return "float"
    if isinstance(type_, Float64Type):
        return "double"
    if isinstance(type_, IntegerType):
        return {1: "_Bool", 8: "char", 16: "short", 32: "int", 64: "long"}[type_.width.data]
    raise ValueError(f"no C type for {type_}")


def signature_of_function(function: func.FuncOp) -> CSignature:
    """The signature recorded by the frontend: names and C types from the `agpu.*` arg attrs
    (docs/ir.md), falling back to the IR types where an attribute is missing."""
    attrs = function.arg_attrs.data if function.arg_attrs is not None else ()
    params = []
    for position, type_ in enumerate(function.function_type.inputs.data):
        entry = attrs[position].data if position < len(attrs) else {}
        name = entry.get("agpu.name")
        ctype = entry.get("agpu.ctype")
        params.append(CParam(
            name.data if isinstance(name, StringAttr) else f"arg{position}",
            ctype.data if isinstance(ctype, StringAttr) else _ctype_of_ir_type(type_),
            isinstance(type_, MemRefType),
            "agpu.const" in entry,
        ))
    outputs = function.function_type.outputs.data
    result = _ctype_of_ir_type(outputs[0]) if outputs else None
    return CSignature(function.sym_name.data, tuple(params), result)


def signature_of(
    obj: CSignature | func.FuncOp | ModuleOp, function: str | None = None
) -> CSignature:
    """A CSignature from a signature, a func.func, or a module (and a function name, which may
    be omitted when the module holds a single function)."""
    if isinstance(obj, CSignature):
        return obj
    if isinstance(obj, func.FuncOp):
        return signature_of_function(obj)
    if isinstance(obj, ModuleOp):
        functions = [op for op in obj.body.block.ops if isinstance(op, func.FuncOp)]
        if function is not None:
            functions = [f for f in functions if f.sym_name.data == function]
        if len(functions) != 1:
            raise ValueError(
                f"cannot pick a function: {len(functions)} candidates"
                + (f" named {function}" if function else "; pass function=")
            )
        return signature_of_function(functions[0])
    raise TypeError(f"expected a CSignature, func.FuncOp or ModuleOp, got {type(obj).__name__}")
