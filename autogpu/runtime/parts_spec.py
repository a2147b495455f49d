"""The launch description's `parts` entry of a function made by `agpu-out-of-core`, read and
checked for shape: a module of its own, so that reading a launch description (`arguments`) does
not depend on the part scheduler (`parts`) that uses it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autogpu.narrowing import is_list, is_sequence
from autogpu.runtime.errors import LaunchDescriptionError


@dataclass(frozen=True)
class ArrayParts:
    """One array's footprint expressions (see the module docstring)."""

    name: str
    read: tuple[str, str] | None
    write: tuple[str, str] | None
    whole: bool
    alloc: bool = False  # the part's written rows are written whole and never read: no copy in


@dataclass(frozen=True)
class PartsSpec:
    """A function's `parts` entry: the part bounds' parameter names, the loop's bounds, the
    arrays."""

    lo: str
    hi: str
    lb: str
    ub: str
    arrays: tuple[ArrayParts, ...]


def parse_parts(entry: Any, function: str) -> tuple[PartsSpec, ...]:
    """The `parts` entry of a function of the launch description, checked for shape: one
    entry per nest (a function of one nest has the entry itself, several a list)."""
    where = f"invalid launch description: 'parts' of '{function}'"
    nests = entry if is_list(entry) else [entry]
    if not nests:
        raise LaunchDescriptionError(f"{where}: no nest")
    return tuple(_parse_nest(nest, where) for nest in nests)


def _parse_nest(entry: Any, where: str) -> PartsSpec:
    def pair(value: Any) -> tuple[str, str] | None:
        if value is None:
            return None
        if not is_sequence(value) or len(value) != 2:
            raise LaunchDescriptionError(f"{where}: a range must be [first, end]")
        return (str(value[0]), str(value[1]))

    try:
        arrays = tuple(
            ArrayParts(str(a["name"]), pair(a.get("read")), pair(a.get("write")),
                       bool(a.get("whole", False)), bool(a.get("alloc", False)))
            for a in entry["arrays"]
        )
        return PartsSpec(str(entry["lo"]), str(entry["hi"]), str(entry["lb"]),
                         str(entry["ub"]), arrays)
    except (KeyError, TypeError) as e:
        raise LaunchDescriptionError(f"{where}: {e}") from None
