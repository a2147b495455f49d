"""The C signature of a function: the one owner of the `agpu.*` attribute convention.

The frontend records each C parameter in the argument attributes of its `func.func`
(docs/ir.md, "C level"); the lowering copies them onto kernels and host functions, and the cuda
target, the passes, the tuner and the test harness read them back. This module spells the
attribute names, writes them (`CParameter.attributes`) and reads them (`CSignature.of`), and
holds the only table of C types (name, IR type, NumPy dtype, ctypes, struct code, CUDA
spelling), so that a C type means the same thing everywhere.
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import func, gpu
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    UnitAttr,
    f32,
    f64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.hints import isa

# --- the attribute names (docs/ir.md) --------------------------------------------------------

NAME = "agpu.name"  # the C parameter name
CTYPE = "agpu.ctype"  # the C base type as written: the only record of signedness
CONST = "agpu.const"  # (unit) the pointee, or the scalar, is const
RESTRICT = "agpu.restrict"  # (unit) the pointer is restrict
EXTENTS = "agpu.extents"  # the extents of a C99 array parameter, as strings ("?": not given)
LEFT_OUT = "?"  # the extent of `float A[][n]` that C lets a parameter leave out
REQUIRES = "agpu.requires"  # (function) the scalar values agpu-specialize compiled in
MAPS = "agpu.maps"  # (function) OpenMP map of arrays that do not go both ways: {A = "to"}

ARGUMENT_ATTRIBUTES = (NAME, CTYPE, CONST, RESTRICT, EXTENTS)
FUNCTION_ATTRIBUTES = (REQUIRES, MAPS)


# --- C types -----------------------------------------------------------------------------------


class UnsupportedType(Exception):
    """An IR type or C spelling with no C type of this table (the caller names the place)."""


@dataclass(frozen=True)
class CType:
    """A C arithmetic type on LP64 (x86-64 Linux, what gcc and nvcc target)."""

    name: str  # the canonical spelling, as the cuda target prints it (no header needed)
    is_float: bool
    bits: int
    signed: bool
    dtype: str  # the NumPy dtype name
    ctypes: Any  # the ctypes type of a scalar argument
    struct: str  # Python's struct code (pycuda's prepared calls)

    @property
    def ir(self) -> Attribute:
        """The IR type of a value of this type (signless: `arith` ops carry the signedness)."""
        if self.is_float:
            return f32 if self.bits == 32 else f64
        return IntegerType(self.bits)

    @property
    def numpy(self) -> np.dtype:
        return np.dtype(self.dtype)

    @property
    def size(self) -> int:
        """`sizeof` in bytes."""
        return ctypes.sizeof(self.ctypes)


_TYPES = (
    CType("bool", False, 1, False, "bool", ctypes.c_bool, "?"),
    CType("signed char", False, 8, True, "int8", ctypes.c_int8, "b"),
    CType("unsigned char", False, 8, False, "uint8", ctypes.c_uint8, "B"),
    CType("short", False, 16, True, "int16", ctypes.c_int16, "h"),
    CType("unsigned short", False, 16, False, "uint16", ctypes.c_uint16, "H"),
    CType("int", False, 32, True, "int32", ctypes.c_int32, "i"),
    CType("unsigned", False, 32, False, "uint32", ctypes.c_uint32, "I"),
    CType("long long", False, 64, True, "int64", ctypes.c_int64, "q"),
    CType("unsigned long long", False, 64, False, "uint64", ctypes.c_uint64, "Q"),
    CType("float", True, 32, True, "float32", ctypes.c_float, "f"),
    CType("double", True, 64, True, "float64", ctypes.c_double, "d"),
)
C_TYPES: dict[str, CType] = {t.name: t for t in _TYPES}
"""Every C type, by canonical name."""
BY_DTYPE: dict[str, CType] = {t.dtype: t for t in _TYPES}

_NAMED: dict[str, str] = {  # spellings that are one name (typedefs included) → canonical name
    "_Bool": "bool", "bool": "bool", "float": "float", "double": "double",
    "int8_t": "signed char", "uint8_t": "unsigned char", "int16_t": "short",
    "uint16_t": "unsigned short", "int32_t": "int", "uint32_t": "unsigned",
    "int64_t": "long long", "ssize_t": "long long", "ptrdiff_t": "long long",
    "intptr_t": "long long", "uint64_t": "unsigned long long", "size_t": "unsigned long long",
    "uintptr_t": "unsigned long long",
}  # fmt: skip
_INTEGER_WORDS = {"signed", "unsigned", "char", "short", "int", "long"}


def c_type(spelling: str) -> CType | None:
    """The C type a user's spelling denotes (`unsigned long`, `long unsigned int`, `size_t`,
    `char` (signed on x86-64), ...), None for anything else."""
    words = spelling.split()
    if len(words) == 1 and words[0] in _NAMED:
        return C_TYPES[_NAMED[words[0]]]
    if not words or not set(words) <= _INTEGER_WORDS:
        return None
    count = {w: words.count(w) for w in set(words)}
    sizes = [w for w in ("char", "short", "long") if w in count]
    if ("signed" in count and "unsigned" in count) or len(sizes) > 1 or count.get("long", 0) > 2:
        return None
    if any(n > 1 for w, n in count.items() if w != "long") or ("char" in count and "int" in count):
        return None
    unsigned = "unsigned" in count
    size = sizes[0] if sizes else "int"
    if size == "char":
        return C_TYPES["unsigned char" if unsigned else "signed char"]
    name = {"short": "short", "int": "int", "long": "long long"}[size]
    if unsigned:
        name = "unsigned" if name == "int" else f"unsigned {name}"
    return C_TYPES[name]


def ir_width(type: Attribute) -> int:
    if isinstance(type, IndexType):
        return 64
    if isa(type, IntegerType):
        return type.width.data
    if isinstance(type, Float32Type):
        return 32
    if isinstance(type, Float64Type):
        return 64
    raise UnsupportedType(str(type))


def of_ir(type: Attribute, *, unsigned: bool = False) -> CType:
    """The C type of an IR scalar type (its unsigned view with `unsigned=True`)."""
    is_float = isinstance(type, Float32Type | Float64Type)
    if not is_float and not isa(type, IndexType | IntegerType):
        raise UnsupportedType(str(type))
    bits = ir_width(type)
    for t in _TYPES:
        if t.is_float == is_float and t.bits == bits and (is_float or bits == 1
                                                          or t.signed != unsigned):
            return t
    raise UnsupportedType(str(type))


def resolve(spelling: str | None, type: Attribute) -> CType:
    """The C type of a value of IR type `type` written as `spelling`: the spelling where it
    denotes a type of that IR type (it alone knows signedness), else the IR type's signed one."""
    written = c_type(spelling) if spelling else None
    is_float = isinstance(type, Float32Type | Float64Type)
    if written is not None and written.is_float == is_float and written.bits == ir_width(type):
        return written
    return of_ir(type)


# --- parameters and signatures ---------------------------------------------------------------


@dataclass(frozen=True)
class CParameter:
    """A C parameter: a scalar, or an array (a pointer or C99 array parameter)."""

    name: str
    spelling: str | None  # the C base type as written (`agpu.ctype`), None where not recorded
    element: Attribute  # the IR type of the scalar, or of the array's elements
    is_array: bool
    const: bool = False  # the pointee (for arrays) or the scalar is const
    restrict: bool = False
    extents: tuple[str | int, ...] | None = None  # C99 extents as written ("?": left out)

    @property
    def type(self) -> CType:
        """Its C type (raises UnsupportedType where the IR type has none)."""
        return resolve(self.spelling, self.element)

    @property
    def ctype(self) -> str:
        """The base type as the user wrote it, else the canonical one."""
        return self.spelling or self.type.name

    @property
    def dtype(self) -> np.dtype:
        return self.type.numpy

    def attributes(self) -> dict[str, Attribute]:
        """The argument attributes recording this parameter (what the frontend writes)."""
        attrs: dict[str, Attribute] = {NAME: StringAttr(self.name)}
        if self.spelling is not None:
            attrs[CTYPE] = StringAttr(self.spelling)
        if self.const:
            attrs[CONST] = UnitAttr()
        if self.restrict:
            attrs[RESTRICT] = UnitAttr()
        if self.extents is not None:
            attrs[EXTENTS] = ArrayAttr(StringAttr(str(e)) for e in self.extents)
        return attrs


@dataclass(frozen=True)
class CSignature:
    """The C signature of a function, in parameter order."""

    name: str
    params: tuple[CParameter, ...]
    result: str | None = None  # the C return type as written, None for void

    def param(self, name: str) -> CParameter:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def arg_attrs(self) -> ArrayAttr[DictionaryAttr]:
        return ArrayAttr(DictionaryAttr(p.attributes()) for p in self.params)

    @staticmethod
    def of(function: func.FuncOp | gpu.FuncOp) -> CSignature:
        """The signature recorded on a `func.func` or `gpu.func` (its arg attrs), the IR types
        standing in for what is not recorded; parameter names default to the SSA name hint."""
        inputs = function.function_type.inputs.data
        outputs = function.function_type.outputs.data
        entry = function.body.blocks.first
        args = entry.args if entry is not None else ()
        params: list[CParameter] = []
        for index, type in enumerate(inputs):
            hint = args[index].name_hint if index < len(args) else None
            params.append(_parameter(argument_attributes(function, index), type, index, hint))
        return CSignature(function.sym_name.data, tuple(params), _result(outputs))


def maps_of(function: Operation) -> dict[str, str]:
    """The function's `agpu.maps` (array name -> "to", "from" or "alloc"; an array not in it
    is `tofrom`), from OpenMP `map` clauses (docs/ir.md, "Data mapping")."""
    attr = function.attributes.get(MAPS)
    if not isinstance(attr, DictionaryAttr):
        return {}
    return {name: value.data for name, value in attr.data.items()
            if isinstance(value, StringAttr)}


def argument_attributes(function: Operation, index: int) -> dict[str, Attribute]:
    """The attribute dictionary of argument `index` (func.func property or gpu.func attribute)."""
    arg_attrs = function.attributes.get("arg_attrs") or function.properties.get("arg_attrs")
    if isa(arg_attrs, ArrayAttr) and index < len(arg_attrs.data):
        entry = arg_attrs.data[index]
        if isinstance(entry, DictionaryAttr):
            return dict(entry.data)
    return {}


def value_attributes(value: SSAValue) -> dict[str, Attribute]:
    """The argument attributes of `value` where it is an argument of a function's entry block
    ({} otherwise)."""
    block = value.owner
    if not isinstance(block, Block) or (function := block.parent_op()) is None:
        return {}
    if (not isinstance(function, func.FuncOp | gpu.FuncOp)
            or block is not function.body.blocks.first):
        return {}
    return argument_attributes(function, block.args.index(value))


def string(attrs: Mapping[str, Attribute], key: str) -> str | None:
    value = attrs.get(key)
    return value.data if isinstance(value, StringAttr) else None


def _parameter(attrs: dict[str, Attribute], type: Attribute, index: int,
               hint: str | None) -> CParameter:
    is_array = isa(type, MemRefType)
    return CParameter(
        string(attrs, NAME) or hint or f"arg{index}",
        string(attrs, CTYPE),
        type.element_type if is_array else type,
        is_array,
        CONST in attrs,
        RESTRICT in attrs,
        _extents(attrs.get(EXTENTS)),
    )


def _result(outputs: tuple[Attribute, ...]) -> str | None:
    """The C type of the first result (its IR spelling where it has none), None for none."""
    if not outputs:
        return None
    try:
        return of_ir(outputs[0]).name
    except UnsupportedType:
        return str(outputs[0])


def _extents(attr: Attribute | None) -> tuple[str | int, ...] | None:
    if not isa(attr, ArrayAttr):
        return None
    extents: list[str | int] = []
    for item in attr.data:
        if isinstance(item, StringAttr):
            extents.append(item.data)
        elif isinstance(item, IntegerAttr):
            extents.append(item.value.data)
    return tuple(extents)
