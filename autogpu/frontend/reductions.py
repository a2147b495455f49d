"""The uses a `reduction(op: s)` variable may have in its loop, checked before IR exists.

Each thread accumulates into a private copy of `s` that starts at the operator's identity and is
combined with the operator after the loop (OpenMP;
autogpu/passes/convert_agpu_to_gpu/reductions.py).
That computes the serial loop's result only if every update of `s` in the loop applies the
clause's operator to `s` and a value that does not depend on `s`, and nothing else reads the
partial value. Anything else (`reduction(*: s)` with `s += x`, `reduction(+: s)` with `s = x`, a
read of `s`) would compile to a wrong kernel, so it is refused here, at the offending construct.

The updates (OpenMP's, `e` not reading `s`): `s op= e` and `s = s op e` (`s = e op s` for a
commutative op); `s++`, `s--`, `s -= e`, `s = s - e` for `+` and `-` (which combines like `+`);
`s = min(s, e)` (also `fmin`, `fminf`, either order), `s = e < s ? e : s` and
`if (e < s) s = e;` (any comparison, either order) for min, and the same for max;
`s op= e`, `s = s op e`, `s = e op s` for `* & | ^`; `s = s && e`, `s = e && s` (`||` alike).

IR integers are signless, so the signedness of an integer min/max is read here, from what the
updates compute: the type in which they compare (`min`/`max` calls and comparisons apply C's
usual arithmetic conversions). An update comparing unsigned makes the reduction `umin`/`umax`
(also for an `int s` compared with an `unsigned` value, as C compares it); a loop without an
update takes the variable's own signedness. An integer comparison in a type wider than the
variable is refused: the value it keeps is converted back to the narrower type, which is no
minimum or maximum of the variable's values. A floating-point comparison of an integer variable
follows the variable's signedness (the conversions are monotone).

Arrays (`reduction(op: h[lo:len])`, sections.py): each update of an element `h[k]` in one of
the forms above (with `h[k]` for `s`, `k` and `e` not reading `h`) is a statement of its own,
marked with an `ArrayUpdate` that irgen lowers as one atomic update of the element
(`irgen_atomics.py`): correct as it stands (the iterations' atomics combine into `h`), and the
op that `convert-agpu-to-gpu` redirects to the private copy its strategy chooses. Any other
access to `h` in the loop is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from autogpu.diagnostics import CompileError
from autogpu.dialects.agpu import ReductionKind
from autogpu.frontend import ast
from autogpu.frontend.atomics import same_lvalue
from autogpu.frontend.symbols import Var, children, walk_expr
from autogpu.frontend.types import INT, ArrayType, Scalar, promote

Error = Callable[[str, ast.Pos], CompileError]


@dataclass(eq=False)
class ArrayUpdate:
    """An update of an element of a reduced array: `x = x op value` (`value op x` when
    `reversed`) computed in `operand_type`; `op` is a C operator (`+ - * & | ^ && ||`) or
    `min`/`max` (comparing in `operand_type`)."""

    x: ast.Index
    op: str
    value: ast.Expr
    operand_type: Scalar
    reversed: bool = False

_OPERATOR = {ReductionKind.ADD: "+", ReductionKind.SUB: "-", ReductionKind.MUL: "*",
             ReductionKind.AND: "&", ReductionKind.OR: "|", ReductionKind.XOR: "^",
             ReductionKind.LAND: "&&", ReductionKind.LOR: "||"}  # fmt: skip
_COMMUTATIVE = {"+", "*", "&", "|", "^", "&&", "||"}
_MIN_MAX_CALLS = {"min": ReductionKind.MIN, "fmin": ReductionKind.MIN,
                  "fminf": ReductionKind.MIN, "max": ReductionKind.MAX,
                  "fmax": ReductionKind.MAX, "fmaxf": ReductionKind.MAX}  # fmt: skip
_FORMS = {
    ReductionKind.ADD: "{s} += {e}, {s} -= {e}, {s} = {s} + {e}, {s} = {s} - {e}, {s}++ or {s}--",
    ReductionKind.MIN: "{s} = min({s}, {e}) (or fmin, fminf), {s} = {e} < {s} ? {e} : {s} or "
    "if ({e} < {s}) {s} = {e}",
    ReductionKind.MAX: "{s} = max({s}, {e}) (or fmax, fmaxf), {s} = {e} > {s} ? {e} : {s} or "
    "if ({e} > {s}) {s} = {e}",
}


def check_reduction_uses(body: ast.Stmt, reductions: list[tuple[ReductionKind, Var]],
                         error: Error) -> list[tuple[ReductionKind, Var]]:  # fmt: skip
    """Refuse any use of a reduction variable in `body` (a parallel loop's) other than an
    update that applies the clause's operator; returns the reductions with each integer
    min/max made `umin`/`umax` where its updates compare unsigned."""
    kinds = {var: kind for kind, var in reductions}
    comparisons: dict[Var, list[tuple[Scalar, ast.Pos]]] = {}
    stack = [body]
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, ast.If) and _min_max_if(stmt, kinds, comparisons, error):
            continue
        if isinstance(stmt, ast.ExprStmt) and stmt.expr is not None:
            update = _array_update(stmt.expr, kinds, comparisons, error)
            if update is not None:
                stmt.sync = update
                continue
        for expr in _expressions(stmt):
            _check_expression(expr, kinds, comparisons, error)
        stack += _substatements(stmt)
    return [(_bool_kind(_signed_kind(kind, var, comparisons.get(var, []), error), var), var)
            for kind, var in reductions]  # fmt: skip


# On a `_Bool`, whose private copies and partial results are 0 or 1, OpenMP's combiners are
# bitwise: `(a + b) != 0` is `a | b`, `(a * b) != 0`, `min` and `&&` are `a & b`.
_BOOL_KINDS = {
    ReductionKind.ADD: ReductionKind.OR, ReductionKind.MUL: ReductionKind.AND,
    ReductionKind.MIN: ReductionKind.AND, ReductionKind.UMIN: ReductionKind.AND,
    ReductionKind.MAX: ReductionKind.OR, ReductionKind.UMAX: ReductionKind.OR,
    ReductionKind.LAND: ReductionKind.AND, ReductionKind.LOR: ReductionKind.OR,
    ReductionKind.SUB: ReductionKind.XOR,
}  # fmt: skip
"""`-` is the serial `s = (s - e) != 0`, which is `s != e`: `s ^ e` for an `e` of 0 or 1 (the
only updates `_check_bool_difference` lets through), so the copies combine with `^`. gcc's
OpenMP build combines them with `+` instead (OpenMP's combiner for `-`), which depends on how
the iterations were split among its threads (and stores 2 in a _Bool); the serial result is the
one answer that does not."""


def _bool_kind(kind: ReductionKind, var: Var) -> ReductionKind:
    """The kind that combines `_Bool` partial results as `kind` does (docs/ir.md)."""
    if isinstance(var.type, Scalar) and var.type.is_int and var.type.is_bool:
        return _BOOL_KINDS.get(kind, kind)
    return kind


def _signed_kind(kind: ReductionKind, var: Var, compared: list[tuple[Scalar, ast.Pos]],
                 error: Error) -> ReductionKind:  # fmt: skip
    """`kind`, unsigned where the integer variable's min/max updates compare unsigned."""
    element = var.type if isinstance(var.type, Scalar) else var.type.element
    if kind not in (ReductionKind.MIN, ReductionKind.MAX) or element.is_float:
        return kind
    signedness: tuple[bool, ast.Pos] | None = None
    for ctype, pos in compared:
        if ctype.is_float:
            continue
        if ctype.bits != element.bits:
            raise error(
                f"this update of '{var.name}' compares in '{ctype}', not in the type of "
                f"'{var.name}' ('{element}'): the value it keeps is converted to "
                f"'{element}', which is no {kind.value}imum of '{var.name}''s values (cast "
                f"the other operand to '{element}')",
                pos,
            )
        if signedness is not None and signedness[0] != ctype.signed:
            line, column = signedness[1][:2]
            raise error(
                f"this update of '{var.name}' compares {_signed_word(ctype.signed)}, another "
                f"(line {line}, column {column}) {_signed_word(not ctype.signed)}: "
                f"'reduction({kind.value}: {var.name})' needs one order (cast the operands "
                "alike)",
                pos,
            )
        signedness = (ctype.signed, pos)
    signed = element.signed if signedness is None else signedness[0]
    return kind if signed else kind.unsigned


def _signed_word(signed: bool) -> str:
    return "signed" if signed else "unsigned"


def _check_expression(expr: ast.Expr, kinds: dict[Var, ReductionKind],
                      comparisons: dict[Var, list[tuple[Scalar, ast.Pos]]],
                      error: Error) -> None:  # fmt: skip
    target = expr.target if isinstance(expr, ast.Assign | ast.IncDec) else None
    if (isinstance(expr, ast.Assign | ast.IncDec) and isinstance(target, ast.Name)
            and target.var in kinds and not target.resolved_var.is_array):  # fmt: skip
        var, kind = target.resolved_var, kinds[target.resolved_var]
        operands = _update_operands(expr, target, kind)
        if operands is None:
            raise error(_mismatch(var, kind), expr.pos)
        if kind == ReductionKind.SUB and isinstance(var.type, Scalar) and var.type.is_bool:
            _check_bool_difference(expr, var, operands, error)
        if kind in (ReductionKind.MIN, ReductionKind.MAX):
            assert isinstance(expr, ast.Assign), "a min/max update assigns (_update_operands)"
            comparisons.setdefault(var, []).append((_compared_in(expr.value, var), expr.pos))
        for operand in operands:
            _refuse_reads(operand, kinds, error)
        return
    _refuse_reads(expr, kinds, error)


def _check_bool_difference(expr: ast.Assign | ast.IncDec, var: Var, operands: list[ast.Expr],
                           error: Error) -> None:  # fmt: skip
    """Refuse an update of a `reduction(-: b)` _Bool other than `b -= e`, `b = b - e` or `b--`
    with `e` 0 or 1: only those are `b ^= e`, which private copies can compute in any order."""
    subtracts = expr.op == "--" if isinstance(expr, ast.IncDec) else (
        expr.op == "-=" or (isinstance(expr.value, ast.Binary) and expr.value.op == "-"))
    if subtracts and all(_zero_or_one(operand) for operand in operands):
        return
    raise error(
        f"this update of the _Bool '{var.name}' of 'reduction(-: {var.name})' is not "
        f"'{var.name} -= e', '{var.name} = {var.name} - e' or '{var.name}--' with 'e' a _Bool "
        f"or a comparison (0 or 1): only those are '{var.name} ^= e', whose partial results "
        "combine in any order (OpenMP's '+' combiner would depend on how the threads split "
        f"the loop; cast 'e' to _Bool or use 'reduction(^: {var.name})')",
        expr.pos,
    )


def _zero_or_one(e: ast.Expr) -> bool:
    """Whether C gives `e` the value 0 or 1 whatever its operands: a _Bool, a comparison, a
    logical operator, a `!`, or the literal 0 or 1."""
    if isinstance(e, ast.IntLit):
        return e.value in (0, 1)
    if isinstance(e, ast.Binary) and e.op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
        return True
    if isinstance(e, ast.Unary) and e.op == "!":
        return True
    return isinstance(e.ctype, Scalar) and e.ctype.is_int and e.ctype.is_bool


def _compared_in(update: ast.Expr, var: Var) -> Scalar:
    """The type in which a min/max update (`min(s, e)` or `c ? x : y`) compares."""
    compared = update.cond if isinstance(update, ast.Conditional) else update
    ctype = compared.operand_type if isinstance(compared, ast.Binary) else compared.ctype
    assert isinstance(ctype, Scalar)
    operands = [compared.lhs, compared.rhs] if isinstance(compared, ast.Binary) else (
        compared.args if isinstance(compared, ast.Call) else [])
    return _narrow_comparison(ctype, operands, var)


def _narrow_comparison(ctype: Scalar, operands: list[ast.Expr], var: Var) -> Scalar:
    """The type of `var` where C compares two values of it (a `char`, `short` or `_Bool`) in
    `int`: promotion keeps every value, so that comparison orders `var`'s own values."""
    own = var.type.element if isinstance(var.type, ArrayType) else var.type
    if ctype == promote(own) != own and operands and all(o.ctype == own for o in operands):
        return own
    return ctype


def _array_update(expr: ast.Expr, kinds: dict[Var, ReductionKind],
                  comparisons: dict[Var, list[tuple[Scalar, ast.Pos]]],
                  error: Error) -> ArrayUpdate | None:  # fmt: skip
    """The update an expression statement makes to an element of a reduced array (None when
    it updates none); refuses an update that does not match the clause."""
    if not isinstance(expr, ast.Assign | ast.IncDec):
        return None
    target = expr.target
    var = reduced_array(target, kinds)
    if var is None:
        return None
    assert isinstance(target, ast.Index)
    kind = kinds[var]
    operands = _update_operands(expr, target, kind)
    if operands is None:
        raise error(_mismatch(var, kind, element=True), expr.pos)
    _refuse_reads(_subscripts(target), kinds, error)
    for operand in operands:
        _refuse_reads(operand, kinds, error)
    if isinstance(expr, ast.IncDec):
        one = ast.IntLit(expr.pos, 1, INT, "1")
        one.ctype = INT
        assert expr.operand_type is not None
        return ArrayUpdate(target, "+" if expr.op == "++" else "-", one, expr.operand_type)
    assert isinstance(expr, ast.Assign)
    (value,) = operands
    if kind in (ReductionKind.MIN, ReductionKind.MAX):
        compared = _compared_in(expr.value, var)
        comparisons.setdefault(var, []).append((compared, expr.pos))
        return ArrayUpdate(target, str(kind), value, compared)
    if expr.op != "=":
        assert expr.operand_type is not None
        return ArrayUpdate(target, expr.op[:-1], value, expr.operand_type)
    binary = expr.value
    assert isinstance(binary, ast.Binary)
    computed = binary.operand_type if isinstance(binary.operand_type, Scalar) else target.scalar
    return ArrayUpdate(target, binary.op, value, computed, binary.lhs is value)


def reduced_array(target: ast.Expr | None, kinds: dict[Var, ReductionKind]) -> Var | None:
    """The reduced array whose element `target` is (`h[k]`, `A[i][j]`), if any."""
    base = target
    while isinstance(base, ast.Index):
        base = base.base
    if target is base or not isinstance(base, ast.Name):
        return None
    return base.var if base.var in kinds and base.var.is_array else None


def _subscripts(target: ast.Index) -> ast.Expr:
    """An expression whose walk visits the subscripts of `target` (not the array itself)."""
    indices: list[ast.Expr] = []
    node: ast.Expr = target
    while isinstance(node, ast.Index):
        indices.append(node.index)
        node = node.base
    return indices[0] if len(indices) == 1 else ast.Comma(indices[0].pos, indices)


def _refuse_reads(expr: ast.Expr, kinds: dict[Var, ReductionKind], error: Error) -> None:
    for node in walk_expr(expr):
        if isinstance(node, ast.Name) and node.var in kinds and node.var.is_array:
            raise error(
                f"the reduced array '{node.name}' is accessed here other than by an update "
                f"of one of its elements in the form its clause needs, as a statement of its "
                f"own: each thread only holds partial results (access '{node.name}' after "
                "the loop)",
                node.pos,
            )
        if isinstance(node, ast.Name) and node.var in kinds:
            raise error(
                f"the reduction variable '{node.name}' is read in its loop other than by its "
                f"update: each thread only holds a partial result there (read it after the "
                "loop)",
                node.pos,
            )


def _update_operands(e: ast.Assign | ast.IncDec, s: ast.Expr,
                     kind: ReductionKind) -> list[ast.Expr] | None:  # fmt: skip
    """The `e` of an update of the location `s` (a variable or an array element) that matches
    `kind` (none for `s++`), or None when the update does not match."""
    additive = kind in (ReductionKind.ADD, ReductionKind.SUB)
    if isinstance(e, ast.IncDec):
        return [] if additive else None
    if e.op != "=":
        op = e.op[:-1]
        ok = op == _OPERATOR.get(kind) or (additive and op in ("+", "-"))
        return [e.value] if ok else None
    value = e.value
    if isinstance(value, ast.Binary):
        ok = value.op == _OPERATOR.get(kind) or (additive and value.op in ("+", "-"))
        if ok and _is(value.lhs, s):
            return [value.rhs]
        if ok and value.op in _COMMUTATIVE and _is(value.rhs, s):
            return [value.lhs]
        return None
    if isinstance(value, ast.Call) and isinstance(value.callee, ast.Name):
        if _MIN_MAX_CALLS.get(value.callee.name) != kind or len(value.args) != 2:
            return None
        first, second = value.args
        return [second] if _is(first, s) else [first] if _is(second, s) else None
    if isinstance(value, ast.Conditional):
        operand = _min_max_choice(value.cond, value.then, value.otherwise, s, kind)
        return None if operand is None else [operand]
    return None


def _min_max_choice(cond: ast.Expr, chosen: ast.Expr, otherwise: ast.Expr, s: ast.Expr,
                    kind: ReductionKind) -> ast.Expr | None:  # fmt: skip
    """The `e` of `cond ? chosen : otherwise` when it is min(s, e) or max(s, e) as `kind`
    says, else None."""
    if not isinstance(cond, ast.Binary) or cond.op not in ("<", "<=", ">", ">="):
        return None
    smaller, larger = (cond.lhs, cond.rhs) if cond.op in ("<", "<=") else (cond.rhs, cond.lhs)
    if _is(smaller, s) == _is(larger, s):
        return None
    e = larger if _is(smaller, s) else smaller
    if same_expr(chosen, smaller) and same_expr(otherwise, larger):
        picks = ReductionKind.MIN
    elif same_expr(chosen, larger) and same_expr(otherwise, smaller):
        picks = ReductionKind.MAX
    else:
        return None
    return e if picks == kind else None


def _min_max_if(stmt: ast.If, kinds: dict[Var, ReductionKind],
                comparisons: dict[Var, list[tuple[Scalar, ast.Pos]]],
                error: Error) -> bool:  # fmt: skip
    """Whether `stmt` is `if (e < s) s = e;` for a min (or max) reduction variable `s`;
    refuses the form with the other operator."""
    assign = stmt.then
    while isinstance(assign, ast.Block) and len(assign.items) == 1:
        assign = assign.items[0]
    if stmt.otherwise is not None or not isinstance(assign, ast.ExprStmt):
        return False
    e = assign.expr
    if not (isinstance(e, ast.Assign) and e.op == "="):
        return False
    array = reduced_array(e.target, kinds)
    if array is not None:
        s = array
    elif isinstance(e.target, ast.Name) and e.target.var in kinds:
        s = e.target.var
    else:
        return False
    # `if (c) s = e;` is `s = c ? e : s`.
    kind = kinds[s]
    if kind not in (ReductionKind.MIN, ReductionKind.MAX):
        return False  # a conditional update of another operator: checked as a statement
    operand = _min_max_choice(stmt.cond, e.value, e.target, e.target, kind)
    if operand is None:
        raise error(_mismatch(s, kind, element=array is not None), e.pos)
    assert isinstance(stmt.cond, ast.Binary)
    assert isinstance(stmt.cond.operand_type, Scalar)
    compared = _narrow_comparison(stmt.cond.operand_type, [stmt.cond.lhs, stmt.cond.rhs], s)
    comparisons.setdefault(s, []).append((compared, e.pos))
    _refuse_reads(operand, kinds, error)
    if isinstance(e.target, ast.Index):
        _refuse_reads(_subscripts(e.target), kinds, error)
        stmt.sync = ArrayUpdate(e.target, str(kind), operand, stmt.cond.operand_type)
    return True


def _mismatch(var: Var, kind: ReductionKind, element: bool = False) -> str:
    op = {ReductionKind.MIN: "min", ReductionKind.MAX: "max"}.get(kind) or _OPERATOR[kind]
    forms = _FORMS.get(ReductionKind.ADD if kind == ReductionKind.SUB else kind)
    if forms is None:
        forms = "{s} = {s} " + op + " {e}"
        if len(op) == 1:
            forms = "{s} " + op + "= {e} or " + forms
    s = f"{var.name}[K]" if element else var.name
    what = f"an element of '{var.name}'" if element else f"'{var.name}'"
    return (
        f"this update of {what} does not match its clause 'reduction({op}: {var.name})', "
        "so the threads' partial results would be combined wrongly: update it as "
        + forms.format(s=s, e="EXPR")
        + f" (EXPR{' and K' if element else ''} not reading '{var.name}')"
    )


def _is(e: ast.Expr, location: ast.Expr) -> bool:
    """Whether `e` names the location (a variable, or an array element by equal subscripts)."""
    if isinstance(location, ast.Name):
        return isinstance(e, ast.Name) and e.var is location.var
    return same_lvalue(e, location)


def same_expr(a: ast.Expr, b: ast.Expr) -> bool:
    """Whether `a` and `b` are the same C expression (same variables, operators, literals)."""
    if type(a) is not type(b):
        return False
    # b has a's type (above): each isinstance of b only tells pyright so.
    if isinstance(a, ast.Name) and isinstance(b, ast.Name):
        return a.var is b.var and a.name == b.name
    if isinstance(a, ast.IntLit | ast.FloatLit) and isinstance(b, ast.IntLit | ast.FloatLit):
        return a.value == b.value and a.type == b.type
    if getattr(a, "op", None) != getattr(b, "op", None) or a.ctype != b.ctype:
        return False
    ours, theirs = children(a), children(b)
    return len(ours) == len(theirs) and all(map(same_expr, ours, theirs))


def _substatements(stmt: ast.Stmt) -> list[ast.Stmt]:
    """The statements directly inside `stmt`, last first (a stack pops them in order)."""
    if isinstance(stmt, ast.Block):
        return stmt.items[::-1]
    if isinstance(stmt, ast.If):
        return [s for s in (stmt.otherwise, stmt.then) if s is not None]
    if isinstance(stmt, ast.While | ast.DoWhile):
        return [stmt.body]
    if isinstance(stmt, ast.For):
        return [stmt.body, stmt.init]
    return []


def _expressions(stmt: ast.Stmt) -> Iterator[ast.Expr]:
    """The expressions `stmt` evaluates itself (not those of its sub-statements), with comma
    lists split into their items."""
    if isinstance(stmt, ast.ExprStmt):
        exprs = [stmt.expr]
    elif isinstance(stmt, ast.Decl):
        exprs = [d.init for d in stmt.declarators if isinstance(d.init, ast.Expr)]
    elif isinstance(stmt, ast.If | ast.While | ast.DoWhile):
        exprs = [stmt.cond]
    elif isinstance(stmt, ast.For):
        exprs = [stmt.cond, stmt.step]
    else:
        exprs = []
    for expr in exprs:
        if isinstance(expr, ast.Comma):
            yield from expr.items
        elif expr is not None:
            yield expr
