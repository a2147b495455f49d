"""Helper functions inlined at their calls, on the syntax tree, before semantic analysis.

A kernel calls helpers (`static inline float sq(float x) { return x * x; }`); a GPU kernel
calls nothing, so each call is replaced by the helper's body:

- a helper whose body is declarations with initializers and a `return e;` (or `if (c) return
  a; [else] return b;`) becomes an expression: `e` with each parameter and local replaced by its
  value converted to its type (`(float)(arg)`), and the result converted to the return type.
  An argument is computed where the parameter is used (pure: C expressions here assign
  nothing), so a call inside `i < n && f(a[i])` keeps its guard;
- any other helper (loops, assignments) is inlined as a block, its parameters and locals renamed
  (`x` of `dot` becomes `x_dot1`) so that they shadow nothing: a `void` one called as a
  statement in place of the call; one with a value computes it into a fresh local before the
  statement that uses it (an expression statement or a declaration; elsewhere a located error),
  from a body whose only `return` is its last statement.

An array parameter takes the array the call passes (a name: pointer arithmetic is refused).
Recursion is refused. A `static` function that others call is only a helper; every other
`void` function stays a kernel (and is inlined where it is called, too).
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from collections.abc import Callable, Iterator
from typing import cast

from autogpu.frontend import ast

Error = Callable[[str, ast.Pos], Exception]


def _children(node: ast.Node) -> Iterator[ast.Node]:
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        if isinstance(value, ast.Node):
            yield value
        elif isinstance(value, list):
            items = cast("list[object]", value)
            yield from (v for v in items if isinstance(v, ast.Node))


def walk(node: ast.Node) -> Iterator[ast.Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(_children(n))


def _map(node: ast.Node, fn: Callable[[ast.Node], ast.Node]) -> ast.Node:
    """`node` with every child replaced by `_map(child, fn)`, then `fn` applied (bottom-up)."""
    for f in dataclasses.fields(node):
        if f.name in ("ctype", "var", "canonical", "parallel", "sync"):
            continue
        value = getattr(node, f.name)
        if isinstance(value, ast.Node):
            setattr(node, f.name, _map(value, fn))
        elif isinstance(value, list):
            items = cast("list[object]", value)
            setattr(node, f.name, [_map(v, fn) if isinstance(v, ast.Node) else v for v in items])
    return fn(node)


def _calls(node: ast.Node, helpers: dict[str, ast.FunctionDef]) -> Iterator[ast.Call]:
    for n in walk(node):
        if isinstance(n, ast.Call) and isinstance(n.callee, ast.Name):
            if n.callee.name in helpers:
                yield n


class Inliner:
    def __init__(self, unit: ast.TranslationUnit, error: Error):
        self.error = error
        self.functions: dict[str, ast.FunctionDef] = {}
        for item in unit.items:
            if isinstance(item, ast.FunctionDef) and item.declarator.name not in self.functions:
                self.functions[item.declarator.identifier] = item
        self.counter = itertools.count(1)
        self.unit = unit

    def run(self) -> ast.TranslationUnit:
        called = {c.named_callee.name for f in self.functions.values()
                  for c in _calls(f.body, self.functions)}  # fmt: skip
        if not called:
            return self.unit
        self.check_recursion()
        items: list[ast.FunctionDef | ast.Decl] = []
        for item in self.unit.items:
            if not isinstance(item, ast.FunctionDef):
                items.append(item)
                continue
            name = item.declarator.name
            if name in called and (item.type.static_pos is not None or item.type.base is not None):
                continue  # only a helper
            item.body = self.inline_block(item.body)
            items.append(item)
        return ast.TranslationUnit(self.unit.pos, items)

    def check_recursion(self) -> None:
        """A located error at a call that reaches its own function again."""
        done: set[str] = set()

        def visit(name: str, path: list[str]) -> None:
            if name in done:
                return
            for call in _calls(self.functions[name].body, self.functions):
                callee = call.named_callee.name
                if callee in path or callee == name:
                    cycle = " -> ".join([*path[path.index(callee):], name, callee]) \
                        if callee in path else f"{name} -> {name}"
                    what = "itself" if callee == name else f"'{callee}'"
                    raise self.error(
                        f"'{name}' calls {what} ({cycle}): recursion is not supported: write "
                        "it as a loop",
                        call.callee.pos,
                    )
                visit(callee, [*path, name])
            done.add(name)

        for name in self.functions:
            visit(name, [])

    # ---- statements -----------------------------------------------------------------------

    def inline_block(self, block: ast.Block) -> ast.Block:
        block.items = [s for item in block.items for s in self.statement(item)]
        return block

    def statement(self, stmt: ast.Stmt) -> list[ast.Stmt]:
        """`stmt` with its calls inlined: the statements that replace it."""
        if isinstance(stmt, ast.ExprStmt) and isinstance(stmt.expr, ast.Call):
            helper = self.helper_of(stmt.expr)
            if helper is not None and helper.type.base is None:
                return [self.void_call(stmt.expr, helper)]
        if isinstance(stmt, ast.Block):
            return [self.inline_block(stmt)]
        before: list[ast.Stmt] = []
        if isinstance(stmt, ast.ExprStmt | ast.Decl):
            before = self.hoist(stmt)
        for field in ("then", "otherwise", "body"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, ast.Stmt):
                replaced = self.statement(inner)
                setattr(stmt, field, replaced[0] if len(replaced) == 1
                        else ast.Block(inner.pos, replaced))  # fmt: skip
        if isinstance(stmt, ast.Labeled):
            stmt.stmt = self.statement(stmt.stmt)[0]
        _map(stmt, self.expression_call) if not isinstance(stmt, ast.Block) else None
        if before:
            return [ast.Block(stmt.pos, [*before, stmt])] if isinstance(stmt, ast.ExprStmt) \
                else [*before, stmt]
        return [stmt]

    def helper_of(self, call: ast.Call) -> ast.FunctionDef | None:
        if isinstance(call.callee, ast.Name):
            return self.functions.get(call.callee.name)
        return None

    def void_call(self, call: ast.Call, helper: ast.FunctionDef) -> ast.Stmt:
        prologue, body, _ = self.instantiate(call, helper)
        return ast.Block(call.pos, [*prologue, *body.items])

    def hoist(self, stmt: ast.ExprStmt | ast.Decl) -> list[ast.Stmt]:
        """Statements computing, before `stmt`, the value of each call in it to a helper that
        is not an expression; the calls become the locals holding their values."""
        before: list[ast.Stmt] = []

        def replace(node: ast.Node) -> ast.Node:
            if not isinstance(node, ast.Call):
                return node
            helper = self.helper_of(node)
            if helper is None or helper.type.base is None or self.as_expression(helper):
                return node
            prologue, body, result = self.instantiate(node, helper)
            before.append(self.declaration(helper.type, result, None, node.pos))
            before.append(ast.Block(node.pos, [*prologue, *body.items]))
            return ast.Name(node.pos, result)

        targets: list[ast.Node] = []
        if isinstance(stmt, ast.ExprStmt) and stmt.expr is not None:
            targets = [stmt.expr]
        elif isinstance(stmt, ast.Decl):
            targets = [d for d in stmt.declarators if d.init is not None]
        for target in targets:
            for guarded in walk(target):  # && || ?: compute an operand only when needed
                if isinstance(guarded, ast.Binary) and guarded.op in ("&&", "||"):
                    self.refuse_statement_helpers(guarded.rhs)
                elif isinstance(guarded, ast.Conditional):
                    self.refuse_statement_helpers(guarded.then)
                    self.refuse_statement_helpers(guarded.otherwise)
            _map(target, replace)
        return before

    def refuse_statement_helpers(self, expr: ast.Node) -> None:
        for call in _calls(expr, self.functions):
            name = call.named_callee.name
            helper = self.functions[name]
            if helper.type.base is not None and not self.as_expression(helper):
                raise self.error(
                    f"'{name}' has statements, so its call is computed before the "
                    "statement that uses it, which C would not do here (after '&&', '||' or "
                    "'?'): call it in a statement of its own (float v = f(...);)",
                    call.callee.pos,
                )

    def expression_call(self, node: ast.Node) -> ast.Node:
        if not isinstance(node, ast.Call):
            return node
        helper = self.helper_of(node)
        if helper is None:
            return node
        if helper.type.base is None:
            raise self.error(
                f"'{node.named_callee.name}' returns void: call it as a statement of its own",
                node.callee.pos,
            )
        expression = self.as_expression(helper)
        if expression is None:
            raise self.error(
                f"'{node.named_callee.name}' has statements: call it in an expression statement or "
                "a declaration (float v = f(...);), where its value can be computed first",
                node.callee.pos,
            )
        params = self.parameters(helper, node)
        values: dict[str, ast.Expr] = {}
        for (name, type_name), arg in zip(params, node.args):
            values[name] = arg if type_name is None else self.cast(type_name, arg)
        bindings, result = expression
        for name, type_name, init in bindings:
            values[name] = self.cast(type_name, self.substitute(init, values))
        return self.cast(helper.type, self.substitute(result, values))

    # ---- helpers ----------------------------------------------------------------------------

    def parameters(self, helper: ast.FunctionDef, call: ast.Call
                   ) -> list[tuple[str, ast.TypeName | None]]:  # fmt: skip
        """(name, scalar type or None for an array) of each parameter, checked against the
        call's arguments."""
        params = [p for p in helper.declarator.params or []
                  if not (p.type.base is None and not p.declarator.pointers)]  # fmt: skip
        name = helper.declarator.name
        for param in params:  # inlining runs before sema, which refuses this in a kernel
            if param.declarator.name is None:
                raise self.error("parameter needs a name", param.pos)
        if len(params) != len(call.args):
            raise self.error(
                f"'{name}' takes {len(params)} argument{'s' if len(params) != 1 else ''}, got "
                f"{len(call.args)}",
                call.pos,
            )
        result: list[tuple[str, ast.TypeName | None]] = []
        for param, arg in zip(params, call.args):
            d = param.declarator
            if d.pointers or d.arrays:
                if not isinstance(arg, ast.Name):
                    raise self.error(
                        f"pass an array itself to '{name}' (its parameter '{d.name}'), and "
                        "index it there: pointer arithmetic and addresses are not supported",
                        arg.pos,
                    )
                result.append((d.identifier, None))
            else:
                result.append((d.identifier, param.type))
        return result

    def as_expression(
        self, helper: ast.FunctionDef
    ) -> tuple[list[tuple[str, ast.TypeName, ast.Expr]], ast.Expr] | None:
        """(bindings, result) when `helper`'s body is declarations with initializers and a
        return (or an if/else of returns); else None."""
        items = list(helper.body.items)
        bindings: list[tuple[str, ast.TypeName, ast.Expr]] = []
        while items and isinstance(decl := items[0], ast.Decl):
            items.pop(0)
            for d in decl.declarators:
                declarator = d.declarator
                if (d.init is None or isinstance(d.init, ast.BraceInit) or declarator.arrays
                        or declarator.pointers or declarator.params is not None):  # fmt: skip
                    return None
                bindings.append((declarator.identifier, decl.type, d.init))
        result = _returned(items)
        return None if result is None else (bindings, result)

    def instantiate(
        self, call: ast.Call, helper: ast.FunctionDef
    ) -> tuple[list[ast.Decl], ast.Block, str]:
        """A fresh copy of `helper`'s body for `call`: the declarations of its parameters, the
        body with every parameter and local renamed, and the name of the local that receives
        its value (for a helper with a value)."""
        number = next(self.counter)
        name = helper.declarator.name
        params = self.parameters(helper, call)
        body = copy.deepcopy(helper.body)
        declared = {d.declarator.identifier for n in walk(body) if isinstance(n, ast.Decl)
                    for d in n.declarators}  # fmt: skip
        renamed = {n: f"{n}_{name}{number}" for n in declared | {p for p, _ in params}}
        arrays: dict[str, str] = {}
        for (p, t), arg in zip(params, call.args):
            if t is None:
                assert isinstance(arg, ast.Name), "parameters() passes arrays by name only"
                arrays[p] = arg.name
        renamed |= arrays
        result = f"{name}_result{number}"
        returns = [n for n in walk(body) if isinstance(n, ast.Return)]
        last = body.items[-1] if body.items else None
        for stmt in returns:
            if stmt is not last:
                raise self.error(
                    f"'{name}' returns before its end: a helper with statements may return only "
                    "as its last statement (write if/else, or a helper that is a single "
                    "return expression)",
                    stmt.pos,
                )

        def rename(node: ast.Node) -> ast.Node:
            if isinstance(node, ast.Name) and node.name in renamed:
                node.name = renamed[node.name]
            elif isinstance(node, ast.Declarator) and node.name in renamed:
                node.name = renamed[node.name]
            return node

        _map(body, rename)
        if isinstance(last, ast.Return):
            body.items.pop()
            if last.value is not None and helper.type.base is not None:
                assign = ast.Assign(last.pos, "=", ast.Name(last.pos, result), last.value)
                body.items.append(ast.ExprStmt(last.pos, assign))
        elif helper.type.base is not None:
            raise self.error(f"'{name}' must end with 'return value;'", helper.body.end)
        body = self.inline_block(body)  # the helpers it calls
        prologue = [
            self.declaration(type_name, renamed[p], arg, arg.pos)
            for (p, type_name), arg in zip(params, call.args)
            if type_name is not None
        ]
        return prologue, body, result

    def declaration(
        self, type_name: ast.TypeName, name: str, init: ast.Expr | None, pos: ast.Pos
    ) -> ast.Decl:
        scalar = ast.TypeName(type_name.pos, type_name.base, type_name.spelling)
        declarator = ast.InitDeclarator(pos, ast.Declarator(pos, name), init)
        return ast.Decl(pos, scalar, [declarator])

    def cast(self, type_name: ast.TypeName, expr: ast.Expr) -> ast.Expr:
        scalar = ast.TypeName(type_name.pos, type_name.base, type_name.spelling)
        return ast.Cast(expr.pos, scalar, expr)

    def substitute(self, expr: ast.Expr, values: dict[str, ast.Expr]) -> ast.Expr:
        fresh = copy.deepcopy(expr)

        def replace(node: ast.Node) -> ast.Node:
            if isinstance(node, ast.Name) and node.name in values:
                return copy.deepcopy(values[node.name])
            return node

        result = _map(_map(fresh, replace), self.expression_call)  # helpers it calls in turn
        assert isinstance(result, ast.Expr), "both replace expressions by expressions"
        return result


def _returned(items: list[ast.Stmt]) -> ast.Expr | None:
    """The value of `return e;`, `if (c) return a; else return b;` or `if (c) return a;
    return b;` (braces allowed), as an expression; None for anything else."""

    def single(stmt: ast.Stmt | None) -> ast.Stmt | None:
        while isinstance(stmt, ast.Block) and len(stmt.items) == 1:
            stmt = stmt.items[0]
        return stmt

    if len(items) == 1:
        stmt = single(items[0])
        if isinstance(stmt, ast.Return):
            return stmt.value
        if isinstance(stmt, ast.If) and stmt.otherwise is not None:
            then, otherwise = _returned([stmt.then]), _returned([stmt.otherwise])
            if then is not None and otherwise is not None:
                return ast.Conditional(stmt.pos, stmt.cond, then, otherwise)
        return None
    if len(items) == 2:
        stmt = single(items[0])
        if isinstance(stmt, ast.If) and stmt.otherwise is None:
            then, otherwise = _returned([stmt.then]), _returned(items[1:])
            if then is not None and otherwise is not None:
                return ast.Conditional(stmt.pos, stmt.cond, then, otherwise)
    return None


def inline_helpers(unit: ast.TranslationUnit, error: Error) -> ast.TranslationUnit:
    return Inliner(unit, error).run()


def inline_tables(unit: ast.TranslationUnit) -> ast.TranslationUnit:
    """File-scope `static const` tables (`static const float w[5] = {...};`) declared again at
    the top of each function that uses them: a function-level local array, which the lowering
    keeps in one device global that the kernels read. Other file-scope variables are left for
    sema to refuse."""
    tables: dict[str, tuple[ast.Decl, ast.InitDeclarator]] = {}
    items: list[ast.FunctionDef | ast.Decl] = []
    for item in unit.items:
        if isinstance(item, ast.Decl) and item.type.const and all(
            d.declarator.arrays and d.init is not None and d.declarator.params is None
            for d in item.declarators
        ):
            for d in item.declarators:
                tables[d.declarator.identifier] = (item, d)
        else:
            items.append(item)
    if not tables:
        return unit
    for item in items:
        if not isinstance(item, ast.FunctionDef):
            continue
        used = {n.name for n in walk(item.body) if isinstance(n, ast.Name) and n.name in tables}
        declarations: list[ast.Stmt] = []
        for name in sorted(used, key=lambda n: tables[n][1].pos):
            decl, declarator = tables[name]
            local_type = copy.deepcopy(decl.type)
            local_type.static_pos = None
            declarations.append(ast.Decl(decl.pos, local_type, [copy.deepcopy(declarator)]))
        item.body.items = [*declarations, *item.body.items]
    return ast.TranslationUnit(unit.pos, items)
