"""The host program of a launch description: which launches run, in which order, how often.

A function entry's `steps` (docs/ir.md, "The launch description") is the host code around its
kernels, as the host function of `convert-agpu-to-gpu` keeps it: `{"launch": i}` runs entry `i`
of `launches`; `{"for": {"var", "ctype", "lb", "ub", "step", "body"}}` runs `body` for `var =
lb; var < ub; var += step` (bounds and step evaluated once, before the loop, as `scf.for` does;
`var` is a value of C type `ctype` that launch expressions and kernel arguments may name);
`{"if": {"cond", "then", "else"}}` runs `then` when `cond` is not 0. An entry without `steps`
runs each launch once, in order. Every reader (the executors, the tuner, `Kernel.launch_config`)
goes through `run_steps`, and the tuner's C++ launcher prints the same program (`to_cxx`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from typing_extensions import TypeIs

from autogpu.dialects.signature import C_TYPES
from autogpu.target.launch import evaluate

Step = Mapping[str, Any]


def _is_list(value: object) -> TypeIs[list[Any]]:
    """A JSON array, its items still to be checked."""
    return isinstance(value, list)


def _is_step(value: object) -> TypeIs[Step]:
    """A JSON object (string keys), its entries still to be checked."""
    return isinstance(value, Mapping)


def steps_of(entry: Mapping[str, Any]) -> list[Step]:
    """The function's host program: its `steps`, or each launch once in order."""
    if "steps" in entry:
        return list(entry["steps"])
    return [{"launch": i} for i in range(len(entry.get("launches", ())))]


def counters(steps: Sequence[Step]) -> dict[str, str]:
    """The loop counters the program defines: name -> C type."""
    found: dict[str, str] = {}
    for step in steps:
        if "for" in step:
            found[step["for"]["var"]] = step["for"]["ctype"]
            found.update(counters(step["for"]["body"]))
        elif "if" in step:
            found.update(counters(step["if"]["then"]))
            found.update(counters(step["if"].get("else", [])))
    return found


def check_steps(steps: Any, launch_count: int, taken: set[str]) -> None:
    """Raises ValueError where `steps` is not a host program over `launch_count` launches whose
    counters have names other than `taken` (the parameters) and each other."""
    if not _is_list(steps):
        raise ValueError("'steps' must be a list")
    for step in steps:
        if not _is_step(step) or len(step) != 1:
            raise ValueError(f"a step must be one of launch, for, if: {step!r}")
        if "launch" in step:
            index = step["launch"]
            if isinstance(index, bool) or not isinstance(index, int) \
                    or not 0 <= index < launch_count:
                raise ValueError(f"step {step!r} names no launch (there are {launch_count})")
        elif "for" in step:
            loop = step["for"]
            missing = {"var", "ctype", "lb", "ub", "step", "body"} - set(loop)
            if missing:
                raise ValueError(f"a 'for' step has no {', '.join(sorted(missing))}")
            if loop["var"] in taken:
                raise ValueError(f"loop counter '{loop['var']}' is already a name")
            ctype = C_TYPES.get(loop["ctype"])
            if ctype is None or ctype.is_float:
                raise ValueError(f"loop counter '{loop['var']}' has type {loop['ctype']!r}, "
                                 "not an integer type")
            taken.add(loop["var"])
            check_steps(loop["body"], launch_count, taken)
        elif "if" in step:
            branch = step["if"]
            if "cond" not in branch or "then" not in branch:
                raise ValueError("an 'if' step needs 'cond' and 'then'")
            check_steps(branch["then"], launch_count, taken)
            check_steps(branch.get("else", []), launch_count, taken)
        else:
            raise ValueError(f"a step must be one of launch, for, if: {step!r}")


def run_steps(
    steps: Sequence[Step], scalars: Mapping[str, Any],
    launch: Callable[[int, Mapping[str, Any]], None],
) -> None:
    """Runs the host program: `launch(i, values)` for each launch it runs, in order, `values`
    being the scalar parameters and the counters in scope (NumPy scalars of their C type)."""
    env = dict(scalars)
    for step in steps:
        if "launch" in step:
            launch(step["launch"], env)
        elif "for" in step:
            loop = step["for"]
            make = np.dtype(C_TYPES[loop["ctype"]].dtype).type
            lb, ub, stride = (evaluate(loop[k], env) for k in ("lb", "ub", "step"))
            if stride <= 0:
                raise ValueError(f"loop over '{loop['var']}' has step {stride} (must be > 0)")
            value = lb
            while value < ub:
                env[loop["var"]] = make(value)
                run_steps(loop["body"], env, launch)
                value += stride
            env.pop(loop["var"], None)
        else:
            branch = step["if"]
            chosen = branch["then"] if evaluate(branch["cond"], env) else branch.get("else", [])
            run_steps(chosen, env, launch)


def trace(steps: Sequence[Step], scalars: Mapping[str, Any]
          ) -> Iterator[tuple[int, dict[str, Any]]]:
    """The launches the program runs: (launch index, the values in scope), in order."""
    runs: list[tuple[int, dict[str, Any]]] = []
    run_steps(steps, scalars, lambda i, env: runs.append((i, dict(env))))
    return iter(runs)


def to_cxx(
    steps: Sequence[Step], expression: Callable[[str], str],
    launch: Callable[[int], list[str]], indent: str = "  ",
) -> list[str]:
    """The host program as C++ statements: `expression` prints a launch expression, `launch`
    the statements of one launch."""
    lines: list[str] = []
    for step in steps:
        if "launch" in step:
            lines += [indent + text for text in launch(step["launch"])]
        elif "for" in step:
            loop = step["for"]
            var, ctype = loop["var"], loop["ctype"]
            bound = f"agpu_{var}_ub"
            lines.append(f"{indent}{{ const long long {bound} = {expression(loop['ub'])};")
            lines.append(f"{indent}for ({ctype} {var} = ({ctype})({expression(loop['lb'])}); "
                         f"{var} < {bound}; {var} += ({ctype})({expression(loop['step'])})) {{")
            lines += to_cxx(loop["body"], expression, launch, indent + "  ")
            lines.append(f"{indent}}} }}")
        else:
            branch = step["if"]
            lines.append(f"{indent}if ({expression(branch['cond'])}) {{")
            lines += to_cxx(branch["then"], expression, launch, indent + "  ")
            if branch.get("else"):
                lines.append(f"{indent}}} else {{")
                lines += to_cxx(branch["else"], expression, launch, indent + "  ")
            lines.append(f"{indent}}}")
    return lines
