"""The OpenMP `map` clauses of a function, made one map per array parameter (docs/ir.md, "Data
mapping"): what the executors copy between the caller's arrays and the device.

autogpu copies a function's arrays in once before its kernels and back once after them, so the
maps of its constructs combine: each use of an array is governed by the outermost construct
enclosing it that maps the array (inside a `target data` region, an inner construct's map of
present data moves nothing), or is `tofrom` (OpenMP's implicit map of an array, and what a use
outside any mapped construct needs). The array is copied in if some use needs `to`, back if some
use needs `from`: `to` + `from` make `tofrom`, `alloc` adds nothing. A function without map
clauses gets no maps, and runs as it always did.
"""

from __future__ import annotations

from collections.abc import Sequence

from autogpu.frontend import ast
from autogpu.frontend.directives import name_uses
from autogpu.frontend.symbols import Var


def function_maps(params: Sequence[Var], body: ast.Stmt,
                  mapped: Sequence[tuple[ast.Stmt, dict[Var, str]]]) -> dict[str, str]:
    """The map of each array parameter whose data does not go both ways (`tofrom` omitted)."""
    if not mapped:
        return {}
    scopes = [(maps, {id(u) for u in name_uses(stmt)}) for stmt, maps in mapped]
    result: dict[str, str] = {}
    for var in params:
        if not var.is_array:
            continue
        copies_in = copies_out = False
        for use in name_uses(body):
            if use.var is not var:
                continue
            governing = [(len(ids), maps[var]) for maps, ids in scopes
                         if id(use) in ids and var in maps]
            kind = max(governing)[1] if governing else "tofrom"
            copies_in |= kind in ("to", "tofrom")
            copies_out |= kind in ("from", "tofrom")
        if not (copies_in and copies_out):
            result[var.name] = {(True, False): "to", (False, True): "from"}.get(
                (copies_in, copies_out), "alloc")
    return result
