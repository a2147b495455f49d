"""Type-narrowing tests for NumPy values.

`isinstance(x, np.ndarray)` narrows to `ndarray[Unknown, Unknown]`, which pyright's strict mode
(the mode xDSL keeps) reports at every use; these predicates narrow to the `Any`-parameterised
types instead, so code that takes NumPy or Python values stays fully typed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from typing_extensions import TypeIs


def is_ndarray(value: object) -> TypeIs[NDArray[Any]]:
    """Whether `value` is a NumPy array (of any dtype)."""
    return isinstance(value, np.ndarray)


def is_integer(value: object) -> TypeIs[int | np.integer[Any]]:
    """Whether `value` is a Python or NumPy integer (bool, C's _Bool, included)."""
    return isinstance(value, (int, np.integer))


def is_number(value: object) -> TypeIs[int | float | np.integer[Any] | np.floating[Any]]:
    """Whether `value` is a Python or NumPy integer or floating-point number."""
    return isinstance(value, (int, float, np.integer, np.floating))


def is_boolean(value: object) -> TypeIs[bool | np.bool_[Any]]:
    """Whether `value` is a Python or NumPy boolean."""
    return isinstance(value, (bool, np.bool_))
