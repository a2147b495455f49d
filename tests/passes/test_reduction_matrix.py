"""OpenMP reductions, every operator x every arithmetic type x the update spellings, lowered by
both pipelines and run on the CPU emulation of CUDA (threads in a shuffled order), against gcc's
build of the same serial C, on inputs that break reductions: values above INT_MAX or 2^63,
negative values, all-equal values, NaN and -0.0, n = 0 and 1, sizes that are not a multiple of
the block, and start values that are not the operator's identity.

One compiled program per operator and pipeline holds a function per type and spelling, so the
matrix costs a few compiles. Sums and products are exact (integer-valued or power-of-two
floats), so every result is compared bit for bit, except the sign of a zero that min/max pick
between -0.0 and +0.0 (unspecified, as in C's fmin) and `&&`/`||` with n = 0 (OpenMP's
`s && ...` is 0 or 1 even when no iteration runs; gcc's OpenMP build is the reference there)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest
from lowered_differential import cuda_of, gcc_reference, one_translation_unit

from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.target.launch import launch_config
from autogpu.testing import compile_c_reference
from autogpu.testing.nvcc import assert_compiles_with_nvcc

TYPES = {
    "int": np.int32, "unsigned": np.uint32, "long": np.int64, "unsigned long": np.uint64,
    "long long": np.int64, "unsigned long long": np.uint64, "float": np.float32,
    "double": np.float64, "char": np.int8, "signed char": np.int8, "unsigned char": np.uint8,
    "short": np.int16, "unsigned short": np.uint16, "_Bool": np.bool_, "uint8_t": np.uint8,
}  # fmt: skip
"""`char` is signed (x86-64 gcc); the narrow types compute in `int` and wrap back on each
update, and their partial results fold into the variable by a CAS on its 32-bit word."""
FLOATS = ("float", "double")

# operator -> spelling -> update of `s` by `x[i]` ({call}: the C min/max function of the type)
UPDATES = {
    "+": {"op": "s += x[i];"},
    "-": {"op": "s -= x[i];"},
    "*": {"op": "s *= x[i];"},
    "&": {"op": "s &= x[i];"},
    "|": {"op": "s |= x[i];"},
    "^": {"op": "s ^= x[i];"},
    "&&": {"op": "s = s && x[i];"},
    "||": {"op": "s = x[i] || s;"},
    "min": {"ternary": "s = x[i] < s ? x[i] : s;", "if": "if (x[i] < s) s = x[i];",
            "call": "s = {call}(s, x[i]);"},
    "max": {"ternary": "s = s < x[i] ? x[i] : s;", "if": "if (s < x[i]) s = x[i];",
            "call": "s = {call}(x[i], s);"},
}  # fmt: skip
OPERATOR_NAMES = {"+": "add", "-": "sub", "*": "mul", "&": "and", "|": "or", "^": "xor",
                  "&&": "land", "||": "lor", "min": "min", "max": "max"}  # fmt: skip
PIPELINES = ["autogpu-vanilla{block_size=64}", "autogpu-optimize{block_size=32 unroll_x=2}",
             "autogpu-optimize{block_size=96 unroll_x=2 reduce_blocks=2 deterministic=true}"]
"""Blocks of two warps, one warp, three warps combining by shuffles (the last in a grid of at most
two blocks, looping over the rest, combined in a fixed order by the last block to finish)."""


def applies(op: str, ctype: str) -> bool:
    """Bitwise operators on floating point are refused (tests/frontend/test_diagnostics.py).
    `-` on a _Bool subtracts 0/1 values here (`x` is a _Bool array): the serial toggles."""
    return ctype not in FLOATS or op not in ("&", "|", "^")


def function_name(op: str, ctype: str, spelling: str) -> str:
    return f"r_{OPERATOR_NAMES[op]}_{ctype.replace(' ', '_').strip('_')}_{spelling}"


def min_max_call(op: str, ctype: str) -> str:
    return {"float": f"f{op}f", "double": f"f{op}"}.get(ctype, op)


def function(op: str, ctype: str, spelling: str) -> str:
    update = UPDATES[op][spelling].format(call=min_max_call(op, ctype))
    return (
        f"void {function_name(op, ctype, spelling)}(int n, const {ctype} *x, {ctype} *out, "
        f"{ctype} start) {{\n  {ctype} s = start;\n"
        f"#pragma omp parallel for reduction({op}: s)\n"
        f"  for (int i = 0; i < n; i++) {{\n    {update}\n  }}\n  out[0] = s;\n}}\n"
    )


@functools.cache
def source(op: str) -> str:
    return "\n".join(function(op, ctype, spelling) for ctype in TYPES if applies(op, ctype)
                     for spelling in UPDATES[op])  # fmt: skip


@functools.cache
def program(op: str, pipeline: str) -> CpuProgram:
    cuda = cuda_of(source(op), pipeline)
    return CpuProgram(cuda.source, cuda.launch, threads=1, thread_order="random", seed=7)


def inputs(op: str, ctype: str) -> list[tuple[np.ndarray, Any]]:
    """(x, start) cases for one operator and type."""
    dtype = np.dtype(TYPES[ctype])
    rng = np.random.default_rng(len(op) * 31 + len(ctype))
    cases: list[tuple[np.ndarray, Any]] = []
    if dtype.kind == "b":
        for n in (1000, 257, 65, 1, 0):
            for start in (False, True):
                for p in (0.02, 0.5, 0.98):
                    cases.append((rng.random(n) < p, np.bool_(start)))
        cases += [(np.ones(300, bool), np.bool_(True)), (np.zeros(300, bool), np.bool_(False))]
        return cases

    def add(values, start) -> None:
        if dtype.kind == "f":
            cases.append((np.asarray(values, dtype=dtype), dtype.type(start)))
            return
        # C's conversion of each value to the type: modulo 2^bits
        bits = np.dtype(f"u{dtype.itemsize}")
        wrapped = [int(v) % (1 << 8 * dtype.itemsize) for v in (*values, start)]
        array = np.array(wrapped, dtype=bits).view(dtype)
        cases.append((array[:-1].copy(), array[-1]))

    if dtype.kind == "f":
        if op == "*":  # powers of two: every order of the products is exact
            pool = [1.0, -1.0, 2.0, 0.5, -0.5, 1.0, -2.0]
        elif op in ("min", "max"):
            pool = [-3.5, 2.25, -0.0, 0.0, 1e30, -1e30, 7.0, np.nan]
        else:  # integer values: sums are exact in every order
            pool = [*list(range(-1000, 1001, 7)), 0.0, -0.0]
            if op in ("&&", "||"):
                pool += [np.nan, 0.0, 0.0, 0.0]
        for n in (1000, 257, 65):
            add(rng.choice(pool, n), 3.0)
        add([-0.0] * 70, -0.0)
        add([], -0.0)
        add([], 5.0)
        add([2.0] * 129, 2.0)
        add([-7.0], 1.0)
        add(np.zeros(100), 0.0)
        add(np.array([0.0] * 50 + [0.25] + [0.0] * 30), 1.0)
        return cases
    info = np.iinfo(dtype)
    big = [info.max, info.max - 1, info.min, info.min + 1, 3000000000, 5, 0, 1, 2, 7]
    if op == "*":  # odd values keep the wrapped product from collapsing to 0
        pool = [1, 3, -1, 5, 7, info.max, info.min + 1, 2]
    elif op in ("&&", "||"):
        pool = [0, 1, 2, info.max, info.min, 0, 0]
    else:
        pool = big + list(range(-50, 50))
    for n in (1000, 257, 65):
        add([pool[k] for k in rng.integers(0, len(pool), n)], 7)
    add([3000000000, 5], 0)
    add([info.max] * 130, info.max)
    add([info.min] * 3, 11)
    add([], 5)
    add([], 0)
    add([9], 1)
    add([1] * 200, 1)
    add([0] + [1] * 199, 1)
    add([0] * 199 + [4], 0)
    add(np.arange(1, 300), 2)
    return cases


def same(actual: Any, expected: Any, op: str) -> bool:
    if isinstance(expected, np.floating):
        if np.isnan(expected):
            return bool(np.isnan(actual))
        if op in ("min", "max"):
            return bool(actual == expected)  # -0.0 or +0.0: either
        return actual.tobytes() == expected.tobytes()
    return actual == expected


@pytest.mark.parametrize("pipeline", PIPELINES, ids=["vanilla", "optimize", "deterministic"])
@pytest.mark.parametrize(
    "op, ctype", [(op, ctype) for op in UPDATES for ctype in TYPES if applies(op, ctype)]
)
def test_reduction_matches_gcc(op, ctype, pipeline):
    runner = program(op, pipeline)
    failures = []
    for spelling in UPDATES[op]:
        name = function_name(op, ctype, spelling)
        serial = gcc_reference(source(op), name)
        for x, start in inputs(op, ctype):
            out, expected = np.zeros(1, x.dtype), np.zeros(1, x.dtype)
            reference = serial
            if op in ("&&", "||") and len(x) == 0:
                reference = openmp_reference(source(op), name)
            reference(len(x), x.copy(), expected, start)
            runner.run(name, len(x), x.copy(), out, start)
            if not same(out[0], expected[0], op):
                failures.append(f"{name} n={len(x)} start={start!r} x[:6]={x[:6]}: "
                                f"{out[0]!r} instead of {expected[0]!r}")  # fmt: skip
    assert not failures, "\n".join(failures[:10])


@functools.cache
def openmp_reference(source_text: str, name: str):
    """gcc's OpenMP build: OpenMP's result where it differs from the serial loop."""
    return compile_c_reference(source_text, name, openmp=True)


def test_logical_start_values_follow_openmp():
    """`s && ...` with s = 5 and no iteration: OpenMP (and gcc -fopenmp) give 1, the serial loop
    keeps 5; autogpu gives OpenMP's 1 (documented in docs/ir.md)."""
    name = function_name("&&", "int", "op")
    empty, out = np.zeros(0, np.int32), np.zeros(1, np.int32)
    openmp_reference(source("&&"), name)(0, empty, out, np.int32(5))
    assert out[0] == 1
    program("&&", PIPELINES[0]).run(name, 0, empty, out, np.int32(5))
    assert out[0] == 1


@pytest.mark.parametrize("op", list(UPDATES))
def test_reductions_compile_with_nvcc(op):
    """The CUDA of every type and spelling of one operator, from every pipeline, in one nvcc
    run."""
    assert_compiles_with_nvcc(one_translation_unit([cuda_of(source(op), p) for p in PIPELINES]))


NESTS = """
void nest2(int n, int m, const unsigned *x, const float *y, unsigned *hi, int *all) {
  unsigned best = 0u;
  int positive = 1;
#pragma omp parallel for collapse(2) reduction(max: best) reduction(&&: positive)
  for (int j = 0; j < m; j++)
    for (int i = 0; i < n; i++) {
      best = x[j * n + i] > best ? x[j * n + i] : best;
      positive = positive && y[j * n + i] > 0.0f;
    }
  hi[0] = best;
  all[0] = positive;
}
void nest3(long n, const unsigned long *x, const double *y, const int *z, unsigned long *lo,
           double *any, int *bits) {
  unsigned long least = 18446744073709551615ul;
  double seen = 0.0;
  int parity = 5;
#pragma omp parallel for collapse(3) reduction(min: least) reduction(||: seen) reduction(^: parity)
  for (long k = 0; k < n; k++)
    for (long j = 0; j < n; j++)
      for (long i = 0; i < n; i++) {
        long at = (k * n + j) * n + i;
        if (x[at] < least) least = x[at];
        seen = seen || y[at];
        parity ^= z[at];
      }
  lo[0] = least;
  any[0] = seen;
  bits[0] = parity;
}
void nested(int n, int m, const unsigned *x, unsigned *out) {
  unsigned top = 1u;
#pragma omp parallel for reduction(max: top)
  for (int j = 0; j < m; j++) {
#pragma omp parallel for reduction(max: top)
    for (int i = 0; i < n; i++)
      top = top < x[j * n + i] ? x[j * n + i] : top;
  }
  out[0] = top;
}
"""
"""Reductions of the new kinds over 2D and 3D nests (collapse, and a parallel loop inside a
parallel loop), several clauses on one loop."""


def unsigned_values(rng, dtype, size: int) -> np.ndarray:
    high = np.iinfo(dtype).max
    values = rng.integers(0, high, size, dtype=dtype, endpoint=True)
    values[rng.random(size) < 0.3] = 5
    return values


@pytest.mark.parametrize("pipeline", [*PIPELINES, "autogpu-vanilla{block_size=24 block_y=4}"],
                         ids=["vanilla", "optimize", "deterministic", "vanilla-2d-blocks"])  # fmt: skip
def test_reductions_over_nests_and_several_clauses(pipeline):
    cuda = cuda_of(NESTS, pipeline)
    runner = CpuProgram(cuda.source, cuda.launch, threads=1, thread_order="reverse")
    rng = np.random.default_rng(3)
    for n, m in ((37, 9), (1, 1), (0, 4), (64, 3)):
        size = max(n * m, 1)
        y = rng.choice(np.array([1.5, 2.0, -1.0, 3.0], np.float32), size)
        if n == 64:
            y[:] = 1.0  # all positive
        args = [n, m, unsigned_values(rng, np.uint32, size), y, np.zeros(1, np.uint32),
                np.zeros(1, np.int32)]  # fmt: skip
        agree(runner, "nest2", args)
        agree(runner, "nested", [n, m, args[2], np.zeros(1, np.uint32)])
    for n in (7, 1, 0, 5):
        size = max(n**3, 1)
        y = np.zeros(size) if n == 5 else rng.choice(np.array([0.0, 0.0, 0.0, np.nan]), size)
        z = rng.integers(-(2**31), 2**31, size, dtype=np.int32)
        args = [n, unsigned_values(rng, np.uint64, size), y, z, np.zeros(1, np.uint64),
                np.zeros(1), np.zeros(1, np.int32)]  # fmt: skip
        agree(runner, "nest3", args)


def agree(runner: CpuProgram, name: str, args: list[Any]) -> None:
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    actual = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    gcc_reference(NESTS, name)(*expected)
    runner.run(name, *actual)
    for a, e in zip(actual, expected):
        if isinstance(e, np.ndarray):
            np.testing.assert_array_equal(a, e, err_msg=f"{name}{tuple(args[:2])}")


# ---- array reductions -------------------------------------------------------------------------
# `reduction(op: h[1:7])` on `h[9]`: every operator x type x spelling (`s` spelled `h[b[i]]`),
# each strategy of convert-agpu-to-gpu's `array_reduction` under a pipeline, incoming values
# that are not the identity in every element, and `h[0]`, `h[8]` (outside the section) kept.

SECTION_LO, SECTION_LEN, ARRAY_LEN = 1, 7, 9
ARRAY_TYPES = [t for t in TYPES if t != "_Bool"]
"""Arrays of every type but _Bool (refused: tests/frontend); the 8- and 16-bit elements update
their copies and merge into the array by a CAS on the aligned 32-bit word holding them."""
STRATEGY_PIPELINES = {
    "registers": "autogpu-vanilla{block_size=64 array_reduction=registers}",
    "shared": "autogpu-optimize{block_size=32 unroll_x=2 array_reduction=shared}",
    "global": "autogpu-vanilla{block_size=64 array_reduction=global}",
    "partials": "autogpu-optimize{block_size=32 unroll_x=2 array_reduction=partials}",
}


def array_function(op: str, ctype: str, spelling: str) -> str:
    update = UPDATES[op][spelling].format(call=min_max_call(op, ctype)).replace("s", "h[b[i]]")
    return (
        f"void a{function_name(op, ctype, spelling)}(int n, const {ctype} *x, const int *b, "
        f"{ctype} h[{ARRAY_LEN}]) {{\n"
        f"#pragma omp parallel for reduction({op}: h[{SECTION_LO}:{SECTION_LEN}])\n"
        f"  for (int i = 0; i < n; i++) {{\n    {update}\n  }}\n}}\n"
    )


@functools.cache
def array_source(op: str) -> str:
    return "\n".join(array_function(op, ctype, spelling) for ctype in ARRAY_TYPES
                     if applies(op, ctype) for spelling in UPDATES[op])  # fmt: skip


@functools.cache
def array_program(op: str, strategy: str) -> CpuProgram:
    cuda = cuda_of(array_source(op), STRATEGY_PIPELINES[strategy])
    return CpuProgram(cuda.source, cuda.launch, threads=1, thread_order="random", seed=11)


def same_arrays(actual: np.ndarray, expected: np.ndarray, op: str) -> bool:
    return all(same(a, e, op) for a, e in zip(actual, expected))


@pytest.mark.parametrize("strategy", list(STRATEGY_PIPELINES))
@pytest.mark.parametrize(
    "op, ctype", [(op, ctype) for op in UPDATES for ctype in ARRAY_TYPES if applies(op, ctype)]
)
def test_array_section_reduction_matches_gcc(op, ctype, strategy):
    """`&&`/`||` against gcc -fopenmp: OpenMP's result is 0 or 1 in every element of the
    section, also one no iteration updates (the serial loop keeps its value)."""
    runner = array_program(op, strategy)
    rng = np.random.default_rng(5)
    failures = []
    for spelling in UPDATES[op]:
        name = "a" + function_name(op, ctype, spelling)
        reference = (openmp_reference if op in ("&&", "||") else gcc_reference)(
            array_source(op), name)  # fmt: skip
        for x, start in inputs(op, ctype):
            bins = rng.integers(SECTION_LO, SECTION_LO + SECTION_LEN, len(x)).astype(np.int32)
            h = np.full(ARRAY_LEN, start, x.dtype)
            h[0], h[-1] = x.dtype.type(42), x.dtype.type(43)  # outside the section
            expected, actual = h.copy(), h.copy()
            reference(len(x), x.copy(), bins, expected)
            runner.run(name, len(x), x.copy(), bins, actual)
            if not same_arrays(actual, expected, op):
                failures.append(f"{name} n={len(x)} start={start!r}: {actual} instead of "
                                f"{expected}")  # fmt: skip
    assert not failures, "\n".join(failures[:10])


HISTOGRAM_TYPES = ("int", "unsigned", "long", "float", "double")
HISTOGRAM_BINS = (1, 7, 256, 5000)
HISTOGRAMS = "\n".join(
    f"void hist_{t.replace(' ', '_')}_{k}(int n, const int *x, const {t} *w, {t} h[{k}]) {{\n"
    f"#pragma omp parallel for reduction(+: h)\n"
    f"  for (int i = 0; i < n; i++)\n    h[(unsigned)x[i] % {k}u] += w[i];\n}}\n"
    for t in HISTOGRAM_TYPES for k in HISTOGRAM_BINS
)  # fmt: skip
"""Histograms of K bins over the whole array (`reduction(+: h)` on `T h[K]`): `auto` keeps 1
and 7 bins in registers, 256 in shared memory, 5000 in shared memory or (double) global."""


@pytest.mark.parametrize("strategy", ["auto", "registers", "shared", "global", "partials"])
@pytest.mark.parametrize("pipeline", PIPELINES[:2], ids=["vanilla", "optimize"])
def test_histograms_match_gcc(pipeline, strategy):
    cuda = cuda_of(HISTOGRAMS, pipeline.replace("}", f" array_reduction={strategy}}}"))
    runner = CpuProgram(cuda.source, cuda.launch, threads=1, thread_order="random", seed=3)
    rng = np.random.default_rng(1)
    for t in HISTOGRAM_TYPES:
        dtype = TYPES[t]
        for k in HISTOGRAM_BINS:
            name = f"hist_{t}_{k}"
            for n in (0, 1, 300, 3000):
                x = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
                w = rng.integers(0, 5, n).astype(dtype)  # exact sums in every order
                h = rng.integers(0, 9, k).astype(dtype)  # incoming counts
                expected, actual = h.copy(), h.copy()
                gcc_reference(HISTOGRAMS, name)(n, x, w, expected)
                runner.run(name, n, x, w, actual)
                np.testing.assert_array_equal(actual, expected, err_msg=f"{name} n={n}")


COLUMN_SUMS = """
void column_sums(int m, int n, const double A[m][n], double *cs) {
#pragma omp parallel for reduction(+: cs[0:n])
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      cs[j] += A[i][j];
}
void column_sums_24(int m, const float A[m][24], float cs[24]) {
#pragma omp parallel for reduction(+: cs)
  for (int i = 0; i < m; i++)
    for (int j = 0; j < 24; j++)
      cs[j] += A[i][j];
}
void column_products(int m, int n, const long *A, long *cs) {
#pragma omp parallel for reduction(*: cs[:n])
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      cs[j] *= A[i * n + j];
}
"""
"""Column sums of non-square matrices: a parameter-length section (global atomics), a
fixed-size one (every strategy) and a product."""


@pytest.mark.parametrize("strategy", ["auto", "registers", "shared", "global", "partials"])
@pytest.mark.parametrize("pipeline", PIPELINES[:2], ids=["vanilla", "optimize"])
def test_column_sums_match_gcc(pipeline, strategy):
    cuda = cuda_of(COLUMN_SUMS, pipeline.replace("}", f" array_reduction={strategy}}}"))
    runner = CpuProgram(cuda.source, cuda.launch, threads=1, thread_order="random", seed=5)
    rng = np.random.default_rng(2)
    for m, n in ((0, 5), (1, 65), (65, 1), (1000, 65), (3, 1000), (65, 0)):
        cases = (("column_sums", np.float64, (m, n), n, range(-8, 9)),
                 ("column_sums_24", np.float32, (m,), 24, range(-8, 9)),
                 ("column_products", np.int64, (m, n), n, (1, -1)))  # no overflow in C
        for name, dtype, scalars, cols, pool in cases:
            a = rng.choice(list(pool), m * cols).astype(dtype)
            cs = rng.integers(-3, 4, cols).astype(dtype)
            expected, actual = cs.copy(), cs.copy()
            gcc_reference(COLUMN_SUMS, name)(*scalars, a, expected)
            runner.run(name, *scalars, a, actual)
            np.testing.assert_array_equal(actual, expected, err_msg=f"{name} m={m} n={n}")


@pytest.mark.parametrize("op", list(UPDATES))
def test_array_reductions_compile_with_nvcc(op):
    """Every strategy's CUDA of one operator's sections, and the histograms, in one nvcc run."""
    sources = [cuda_of(array_source(op), p) for p in STRATEGY_PIPELINES.values()]
    if op == "+":
        sources += [cuda_of(HISTOGRAMS + COLUMN_SUMS, f"autogpu-vanilla{{array_reduction={s}}}")
                    for s in ("registers", "shared", "global", "partials")]  # fmt: skip
    assert_compiles_with_nvcc(one_translation_unit(sources))


# ---- parameter-length sections ----------------------------------------------------------------
# `reduction(op: h[1:K])` with `int K` a parameter: its copy in dynamic shared memory where K fits
# the budget (array_reductions.py), the array's atomics where it does not. K = 0, 1, 7 (no
# divisor of the block), 4097 (fits 4-byte elements, not 8-byte ones) and 8193 (fits none: the
# fallback), each in a grid whose blocks run in a shuffled order, against gcc.

PARAMETER_LENGTHS = (0, 1, 7, 4097, 8193)
PARAMETER_PIPELINES = {
    "auto": "autogpu-vanilla{block_size=64}",
    "shared": "autogpu-optimize{block_size=32 unroll_x=2 array_reduction=shared}",
    "global": "autogpu-vanilla{block_size=64 array_reduction=global}",
    "partials": "autogpu-vanilla{block_size=64 array_reduction=partials}",
}


def parameter_function(op: str, ctype: str, spelling: str) -> str:
    update = UPDATES[op][spelling].format(call=min_max_call(op, ctype)).replace("s", "h[b[i]]")
    return (
        f"void p{function_name(op, ctype, spelling)}(int n, int K, const {ctype} *x, "
        f"const int *b, {ctype} *h) {{\n"
        f"#pragma omp parallel for reduction({op}: h[1:K])\n"
        f"  for (int i = 0; i < n; i++) {{\n    {update}\n  }}\n}}\n"
    )


@functools.cache
def parameter_source(op: str) -> str:
    return "\n".join(parameter_function(op, ctype, spelling) for ctype in ARRAY_TYPES
                     if applies(op, ctype) for spelling in UPDATES[op])  # fmt: skip


@functools.cache
def parameter_program(op: str, strategy: str, seed: int) -> CpuProgram:
    cuda = cuda_of(parameter_source(op), PARAMETER_PIPELINES[strategy])
    return CpuProgram(cuda.source, cuda.launch, threads=1, thread_order="random", seed=seed)


@pytest.mark.parametrize("strategy", list(PARAMETER_PIPELINES))
@pytest.mark.parametrize(
    "op, ctype", [(op, ctype) for op in UPDATES for ctype in ARRAY_TYPES if applies(op, ctype)]
)
def test_parameter_length_sections_match_gcc(op, ctype, strategy):
    runner = parameter_program(op, strategy, 13)
    rng = np.random.default_rng(17)
    failures = []
    for spelling in UPDATES[op]:
        name = "p" + function_name(op, ctype, spelling)
        reference = gcc_reference(parameter_source(op), name)
        cases = inputs(op, ctype)
        for k in PARAMETER_LENGTHS:
            for x, start in cases if k < 10 else cases[:3]:
                bins = rng.integers(1, k + 1, len(x)).astype(np.int32) if k else (
                    np.zeros(len(x), np.int32))  # K = 0: every update outside the section
                h = np.full(k + 2, start, x.dtype)
                h[0], h[-1] = x.dtype.type(42), x.dtype.type(43)  # outside the section
                expected, actual = h.copy(), h.copy()
                reference(len(x), k, x.copy(), bins, expected)
                if op in ("&&", "||"):  # OpenMP's section holds 0 or 1, updated or not (gcc
                    expected[1:k + 1] = expected[1:k + 1] != 0  # -fopenmp crashes at K=8193)
                runner.run(name, len(x), k, x.copy(), bins, actual)
                if not same_arrays(actual, expected, op):
                    failures.append(f"{name} K={k} n={len(x)} start={start!r}")
    assert not failures, "\n".join(failures[:10])


PARAMETER_HISTOGRAMS = "\n".join(
    f"void phist_{t.replace(' ', '_')}(int n, int K, const int *x, const {t} *w, {t} h[K]) {{\n"
    f"#pragma omp parallel for reduction(+: h)\n"
    f"  for (int i = 0; i < n; i++)\n    h[(unsigned)x[i] % (unsigned)K] += w[i];\n}}\n"
    for t in ("int", "unsigned", "long", "unsigned long", "float", "double")
)  # fmt: skip
"""Whole parameter-sized arrays (`reduction(+: h)` on `T h[K]`), weights above INT_MAX in the
64-bit types."""


@pytest.mark.parametrize("strategy", list(PARAMETER_PIPELINES))
def test_parameter_sized_histograms_match_gcc(strategy):
    cuda = cuda_of(PARAMETER_HISTOGRAMS, PARAMETER_PIPELINES[strategy])
    rng = np.random.default_rng(4)
    for seed in (1, 2):  # two shuffles of the blocks
        runner = CpuProgram(cuda.source, cuda.launch, threads=1, thread_order="random",
                            seed=seed)  # fmt: skip
        for t in ("int", "unsigned", "long", "unsigned long", "float", "double"):
            dtype = np.dtype(TYPES[t])
            for k in (1, 7, 1000, 4097, 8193):
                for n in (0, 1, 3000):
                    x = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
                    top = 3_000_000_000 if dtype.itemsize == 8 and dtype.kind != "f" else 5
                    w = rng.integers(0, top, n).astype(dtype)  # exact sums in every order
                    h = rng.integers(0, 9, k).astype(dtype)
                    expected, actual = h.copy(), h.copy()
                    gcc_reference(PARAMETER_HISTOGRAMS, f"phist_{t.replace(' ', '_')}")(
                        n, k, x, w, expected)  # fmt: skip
                    runner.run(f"phist_{t.replace(' ', '_')}", n, k, x, w, actual)
                    np.testing.assert_array_equal(actual, expected, err_msg=f"{t} K={k} n={n}")


def test_parameter_length_section_launch_asks_for_its_copy():
    """The launch description's dynamic shared bytes: K elements where they fit, none beyond."""
    cuda = cuda_of(PARAMETER_HISTOGRAMS, PARAMETER_PIPELINES["auto"])

    def shared_bytes(function: str, k: int) -> int:
        (entry,) = [f for f in cuda.launch["functions"] if f["name"] == function]
        (launch,) = entry["launches"]
        return launch_config(launch, {"n": 100, "K": k})[2]

    assert shared_bytes("phist_double", 4096) == 4096 * 8
    assert shared_bytes("phist_double", 4097) == 0
    assert shared_bytes("phist_int", 8192) == 8192 * 4
    assert shared_bytes("phist_int", 0) == 0
    assert "extern __shared__" not in cuda_of(PARAMETER_HISTOGRAMS, PARAMETER_PIPELINES["global"]
                                              ).source  # fmt: skip


def test_parameter_length_sections_compile_with_nvcc():
    sources = [cuda_of(parameter_source(op), pipeline) for op in ("+", "min", "&&")
               for pipeline in PARAMETER_PIPELINES.values()]  # fmt: skip
    sources.append(cuda_of(PARAMETER_HISTOGRAMS, PARAMETER_PIPELINES["auto"]))
    assert_compiles_with_nvcc(one_translation_unit(sources))
