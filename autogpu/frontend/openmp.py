"""`#pragma omp parallel for [collapse(n)] [reduction(op: vars)]...`: its clauses, checked.

Clauses that do not change the result (schedule, num_threads, ...) are ignored with a warning;
clauses whose semantics the IR cannot express (private, lastprivate, ...) are errors.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from autogpu.dialects.agpu import REDUCTION_OF_C_OPERATOR, ReductionKind
from autogpu.frontend.preprocess import Pragma
from autogpu.frontend.symbols import Var

if TYPE_CHECKING:
    from autogpu.frontend.sema import Sema

_IGNORED_CLAUSES = {"schedule", "num_threads", "shared", "default", "proc_bind", "nowait", "if",
                    "ordered"}  # fmt: skip


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


class ClauseParser:
    """Reads the clauses of one pragma; names resolve in the scope around the loop."""

    def __init__(self, sema: Sema):
        self.sema = sema

    def parse(self, pragma: Pragma, start: int | None = None,
              extra: Callable[[str, str, int], bool] | None = None) -> ParallelInfo:  # fmt: skip
        """The clauses from `start` (default: after `omp parallel for`); `extra(clause, args,
        offset)` handles the clauses of the other parts of a directive (directives.py)."""
        info = ParallelInfo(pragma)
        text = pragma.text
        position = re.match(r"omp\s+parallel\s+for", text).end() if start is None else start
        while True:
            while position < len(text) and text[position] in " \t,":
                position += 1
            if position == len(text):
                return info
            where = (pragma.line, pragma.column_of(position))
            name = re.match(r"[A-Za-z_]\w*", text[position:])
            if name is None:
                raise self.sema.error(
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
                    raise self.sema.error(f"unbalanced parentheses in clause '{clause}'", where)
                args, args_start, position = text[position + 1 : end], position + 1, end + 1
            if extra is not None and extra(clause, args, args_start):
                pass
            elif clause == "collapse":
                info.collapse = info.total = self.collapse_depth(args, pragma, args_start)
            elif clause == "reduction":
                info.reductions += self.reduction(args, pragma, args_start)
            elif clause in _IGNORED_CLAUSES:
                self.sema.warning(
                    f"ignoring clause '{clause}' of '#pragma omp parallel for'",
                    (pragma.line, pragma.column_of(args_start - len(clause))),
                )
            else:
                raise self.sema.error(
                    f"clause '{clause}' is not supported on '#pragma omp parallel for': only "
                    "collapse(n) and reduction(op: vars) are (declare private variables inside "
                    "the loop)",
                    where,
                )

    def collapse_depth(self, text: str, pragma: Pragma, offset: int) -> int:
        try:
            value = int(text.strip().strip("()").strip(), 0)
        except ValueError:
            value = 0
        if value < 1:
            raise self.sema.error(
                f"collapse needs a positive integer constant, got '{text.strip()}'",
                (pragma.line, pragma.column_of(offset)),
            )
        return value

    def reduction(self, text: str, pragma: Pragma, offset: int) -> list[tuple[ReductionKind, Var]]:
        op, colon, names = text.partition(":")
        if not colon or op.strip() not in REDUCTION_OF_C_OPERATOR:
            raise self.sema.error(
                "reduction needs 'op: variables' with op one of + - * min max & | ^ && ||, "
                f"got '{text.strip()}'",
                (pragma.line, pragma.column_of(offset)),
            )
        kind = REDUCTION_OF_C_OPERATOR[op.strip()]
        result = []
        position = offset + len(op) + 1
        for item in names.split(","):
            name = item.strip()
            column = pragma.column_of(position + item.find(name) if name else position)
            where = (pragma.line, column)
            position += len(item) + 1
            if not re.fullmatch(r"[A-Za-z_]\w*", name):
                raise self.sema.error(
                    f"reduction variable must be a scalar variable name, got '{name}' (array "
                    "sections are not supported)",
                    where,
                )
            var = self.sema.lookup(name)
            if var is None:
                raise self.sema.error(f"reduction variable '{name}' is not declared", where)
            if var.is_array:
                raise self.sema.error(
                    f"reduction variable '{name}' is an array: only scalar variables can be "
                    "reduced (accumulate into a scalar and store it after the loop)",
                    where,
                )
            if var.const:
                raise self.sema.error(f"reduction variable '{name}' is const", where)
            if kind.is_bitwise and var.type.is_float:
                raise self.sema.error(
                    f"reduction '{op.strip()}' needs an integer variable, '{name}' is "
                    f"{var.type}",
                    where,
                )
            var.needs_slot = True
            result.append((kind, var))
        return result
