"""Shrinks a failing program while it keeps failing the same way (greedy delta debugging).

Steps, repeated until none applies: delete a statement, replace an `if` by one of its branches,
drop the pragma of a loop, replace an expression by a constant from its interval or by an
operand of the same type and a narrower interval. None of them can introduce undefined
behaviour: indices, divisor guards and the operands of reduction updates are frozen
(`expr.Expr.frozen`), statements that only make sense together are one `Block`, and a
candidate that gcc rejects (an undeclared name) is skipped.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterator
from typing import Any, cast

import numpy as np

from autogpu.testing.fuzz import expr as X
from autogpu.testing.fuzz.program import If, Loop, Program, Stmt, walk_statements
from autogpu.testing.fuzz.runner import (
    Case,
    Finding,
    check_arguments,
    compare,
    describe_exception,
    lower,
    parse,
    reference,
)
from autogpu.testing.gcc_reference import ReferenceCompileError


def still_fails(finding: Finding) -> Callable[[Program], bool]:
    """Whether a candidate program fails like `finding` (same kind; same first line of the
    error for compile errors and crashes)."""
    wanted = finding.signature()
    case: Case | None = finding.case

    def test(program: Program) -> bool:
        source = program.source()
        try:
            gcc = reference(source, [program])[program.name]
        except ReferenceCompileError:
            return False
        try:
            runner = None
            if finding.pipeline is not None:
                pipeline = finding.pipeline.only([program])
                runner = lower(parse(source), pipeline, finding.thread_seed)
            if case is None:
                return False
            args = program.arguments(case.sizes, np.random.default_rng(case.seed))
            expected: list[Any] = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
            gcc(*expected)
            if runner is None:  # no pipeline: the finding is about the arguments
                check_arguments(program, parse(source), args)
                return False
            runner.run(program.name, *args)
        except Exception as e:  # noqa: BLE001 - the failure we are keeping
            kind, detail = describe_exception(e)
            return Finding(kind, program, None, detail).signature() == wanted
        if compare(program, args, expected) is None:
            return False
        return wanted == "mismatch"

    return test


def reduce_finding(finding: Finding, seconds: float = 600.0) -> Finding:
    """A copy of `finding` with its program shrunk (within about `seconds`)."""
    test = still_fails(finding)
    if not test(finding.program):
        return finding  # flaky, or depends on the rest of its batch: keep it as it is
    reduced = copy.copy(finding)
    reduced.program = reduce_program(finding.program, test, seconds)
    reduced.detail = f"(reduced)\n{finding.detail}"
    return reduced


def reduce_program(program: Program, test: Callable[[Program], bool], seconds: float) -> Program:
    """A smaller copy of `program` for which `test` still holds (`test(program)` must)."""
    program = copy.deepcopy(program)
    deadline = time.monotonic() + seconds
    changed = True
    while changed and time.monotonic() < deadline:
        changed = False
        for attempt in candidates(program):
            if time.monotonic() > deadline:
                break
            undo = attempt()
            if undo is None:
                continue
            if test(program):
                changed = True
            else:
                undo()
    return program


Attempt = Callable[[], Callable[[], object] | None]


def candidates(program: Program) -> Iterator[Attempt]:
    """Changes to try, coarse first; each applies itself and returns its undo (or None)."""
    for holder, stmt in list(walk_statements(program.body)):
        if stmt.removable:
            yield lambda h=holder, s=stmt: _remove(h, s)
    for holder, stmt in list(walk_statements(program.body)):
        if isinstance(stmt, If):
            for branch in (stmt.then, stmt.other or []):
                yield lambda h=holder, s=stmt, b=branch: _splice(h, s, b)
        if isinstance(stmt, Loop) and stmt.pragma:
            yield lambda s=stmt: _drop_pragma(s)
    for _, stmt in list(walk_statements(program.body)):
        for root in stmt.exprs():
            for parent, node in _nodes(stmt, root):
                for replacement in _smaller(node):
                    yield lambda p=parent, n=node, r=replacement: _replace(p, n, r)


def _remove(holder: list[Stmt], stmt: Stmt):
    if stmt not in holder:
        return None
    position = holder.index(stmt)
    holder.pop(position)
    return lambda: holder.insert(position, stmt)


def _splice(holder: list[Stmt], stmt: Stmt, branch: list[Stmt]):
    if stmt not in holder:
        return None
    position = holder.index(stmt)
    holder[position : position + 1] = branch
    return lambda: holder.__setitem__(slice(position, position + len(branch)), [stmt])


def _drop_pragma(loop: Loop):
    pragma = loop.pragma
    assert pragma is not None  # only loops with a pragma are tried
    if "reduction" in pragma:  # the updates would race
        return None
    loop.pragma = None
    return lambda: setattr(loop, "pragma", pragma)


def _nodes(owner: Any, root: X.Expr) -> Iterator[tuple[Any, X.Expr]]:
    """(parent, node) for every node the reducer may replace, outermost first."""
    stack = [(owner, root)]
    while stack:
        parent, node = stack.pop(0)
        if not node.frozen:
            yield parent, node
        stack += [(node, child) for child in node.children()]


def _smaller(node: X.Expr) -> list[X.Expr]:
    """Replacements of `node` that keep every value inside its interval: a constant, or an
    operand of the same type whose interval lies inside (integers of unknown range: none)."""
    if not node.type.is_float and node.interval is None:
        return []
    options: list[X.Expr] = []
    if not isinstance(node, X.Const) or node.value not in (0, 0.0):
        options.append(X.const(node.type, _small_value(node)))
    for child in node.children():
        if child.type == node.type and _inside(child.interval, node.interval):
            options.append(child)
    return options


def _inside(inner: X.Interval | None, outer: X.Interval | None) -> bool:
    if outer is None:  # floating point
        return True
    return inner is not None and outer[0] <= inner[0] and inner[1] <= outer[1]


def _small_value(node: X.Expr) -> int | float:
    if node.type.is_float:
        return 0.0
    lo, hi = node.int_interval
    return 0 if lo <= 0 <= hi else (lo if lo > 0 else hi)


def _replace(parent: object, old: X.Expr, new: X.Expr) -> Callable[[], bool] | None:
    if not _swap(parent, old, new):
        return None
    return lambda: _swap(parent, new, old)


def _swap(owner: object, old: object, new: object) -> bool:
    for name, value in vars(owner).items():
        if value is old:
            setattr(owner, name, new)
            return True
        if isinstance(value, list):
            items = cast("list[object]", value)
            if any(v is old for v in items):
                setattr(owner, name, [new if v is old else v for v in items])
                return True
    return False
