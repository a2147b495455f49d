"""The user's serial C compiled by gcc, called through ctypes: the ground truth.

The source is compiled exactly as the frontend reads it (the `#pragma omp` lines are ignored
without `-fopenmp`, so the loops run serially and in order), after a prelude that defines the
`min`/`max` the frontend accepts with the IR's meaning: C comparison on the operands' common
integer type (`minsi`/`minui`), `fmin`/`fmax` for floating point (`minnumf`/`maxnumf`), and
defines `static` and `inline` away, so that a `static` kernel and its helpers are exported.

Flags: `-O0 -ffp-contract=off -fno-fast-math` so every C operation is one IEEE operation
(no FMA contraction, no reassociation); `-fwrapv` so signed overflow wraps as the IR says;
`-fno-builtin` so math calls go to glibc's libm, as the interpreter's do (gcc would otherwise
fold calls on constants with its own correctly-rounded arithmetic). Shared objects are cached
by a hash of compiler, flags and source under `$AUTOGPU_CACHE` (default ~/.cache/autogpu).

`optimize=True` (the tuner's reference, `autogpu.tuner.reference`) builds with `-O2` and
`-fno-strict-aliasing` instead of `-O0`: the same IEEE operations in the same order (no
contraction, no reassociation without fast math), about twice as fast on large sizes.
`openmp=True` adds `-fopenmp`: gcc's libgomp runs the `#pragma omp` loops on every core (a
serial 2048^3 matmul takes 48 s on the GPU machine's host), which is the serial result when no
two iterations of a parallel loop touch one element (the tuner asks this only of loops the
dependence check proved so), up to the reassociation of floating-point reductions.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from autogpu.dialects.signature import CParameter, CSignature, c_type
from autogpu.numeric import is_boolean, is_integer, is_ndarray, is_number
from autogpu.runtime import cpu_exec
from autogpu.testing.c_signature import parse_c_signature

GCC_FLAGS = (
    "-O0", "-ffp-contract=off", "-fno-fast-math", "-fwrapv", "-fno-builtin",
    "-fPIC", "-shared", "-w",
)
OPTIMIZED_GCC_FLAGS = ("-O2", "-fno-strict-aliasing", *GCC_FLAGS[1:])

_INT_TYPES = ("int", "unsigned int", "long", "unsigned long", "long long", "unsigned long long")


def _min_max_prelude() -> str:
    lines = [f"#include <{header}.h>"
             for header in ("math", "stddef", "stdint", "stdbool", "stdlib")]  # fmt: skip
    for which, op in (("min", "<"), ("max", ">")):
        cases: list[str] = []
        for type_ in _INT_TYPES:
            suffix = type_.replace(" ", "_")
            lines.append(
                f"static inline {type_} __agpu_{which}_{suffix}({type_} a, {type_} b) "
                f"{{ return a {op} b ? a : b; }}"
            )
            cases.append(f"{type_}: __agpu_{which}_{suffix}")
        cases += [f"float: f{which}f", f"double: f{which}", f"long double: f{which}l"]
        lines.append(
            f"#define {which}(a, b) _Generic((a) + (b), {', '.join(cases)})((a), (b))"
        )
    # `static` and `inline` functions exported, so that ctypes finds kernels and helpers (the
    # subset has no static locals, and a file-scope static table means the same exported).
    lines += [f"#define {word}" for word in ("static", "inline", "__inline", "__inline__")]
    return "\n".join(lines) + "\n"


PRELUDE = _min_max_prelude()


class ReferenceCompileError(RuntimeError):
    """gcc rejected the source (the message holds its diagnostics)."""


def cache_dir() -> Path:
    path = cpu_exec.cache_dir("c_reference")
    path.mkdir(parents=True, exist_ok=True)
    return path


@functools.cache
def _gcc_version() -> str:
    return subprocess.run(
        ["gcc", "--version"], capture_output=True, text=True, check=True
    ).stdout.splitlines()[0]


def gcc_flags(optimize: bool = False, openmp: bool = False) -> tuple[str, ...]:
    flags = OPTIMIZED_GCC_FLAGS if optimize else GCC_FLAGS
    return (*flags, "-fopenmp") if openmp else flags


def gcc_version() -> str:
    """The first line of `gcc --version` (ReferenceCompileError where gcc cannot be run)."""
    try:
        return _gcc_version()
    except (OSError, subprocess.SubprocessError) as e:
        raise ReferenceCompileError(f"gcc cannot be run: {e}") from None


def compile_shared_object(source: str, filename: str = "kernel.c", optimize: bool = False,
                          openmp: bool = False) -> Path:
    """gcc's shared object for `source` (with the prelude), compiled once per distinct source."""
    flags = gcc_flags(optimize, openmp)
    full = PRELUDE + f'#line 1 "{filename}"\n' + source
    key = hashlib.sha256("\0".join([gcc_version(), *flags, full]).encode()).hexdigest()[:24]
    target = cache_dir() / f"{key}.so"
    if target.exists():
        return target
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        c_file = Path(tmp) / "kernel.c"
        c_file.write_text(full)
        built = Path(tmp) / "kernel.so"
        result = subprocess.run(
            ["gcc", *flags, "-o", str(built), str(c_file), "-lm"],
            capture_output=True, text=True, check=False,
        )
        if result.returncode != 0:
            raise ReferenceCompileError(f"gcc failed on {filename}:\n{result.stderr}")
        os.replace(built, target)  # atomic: concurrent test workers see whole files only
    return target


def _ctype(ctype: str):
    known = c_type(ctype)
    assert known is not None, f"the frontend's parser accepted C type '{ctype}'"
    return known.ctypes


class CReference:
    """A C function compiled by gcc. Call it with NumPy arrays (updated in place) and scalars
    in C parameter order, like `autogpu.interpreters.run_function`."""

    def __init__(self, library: Path, signature: CSignature):
        self.library = library
        self.signature = signature
        self._function = getattr(ctypes.CDLL(str(library)), signature.name)
        self._function.argtypes = [
            ctypes.c_void_p if p.is_array else p.type.ctypes for p in signature.params
        ]
        self._function.restype = None if signature.result is None else _ctype(signature.result)

    def _array(self, param: CParameter, value: Any) -> NDArray[Any]:
        if not is_ndarray(value):
            raise TypeError(f"{self.signature.name}: parameter {param.name} needs a NumPy array, "
                            f"got {type(value).__name__}")
        expected = param.dtype
        if value.dtype != expected and not (
            expected.kind in "iu" and value.dtype.kind in "iu"
            and value.dtype.itemsize == expected.itemsize
        ):
            raise TypeError(f"{self.signature.name}: parameter {param.name} ({param.ctype} *) "
                            f"needs a {expected} array, got {value.dtype}")
        return value

    def _scalar(self, param: CParameter, value: Any) -> Any:
        dtype = param.dtype
        if dtype.kind == "f":
            if not is_number(value):
                raise TypeError(f"{self.signature.name}: parameter {param.name} needs a number")
            return float(value)
        if dtype.kind == "b" and is_boolean(value):
            return bool(value)
        if not is_integer(value):
            raise TypeError(f"{self.signature.name}: parameter {param.name} needs an integer")
        bits = dtype.itemsize * 8
        if not -(1 << (bits - 1)) <= int(value) < 1 << bits:
            raise TypeError(f"{self.signature.name}: {value} does not fit in {param.ctype}")
        return int(value)

    def __call__(self, *args: Any) -> Any:
        params = self.signature.params
        if len(args) != len(params):
            raise TypeError(f"{self.signature.name} takes {len(params)} arguments, got {len(args)}")
        converted: list[Any] = []
        write_back: list[tuple[NDArray[Any], NDArray[Any]]] = []
        keep_alive: list[NDArray[Any]] = []
        for param, value in zip(params, args):
            if not param.is_array:
                converted.append(self._scalar(param, value))
                continue
            array = self._array(param, value)
            buffer = np.ascontiguousarray(array)  # a strided view goes through a copy
            if buffer is not array and not param.const:
                write_back.append((array, buffer))
            keep_alive.append(buffer)
            converted.append(buffer.ctypes.data)
        result = self._function(*converted)
        for array, buffer in write_back:
            array[...] = buffer
        return result


def compile_c_reference(source: str, function: str, filename: str = "kernel.c",
                        optimize: bool = False, openmp: bool = False) -> CReference:
    """`function` from the C `source`, compiled by gcc (cached), as a callable: serially, or
    with its OpenMP pragmas honoured (`openmp`)."""
    signature = parse_c_signature(source, function)
    return CReference(compile_shared_object(source, filename, optimize, openmp), signature)
