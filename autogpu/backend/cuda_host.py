"""Host functions → the launch description (docs/ir.md, "The launch description").

A host `func.func` may only compute launch sizes from its scalar parameters with integer arith
and issue `gpu.launch_func`s; each grid/block/shared-memory operand is printed as a C integer
expression over the parameter names by walking its SSA chain back to constants and arguments.
The expressions use only literals, names, `+ - * / %`, unary minus, parentheses, `min` and
`max`, as `autogpu.backend.launch.evaluate` reads them (64-bit, no overflow assumed: `i32` wrap
around and `unsigned` values above 2^63 are not modelled).
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects import func, gpu
from xdsl.dialects.builtin import (
    ArrayAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

from autogpu.backend.c_expr import Binary, Expr, Literal, Name, Unary, call
from autogpu.backend.c_types import (
    NUMPY_DTYPES,
    UnsupportedType,
    ctype_of,
    user_ctype,
)
from autogpu.backend.cuda_memory import arg_attrs, str_attr
from autogpu.backend.requirements import requirements_of
from autogpu.diagnostics import CompileError

_BINARY = {
    "arith.addi": "+",
    "arith.subi": "-",
    "arith.muli": "*",
    "arith.divsi": "/",
    "arith.divui": "/",
    "arith.remsi": "%",
    "arith.remui": "%",
}
_MIN_MAX = {
    "arith.minsi": "min",
    "arith.maxsi": "max",
    "arith.minui": "min",
    "arith.maxui": "max",
}
_CEILDIV = ("arith.ceildivsi", "arith.ceildivui")
_TRANSPARENT = (
    "arith.index_cast",
    "arith.index_castui",
    "arith.extsi",
    "arith.extui",
    "arith.trunci",
)


def describe_host_function(
    function: func.FuncOp, kernels: dict[str, gpu.FuncOp]
) -> dict[str, Any]:
    """The launch description entry of one host function."""
    name = function.sym_name.data
    params, names = _params(function)

    def fail(op: Operation, why: str = "") -> CompileError:
        detail = f" ({why})" if why else ""
        return CompileError(f"cuda target: cannot print '{op.name}'{detail} in func.func @{name}")

    def expression(value: SSAValue, user: Operation) -> Expr:
        if isinstance(value, BlockArgument):
            index = value.index
            if params[index]["kind"] != "scalar":
                raise fail(user, f"array parameter {names[index]} used as a size")
            return Name(names[index])
        op = value.owner
        assert isinstance(op, Operation)
        if op.name == "arith.constant":
            attr = op.properties["value"]
            if not isinstance(attr, IntegerAttr):
                raise fail(op, "non-integer constant in a launch size")
            return _literal(attr.value.data)
        known = (*_BINARY, *_MIN_MAX, *_CEILDIV, *_TRANSPARENT, "arith.shli")
        if op.name not in known:
            raise fail(op, "not expressible in a launch size")
        args = [expression(o, op) for o in op.operands]
        if op.name in _BINARY:
            return Binary(_BINARY[op.name], args[0], args[1])
        if op.name in _MIN_MAX:
            return call(_MIN_MAX[op.name], args)
        if op.name in _CEILDIV:
            # ceil(a / b) for a >= 0 and b > 0, the sizes launches divide.
            a, b = args
            if isinstance(b, Literal) and b.text.isdigit():
                return Binary("/", Binary("+", a, Literal(str(int(b.text) - 1))), b)
            return Binary("/", Binary("-", Binary("+", a, b), Literal("1")), b)
        if op.name in _TRANSPARENT:
            return args[0]
        if op.name == "arith.shli" and isinstance(args[1], Literal):
            return Binary("*", args[0], Literal(str(2 ** int(args[1].text))))
        raise fail(op, "not expressible in a launch size")

    launches: list[dict[str, Any]] = []
    for op in function.body.walk():
        if op is function:
            continue
        if isinstance(op, gpu.LaunchFuncOp):
            launches.append(_launch(op, kernels, names, expression, fail))
        elif isinstance(op, func.ReturnOp):
            if op.operands:
                raise fail(op, "a host function must return nothing")
        elif not (op.name.startswith("arith.") and not op.regions):
            raise fail(op, "host code may only compute launch sizes and launch kernels")
    entry: dict[str, Any] = {"name": name, "params": params, "launches": launches}
    if required := requirements_of(function):  # agpu-specialize: the sizes compiled in
        entry["requires"] = required
    return entry


def _launch(op: gpu.LaunchFuncOp, kernels, names, expression, fail) -> dict[str, Any]:
    kernel_ref: SymbolRefAttr = op.kernel
    kernel_name = (
        kernel_ref.nested_references.data[-1].data
        if kernel_ref.nested_references.data
        else kernel_ref.root_reference.data
    )
    kernel = kernels.get(kernel_name)
    if kernel is None:
        raise fail(op, f"no kernel @{kernel_name} in a gpu.module")
    if op.asyncDependencies or op.asyncToken is not None:
        raise fail(op, "asynchronous launches")
    if op.clusterSizeX is not None:
        raise fail(op, "thread block clusters")
    args: list[str] = []
    for operand in op.kernelOperands:
        if not isinstance(operand, BlockArgument) or operand.owner is not op.parent_block():
            raise fail(op, "a kernel argument that is not a parameter of the host function")
        args.append(names[operand.index])
    expected = kernel.function_type.inputs.data
    if tuple(o.type for o in op.kernelOperands) != tuple(expected):
        raise fail(op, f"arguments do not match the parameters of @{kernel_name}")
    grid = [op.gridSizeX, op.gridSizeY, op.gridSizeZ]
    block = [op.blockSizeX, op.blockSizeY, op.blockSizeZ]
    shared = op.dynamicSharedMemorySize
    return {
        "kernel": kernel_name,
        "grid": [expression(v, op).render() for v in grid],
        "block": [expression(v, op).render() for v in block],
        "args": args,
        "dynamic_shared_bytes": "0" if shared is None else expression(shared, op).render(),
    }


def _literal(value: int) -> Expr:
    if value < 0:
        if value == -(2**63):
            return Binary("-", Unary("-", Literal(str(2**63 - 1))), Literal("1"))
        return Unary("-", Literal(str(-value)))
    return Literal(str(value))


def _params(function: func.FuncOp) -> tuple[list[dict[str, Any]], list[str]]:
    params: list[dict[str, Any]] = []
    names: list[str] = []
    fname = function.sym_name.data
    for index, arg in enumerate(function.args):
        attrs = arg_attrs(function, index)
        name = str_attr(attrs, "agpu.name") or arg.name_hint or f"arg{index}"
        if name in names:
            raise CompileError(f"cuda target: two parameters named {name} in func.func @{fname}")
        names.append(name)
        spelling = str_attr(attrs, "agpu.ctype")
        type = arg.type
        element = type.element_type if isinstance(type, MemRefType) else type
        try:
            canonical = (user_ctype(spelling, element) if spelling else None) or ctype_of(element)
        except UnsupportedType:
            raise CompileError(
                f"cuda target: parameter {name} of func.func @{fname} has unsupported type {type}"
            ) from None
        entry: dict[str, Any] = {
            "name": name,
            "kind": "array" if isinstance(type, MemRefType) else "scalar",
            "dtype": NUMPY_DTYPES[canonical],
            "ctype": spelling or canonical,
        }
        if isinstance(type, MemRefType):
            entry["const"] = "agpu.const" in attrs
            entry["restrict"] = "agpu.restrict" in attrs
            entry["extents"] = _extents(attrs.get("agpu.extents"))
        params.append(entry)
    return params, names


def _extents(attr: Attribute | None) -> list[str | int] | None:
    if not isinstance(attr, ArrayAttr):
        return None
    extents: list[str | int] = []
    for item in attr.data:
        if isinstance(item, StringAttr):
            extents.append(item.data)
        elif isinstance(item, IntegerAttr):
            extents.append(item.value.data)
    return extents


def describe_module(module: ModuleOp, kernels: dict[str, gpu.FuncOp]) -> dict[str, Any]:
    functions = [
        describe_host_function(op, kernels)
        for op in module.ops
        if isinstance(op, func.FuncOp) and op.body.blocks
    ]
    return {"functions": functions}
