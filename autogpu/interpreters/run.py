"""`run_function`: execute a `func.func` on NumPy arrays and scalars, writing arrays in place."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Attribute
from xdsl.utils.hints import isa

from autogpu.interpreters import c_semantics as cs
from autogpu.interpreters.c_semantics import InterpreterError
from autogpu.interpreters.python_codegen import (
    check_scalar_type,
    compile_module,
    float_kind,
    reachable_functions,
)
from autogpu.numeric import is_boolean, is_integer, is_ndarray, is_number
from autogpu.passes.analysis.integers import bit_width

_FLOAT_DTYPES = {"f32": np.dtype(np.float32), "f64": np.dtype(np.float64)}
_SIGNED_DTYPES = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}


def _array_argument(value: Any, type_: MemRefType, where: str) -> Any:
    """The caller's array, viewed so that the generated code reads and writes it in place: 1-D,
    with the dtype the element type stores (integers viewed as signed: bits are bits)."""
    if not is_ndarray(value):
        raise InterpreterError(
            f"{where}: expected a NumPy array for {type_}, got {type(value).__name__}"
        )
    element = type_.element_type
    check_scalar_type(element, where)
    shape = type_.get_shape()
    if len(shape) > 1:
        raise InterpreterError(f"{where}: memrefs of rank {len(shape)} are not supported")
    if value.ndim != 1:
        if value.ndim == 0 or value.flags.c_contiguous:
            value = value.reshape(-1)  # a view: writes still reach the caller's array
        else:
            raise InterpreterError(
                f"{where}: a {value.ndim}-D array must be C-contiguous to be seen as the flat "
                f"memref {type_}"
            )
    kind = float_kind(element)
    if kind is not None:
        if value.dtype != _FLOAT_DTYPES[kind]:
            raise InterpreterError(f"{where}: expected a {_FLOAT_DTYPES[kind]} array for {type_}, "
                                   f"got {value.dtype}")
    else:
        width = bit_width(element)
        assert width is not None
        if width == 1:
            if value.dtype != np.bool_:
                raise InterpreterError(
                    f"{where}: expected a bool array for {type_}, got {value.dtype}"
                )
        elif value.dtype.kind not in "iu" or value.dtype.itemsize * 8 != width:
            raise InterpreterError(
                f"{where}: expected a {width}-bit integer array for {type_}, got {value.dtype}"
            )
        else:
            value = value.view(_SIGNED_DTYPES[width])
    expected = 1 if not shape else shape[0]
    if expected >= 0 and len(value) != expected:
        raise InterpreterError(
            f"{where}: {type_} needs exactly {expected} elements, got {len(value)}"
        )
    return value


def _scalar_argument(value: Any, type_: Attribute, where: str) -> Any:
    kind = float_kind(type_)
    if kind is not None:
        if not is_number(value) or isinstance(value, bool):
            raise InterpreterError(f"{where}: expected a number for {type_}, got {value!r}")
        return cs.F32(value) if kind == "f32" else float(value)
    width = bit_width(type_)
    if width is None:
        raise InterpreterError(f"{where}: unsupported argument type {type_}")
    if width == 1 and is_boolean(value):  # a _Bool from NumPy
        value = int(value)
    if not is_integer(value):
        raise InterpreterError(f"{where}: expected an integer for {type_}, got {value!r}")
    value = int(value)
    if not -(1 << (width - 1)) <= value < 1 << width:
        raise InterpreterError(f"{where}: {value} does not fit in {type_}")
    return cs.wrap(value, width)


def _result_value(value: Any, type_: Attribute) -> Any:
    if bit_width(type_) == 1:
        return bool(value)
    return value


def _function(module: ModuleOp, name: str) -> func.FuncOp:
    return reachable_functions(module, name)[0]


def run_function(module: ModuleOp, name: str, args: Sequence[Any]) -> Any:
    """Execute `func.func @name` with C semantics. `memref` arguments are NumPy arrays (1-D,
    or C-contiguous arrays seen flat; views are fine) and are updated in place; scalars are
    Python or NumPy numbers. Returns None for a void function, else its result (a tuple for
    several). Out-of-bounds accesses raise `OutOfBoundsError` (an IndexError); undefined
    integer behaviour raises `UndefinedBehaviorError`; unsupported IR raises `InterpreterError`.
    """
    function = _function(module, name)
    types = function.function_type.inputs.data
    if len(args) != len(types):
        raise InterpreterError(f"@{name} takes {len(types)} arguments, got {len(args)}")
    converted: list[Any] = []
    for position, (value, type_) in enumerate(zip(args, types)):
        where = f"@{name} argument {position}"
        if isa(type_, MemRefType):
            converted.append(_array_argument(value, type_, where))
        else:
            converted.append(_scalar_argument(value, type_, where))
    compiled = compile_module(module, name)
    with np.errstate(all="ignore"):  # f32 overflow and division by zero give inf/NaN, as in C
        result = compiled.functions[name](*converted)
    outputs = function.function_type.outputs.data
    if not outputs:
        return None
    if len(outputs) == 1:
        return _result_value(result, outputs[0])
    return tuple(_result_value(v, t) for v, t in zip(result, outputs))
