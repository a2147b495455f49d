"""Array sections of `reduction(op: h[lo:len])` (OpenMP 4.5) and whole arrays `reduction(op: h)`.

A reduced array is a parameter; the reduction covers a contiguous run of its elements, which
this module computes from the clause as a flat `[lo, lo + len)` of the row-major array:
- `h[lo:len]`, `h[:len]` (lo 0), `h[lo:]` and `h[:]` (to the end: the extent must be declared);
- on a multi-dimensional array, a section of the first dimension takes whole rows, and the
  other dimensions must be whole (`A[0:m][:]`, `A[0:m][0:n]` with `n` its extent): anything
  else is not contiguous, as is a stride other than 1 (`h[0:n:2]`);
- a whole array `h` needs every extent declared (`int h[256]`, `double h[m][K]`).
Bounds are integer constants or integer variables (macros are expanded in pragmas). A section
beyond the declared extent is an error when both are constants; elements the loop updates
outside the section are the lowering's concern (docs/ir.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from autogpu.frontend.symbols import Var
from autogpu.frontend.types import ArrayType, Scalar

if TYPE_CHECKING:
    from autogpu.frontend.sema import Sema

Factor = int | Var


@dataclass(frozen=True)
class Section:
    """The flat elements `[lo, lo + length)` an array reduction covers, each a product of
    factors (integer constants and integer variables)."""

    lo: tuple[Factor, ...]
    length: tuple[Factor, ...]

    @property
    def constant_length(self) -> int | None:
        return constant(self.length)


def constant(factors: tuple[Factor, ...]) -> int | None:
    """The value of a product of factors when all are constants."""
    value = 1
    for factor in factors:
        if not isinstance(factor, int):
            return None
        value *= factor
    return value


def split_items(text: str) -> list[tuple[str, int]]:
    """The comma-separated items of a variable list, each with its offset in `text` (commas
    inside brackets do not separate)."""
    items, depth, start = list[tuple[str, int]](), 0, 0
    for k, char in enumerate(text):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if char == "," and depth == 0:
            items.append((text[start:k], start))
            start = k + 1
    items.append((text[start:], start))
    return items


def reduction_item(sema: Sema, item: str, column: Callable[[int], tuple[int, int]]
                   ) -> tuple[str, list[tuple[str, int]], tuple[int, int]]:  # fmt: skip
    """The name of a reduction list item and its bracketed subscripts (text, offset in
    `item`); `column(offset)` locates an offset of `item`."""
    match = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*((?:\[[^\[\]]*\]\s*)*)", item)
    if match is None:
        raise sema.error(
            f"reduction needs variable names or array sections like 'h[0:n]', got "
            f"'{item.strip()}'",
            column(len(item) - len(item.lstrip())),
        )
    brackets = [(m.group(1), match.start(2) + m.start(1))
                for m in re.finditer(r"\[([^\[\]]*)\]", match.group(2))]  # fmt: skip
    return match.group(1), brackets, column(match.start(1))


def section_of(sema: Sema, var: Var, brackets: list[tuple[str, int]],
               column: Callable[[int], tuple[int, int]], where: tuple[int, int]) -> Section:
    """The section a reduction item names: the whole array without brackets."""
    array = var.type
    if not isinstance(array, ArrayType):
        raise sema.error(
            f"'{var.name}' is a scalar: an array section needs an array (reduce the scalar "
            f"with 'reduction(op: {var.name})')",
            where,
        )
    if array.element.is_bool:
        raise sema.error(
            "a reduction over an array of '_Bool' is not supported: reduce an 'unsigned char' "
            "array with '|' or '&' (what '+' and '*' compute on _Bool values)",
            where,
        )
    extents = array.extents
    if len(brackets) > len(extents):
        raise sema.error(
            f"the section of '{var.name}' has {len(brackets)} subscripts, the array "
            f"{len(extents)} dimension{'s' if len(extents) > 1 else ''}",
            column(brackets[len(extents)][1]),
        )
    lo_row: list[Factor] = []
    length_row: list[Factor] = []
    for dim, extent in enumerate(extents):
        if dim >= len(brackets):
            bounds = _whole(sema, var, extent, where)
        else:
            text, offset = brackets[dim]
            bounds = _bounds(sema, var, text, extent, lambda k, o=offset: column(o + k))
            if dim > 0 and not _covers(bounds, extent):
                raise sema.error(
                    f"the section of '{var.name}' is not contiguous: after the first "
                    "dimension, a section must take whole rows ('[:]' or '[0:extent]')",
                    column(offset),
                )
        if dim == 0:
            lo_row.append(bounds[0])
            length_row.append(bounds[1])
        else:
            size = _factor_of(sema, var, extent, where)
            lo_row.append(size)
            length_row.append(size)
    assert lo_row
    return Section(tuple(lo_row), tuple(length_row))


def _whole(sema: Sema, var: Var, extent: str | int | None,
           where: tuple[int, int]) -> tuple[Factor, Factor]:  # fmt: skip
    return 0, _factor_of(sema, var, extent, where)


def _factor_of(sema: Sema, var: Var, extent: str | int | None, where: tuple[int, int]) -> Factor:
    if extent is None:
        raise sema.error(
            f"the extent of '{var.name}' is not declared: name the elements to reduce with a "
            f"section, 'reduction(op: {var.name}[0:n])'",
            where,
        )
    if isinstance(extent, int):
        return extent
    if not extent.isidentifier():
        raise sema.error(
            f"the extent '{extent}' of '{var.name}' is an expression: name the elements to "
            f"reduce with a section whose bounds are constants or variables, "
            f"'reduction(op: {var.name}[lo:len])'",
            where,
        )
    found = sema.lookup(extent)
    assert found is not None  # a parameter the signature already resolved
    return found


def _bounds(sema: Sema, var: Var, text: str, extent: str | int | None,
            column: Callable[[int], tuple[int, int]]) -> tuple[Factor, Factor]:  # fmt: skip
    """`lo` and `len` of one `[lo:len]` (`[lo:len:1]`, `[:len]`, `[lo:]`, `[:]`)."""
    parts = text.split(":")
    if len(parts) == 1:
        raise sema.error(
            f"'{var.name}[{text.strip()}]' is an array element, not a section: write "
            f"'{var.name}[{text.strip()}:1]' to reduce one element",
            column(0),
        )
    if len(parts) == 3:
        stride = _parse_factor(sema, parts[2], column(len(parts[0]) + len(parts[1]) + 2))
        if stride != 1:
            raise sema.error(
                f"the section of '{var.name}' has stride '{parts[2].strip()}': only "
                "contiguous sections (stride 1) can be reduced",
                column(len(parts[0]) + len(parts[1]) + 2),
            )
    elif len(parts) > 3:
        raise sema.error(f"malformed array section '[{text}]'", column(0))
    lo = _parse_factor(sema, parts[0], column(0)) if parts[0].strip() else 0
    if parts[1].strip():
        length = _parse_factor(sema, parts[1], column(len(parts[0]) + 1))
    elif lo == 0:
        length = _whole(sema, var, extent, column(0))[1]
    else:
        raise sema.error(
            f"the section of '{var.name}' needs a length ('[lo:len]'): '[lo:]' is only "
            "supported from 0",
            column(0),
        )
    for value, what, at in ((lo, "start", 0), (length, "length", len(parts[0]) + 1)):
        if isinstance(value, int) and value < 0:
            raise sema.error(f"the section of '{var.name}' has a negative {what}", column(at))
    if isinstance(lo, int) and isinstance(length, int) and isinstance(extent, int):
        if lo + length > extent:
            raise sema.error(
                f"the section [{lo}:{length}] of '{var.name}' ends at element {lo + length}, "
                f"beyond its declared extent {extent}",
                column(0),
            )
    return lo, length


def _parse_factor(sema: Sema, text: str, where: tuple[int, int]) -> Factor:
    """An integer constant or an integer variable."""
    word = text.strip()
    try:
        return int(word.rstrip("uUlL"), 0)
    except ValueError:
        pass
    var = sema.lookup(word) if re.fullmatch(r"[A-Za-z_]\w*", word) else None
    if var is None or not isinstance(var.type, Scalar) or var.type.is_float:
        raise sema.error(
            f"the bounds of an array section must be integer constants or integer variables, "
            f"got '{word}'",
            where,
        )
    return var


def _covers(bounds: tuple[Factor, Factor], extent: str | int | None) -> bool:
    """Whether `[lo:len]` is the whole dimension of `extent`."""
    lo, length = bounds
    if lo != 0:
        return False
    if isinstance(length, int):
        return length == extent
    return extent is not None and length.name == extent
