"""The gcc reference runner, the C signature parser, random inputs and exact comparison."""

from __future__ import annotations

import math
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import f32, f64, i32, i64
from xdsl.parser import Parser

from autogpu.context import make_context
from autogpu.diagnostics import CompileError
from autogpu.testing import (
    CParameter,
    ReferenceCompileError,
    assert_same_outputs,
    compile_c_reference,
    copy_args,
    dtype_of_ctype,
    first_difference,
    gcc_reference,
    parse_c_signature,
    random_args,
    signature_of,
)


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AUTOGPU_CACHE", str(tmp_path / "cache"))


SAXPY = """
// y = a * x + y
void saxpy(int n, float a, const float *restrict x, float *restrict y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}
"""


def test_saxpy_matches_numpy_float32_bitwise():
    saxpy = compile_c_reference(SAXPY, "saxpy")
    n, a, x, y = random_args(saxpy.signature, {"n": 33, "a": 0.75, "x": 33, "y": 33}, seed=3)
    expected = np.float32(a) * x + y
    assert saxpy(n, a, x, y) is None
    assert first_difference(y, expected) is None


def test_strided_views_are_written_back():
    saxpy = compile_c_reference(SAXPY, "saxpy")
    base = np.zeros(8, np.float32)
    saxpy(4, 2.0, np.ones(4, np.float32), base[::2])
    assert base.tolist() == [2, 0, 2, 0, 2, 0, 2, 0]


JACOBI = """
void jacobi2d(int n, int m, const double in[n][m], double out[n][m]) {
#pragma omp parallel for collapse(2)
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++)
      out[i][j] = 0.25 * (in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1]);
}
"""


def test_c99_array_parameters_take_2d_numpy_arrays():
    jacobi = compile_c_reference(JACOBI, "jacobi2d")
    n, m, grid, out = random_args(jacobi.signature, {"n": 6, "m": 5, "in": (6, 5), "out": (6, 5)})
    before = out.copy()
    jacobi(n, m, grid, out)
    expected = before.copy()
    expected[1:-1, 1:-1] = 0.25 * (
        ((grid[:-2, 1:-1] + grid[2:, 1:-1]) + grid[1:-1, :-2]) + grid[1:-1, 2:]
    )
    assert first_difference(out, expected) is None
    assert out[0].tolist() == before[0].tolist()  # the border is untouched


MIN_MAX = """
int imin(int a, int b) { return min(a, b); }
unsigned umin(int a, unsigned b) { return min(a, b); }
long lmax(long a, long b) { return max(a, b); }
float fmin_of(float a, float b) { return min(a, b); }
double dmax(double a, int b) { return max(a, b); }
"""


def test_min_max_prelude_has_the_irs_semantics():
    imin = compile_c_reference(MIN_MAX, "imin")
    assert imin(-3, 2) == -3
    umin = compile_c_reference(MIN_MAX, "umin")
    assert umin(-1, 1) == 1  # -1 converts to UINT_MAX: minui, not minsi
    assert compile_c_reference(MIN_MAX, "lmax")(-(2**40), 5) == 5
    fmin_of = compile_c_reference(MIN_MAX, "fmin_of")
    assert fmin_of(math.nan, 2.0) == 2.0  # fmin: NaN operands are ignored (minnumf)
    assert fmin_of(1.5, -0.5) == -0.5
    assert compile_c_reference(MIN_MAX, "dmax")(0.5, 1) == 1.0


SCALARS = """
unsigned long widen(unsigned x, size_t y) { return x + y; }
int wrap_add(int a, int b) { return a + b; }
float halve(float x) { return x / 2; }
"""


def test_scalar_parameters_and_results():
    assert compile_c_reference(SCALARS, "widen")(4294967295, 1) == 4294967296
    assert compile_c_reference(SCALARS, "wrap_add")(2**31 - 1, 1) == -(2**31)  # -fwrapv
    assert compile_c_reference(SCALARS, "halve")(3.0) == 1.5


def test_compiled_objects_are_cached_by_source(monkeypatch: pytest.MonkeyPatch):
    first = compile_c_reference(SAXPY, "saxpy").library
    calls: list[list[str]] = []
    real_run: Callable[..., subprocess.CompletedProcess[Any]] = subprocess.run

    def counting_run(cmd: list[str], *args: Any, **kwargs: Any) -> subprocess.CompletedProcess[Any]:
        calls.append(cmd)
        return real_run(cmd, *args, **kwargs)

    monkeypatch.setattr(gcc_reference.subprocess, "run", counting_run)
    assert compile_c_reference(SAXPY, "saxpy").library == first
    assert not [c for c in calls if "-shared" in c]
    other = compile_c_reference(SAXPY + "\n// changed\n", "saxpy").library
    assert other != first
    assert [c for c in calls if "-shared" in c]


def test_gcc_errors_are_reported_with_the_users_line_numbers():
    with pytest.raises(ReferenceCompileError, match=r"bad\.c:2:.*error"):
        compile_c_reference("void f(int n) {\n  n = undefined_name;\n}\n", "f", "bad.c")


def test_argument_checks():
    saxpy = compile_c_reference(SAXPY, "saxpy")
    x = np.ones(4, np.float32)
    with pytest.raises(TypeError, match="needs a float32 array, got float64"):
        saxpy(4, 1.0, x, np.ones(4))
    with pytest.raises(TypeError, match="takes 4 arguments"):
        saxpy(4, 1.0, x)
    with pytest.raises(TypeError, match="needs a NumPy array"):
        saxpy(4, 1.0, x, [1.0])


# --- signatures -------------------------------------------------------------------------------


def test_signature_parser_handles_qualifiers_prototypes_and_calls():
    source = """
    /* kernel(int bogus) in a comment */
    float helper(float v);
    void kernel(size_t n, unsigned long k, float * restrict out, const double *in,
                const int scale, long unsigned int w, int grid[n][k]);
    float helper(float v) { return v; }
    void kernel(size_t n, unsigned long k, float * restrict out, const double *in,
                const int scale, long unsigned int w, int grid[n][k]) {
      out[0] = helper(in[0]);
    }
    """
    sig = parse_c_signature(source, "kernel")
    assert sig.result is None
    assert sig.params == (
        CParameter("n", "size_t", i64, False),
        CParameter("k", "unsigned long", i64, False),
        CParameter("out", "float", f32, True, restrict=True),
        CParameter("in", "double", f64, True, const=True),
        CParameter("scale", "int", i32, False, const=True),
        CParameter("w", "unsigned long", i64, False),  # the frontend's canonical spelling
        CParameter("grid", "int", i32, True, extents=("n", "k")),
    )
    assert [p.dtype.name for p in sig.params] == [
        "uint64", "uint64", "float32", "float64", "int32", "uint64", "int32"
    ]
    assert parse_c_signature(source, "helper").result == "float"


def test_signature_parser_is_the_frontends():
    """One C parser: the signature read from the source is the one the frontend records."""
    from autogpu.dialects.signature import CSignature
    from autogpu.frontend import parse_c

    source = "void f(unsigned n, const long *restrict a, double b[][n]) { }\n"
    (function,) = parse_c(source).body.block.ops
    assert isinstance(function, func.FuncOp)
    assert parse_c_signature(source, "f") == CSignature.of(function)


def test_signature_parser_errors():
    with pytest.raises(ValueError, match="no definition of function 'g'"):
        parse_c_signature("void f(void) {}", "g")
    with pytest.raises(CompileError, match=r"k\.c:1:14: error: 'p' is a pointer to pointers"):
        parse_c_signature("void f(float **p) {}", "f", "k.c")
    with pytest.raises(CompileError, match=r"k\.c:1:8: error: structs are not supported"):
        parse_c_signature("void f(struct s *p) {}", "f", "k.c")


@pytest.mark.parametrize(
    "ctype, dtype",
    [("int", "int32"), ("unsigned", "uint32"), ("unsigned int", "uint32"), ("long", "int64"),
     ("long long", "int64"), ("unsigned long", "uint64"), ("size_t", "uint64"),
     ("short", "int16"), ("unsigned char", "uint8"), ("float", "float32"),
     ("double", "float64"), ("_Bool", "bool"), ("int32_t", "int32")],
)
def test_ctype_dtypes(ctype: str, dtype: str):
    assert dtype_of_ctype(ctype) == np.dtype(dtype)


FRONTEND_STYLE_IR = """
func.func @saxpy(%n: i32 {agpu.name = "n", agpu.ctype = "int"},
                 %a: f32 {agpu.name = "a", agpu.ctype = "float"},
                 %x: memref<?xf32> {agpu.name = "x", agpu.ctype = "float", agpu.const},
                 %y: memref<?xi32> {agpu.name = "y", agpu.ctype = "unsigned"}) {
  func.return
}
"""


def test_signature_from_the_frontends_arg_attrs():
    module = Parser(make_context(), FRONTEND_STYLE_IR).parse_module()
    sig = signature_of(module)
    assert sig.params == (
        CParameter("n", "int", i32, False),
        CParameter("a", "float", f32, False),
        CParameter("x", "float", f32, True, const=True),
        CParameter("y", "unsigned", i32, True),
    )
    args = random_args(module, {"n": 5, "a": 0.5, "x": 5, "y": (2, 3)}, seed=0)
    assert args[0] == 5
    assert args[1] == 0.5
    assert args[2].dtype == np.float32
    assert args[2].shape == (5,)
    assert args[3].dtype == np.uint32
    assert args[3].shape == (2, 3)


# --- random inputs and comparison -------------------------------------------------------------


def test_random_args_are_reproducible_and_in_range():
    sig = parse_c_signature(SAXPY, "saxpy")
    a = random_args(sig, {"n": 100, "a": 2, "x": 100, "y": 100}, seed=7)
    b = random_args(sig, {"n": 100, "a": 2, "x": 100, "y": 100}, seed=7)
    c = random_args(sig, {"n": 100, "a": 2, "x": 100, "y": 100}, seed=8)
    assert isinstance(a[1], float)
    assert first_difference(a[2], b[2]) is None
    assert first_difference(a[2], c[2]) is not None
    assert a[2].min() >= -1
    assert a[2].max() <= 1


def test_random_args_needs_every_parameter_and_nothing_else():
    sig = parse_c_signature(SAXPY, "saxpy")
    with pytest.raises(ValueError, match=r"missing \['y'\]; no parameter named \['z'\]"):
        random_args(sig, {"n": 1, "a": 1.0, "x": 1, "z": 1})


def test_comparison_is_bitwise():
    x = np.array([1.0, np.nan, -0.0], np.float32)
    assert first_difference(x, x.copy()) is None  # NaN equals itself bit for bit
    one_ulp = x.copy()
    one_ulp[0] = np.nextafter(np.float32(1), np.float32(2))
    assert "first at [0]" in str(first_difference(one_ulp, x))
    signed_zero = x.copy()
    signed_zero[2] = 0.0
    assert "first at [2]" in str(first_difference(signed_zero, x))
    args = [3, x]
    copies = copy_args(args)
    assert copies[1] is not x
    copies[1][0] = 5
    with pytest.raises(AssertionError, match=r"x: 1 of 3 elements differ"):
        assert_same_outputs(copies, args, ["n", "x"])
