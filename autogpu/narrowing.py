"""Type-narrowing tests for plain Python containers (JSON data, expression results).

`isinstance(x, list)` on an `Any` value narrows to `list[Unknown]`, which pyright's strict mode
reports at every use; these predicates narrow to the `Any`-parameterised types instead (as
`autogpu/numeric.py` does for NumPy values).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from typing_extensions import TypeIs


def is_list(value: object) -> TypeIs[list[Any]]:
    """Whether `value` is a list (its items still to be checked)."""
    return isinstance(value, list)


def is_sequence(value: object) -> TypeIs[list[Any] | tuple[Any, ...]]:
    """Whether `value` is a list or a tuple (its items still to be checked)."""
    return isinstance(value, (list, tuple))


def is_dict(value: object) -> TypeIs[dict[Any, Any]]:
    """Whether `value` is a dict (its keys and values still to be checked)."""
    return isinstance(value, dict)


def is_tuple(value: object) -> TypeIs[tuple[Any, ...]]:
    """Whether `value` is a tuple (its items still to be checked)."""
    return isinstance(value, tuple)


def is_mapping(value: object) -> TypeIs[Mapping[Any, Any]]:
    """Whether `value` is a mapping (its keys and values still to be checked)."""
    return isinstance(value, Mapping)
