"""Semantic analysis: every diagnostic about a well-formed parse is raised here.

It resolves names (C block scopes), types every expression with C's rules (`types.py`), rejects
what the subset does not support, decides which variables need a memory slot (those assigned
after their declaration), recognises canonical `for` loops and attaches `#pragma omp parallel
for` to them. `irgen.py` then only translates: it never has to reject anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from autogpu.diagnostics import CompileError, located
from autogpu.dialects.agpu import REDUCTION_OF_C_OPERATOR, ReductionKind
from autogpu.frontend import ast
from autogpu.frontend.consteval import const_int
from autogpu.frontend.preprocess import Pragma
from autogpu.frontend.types import (
    DOUBLE,
    FLOAT,
    INT,
    ArrayType,
    RowType,
    Scalar,
    promote,
    usual_arithmetic,
)

# C math functions: name -> (parameter types, result type). None: the usual arithmetic
# conversions of the arguments (`min`/`max`, commonly macros in kernels).
MATH_FUNCTIONS: dict[str, tuple[tuple[Scalar | None, ...], Scalar | None]] = {
    **{name: ((DOUBLE,), DOUBLE) for name in ("sqrt", "exp", "log", "fabs", "sin", "cos",
                                              "floor", "ceil")},
    **{name + "f": ((FLOAT,), FLOAT) for name in ("sqrt", "exp", "log", "fabs", "sin", "cos",
                                                  "floor", "ceil")},
    **{name: ((DOUBLE, DOUBLE), DOUBLE) for name in ("fmin", "fmax", "pow")},
    **{name + "f": ((FLOAT, FLOAT), FLOAT) for name in ("fmin", "fmax", "pow")},
    "min": ((None, None), None),
    "max": ((None, None), None),
}  # fmt: skip


@dataclass(eq=False)
class Var:
    """A C variable or parameter. `needs_slot`: it lives in a rank-0 memref (see docs/ir.md)."""

    name: str
    type: Scalar | ArrayType
    pos: ast.Pos
    spelling: str
    const: bool = False
    param_index: int | None = None
    needs_slot: bool = False
    initializing: bool = False

    @property
    def is_array(self) -> bool:
        return isinstance(self.type, ArrayType)


@dataclass(eq=False)
class CanonicalLoop:
    """`for (i = start; i <cmp> bound; i += step)`, normalised to an increasing range.

    increasing: i = start, start + step, ... while i < bound (+1 if inclusive);
    decreasing: i = start, start - step, ... while i > bound (>= if inclusive).
    `start` None: the loop has no init; it starts from the variable's current value.
    `step` is a positive constant (int) or a loop-invariant expression assumed positive.
    """

    var: Var
    start: ast.Expr | None
    bound: ast.Expr
    inclusive: bool
    increasing: bool
    step: int | ast.Expr
    declared_in_init: bool


@dataclass(eq=False)
class ParallelInfo:
    """`#pragma omp parallel for` on a loop. With `collapse(n)`, each of the n loops gets one:
    `collapse` counts the loops from this one inward, `total` is n, `inner` marks all but the
    outermost; every level lists the same reductions."""

    pragma: Pragma
    reductions: list[tuple[ReductionKind, Var]] = field(default_factory=list)
    collapse: int = 1
    total: int = 1
    inner: bool = False

    def nested(self) -> ParallelInfo:
        return ParallelInfo(self.pragma, self.reductions, self.collapse - 1, self.total, True)


@dataclass(eq=False)
class Function:
    name: str
    pos: ast.Pos
    params: list[Var]
    body: ast.Block


@dataclass
class _Effects:
    """What a region of code writes: variables, and whether it stores to any array."""

    assigned: set[Var] = field(default_factory=set)
    stores_memory: bool = False


_ASSIGN_OPS = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%", "<<=": "<<", ">>=": ">>",
               "&=": "&", "|=": "|", "^=": "^"}  # fmt: skip
_INTEGER_ONLY = {"%", "<<", ">>", "&", "|", "^"}
_COMPARISONS = {"<", ">", "<=", ">=", "==", "!="}
_SWAPPED = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "!=": "!="}
_IGNORED_CLAUSES = {"schedule", "num_threads", "shared", "default", "proc_bind", "nowait", "if",
                    "ordered"}  # fmt: skip


class Sema:
    def __init__(
        self,
        source: str,
        filename: str,
        pragma_targets: dict[ast.Pos, Pragma],
        warn,
    ):
        self.source = source
        self.filename = filename
        self.pragma_targets = dict(pragma_targets)
        self.warn = warn
        self.scopes: list[dict[str, Var]] = []
        self.effects: list[_Effects] = []
        self.all_assigned: set[Var] = set()
        self.user_functions: dict[str, ast.Pos] = {}
        self.current: str = ""
        self.recording = True  # whether assignments are recorded (off while typing a for step)

    def error(self, message: str, pos: ast.Pos) -> CompileError:
        return located(message, self.filename, self.source, *pos)

    # ---- top level ----------------------------------------------------------------------------

    def run(self, unit: ast.TranslationUnit) -> list[Function]:
        for item in unit.items:
            decl = item.declarator if isinstance(item, ast.FunctionDef) else None
            if decl is not None and decl.name in self.user_functions and item.body is not None:
                raise self.error(f"redefinition of function '{decl.name}'", decl.pos)
            if decl is not None:
                self.user_functions[decl.name] = decl.pos
            elif isinstance(item, ast.Decl):
                for d in item.declarators:
                    if d.declarator.params is not None and not d.declarator.function_pointer:
                        self.user_functions.setdefault(d.declarator.name, d.pos)
        functions = []
        for item in unit.items:
            if isinstance(item, ast.FunctionDef):
                functions.append(self.function(item))
            else:
                self.global_decl(item)
        if not functions:
            raise self.error("no function to compile: the input defines no C function", (1, 1))
        if self.pragma_targets:
            pragma = min(self.pragma_targets.values(), key=lambda p: (p.line, p.column))
            raise self.error(
                "'#pragma omp parallel for' must be followed by a for loop",
                (pragma.line, pragma.column),
            )
        return functions

    def global_decl(self, decl: ast.Decl) -> None:
        for d in decl.declarators:
            if d.declarator.params is not None and not d.declarator.function_pointer:
                continue  # a prototype: calling it is rejected where it happens
            raise self.error(
                f"global variable '{d.declarator.name}' is not supported: pass it as a "
                "parameter, or use #define for a constant",
                d.pos,
            )

    def function(self, fn: ast.FunctionDef) -> Function:
        decl = fn.declarator
        self.current = decl.name
        if fn.type.base is not None or decl.pointers or fn.type.const:
            raise self.error(
                f"function '{decl.name}' must return void: kernels return their results "
                "through pointer parameters",
                fn.type.pos,
            )
        if decl.function_pointer or decl.params is None:
            raise self.error("expected a function definition", decl.pos)
        self.scopes = [{}]
        self.effects = [_Effects()]
        self.all_assigned = set()
        params = self.params(decl.params)
        self.block_items(fn.body.items, function_body=True)
        for var in self.all_assigned:
            var.needs_slot = True
        return Function(decl.name, decl.pos, params, fn.body)

    def params(self, params: list[ast.Param]) -> list[Var]:
        if (
            len(params) == 1
            and params[0].type.base is None
            and params[0].declarator.name is None
            and not params[0].declarator.pointers
        ):
            return []  # f(void)
        result = []
        for index, param in enumerate(params):
            var = self.param(param, index)
            self.declare(var, param.declarator.pos)
            result.append(var)
        return result

    def param(self, param: ast.Param, index: int) -> Var:
        d, t = param.declarator, param.type
        if d.name is None:
            raise self.error("parameter needs a name", param.pos)
        if d.function_pointer or d.params is not None:
            raise self.error(
                f"function pointer parameter '{d.name}' is not supported: call the function "
                "directly (math functions only) or inline it",
                d.pos,
            )
        if d.pointer_to_array:
            raise self.error(
                f"pointer-to-array parameter '{d.name}' is not supported: declare it as a C99 "
                "array parameter, e.g. float A[][n]",
                d.pos,
            )
        if t.base is None:
            what = "void pointers are" if d.pointers else "a void parameter is"
            raise self.error(f"{what} not supported: give '{d.name}' an element type", t.pos)
        if len(d.pointers) > 1 or (d.pointers and d.arrays):
            raise self.error(
                f"'{d.name}' is a pointer to pointers: only flat arrays of numbers are "
                "supported (index a 1-D array with i * n + j, or use float A[m][n])",
                d.pos,
            )
        if not d.pointers and not d.arrays:
            if t.restrict:
                raise self.error("'restrict' applies only to pointers", t.restrict_pos)
            return Var(d.name, t.base, d.pos, t.spelling, const=t.const, param_index=index)
        if t.restrict:
            raise self.error(
                f"'restrict' qualifies the pointer, not the element: write "
                f"'{t.spelling} *restrict {d.name}'",
                t.restrict_pos,
            )
        if d.pointers:
            pointer = d.pointers[0]
            array = ArrayType(t.base, (None,), t.const, pointer.restrict)
        else:
            extents = tuple(self.extent(e, d, i) for i, e in enumerate(d.arrays))
            array = ArrayType(t.base, extents, t.const, d.array_quals[0].restrict)
        return Var(d.name, array, d.pos, t.spelling, const=False, param_index=index)

    def extent(self, expr: ast.Expr | None, d: ast.Declarator, i: int) -> str | int | None:
        if expr is None:
            if i == 0:
                return None
            raise self.error(
                f"array parameter '{d.name}' needs every extent but the first", d.pos
            )
        if isinstance(expr, ast.Name):
            var = self.lookup(expr.name)
            if var is None:
                raise self.error(
                    f"use of undeclared identifier '{expr.name}' in the extent of '{d.name}': "
                    "C99 needs the extent parameters declared before the array, as in "
                    f"void f(int {expr.name}, float {d.name}[{expr.name}])",
                    expr.pos,
                )
            if var.is_array or not var.type.is_int:
                raise self.error(
                    f"the extent '{expr.name}' of '{d.name}' must be an integer parameter",
                    expr.pos,
                )
            return expr.name
        self.rvalue(expr)
        value = const_int(expr)
        if value is None:
            raise self.error(
                f"the extent of array parameter '{d.name}' must be a parameter name or an "
                "integer constant: pass the extent as its own parameter",
                expr.pos,
            )
        if value <= 0:
            raise self.error(f"array extent must be positive, got {value}", expr.pos)
        return value

    # ---- scopes and effects -------------------------------------------------------------------

    def declare(self, var: Var, pos: ast.Pos) -> None:
        scope = self.scopes[-1]
        if var.name in scope:
            previous = scope[var.name].pos
            raise self.error(
                f"redefinition of '{var.name}' (first declared at line {previous[0]}, "
                f"column {previous[1]}): use another name",
                pos,
            )
        scope[var.name] = var

    def lookup(self, name: str) -> Var | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def assigned(self, var: Var) -> None:
        if not self.recording:
            return
        self.all_assigned.add(var)
        for frame in self.effects:
            frame.assigned.add(var)

    def stored(self) -> None:
        if not self.recording:
            return
        for frame in self.effects:
            frame.stores_memory = True

    # ---- statements ---------------------------------------------------------------------------

    def block_items(self, items: list[ast.Stmt], function_body: bool = False) -> None:
        for index, item in enumerate(items):
            if isinstance(item, ast.Return):
                self.return_(item, final=function_body and index == len(items) - 1)
            else:
                self.statement(item)

    def return_(self, stmt: ast.Return, final: bool) -> None:
        if stmt.value is not None:
            raise self.error(
                f"void function '{self.current}' cannot return a value: store results "
                "through a pointer parameter",
                stmt.value.pos,
            )
        if not final:
            raise self.error(
                "early 'return' is not supported: only a final 'return;' is; restructure "
                "the code with if/else",
                stmt.pos,
            )

    def statement(self, stmt: ast.Stmt) -> None:
        if isinstance(stmt, ast.For):
            pragma = self.pragma_targets.pop(stmt.pos, None)
            self.for_(stmt, None if pragma is None else self.parallel_clauses(pragma))
        elif isinstance(stmt, ast.Block):
            self.scopes.append({})
            self.block_items(stmt.items)
            self.scopes.pop()
        elif isinstance(stmt, ast.Decl):
            self.local_decl(stmt)
        elif isinstance(stmt, ast.ExprStmt):
            if stmt.expr is not None:
                self.effect(stmt.expr)
        elif isinstance(stmt, ast.If):
            self.condition(stmt.cond)
            self.substatement(stmt.then)
            if stmt.otherwise is not None:
                self.substatement(stmt.otherwise)
        elif isinstance(stmt, ast.While):
            self.condition(stmt.cond)
            self.substatement(stmt.body)
        elif isinstance(stmt, ast.DoWhile):
            self.substatement(stmt.body)
            self.condition(stmt.cond)
        elif isinstance(stmt, ast.Return):
            self.return_(stmt, final=False)
        elif isinstance(stmt, ast.Labeled):
            raise self.error(
                f"label '{stmt.label}' is not supported (nor is goto): structure the code with "
                "loops and if/else",
                stmt.pos,
            )
        else:  # pragma: no cover - the parser builds no other statement
            raise self.error("unsupported statement", stmt.pos)

    def substatement(self, stmt: ast.Stmt) -> None:
        """A statement in its own scope (the body of if/while/for, C99 6.8.4p3)."""
        self.scopes.append({})
        self.statement(stmt)
        self.scopes.pop()

    def local_decl(self, decl: ast.Decl) -> None:
        t = decl.type
        if t.base is None:
            raise self.error("variables cannot have type void", t.pos)
        if t.restrict:
            raise self.error("'restrict' applies only to pointers", t.restrict_pos)
        for init_decl in decl.declarators:
            d = init_decl.declarator
            if d.function_pointer:
                raise self.error(f"function pointer '{d.name}' is not supported", d.pos)
            if d.params is not None:
                raise self.error(
                    f"function declarations inside a function are not supported ('{d.name}')",
                    d.pos,
                )
            if d.arrays:
                raise self.error(
                    f"local array '{d.name}' is not supported: use scalar variables, or pass "
                    "the array as a parameter",
                    d.pos,
                )
            if d.pointers:
                raise self.error(
                    f"local pointer '{d.name}' is not supported: index the parameter arrays "
                    "directly",
                    d.pos,
                )
            if isinstance(init_decl.init, ast.BraceInit):
                raise self.error(
                    "brace initializers are not supported", init_decl.init.pos
                )
            var = Var(d.name, t.base, d.pos, t.spelling, const=t.const)
            self.declare(var, d.pos)
            init_decl.var = var
            if init_decl.init is None:
                var.needs_slot = True
            else:
                var.initializing = True
                self.rvalue(init_decl.init)
                var.initializing = False

    def condition(self, expr: ast.Expr) -> None:
        t = self.rvalue(expr)
        if not isinstance(t, Scalar):  # pragma: no cover - rvalue only returns scalars
            raise self.error("condition must be a number", expr.pos)

    def effect(self, expr: ast.Expr) -> None:
        """An expression statement: assignments, ++/--, or an expression without effect."""
        if isinstance(expr, ast.Assign):
            self.assignment(expr)
        elif isinstance(expr, ast.IncDec):
            self.incdec(expr)
        elif isinstance(expr, ast.Comma):
            for item in expr.items:
                self.effect(item)
        else:
            self.rvalue(expr)
            if self.recording:
                w = located("statement has no effect", self.filename, self.source, *expr.pos)
                w.severity = "warning"
                self.warn(w)

    # ---- loops --------------------------------------------------------------------------------

    def for_(self, loop: ast.For, parallel: ParallelInfo | None) -> None:
        self.scopes.append({})
        if isinstance(loop.init, ast.Decl):
            self.local_decl(loop.init)
        elif loop.init.expr is not None:
            self.effect(loop.init.expr)
        if loop.cond is not None:
            self.condition(loop.cond)
        if loop.step is not None:
            self.recording = False  # typed now; its writes are recorded once canonicity is known
            self.effect(loop.step)
            self.recording = True
        body_effects = _Effects()
        self.effects.append(body_effects)
        if parallel is not None and parallel.collapse > 1:
            inner = self.perfectly_nested(loop, parallel)
            if inner.pos in self.pragma_targets:
                pragma = self.pragma_targets.pop(inner.pos)
                raise self.error(
                    "this loop is already parallel: the outer loop's collapse "
                    f"({parallel.total}) includes it",
                    (pragma.line, pragma.column),
                )
            self.scopes.append({})
            self.for_(inner, parallel.nested())
            self.scopes.pop()
        else:
            self.substatement(loop.body)
        self.effects.pop()
        loop.canonical, loop.not_canonical_because = self.canonical(loop, body_effects)
        if loop.step is not None:
            canonical = loop.canonical
            skip = canonical.var if canonical and canonical.declared_in_init else None
            self.effect_except(loop.step, skip)
        self.scopes.pop()
        if parallel is not None:
            self.check_parallel(loop, parallel)
            loop.parallel = parallel

    def perfectly_nested(self, loop: ast.For, parallel: ParallelInfo) -> ast.For:
        body = loop.body
        while isinstance(body, ast.Block) and len(body.items) == 1:
            body = body.items[0]
        if not isinstance(body, ast.For):
            pragma = parallel.pragma
            raise self.error(
                f"'collapse({parallel.total})' needs {parallel.total} perfectly nested for "
                f"loops, but the body of the loop at line {loop.pos[0]} is not exactly one "
                "for loop",
                (pragma.line, pragma.column_of(pragma.text.find("collapse"))),
            )
        return body

    def effect_except(self, expr: ast.Expr, skip: Var | None) -> None:
        saved = set(self.all_assigned)
        frames = [set(f.assigned) for f in self.effects]
        self.effect(expr)
        if skip is not None and skip not in saved:
            self.all_assigned.discard(skip)
            for frame, before in zip(self.effects, frames):
                if skip not in before:
                    frame.assigned.discard(skip)

    def canonical(self, loop: ast.For, body: _Effects) -> tuple[CanonicalLoop | None, str]:
        """The canonical form of `loop` (docs/ir.md), or None and why it is not canonical."""
        init = loop.init
        var: Var | None = None
        start: ast.Expr | None = None
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
            or (var is None and not _is_name(cond.lhs, None))
        ):
            op, bound = _SWAPPED[cond.op], cond.lhs
            cond_var = cond.rhs.var
        elif isinstance(cond.lhs, ast.Name):
            cond_var = cond.lhs.var
        else:
            return None, "its condition must compare the loop variable with a bound"
        if var is None:
            var = cond_var
        if cond_var is not var or var is None:
            return None, f"its condition does not test the loop variable '{var.name}'"
        if var.is_array or not var.type.is_int:
            return None, f"its variable '{var.name}' is not an integer"
        if cond.operand_type != var.type:
            return None, (
                f"its condition compares '{var.name}' ({var.type}) with a bound of type "
                f"'{bound.ctype}', so C compares them as '{cond.operand_type}': declare "
                f"'{var.name}' with the bound's type, or cast the bound to {var.type}"
            )
        if var in body.assigned:
            return None, f"its variable '{var.name}' is assigned in the loop body"
        reason = self.not_invariant(bound, var, body, "bound")
        if reason:
            return None, reason
        step = self.step(loop.step, var, body)
        if isinstance(step, str):
            return None, step
        increasing, magnitude = step
        if op == "!=":
            if magnitude != 1:
                return None, "a '!=' condition needs a step of 1 (i++ or i--)"
            op = "<" if increasing else ">"
        if op in ("<", "<=") and not increasing:
            return None, f"its condition '{op}' does not match its decreasing step"
        if op in (">", ">=") and increasing:
            return None, f"its condition '{op}' does not match its increasing step"
        return (
            CanonicalLoop(var, start, bound, op in ("<=", ">="), increasing, magnitude, declared),
            "",
        )

    def step(self, step: ast.Expr | None, var: Var, body: _Effects):
        """(increasing, magnitude) of a canonical step, or the reason it is not one."""
        bad = "its step must be i++, i--, i += s, i -= s or i = i + s with s loop-invariant"
        if step is None:
            return bad
        if isinstance(step, ast.IncDec) and _is_name(step.target, var):
            return step.op == "++", 1
        if not isinstance(step, ast.Assign) or not _is_name(step.target, var):
            return bad
        if step.op in ("+=", "-="):
            sign, amount = (1 if step.op == "+=" else -1), step.value
        elif step.op == "=" and isinstance(step.value, ast.Binary):
            value = step.value
            if value.op == "+" and _is_name(value.lhs, var):
                sign, amount = 1, value.rhs
            elif value.op == "+" and _is_name(value.rhs, var):
                sign, amount = 1, value.lhs
            elif value.op == "-" and _is_name(value.lhs, var):
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
            if not amount.ctype.signed and sign < 0 and constant > 0:
                signed = -constant
            return signed > 0, abs(signed)
        reason = self.not_invariant(amount, var, body, "step")
        if reason:
            return reason
        return sign > 0, amount

    def not_invariant(self, expr: ast.Expr, var: Var, body: _Effects, what: str) -> str:
        for node in walk_expr(expr):
            if isinstance(node, ast.Name) and node.var is var:
                return f"its {what} depends on the loop variable '{var.name}'"
            if isinstance(node, ast.Name) and node.var in body.assigned:
                return f"its {what} depends on '{node.name}', which the loop body assigns"
            if isinstance(node, ast.Index) and body.stores_memory:
                return f"its {what} reads an array that the loop body may write"
        return ""

    # ---- OpenMP -------------------------------------------------------------------------------

    def parallel_clauses(self, pragma: Pragma) -> ParallelInfo:
        info = ParallelInfo(pragma)
        text = pragma.text
        position = re.match(r"omp\s+parallel\s+for", text).end()
        while True:
            while position < len(text) and text[position] in " \t,":
                position += 1
            if position == len(text):
                return info
            where = (pragma.line, pragma.column_of(position))
            name = re.match(r"[A-Za-z_]\w*", text[position:])
            if name is None:
                raise self.error(
                    "malformed '#pragma omp parallel for': expected clauses like collapse(2) "
                    "or reduction(+: s)",
                    where,
                )
            clause = name.group(0)
            position += len(clause)
            args, args_start = "", position
            while position < len(text) and text[position] in " \t":
                position += 1
            if position < len(text) and text[position] == "(":
                depth, end = 0, position
                while end < len(text):
                    depth += {"(": 1, ")": -1}.get(text[end], 0)
                    if depth == 0:
                        break
                    end += 1
                if depth:
                    raise self.error(f"unbalanced parentheses in clause '{clause}'", where)
                args, args_start, position = text[position + 1 : end], position + 1, end + 1
            if clause == "collapse":
                info.collapse = info.total = self.collapse_depth(args, pragma, args_start)
            elif clause == "reduction":
                info.reductions += self.reduction(args, pragma, args_start)
            elif clause in _IGNORED_CLAUSES:
                self.warn(
                    self.warning(
                        f"ignoring clause '{clause}' of '#pragma omp parallel for'",
                        pragma,
                        args_start - len(clause),
                    )
                )
            else:
                raise self.error(
                    f"clause '{clause}' is not supported on '#pragma omp parallel for': only "
                    "collapse(n) and reduction(op: vars) are (declare private variables inside "
                    "the loop)",
                    where,
                )

    def warning(self, message: str, pragma: Pragma, offset: int) -> CompileError:
        w = located(message, self.filename, self.source, pragma.line, pragma.column_of(offset))
        w.severity = "warning"
        return w

    def collapse_depth(self, text: str, pragma: Pragma, offset: int) -> int:
        try:
            value = int(text.strip().strip("()").strip(), 0)
        except ValueError:
            value = 0
        if value < 1:
            raise self.error(
                f"collapse needs a positive integer constant, got '{text.strip()}'",
                (pragma.line, pragma.column_of(offset)),
            )
        return value

    def reduction(self, text: str, pragma: Pragma, offset: int) -> list[tuple[ReductionKind, Var]]:
        op, colon, names = text.partition(":")
        if not colon or op.strip() not in REDUCTION_OF_C_OPERATOR:
            raise self.error(
                "reduction needs 'op: variables' with op one of + - * min max & | ^ && ||, "
                f"got '{text.strip()}'",
                (pragma.line, pragma.column_of(offset)),
            )
        kind = REDUCTION_OF_C_OPERATOR[op.strip()]
        result = []
        position = offset + len(op) + 1
        for item in names.split(","):
            name = item.strip()
            where = (pragma.line, pragma.column_of(position + item.find(name) if name else position))
            position += len(item) + 1
            if not re.fullmatch(r"[A-Za-z_]\w*", name):
                raise self.error(
                    f"reduction variable must be a scalar variable name, got '{name}' (array "
                    "sections are not supported)",
                    where,
                )
            var = self.lookup(name)
            if var is None:
                raise self.error(f"reduction variable '{name}' is not declared", where)
            if var.is_array:
                raise self.error(
                    f"reduction variable '{name}' is an array: only scalar variables can be "
                    "reduced (accumulate into a scalar and store it after the loop)",
                    where,
                )
            if var.const:
                raise self.error(f"reduction variable '{name}' is const", where)
            if kind.is_bitwise and var.type.is_float:
                raise self.error(
                    f"reduction '{op.strip()}' needs an integer variable, '{name}' is "
                    f"{var.type}",
                    where,
                )
            var.needs_slot = True
            self.all_assigned.add(var)
            result.append((kind, var))
        return result

    def check_parallel(self, loop: ast.For, info: ParallelInfo) -> None:
        if loop.canonical is None:
            what = f"the loop at depth {info.total - info.collapse + 1} of its collapse({info.total})" if info.inner else "this loop"
            raise self.error(
                f"'#pragma omp parallel for' needs a canonical for loop, but {what} is not: "
                f"{loop.not_canonical_because}",
                loop.pos,
            )

    # ---- expressions --------------------------------------------------------------------------

    def rvalue(self, expr: ast.Expr) -> Scalar:
        """Types an expression used for its value: a number (never an array)."""
        t = self.expr(expr)
        if isinstance(t, ArrayType):
            raise self.error(
                f"array '{_describe(expr)}' cannot be used as a value: index it",
                expr.pos,
            )
        if isinstance(t, RowType):
            raise self.error(
                f"'{_describe(expr)}' is a row of a {t.array.dims}-D array: index it further",
                expr.pos,
            )
        return t

    def integer(self, expr: ast.Expr, what: str) -> Scalar:
        t = self.rvalue(expr)
        if not t.is_int:
            raise self.error(f"{what} must be an integer, not '{t}'", expr.pos)
        return t

    def expr(self, e: ast.Expr):
        t = self._expr(e)
        e.ctype = t
        return t

    def _expr(self, e: ast.Expr):
        if isinstance(e, ast.IntLit):
            return e.type
        if isinstance(e, ast.FloatLit):
            if e.long_double:
                w = located(
                    f"long double literal '{e.text}' is computed as double",
                    self.filename, self.source, *e.pos,
                )  # fmt: skip
                w.severity = "warning"
                self.warn(w)
            return e.type
        if isinstance(e, ast.Name):
            return self.name(e)
        if isinstance(e, ast.Index):
            return self.index(e)
        if isinstance(e, ast.Call):
            return self.call(e)
        if isinstance(e, ast.Unary):
            return self.unary(e)
        if isinstance(e, ast.Binary):
            return self.binary(e)
        if isinstance(e, ast.Conditional):
            self.condition(e.cond)
            return usual_arithmetic(self.rvalue(e.then), self.rvalue(e.otherwise))
        if isinstance(e, ast.Cast):
            return self.cast(e)
        if isinstance(e, ast.Assign):
            raise self.error(
                "assignment inside an expression is not supported: write it as its own "
                "statement",
                e.pos,
            )
        if isinstance(e, ast.IncDec):
            raise self.error(
                f"'{e.op}' inside an expression is not supported: write it as its own statement",
                e.pos,
            )
        if isinstance(e, ast.Comma):
            raise self.error("the comma operator is not supported here", e.pos)
        raise self.error("unsupported expression", e.pos)  # pragma: no cover

    def name(self, e: ast.Name):
        var = self.lookup(e.name)
        if var is None:
            if e.name in MATH_FUNCTIONS or e.name in self.user_functions:
                raise self.error(
                    f"function '{e.name}' used as a value: function pointers are not supported",
                    e.pos,
                )
            raise self.error(f"use of undeclared identifier '{e.name}'", e.pos)
        if var.initializing:
            raise self.error(f"'{e.name}' is used in its own initializer", e.pos)
        e.var = var
        return var.type

    def index(self, e: ast.Index):
        if not isinstance(e.base, ast.Name | ast.Index):
            self.expr(e.base)  # rejects pointer arithmetic and pointer casts, saying why
            raise self.error("only array parameters can be indexed", e.base.pos)
        base = self.expr(e.base)
        if isinstance(base, Scalar):
            raise self.error(
                f"subscripted value '{_describe(e.base)}' is not an array (it is a {base})",
                e.base.pos,
            )
        index_type = self.rvalue(e.index)
        if not index_type.is_int:
            raise self.error(f"array index must be an integer, not '{index_type}'", e.index.pos)
        if isinstance(base, ArrayType):
            return base.element if base.dims == 1 else RowType(base, base.dims - 1)
        return base.array.element if base.remaining == 1 else RowType(base.array, base.remaining - 1)

    def call(self, e: ast.Call):
        if not isinstance(e.callee, ast.Name):
            raise self.error("only math functions can be called, by name", e.callee.pos)
        name = e.callee.name
        if self.lookup(name) is not None:
            raise self.error(f"called object '{name}' is not a function", e.callee.pos)
        if name in self.user_functions:
            if name == self.current:
                raise self.error(
                    f"'{name}' calls itself: recursion is not supported", e.callee.pos
                )
            raise self.error(
                f"calls to user functions are not supported: inline '{name}' into "
                f"'{self.current}'",
                e.callee.pos,
            )
        if name not in MATH_FUNCTIONS:
            raise self.error(
                f"call to undeclared function '{name}': the supported functions are "
                + ", ".join(sorted(MATH_FUNCTIONS)),
                e.callee.pos,
            )
        params, result = MATH_FUNCTIONS[name]
        if len(e.args) != len(params):
            plural = "s" if len(params) != 1 else ""
            raise self.error(
                f"'{name}' takes {len(params)} argument{plural}, got {len(e.args)}", e.pos
            )
        types = [self.rvalue(a) for a in e.args]
        if result is None:  # min / max
            return usual_arithmetic(*types)
        return result

    def unary(self, e: ast.Unary):
        if e.op == "&":
            raise self.error(
                "taking an address ('&') is not supported: pass arrays as parameters and "
                "index them",
                e.pos,
            )
        if e.op == "*":
            raise self.error(
                "dereferencing with '*' is not supported: write p[0] (and p[i] for *(p + i))",
                e.pos,
            )
        t = self.expr(e.operand)
        if isinstance(t, ArrayType | RowType):
            self.rvalue(e.operand)
        if e.op == "!":
            return INT
        if e.op == "~" and not t.is_int:
            raise self.error(f"'~' needs an integer operand, not '{t}'", e.pos)
        return promote(t)

    def binary(self, e: ast.Binary):
        lt, rt = self.expr(e.lhs), self.expr(e.rhs)
        for side, t in ((e.lhs, lt), (e.rhs, rt)):
            if isinstance(t, ArrayType | RowType) and e.op in ("+", "-"):
                raise self.error(
                    f"pointer arithmetic on '{_describe(side)}' is not supported: index the "
                    f"array instead ({_describe(side)}[i + 1], not {_describe(side)} + 1)",
                    e.pos,
                )
        lt, rt = self.rvalue(e.lhs), self.rvalue(e.rhs)
        if e.op in ("&&", "||"):
            return INT
        if e.op in _INTEGER_ONLY and not (lt.is_int and rt.is_int):
            bad = lt if not lt.is_int else rt
            raise self.error(
                f"invalid operand of type '{bad}' to '{e.op}': it needs integers", e.pos
            )
        if e.op in ("<<", ">>"):
            e.operand_type = promote(lt)
            return e.operand_type
        e.operand_type = usual_arithmetic(lt, rt)
        if e.op in _COMPARISONS:
            return INT
        return e.operand_type

    def cast(self, e: ast.Cast):
        to = e.to
        if to.pointers or to.base is None:
            raise self.error(
                "only casts to arithmetic types (int, float, ...) are supported", to.pos
            )
        self.rvalue(e.operand)
        return to.base

    # ---- assignments --------------------------------------------------------------------------

    def target(self, target: ast.Expr, op: str) -> Scalar:
        """Types the left side of an assignment (operator `op`) and records the write."""
        if isinstance(target, ast.Name):
            t = self.name(target)
            target.ctype = t
            var = target.var
            if isinstance(t, ArrayType) and op in ("++", "--", "+=", "-="):
                raise self.error(
                    f"pointer arithmetic ('{op}' on '{var.name}') is not supported: keep the "
                    f"pointer fixed and index it ({var.name}[i])",
                    target.pos,
                )
            if isinstance(t, ArrayType):
                raise self.error(
                    f"cannot assign to array '{var.name}': assign its elements", target.pos
                )
            if var.const:
                raise self.error(f"cannot assign to const variable '{var.name}'", target.pos)
            self.assigned(var)
            return t
        if isinstance(target, ast.Index):
            t = self.expr(target)
            if isinstance(t, RowType):
                raise self.error(
                    f"cannot assign to '{_describe(target)}', a row of an array: index it "
                    "further",
                    target.pos,
                )
            array = _array_var(target)
            if array.type.const:
                raise self.error(
                    f"cannot write to '{_describe(target)}': '{array.name}' points to const "
                    f"{array.type.element} (drop the const)",
                    target.pos,
                )
            self.stored()
            return t
        self.expr(target)  # rejects `*p = ...` and other unsupported forms, saying why
        raise self.error("expression is not assignable", target.pos)

    def assignment(self, e: ast.Assign) -> None:
        t = self.target(e.target, e.op)
        value_type = self.rvalue(e.value)
        e.ctype = t
        if e.op == "=":
            return
        op = _ASSIGN_OPS[e.op]
        if op in _INTEGER_ONLY and not (t.is_int and value_type.is_int):
            bad = t if not t.is_int else value_type
            raise self.error(f"invalid operand of type '{bad}' to '{e.op}': it needs integers",
                             e.pos)  # fmt: skip
        e.operand_type = promote(t) if op in ("<<", ">>") else usual_arithmetic(t, value_type)

    def incdec(self, e: ast.IncDec) -> None:
        t = self.target(e.target, e.op)
        e.ctype = t
        e.operand_type = usual_arithmetic(t, INT)


# ---- helpers ----------------------------------------------------------------------------------


def walk_expr(expr: ast.Expr):
    yield expr
    for child in _children(expr):
        yield from walk_expr(child)


def _children(e: ast.Expr) -> list[ast.Expr]:
    if isinstance(e, ast.Index):
        return [e.base, e.index]
    if isinstance(e, ast.Call):
        return [e.callee, *e.args]
    if isinstance(e, ast.Unary):
        return [e.operand]
    if isinstance(e, ast.Binary):
        return [e.lhs, e.rhs]
    if isinstance(e, ast.Conditional):
        return [e.cond, e.then, e.otherwise]
    if isinstance(e, ast.Cast):
        return [e.operand]
    if isinstance(e, ast.Assign):
        return [e.target, e.value]
    if isinstance(e, ast.IncDec):
        return [e.target]
    if isinstance(e, ast.Comma):
        return list(e.items)
    return []


def _is_name(e: ast.Expr, var: Var | None) -> bool:
    return isinstance(e, ast.Name) and (var is None or e.var is var)


def _array_var(e: ast.Expr) -> Var:
    while isinstance(e, ast.Index):
        e = e.base
    assert isinstance(e, ast.Name) and e.var is not None
    return e.var


def _describe(e: ast.Expr) -> str:
    if isinstance(e, ast.Name):
        return e.name
    if isinstance(e, ast.Index):
        return f"{_describe(e.base)}[...]"
    return "expression"
