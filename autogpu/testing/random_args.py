"""Random inputs for differential tests, and exact comparison of the outputs.

A pointer says nothing about how many elements it points to, so array sizes are always given
explicitly by the test; so are scalar values (they are the problem sizes). Floats are uniform
in [-1, 1], integers small (so that index-like data stays meaningful), and every array is a
fresh copy per implementation (`copy_args`) so that two runs start from the same bits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from autogpu.numeric import is_ndarray
from autogpu.testing.c_signature import CSignature, signature_of

Size = int | tuple[int, ...]


def random_array(dtype: np.dtype, shape: Size, rng: np.random.Generator) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.uniform(-1.0, 1.0, shape).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind == "u":
        return rng.integers(0, 17, shape).astype(dtype)
    return rng.integers(-8, 9, shape).astype(dtype)


def random_args(
    signature: Any,
    sizes: Mapping[str, Any],
    seed: int = 0,
    *,
    function: str | None = None,
) -> list[Any]:
    """Arguments in C parameter order: for each array parameter a random array of
    `sizes[name]` elements (an int, or a shape tuple for a C-contiguous N-D array); for each
    scalar parameter the value `sizes[name]` itself. `signature` is a CSignature, func.func or
    module (see `signature_of`). Every parameter must be given, and nothing else."""
    sig: CSignature = signature_of(signature, function)
    names = [p.name for p in sig.params]
    missing = [n for n in names if n not in sizes]
    unknown = [n for n in sizes if n not in names]
    if missing or unknown:
        raise ValueError(
            f"random_args for {sig.name}({', '.join(names)}): "
            + (f"missing {missing}" if missing else "")
            + ("; " if missing and unknown else "")
            + (f"no parameter named {unknown}" if unknown else "")
        )
    rng = np.random.default_rng(seed)
    args: list[Any] = []
    for param in sig.params:
        value = sizes[param.name]
        if param.is_array:
            args.append(random_array(param.dtype, value, rng))
        elif param.dtype.kind == "f":
            args.append(float(value))
        else:
            args.append(int(value))
    return args


def copy_args(args: Sequence[Any]) -> list[Any]:
    """Independent copies of the arrays (scalars are immutable)."""
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _bits(array: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(array)
    if array.dtype.kind == "f":
        return array.view(f"u{array.dtype.itemsize}")
    return array


def first_difference(actual: np.ndarray, expected: np.ndarray) -> str | None:
    """None when the arrays are identical bit for bit (NaNs included), else a description of
    the first element that differs."""
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return f"shape/dtype {actual.shape} {actual.dtype} != {expected.shape} {expected.dtype}"
    differs = _bits(actual) != _bits(expected)
    if not differs.any():
        return None
    index = tuple(int(i) for i in np.argwhere(differs)[0])
    where = index[0] if len(index) == 1 else index
    return (
        f"{int(differs.sum())} of {differs.size} elements differ; first at [{where}]: "
        f"{actual[index]!r} != {expected[index]!r}"
    )


def assert_same_outputs(
    actual: Sequence[Any], expected: Sequence[Any], names: Sequence[str] = ()
) -> None:
    """Every array argument after two runs is identical bit for bit (floats compared by their
    bits, since both runs perform the same IEEE operations in the same order)."""
    problems: list[str] = []
    for position, (a, e) in enumerate(zip(actual, expected, strict=True)):
        if is_ndarray(e):
            difference = first_difference(a, e)
            if difference is not None:
                name = names[position] if position < len(names) else f"argument {position}"
                problems.append(f"{name}: {difference}")
    if problems:
        raise AssertionError("outputs differ:\n  " + "\n  ".join(problems))
