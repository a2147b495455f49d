"""`autogpu_run_<function>`: the tuner's C++ launcher for host arrays, copying as the OpenMP
`map` clauses say.

`autogpu_launch_<function>` (host_program.py) takes device pointers: the user's program does
its own copies. `autogpu_run_<function>` takes the C function's parameters with host arrays,
followed by each array's length in elements (`size_t <name>_elements`, in parameter order: a
C pointer carries no length), and moves what the GPU executor moves for NumPy arrays
(`runtime/array_arguments.py`, docs/ir.md "Data mapping"):

| map | copied in | copied back | the device buffer before the kernels |
| --- | --- | --- | --- |
| tofrom (or none) | yes | yes (not const arrays) | the caller's values |
| to | yes | no | the caller's values |
| from | no | yes | 0xFF bytes (a read before the write shows: NaN, -1) |
| alloc | no | no | 0xFF bytes |

It returns the first CUDA error (`cudaSuccess` when all went well), after freeing its buffers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from autogpu.dialects.signature import BY_DTYPE


def copies_in(param: Mapping[str, Any]) -> bool:
    return param.get("map", "tofrom") in ("to", "tofrom")


def copies_back(param: Mapping[str, Any]) -> bool:
    return param.get("map", "tofrom") in ("from", "tofrom") and not param.get("const")


def _ctype(param: Mapping[str, Any]) -> str:
    """The kernel's own C name of the element type (as `autogpu_launch_` declares it)."""
    return BY_DTYPE[param["dtype"]].name if param.get("dtype") in BY_DTYPE else param["ctype"]


def elements_name(param: Mapping[str, Any]) -> str:
    return f"{param['name']}_elements"


def run_function(entry: Mapping[str, Any], declarations: Sequence[str]) -> list[str]:
    """The lines of `autogpu_run_<function>`; `declarations` are the C parameters as
    `autogpu_launch_<function>` declares them."""
    name = entry["name"]
    params = entry["params"]
    arrays = [p for p in params if p["kind"] == "array"]
    signature = [*declarations, *(f"size_t {elements_name(p)}" for p in arrays)]
    lines = [
        f"/* {name} on host arrays: copies as the OpenMP maps say; returns the first CUDA error */",
        # unused where the program launches on its own device arrays: no warning then
        f"__attribute__((unused)) static inline cudaError_t autogpu_run_{name}("
        f"{', '.join(signature)}) {{",
        "  cudaError_t agpu_e = cudaSuccess;",
    ]
    device = {p["name"]: f"agpu_d_{p['name']}" for p in arrays}

    def step(statement: str, comment: str = "") -> str:
        note = f"  /* {comment} */" if comment else ""
        return f"  if (agpu_e == cudaSuccess) agpu_e = {statement};{note}"

    def nbytes(p: Mapping[str, Any]) -> str:
        return f"{elements_name(p)} * sizeof({_ctype(p)})"

    for p in arrays:
        lines.append(f"  {_ctype(p)} *{device[p['name']]} = 0;")
    for p in arrays:
        lines.append(step(f"cudaMalloc((void **)&{device[p['name']]}, "
                          f"{nbytes(p)} ? {nbytes(p)} : 1)"))
    for p in arrays:
        clause = f"map({p.get('map', 'tofrom')}: {p['name']})"
        if copies_in(p):
            lines.append(step(f"cudaMemcpy({device[p['name']]}, {p['name']}, {nbytes(p)}, "
                              "cudaMemcpyHostToDevice)", f"{clause}: copied in"))
        else:
            lines.append(step(f"cudaMemset({device[p['name']]}, 0xFF, {nbytes(p)})",
                              f"{clause}: not copied in, poisoned"))
    arguments = [device[p["name"]] if p["name"] in device else p["name"] for p in params]
    lines += [
        "  if (agpu_e == cudaSuccess) {",
        f"    autogpu_launch_{name}({', '.join(arguments)});",
        "    agpu_e = cudaGetLastError();",
        "  }",
        step("cudaDeviceSynchronize()"),
    ]
    for p in arrays:
        if copies_back(p):
            clause = f"map({p.get('map', 'tofrom')}: {p['name']})"
            lines.append(step(f"cudaMemcpy({p['name']}, {device[p['name']]}, {nbytes(p)}, "
                              "cudaMemcpyDeviceToHost)", f"{clause}: copied back"))
    lines += [f"  cudaFree({device[p['name']]});" for p in arrays]
    lines += ["  return agpu_e;", "}"]
    return lines
