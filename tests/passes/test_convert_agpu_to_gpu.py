"""convert-agpu-to-gpu and autogpu-vanilla: the pass options and errors, the shape of the GPU-level
IR (docs/ir.md), and differential tests: every example and several mapping variants, lowered,
printed as CUDA and run by the CPU emulation of CUDA, must leave the same outputs as gcc's build
of the serial C, at sizes that are not multiples of the block (and empty ones)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pytest
from lowered_differential import STATS, agree_with_gcc, example, parsed_c
from xdsl.dialects import func, gpu, memref
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.dialects.gpu import DimensionAttr, DimensionEnum
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

from autogpu.context import make_context
from autogpu.diagnostics import CompileError
from autogpu.dialects.agpu import Indexing, IndexingAttr, ParallelForOp
from autogpu.dialects.agpu_combine import COMBINE_OPS
from autogpu.passes import get_all_passes
from autogpu.passes.convert_agpu_to_gpu import ConvertAgpuToGpuPass
from autogpu.passes.pipelines import AutogpuVanillaPipeline
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.target.cuda_target import emit_cuda
from autogpu.testing import assert_same_outputs


def c_module(source: str) -> ModuleOp:
    return parsed_c(source).clone()


def lowered(module: ModuleOp, lowering=None) -> ModuleOp:
    after = module.clone()
    (lowering or ConvertAgpuToGpuPass()).apply(make_context(), after)
    after.verify()
    return after


def kernels(module: ModuleOp) -> list[gpu.FuncOp]:
    return [op for op in module.walk() if isinstance(op, gpu.FuncOp)]


def host(module: ModuleOp, name: str) -> func.FuncOp:
    return next(
        op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == name
    )


def loops(module: ModuleOp) -> list[ParallelForOp]:
    return [op for op in module.walk() if isinstance(op, ParallelForOp)]


# ---------------------------------------------------------------------------------------------
# Options and errors
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options, message",
    [
        (dict(block_size=0), "invalid option block_size=0: threads per block must be >= 1"),
        (dict(block_size=2048), "2048x1x1 = 2048 threads: CUDA allows at most 1024"),
        (dict(block_size=128, block_y=16), "128x16x1 = 2048 threads"),
        (dict(block_y=-1), "invalid option block_y=-1"),
        (dict(block_z=65), "invalid option block_z=65: CUDA allows at most 64"),
    ],
)
def test_invalid_options(options, message):
    for pass_type in (ConvertAgpuToGpuPass, AutogpuVanillaPipeline):
        with pytest.raises(CompileError, match=message.replace("(", r"\(")):
            pass_type(**options)


def test_options_from_a_pipeline_spec():
    """`autogpu-vanilla{...}` forwards its options to the lowering."""
    (pipeline,) = PassPipeline.parse_spec(
        get_all_passes(), "autogpu-vanilla{block_size=64 block_y=2}"
    ).passes
    assert isinstance(pipeline, AutogpuVanillaPipeline)
    lowering = pipeline.passes()[0]
    assert lowering == ConvertAgpuToGpuPass(block_size=64, block_y=2)
    after = lowered(c_module(example("matmul.c")), pipeline)
    (kernel,) = kernels(after)
    assert kernel.known_block_size is not None
    assert kernel.known_block_size.get_values() == (64, 2, 1)


def test_error_leaves_the_module_untouched():
    """A refusal found late (a loop around kernels that carries a value) leaves no half-lowered
    module behind."""
    module = Parser(make_context(), """
    func.func @f(%n: i32) {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
      }
      %r = scf.for %t = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
        agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
        }
        scf.yield %acc : i32
      }
      func.return
    }""").parse_module()
    before = str(module)
    with pytest.raises(CompileError, match=r"a loop around parallel loops cannot carry values"):
        ConvertAgpuToGpuPass().apply(make_context(), module)
    assert str(module) == before


# ---------------------------------------------------------------------------------------------
# Structure (docs/ir.md, "GPU level")
# ---------------------------------------------------------------------------------------------
def test_kernel_signature_is_the_c_signature():
    before = c_module(example("conv2d.c"))
    fn = host(before, "conv2d")
    after = lowered(before)
    assert "gpu.container_module" in after.attributes
    (module,) = [op for op in after.ops if isinstance(op, gpu.ModuleOp)]
    assert module.sym_name.data == "kernels"
    (kernel,) = kernels(after)
    assert kernel.sym_name.data == "conv2d_kernel"
    assert kernel.kernel is not None
    assert "gpu.kernel" in kernel.attributes
    assert kernel.function_type == fn.function_type
    assert kernel.attributes["arg_attrs"] == fn.arg_attrs
    assert [a.name_hint for a in kernel.body.block.args] == ["out", "in", "tmpl", "n", "m", "t"]


def test_host_only_launches():
    """The host function keeps name, signature and argument attributes; its body is launch
    arithmetic on index values, launches with all parameters, and the return."""
    before = c_module(example("dot.c"))
    fn = host(before, "dot")
    signature, arg_attrs = fn.function_type, fn.arg_attrs
    after = lowered(before)
    new = host(after, "dot")
    assert new.function_type == signature
    assert new.arg_attrs == arg_attrs
    launches = [op for op in new.walk() if isinstance(op, gpu.LaunchFuncOp)]
    assert [str(op.kernel) for op in launches] == [
        "@kernels::@dot_kernel0",  # s = 0.0f
        "@kernels::@dot_kernel1",  # the reduction
        "@kernels::@dot_kernel2",  # result[0] = s
    ]
    for launch in launches:
        assert list(launch.kernelOperands) == list(new.body.block.args)
    allowed = {"arith.constant", "arith.index_cast", "arith.ceildivsi", "arith.maxsi",
               "arith.minsi", "arith.subi", "arith.addi", "arith.muli", "gpu.launch_func",
               "func.return"}  # fmt: skip
    assert {op.name for op in new.body.block.ops} <= allowed


def test_shared_variable_lives_in_device_memory():
    after = lowered(c_module(example("dot.c")))
    globals_ = [op for op in after.walk() if isinstance(op, memref.GlobalOp)]
    assert [g.sym_name.data for g in globals_] == ["dot_s"]
    uses = {
        k.sym_name.data
        for k in kernels(after)
        for op in k.walk()
        if isinstance(op, memref.GetGlobalOp) and op.name_.string_value() == "dot_s"
    }
    assert uses == {"dot_kernel0", "dot_kernel1", "dot_kernel2"}
    atomics = [op for op in after.walk() if isinstance(op, memref.AtomicRMWOp)]
    assert len(atomics) == 1
    assert atomics[0].kind.value.data == 0
    assert any(op.name == "gpu.barrier" for op in after.walk())


def test_names_are_unique_across_functions():
    source = example("saxpy.c") + example("dot.c") + """
    void saxpy_kernel(float *a) { a[0] = 1.0f; }"""
    after = lowered(c_module(source))
    names = [k.sym_name.data for k in kernels(after)]
    assert len(names) == len(set(names)) == 5
    assert "saxpy_kernel" in names
    assert "saxpy_kernel_kernel" in names


def test_no_agpu_left_and_vanilla_only_folds():
    for name in ("matmul.c", "conv2d.c", "saxpy.c", "stencil2d.c", "dot.c"):
        after = lowered(c_module(example(name)), AutogpuVanillaPipeline())
        # agpu's GPU-level ops (warp shuffles, fences of a block combine) are the target's
        gpu_level = {op.name for op in COMBINE_OPS}
        dialects = {op.name.split(".")[0] for op in after.walk() if op.name not in gpu_level}
        assert dialects <= {"builtin", "func", "gpu", "scf", "arith", "math", "memref"}, name


# ---------------------------------------------------------------------------------------------
# Differential tests: lowered + CUDA on the CPU emulation == gcc's serial build
# ---------------------------------------------------------------------------------------------
def cpu_program(
    module: ModuleOp,
    lowering,
    *,
    edit_launch: Callable[[dict], None] | None = None,
    thread_order: str = "random",
) -> CpuProgram:
    """`module` lowered, printed as CUDA and compiled for the CPU emulation."""
    program = emit_cuda(lowered(module, lowering))
    launch = program.launch
    if edit_launch is not None:
        edit_launch(launch)
    return CpuProgram(program.source, launch, threads=2, thread_order=thread_order)


def check_against_gcc(
    source: str,
    function: str,
    cases: Sequence[Mapping[str, Any]],
    lowering=None,
    *,
    module: ModuleOp | None = None,
    compare: Callable[[list[Any], list[Any]], None] = assert_same_outputs,
    **program_options: Any,
) -> None:
    """`function` lowered (from `module`, default: the frontend's IR of `source`) and run on
    the CPU emulation leaves the same outputs as gcc's serial build, for each case (sizes of
    the arrays and values of the scalars, see `autogpu.testing.random_args`) and two seeds."""
    module = module or c_module(source)
    program = cpu_program(module, lowering or AutogpuVanillaPipeline(), **program_options)
    agree_with_gcc(program, source, function, cases, module=module, compare=compare)


def matmul(m, n, p):
    return {"m": m, "n": n, "p": p, "A": m * n, "B": m * p, "C": p * n}


def conv2d(n, m, t):
    return {"n": n, "m": m, "t": t, "out": n * m, "tmpl": t * t,
            "in": (n + t - 1) * (m + t - 1)}  # fmt: skip


def jacobi(n, m):
    return {"n": n, "m": m, "in": n * m, "out": n * m}


SMALL_BLOCKS = AutogpuVanillaPipeline(block_size=32)


@pytest.mark.parametrize(
    "name, function, cases",
    [
        ("saxpy.c", "saxpy", [{"n": n, "a": 1.5, "x": n + 3, "y": n + 3} for n in (1000, 1, 0)]),
        ("matmul.c", "matmul", [matmul(37, 5, 3), matmul(1, 1, 1), matmul(33, 2, 0),
                                matmul(0, 3, 2)]),
        ("conv2d.c", "conv2d", [conv2d(19, 7, 3), conv2d(1, 1, 1), conv2d(33, 2, 2)]),
        ("stencil2d.c", "jacobi2d", [jacobi(9, 70), jacobi(2, 2), jacobi(3, 35)]),
    ],
)  # fmt: skip
def test_example_matches_gcc(name, function, cases):
    lowering = SMALL_BLOCKS if function != "saxpy" else None
    check_against_gcc(example(name), function, cases, lowering)


def close_sums(actual: list[Any], expected: list[Any]) -> None:
    """A parallel sum adds in another order: equal up to rounding."""
    for a, e in zip(actual, expected):
        if isinstance(e, np.ndarray):
            np.testing.assert_allclose(a, e, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("order", ["forward", "random"])
def test_dot_reduction_matches_gcc(order):
    """Block tree + atomicAdd; a random order of the threads between barriers exposes a
    missing barrier."""
    cases = [{"n": n, "x": n, "y": n, "result": 1} for n in (1000, 1, 0, 300)]
    check_against_gcc(example("dot.c"), "dot", cases, AutogpuVanillaPipeline(block_size=96),
                      compare=close_sums, thread_order=order)  # fmt: skip


@pytest.mark.parametrize("lowering", [AutogpuVanillaPipeline(block_size=24, block_y=4),
                                      AutogpuVanillaPipeline(block_size=256)])
def test_reductions_over_a_2d_nest(lowering):
    """Two reductions over a collapse(2) nest, blocks of 96 threads (not a power of two) on
    two dimensions and of 256: exact, since integer-valued float sums are exact."""
    cases = [{"n": n, "m": m, "x": n * m, "out": 2} for n, m in ((37, 9), (1, 1), (0, 4))]
    check_against_gcc(STATS, "stats", cases, lowering, thread_order="reverse")


MORE_REDUCTIONS = """
void isum(const int *x, int *out, int n) {
  int total = 5;
#pragma omp parallel for reduction(+ : total)
  for (int i = 0; i < n; i++) total += x[i];
  out[0] = total;
}
void prod(const double *x, double *out, int n) {
  double p = 1.0;
  double lo = 0.25;
#pragma omp parallel for reduction(* : p) reduction(min : lo)
  for (int i = 0; i < n; i++) { p *= x[i] + 1.5; lo = x[i] < lo ? x[i] : lo; }
  out[0] = p;
  out[1] = lo;
}
"""


def test_integer_sum_product_and_min_reductions():
    """atomicAdd on int; the product and the minimum of doubles go through CAS loops."""
    cases = [{"n": n, "x": n, "out": 1} for n in (700, 1, 0)]
    check_against_gcc(MORE_REDUCTIONS, "isum", cases, AutogpuVanillaPipeline(block_size=64))
    cases = [{"n": n, "x": n, "out": 2} for n in (300, 1, 0)]
    check_against_gcc(MORE_REDUCTIONS, "prod", cases, AutogpuVanillaPipeline(block_size=64),
                      compare=close_sums)  # fmt: skip


SERIAL_MIX = """
void serial_mix(float *x, int n) {
  float first = x[0];
  x[0] = 1.0f;
#pragma omp parallel for
  for (int i = 1; i < n; i++)
    x[i] = x[i] - first;
  float last = x[n - 1];
  x[0] = x[0] + last;
}
"""


def test_serial_code_and_values_across_launches():
    """Serial kernels before and after the nest; `first` crosses launches through a global."""
    after = lowered(c_module(SERIAL_MIX))
    assert len(kernels(after)) == 3
    cases = [{"n": n, "x": max(n, 1) + 2} for n in (300, 1, 2)]
    check_against_gcc(SERIAL_MIX, "serial_mix", cases, SMALL_BLOCKS)


STRIDED = """
void strided(float *a, int lo, int n) {
#pragma omp parallel for
  for (int i = lo; i < n; i += 3)
    a[i] = a[i] * 2.0f + (float)i;
}
"""


@pytest.mark.parametrize("indexing", [Indexing.SPARSE, Indexing.DENSE])
def test_strided_loop(indexing):
    module = c_module(STRIDED)
    (loop,) = loops(module)
    loop.indexing = IndexingAttr(indexing)
    cases = [{"lo": lo, "n": n, "a": n + 5} for lo, n in ((2, 200), (0, 1), (5, 3), (1, 98))]
    check_against_gcc(STRIDED, "strided", cases, SMALL_BLOCKS, module=module)


def test_unrolled_matmul():
    """unroll 3 on the thread loop: three guarded replicas per thread."""
    module = c_module(example("matmul.c"))
    loops(module)[1].unroll = IntegerAttr(3, i64)
    cases = [matmul(50, 4, 3), matmul(1, 2, 1), matmul(16, 1, 2)]
    check_against_gcc(example("matmul.c"), "matmul", cases,
                      AutogpuVanillaPipeline(block_size=16), module=module)  # fmt: skip


def test_grid_stride_loops_cover_any_grid():
    """Launched with grid y and z forced to 2 (as when a size exceeds CUDA's 65535), the
    grid-stride loops still cover every iteration."""
    source = """
    void nest3(float *a, int l, int m, int n) {
    #pragma omp parallel for collapse(3)
      for (int k = 0; k < l; k++)
        for (int j = 0; j < m; j++)
          for (int i = 0; i < n; i++)
            a[i + n * (j + m * k)] += (float)(i - j * k);
    }"""

    def small_grid(launch: dict) -> None:
        (entry,) = launch["functions"][0]["launches"]
        entry["grid"][1:] = ["2", "2"]

    cases = [{"l": 5, "m": 7, "n": 40, "a": 5 * 7 * 40}, {"l": 1, "m": 3, "n": 1, "a": 3}]
    check_against_gcc(source, "nest3", cases, SMALL_BLOCKS, edit_launch=small_grid)


def test_nest_deeper_than_three_and_mapping():
    """Four parallel loops: the outermost stays serial; `mapping x` on the second puts it on
    the threads instead of the innermost."""
    source = """
    void nest4(float *a, int n) {
    #pragma omp parallel for collapse(4)
      for (int l = 0; l < n; l++)
        for (int k = 0; k < n; k++)
          for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
              a[i + n * (j + n * (k + n * l))] = (float)(l - 2 * k + 3 * j - i);
    }"""
    module = c_module(source)
    assert len(loops(module)) == 4
    loops(module)[1].mapping = DimensionAttr(DimensionEnum.X)
    cases = [{"n": n, "a": n**4} for n in (5, 1)]
    check_against_gcc(source, "nest4", cases, AutogpuVanillaPipeline(block_size=4, block_y=2),
                      module=module)  # fmt: skip
