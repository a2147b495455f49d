"""Canonical `for` loops (docs/ir.md): the loops that become `scf.for` / `agpu.parallel_for`.

A loop is canonical when its init sets one integer variable, its condition compares that
variable (in its own type) with a loop-invariant bound by <, <=, >, >= or !=, its step moves it
by a loop-invariant amount in the direction of the bound, and the body never assigns it.
Everything else stays a `while` loop, which always keeps C's semantics.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from autogpu.frontend import ast
from autogpu.frontend.consteval import const_int
from autogpu.frontend.symbols import Var, is_name, walk_expr
from autogpu.frontend.types import Scalar, max_value, promote

_SWAPPED = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "!=": "!="}


@dataclass
class Effects:
    """What a region of code writes: variables, and whether it stores to any array."""

    assigned: set[Var] = field(default_factory=set[Var])
    stores_memory: bool = False


@dataclass(eq=False)
class CanonicalLoop:
    """`for (i = start; i <cmp> bound; i += step)`, normalised to an increasing range.

    increasing: i = start, start + step, ... while i < bound (+1 if inclusive);
    decreasing: i = start, start - step, ... while i > bound (>= if inclusive).
    `start` None: the loop has no init; it starts from the variable's current value.
    `step` is a positive constant (int) or a loop-invariant expression assumed positive.
    `modular`: a `!=` condition on an unsigned variable, which C runs `(bound - start) mod 2^N`
    times (`start - bound` decreasing), wrapping around past 0 or the largest value
    (`for (unsigned i = n - 1; i != -1u; i--)`); `!=` on a signed one is `<` or `>` (wrapping
    would be an overflow).
    """

    var: Var
    start: ast.Expr | None
    bound: ast.Expr
    inclusive: bool
    increasing: bool
    step: int | ast.Expr
    declared_in_init: bool
    modular: bool = False


def canonical_form(loop: ast.For, body: Effects) -> tuple[CanonicalLoop | None, str]:
    """The canonical form of `loop` (docs/ir.md), or None and why it is not canonical."""
    init = loop.init
    var: Var | None = None
    start: ast.Expr | ast.BraceInit | None = None
    declared = False
    if isinstance(init, ast.Decl):
        if len(init.declarators) != 1 or init.declarators[0].init is None:
            return None, "its init must declare and initialise one variable"
        var, start, declared = init.declarators[0].var, init.declarators[0].init, True
    elif isinstance(init.expr, ast.Assign) and init.expr.op == "=":
        target = init.expr.target
        if not isinstance(target, ast.Name):
            return None, "its init must assign the loop variable"
        var, start = target.var, init.expr.value
    elif init.expr is not None:
        return None, "its init must be 'i = start' or 'int i = start'"
    cond = loop.cond
    if not isinstance(cond, ast.Binary) or cond.op not in ("<", "<=", ">", ">=", "!="):
        return None, "its condition must compare the loop variable with <, <=, >, >= or !="
    op, bound = cond.op, cond.rhs
    if isinstance(cond.rhs, ast.Name) and (
        (var is not None and cond.rhs.var is var)
        or (var is None and not is_name(cond.lhs, None))
    ):
        op, bound = _SWAPPED[cond.op], cond.lhs
        cond_var = cond.rhs.resolved_var
    elif isinstance(cond.lhs, ast.Name):
        cond_var = cond.lhs.resolved_var
    else:
        return None, "its condition must compare the loop variable with a bound"
    if var is None:
        var = cond_var
    if cond_var is not var:
        return None, f"its condition does not test the loop variable '{var.name}'"
    if var.is_array or not var.scalar.is_int:
        return None, f"its variable '{var.name}' is not an integer"
    t = var.scalar
    narrow = t.bits < 32
    if cond.operand_type != (promote(t) if narrow else t):
        return None, (
            f"its condition compares '{var.name}' ({t}) with a bound of type "
            f"'{bound.ctype}', so C compares them as '{cond.operand_type}': declare "
            f"'{var.name}' with the bound's type, or cast the bound to {t}"
        )
    if var in body.assigned:
        return None, f"its variable '{var.name}' is assigned in the loop body"
    reason = _not_invariant(bound, var, body, "bound")
    if reason:
        return None, reason
    step = _step(loop.step, var, body)
    if isinstance(step, str):
        return None, step
    increasing, magnitude = step
    modular = op == "!=" and not t.signed
    if op == "!=":
        if magnitude != 1:
            return None, "a '!=' condition needs a step of 1 (i++ or i--)"
        op = "<" if increasing else ">"
    if op in ("<", "<=") and not increasing:
        return None, f"its condition '{op}' does not match its decreasing step"
    if op in (">", ">=") and increasing:
        return None, f"its condition '{op}' does not match its increasing step"
    if narrow:
        reason = _narrow_reason(var, bound, op, magnitude, modular)
        if reason:
            return None, reason
    assert not isinstance(start, ast.BraceInit), "sema rejects braces around a scalar's value"
    return (
        CanonicalLoop(
            var, start, bound, op in ("<=", ">="), increasing, magnitude, declared, modular
        ),
        "",
    )


def _narrow_reason(var: Var, bound: ast.Expr, op: str, step: int | ast.Expr,
                   modular: bool) -> str:  # fmt: skip
    """Why a loop on a `_Bool`, `char` or `short` variable may not end (empty when it ends).

    C compares the promoted variable with the bound in `int` and converts each step's `int`
    result back to the variable's type, wrapping. The loop ends as a loop on an `int` would only
    if no value the variable takes before the exit, plus the step, leaves the type's range: the
    bound, whatever value its own type (or its constant) allows, must be at most `max - step +
    1` for `<` (`max - step` for `<=`; at least `min + step - 1` for `>`, `min + step` for `>=`),
    and within the range for an unsigned `!=` (which wraps, as an `unsigned` loop does)."""
    t = var.scalar
    lowest, highest = (-max_value(t) - 1, max_value(t)) if t.signed else (0, max_value(t))
    if not isinstance(step, int):
        return (f"its variable '{var.name}' is a {t} and its step is not a constant: C "
                f"wraps '{var.name}' at each step, so the loop may not end (declare "
                f"'{var.name}' int)")  # fmt: skip
    constant = const_int(bound)
    bound_type = bound.ctype
    if constant is not None:
        least = most = constant
    elif isinstance(bound_type, Scalar) and bound_type.is_int:
        least = 0 if not bound_type.signed else -max_value(bound_type) - 1
        most = max_value(bound_type)
    else:  # pragma: no cover - a canonical condition compares integers
        return "its bound is not an integer"
    if modular:
        fits = lowest <= least and most <= highest
        need = f"between {lowest} and {highest}"
    elif op in ("<", "<="):
        limit = highest - step + (1 if op == "<" else 0)
        fits, need = most <= limit, f"at most {limit}"
    else:
        limit = lowest + step - (1 if op == ">" else 0)
        fits, need = least >= limit, f"at least {limit}"
    if fits:
        return ""
    what = f"is {constant}" if constant is not None else f"has type '{bound_type}'"
    return (f"its variable '{var.name}' is a {t}, which C compares with the bound in int and "
            f"wraps at each step, so the loop ends only if the bound is {need}, but the bound "
            f"{what} (declare '{var.name}' int, or the bound a type within that range)")


def _step(step: ast.Expr | None, var: Var, body: Effects):
    """(increasing, magnitude) of a canonical step, or the reason it is not one."""
    bad = "its step must be i++, i--, i += s, i -= s or i = i + s with s loop-invariant"
    if step is None:
        return bad
    if isinstance(step, ast.IncDec) and is_name(step.target, var):
        return step.op == "++", 1
    if not isinstance(step, ast.Assign) or not is_name(step.target, var):
        return bad
    if step.op in ("+=", "-="):
        sign, amount = (1 if step.op == "+=" else -1), step.value
    elif step.op == "=" and isinstance(step.value, ast.Binary):
        value = step.value
        if value.op == "+" and is_name(value.lhs, var):
            sign, amount = 1, value.rhs
        elif value.op == "+" and is_name(value.rhs, var):
            sign, amount = 1, value.lhs
        elif value.op == "-" and is_name(value.lhs, var):
            sign, amount = -1, value.rhs
        else:
            return bad
    else:
        return bad
    if not isinstance(amount.ctype, Scalar) or not amount.ctype.is_int:
        return "its step is not an integer"
    constant = const_int(amount)
    if constant is not None:
        if constant == 0:
            return "its step is zero"
        signed = sign * constant
        return signed > 0, abs(signed)
    reason = _not_invariant(amount, var, body, "step")
    if reason:
        return reason
    return sign > 0, amount

def _not_invariant(expr: ast.Expr, var: Var, body: Effects, what: str) -> str:
    for node in walk_expr(expr):
        if isinstance(node, ast.Name) and node.var is var:
            return f"its {what} depends on the loop variable '{var.name}'"
        if isinstance(node, ast.Name) and node.var in body.assigned:
            return f"its {what} depends on '{node.name}', which the loop body assigns"
        if isinstance(node, ast.Index) and body.stores_memory:
            return f"its {what} reads an array that the loop body may write"
    return ""
