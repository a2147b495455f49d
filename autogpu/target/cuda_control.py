"""scf control flow as C statements, for the kernel emitter (`cuda_kernel.KernelEmitter`).

`scf.for` → `for (T i = lb; i < ub; i += step)`, its loop-carried values variables declared
before the loop and assigned (in parallel: through temporaries where one reads another) at the
end of the body; `scf.if` → `if`/`else`, its results variables assigned in each branch, or a
`c ? a : b` expression when both branches only compute their values; `scf.while` → `while
(cond)`, `do { } while (cond);` or `while (true) { ...; if (!cond) break; ... }`, whichever
says it without duplicating code.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import scf
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from autogpu.target.c_expr import Binary, Expr, IntLiteral, Name
from autogpu.target.c_types import Mode, UnsupportedType, convert, ctype_of
from autogpu.target.cuda_exprs import negate, pair, select
from autogpu.target.kernel_state import KernelState

INDENT = "  "


class ControlFlow(KernelState):
    """Mixin of `KernelEmitter` printing the scf ops; the emitter provides its `KernelState`."""

    def declare_variable(self, result: SSAValue, hint: str | None, init: Expr | None) -> Name:
        try:
            ctype = ctype_of(result.type)
        except UnsupportedType:
            raise self.fail(result.owner if isinstance(result.owner, Operation) else None,
                            f"type {result.type}") from None
        name = self.scopes.declare(hint)
        if init is None:
            self.line(f"{ctype} {name};")
        else:
            self.line(f"{ctype} {name} = {convert(init, ctype, Mode.ASSIGN)};")
        return Name(name, ctype)

    def assign(self, targets: Sequence[Name], sources: Sequence[Expr]) -> None:
        """Parallel assignment `targets = sources`: a source that reads a target assigned
        before it is saved in a temporary first."""
        pending = [
            (t, s)
            for t, s in zip(targets, sources)
            if not (isinstance(s, Name) and s.text == t.text)
        ]
        for k, (target, source) in enumerate(pending):
            earlier = {t.text for t, _ in pending[:k]}
            if source.variables() & earlier:
                ctype = target.ctype or ""
                temp = self.scopes.declare(f"{target.text}_next")
                self.line(f"const {ctype} {temp} = {convert(source, ctype, Mode.ASSIGN)};")
                pending[k] = (target, Name(temp, ctype))
        for target, source in pending:
            self.line(f"{target.text} = {convert(source, target.ctype or '', Mode.ASSIGN)};")

    def yielded(self, terminator: Operation, expected: type[Operation]) -> list[Expr]:
        if not isinstance(terminator, expected):
            raise self.fail(terminator, f"expected {expected.name} here")
        return [self.value(v, terminator) for v in terminator.operands]

    def for_loop(self, op: scf.ForOp) -> None:
        iv_type = op.lb.type
        ctype = ctype_of(iv_type)
        body = op.body.block
        carried = [
            self.declare_variable(res, res.name_hint or arg.name_hint, self.value(init, op))
            for res, arg, init in zip(op.res, body.args[1:], op.iter_args)
        ]
        for res, arg, var in zip(op.res, body.args[1:], carried):
            self.exprs[res] = var
            self.exprs[arg] = var
        lb = convert(self.value(op.lb, op), ctype, Mode.ASSIGN)
        with self.nested():
            iv = Name(self.scopes.declare(body.args[0].name_hint or "i"), ctype)
            self.exprs[body.args[0]] = iv
            condition = Binary("<", *pair(iv, self.value(op.ub, op), ctype), "bool")
            step = self.value(op.step, op)
            if isinstance(step, IntLiteral) and step.value == 1:
                increment = f"{iv.text}++"
            else:
                increment = f"{iv.text} += {convert(step, ctype, Mode.PRESERVE)}"
            self.depth -= 1
            self.line(f"for ({ctype} {iv.text} = {lb}; {condition}; {increment}) {{")
            self.depth += 1
            terminator = self.block(body)
            self.assign(carried, self.yielded(terminator, scf.YieldOp))
        self.line("}")

    def if_op(self, op: scf.IfOp) -> None:
        cond = convert(self.value(op.cond, op), "bool", Mode.EXACT)
        then_block = op.true_region.block
        else_block = op.false_region.blocks[0] if op.false_region.blocks else None
        for result in op.output:
            if isinstance(result.type, MemRefType):
                raise self.fail(op, "a memref result")
        # Result variables are named before the branches so that nothing inside shadows them.
        names = [self.scopes.declare(r.name_hint) for r in op.output]
        with self.nested():
            then_lines, then_values = self.branch(then_block)
        else_lines: list[str] = []
        else_values: list[Expr] = []
        if else_block is not None:
            with self.nested():
                else_lines, else_values = self.branch(else_block)
        if len(op.output) == 1 and not then_lines and not else_lines:
            for name in names:
                self.scopes.release(name)
            (result,) = op.output
            self.bind(result, select(cond, then_values[0], else_values[0], result.type))
            return
        targets: list[Name] = []
        for result, name in zip(op.output, names):
            ctype = ctype_of(result.type)
            self.line(f"{ctype} {name};")
            targets.append(Name(name, ctype))
            self.exprs[result] = targets[-1]
        then_lines += self.assignments(targets, then_values)
        else_lines += self.assignments(targets, else_values)
        if not then_lines and else_lines:
            self.line(f"if ({negate(cond)}) {{")
            self.lines += else_lines
        else:
            self.line(f"if ({cond}) {{")
            self.lines += then_lines
            if _is_lone_if(else_lines, INDENT * (self.depth + 1)):
                # `} else { if (c) { ... } }` reads better as `} else if (c) { ... }`.
                self.line(f"}} else {else_lines[0].lstrip()}")
                self.lines += [line[len(INDENT) :] for line in else_lines[1:-1]]
            elif else_lines:
                self.line("} else {")
                self.lines += else_lines
        self.line("}")

    def branch(self, block: Block) -> tuple[list[str], list[Expr]]:
        with self.capture() as lines:
            terminator = self.block(block)
            values = self.yielded(terminator, scf.YieldOp)
        return lines, values

    def assignments(self, targets: Sequence[Name], values: Sequence[Expr]) -> list[str]:
        self.depth += 1
        with self.capture() as lines:
            self.assign(targets, values)
        self.depth -= 1
        return lines

    def while_loop(self, op: scf.WhileOp) -> None:
        before = op.before_region.block
        after = op.after_region.block
        condition_op = before.last_op
        if not isinstance(condition_op, scf.ConditionOp):
            raise self.fail(op, "before region must end with scf.condition")
        carried = [
            self.declare_variable(arg, arg.name_hint, self.value(init, op))
            for arg, init in zip(before.args, op.arguments)
        ]
        for arg, var in zip(before.args, carried):
            self.exprs[arg] = var
        # What the condition forwards: a carried variable as is, else a new variable.
        results: list[Name] = []
        forwarded: list[tuple[Name, SSAValue]] = []
        for k, value in enumerate(condition_op.args):
            if isinstance(value, BlockArgument) and value in before.args:
                results.append(carried[list(before.args).index(value)])
            else:
                hint = op.res[k].name_hint or after.args[k].name_hint
                var = self.declare_variable(op.res[k], hint, None)
                results.append(var)
                forwarded.append((var, value))
        for res, arg, var in zip(op.res, after.args, results):
            self.exprs[res] = var
            self.exprs[arg] = var
        with self.nested():
            with self.capture() as before_lines:
                self.block(before)
                declared_inside = self.scopes.innermost()
                self.assign(
                    [v for v, _ in forwarded], [self.value(s, condition_op) for _, s in forwarded]
                )
            cond = convert(self.value(condition_op.condition, condition_op), "bool", Mode.EXACT)
            with self.capture() as after_lines:
                terminator = self.block(after)
                self.assign(carried, self.yielded(terminator, scf.YieldOp))
            if not before_lines:
                self.depth -= 1
                self.line(f"while ({cond}) {{")
                self.depth += 1
                self.lines += after_lines
            elif not after_lines and not (cond.variables() & declared_inside):
                self.depth -= 1
                self.line("do {")
                self.depth += 1
                self.lines += before_lines
                self.depth -= 1
                self.line(f"}} while ({cond});")
                self.depth += 1
                return
            else:
                self.depth -= 1
                self.line("while (true) {")
                self.depth += 1
                self.lines += before_lines
                self.line(f"if ({negate(cond)}) break;")
                self.lines += after_lines
        self.line("}")


def _is_lone_if(lines: list[str], indent: str) -> bool:
    """The lines of a branch are a single if statement (its chain of else included)."""
    top = [line for line in lines if line.startswith(indent) and line[len(indent)] != " "]
    return (
        len(top) >= 2
        and top[0].startswith(f"{indent}if (")
        and all(line.startswith(f"{indent}}}") for line in top[1:])
        and top[-1] == f"{indent}}}"
    )
