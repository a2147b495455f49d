"""agpu-specialize, the size requirements it records, and the guards the lowering leaves out once
sizes are constants: option parsing and errors; the specialised C-level IR against the original on
the interpreter; specialised pipelines (with parallel unrolling, staging, full unrolling of the
conv2d template loops) lowered and run by the CPU emulation against gcc at sizes that divide
block x unroll (no guard left in the kernel) and at sizes that do not; the `requires` entry of the
launch description and its check; nvcc compiles every kernel."""

from __future__ import annotations

import re

import numpy as np
import pytest
from lowered_differential import (
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
from pass_differential import check_equivalent, module_of, transformed
from xdsl.dialects import func, gpu, scf

from autogpu.diagnostics import CompileError
from autogpu.passes.agpu_specialize import AgpuSpecializePass, parse_sizes
from autogpu.passes.agpu_unroll_serial import AgpuUnrollSerialPass
from autogpu.runtime.arguments import (
    KernelArgumentError,
    LaunchDescriptionError,
    check_requirements,
    parse_launch_description,
)
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.target.requirements import (
    describe_requirements,
    requirements_of,
)
from autogpu.testing.nvcc import assert_compiles_with_nvcc

STAGE = "agpu-stage-accumulations{assume_no_alias=true}"


# ---------------------------------------------------------------------------------------------
# Options
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, sizes",
    [
        ("m=2048,n=2048", {"m": 2048, "n": 2048}),
        (" m=1  n=-4 ,t=5 ", {"m": 1, "n": -4, "t": 5}),
        ("", {}),
        ("big=+4294967295", {"big": 4294967295}),
    ],
)
def test_parse_sizes(text, sizes):
    assert parse_sizes(text) == sizes


@pytest.mark.parametrize(
    "text, message",
    [
        ("m", "invalid size 'm': expected NAME=INTEGER"),
        ("m=2.5", "invalid size 'm=2.5'"),
        ("2m=3", "invalid size '2m=3'"),
        ("m=1,m=1", "'m' is given twice"),
    ],
)
def test_invalid_sizes(text, message):
    with pytest.raises(CompileError, match=message):
        AgpuSpecializePass(sizes=text)


def test_unknown_parameter_leaves_a_clear_error():
    module = module_of(example("saxpy.c"))
    with pytest.raises(CompileError, match="no function has a parameter named 'm'"):
        AgpuSpecializePass(sizes="m=3").apply(None, module)  # pyright: ignore
    with pytest.raises(CompileError, match="parameter 'a' of function 'saxpy' has type f32"):
        AgpuSpecializePass(sizes="a=3").apply(None, module)  # pyright: ignore


# ---------------------------------------------------------------------------------------------
# The specialised IR computes what the original computes at those sizes (interpreter)
# ---------------------------------------------------------------------------------------------
def test_specialised_ir_matches_the_original():
    before = module_of(example("conv2d.c"))
    after = transformed(
        before, AgpuSpecializePass(sizes="t=5"), AgpuUnrollSerialPass(loops=("u", "v"))
    )
    fn = next(op for op in after.ops if isinstance(op, func.FuncOp))
    assert requirements_of(fn) == {"t": 5}
    assert fn.function_type == _host(before).function_type
    assert not any(isinstance(op, scf.ForOp) for op in after.walk())  # both template loops gone
    check_equivalent(before, after, "conv2d", [conv2d(6, 4, 5), conv2d(1, 1, 5), conv2d(0, 2, 5)])

    before = module_of(example("matmul.c"))
    after = transformed(before, AgpuSpecializePass(sizes="m=7,p=3"))
    check_equivalent(before, after, "matmul", [matmul(7, 5, 3), matmul(7, 0, 3)])


# ---------------------------------------------------------------------------------------------
# Lowered: guards only where the grid does not cover the domain exactly
# ---------------------------------------------------------------------------------------------
def kernel_ifs(module) -> int:
    kernels = [op for op in module.walk() if isinstance(op, gpu.FuncOp)]
    return sum(isinstance(op, scf.IfOp) for kernel in kernels for op in kernel.walk())


def checked_call(entry, case):
    """The launch description's `requires` (as the executors will check it): the specialised
    sizes must be the case's."""
    check_requirements(entry, {k: v for k, v in case.items() if isinstance(v, int)})


def matmul_pipeline(sizes: str, unroll: str = "x=2 y=8") -> str:
    return (
        f'agpu-specialize{{sizes="{sizes}"}},{STAGE},agpu-unroll-parallel{{{unroll}}},'
        "autogpu-vanilla{block_size=16}"
    )


# (id, source, function, pipeline, case, guards expected in the kernel, options)
SPECIALISED = [
    # tiles of 32 x 8 on 64 x 16: exact
    ("matmul-exact", example("matmul.c"), "matmul", matmul_pipeline("m=64,n=16,p=3"),
     matmul(64, 16, 3), False, {}),
    ("matmul-ragged", example("matmul.c"), "matmul", matmul_pipeline("m=67,n=19,p=1"),
     matmul(67, 19, 1), True, {}),
    # rows exact (16 = 2 x 8), columns ragged
    ("matmul-ragged-x", example("matmul.c"), "matmul", matmul_pipeline("m=40,n=16,p=2"),
     matmul(40, 16, 2), True, {}),
    # no unrolling: 64 = 4 x 16, one grid pass over 16 rows
    ("matmul-exact-u1", example("matmul.c"), "matmul", matmul_pipeline("m=64,n=16,p=2", "x=1"),
     matmul(64, 16, 2), False, {}),
    ("conv2d-t5", example("conv2d.c"), "conv2d",
     'agpu-specialize{sizes="t=5 n=32 m=4"},agpu-unroll-serial{loops=u,v},'
     "agpu-unroll-parallel{x=2 y=2},autogpu-vanilla{block_size=16}",
     conv2d(32, 4, 5), False, {}),
    ("conv2d-t5-ragged", example("conv2d.c"), "conv2d",
     'agpu-specialize{sizes="t=5 n=35 m=7"},agpu-unroll-serial{loops=u,v},'
     "agpu-unroll-parallel{x=2 y=2},autogpu-vanilla{block_size=16}",
     conv2d(35, 7, 5), True, {}),
    # interior 8 x 32 in tiles of 4 x 16
    ("jacobi-exact", example("stencil2d.c"), "jacobi2d",
     'agpu-specialize{sizes="n=10,m=34"},agpu-unroll-parallel{x=2 y=4},'
     "autogpu-vanilla{block_size=8}", jacobi(10, 34), False, {}),
    ("jacobi-ragged", example("stencil2d.c"), "jacobi2d",
     'agpu-specialize{sizes="n=13,m=37"},agpu-unroll-parallel{x=2 y=4},'
     "autogpu-vanilla{block_size=8}", jacobi(13, 37), True, {}),
    ("saxpy-exact", example("saxpy.c"), "saxpy",
     'agpu-specialize{sizes="n=256"},agpu-unroll-parallel{x=4},autogpu-vanilla{block_size=32}',
     saxpy(256), False, {}),
    ("saxpy-ragged", example("saxpy.c"), "saxpy",
     'agpu-specialize{sizes="n=259"},agpu-unroll-parallel{x=4},autogpu-vanilla{block_size=32}',
     saxpy(259), True, {}),
    ("dot-exact", example("dot.c"), "dot",
     'agpu-specialize{sizes="n=256"},agpu-unroll-parallel{x=4},autogpu-vanilla{block_size=32}',
     {"n": 256, "x": 256, "y": 256, "result": 1}, True, dict(compare=close_sums)),
]  # fmt: skip


@pytest.mark.parametrize(
    "source, function, pipeline, case, guarded, options",
    [pytest.param(*config[1:], id=config[0]) for config in SPECIALISED],
)
def test_specialised_matches_gcc(source, function, pipeline, case, guarded, options):
    module = lowered(source, pipeline)
    # dot's kernel keeps the reduction tree's `if (tx < stride)`: only bounds guards matter
    if function != "dot":
        assert (kernel_ifs(module) > 0) == guarded
    check_against_gcc(source, function, pipeline, [case], before_run=_with_requires(module),
                      **options)  # fmt: skip


def _with_requires(module):
    def check(entry, case):
        assert entry["requires"] == requirements_of(_host(module))
        checked_call(entry, case)

    return check


def _host(module) -> func.FuncOp:
    return next(op for op in module.ops if isinstance(op, func.FuncOp))


def test_every_specialised_kernel_compiles_with_nvcc():
    programs = [cuda_of(source, pipeline) for _, source, _, pipeline, *_ in SPECIALISED]
    assert_compiles_with_nvcc(one_translation_unit(programs))


# ---------------------------------------------------------------------------------------------
# The launch description's requirements
# ---------------------------------------------------------------------------------------------
def test_requirements_in_the_launch_description():
    pipeline = matmul_pipeline("m=2048,n=2048,p=2048")
    program = cuda_of(example("matmul.c"), pipeline)
    (entry,) = program.launch["functions"]
    assert entry["requires"] == {"m": 2048, "n": 2048, "p": 2048}
    assert entry["launches"][0]["grid"] == ["64", "256", "1"]  # constants: 2048 / 32, 2048 / 8
    again = {"functions": [dict(entry)]}
    describe_requirements(lowered(example("matmul.c"), pipeline), again)
    assert again["functions"][0]["requires"] == entry["requires"]
    check_requirements(entry, {"m": 2048, "n": 2048, "p": 2048})
    with pytest.raises(KernelArgumentError, match=r"matmul\(\) was compiled for m = 2048 "
                       r"\(agpu-specialize\) and cannot run with m = 3000"):  # fmt: skip
        check_requirements(entry, {"m": 3000, "n": 2048, "p": 2048})
    with pytest.raises(KernelArgumentError, match=r"p = 2048 .* p = 1"):
        check_requirements(entry, {"m": 2048, "n": 2048, "p": 1})


def test_executors_refuse_other_sizes_before_running():
    """The CPU executor (through `bind_arguments`, shared with the GPU executor) refuses a call
    with other sizes, before any kernel runs: the output array is untouched."""
    program = cuda_of(example("saxpy.c"), 'agpu-specialize{sizes="n=64"},autogpu-vanilla')
    runner = CpuProgram(program.source, program.launch, threads=1)
    x, y = np.ones(100, np.float32), np.zeros(100, np.float32)
    runner.run("saxpy", 64, 2.0, x, y)
    assert (y[:64] == 2.0).all()
    assert (y[64:] == 0.0).all()
    with pytest.raises(KernelArgumentError, match=r"saxpy\(\) was compiled for n = 64 .* n = 100"):
        runner.run("saxpy", 100, 2.0, x, y)
    assert (y[64:] == 0.0).all()


@pytest.mark.parametrize(
    "requires, message",
    [
        ([1], "'requires' of 'saxpy' must map parameters to integers"),
        ({"x": 3}, "requires x = 3, but only integer values of its scalar parameters"),
        ({"n": "64"}, "requires n = '64'"),
        ({"q": 1}, "requires q = 1"),
    ],
)
def test_malformed_requirements_are_refused(requires, message):
    program = cuda_of(example("saxpy.c"), 'agpu-specialize{sizes="n=64"},autogpu-vanilla')
    launch = {"functions": [dict(program.launch["functions"][0], requires=requires)]}
    with pytest.raises(LaunchDescriptionError, match=re.escape(message)):
        parse_launch_description(launch)


def test_unspecialised_functions_require_nothing():
    module = lowered(example("saxpy.c"), "autogpu-vanilla")
    launch = {"functions": [{"name": "saxpy", "params": [], "launches": []}]}
    describe_requirements(module, launch)
    assert "requires" not in launch["functions"][0]
    check_requirements(launch["functions"][0], {"n": 12345})
