"""The OpenMP directives autogpu reads, what each becomes, and where each pragma points
(docs/openmp_directives.md).

Every kernel is the serial C program's meaning: a directive only says which loops may run their
iterations at once. So each directive becomes one of a few things (`Kind`): a parallel loop
(`parallel for`, `target teams distribute parallel for`, the `for` of a region, ...), a region
whose work-sharing loops are the parallel ones and whose other statements run once (`parallel`,
`target`, `teams`, `target data`), a block run by one thread (`single`, `master`), nothing at
all (`barrier`: kernel boundaries are barriers), or a located error saying why not (`sections`,
`task`, `ordered`, ...). Pragmas this table does not name are ignored with a warning.

`DIRECTIVES` is the one table of spellings. To add a directive (e.g. `atomic`, `critical`):
add a `Construct` row with its spelling, the `Kind` of statement it applies to, the context it
`needs` (the innermost enclosing construct, e.g. `PARALLEL` for `for`) and the clauses it owns
(`_clauses`); if it needs handling of its own, give it a new `Kind` and a branch in
`OpenMP.construct`, which sema calls for every statement a directive precedes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

from autogpu.diagnostics import located
from autogpu.dialects.agpu import REDUCTION_OF_C_OPERATOR, ReductionKind
from autogpu.frontend import ast
from autogpu.frontend.launch_bounds import bound_expression, check_invariant
from autogpu.frontend.openmp import PRIVATE_CLAUSES, ClauseParser, ParallelInfo
from autogpu.frontend.preprocess import Pragma, Preprocessed
from autogpu.frontend.symbols import Var, children

if TYPE_CHECKING:
    from autogpu.frontend.sema import Sema


class Kind(Enum):
    LOOP = "loop"  # the loop becomes parallel
    REGION = "region"  # its work-sharing loops are parallel, the rest runs once
    ONCE = "once"  # single, master: the statement runs on one thread
    STANDALONE = "standalone"  # barrier: no statement of its own
    REFUSED = "refused"  # a located error, saying why


_FOLLOWED_BY = {Kind.LOOP: "a for loop", Kind.REGION: "a statement", Kind.ONCE: "a statement",
                Kind.STANDALONE: "a statement or the end of a block"}  # fmt: skip


# The contexts a construct opens (and a directive may need as its innermost one).
PARALLEL = "parallel"  # a team of threads: each runs the region's statements
TEAMS = "teams"  # a league of teams: each runs the region's statements
TARGET = "target"  # the device's initial thread: statements run once
DATA = "target data"  # host code with data mapped: statements run once
LOOP = "loop"  # the body of a parallel or work-sharing loop
ONCE = "once"  # the body of single / master

_TARGET_CLAUSES = frozenset({"map", "device", "defaultmap", "depend", "nowait", "is_device_ptr",
                             "has_device_addr"})  # fmt: skip
_TEAMS_CLAUSES = frozenset({"num_teams", "thread_limit"})
_SIMD_CLAUSES = frozenset({"simdlen", "safelen", "aligned", "nontemporal"})
_WORD_CLAUSES = {
    "target": _TARGET_CLAUSES,
    "data": frozenset({"map", "device"}),
    "teams": _TEAMS_CLAUSES,
    "distribute": frozenset({"dist_schedule"}),
    "simd": _SIMD_CLAUSES,
    "for": frozenset({"nowait"}),
    "single": frozenset({"nowait", "copyprivate"}),
    "masked": frozenset({"filter"}),
}
# Clauses accepted and without effect on a GPU: all iterations run at once, in one process.
_HINTS = frozenset({"device", "defaultmap", "depend", "nowait", "is_device_ptr",
                    "has_device_addr", "dist_schedule", "simdlen", "safelen", "aligned",
                    "nontemporal", "filter"})  # fmt: skip
# Clauses that belong to some leaf constructs only (OpenMP 5.2): gcc refuses them elsewhere,
# e.g. `shared` on `#pragma omp for`.
_CLAUSE_LEAVES = {
    "shared": frozenset({"parallel", "teams"}),
    "default": frozenset({"parallel", "teams"}),
    "num_threads": frozenset({"parallel"}),
    "proc_bind": frozenset({"parallel"}),
}
_MAP_TYPES = ("to", "from", "tofrom", "alloc")
_MAP_MODIFIERS = {"always", "close", "present"}


@dataclass(frozen=True)
class Construct:
    spelling: str
    kind: Kind
    opens: tuple[str, ...] = ()  # contexts it opens, outermost first
    needs: str | None = None  # the innermost enclosing context it must be in
    why: str = ""  # REFUSED: the reason

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(self.spelling.split())

    @property
    def clauses(self) -> frozenset[str]:
        """The clauses this module handles; the others go to `ClauseParser`."""
        return frozenset[str]().union(*(_WORD_CLAUSES.get(w, ()) for w in self.words))


def _loops(prefix: str, opens: tuple[str, ...], tails: tuple[str, ...],
           needs: str | None = None) -> list[Construct]:
    return [Construct(f"{prefix} {tail}".strip(), Kind.LOOP, opens, needs) for tail in tails]


_TASKS = "tasks are not supported: a GPU kernel cannot spawn work; write it as a parallel loop"
_SECTIONS = ("'sections' is not supported: a GPU kernel runs one code path per loop; write the "
             "sections one after another in a 'single' block, or as separate parallel loops")
DIRECTIVES: tuple[Construct, ...] = (
    *_loops("parallel", (PARALLEL,), ("for", "for simd", "loop")),
    *_loops("target parallel", (TARGET, PARALLEL), ("for", "for simd", "loop")),
    *_loops("target teams", (TARGET, TEAMS), ("distribute parallel for",
            "distribute parallel for simd", "distribute", "distribute simd", "loop")),
    *_loops("teams", (TEAMS,), ("distribute parallel for", "distribute parallel for simd",
            "distribute", "distribute simd", "loop")),
    *_loops("", (), ("distribute parallel for", "distribute parallel for simd", "distribute",
                     "distribute simd"), needs=TEAMS),
    *_loops("", (), ("for", "for simd"), needs=PARALLEL),
    Construct("parallel", Kind.REGION, (PARALLEL,)),
    Construct("target parallel", Kind.REGION, (TARGET, PARALLEL)),
    Construct("target teams", Kind.REGION, (TARGET, TEAMS)),
    Construct("teams", Kind.REGION, (TEAMS,)),
    Construct("target", Kind.REGION, (TARGET,)),
    Construct("target data", Kind.REGION, (DATA,)),
    Construct("single", Kind.ONCE, (ONCE,), needs=PARALLEL),
    Construct("master", Kind.ONCE, (ONCE,), needs=PARALLEL),
    Construct("masked", Kind.ONCE, (ONCE,), needs=PARALLEL),
    Construct("barrier", Kind.STANDALONE, needs=PARALLEL),
    *(Construct(s, Kind.REFUSED, why=_SECTIONS)
      for s in ("sections", "section", "parallel sections")),
    *(Construct(s, Kind.REFUSED, why=_TASKS)
      for s in ("task", "taskloop", "taskwait", "taskgroup", "taskyield")),
    Construct("ordered", Kind.REFUSED, why="'ordered' is not supported: it runs part of each "
              "iteration in the serial order, which threads of a GPU kernel cannot; make the "
              "loop serial"),
    *(Construct(s, Kind.REFUSED, why="cancellation is not supported: a GPU kernel cannot stop "
                "its other threads") for s in ("cancel", "cancellation point")),
    Construct("threadprivate", Kind.REFUSED, why="'threadprivate' is not supported: kernels "
              "have no global variables; pass the variable as a parameter"),
)  # fmt: skip
_BY_WORDS = {c.words: c for c in DIRECTIVES}
_LONGEST = max(len(words) for words in _BY_WORDS)


@dataclass(eq=False)
class Directive:
    """One OpenMP pragma: its construct and where its clauses start in `pragma.text`."""

    pragma: Pragma
    construct: Construct
    clauses_start: int

    @property
    def pos(self) -> ast.Pos:
        return (self.pragma.line, self.pragma.column)

    @property
    def name(self) -> str:
        return f"'#pragma omp {self.construct.spelling}'"


def classify(pragma: Pragma, filename: str, source: str) -> Directive | None:
    """The directive a pragma spells (the longest spelling of the table it starts with), None
    for a pragma autogpu ignores; a located error for a refused one."""
    words = list(re.finditer(r"[A-Za-z_]\w*", pragma.text))
    if not words or words[0].group() != "omp":
        return None
    for count in range(min(_LONGEST, len(words) - 1), 0, -1):
        run = words[1 : count + 1]
        gaps = [pragma.text[a.end() : b.start()] for a, b in zip(words[:count], run)]
        if any(gap.strip() for gap in gaps):
            continue
        construct = _BY_WORDS.get(tuple(w.group() for w in run))
        if construct is None:
            continue
        if construct.kind is Kind.REFUSED:
            raise located(construct.why, filename, source, pragma.line, pragma.column)
        return Directive(pragma, construct, run[-1].end())
    return None


def pragma_targets(
    directives: list[Directive], pre: Preprocessed, source: str, filename: str
) -> dict[ast.Pos, list[Directive]]:
    """Where each directive points: the user's position of the next token (a statement, or
    the `}` of a block for a barrier at its end), directives in source order."""
    lines = pre.text.split("\n")
    targets: dict[ast.Pos, list[Directive]] = {}
    for directive in directives:
        pragma = directive.pragma
        for index in range(pragma.line, len(lines)):
            stripped = lines[index].lstrip()
            if stripped:
                column = len(lines[index]) - len(stripped) + 1
                targets.setdefault(pre.original(index + 1, column), []).append(directive)
                break
        else:
            raise located(
                unplaced(directive), filename, source, pragma.line, pragma.column,
            )  # fmt: skip
    return targets


def unplaced(directive: Directive) -> str:
    """The error for a directive not followed by what it applies to."""
    return f"{directive.name} must be followed by {_FOLLOWED_BY[directive.construct.kind]}"


@dataclass
class TargetInfo:
    """What the clauses this module reads say: the `map` of each variable, the launch bounds
    (`num_teams`, `thread_limit`: a constant or an expression of the integer parameters,
    launch_bounds.py), the variables a `single` broadcasts."""

    maps: dict[Var, str] = field(default_factory=dict[Var, str])
    launch_bounds: dict[str, int | str] = field(
        default_factory=dict[str, int | str])  # num_teams, ...
    copyprivate: set[Var] = field(default_factory=set[Var])  # of a single


@dataclass(eq=False)
class Frame:
    """An open construct: the statements sema analyses now are inside it."""

    context: str
    directive: Directive
    scope_depth: int  # names found in sema's scopes from this depth on are declared inside
    region: ParallelInfo | None = None  # a region's clauses (its reductions) for its loops
    copyprivate: set[Var] = field(default_factory=set[Var])  # single: what it broadcasts
    launch_bounds: dict[str, int | str] = field(
        default_factory=dict[str, int | str])  # teams: for its loops


class OpenMP:
    """Sema's view of the OpenMP constructs around the statement it analyses."""

    def __init__(self, sema: Sema):
        self.sema = sema
        self.frames: list[Frame] = []
        self.mapped: list[tuple[ast.Stmt, dict[Var, str]]] = []  # the function's map clauses
        self.bound_parameters: list[tuple[Var, tuple[int, int]]] = []  # read by launch bounds

    # ---- called by sema ------------------------------------------------------------------------

    def statement(self, stmt: ast.Stmt, directives: list[Directive]) -> None:
        """`stmt` preceded by `directives` (source order): barriers first, then the
        constructs, each around the next."""
        constructs: list[Directive] = []
        for directive in directives:
            if directive.construct.kind is Kind.STANDALONE:
                self.standalone(directive)
            else:
                constructs.append(directive)
        self.construct(stmt, constructs)

    def function_end(self, assigned: set[Var]) -> None:
        """The function's end: a launch bound must read parameters it never assigns."""
        check_invariant(self.sema, self.bound_parameters, assigned)
        self.bound_parameters = []

    def block_end(self, end: ast.Pos) -> None:
        """The `}` of a block: only barriers may stand before it."""
        for directive in self.sema.pragma_targets.pop(end, []):
            if directive.construct.kind is not Kind.STANDALONE:
                raise self.sema.error(unplaced(directive), directive.pos)
            self.standalone(directive)

    def check_write(self, target: ast.Expr) -> None:
        """A write in a region's code outside its work-sharing constructs: every thread (team)
        runs it, so running it once is equivalent only for the region's own variables. In a
        `single`/`master` block it is the other way round: the region's own variables are each
        thread's private copies, of which the block sets one (unless `copyprivate` lists it)."""
        frame = self.frames[-1] if self.frames else None
        if frame is None or not self.sema.recording:
            return
        if frame.context == ONCE:
            self.check_once_write(target, frame, self.frames[-2])
            return
        if frame.context not in (PARALLEL, TEAMS):
            return
        if isinstance(target, ast.Name):
            depth = self.declared_at(target.name)
            if depth is None or depth >= frame.scope_depth:
                return
            self.check_region_private(target, frame.directive, frame.region)
            what = f"variable '{target.name}', declared outside the region"
        else:
            what = "an array element"
        every = "thread" if frame.context == PARALLEL else "team"
        raise self.sema.error(
            f"this writes {what}, and every {every} of the '{frame.directive.construct.spelling}' "
            f"region at line {frame.directive.pos[0]} runs this statement: put it in a "
            "'#pragma omp single' block (or a '#pragma omp for' loop), or declare the variable "
            "inside the region",
            target.pos,
        )

    def check_once_write(self, target: ast.Expr, once: Frame, region: Frame) -> None:
        if not isinstance(target, ast.Name):
            return
        depth = self.declared_at(target.name)
        if depth is None or not region.scope_depth <= depth < once.scope_depth:
            return
        if self.sema.lookup(target.name) in once.copyprivate:
            return
        c = once.directive.construct
        hint = f"list it in copyprivate({target.name}) or " if c.spelling == "single" else ""
        raise self.sema.error(
            f"'{target.name}' is declared in the '{region.directive.construct.spelling}' region "
            f"at line {region.directive.pos[0]}, so each thread has its own copy, and this "
            f"'{c.spelling}' block sets only its thread's: {hint}declare '{target.name}' before "
            "the region",
            target.pos,
        )

    def declared_at(self, name: str) -> int | None:
        """The depth of the scope that declares `name` (the innermost), None if none does."""
        for depth in range(len(self.sema.scopes) - 1, -1, -1):
            if name in self.sema.scopes[depth]:
                return depth
        return None

    # ---- constructs ----------------------------------------------------------------------------

    def construct(self, stmt: ast.Stmt, directives: list[Directive]) -> None:
        if not directives:
            self.sema._statement(stmt)  # pyright: ignore[reportPrivateUsage]  # Sema's walk, which called this
            return
        directive, inner = directives[0], directives[1:]
        c = directive.construct
        self.check_context(directive)
        if c.kind is Kind.LOOP:
            if inner:
                raise self.sema.error(
                    f"{inner[0].name} cannot apply to the loop of {directive.name}: a loop takes "
                    "one loop directive (use a combined one, e.g. 'parallel for')",
                    inner[0].pos,
                )
            if not isinstance(stmt, ast.For):
                raise self.sema.error(unplaced(directive), directive.pos)
            self.loop(stmt, directive)
            return
        info, target = self.clauses(directive)
        copied = [item for item in info.listed if item.clause in PRIVATE_CLAUSES]
        last = [item for item in copied if item.clause == "lastprivate"]
        if last:  # OpenMP 5.2 allows it on loops, sections and distribute only
            raise self.sema.error(f"'lastprivate' is not a clause of {directive.name}",
                                  last[0].pos)  # fmt: skip
        if copied and c.kind is Kind.ONCE:
            raise self.sema.error(
                f"'{copied[0].clause}' on {directive.name} is not supported: declare "
                f"'{copied[0].var.name}' inside the block instead",
                copied[0].pos,
            )
        if info.total != 1 or (c.kind is Kind.ONCE and info.reductions):
            clause = "collapse" if info.total != 1 else "reduction"
            raise self.sema.error(
                f"'{clause}' is not a clause of {directive.name}", directive.pos
            )
        for context in c.opens:
            self.frames.append(Frame(context, directive, len(self.sema.scopes), info,
                                     target.copyprivate, target.launch_bounds))  # fmt: skip
        try:
            self.construct(stmt, inner)
        finally:
            del self.frames[len(self.frames) - len(c.opens) :]
        self.check_region_reductions(stmt, directive, info)
        self.check_region_privates(stmt, directive, info)
        self.check_maps(stmt, target)

    def loop(self, loop: ast.For, directive: Directive) -> None:
        sema = self.sema
        info, target = self.clauses(directive)
        enclosing = self.frames[-1] if directive.construct.needs and self.frames else None
        if enclosing is not None and enclosing.region is not None:
            self.inherit(directive, info, enclosing, _names(loop))
        sema.all_assigned.update(var for _, var in info.reductions)  # they live in slots
        info.visible = {var for scope in sema.scopes for var in scope.values()}
        for frame in self.frames:  # a teams region's bounds hold for the loops in it
            loop.launch_bounds.update(frame.launch_bounds)
        loop.launch_bounds.update(target.launch_bounds)
        self.frames.append(Frame(LOOP, directive, len(sema.scopes)))
        try:
            sema.for_(loop, info)
        finally:
            self.frames.pop()
        self.check_maps(loop, target)

    def inherit(self, directive: Directive, info: ParallelInfo, region: Frame,
                used: set[str]) -> None:  # fmt: skip
        """The region's clauses that apply to a work-sharing loop of it: its reductions of the
        variables the loop mentions (each thread's private copy accumulates over the loops),
        and its private and firstprivate variables the loop mentions, which become the loop's
        own. A thread of an OpenMP team may run any set of iterations, one each if the team
        is large enough: a copy per iteration is one of the executions OpenMP allows, and the
        only one whose result does not depend on the schedule."""
        outer = region.region
        assert outer is not None, "loop() inherits from a region with clauses only"
        listed = {var: kind for kind, var in info.reductions}
        own = {item.var for item in info.listed}
        for item in outer.listed:
            if item.clause not in PRIVATE_CLAUSES or item.var.name not in used:
                continue
            if item.var in listed:
                raise self.sema.error(
                    f"'{item.var.name}' is {item.clause} in the {region.directive.name} region "
                    f"at line {region.directive.pos[0]}: a reduction of this loop would combine "
                    "into each thread's copy, which the region then discards; reduce it on the "
                    "region instead",
                    directive.pos,
                )
            if item.var not in own:
                info.listed.append(item)
        for kind, var in outer.reductions:
            if var.name not in used:
                continue
            if var not in listed:
                info.reductions.append((kind, var))
                if var in outer.sections:
                    info.sections[var] = outer.sections[var]
            elif listed[var] != kind:
                raise self.sema.error(
                    f"'{var.name}' is reduced with '{_c_operator(listed[var])}' here but with "
                    f"'{_c_operator(kind)}' by the {region.directive.name} region at line "
                    f"{region.directive.pos[0]} around this loop: use one operator",
                    directive.pos,
                )

    def standalone(self, directive: Directive) -> None:
        self.check_context(directive)
        rest = directive.pragma.text[directive.clauses_start :].strip()
        if rest:
            raise self.sema.error(
                f"{directive.name} takes no clauses",
                (directive.pragma.line, directive.pragma.column_of(
                    directive.pragma.text.index(rest, directive.clauses_start))),
            )  # fmt: skip

    def clauses(self, directive: Directive) -> tuple[ParallelInfo, TargetInfo]:
        target = TargetInfo()
        handled = directive.construct.clauses

        def extra(clause: str, args: str, offset: int) -> bool:
            leaves = _CLAUSE_LEAVES.get(clause)
            if leaves is not None and not leaves & set(directive.construct.words):
                raise self.sema.error(
                    f"'{clause}' is not a clause of {directive.name}: OpenMP allows it on "
                    f"{' and '.join(sorted(leaves))} constructs only",
                    (directive.pragma.line,
                     directive.pragma.column_of(directive.pragma.text.rfind(clause, 0, offset))),
                )
            if clause not in handled:
                return False
            self.clause(directive, clause, args, offset, target)
            return True

        info = ClauseParser(self.sema).parse(directive.pragma, directive.clauses_start, extra)
        return info, target

    def clause(self, directive: Directive, clause: str, args: str, offset: int,
               target: TargetInfo) -> None:  # fmt: skip
        pragma = directive.pragma
        where = (pragma.line, pragma.column_of(offset))
        if clause == "map":
            self.map(directive, args, offset, target)
        elif clause in ("num_teams", "thread_limit"):
            value = args.strip()
            if not value:
                raise self.sema.error(f"'{clause}' needs an expression", where)
            if re.fullmatch(r"\d+", value):
                if int(value) < 1:
                    raise self.sema.error(f"'{clause}' must be positive, got {value}", where)
                target.launch_bounds[clause] = int(value)
            else:  # evaluated by the host at launch
                start = offset + len(args) - len(args.lstrip())
                target.launch_bounds[clause] = bound_expression(
                    self.sema, clause, value, lambda k: (pragma.line, pragma.column_of(start + k)),
                    self.bound_parameters)
        elif clause == "copyprivate":
            target.copyprivate.update(self.names(args, offset, pragma, clause))
        else:
            assert clause in _HINTS, clause

    def map(self, directive: Directive, args: str, offset: int, target: TargetInfo) -> None:
        pragma = directive.pragma
        prefix = re.match(r"[\w\s,]*:", args)  # `[modifiers,] type:` before the list
        kind, colon, names = (args[: prefix.end() - 1], ":", args[prefix.end() :]) if prefix \
            else ("", "", args)  # fmt: skip
        words = [w.strip() for w in re.split(r"[,\s]+", kind.strip()) if w.strip()]
        map_type = "tofrom"
        if words:
            map_type = words[-1]
            bad = [w for w in words[:-1] if w not in _MAP_MODIFIERS]
            if map_type not in _MAP_TYPES or bad:
                raise self.sema.error(
                    f"map type must be one of {', '.join(_MAP_TYPES)} (with modifiers "
                    f"{', '.join(sorted(_MAP_MODIFIERS))}), got '{kind.strip()}'",
                    (pragma.line, pragma.column_of(offset + len(kind) - len(kind.lstrip()))),
                )
        start = offset + len(kind) + len(colon)
        for var in self.names(names, start, pragma, "map"):
            target.maps[var] = map_type

    def names(self, text: str, offset: int, pragma: Pragma, clause: str) -> list[Var]:
        """The variables of a clause's list (array sections `a[0:n]` name their array)."""
        result: list[Var] = []
        for match in re.finditer(r"[^,\[]+(?:\[[^\]]*\])*", text):
            item = match.group().strip()
            where = (pragma.line, pragma.column_of(offset + match.start() + len(match.group())
                                                   - len(match.group().lstrip())))  # fmt: skip
            name = re.match(r"[A-Za-z_]\w*", item)
            if name is None:
                raise self.sema.error(f"'{clause}' needs variable names, got '{item}'", where)
            var = self.sema.lookup(name.group())
            if var is None:
                raise self.sema.error(
                    f"'{name.group()}' in clause '{clause}' is not declared", where
                )
            result.append(var)
        return result

    # ---- checks --------------------------------------------------------------------------------

    def check_context(self, directive: Directive) -> None:
        c = directive.construct
        contexts = [f.context for f in self.frames]
        innermost = self.frames[-1] if self.frames else None
        where = "" if innermost is None else (
            f" (it is inside the '{innermost.directive.construct.spelling}' at line "
            f"{innermost.directive.pos[0]})"
        )  # fmt: skip
        if c.needs is not None and (innermost is None or innermost.context != c.needs):
            region = "a 'parallel'" if c.needs == PARALLEL else "a 'teams'"
            combined = "parallel for" if c.needs == PARALLEL else "teams distribute"
            hint = ""
            if c.kind is Kind.LOOP:
                spelling = combined + c.spelling[len(c.words[0]) :]
                hint = f": write '#pragma omp {spelling}' for a loop of its own"
                if innermost is not None and innermost.context == ONCE:
                    hint = (": OpenMP does not allow a work-sharing loop there (one thread "
                            f"reaches it, and would run only its share of the iterations); "
                            f"write '#pragma omp {spelling}' for a loop of its own, outside the "
                            "region")  # fmt: skip
            raise self.sema.error(
                f"{directive.name} must be directly inside {region} region{where}{hint}",
                directive.pos,
            )
        opens = set(c.opens) - {ONCE}
        if not opens:
            return
        if opens & {TARGET, DATA}:
            refused = {TARGET, PARALLEL, TEAMS, LOOP} & set(contexts)
        elif TEAMS in c.opens:
            refused = {PARALLEL, TEAMS, LOOP, ONCE} & set(contexts)
        elif c.kind is Kind.LOOP:  # `parallel for` nests in a loop body, as a 2D nest
            refused = {PARALLEL, TEAMS} & {innermost.context} if innermost else set[str]()
        else:
            refused = {PARALLEL, TEAMS, LOOP, ONCE} & set(contexts)
        if refused:
            why = "nested regions are not supported"
            if innermost is not None and innermost.context == PARALLEL and c.kind is Kind.LOOP:
                why = ("every thread of the region would run the whole loop; write "
                       "'#pragma omp for' to share its iterations")  # fmt: skip
            elif innermost is not None and innermost.context == TEAMS:
                why = ("every team would run it; in a 'teams' region, write "
                       "'#pragma omp distribute parallel for'")  # fmt: skip
            raise self.sema.error(f"{directive.name} cannot be used here{where}: {why}",
                                  directive.pos)  # fmt: skip

    def check_region_reductions(self, stmt: ast.Stmt, directive: Directive,
                                info: ParallelInfo) -> None:  # fmt: skip
        """A region's reduction variable is partial until the region ends: inside it, only
        its parallel loops may use it (each combines into it)."""
        kinds = {var for _, var in info.reductions}
        for name in _uses_outside_parallel_loops(stmt):
            if name.var in kinds:
                raise self.sema.error(
                    f"'{name.name}' is a reduction variable of {directive.name} at line "
                    f"{directive.pos[0]}: inside the region only its work-sharing loops may "
                    "update it (its value is partial until the region ends); use it after the "
                    "region",
                    name.pos,
                )

    def check_region_privates(self, stmt: ast.Stmt, directive: Directive,
                              info: ParallelInfo) -> None:  # fmt: skip
        """A region's private variable is each thread's own; autogpu makes it each
        iteration's own in the work-sharing loops (`inherit`). Outside them, every thread of
        the region would run the statement on its copy: refused, located."""
        for name in _uses_outside_parallel_loops(stmt):
            self.check_region_private(name, directive, info)

    def check_region_private(self, name: ast.Name, directive: Directive,
                             info: ParallelInfo | None) -> None:  # fmt: skip
        var = name.var or self.sema.lookup(name.name)
        clause = next((item.clause for item in info.listed if item.var == var and
                       item.clause in PRIVATE_CLAUSES), None) if info else None  # fmt: skip
        if clause is not None:
            raise self.sema.error(
                f"'{name.name}' is {clause} in {directive.name} at line {directive.pos[0]}: "
                "autogpu supports such a variable only inside the region's work-sharing "
                "loops; declare it inside the region instead",
                name.pos,
            )

    def check_maps(self, stmt: ast.Stmt, target: TargetInfo) -> None:
        """Records the construct's maps (`frontend/maps.py` makes the function's of them). An
        array mapped `to` the device is not copied back: a write to it is lost, as on any
        OpenMP implementation; it warns."""
        if target.maps:
            self.mapped.append((stmt, dict(target.maps)))
        to_only = {var for var, kind in target.maps.items() if kind == "to"}
        if not to_only:
            return
        for expr in _expressions_in(stmt):
            if isinstance(expr, ast.Assign | ast.IncDec) and isinstance(expr.target, ast.Index):
                base = expr.target
                while isinstance(base, ast.Index):
                    base = base.base
                if isinstance(base, ast.Name) and base.var in to_only:
                    self.sema.warning(
                        f"'{base.name}' is mapped 'to' (copied to the device only) but is "
                        "written here: the write stays on the device (it is not copied "
                        "back); map it 'tofrom' to get it back",
                        expr.target.pos,
                    )
                    return


def _c_operator(kind: ReductionKind) -> str:
    return next(op for op, k in REDUCTION_OF_C_OPERATOR.items() if k == kind)


# ---- walking the syntax tree ------------------------------------------------------------------


def _statements(stmt: ast.Stmt, into_parallel_loops: bool = True) -> Iterator[ast.Stmt]:
    stack = [stmt]
    while stack:
        s = stack.pop()
        if isinstance(s, ast.For) and s.parallel is not None and not into_parallel_loops:
            continue
        yield s
        if isinstance(s, ast.Block):
            stack += s.items[::-1]
        elif isinstance(s, ast.If):
            stack += [x for x in (s.otherwise, s.then) if x is not None]
        elif isinstance(s, ast.While | ast.DoWhile):
            stack.append(s.body)
        elif isinstance(s, ast.For):
            stack += [s.body, s.init]
        elif isinstance(s, ast.Labeled):
            stack.append(s.stmt)


def _own_expressions(s: ast.Stmt) -> list[ast.Expr]:
    if isinstance(s, ast.ExprStmt):
        return [s.expr] if s.expr is not None else []
    if isinstance(s, ast.Decl):
        return [d.init for d in s.declarators if isinstance(d.init, ast.Expr)]
    if isinstance(s, ast.If | ast.While | ast.DoWhile):
        return [s.cond]
    if isinstance(s, ast.For):
        return [e for e in (s.cond, s.step) if e is not None]
    if isinstance(s, ast.Return) and s.value is not None:
        return [s.value]
    return []


def _expressions_in(stmt: ast.Stmt, into_parallel_loops: bool = True) -> Iterator[ast.Expr]:
    for s in _statements(stmt, into_parallel_loops):
        stack = _own_expressions(s)
        while stack:
            e = stack.pop()
            yield e
            stack += children(e)


def name_uses(stmt: ast.Stmt) -> Iterator[ast.Name]:
    """Every identifier expression in `stmt` (after sema: each knows its variable)."""
    return (e for e in _expressions_in(stmt) if isinstance(e, ast.Name))


def _names(stmt: ast.Stmt) -> set[str]:
    """The identifiers `stmt` mentions (before sema resolves them)."""
    return {e.name for e in _expressions_in(stmt) if isinstance(e, ast.Name)}


def _uses_outside_parallel_loops(stmt: ast.Stmt) -> Iterator[ast.Name]:
    for e in _expressions_in(stmt, into_parallel_loops=False):
        if isinstance(e, ast.Name):
            yield e

