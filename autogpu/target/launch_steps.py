"""The host program of a launch description: which launches run, in which order, how often.

A function entry's `steps` (docs/ir.md, "The launch description") is the host code around its
kernels, as the host function of `convert-agpu-to-gpu` keeps it: `{"launch": i}` runs entry `i`
of `launches`; `{"for": {"var", "ctype", "lb", "ub", "step", "body"}}` runs `body` for `var =
lb; var < ub; var += step` (bounds and step evaluated once, before the loop, as `scf.for` does;
`var` is a value of C type `ctype` that launch expressions and kernel arguments may name);
`{"if": {"cond", "then", "else"}}` runs `then` when `cond` is not 0. Data-dependent control
(a convergence loop, `while (diff > tol)`) adds two steps: `{"read": {"var", "global",
"ctype"}}` copies the device variable `global` (a `__device__` scalar of C type `ctype` that a
kernel computed, e.g. the loop's condition) to the host after the launches before it have run,
and binds it to `var` for the expressions after it; `{"while": {"before", "cond", "body"}}` runs
`before`, then `body` while `cond` is not 0, and `before` again before each test (`scf.while`).
An entry without `steps` runs each launch once, in order. Every reader (the executors, the
tuner, `Kernel.launch_config`) goes through `run_steps` (or `iterate_steps`, which yields each
launch before the host program goes on, so that a read sees what the launches before it wrote),
and the tuner's C++ launcher prints the same program (`to_cxx`). A program without `read` steps
needs no device data: its launches can be listed ahead (`has_reads`).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from typing_extensions import TypeIs

from autogpu.dialects.signature import C_TYPES
from autogpu.target.launch import evaluate

Step = Mapping[str, Any]
Reader = Callable[[str, str], Any]
"""Reads a device variable: (global name, C type) -> its value."""


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
        elif "while" in step:
            found.update(counters(step["while"]["before"]))
            found.update(counters(step["while"]["body"]))
    return found


def reads(steps: Sequence[Step]) -> dict[str, str]:
    """The device variables the program reads: global name -> C type."""
    found: dict[str, str] = {}
    for step in steps:
        if "read" in step:
            found[step["read"]["global"]] = step["read"]["ctype"]
        for key, branches in (("for", ("body",)), ("if", ("then", "else")),
                              ("while", ("before", "body"))):  # fmt: skip
            if key in step:
                for branch in branches:
                    found.update(reads(step[key].get(branch, [])))
    return found


def has_reads(steps: Sequence[Step]) -> bool:
    """Whether the program reads device data (its launches depend on what kernels compute)."""
    return bool(reads(steps))


def check_steps(steps: Any, launch_count: int, taken: set[str]) -> None:
    """Raises ValueError where `steps` is not a host program over `launch_count` launches whose
    counters have names other than `taken` (the parameters) and each other."""
    if not _is_list(steps):
        raise ValueError("'steps' must be a list")
    for step in steps:
        if not _is_step(step) or len(step) != 1:
                raise ValueError(f"a step must be one of {_KINDS}: {step!r}")
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
        elif "while" in step:
            loop = step["while"]
            missing = {"before", "cond", "body"} - set(loop)
            if missing:
                raise ValueError(f"a 'while' step has no {', '.join(sorted(missing))}")
            check_steps(loop["before"], launch_count, taken)
            check_steps(loop["body"], launch_count, taken)
        elif "read" in step:
            read = step["read"]
            missing = {"var", "global", "ctype"} - set(read)
            if missing:
                raise ValueError(f"a 'read' step has no {', '.join(sorted(missing))}")
            ctype = C_TYPES.get(read["ctype"])
            if ctype is None or ctype.is_float:
                raise ValueError(f"read '{read['var']}' has type {read['ctype']!r}, not an "
                                 "integer type")
            if not str(read["global"]).isidentifier():
                raise ValueError(f"read '{read['var']}' names no device variable: "
                                 f"{read['global']!r}")
            if read["var"] in taken:
                raise ValueError(f"read '{read['var']}' is already a name")
            taken.add(read["var"])
        else:
            raise ValueError(f"a step must be one of {_KINDS}: {step!r}")


_KINDS = "launch, for, if, while, read"


def run_steps(
    steps: Sequence[Step], scalars: Mapping[str, Any],
    launch: Callable[[int, Mapping[str, Any]], None], read: Reader | None = None,
) -> None:
    """Runs the host program: `launch(i, values)` for each launch it runs, in order, `values`
    being the scalar parameters, the counters and the values read in scope (NumPy scalars of
    their C type); `read` gives a device variable's value (a program with `read` steps needs
    one: ValueError without it)."""
    for index, env in iterate_steps(steps, scalars, read):
        launch(index, env)


def iterate_steps(
    steps: Sequence[Step], scalars: Mapping[str, Any], read: Reader | None = None,
) -> Generator[tuple[int, dict[str, Any]], None, None]:
    """The launches of the host program, (launch index, the values in scope), each yielded
    before the program goes on: a `read` after it sees what the consumer launched."""
    env = dict(scalars)
    yield from _iterate(steps, env, read)


def _iterate(steps: Sequence[Step], env: dict[str, Any], read: Reader | None
             ) -> Generator[tuple[int, dict[str, Any]], None, None]:
    for step in steps:
        if "launch" in step:
            yield step["launch"], env
        elif "for" in step:
            loop = step["for"]
            make = np.dtype(C_TYPES[loop["ctype"]].dtype).type
            lb, ub, stride = (evaluate(loop[k], env) for k in ("lb", "ub", "step"))
            if stride <= 0:
                raise ValueError(f"loop over '{loop['var']}' has step {stride} (must be > 0)")
            value = lb
            while value < ub:
                env[loop["var"]] = make(value)
                yield from _iterate(loop["body"], env, read)
                value += stride
            env.pop(loop["var"], None)
        elif "read" in step:
            variable = step["read"]
            if read is None:
                raise ValueError(f"the host program reads the device variable "
                                 f"'{variable['global']}': it needs the kernels run")
            make = np.dtype(C_TYPES[variable["ctype"]].dtype).type
            env[variable["var"]] = int(make(read(variable["global"], variable["ctype"])))
        elif "while" in step:
            loop = step["while"]
            while True:
                yield from _iterate(loop["before"], env, read)
                if not evaluate(loop["cond"], env):
                    break
                yield from _iterate(loop["body"], env, read)
        else:
            branch = step["if"]
            chosen = branch["then"] if evaluate(branch["cond"], env) else branch.get("else", [])
            yield from _iterate(chosen, env, read)


def trace(steps: Sequence[Step], scalars: Mapping[str, Any]
          ) -> Iterator[tuple[int, dict[str, Any]]]:
    """The launches the program runs: (launch index, the values in scope), in order."""
    runs: list[tuple[int, dict[str, Any]]] = []
    run_steps(steps, scalars, lambda i, env: runs.append((i, dict(env))))
    return iter(runs)


def each_launch_once(steps: Sequence[Step], scalars: Mapping[str, Any]
                     ) -> list[tuple[int, dict[str, Any]]]:
    """Every launch of the program once, in program order, with the values in scope where it
    stands (counters at their loops' lower bounds, values read back as 0): what a program that
    reads the device may launch, for the checks made before it runs (`Kernel.launch_config`,
    the tuner's resource check), its trip counts being known only as it runs."""
    found: list[tuple[int, dict[str, Any]]] = []

    def visit(steps: Sequence[Step], env: dict[str, Any]) -> None:
        for step in steps:
            if "launch" in step:
                found.append((step["launch"], dict(env)))
            elif "for" in step:
                loop = step["for"]
                make = np.dtype(C_TYPES[loop["ctype"]].dtype).type
                visit(loop["body"], {**env, loop["var"]: make(evaluate(loop["lb"], env))})
            elif "read" in step:
                env[step["read"]["var"]] = 0
            elif "while" in step:
                visit(step["while"]["before"], env)
                visit(step["while"]["body"], env)
            else:
                visit(step["if"]["then"], dict(env))
                visit(step["if"].get("else", []), dict(env))

    visit(steps, dict(scalars))
    return found


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
        elif "read" in step:
            variable = step["read"]
            ctype = C_TYPES[variable["ctype"]].name
            lines.append(f"{indent}{ctype} {variable['var']}; cudaMemcpyFromSymbol("
                         f"&{variable['var']}, {variable['global']}, sizeof({ctype}));")
        elif "while" in step:
            loop = step["while"]
            lines.append(f"{indent}for (;;) {{")
            lines += to_cxx(loop["before"], expression, launch, indent + "  ")
            lines.append(f"{indent}  if (!({expression(loop['cond'])})) break;")
            lines += to_cxx(loop["body"], expression, launch, indent + "  ")
            lines.append(f"{indent}}}")
        else:
            branch = step["if"]
            lines.append(f"{indent}if ({expression(branch['cond'])}) {{")
            lines += to_cxx(branch["then"], expression, launch, indent + "  ")
            if branch.get("else"):
                lines.append(f"{indent}}} else {{")
                lines += to_cxx(branch["else"], expression, launch, indent + "  ")
            lines.append(f"{indent}}}")
    return lines
