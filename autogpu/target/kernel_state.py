"""What the kernel emitter's mixins (`ControlFlow`, `Synchronization`) read from it.

`cuda_kernel.KernelEmitter` owns the output, the names and the C form of every value; the
mixins print one family of ops each through this interface, which the emitter implements.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Protocol

from xdsl.ir import Block, Operation, SSAValue

from autogpu.diagnostics import CompileError
from autogpu.target.c_expr import Expr
from autogpu.target.c_names import Scopes


class KernelState(Protocol):
    exprs: dict[SSAValue, Expr]
    scopes: Scopes
    lines: list[str]
    depth: int
    helpers: dict[str, str]

    def fail(self, op: Operation | None, why: str = "") -> CompileError: ...

    def line(self, text: str) -> None: ...

    def nested(self) -> AbstractContextManager[None]: ...

    def capture(self) -> AbstractContextManager[list[str]]: ...

    def block(self, block: Block) -> Operation: ...

    def value(self, value: SSAValue, user: Operation) -> Expr: ...

    def bind(self, result: SSAValue, expr: Expr) -> None: ...

    def access(self, ref: SSAValue, indices: Sequence[SSAValue], op: Operation) -> Expr: ...
