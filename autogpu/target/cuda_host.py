"""Host functions → the launch description (docs/ir.md, "The launch description").

A host `func.func` may only compute launch sizes from its scalar parameters with integer arith
and issue `gpu.launch_func`s, inside `scf.for`, `scf.if` and `scf.while` (the host program,
printed as `steps` where there is one), and read back integer device variables of the
`gpu.module` (`memref.load` of `memref.get_global @kernels::@v`: a `read` step, whose value
conditions may use); each grid/block/shared-memory operand, loop bound and condition is
printed as a C integer expression over the parameter names and loop counters by walking its SSA
chain back to constants and arguments.
The expressions use only literals, names, `+ - * / %`, unary minus, parentheses, `min`, `max`
and the casts `(int)`, `(unsigned)`, `(unsigned long long)`, as `autogpu.target.launch.evaluate`
reads them; `autogpu.target.launch_sizes` prints the IR's wrapping `iN` arithmetic exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.dialects import func, gpu, memref, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.utils.hints import isa

from autogpu.diagnostics import CompileError, location_of
from autogpu.dialects.signature import CSignature, maps_of, of_ir
from autogpu.target import launch_sizes
from autogpu.target.c_types import UnsupportedType, ir_width
from autogpu.target.cuda_memory import static_shared_bytes
from autogpu.target.launch_sizes import Size
from autogpu.target.requirements import requirements_of


def describe_host_function(
    function: func.FuncOp, kernels: dict[str, gpu.FuncOp]
) -> dict[str, Any]:
    """The launch description entry of one host function."""
    name = function.sym_name.data
    params, names = _params(function)

    def fail(op: Operation, why: str = "") -> CompileError:
        detail = f" ({why})" if why else ""
        return CompileError(
            f"cuda target: cannot print '{op.name}'{detail} in func.func @{name}", location_of(op)
        )

    counters: dict[SSAValue, str] = {}  # the counters of host loops, by their names
    taken = set(names)

    def fresh(base: str) -> str:
        var, k = base, 0
        while var in taken:
            k += 1
            var = f"{base}_{k}"
        taken.add(var)
        return var

    def expression(value: SSAValue, user: Operation) -> Size:
        if value in counters:  # a host loop's counter, or a value read back
            return launch_sizes.parameter(counters[value], _width(value), False)
        if isinstance(value, BlockArgument):
            if value.owner is not function.body.block:
                raise fail(user, "a block argument that is no parameter or loop counter")
            index = value.index
            if params[index]["kind"] != "scalar":
                raise fail(user, f"array parameter {names[index]} used as a size")
            is_unsigned = params[index]["dtype"].startswith("uint")
            return launch_sizes.parameter(names[index], _width(value), is_unsigned)
        op = value.owner
        assert isinstance(op, Operation)
        if op.name == "arith.constant":
            attr = op.properties["value"]
            if not isinstance(attr, IntegerAttr):
                raise fail(op, "non-integer constant in a launch size")
            return launch_sizes.constant(attr.value.data, _width(value))
        args = [expression(o, op) for o in op.operands]
        if op.name == "arith.cmpi":
            predicate = op.properties["predicate"]
            assert isinstance(predicate, IntegerAttr)
            return launch_sizes.compare(predicate.value.data, args)
        if op.name in ("arith.andi", "arith.ori", "arith.xori") and _width(value) == 1:
            return launch_sizes.logical(op.name, args)
        if op.name not in launch_sizes.OPS:
            raise fail(op, "not expressible in a launch size")
        try:
            return launch_sizes.build(op.name, args, _width(value))
        except launch_sizes.Inexpressible as e:
            raise fail(op, f"{e} in a launch size") from None

    def signed(value: SSAValue, user: Operation) -> str:
        return launch_sizes.as_signed(expression(value, user)).render()

    launches: list[dict[str, Any]] = []
    scratch: list[dict[str, Any]] = []  # memref.alloc in the host function: per call
    control = False

    def steps_of(block: Block) -> list[dict[str, Any]]:
        nonlocal control
        steps: list[dict[str, Any]] = []
        for op in block.ops:
            if isinstance(op, gpu.LaunchFuncOp):
                steps.append({"launch": len(launches)})
                launches.append(_launch(op, kernels, names, counters, expression, fail))
            elif isinstance(op, scf.ForOp):
                control = True
                if op.iter_args:
                    raise fail(op, "a host loop cannot carry values")
                iv = op.body.block.args[0]
                var = fresh(iv.name_hint or "iv")
                counters[iv] = var
                steps.append({"for": {
                    "var": var, "ctype": of_ir(iv.type).name,
                    "lb": signed(op.lb, op), "ub": signed(op.ub, op), "step": signed(op.step, op),
                    "body": steps_of(op.body.block)}})  # fmt: skip
            elif isinstance(op, scf.IfOp):
                control = True
                if op.results:
                    raise fail(op, "a host 'if' cannot yield values")
                cond = expression(op.cond, op).expr.render()
                orelse = steps_of(op.false_region.block) if op.false_region.blocks else []
                steps.append({"if": {"cond": cond, "then": steps_of(op.true_region.block),
                                     "else": orelse}})
            elif isinstance(op, memref.AllocOp):  # a scratch buffer of the call
                if block is not function.body.block:
                    raise fail(op, "a scratch buffer inside host control flow")
                scratch_name = f"agpu_scratch{len(scratch)}"
                while scratch_name in taken:
                    scratch_name += "_"
                taken.add(scratch_name)
                counters[op.memref] = scratch_name
                (elements,) = op.dynamic_sizes
                scratch.append({"name": scratch_name,
                                "dtype": of_ir(op.memref.type.element_type).dtype,
                                "elements": signed(elements, op)})
            elif isinstance(op, scf.WhileOp):
                control = True
                if op.arguments or op.results:
                    raise fail(op, "a host 'while' cannot carry values")
                condition = op.before_region.block.last_op
                assert isinstance(condition, scf.ConditionOp)
                before = steps_of(op.before_region.block)
                cond = expression(condition.condition, condition).expr.render()
                steps.append({"while": {"before": before, "cond": cond,
                                        "body": steps_of(op.after_region.block)}})
            elif isinstance(op, memref.LoadOp) and isinstance(op.memref.owner,
                                                               memref.GetGlobalOp):
                control = True
                ref = op.memref.owner.name_
                if op.indices or ref.root_reference.data != "kernels" \
                        or len(ref.nested_references.data) != 1:
                    raise fail(op, "a host read of something other than a scalar device "
                                   "variable of @kernels")
                var = fresh(op.res.name_hint or "value")
                counters[op.res] = var
                steps.append({"read": {"var": var,
                                       "global": ref.nested_references.data[0].data,
                                       "ctype": of_ir(op.res.type).name}})
            elif isinstance(op, memref.GetGlobalOp | scf.ConditionOp):
                pass
            elif isinstance(op, func.ReturnOp):
                if op.operands:
                    raise fail(op, "a host function must return nothing")
            elif not (op.name.startswith("arith.") and not op.regions) and op.name != "scf.yield":
                raise fail(
                    op, "host code may only compute launch sizes, run loops and ifs, and "
                    "launch kernels"
                )
        return steps

    steps = steps_of(function.body.block)
    entry: dict[str, Any] = {"name": name, "params": params, "launches": launches}
    if control:  # without host control flow, the launches run once each, in order
        entry["steps"] = steps
    if required := requirements_of(function):  # agpu-specialize: the sizes compiled in
        entry["requires"] = required
    if scratch:
        entry["scratch"] = scratch
    if (parts := function.attributes.get("agpu.parts")) is not None:  # agpu-out-of-core
        entry["parts"] = _plain(parts)
    return entry


def _plain(attr: Attribute) -> Any:
    """An attribute of strings, arrays, dictionaries and units as JSON (a unit is true)."""
    if isinstance(attr, DictionaryAttr):
        return {key: _plain(value) for key, value in attr.data.items()}
    if isa(attr, ArrayAttr):
        return [_plain(value) for value in attr.data]
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, UnitAttr):
        return True
    raise CompileError(f"cuda target: cannot describe the attribute {attr}")


def _launch(
    op: gpu.LaunchFuncOp,
    kernels: dict[str, gpu.FuncOp],
    names: list[str],
    counters: dict[SSAValue, str],
    expression: Callable[[SSAValue, Operation], Size],
    fail: Callable[[Operation, str], CompileError],
) -> dict[str, Any]:
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
    function_block = op.parent_op()
    while not isinstance(function_block, func.FuncOp):
        function_block = function_block.parent_op()  # pyright: ignore[reportOptionalMemberAccess]
    for operand in op.kernelOperands:
        if operand in counters:
            args.append(counters[operand])
            continue
        if not isinstance(operand, BlockArgument) or operand.owner is not function_block.body.block:
            raise fail(
                op, "a kernel argument that is not a parameter of the host function or the "
                "counter of a host loop"
            )
        args.append(names[operand.index])
    expected = kernel.function_type.inputs.data
    if tuple(o.type for o in op.kernelOperands) != tuple(expected):
        raise fail(op, f"arguments do not match the parameters of @{kernel_name}")

    def size(value: SSAValue) -> str:
        return launch_sizes.as_signed(expression(value, op)).render()

    grid = [op.gridSizeX, op.gridSizeY, op.gridSizeZ]
    block = [op.blockSizeX, op.blockSizeY, op.blockSizeZ]
    shared = op.dynamicSharedMemorySize
    entry: dict[str, Any] = {
        "kernel": kernel_name,
        "grid": [size(v) for v in grid],
        "block": [size(v) for v in block],
        "args": args,
        "dynamic_shared_bytes": "0" if shared is None else size(shared),
        "static_shared_bytes": static_shared_bytes(kernel),
    }
    if isinstance(nest := op.attributes.get("agpu.part_nest"), IntegerAttr):  # agpu-out-of-core
        entry["part_nest"] = nest.value.data
    if isinstance(bounds := op.attributes.get("agpu.launch_bounds"), DictionaryAttr):
        entry["launch_bounds"] = _plain(bounds)  # num_teams(e), thread_limit(e): checked at launch
    return entry


def _width(value: SSAValue) -> int:
    return ir_width(value.type)


def _params(function: func.FuncOp) -> tuple[list[dict[str, Any]], list[str]]:
    params: list[dict[str, Any]] = []
    names: list[str] = []
    fname = function.sym_name.data
    inputs = function.function_type.inputs.data
    maps = maps_of(function)
    for param, type in zip(CSignature.of(function).params, inputs, strict=True):
        name = param.name
        if name in names:
            raise CompileError(
                f"cuda target: two parameters named {name} in func.func @{fname}",
                location_of(function),
            )
        names.append(name)
        try:
            ctype = param.type
        except UnsupportedType:
            raise CompileError(
                f"cuda target: parameter {name} of func.func @{fname} has unsupported type {type}",
                location_of(function),
            ) from None
        entry: dict[str, Any] = {
            "name": name,
            "kind": "array" if param.is_array else "scalar",
            "dtype": ctype.dtype,
            "ctype": param.spelling or ctype.name,
        }
        if param.is_array:
            entry["const"] = param.const
            entry["restrict"] = param.restrict
            entry["extents"] = None if param.extents is None else list(param.extents)
            if name in maps:  # only under OpenMP `map` clauses (docs/ir.md, "Data mapping")
                entry["map"] = maps[name]
        params.append(entry)
    return params, names


def describe_module(module: ModuleOp, kernels: dict[str, gpu.FuncOp]) -> dict[str, Any]:
    functions = [
        describe_host_function(op, kernels)
        for op in module.ops
        if isinstance(op, func.FuncOp) and op.body.blocks
    ]
    return {"functions": functions}
