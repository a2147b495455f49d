"""`#pragma omp parallel for [simd] clauses...`: its clauses, checked (OpenMP 5.x meaning).

Clauses that change what the loop computes: `collapse(n)`, `reduction(op: vars)` and the
data-sharing clauses `private`, `firstprivate`, `lastprivate`, `shared` and `default(shared|none)`
(their copies are made by `data_sharing.py`). Clauses that only say how to run the loop
(`schedule`, `num_threads`, `proc_bind`, `if`, `simd`, `nowait`) are checked and accepted; what
each means on a GPU is in docs/ir.md, "OpenMP on a GPU". `ordered` and anything else is a
located error.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from autogpu.dialects.agpu import REDUCTION_OF_C_OPERATOR, ReductionKind
from autogpu.frontend import ast
from autogpu.frontend.preprocess import Pragma
from autogpu.frontend.sections import Section, reduction_item, section_of, split_items
from autogpu.frontend.symbols import Var

if TYPE_CHECKING:
    from autogpu.frontend.sema import Sema

DATA_SHARING = ("private", "firstprivate", "lastprivate", "shared")
PRIVATE_CLAUSES = ("private", "firstprivate", "lastprivate")  # the clauses that make copies
SCHEDULE_KINDS = ("static", "dynamic", "guided", "auto", "runtime")
SCHEDULE_MODIFIERS = ("monotonic", "nonmonotonic", "simd")
PROC_BIND_KINDS = ("primary", "master", "close", "spread")
_BARE = ("simd", "nowait")  # clauses without arguments
_SUPPORTED = (
    "collapse(n), reduction(op: vars), private, firstprivate, lastprivate, shared, "
    "default(shared|none), schedule, num_threads, proc_bind, if, simd and nowait"
)


@dataclass(eq=False)
class Listed:
    """A variable named by a data-sharing clause, where it is named."""

    clause: str  # "private", "firstprivate", "lastprivate", "shared" or "reduction"
    var: Var
    pos: tuple[int, int]


@dataclass(eq=False)
class PrivateCopy:
    """The loop body's own copy of a variable listed private, firstprivate or lastprivate:
    every name in the body refers to `copy`; `first`: it starts with the original's value;
    `last`: the sequentially last iteration's value is copied back to `original`."""

    original: Var
    copy: Var
    first: bool = False
    last: bool = False


@dataclass(eq=False)
class ParallelInfo:
    """`#pragma omp parallel for` on a loop. With `collapse(n)`, each of the n loops gets one:
    `collapse` counts the loops from this one inward, `total` is n, `inner` marks all but the
    outermost; every level lists the same reductions and private copies. `serial`: an
    `if(0)` clause, the loop runs in order on one thread. `sections`: the elements each
    reduced array reduces (sections.py)."""

    pragma: Pragma
    reductions: list[tuple[ReductionKind, Var]] = field(
        default_factory=list[tuple[ReductionKind, Var]])
    collapse: int = 1
    total: int = 1
    inner: bool = False
    listed: list[Listed] = field(default_factory=list[Listed])
    default_none: tuple[int, int] | None = None  # where `default(none)` is written
    serial: bool = False
    copies: list[PrivateCopy] = field(default_factory=list[PrivateCopy])  # made by data_sharing.py
    visible: set[Var] = field(default_factory=set[Var])  # the variables in scope at the pragma
    sections: dict[Var, Section] = field(default_factory=dict[Var, Section])

    def nested(self) -> ParallelInfo:
        inner = ParallelInfo(self.pragma, self.reductions, self.collapse - 1, self.total, True)
        inner.listed, inner.serial, inner.copies = self.listed, self.serial, self.copies
        inner.sections = self.sections
        return inner

    @property
    def pragma_position(self) -> tuple[int, int]:
        return (self.pragma.line, self.pragma.column)


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
        if start is None:
            found = re.match(r"omp\s+parallel\s+for", text)
            assert found is not None, "without `start`, the pragma is `omp parallel for`"
            start = found.end()
        position = start
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
            args, args_start = None, position
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
            if clause in _BARE and args is not None:
                raise self.sema.error(f"clause '{clause}' takes no arguments", where)
            if extra is not None and extra(clause, "" if args is None else args, args_start):
                continue
            self.clause(info, clause, args, args_start, where)

    def clause(
        self, info: ParallelInfo, clause: str, args: str | None, offset: int, where: ast.Pos
    ) -> None:
        pragma = info.pragma
        if clause in _BARE:
            if args is not None:
                raise self.sema.error(f"clause '{clause}' takes no arguments", where)
            return
        if clause == "ordered":
            raise self.sema.error(
                "clause 'ordered' is not supported: GPU threads run the iterations at the same "
                "time with no order among them, and forcing one would serialize the loop; "
                "compute the ordered part in a serial loop after this one",
                where,
            )
        if clause not in ("collapse", "reduction", "default", "schedule", "num_threads",
                          "proc_bind", "if", *DATA_SHARING):  # fmt: skip
            raise self.sema.error(
                f"clause '{clause}' is not supported on '#pragma omp parallel for': only "
                f"{_SUPPORTED} are",
                where,
            )
        if args is None or not args.strip():
            raise self.sema.error(f"clause '{clause}' needs arguments in parentheses", where)
        if clause == "collapse":
            info.collapse = info.total = self.collapse_depth(args, pragma, offset)
        elif clause == "reduction":
            for kind, var, pos, section in self.reduction(args, pragma, offset):
                self.list_var(info, Listed("reduction", var, pos))
                info.reductions.append((kind, var))
                if section is not None:
                    info.sections[var] = section
        elif clause in DATA_SHARING:
            for name, pos in self.names(clause, args, pragma, offset):
                self.list_var(info, Listed(clause, self.variable(clause, name, pos), pos))
        elif clause == "default":
            kind = args.strip()
            if kind not in ("shared", "none"):
                raise self.sema.error(
                    f"default needs 'shared' or 'none', got '{kind}' (default(private) and "
                    "default(firstprivate) are Fortran's)",
                    (pragma.line, pragma.column_of(offset + args.find(kind))),
                )
            if kind == "none":
                info.default_none = where
        elif clause == "schedule":
            self.schedule(args, pragma, offset)
        elif clause == "proc_bind":
            if args.strip() not in PROC_BIND_KINDS:
                raise self.sema.error(
                    f"proc_bind needs one of {', '.join(PROC_BIND_KINDS)}, got '{args.strip()}'",
                    (pragma.line, pragma.column_of(offset)),
                )
        elif clause == "if":
            condition = re.sub(r"^\s*parallel\s*:", "", args).strip()
            info.serial = _constant(condition) == 0
        # num_threads(n): any expression; it does not bound the grid (docs/ir.md).

    def names(self, clause: str, text: str, pragma: Pragma, offset: int):
        """The names of a variable list, each with its position."""
        position = offset
        for item in text.split(","):
            name = item.strip()
            column = pragma.column_of(position + item.find(name) if name else position)
            where = (pragma.line, column)
            position += len(item) + 1
            if not re.fullmatch(r"[A-Za-z_]\w*", name):
                raise self.sema.error(
                    f"{clause} needs a list of variable names, got '{name}'", where
                )
            yield name, where

    def variable(self, clause: str, name: str, where: ast.Pos) -> Var:
        var = self.sema.lookup(name)
        if var is None:
            raise self.sema.error(f"{clause} variable '{name}' is not declared", where)
        if var.is_array and clause != "shared":
            self.array_copy(clause, var, where)
        if var.const and clause in ("private", "lastprivate"):
            raise self.sema.error(f"{clause} variable '{name}' is const", where)
        return var

    def array_copy(self, clause: str, var: Var, where: ast.Pos) -> None:
        """`private(w)` and `firstprivate(w)` copy a local array of constant extents (a
        per-thread array); the arrays a parameter or a local pointer names have no extents to
        copy, and lastprivate's copy-out of a whole array is not supported."""
        name = var.name
        if not var.array.local or var.aliases is not None:
            raise self.sema.error(
                f"{clause} variable '{name}' is an array parameter or pointer: its copy would "
                "have no known size; list it shared (arrays are shared anyway) and give each "
                "iteration its own elements, or copy the elements into a local array declared "
                "inside the loop",
                where,
            )
        if clause == "lastprivate":
            raise self.sema.error(
                f"lastprivate array '{name}' is not supported: declare the array inside the "
                "loop and, in the last iteration (an if on the loop variable), copy its "
                "elements to the shared array",
                where,
            )

    def list_var(self, info: ParallelInfo, item: Listed) -> None:
        """OpenMP: a variable is named in one data-sharing clause, except that firstprivate
        and lastprivate may name the same one."""
        for other in info.listed:
            if other.var is not item.var:
                continue
            if {other.clause, item.clause} == {"firstprivate", "lastprivate"}:
                continue
            if other.clause == item.clause == "reduction":
                raise self.sema.error(
                    f"reduction variable '{item.var.name}' appears twice in the reduction "
                    "clauses of this loop: OpenMP reduces a variable by one clause, once",
                    item.pos,
                )
            if other.clause == item.clause:
                raise self.sema.error(
                    f"'{item.var.name}' is listed twice in {item.clause} clauses", item.pos
                )
            raise self.sema.error(
                f"'{item.var.name}' cannot be both {other.clause} and {item.clause}", item.pos
            )
        info.listed.append(item)

    def schedule(self, text: str, pragma: Pragma, offset: int) -> None:
        kind, comma, chunk = text.partition(",")
        modifier, colon, name = kind.rpartition(":")
        name = name.strip()
        where = (pragma.line, pragma.column_of(offset + text.find(name) if name else offset))
        modifiers = [m.strip() for m in modifier.split(",")] if colon else []
        if name not in SCHEDULE_KINDS or any(m not in SCHEDULE_MODIFIERS for m in modifiers):
            raise self.sema.error(
                f"schedule needs one of {', '.join(SCHEDULE_KINDS)} (optionally with a "
                f"chunk size: schedule(dynamic, 4)), got '{text.strip()}'",
                where,
            )
        if comma:
            chunk_at = offset + len(kind) + 1 + len(chunk) - len(chunk.lstrip())
            chunk_where = (pragma.line, pragma.column_of(chunk_at))
            if name in ("auto", "runtime"):
                raise self.sema.error(f"schedule({name}) takes no chunk size", chunk_where)
            value = _constant(chunk.strip())
            if not chunk.strip() or (value is not None and value < 1):
                raise self.sema.error(
                    f"the chunk size of schedule must be a positive integer, got "
                    f"'{chunk.strip()}'",
                    chunk_where,
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

    def reduction(self, text: str, pragma: Pragma, offset: int
                  ) -> list[tuple[ReductionKind, Var, ast.Pos, Section | None]]:
        """The items of `reduction(op: list)`: (kind, variable, position, section), the
        section for an array (sections.py), None for a scalar."""
        op, colon, names = text.partition(":")
        if not colon or op.strip() not in REDUCTION_OF_C_OPERATOR:
            raise self.sema.error(
                "reduction needs 'op: variables' with op one of + - * min max & | ^ && ||, "
                f"got '{text.strip()}'",
                (pragma.line, pragma.column_of(offset)),
            )
        kind = REDUCTION_OF_C_OPERATOR[op.strip()]
        result: list[tuple[ReductionKind, Var, ast.Pos, Section | None]] = []
        for item, start in split_items(names):
            base = offset + len(op) + 1 + start

            def column(k: int, base: int = base) -> tuple[int, int]:
                return (pragma.line, pragma.column_of(base + k))

            name, brackets, where = reduction_item(self.sema, item, column)
            var = self.sema.lookup(name)
            if var is None:
                raise self.sema.error(f"reduction variable '{name}' is not declared", where)
            section = None
            if var.is_array or brackets:
                section = section_of(self.sema, var, brackets, column, where)
            if var.const or (var.is_array and var.array.const):
                raise self.sema.error(f"reduction variable '{name}' is const", where)
            element = var.array.element if var.is_array else var.scalar
            if kind.is_bitwise and element.is_float:
                raise self.sema.error(
                    f"reduction '{op.strip()}' needs an integer variable, '{name}' is "
                    f"{element}{' (its elements)' if var.is_array else ''}",
                    where,
                )
            if not var.is_array:
                var.needs_slot = True
            result.append((kind, var, where, section))
        return result


def _constant(text: str) -> int | None:
    """The value of an integer literal (macros are expanded in pragmas), `true` or `false`
    (stdbool.h's), or None for anything else."""
    words = {"true": 1, "false": 0}
    if text in words:
        return words[text]
    try:
        return int(text.rstrip("uUlL"), 0)
    except ValueError:
        return None
