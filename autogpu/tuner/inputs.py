"""The kernel's arguments for tuning: sizes, array lengths and input data.

Scalars come from `--size NAME=VALUE`. Integer scalars are sizes and must be given; a
floating-point scalar that is not given gets a random value like the arrays.

Every array needs a length (in elements), decided in this order:
1. `--array NAME=EXPR` (an expression over the scalars, e.g. `A=m*n`), or the space file's
   `[arrays]` table, or `tune(arrays={...})`;
2. the extents of a C99 array parameter (`float A[m][n]` has m*n elements);
3. otherwise the elements the C function indexes for the given sizes, inferred from its IR by
   `autogpu.passes.analysis.extents` (1 + the largest index any access may use);
4. where that analysis cannot bound an index (data-dependent, a while loop's variable), it is an
   error that names the arrays and says what to write. The tuner never guesses: a wrong length
   would make a correct kernel fail verification, or a wrong one pass.

Data: floating-point arrays are uniform in [-1, 1] (as in the AutoGPU paper), integer arrays small
integers in [-8, 8] ([0, 8] if unsigned), all from one seed so that every run and every worker
sees the same inputs; `--input NAME=FILE.npy` loads an array (or a scalar) from a file instead.
An integer array whose values are subscripts (`x[col[i]]`, `a[idx[i]] += ...`) gets values that
keep those accesses within their arrays (`passes/analysis/subscript_arrays.py`), distinct ones
where a parallel loop writes through them; where no range can be derived (its values bound a
loop, say), its data must come from `--input`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from autogpu.diagnostics import CompileError
from autogpu.numeric import is_integer
from autogpu.target import launch
from autogpu.tuner import expr
from autogpu.tuner.adapter import Param


def parse_scalar(text: str | int | float, dtype: str, name: str) -> Any:
    """A scalar value of the parameter's dtype from the command line."""
    kind = np.dtype(dtype).kind
    try:
        if kind in "iu":
            value = int(text, 0) if isinstance(text, str) else int(text)
            info = np.iinfo(dtype)
            if not info.min <= value <= info.max:
                raise CompileError(f"size {name}={value} does not fit in {dtype}")
            return value
        if kind == "b":
            return str(text).lower() in ("1", "true", "yes")
        return float(text)
    except ValueError:
        raise CompileError(f"size {name}={text!r}: expected a value of type {dtype}") from None


def check_sizes(params: Sequence[Param], sizes: Mapping[str, Any], function: str,
                require_all: bool = True) -> dict[str, Any]:
    """Validate `sizes` against the kernel's scalar parameters; typed values by name."""
    scalars = {p.name: p for p in params if p.kind == "scalar"}
    arrays = {p.name for p in params if p.kind == "array"}
    result: dict[str, Any] = {}
    for name, value in sizes.items():
        if name not in scalars:
            what = "an array" if name in arrays else "not a parameter"
            raise CompileError(
                f"unknown size '{name}': it is {what} of {function} "
                f"(its scalar parameters: {', '.join(scalars) or 'none'})"
            )
        result[name] = parse_scalar(value, scalars[name].dtype, name)
    missing = [p.name for p in scalars.values()
               if p.name not in result and np.dtype(p.dtype).kind in "iub"]
    if missing and require_all:
        raise CompileError(
            f"{function} needs a value for its integer parameter"
            f"{'s' if len(missing) > 1 else ''} {', '.join(missing)}: "
            + " ".join(f"--size {m}=VALUE" for m in missing)
        )
    return result


def specialization(params: Sequence[Param], sizes: Mapping[str, Any],
                   names: Sequence[str] | None) -> str:
    """The `agpu-specialize` sizes text ("n=8192,t=5") compiling `names` (None: every integer
    size) into the variants, so that constant loops unroll fully and the grid's guards fold."""
    scalars = {p.name: p for p in params if p.kind == "scalar"}
    integer = [name for name in sizes
               if np.dtype(scalars[name].dtype).kind in "iu"]
    chosen = integer if names is None else list(names)
    for name in chosen:
        if name not in sizes:
            raise CompileError(f"cannot specialise '{name}': give its value with --size "
                               f"{name}=VALUE (sizes given: {', '.join(sizes) or 'none'})")
        if name not in integer:
            raise CompileError(f"cannot specialise '{name}': only integer sizes can be compiled "
                               f"into the kernel (integer sizes: {', '.join(integer) or 'none'})")
    return ",".join(f"{name}={int(sizes[name])}" for name in chosen)


def arrays_without_length(params: Sequence[Param], given: Mapping[str, str | int]) -> list[str]:
    """The arrays whose length neither `given` nor C99 extents say (rule 3 must infer them)."""
    return [p.name for p in params
            if p.kind == "array" and p.name not in given and p.full_extents is None]


def array_lengths(params: Sequence[Param], sizes: Mapping[str, Any],
                  given: Mapping[str, str | int], function: str,
                  inferred: Mapping[str, int | None] | None = None) -> dict[str, int]:
    """The length of every array parameter (see the module docstring for the rules);
    `inferred` holds the analysis' lengths (None where it found no bound)."""
    arrays = {p.name: p for p in params if p.kind == "array"}
    unknown = set(given) - set(arrays)
    if unknown:
        raise CompileError(
            f"--array names {', '.join(sorted(unknown))}, which "
            f"{'is' if len(unknown) == 1 else 'are'} not an array parameter of {function} "
            f"(its arrays: {', '.join(arrays) or 'none'})"
        )
    lengths: dict[str, int] = {}
    missing: list[str] = []
    for name, p in arrays.items():
        if name in given:
            text = str(given[name])
        elif (extents := p.full_extents) is not None:
            lengths[name] = _extents_product(name, extents, sizes)
            continue
        elif inferred is not None and (length := inferred.get(name)) is not None:
            lengths[name] = int(length)
            continue
        else:
            missing.append(name)
            continue
        try:
            value = expr.evaluate(text, sizes)
        except CompileError as e:
            raise CompileError(f"length of array '{name}': {e.message}") from None
        if not is_integer(value) or isinstance(value, bool):
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            else:
                raise CompileError(
                    f"length of array '{name}' ({text}) is {value!r}, not an integer")
        if value < 0:
            raise CompileError(f"length of array '{name}' ({text}) is negative: {value}")
        lengths[name] = int(value)
    if missing:
        raise CompileError(
            f"cannot tell the length of array{'s' if len(missing) > 1 else ''} "
            f"{', '.join(missing)} of {function} (the analysis of its indices found no bound, "
            "e.g. an index read from memory): give "
            + " ".join(f"--array {m}=EXPR" for m in missing)
            + f" (an expression over {', '.join(sizes) or 'the sizes'}, e.g. --array "
            f"{missing[0]}={next(iter(sizes), 'n')}), or declare C99 extents "
            f"(float {missing[0]}[n])"
        )
    return lengths


def _extents_product(name: str, extents: Sequence[str], sizes: Mapping[str, Any]) -> int:
    """The elements of a C99 array parameter: its extents are C expressions of the scalar
    parameters (`n + 1`, `(unsigned)(n - 1)`), evaluated as the runtime evaluates them."""
    total = 1
    for extent in extents:
        try:
            value = launch.evaluate(str(extent), sizes)
        except ValueError as e:
            raise CompileError(f"length of array '{name}' (extent {extent}): {e}") from None
        if value < 0:
            raise CompileError(f"length of array '{name}': extent {extent} is negative: {value}")
        total *= value
    return total


def make_arguments(params: Sequence[Param], sizes: Mapping[str, Any], lengths: Mapping[str, int],
                   seed: int = 0, files: Mapping[str, Any] | None = None,
                   subscripts: Mapping[str, Any] | None = None) -> list[Any]:
    """The argument list in C parameter order: numpy arrays and numpy scalars. `subscripts`:
    the index arrays' `SubscriptValues` (or why they have none), by name."""
    files = dict(files or {})
    unknown = set(files) - {p.name for p in params}
    if unknown:
        raise CompileError(f"--input names {', '.join(sorted(unknown))}, which "
                           "is not a parameter of the kernel")
    rng = np.random.default_rng(seed)
    args: list[Any] = []
    for p in params:
        dtype = np.dtype(p.dtype)
        if p.name in files:
            given = files[p.name]
            loaded = _load(p, given, lengths.get(p.name)) if isinstance(given, (str, Path)) \
                else _given(p, given, lengths.get(p.name))
            args.append(loaded)
            continue
        if p.kind == "scalar":
            if p.name in sizes:
                args.append(dtype.type(sizes[p.name]))
            else:
                args.append(dtype.type(rng.uniform(-1.0, 1.0)))
            continue
        n = lengths[p.name]
        if subscripts and p.name in subscripts:
            data = _subscript_data(p, n, subscripts[p.name], rng)
        elif dtype.kind == "f":
            data = rng.uniform(-1.0, 1.0, n).astype(dtype)
        elif dtype.kind == "u":
            data = rng.integers(0, 9, n).astype(dtype)
        elif dtype.kind == "i":
            data = rng.integers(-8, 9, n).astype(dtype)
        elif dtype.kind == "b":
            data = rng.integers(0, 2, n).astype(dtype)
        else:
            raise CompileError(f"cannot generate inputs of type {dtype} for '{p.name}'")
        args.append(data)
    return args


def _subscript_data(p: Param, n: int, values: Any, rng: np.random.Generator) -> np.ndarray:
    """`n` values for the index array `p`, within `values.lo..hi` (distinct if required)."""
    if isinstance(values, str):
        raise CompileError(f"cannot generate values for the index array '{p.name}': {values}; "
                           f"give its data with --input {p.name}=FILE.npy")
    kind = np.dtype(p.dtype).kind
    low, high = (int(np.iinfo(p.dtype).min), int(np.iinfo(p.dtype).max)) if kind in "iu" else (0, 1)
    lo, hi = max(values.lo, low), min(values.hi, high)
    if lo > hi or (values.distinct and n > hi - lo + 1):
        raise CompileError(f"cannot generate values for the index array '{p.name}': the "
                           f"{n} values that keep its subscripts in bounds ({values.lo}.."
                           f"{values.hi}) do not fit in {p.dtype}; give its data with --input "
                           f"{p.name}=FILE.npy")
    if values.distinct:
        data = rng.choice(hi - lo + 1, size=n, replace=False) + lo
    else:
        data = rng.integers(lo, hi + 1, n)
    return np.asarray(data).astype(p.dtype)


def _given(p: Param, value: Any, length: int | None) -> Any:
    """An input given as an array object (`tune(inputs={"x": array})`): NumPy as it is, a device
    array (CuPy, PyTorch, `__cuda_array_interface__`, DLPack) copied to the host once."""
    from autogpu.runtime.array_views import ArrayInterfaceError, array_view

    try:
        view = array_view(value)
    except ArrayInterfaceError as e:
        raise CompileError(f"input {p.name}: {e}") from None
    if view is None:
        if p.kind == "scalar" and isinstance(value, (int, float, bool, np.generic)):
            return np.dtype(p.dtype).type(value)
        raise CompileError(f"input {p.name}: expected a file name or an array, got "
                           f"{type(value).__name__}")
    if view.location == "host":
        data = np.asarray(value)
    else:
        from autogpu.runtime.cuda_exec import copy_to_host

        data = copy_to_host(view)
    return _as_input(p, data, length, f"input {p.name}", "the given array")


def _load(p: Param, path: str | Path, length: int | None) -> Any:
    path = Path(path)
    if not path.is_file():
        raise CompileError(f"--input {p.name}: no such file {path}")
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as e:  # unreadable, not .npy, truncated
        raise CompileError(f"--input {p.name}: cannot read {path}: {e}") from None
    return _as_input(p, data, length, f"--input {p.name}", str(path))


def _as_input(p: Param, data: np.ndarray, length: int | None, what: str, origin: str) -> Any:
    """`data` as the parameter's argument: a scalar of its type, or a flat array of its dtype
    with the length the kernel needs."""
    if p.kind == "scalar":
        if data.size != 1:
            raise CompileError(f"{what}: a scalar parameter needs one value")
        return np.dtype(p.dtype).type(data.reshape(()))
    data = np.ascontiguousarray(data.reshape(-1)).astype(p.dtype, copy=False)
    if length is not None and data.size != length:
        raise CompileError(f"{what}: {origin} has {data.size} elements, the array needs "
                           f"{length}")
    return data


def fingerprint(args: Sequence[Any]) -> str:
    """A hash of the arguments (part of the cache context)."""
    h = hashlib.sha256()
    for a in args:
        arr = np.asarray(a)
        h.update(str(arr.dtype).encode() + str(arr.shape).encode())
        h.update(np.ascontiguousarray(arr).tobytes())
    return h.hexdigest()[:16]


def reduction_length(sizes: Mapping[str, Any], given: str | int | None,
                     inferred: int | None = None) -> int:
    """K in the tolerance formula: `--reduction-length EXPR`, else what the kernel's loops say
    (`inferred`), else the largest integer size (an over-estimate)."""
    if given is not None:
        try:
            value = expr.evaluate(str(given), sizes)
        except CompileError as e:
            raise CompileError(f"--reduction-length: {e.message}") from None
        return max(1, int(value))
    if inferred is not None:
        return max(1, int(inferred))
    ints = [int(v) for v in sizes.values()
            if is_integer(v) and not isinstance(v, bool)]
    return max([1, *ints])
