"""agpu-unroll-parallel and the lowering's unroll-and-jam: options and errors, where the factors
land, what the jammed kernel shares, and differential tests: the examples and C snippets
(reductions, private variables, loops whose trip count depends on the unrolled index, strided
loops, 2D and 3D blocks) through unrolling and the lowering, run by the CPU emulation of CUDA,
against gcc's serial build, at sizes that do and do not divide block x unroll, with trip counts
of 0 and 1. Every emitted kernel is compiled by nvcc."""

from __future__ import annotations

from typing import Any

import pytest
from lowered_differential import (
    STATS,
    check_against_gcc,
    close_sums,
    conv2d,
    cuda_of,
    example,
    jacobi,
    lowered,
    matmul,
    one_translation_unit,
    saxpy,
)
from pass_differential import module_of, transformed
from paths import EXAMPLES
from xdsl.dialects import gpu, memref, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.gpu import DimensionAttr, DimensionEnum
from xdsl.passes import PassPipeline

from autogpu.context import make_context
from autogpu.diagnostics import CompileError
from autogpu.dialects.agpu import ParallelForOp
from autogpu.frontend import parse_c
from autogpu.interpreters import run_function
from autogpu.passes import get_all_passes
from autogpu.passes.agpu_unroll_parallel import AgpuUnrollParallelPass
from autogpu.passes.pipelines import AutogpuVanillaPipeline
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.target.cuda_target import emit_cuda
from autogpu.testing import assert_same_outputs, copy_args, random_args
from autogpu.testing.nvcc import assert_compiles_with_nvcc

STAGE = "agpu-stage-accumulations{assume_no_alias=true}"


# ---------------------------------------------------------------------------------------------
# Options, errors, where the factors go
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options, message",
    [
        (dict(x=0), "invalid factor x=0: each thread runs at least one iteration"),
        (dict(y=-3), "invalid factor y=-3"),
        (dict(z=0, x=2), "invalid factor z=0"),
        (dict(x=True), "invalid factor x=True: expected an integer"),
    ],
)
def test_invalid_factors(options: dict[str, Any], message: str):
    with pytest.raises(CompileError, match=message):
        AgpuUnrollParallelPass(**options)


def test_replicas_are_bounded_by_the_operations_they_make():
    """unroll_x=4000 took a minute to lower and 10**6 never ended; the limit leaves real
    factors alone (matmul's nest has 32 operations: 2048 replicas would fit)."""
    transformed(module_of(example("matmul.c")), AgpuUnrollParallelPass(x=64, y=32))
    with pytest.raises(CompileError, match="agpu-unroll-parallel: x=10000 on the nest of loop "
                                           "'i': 10000 copies of its 7 operations would make "
                                           "70000, more than the limit of 65536"):
        transformed(module_of(example("saxpy.c")), AgpuUnrollParallelPass(x=10000))


def test_a_huge_factor_is_a_prompt_one_line_error_of_the_tools():
    import subprocess
    import sys

    matmul = EXAMPLES / "matmul.c"
    done = subprocess.run(
        [sys.executable, "-m", "autogpu.tools.autogpu_opt", str(matmul), "-t", "cuda", "-p",
         "autogpu-optimize{unroll_x=1000000}"],
        capture_output=True, text=True, timeout=120, check=False)  # a safety net: it used to never end
    # one located error: the message, then the C line of the nest and a caret
    message, _line, caret = done.stderr.splitlines()
    assert done.returncode == 1
    assert caret.strip() == "^"
    assert message.startswith(f"{matmul}:5:3: error: agpu-unroll-parallel: y=1 x=1000000 on "
                              "the nest of loop 'j'")


def test_options_from_a_pipeline_spec():
    (unroll,) = PassPipeline.parse_spec(get_all_passes(), "agpu-unroll-parallel{x=2 y=8}").passes
    assert unroll == AgpuUnrollParallelPass(x=2, y=8)
    assert isinstance(unroll, AgpuUnrollParallelPass)
    assert unroll.factors() == {DimensionEnum.X: 2, DimensionEnum.Y: 8}


def unrolls(module: ModuleOp) -> list[int]:
    return [op.unroll.value.data for op in module.walk() if isinstance(op, ParallelForOp)]


def test_factors_follow_the_mapping():
    """x goes to the loop the lowering puts on the threads: the innermost one, or the one
    `mapping x` names; loops beyond the mapped dimensions keep their factor."""
    module = parse_c(example("matmul.c"), "<test>")
    AgpuUnrollParallelPass(x=2, y=8).apply(make_context(), module)
    assert unrolls(module) == [8, 2]  # j (y), i (x)
    outer = next(op for op in module.walk() if isinstance(op, ParallelForOp))
    outer.mapping = DimensionAttr(DimensionEnum.X)
    AgpuUnrollParallelPass(x=4, y=1).apply(make_context(), module)
    assert unrolls(module) == [4, 1]
    AgpuUnrollParallelPass(z=5).apply(make_context(), module)  # no loop on z: unchanged
    assert unrolls(module) == [4, 1]


def _tile(module: ModuleOp) -> scf.IfOp | gpu.FuncOp:
    """The jammed tile: the then-branch of the full-tile test, or the kernel without one."""
    (kernel,) = [op for op in module.walk() if isinstance(op, gpu.FuncOp)]
    tests = [op for op in kernel.walk() if isinstance(op, scf.IfOp) and op.false_region.blocks]
    return tests[0] if tests else kernel


@pytest.mark.parametrize("sizes", ["", 'agpu-specialize{sizes="m=2048,n=2048,p=2048"},'])
def test_jammed_matmul_shares_loads(sizes: str):
    """mm_autogpu: per k, 2 loads of B (one per i), 8 of C (one per j), 16 accumulators; at
    2048 there is no test at all."""
    module = lowered(
        example("matmul.c"),
        f"{sizes}{STAGE},agpu-unroll-parallel{{x=2 y=8}},autogpu-vanilla",
    )
    tile = _tile(module)
    assert isinstance(tile, gpu.FuncOp) == bool(sizes)
    region = tile.true_region if isinstance(tile, scf.IfOp) else tile.body
    (k_loop,) = [op for op in region.walk() if isinstance(op, scf.ForOp)]
    loads = [op.memref for op in k_loop.walk() if isinstance(op, memref.LoadOp)]
    names = [value.name_hint for value in loads]
    assert names.count("B") == 2
    assert names.count("C") == 8
    accumulators = {value for value in loads if value.name_hint == "A_acc"}
    assert len(accumulators) == 16
    assert len(loads) == 2 + 8 + 16
    assert not any(isinstance(op, scf.IfOp) for op in k_loop.walk())


def test_jam_false_keeps_whole_copies():
    """`jam=false`: one guarded copy of the whole body (with its own k loop) per replica."""
    module = lowered(
        example("matmul.c"),
        "agpu-unroll-parallel{x=3},convert-agpu-to-gpu{jam=false}",
    )
    loops = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    assert len(loops) == 1 + 3  # the grid-stride loop over j, three k loops
    assert not any(op.false_region.blocks for op in module.walk() if isinstance(op, scf.IfOp))


# ---------------------------------------------------------------------------------------------
# Differential tests: unrolled, jammed, lowered, on the CPU emulation == gcc
# ---------------------------------------------------------------------------------------------
def vanilla(unroll: str, block: str = "block_size=16", stage: bool = False) -> str:
    staging = f"{STAGE}," if stage else ""
    return f"{staging}agpu-unroll-parallel{{{unroll}}},autogpu-vanilla{{{block}}}"


PRIVATE = """
void private_vars(const float *a, float *b, int n, int m) {
  float t;
  int cnt;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    t = a[i] * 2.0f;
    cnt = 0;
    for (int k = 0; k < i % 5; k++) { t = t + a[k]; cnt++; }
    for (int k = 0; k < m; k++) t = t * 0.5f + a[k];
    if (i % 3 == 0) t = -t;
    b[i] = t + (float)cnt;
  }
}
"""

TRIANGLE = """
void prefix(const float *a, float *b, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int k = 0; k <= i; k++) s += a[k];
    b[i] = s > 0.0f && a[i] > 0.0f ? s : -s;
  }
}
"""

MISC = """
void misc(const float *a, float *b, int n, int m) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    int k = i;
    float s = 0.0f;
    while (k > 0) { s += a[k % 7]; k = k / 2; }
    float bias = (m > 2 && a[0] > 0.0f) ? a[1] : -a[1];
    float sel = (i > 1 && a[i] > 0.0f) ? a[i] : 0.0f;
    b[i] = s + bias + sel;
  }
}
"""

NEST3 = """
void nest3(float *a, const float *w, int l, int m, int n) {
#pragma omp parallel for collapse(3)
  for (int k = 0; k < l; k++)
    for (int j = 0; j < m; j++)
      for (int i = 0; i < n; i++)
        a[i + n * (j + m * k)] += w[i] * (float)(j - k);
}
"""

STRIDED = """
void strided(float *a, int lo, int n) {
#pragma omp parallel for
  for (int i = lo; i < n; i += 3)
    a[i] = a[i] * 2.0f + (float)i;
}
"""

# (id, source, function, pipeline, cases, options of check_against_gcc)
CONFIGS: list[tuple[str, str, str, str, list[dict[str, Any]], dict[str, Any]]] = [
    ("matmul-staged-x2-y8", example("matmul.c"), "matmul",
     vanilla("x=2 y=8", stage=True),
     # tiles of 32 x 8: exact, ragged on both, on one each, single element, empty k loop
     [matmul(64, 16, 3), matmul(67, 19, 1), matmul(32, 9, 2), matmul(35, 8, 2),
      matmul(1, 1, 1), matmul(5, 3, 0), matmul(0, 2, 2)], {}),
    ("matmul-x3-y2-block2d", example("matmul.c"), "matmul",
     vanilla("x=3 y=2", "block_size=8 block_y=2"),
     [matmul(48, 8, 2), matmul(50, 11, 1), matmul(1, 1, 1), matmul(24, 3, 0)], {}),
    ("conv2d-x2-y2", example("conv2d.c"), "conv2d", vanilla("x=2 y=2", "block_size=8"),
     [conv2d(32, 4, 3), conv2d(35, 7, 1), conv2d(1, 1, 2), conv2d(3, 2, 0)], {}),
    ("jacobi-x2-y4", example("stencil2d.c"), "jacobi2d", vanilla("x=2 y=4", "block_size=8"),
     # interior (n - 2) x (m - 2): 8 x 32 exact, ragged, empty
     [jacobi(10, 34), jacobi(13, 37), jacobi(3, 3), jacobi(2, 5)], {}),
    ("saxpy-x4", example("saxpy.c"), "saxpy", vanilla("x=4", "block_size=32"),
     [saxpy(256), saxpy(259), saxpy(1), saxpy(0)], {}),
    ("dot-x4", example("dot.c"), "dot", vanilla("x=4", "block_size=32"),
     [{"n": n, "x": max(n, 1), "y": max(n, 1), "result": 1} for n in (256, 300, 1, 0)],
     dict(compare=close_sums, thread_order="random")),
    ("stats-x2-y3", STATS, "stats", vanilla("x=2 y=3", "block_size=4 block_y=2"),
     [{"n": n, "m": m, "x": max(n * m, 1), "out": 2} for n, m in ((16, 12), (37, 9), (1, 1))],
     dict(thread_order="reverse")),
    ("private-x4", PRIVATE, "private_vars", vanilla("x=4", "block_size=8"),
     [{"n": n, "m": m, "a": max(n, m, 5), "b": max(n, 1)} for n, m in ((64, 3), (37, 1), (1, 0))],
     {}),
    ("triangle-x4", TRIANGLE, "prefix", vanilla("x=4", "block_size=8"),
     [{"n": n, "a": max(n, 1), "b": max(n, 1)} for n in (64, 37, 1, 0)], {}),
    # a while loop (not jammed), `&&` on a condition the same for all replicas (one jammed if
    # with results) and on one that is not
    ("misc-x3", MISC, "misc", vanilla("x=3", "block_size=8"),
     [{"n": n, "m": m, "a": max(n, 7), "b": max(n, 1)} for n, m in ((48, 3), (50, 1), (1, 5))],
     {}),
    ("nest3-x2-y2-z2", NEST3, "nest3", vanilla("x=2 y=2 z=2", "block_size=4 block_y=2 block_z=2"),
     [{"l": l, "m": m, "n": n, "a": max(l * m * n, 1), "w": max(n, 1)}
      for l, m, n in ((8, 8, 16), (5, 7, 9), (1, 1, 1))], {}),
    ("strided-sparse-x3", STRIDED, "strided", vanilla("x=3", "block_size=8"),
     [{"lo": lo, "n": n, "a": n + 5} for lo, n in ((2, 200), (0, 1), (5, 3), (1, 98))], {}),
    ("strided-dense-x3", STRIDED, "strided",
     "agpu-dense-indexing{mode=dense}," + vanilla("x=3", "block_size=8"),
     [{"lo": lo, "n": n, "a": n + 5} for lo, n in ((2, 200), (0, 1), (5, 3), (1, 98))], {}),
    ("matmul-jam-false", example("matmul.c"), "matmul",
     f"{STAGE},agpu-unroll-parallel{{x=2 y=2}},convert-agpu-to-gpu{{block_size=8 jam=false}},"
     "canonicalize,cse",
     [matmul(32, 4, 2), matmul(35, 5, 1)], {}),
]  # fmt: skip


@pytest.mark.parametrize(
    "source, function, pipeline, cases, options",
    [pytest.param(*config[1:], id=config[0]) for config in CONFIGS],
)
def test_unrolled_matches_gcc(source: str, function: str, pipeline: str,
                              cases: list[dict[str, Any]], options: dict[str, Any]):
    check_against_gcc(source, function, pipeline, cases, **options)


def test_every_unrolled_kernel_compiles_with_nvcc():
    programs = [cuda_of(source, pipeline) for _, source, _, pipeline, _, _ in CONFIGS]
    assert_compiles_with_nvcc(one_translation_unit(programs))


CARRIED = """
func.func @carried(%a: memref<?xf32> {agpu.name = "a", agpu.ctype = "float"},
                   %b: memref<?xf32> {agpu.name = "b", agpu.ctype = "float"},
                   %n: i32 {agpu.name = "n", agpu.ctype = "int"},
                   %p: i32 {agpu.name = "p", agpu.ctype = "int"}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 unroll 3 {
    %zero = arith.constant 0.0 : f32
    %s, %t = scf.for %k = %c0 to %p step %c1
        iter_args(%acc = %zero, %cnt = %c0) -> (f32, i32) : i32 {
      %ik = arith.addi %i, %k : i32
      %x = arith.index_cast %ik : i32 to index
      %v = memref.load %a[%x] : memref<?xf32>
      %acc2 = arith.addf %acc, %v : f32
      %cnt2 = arith.addi %cnt, %c1 : i32
      scf.yield %acc2, %cnt2 : f32, i32
    }
    %tf = arith.sitofp %t : i32 to f32
    %r = arith.addf %s, %tf : f32
    %ii = arith.index_cast %i : i32 to index
    memref.store %r, %b[%ii] : memref<?xf32>
  }
  func.return
}
"""


def test_loop_carried_values_are_replicated():
    """A jammed loop carries each replica's values (one loop, 3 x 2 iter_args); the lowered
    kernel on the CPU emulation computes what the interpreter computes on the input IR."""
    before = module_of(CARRIED)
    after = transformed(before, AutogpuVanillaPipeline(block_size=4))
    tiles = [op for op in after.walk() if isinstance(op, scf.ForOp) and len(op.iter_args) == 6]
    assert len(tiles) == 1
    program = emit_cuda(after)
    runner = CpuProgram(program.source, program.launch, threads=2)
    for n, p in ((24, 3), (25, 2), (1, 0), (0, 1)):
        sizes = {"a": n + p + 1, "b": max(n, 1), "n": n, "p": p}
        args = random_args(before, sizes, seed=1, function="carried")
        expected, actual = copy_args(args), copy_args(args)
        run_function(before, "carried", expected)
        runner.run("carried", *actual)
        assert_same_outputs(actual, expected)
