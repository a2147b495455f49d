"""agpu-flatten-nest: nests of any depth become one loop over a linear index.

Differential tests: each nest before and after the pass on the reference interpreter, and through
the pass and the pipelines down to CUDA on the CPU emulation (blocks and threads in a shuffled
order) against gcc's serial build, at sizes of 0, 1, primes and (1000, 1000, 1, 1, 1)-like shapes
scaled down; the launch of a (big, big, 1, 1, 1) nest; the triangle's row inverse at totals near
2^32, 2^53 and 2^62 (the decomposition alone, run on the interpreter and on the CPU emulation)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from lowered_differential import check_against_gcc, close_sums, cuda_of
from pass_differential import check_equivalent, module_of, transformed
from xdsl.builder import Builder
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    MemRefType,
    ModuleOp,
    StringAttr,
    i64,
)
from xdsl.ir import Block, Region
from xdsl.rewriter import InsertPoint

from autogpu.diagnostics import CompileError
from autogpu.dialects.agpu import ParallelForOp
from autogpu.interpreters import run_function
from autogpu.passes.agpu_flatten_nest import (
    AgpuFlattenNestPass,
    _decompose_versioned,  # pyright: ignore[reportPrivateUsage]  # the index arithmetic under test
    _triangle_row,  # pyright: ignore[reportPrivateUsage]  # the index arithmetic under test
)
from autogpu.passes.utils.typed_arith import TypedArith
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.target.launch import evaluate

FIVE = """
void five(int a, int b, int c, int d, int e, const float *x, float *y) {
#pragma omp parallel for collapse(5)
  for (int i = 0; i < a; i++)
    for (int j = 0; j < b; j++)
      for (int k = 0; k < c; k++)
        for (int l = 0; l < d; l++)
          for (int p = 0; p < e; p++) {
            int at = (((i * b + j) * c + k) * d + l) * e + p;
            y[at] = 2.0f * x[at] + (float)(i - j + k * l - p);
          }
}
"""

STRIDED = """
void strided(int n, int m, int lo, const float *x, float *y) {
#pragma omp parallel for collapse(4)
  for (int i = lo; i < n; i += 3)
    for (int j = 0; j < m; j++)
      for (long k = 0; k < 2; k++)
        for (int l = -2; l <= m; l += 2)
          y[((i * 8 + j) * 2 + k) * 40 + l + 2] += x[i] * (float)(j + k) - (float)l;
}
"""

SUM4 = """
void sum4(int a, int b, int c, int d, const float *x, float *out) {
  float s = 0.5f;
  int hits = 0;
#pragma omp parallel for collapse(4) reduction(+: s) reduction(+: hits)
  for (int i = 0; i < a; i++)
    for (int j = 0; j < b; j++)
      for (int k = 0; k < c; k++)
        for (int l = 0; l < d; l++) {
          s += x[((i * b + j) * c + k) * d + l];
          hits += 1;
        }
  out[0] = s;
  out[1] = (float)hits;
}
"""

STENCIL4 = """
void batched(int nb, int nc, int n, int m, const float *in, float *out, const float *w) {
#pragma omp parallel for collapse(4)
  for (int b = 0; b < nb; b++)
    for (int c = 0; c < nc; c++)
      for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < m - 1; j++) {
          float acc = 0.0f;
          for (int t = 0; t < 3; t++)
            acc += w[t] * in[((b * nc + c) * n + i + t - 1) * m + j];
          out[((b * nc + c) * n + i) * m + j] = acc;
        }
}
"""

TRIANGLES = """
void tri(int n, int m, const float *x, float *y) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      y[i * 64 + j] = x[j] + (float)i;
#pragma omp parallel for collapse(2)
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      y[4096 + i * 64 + j] = x[i] - (float)j;
#pragma omp parallel for collapse(2)
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j++)
      y[8192 + i * 64 + j] = x[j] * 2.0f + (float)i;
#pragma omp parallel for collapse(3)
  for (int i = 2; i < n; i++)
    for (int j = m; j < i - 3; j++)
      for (int k = 0; k < 3; k++)
        y[12288 + (i * 64 + j + 8) * 3 + k] = (float)(i + j * k);
}
"""

TRIANGLE_DEEP = """
void deep(int a, int n, int m, float *y) {
  int cells = 0;
#pragma omp parallel for collapse(4) reduction(+: cells)
  for (int b = 0; b < a; b++)
    for (int i = 0; i < n; i++)
      for (int j = i + m; j < n; j++)
        for (int k = 1; k < 5; k += 2) {
          y[((b * 32 + i) * 40 + j + 4) * 8 + k] += (float)(b + i * j - k);
          cells += 1;
        }
  y[0] = (float)cells;
}
"""


def five(a: int, b: int, c: int, d: int, e: int) -> dict[str, int]:
    size = max(a * b * c * d * e, 1)
    return {"a": a, "b": b, "c": c, "d": d, "e": e, "x": size, "y": size}


FIVE_CASES = [five(25, 20, 1, 1, 1), five(1000, 3, 1, 1, 1), five(0, 7, 3, 2, 2),
              five(7, 0, 3, 2, 2), five(1, 1, 1, 1, 1), five(3, 5, 7, 2, 11), five(2, 3, 1, 13, 1)]
STRIDED_CASES = [{"n": n, "m": m, "lo": lo, "x": 64, "y": 64 * 8 * 2 * 40}
                 for n, m, lo in [(0, 3, 0), (1, 1, 0), (22, 7, 1), (13, 5, 2), (9, 0, 2)]]
SUM4_CASES = [{"a": a, "b": b, "c": c, "d": d, "x": max(a * b * c * d, 1), "out": 2}
              for a, b, c, d in [(40, 30, 1, 1), (0, 3, 3, 3), (1, 1, 1, 1), (5, 7, 3, 11)]]
STENCIL_CASES = [{"nb": nb, "nc": nc, "n": n, "m": m, "in": max(nb * nc * n * m, 1),
                  "out": max(nb * nc * n * m, 1), "w": 3}
                 for nb, nc, n, m in [(3, 2, 17, 13), (1, 1, 3, 3), (2, 3, 1, 5), (0, 2, 4, 4)]]
TRI_CASES = [{"n": n, "m": m, "x": 64, "y": 32768} for n, m in
             [(0, 0), (1, 0), (2, 1), (17, 0), (31, 4), (63, -5)]]
DEEP_CASES = [{"a": a, "n": n, "m": m, "y": 32 * 32 * 32 * 8} for a, n, m in
              [(0, 5, 0), (1, 1, 0), (3, 13, 0), (2, 31, 4), (5, 17, -3)]]

FLATTEN = "agpu-flatten-nest{min_depth=2}"
PIPELINES = [
    f"{FLATTEN},autogpu-vanilla",
    f"{FLATTEN},autogpu-vanilla{{block_size=64}}",
    "autogpu-optimize{flatten=true unroll_x=2 unroll_serial=4}",
    "autogpu-optimize{flatten=true flatten_min_depth=2 unroll_x=4 cache=true}",
    "autogpu-optimize{flatten=true flatten_mode=outer unroll_y=2}",
]


def flat_loops(module: ModuleOp) -> list[ParallelForOp]:
    return [op for op in module.walk() if isinstance(op, ParallelForOp)]


# ---------------------------------------------------------------------------------------------
# The pass alone, on the interpreter
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("source, cases", [
    (FIVE, FIVE_CASES), (STRIDED, STRIDED_CASES), (SUM4, SUM4_CASES),
    (STENCIL4, STENCIL_CASES), (TRIANGLES, TRI_CASES), (TRIANGLE_DEEP, DEEP_CASES),
], ids=["five", "strided", "sum4", "stencil4", "triangles", "triangle-deep"])
def test_the_flat_loop_computes_what_the_nest_does(source: str, cases: list[dict[str, int]]):
    before = module_of(source)
    after = transformed(before, AgpuFlattenNestPass(min_depth=2))
    nests = [op for op in before.walk() if isinstance(op, ParallelForOp)
             and not isinstance(op.parent_op(), ParallelForOp)]
    assert len(flat_loops(after)) == len(nests)  # every nest is one loop now
    (name,) = {op.sym_name.data for op in before.walk() if isinstance(op, func.FuncOp)}
    check_equivalent(before, after, name, cases)


def test_the_default_leaves_the_nests_the_lowering_maps():
    for source in (TRIANGLES, STENCIL4.replace("collapse(4)", "collapse(3)")):
        before = module_of(source)
        after = transformed(before, AgpuFlattenNestPass())
        assert str(after) == str(before)


def test_mode_outer_keeps_the_innermost_two_levels():
    after = transformed(module_of(FIVE), AgpuFlattenNestPass(mode="outer"))
    loops = flat_loops(after)
    assert [op.induction_var.name_hint for op in loops] == ["i_j_k_flat", "l", "p"]
    check_equivalent(module_of(FIVE), after, "five", FIVE_CASES[:4])


def test_bad_options_are_located_errors():
    with pytest.raises(CompileError, match="agpu-flatten-nest: min_depth must be at least 2"):
        AgpuFlattenNestPass(min_depth=0)
    with pytest.raises(CompileError, match="mode must be one of all, outer"):
        AgpuFlattenNestPass(mode="diagonal")


# ---------------------------------------------------------------------------------------------
# Down to CUDA, on the CPU emulation, against gcc
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("pipeline", PIPELINES)
def test_five_deep_against_gcc(pipeline: str):
    check_against_gcc(FIVE, "five", pipeline, FIVE_CASES)


@pytest.mark.parametrize("pipeline", PIPELINES[:3])
def test_strided_against_gcc(pipeline: str):
    check_against_gcc(STRIDED, "strided", pipeline, STRIDED_CASES)


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_reductions_over_the_flattened_loops(pipeline: str):
    check_against_gcc(SUM4, "sum4", pipeline, SUM4_CASES, compare=close_sums)


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_a_batched_stencil_staged_cached_and_unrolled(pipeline: str):
    check_against_gcc(STENCIL4, "batched", pipeline, STENCIL_CASES)


@pytest.mark.parametrize("pipeline", [f"{FLATTEN},autogpu-vanilla",
                                      "autogpu-optimize{flatten=true flatten_min_depth=2 "
                                      "unroll_x=2 unroll_serial=2}"])
def test_triangles_against_gcc(pipeline: str):
    check_against_gcc(TRIANGLES, "tri", pipeline, TRI_CASES)
    check_against_gcc(TRIANGLE_DEEP, "deep", pipeline, DEEP_CASES)


def test_specialised_sizes_give_a_32_bit_index_and_no_division_by_one():
    program = check_against_gcc(
        FIVE, "five",
        'autogpu-optimize{sizes="a=60,b=50,c=1,d=1,e=1" flatten=true}', [five(60, 50, 1, 1, 1)])
    assert "unsigned long long" not in program.source  # 3000 iterations: a 32-bit index
    assert program.source.count(" / ") == 1  # i = L / 50; c, d, e are 1


def test_a_big_big_1_1_1_nest_launches_many_blocks():
    """Without flattening the (1000, 1000, 1, 1, 1) nest maps p, l, k to x, y, z: one block,
    and each thread runs 10^6 iterations serially."""
    sizes = {"a": 1000, "b": 1000, "c": 1, "d": 1, "e": 1}

    def grid(pipeline: str) -> list[int]:
        (launch,) = cuda_of(FIVE, pipeline).launch["functions"][0]["launches"]
        return [evaluate(g, sizes) for g in launch["grid"]]

    assert math.prod(grid("autogpu-vanilla")) == 1
    assert grid("agpu-flatten-nest,autogpu-vanilla") == [3907, 1, 1]  # 10^6 / 256
    assert grid("autogpu-optimize{flatten=true flatten_mode=outer}")[2] == 65535


# ---------------------------------------------------------------------------------------------
# The triangle's row inverse at the edges
# ---------------------------------------------------------------------------------------------
def _row_function() -> ModuleOp:
    """`rows(p, first, out)`: out[0], out[1] = the row and offset of `p` (rows of `first`,
    `first + 1`, ... iterations), as the flat loop computes them."""
    block = Block(arg_types=[i64, i64, MemRefType(i64, [-1])])
    for arg, name in zip(block.args, ("p", "first", "out")):
        arg.name_hint = name
    builder = Builder(InsertPoint.at_end(block))
    row, offset = _triangle_row(TypedArith(builder, i64), block.args[0], block.args[1])
    for k, value in enumerate((row, offset)):
        index = builder.insert(arith.ConstantOp.from_int_and_width(k, IndexType())).result
        builder.insert(memref.StoreOp.get(value, block.args[2], [index]))
    builder.insert(func.ReturnOp())
    fn = func.FuncOp("rows", ((i64, i64, MemRefType(i64, [-1])), ()), Region(block))
    fn.arg_attrs = ArrayAttr([DictionaryAttr({"agpu.name": StringAttr(n),
                                              "agpu.ctype": StringAttr(t)})
                              for n, t in (("p", "long"), ("first", "long"), ("out", "long"))])
    return ModuleOp([fn])


def _exact_row(p: int, first: int) -> tuple[int, int]:
    """The largest s with s * first + s (s - 1) / 2 <= p, by bisection on integers."""
    lo, hi = 0, 1
    while hi * first + hi * (hi - 1) // 2 <= p:
        hi *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if mid * first + mid * (mid - 1) // 2 <= p else (lo, mid)
    return lo, p - (lo * first + lo * (lo - 1) // 2)


def _starts(s: int, first: int) -> int:
    return s * first + s * (s - 1) // 2


def _edge_cases() -> list[tuple[int, int]]:
    """Indices at row boundaries (and one off) of triangles whose totals lie near 2^31, 2^32,
    2^53 and 2^62, with first rows of 1 iteration and of many."""
    cases: list[tuple[int, int]] = []
    for total_bits in (31, 32, 53, 62):
        for first in (1, 2, 1000, 2**20 + 7):
            rows = math.isqrt(2 * 2**total_bits)  # total about 2^total_bits
            for s in (rows - 2, rows - 1, rows // 3, 1, 0):
                for delta in (-1, 0, 1):
                    p = _starts(s, first) + delta
                    if p >= 0:
                        cases.append((p, first))
    cases += [(2**53 - 1, 1), (2**53, 1), (2**53 + 1, 1), (2**62, 3), (2**63 - 2**33, 1)]
    return cases


def test_the_row_inverse_is_exact_at_the_edges():
    module = _row_function()
    for p, first in _edge_cases():
        out = np.zeros(2, np.int64)
        run_function(module, "rows", [p, first, out])
        assert tuple(out) == _exact_row(p, first), (p, first)


def test_the_row_inverse_is_exact_in_cuda_too():
    """The same decomposition printed as CUDA (a single-thread kernel) and compiled by gcc."""
    from autogpu.api import run_pipeline
    from autogpu.target.cuda_target import emit_cuda

    program = emit_cuda(run_pipeline(_row_function(), "autogpu-vanilla"))
    runner = CpuProgram(program.source, program.launch, threads=1)
    for p, first in _edge_cases():
        out = np.zeros(2, np.int64)
        runner.run("rows", p, first, out)
        assert tuple(out) == _exact_row(p, first), (p, first)


# ---------------------------------------------------------------------------------------------
# The 32-bit version of a 64-bit flat index's decomposition, on both sides of 2^31
# ---------------------------------------------------------------------------------------------
def _decompose_function() -> ModuleOp:
    """`split(L, total, n1, n2, out)`: out[0..2] = the indices of L over counts (total / (n1 *
    n2), n1, n2), as a flat loop whose total is known at run time computes them."""
    types = (i64, i64, i64, i64, MemRefType(i64, [-1]))
    names = ("L", "total", "n1", "n2", "out")
    block = Block(arg_types=types)
    for arg, name in zip(block.args, names):
        arg.name_hint = name
    builder = Builder(InsertPoint.at_end(block))
    flat, total, n1, n2, out = block.args
    indices = _decompose_versioned(builder, flat, [total, n1, n2], total)
    for k, value in enumerate(indices):
        index = builder.insert(arith.ConstantOp.from_int_and_width(k, IndexType())).result
        builder.insert(memref.StoreOp.get(value, out, [index]))
    builder.insert(func.ReturnOp())
    fn = func.FuncOp("split", (types, ()), Region(block))
    fn.arg_attrs = ArrayAttr([DictionaryAttr({"agpu.name": StringAttr(n),
                                              "agpu.ctype": StringAttr("long")})
                              for n in names])
    return ModuleOp([fn])


def _split_cases() -> list[tuple[int, int, int, int]]:
    """(L, total, n1, n2): the last indices of totals just at 2^31 (the 32-bit branch, whose
    largest index is 2^31 - 1) and just above it and near 2^62 (the 64-bit branch)."""
    cases: list[tuple[int, int, int, int]] = []
    for n1, n2 in ((2, 2**15), (3, 5), (1, 7), (65537, 1)):
        for total in (2**31 - 2**31 % (n1 * n2), 2**31 + n1 * n2, 2**62 - 2**62 % (n1 * n2)):
            cases += [(flat, total, n1, n2) for flat in (0, 1, total // 2 + 3, total - 1)]
    return cases


def _expected_split(flat: int, n1: int, n2: int) -> tuple[int, int, int]:
    q, last = divmod(flat, n2)
    return q // n1, q % n1, last


def test_the_32_bit_version_splits_exactly_on_both_sides_of_2_31():
    module = _decompose_function()
    for flat, total, n1, n2 in _split_cases():
        out = np.zeros(3, np.int64)
        run_function(module, "split", [flat, total, n1, n2, out])
        assert tuple(out) == _expected_split(flat, n1, n2), (flat, total, n1, n2)


def test_the_32_bit_version_splits_exactly_in_cuda_too():
    from autogpu.api import run_pipeline
    from autogpu.target.cuda_target import emit_cuda

    program = emit_cuda(run_pipeline(_decompose_function(), "autogpu-vanilla"))
    assert "(unsigned)" in program.source  # the 32-bit branch
    assert "(unsigned long long)" in program.source  # the 64-bit one
    runner = CpuProgram(program.source, program.launch, threads=1)
    for flat, total, n1, n2 in _split_cases():
        out = np.zeros(3, np.int64)
        runner.run("split", flat, total, n1, n2, out)
        assert tuple(out) == _expected_split(flat, n1, n2), (flat, total, n1, n2)
