"""Every `<math.h>` function of the subset (autogpu/dialects/c_math.py), float and double forms,
the classification macros and abs/labs/llabs, against gcc's build that calls glibc's libm.

One kernel per function and form: the frontend's IR on the reference interpreter and the CUDA
of the vanilla pipeline on the CPU emulation (both call glibc, as gcc's build does) agree with
gcc within the function's tolerance; nvcc compiles the CUDA; on a GPU, CUDA's device library
agrees with gcc within the tolerance too.

The tolerance of a function is the maximum ulp error the CUDA C++ Programming Guide states for
its device form (the `ulp_float`/`ulp_double` of the table, shown next to the tolerance in each
failure), plus one ulp where that bound is not 0: glibc's result, the reference, is not correctly
rounded either (its manual lists up to 1-2 ulps for these functions). Functions CUDA computes
exactly (bound 0: rounding, fmod, fma, ...) must agree bit for bit.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest
from lowered_differential import cuda_of, gcc_reference, parsed_c

from autogpu.dialects import c_math
from autogpu.interpreters import run_function
from autogpu.runtime import cuda_exec
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.testing import copy_args
from autogpu.testing.nvcc import assert_compiles_with_nvcc

N = 96

# Input ranges (x, and y/z for more arguments) inside each function's domain, and, for lgamma,
# outside the intervals where CUDA states no bound.
DOMAINS: dict[str, tuple[float, float]] = {
    "sqrt": (0, 1e4), "log": (1e-3, 1e4), "log2": (1e-3, 1e4), "log10": (1e-3, 1e4),
    "log1p": (-0.99, 1e3), "logb": (1e-3, 1e4), "ilogb": (1e-3, 1e4),
    "asin": (-1, 1), "acos": (-1, 1), "atanh": (-0.99, 0.99), "acosh": (1, 1e3),
    "pow": (0.01, 10), "exp": (-30, 30), "exp2": (-30, 30), "expm1": (-30, 30),
    "sinh": (-30, 30), "cosh": (-30, 30), "tgamma": (0.05, 30), "lgamma": (-2.2, 1e3),
    "fmod": (0.5, 50), "remainder": (0.5, 50), "lround": (-1e6, 1e6), "llround": (-1e6, 1e6),
    "lrint": (-1e6, 1e6), "llrint": (-1e6, 1e6),
}  # fmt: skip
_INTEGER_C = {"int": "int", "long": "long"}
_SPECIALS = (0.0, -0.0, np.inf, -np.inf, np.nan)


@functools.cache
def source() -> str:
    """One kernel `t_NAME` per function and form, the classification macros and abs."""
    kernels: list[str] = []
    for function in c_math.MATH_FUNCTIONS.values():
        for single in (True, False):
            name = function.c_name(single)
            floating = "float" if single else "double"
            arguments: list[str] = []
            for position, kind in enumerate(function.params):
                if kind == c_math.FLOATING:
                    arguments.append(f"{'xyz'[position]}[i]")
                else:
                    arguments.append("e[i]" if kind == "int" else "l[i]")
            result = floating if function.result == c_math.FLOATING else _INTEGER_C[function.result]
            kernels.append(_kernel(name, floating, result, f"{name}({', '.join(arguments)})"))
    for name in c_math.CLASSIFICATION:
        kernels.append(_kernel(f"{name}_f", "float", "int", f"{name}(x[i])"))
        kernels.append(_kernel(f"{name}_d", "double", "int", f"{name}(x[i])"))
    kernels.append(_kernel("abs", "float", "int", "abs(e[i])"))
    kernels.append(_kernel("labs", "float", "long", "labs(l[i]) + llabs(l[i] - 1)"))
    return "#include <math.h>\n#include <stdlib.h>\n" + "\n".join(kernels)


def _kernel(name: str, floating: str, result: str, expression: str) -> str:
    return (
        f"void t_{name}(int n, const {floating} *x, const {floating} *y, const {floating} *z, "
        f"const int *e, const long *l, {result} *out) {{\n"
        "#pragma omp parallel for\n"
        f"  for (int i = 0; i < n; i++)\n    out[i] = {expression};\n}}\n"
    )


def kernels() -> list[tuple[str, c_math.MathFunction | None, bool]]:
    """(kernel, its table entry or None, float form?) of every kernel of `source`."""
    found: list[tuple[str, c_math.MathFunction | None, bool]] = []
    for function in c_math.MATH_FUNCTIONS.values():
        found += [(f"t_{function.c_name(s)}", function, s) for s in (True, False)]
    for name in c_math.CLASSIFICATION:
        found += [(f"t_{name}_f", None, True), (f"t_{name}_d", None, False)]
    return [*found, ("t_abs", None, True), ("t_labs", None, True)]


def arguments(kernel: str, function: c_math.MathFunction | None, single: bool, seed: int):
    rng = np.random.default_rng(seed)
    dtype = np.float32 if single else np.float64
    low, high = DOMAINS.get(function.name, (-10, 10)) if function else (-1e3, 1e3)
    floats = [rng.uniform(low, high, N).astype(dtype) for _ in range(3)]
    if function is None or function.result == c_math.FLOATING:
        for values in floats[:1] if function else floats:
            values[: len(_SPECIALS)] = _SPECIALS  # NaN, infinities and signed zeros
    e = rng.integers(-40, 40, N).astype(np.int32)
    e[:2] = np.iinfo(np.int32).min + 1, np.iinfo(np.int32).max
    ints = rng.integers(-(1 << 40), 1 << 40, N).astype(np.int64)
    ints[0] = np.iinfo(np.int64).max
    if function is None or function.result == c_math.FLOATING:
        out = np.zeros(N, dtype)
    else:
        out = np.zeros(N, np.int32 if function.result == "int" else np.int64)
    if kernel in ("t_abs", "t_labs") or kernel.startswith(c_math.CLASSIFICATION, 2):
        out = np.zeros(N, np.int64 if kernel == "t_labs" else np.int32)
    return [N, *floats, e, ints, out]


GLIBC_ULPS = {("cbrt", False): 4}
"""glibc's own error where it exceeds 1 ulp (its sysdeps/x86_64/fpu/libm-test-ulps): the two
libraries are each within their bound of the true value, so of each other within the sum."""


def tolerance(function: c_math.MathFunction | None, single: bool) -> int:
    """The ulps allowed: CUDA's stated bound plus glibc's own error (1 unless `GLIBC_ULPS`
    says more) where CUDA's bound is not 0 (exact functions must agree bit for bit)."""
    if function is None:
        return 0
    bound = function.ulp_float if single else function.ulp_double
    return bound + GLIBC_ULPS.get((function.name, single), 1) if bound else 0


def ulp_distance(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """How many representable values lie between each pair (0 for two NaNs)."""
    bits = np.int32 if actual.dtype == np.float32 else np.int64

    def ordered(values: np.ndarray) -> np.ndarray:
        raw = values.view(bits).astype(np.int64)
        return np.where(raw < 0, np.iinfo(bits).min - raw, raw)

    distance = np.abs(ordered(actual).astype(object) - ordered(expected).astype(object))
    both_nan = np.isnan(actual) & np.isnan(expected)
    return np.where(both_nan, 0, distance).astype(np.float64)


def assert_within(
    kernel: str, function: c_math.MathFunction | None, single: bool, actual: list[Any],
    expected: list[Any],
) -> None:
    got, want = actual[-1], expected[-1]
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want, err_msg=kernel)
        return
    allowed = tolerance(function, single)
    distance = ulp_distance(got, want)
    worst = int(np.argmax(distance))
    bound = "" if function is None else (
        f" (CUDA's bound: {function.ulp_float if single else function.ulp_double} ulp"
        f"{', ' + function.bounded_range if function.bounded_range else ''})"
    )
    assert distance[worst] <= allowed, (
        f"{kernel}: {got[worst]!r} vs gcc's {want[worst]!r} at x = {actual[1][worst]!r}: "
        f"{distance[worst]:.0f} ulp, tolerance {allowed}{bound}"
    )


def test_the_table_covers_c99_math_h():
    """The C99 functions CUDA provides, except those that store through a pointer."""
    expected = {
        "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "copysign",
        "cos", "cosh", "erf", "erfc", "exp", "exp2", "expm1", "fabs", "fdim", "floor", "fma",
        "fmax", "fmin", "fmod", "hypot", "ilogb", "ldexp", "lgamma", "llrint", "llround", "log",
        "log10", "log1p", "log2", "logb", "lrint", "lround", "nearbyint", "nextafter", "pow",
        "remainder", "rint", "round", "scalbln", "scalbn", "sin", "sinh", "sqrt", "tan", "tanh",
        "tgamma", "trunc",
    }  # fmt: skip
    assert set(c_math.MATH_FUNCTIONS) == expected
    assert set(c_math.REFUSED) >= {"frexp", "modf", "remquo", "nan"}


@pytest.mark.parametrize("kernel, function, single", kernels(), ids=[k for k, _, _ in kernels()])
def test_interpreter_agrees_with_gcc(
    kernel: str, function: c_math.MathFunction | None, single: bool
):
    for seed in (0, 1):
        args = arguments(kernel, function, single, seed)
        expected, actual = copy_args(args), copy_args(args)
        gcc_reference(source(), kernel)(*expected)
        run_function(parsed_c(source()), kernel, actual)
        assert_within(kernel, function, single, actual, expected)


@functools.cache
def program():
    return cuda_of(source(), "autogpu-vanilla{block_size=32}")


def test_cuda_on_the_emulation_agrees_with_gcc():
    runner = CpuProgram(program().source, program().launch, threads=2)
    for kernel, function, single in kernels():
        args = arguments(kernel, function, single, 2)
        expected, actual = copy_args(args), copy_args(args)
        gcc_reference(source(), kernel)(*expected)
        runner.run(kernel, *actual)
        assert_within(kernel, function, single, actual, expected)


def test_nvcc_compiles_every_function():
    assert_compiles_with_nvcc(program().source, allow_warnings=False)


NO_GPU = cuda_exec.gpu_unavailable_reason()


@pytest.mark.skipif(NO_GPU is not None, reason=f"needs a CUDA GPU: {NO_GPU}")
def test_cuda_device_library_agrees_with_gcc_within_its_bounds():
    gpu = cuda_exec.CudaProgram(program().source, program().launch, fmad=False)
    outside: list[str] = []  # every function checked, so one run names all that disagree
    for kernel, function, single in kernels():
        args = arguments(kernel, function, single, 3)
        expected, actual = copy_args(args), copy_args(args)
        gcc_reference(source(), kernel)(*expected)
        gpu.run(kernel, *actual)
        try:
            assert_within(kernel, function, single, actual, expected)
        except AssertionError as e:
            outside.append(str(e).splitlines()[0])
    assert not outside, "\n".join(outside)
