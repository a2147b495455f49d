"""Semantic analysis: every diagnostic about a well-formed parse is raised here.

It resolves names (C block scopes), types every expression with C's rules (`expressions.py`),
rejects what the subset does not support, decides which variables need a memory slot (those
assigned after their declaration), recognises canonical `for` loops (`loops.py`) and attaches
`#pragma omp parallel for` to them (`openmp.py`). `irgen.py` then only translates: it never has
to reject anything.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Generator
from contextlib import contextmanager
from typing import Any

from autogpu.diagnostics import CompileError, located
from autogpu.frontend import ast
from autogpu.frontend.atomics import synchronization
from autogpu.frontend.consteval import const_int
from autogpu.frontend.data_sharing import check_default_none, loop_variable_names, make_copies
from autogpu.frontend.directives import Directive, OpenMP, unplaced
from autogpu.frontend.expressions import ExpressionTyping
from autogpu.frontend.extents import extent_text
from autogpu.frontend.loops import Effects, canonical_form
from autogpu.frontend.maps import function_maps
from autogpu.frontend.openmp import ParallelInfo
from autogpu.frontend.preprocess import Pragma
from autogpu.frontend.reductions import check_reduction_uses
from autogpu.frontend.symbols import Function, Var
from autogpu.frontend.types import ArrayType
from autogpu.nesting import MAX_NESTING, too_deep

# The largest local array (elements): CUDA gives a thread up to 512 KiB of local memory, and
# a table this size is already far past what stays in registers.
_LOCAL_ARRAY_LIMIT = 16384


class Sema(ExpressionTyping):
    def __init__(
        self,
        source: str,
        filename: str,
        pragma_targets: dict[ast.Pos, list[Directive]],
        warn: Callable[[CompileError], None],
        sync_targets: dict[ast.Pos, Pragma] | None = None,
    ):
        self.source = source
        self.sync_targets = dict(sync_targets or {})  # `omp atomic`/`critical` pragmas
        self.parallel_scopes: list[int] = []  # where each enclosing parallel loop's scopes start
        self.parallel_reduced: list[Var] = []  # their reduction variables (private copies)
        self.critical_names: list[str] = []  # the critical sections being analysed
        self.filename = filename
        self.pragma_targets = dict(pragma_targets)
        self.omp = OpenMP(self)
        self.warn = warn
        self.scopes: list[dict[str, Var]] = []
        self.effects: list[Effects] = []
        self.all_assigned: set[Var] = set()
        self.user_functions: dict[str, ast.Pos] = {}
        self.current: str = ""
        self.recording = True  # whether assignments are recorded (off while typing a for step)
        self.depth = 0  # statements and expressions being analysed, one inside the next

    def error(self, message: str, pos: ast.Pos) -> CompileError:
        return located(message, self.filename, self.source, *pos)

    def warning(self, message: str, pos: ast.Pos) -> None:
        self.warn(located(message, self.filename, self.source, *pos, severity="warning"))

    @contextmanager
    def nested(self, pos: ast.Pos, what: str) -> Generator[None]:
        """One level deeper; refused beyond MAX_NESTING (autogpu/nesting.py), so that no
        later stage runs out of Python recursion."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.error(too_deep(what), pos)
        try:
            yield
        finally:
            self.depth -= 1

    # ---- top level ----------------------------------------------------------------------------

    def run(self, unit: ast.TranslationUnit) -> list[Function]:
        defined: set[str] = set()
        for item in unit.items:
            if isinstance(item, ast.FunctionDef):
                decl = item.declarator
                if decl.name in defined:
                    raise self.error(f"redefinition of function '{decl.name}'", decl.pos)
                defined.add(decl.identifier)
                self.user_functions[decl.identifier] = decl.pos
            else:
                for d in item.declarators:
                    if d.declarator.params is not None and not d.declarator.function_pointer:
                        self.user_functions.setdefault(d.declarator.identifier, d.pos)
        functions: list[Function] = []
        for item in unit.items:
            if isinstance(item, ast.FunctionDef):
                functions.append(self.function(item))
            else:
                self.global_decl(item)
        if not functions:
            raise self.error("no function to compile: the input defines no C function", (1, 1))
        if self.sync_targets:
            pragma = min(self.sync_targets.values(), key=lambda p: (p.line, p.column))
            directive = " ".join(pragma.text.split("(")[0].split()[:2])
            raise self.error(
                f"'#pragma {directive}' must be followed by a statement of a function",
                (pragma.line, pragma.column),
            )
        if self.pragma_targets:
            directive = min((d for ds in self.pragma_targets.values() for d in ds),
                            key=lambda d: d.pos)  # fmt: skip
            raise self.error(unplaced(directive), directive.pos)
        return functions

    def global_decl(self, decl: ast.Decl) -> None:
        for d in decl.declarators:
            if d.declarator.params is not None and not d.declarator.function_pointer:
                continue  # a prototype: calling it is rejected where it happens
            raise self.error(
                f"global variable '{d.declarator.name}' is not supported: pass it as a "
                "parameter, use #define for a constant, or make it a table (static const "
                "float w[3] = {...};)",
                d.pos,
            )

    def function(self, fn: ast.FunctionDef) -> Function:
        decl = fn.declarator
        self.current = decl.identifier
        if fn.type.base is not None or decl.pointers or fn.type.const:
            raise self.error(
                f"function '{decl.name}' must return void: kernels return their results "
                "through pointer parameters",
                fn.type.pos,
            )
        if decl.function_pointer or decl.params is None:
            raise self.error("expected a function definition", decl.pos)
        self.scopes = [{}]
        self.effects = [Effects()]
        self.all_assigned = set()
        self.omp.mapped = []
        params = self.params(decl.params)
        self.block_items(fn.body.items, function_body=True)
        self.omp.block_end(fn.body.end)
        self.omp.function_end(self.all_assigned)
        for var in self.all_assigned:
            var.needs_slot = True
        maps = function_maps(params, fn.body, self.omp.mapped)
        return Function(decl.identifier, decl.pos, params, fn.body, maps)

    def parameters(self, fn: ast.FunctionDef) -> list[Var]:
        """The checked parameters of a function definition alone (its body is not analysed):
        the prototype, for readers of the C signature."""
        self.current = fn.declarator.identifier
        self.scopes = [{}]
        self.effects = [Effects()]
        if fn.declarator.function_pointer or fn.declarator.params is None:
            raise self.error("expected a function definition", fn.declarator.pos)
        return self.params(fn.declarator.params)

    def params(self, params: list[ast.Param]) -> list[Var]:
        if (
            len(params) == 1
            and params[0].type.base is None
            and params[0].declarator.name is None
            and not params[0].declarator.pointers
        ):
            return []  # f(void)
        result: list[Var] = []
        for index, param in enumerate(params):
            var = self.param(param, index)
            self.declare(var, param.declarator.pos)
            result.append(var)
        return result

    def no_storage_class(self, t: ast.TypeName, what: str) -> None:
        """`static` and `inline` qualify functions and file-scope tables only."""
        if t.static_pos is not None:
            raise self.error(
                f"'static' on {what} is not supported: a static local keeps its value between "
                "calls, which threads cannot share; declare it without 'static'",
                t.static_pos,
            )
        if t.inline_pos is not None:
            raise self.error(f"'inline' applies to functions, not to {what}", t.inline_pos)

    def param(self, param: ast.Param, index: int) -> Var:
        d, t = param.declarator, param.type
        self.no_storage_class(t, "a parameter")
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
                raise self.error("'restrict' applies only to pointers", t.restrict_position)
            return Var(d.name, t.base, d.pos, t.spelling, const=t.const, param_index=index)
        if t.restrict:
            raise self.error(
                f"'restrict' qualifies the pointer, not the element: write "
                f"'{t.spelling} *restrict {d.name}'",
                t.restrict_position,
            )
        if d.pointers:
            pointer = d.pointers[0]
            array = ArrayType(t.base, (None,), t.const, pointer.restrict)
        else:
            extents = tuple(self.extent(e, d, i) for i, e in enumerate(d.arrays))
            expressions = tuple(e if isinstance(x, str) and not isinstance(e, ast.Name) else None
                                for x, e in zip(extents, d.arrays))  # fmt: skip
            array = ArrayType(t.base, extents, t.const, d.array_quals[0].restrict, expressions)
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
            if var.is_array or not var.scalar.is_int:
                raise self.error(
                    f"the extent '{expr.name}' of '{d.name}' must be an integer parameter",
                    expr.pos,
                )
            return expr.name
        self.rvalue(expr)
        value = const_int(expr)
        if value is None:
            text = extent_text(expr)
            if text is None:
                raise self.error(
                    f"the extent of array parameter '{d.name}' must be an integer constant or "
                    "an expression of earlier integer parameters with + - * / % and casts: "
                    "pass the extent as its own parameter",
                    expr.pos,
                )
            return text
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
        if self.sync_targets and (pragma := self.sync_targets.pop(stmt.pos, None)):
            with self.nested(stmt.pos, "statement"):
                stmt.sync = synchronization(self, pragma, stmt)
            return
        if isinstance(stmt, ast.Block):  # braces add no nesting of their own
            self._statement(stmt)
            return
        with self.nested(stmt.pos, "statement"):
            self._statement(stmt)

    def _statement(self, stmt: ast.Stmt) -> None:
        directives = self.pragma_targets.pop(stmt.pos, None)
        if directives:  # OpenMP constructs (directives.py): they analyse the statement
            self.omp.statement(stmt, directives)
        elif isinstance(stmt, ast.For):
            self.for_(stmt, None)
        elif isinstance(stmt, ast.Block):
            self.scopes.append({})
            self.block_items(stmt.items)
            self.omp.block_end(stmt.end)
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
        self.no_storage_class(t, "a local variable")
        if t.base is None:
            raise self.error("variables cannot have type void", t.pos)
        for init_decl in decl.declarators:
            if t.restrict and not init_decl.declarator.pointers:
                raise self.error("'restrict' applies only to pointers", t.restrict_position)
            d = init_decl.declarator
            if d.function_pointer:
                raise self.error(f"function pointer '{d.name}' is not supported", d.pos)
            if d.params is not None:
                raise self.error(
                    f"function declarations inside a function are not supported ('{d.name}')",
                    d.pos,
                )
            if d.pointers:
                self.pointer_alias(t, init_decl)
                continue
            if d.arrays:
                self.local_array(t, init_decl)
                continue
            if isinstance(init_decl.init, ast.BraceInit):
                raise self.error(
                    f"braces around the initializer of scalar '{d.name}' are not supported: "
                    "write it without them",
                    init_decl.init.pos,
                )
            var = Var(d.identifier, t.base, d.pos, t.spelling, const=t.const)
            self.declare(var, d.pos)
            init_decl.var = var
            if init_decl.init is None:
                var.needs_slot = var.unassigned = True
            else:
                var.initializing = True
                self.rvalue(init_decl.init)
                var.initializing = False

    def pointer_alias(self, t: ast.TypeName, init_decl: ast.InitDeclarator) -> None:
        """`float *restrict p = A;`: another name for the whole array `A` (a parameter or a
        local array), with `const` on the pointee if written; `restrict` on it adds nothing
        to what `A`'s own declaration says. Anything else a pointer could do is refused."""
        d = init_decl.declarator
        advice = (f"a local pointer may only name a whole array ({t.spelling} *restrict "
                  f"{d.name} = A;): index the array directly (A[i * n + j])")  # fmt: skip
        if len(d.pointers) > 1 or d.arrays or not isinstance(init_decl.init, ast.Name):
            raise self.error(f"local pointer '{d.name}' is not supported here: {advice}",
                             (init_decl.init or d).pos)  # fmt: skip
        if t.restrict:
            raise self.error(
                f"'restrict' qualifies the pointer, not the element: write "
                f"'{t.spelling} *restrict {d.name}'",
                t.restrict_position,
            )
        target = self.expr(init_decl.init)
        array = init_decl.init.resolved_var
        if not isinstance(target, ArrayType) or target.dims > 1:
            raise self.error(f"'{init_decl.init.name}' is not a flat array: {advice}",
                             init_decl.init.pos)  # fmt: skip
        if target.element != t.base:
            raise self.error(
                f"'{d.name}' points to {t.spelling}, but '{array.name}' holds "
                f"{target.element}: the types must match",
                init_decl.init.pos,
            )
        alias = Var(d.identifier, target, d.pos, array.spelling, param_index=array.param_index)
        if t.const and not target.const:
            alias.type = dataclasses.replace(target, const=True)
        alias.aliases = array
        self.declare(alias, d.pos)
        init_decl.var = alias

    def local_array(self, t: ast.TypeName, init_decl: ast.InitDeclarator) -> None:
        """`float acc[4][4];`, `const float w[5] = {...};`, `int lut[] = {...};`: constant
        extents; the initializer's elements in row-major order (`init_decl.elements`)."""
        d = init_decl.declarator
        init = init_decl.init
        if init is not None and not isinstance(init, ast.BraceInit):
            raise self.error(
                f"array '{d.name}' needs a brace initializer ({{1, 2, ...}})", init.pos
            )
        extents: list[int] = []
        for index, extent in enumerate(d.arrays):
            if extent is None:
                if index > 0 or init is None:
                    raise self.error(
                        f"local array '{d.name}' needs every extent (the first may be left out "
                        "when an initializer gives it)",
                        d.pos,
                    )
                extents.append(0)  # from the initializer, below
                continue
            self.rvalue(extent)
            value = const_int(extent)
            if value is None:
                raise self.error(
                    f"the extent of local array '{d.name}' must be an integer constant (variable "
                    "length arrays are not supported: use a #define constant)",
                    extent.pos,
                )
            if value <= 0:
                raise self.error(f"array extent must be positive, got {value}", extent.pos)
            extents.append(value)
        elements: list[tuple[int, ast.Expr]] = []
        if init is not None:
            row = 1
            for extent in extents[1:]:
                row *= extent
            if extents[0] == 0:
                count = self.initializer_items(init, extents[1:])
                extents[0] = max(-(-count // row), 1)
            elements = self.array_initializer(init, extents, d.identifier)
        assert t.base is not None, "local_decl() refuses void variables"
        array = ArrayType(t.base, tuple(extents), t.const, False, local=True)
        if array.size > _LOCAL_ARRAY_LIMIT:
            raise self.error(
                f"local array '{d.name}' has {array.size} elements: a GPU thread keeps at most "
                f"{_LOCAL_ARRAY_LIMIT} in its local memory here; pass a larger array as a "
                "parameter",
                d.pos,
            )
        var = Var(d.identifier, array, d.pos, t.spelling, const=False)
        self.declare(var, d.pos)
        init_decl.var = var
        init_decl.elements = elements

    def initializer_items(self, init: ast.BraceInit, inner: list[int]) -> int:
        """How many elements an initializer of unknown first extent spans (rows rounded up)."""
        row = 1
        for extent in inner:
            row *= extent
        count = 0
        for item in init.items:
            if isinstance(item, ast.BraceInit):
                count = -(-count // row) * row + row
            else:
                count += 1
        return count

    def array_initializer(self, init: ast.BraceInit, extents: list[int], name: str
                          ) -> list[tuple[int, ast.Expr]]:  # fmt: skip
        """(flat index, value) of each element an initializer gives, C's way: a nested brace
        starts the next row; elements it leaves out are zero."""
        result: list[tuple[int, ast.Expr]] = []

        def fill(items: list[Any], extents: list[int], base: int) -> None:
            size = 1
            for extent in extents:
                size *= extent
            row = size // extents[0]
            position = 0
            for item in items:
                if isinstance(item, ast.BraceInit):
                    if len(extents) == 1:
                        raise self.error(f"braces around an element of '{name}': remove them",
                                         item.pos)  # fmt: skip
                    position = -(-position // row) * row
                    if position >= size:
                        raise self.error(f"excess elements in the initializer of '{name}'",
                                         item.pos)  # fmt: skip
                    fill(item.items, extents[1:], base + position)
                    position += row
                    continue
                if position >= size:
                    raise self.error(f"excess elements in the initializer of '{name}'",
                                     item.pos)  # fmt: skip
                self.rvalue(item)
                result.append((base + position, item))
                position += 1

        fill(init.items, extents, 0)
        return result

    def condition(self, expr: ast.Expr) -> None:
        self.rvalue(expr)

    def target(self, target: ast.Expr, op: str):
        self.omp.check_write(target)  # a write every thread of a region would run
        return super().target(target, op)

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
                self.warning("statement has no effect", expr.pos)

    # ---- loops --------------------------------------------------------------------------------

    def for_(self, loop: ast.For, parallel: ParallelInfo | None) -> None:
        if parallel is not None:
            self.parallel_scopes.append(len(self.scopes))
            self.parallel_reduced += [var for _, var in parallel.reductions]
        try:
            self._for(loop, parallel)
        finally:
            if parallel is not None:
                self.parallel_scopes.pop()
                del self.parallel_reduced[len(self.parallel_reduced) - len(parallel.reductions):]

    def _for(self, loop: ast.For, parallel: ParallelInfo | None) -> None:
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
        body_effects = Effects()
        self.effects.append(body_effects)
        outermost = parallel if parallel is not None and not parallel.inner else None
        loop_names: set[str] = set()  # the outermost loop's, read (below) for it only
        if outermost is not None:
            loop_names = loop_variable_names(loop, outermost.total)
            self.scopes.append(make_copies(outermost, loop_names))
            for copy in outermost.copies:
                if copy.last:
                    self.assigned(copy.original)  # the last iteration's copy-out
        if parallel is not None and parallel.collapse > 1:
            inner = self.perfectly_nested(loop, parallel)
            if inner.pos in self.pragma_targets:
                pragma = self.pragma_targets.pop(inner.pos)[0].pragma
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
        if outermost is not None:
            self.scopes.pop()
        self.effects.pop()
        loop.canonical, loop.not_canonical_because = canonical_form(loop, body_effects)
        if loop.step is not None:
            canonical = loop.canonical
            skip = canonical.var if canonical and canonical.declared_in_init else None
            self.effect_except(loop.step, skip)
        self.scopes.pop()
        if parallel is not None:
            self.check_parallel(loop, parallel)
            self.check_reduction_not_loop_variable(loop, parallel)
            if not parallel.inner:
                # in place: the loops of a collapse(n) nest share the list
                parallel.reductions[:] = check_reduction_uses(
                    loop.body, parallel.reductions, self.error
                )
                if parallel.default_none is not None:
                    check_default_none(loop, parallel, loop_names, self.error)
            loop.parallel = parallel

    def check_reduction_not_loop_variable(self, loop: ast.For, parallel: ParallelInfo) -> None:
        """OpenMP: a loop's iteration variable cannot be a reduction variable of the loop."""
        var = loop.canonical.var if loop.canonical is not None else None
        if any(var is reduced for _, reduced in parallel.reductions):
            pragma = parallel.pragma
            assert var is not None
            raise self.error(
                f"'{var.name}' is the variable of the parallel loop: it cannot be a reduction "
                "variable of the loop",
                (pragma.line, pragma.column_of(pragma.text.find("reduction"))),
            )

    # ---- synchronization (atomics.py) ---------------------------------------------------------

    def in_parallel_loop(self) -> bool:
        return bool(self.parallel_scopes)

    def shared_across_iterations(self, x: ast.Expr) -> bool:
        """Whether other iterations of the enclosing parallel loops can access `x`: an array
        element, or a variable declared outside them (not one private to an iteration)."""
        if not self.parallel_scopes:
            return False
        if not isinstance(x, ast.Name):
            return True
        if x.var in self.parallel_reduced:
            return False  # each thread updates its private copy
        depth = next(d for d, scope in enumerate(self.scopes) if scope.get(x.name) is x.var)
        if depth < self.parallel_scopes[0]:
            return True
        if depth >= self.parallel_scopes[-1]:
            return False
        raise self.error(
            f"atomic access to '{x.name}', declared between two nested parallel loops, is not "
            "supported: declare it outside both",
            x.pos,
        )

    @contextmanager
    def critical_section(self, name: str, pragma: Pragma) -> Generator[None]:
        if name in self.critical_names:
            raise self.error(
                f"'#pragma omp critical{f' ({name})' if name else ''}' inside a critical "
                "section of the same name would wait for itself forever",
                (pragma.line, pragma.column),
            )
        self.critical_names.append(name)
        try:
            yield
        finally:
            self.critical_names.pop()

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

    def check_parallel(self, loop: ast.For, info: ParallelInfo) -> None:
        if loop.canonical is None:
            depth = info.total - info.collapse + 1
            what = f"the loop at depth {depth} of its collapse({info.total})"
            if not info.inner:
                what = "this loop"
            raise self.error(
                f"'#pragma omp parallel for' needs a canonical for loop, but {what} is not: "
                f"{loop.not_canonical_because}",
                loop.pos,
            )

