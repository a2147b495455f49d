"""Size requirements of specialised kernels (`agpu-specialize`), from the IR to the executors.

`agpu-specialize{sizes="m=2048"}` compiles a function for one value of a scalar parameter but
keeps its signature, so callers and the launch description do not change. The kernels are then
only correct for that value, which the function records as the attribute
`agpu.requires = {m = 2048 : i64}` (on the C-level `func.func`, kept by the lowering on the host
function). The launch description carries it as

    {"name": "matmul", "params": [...], "launches": [...], "requires": {"m": 2048}}

and the executors refuse a call with another value before anything runs:

- `requirements_of(fn)` reads the attribute (the `cuda` target's `describe_host_function`
  writes the entry with it); `describe_requirements(module, launch)` adds the entries to a
  launch description made without them;
- `violation(name, requires, scalars)` says what is wrong with a call (the executors'
  `bind_arguments` raises it as a `KernelArgumentError`, naming the parameter, the value given
  and the value the kernels were compiled for); `arguments.check_requirements(function_entry,
  scalars)` raises it directly.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the executors import this module: they need no xDSL
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp

def requirements_of(fn: func.FuncOp) -> dict[str, int]:
    """The parameter values `fn` was specialised for (empty when it was not)."""
    from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr

    from autogpu.dialects.signature import REQUIRES

    attr = fn.attributes.get(REQUIRES)
    if not isinstance(attr, DictionaryAttr):
        return {}
    required: dict[str, int] = {}
    for name, value in attr.data.items():
        assert isinstance(value, IntegerAttr), f"{REQUIRES} holds integers, got {value}"
        required[name] = value.value.data
    return required


def describe_requirements(module: ModuleOp, launch: MutableMapping[str, Any]) -> None:
    """Adds `"requires": {name: value}` to each function of the launch description whose host
    `func.func` in `module` was specialised."""
    from xdsl.dialects import func

    functions = {
        op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)
    }
    for entry in launch.get("functions", []):
        fn = functions.get(entry.get("name"))
        if fn is not None and (required := requirements_of(fn)):
            entry["requires"] = required


def violation(
    function: str, requires: Mapping[str, int], scalars: Mapping[str, Any]
) -> str | None:
    """Why a call of `function` with these scalar arguments cannot run kernels specialised for
    `requires`, or None when it can."""
    for param, value in requires.items():
        if param not in scalars:
            return (
                f"{function}() was specialised for {param} = {value}, but {param} is not one of "
                "its scalar arguments"
            )
        given = scalars[param]
        if isinstance(given, bool) or int(given) != given or int(given) != int(value):
            return (
                f"{function}() was compiled for {param} = {value} (agpu-specialize) and cannot "
                f"run with {param} = {given}: recompile without specialising {param}, or for "
                f"{param} = {given}"
            )
    return None
