"""gpu-cache-shared: options and errors, where it fires and where it must not, the structure of
the cached kernels (barriers only under block-uniform control flow), and differential tests:
every example through the pass, printed as CUDA and run by the CPU emulation (threads of a block
in random order between barriers, shared memory poisoned with 0xFF), leaves exactly the outputs
of gcc's build of the serial C, at sizes that do and do not divide the tile and the block. Every
emitted source is also compiled by nvcc, and run on a GPU where there is one. The compositions
with agpu-specialize, unrolling (the lowering's jammed replicas) and gpu-optimize-guards (before
and after) are among the cases."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest
from lowered_differential import agree_with_gcc, example, matmul, one_translation_unit, parsed_c
from xdsl.dialects import gpu, memref, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, i64
from xdsl.ir import Operation, SSAValue

from autogpu.api import parse_pipeline
from autogpu.context import make_context
from autogpu.diagnostics import CompileError
from autogpu.dialects.agpu import ParallelForOp
from autogpu.passes.gpu_cache_shared import GpuCacheSharedPass
from autogpu.runtime import cuda_exec
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.target.cuda_target import emit_cuda
from autogpu.testing.nvcc import assert_compiles_with_nvcc

STAGED = "agpu-stage-accumulations{assume_no_alias=true},"
CACHE = "gpu-cache-shared{assume_no_alias=true%s}"


@pytest.fixture(autouse=True, scope="module")
def private_cache(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AUTOGPU_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


def specialised_conv2d(t: int) -> str:
    """examples/conv2d.c with the template size a compile-time constant (what agpu-specialize
    will produce from the C function)."""
    return f"#define t {t}\n" + example("conv2d.c").replace(", int t)", ")")


def pipeline(block: str = "block_size=32", cache: str = "", staged: bool = True) -> str:
    return f"{STAGED if staged else ''}autogpu-vanilla{{{block}}}," + CACHE % (
        f" {cache}" if cache else ""
    )


# ---------------------------------------------------------------------------------------------
# Compilation, shared between tests (one lowering and one CPU build per source and pipeline)
# ---------------------------------------------------------------------------------------------
def _with_unroll(module: ModuleOp, unroll: int) -> ModuleOp:
    """The innermost parallel loop (on x) unrolled by `unroll`."""
    loops = [op for op in module.walk() if isinstance(op, ParallelForOp)]
    loops[-1].unroll = IntegerAttr(unroll, i64)
    return module


@functools.cache
def transformed(source: str, spec: str, unroll: int = 1) -> ModuleOp:
    module = parsed_c(source).clone()
    if unroll > 1:
        _with_unroll(module, unroll)
    parse_pipeline(spec).apply(make_context(), module)
    module.verify()
    return module


@functools.cache
def cuda(source: str, spec: str, unroll: int = 1):
    return emit_cuda(transformed(source, spec, unroll))


@functools.cache
def cpu_program(source: str, spec: str, unroll: int = 1, order: str = "random") -> CpuProgram:
    program = cuda(source, spec, unroll)
    return CpuProgram(program.source, program.launch, threads=1, thread_order=order)


def check_against_gcc(
    source: str,
    function: str,
    spec: str,
    cases: Sequence[Mapping[str, Any]],
    unroll: int = 1,
    order: str = "random",
) -> None:
    program = cpu_program(source, spec, unroll, order)
    agree_with_gcc(program, source, function, cases)


def conv2d(n, m, t, specialised=False):
    sizes = {"n": n, "m": m, "t": t, "out": max(n * m, 1), "tmpl": max(t * t, 1),
             "in": max((n + t - 1) * (m + t - 1), 1)}  # fmt: skip
    if specialised:
        del sizes["t"]
    return sizes


def jacobi(n, m):
    return {"n": n, "m": m, "in": n * m, "out": n * m}


def kernels(module: ModuleOp) -> list[gpu.FuncOp]:
    return [op for op in module.walk() if isinstance(op, gpu.FuncOp)]


def shared_arrays(module: ModuleOp) -> dict[str, tuple[int, ...]]:
    """name hint -> shape of every `__shared__` array."""
    found = {}
    for op in module.walk():
        if isinstance(op, memref.AllocaOp):
            type = op.memref.type
            assert isinstance(type, MemRefType)
            if isinstance(type.memory_space, IntegerAttr) and type.memory_space.value.data == 3:
                found[op.memref.name_hint] = tuple(type.get_shape())
    return found


def global_loads(module: ModuleOp, name: str) -> list[memref.LoadOp]:
    return [
        op
        for op in module.walk()
        if isinstance(op, memref.LoadOp) and op.memref.name_hint == name
    ]


# ---------------------------------------------------------------------------------------------
# Polynomial index forms (autogpu/passes/analysis/polynomial.py)
# ---------------------------------------------------------------------------------------------
POLY_IR = """
func.func @f(%i: i32, %m: i32, %tx: index, %b: index) {
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : index
  %im1 = arith.subi %i, %c1 : i32
  %row = arith.muli %im1, %m : i32
  %up = arith.addi %row, %i : i32
  %ip1 = arith.addi %i, %c1 : i32
  %row2 = arith.muli %ip1, %m : i32
  %down = arith.addi %row2, %i : i32
  %sq = arith.muli %i, %i : i32
  %g = arith.muli %b, %c32 : index
  %gid = arith.addi %g, %tx : index
  %t = arith.index_cast %gid : index to i32
  %big = arith.constant 4294967296 : index
  %wrap = arith.addi %gid, %big : index
  %t2 = arith.index_cast %wrap : index to i32
  func.return
}
"""


def _poly_values():
    from xdsl.parser import Parser

    from autogpu.passes.analysis.polynomial import PolynomialAnalysis

    module = Parser(make_context(), POLY_IR).parse_module()
    values = {}
    for op in module.walk():
        for result in op.results:
            values[result.name_hint] = result
        for region in op.regions:
            for arg in region.block.args:
                values[arg.name_hint] = arg
    return PolynomialAnalysis(), values


def test_polynomials_see_through_products():
    """(i - 1) * m + i and (i + 1) * m + i differ by 2 * m, i.e. by two rows of m."""
    polys, v = _poly_values()
    up, down = polys.poly(v["up"]), polys.poly(v["down"])
    difference = down.minus(up)
    (monomial,) = difference.terms
    assert difference.signed(monomial) == 2
    assert polys.atom_id(v["m"]) in monomial
    split = up.split(polys.atom_id(v["i"]))
    assert split is not None
    coefficient, _rest = split
    assert coefficient.key == polys.poly(v["m"]).plus(polys.poly(v["c1"])).key  # m + 1
    assert up.split(polys.atom_id(v["m"])) is not None
    assert polys.poly(v["sq"]).split(polys.atom_id(v["i"])) is None  # i * i: not affine


def test_polynomials_look_through_truncation_exactly():
    """(int)(32 * b + tx) is 32 * b + tx in i32; adding 2^32 before the cast changes
    nothing in i32 (truncation is a ring homomorphism), and the analysis knows it."""
    polys, v = _poly_values()
    t = polys.poly(v["t"])
    assert t.width == 32
    assert t.split(polys.atom_id(v["tx"])) is not None
    assert polys.poly(v["t2"]).key == t.key


# ---------------------------------------------------------------------------------------------
# Options and errors
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options, message",
    [
        (dict(tile=-1), "tile must be at least 1 (or 0), got -1"),
        (dict(shared_budget=-5), "shared_budget must be at least 0 bytes, got -5"),
        (dict(max_extent=-2), "max_extent must be at least 0, got -2"),
        (dict(arrays=("1x",)), "arrays must list C parameter names, got '1x'"),
    ],
)
def test_invalid_options(options, message):
    with pytest.raises(CompileError, match=message.replace("(", r"\(").replace(")", r"\)")):
        GpuCacheSharedPass(**options)


def test_options_from_a_pipeline_spec():
    spec = "gpu-cache-shared{tile=8 arrays=C,tmpl halo=false shared_budget=1024 max_extent=7}"
    (cache,) = parse_pipeline(spec).passes
    assert cache == GpuCacheSharedPass(
        tile=8, arrays=("C", "tmpl"), halo=False, shared_budget=1024, max_extent=7
    )


def test_unknown_array_is_an_error():
    with pytest.raises(CompileError, match="arrays=D: no kernel has a parameter 'D'"):
        transformed(example("matmul.c"), pipeline(cache="arrays=D"))


def test_remarks_say_what_and_why(capfd):
    """Not cached: A (written), B (each element read once); cached: C, strip-mined."""
    transformed(example("matmul.c"), pipeline(cache="remarks=true tile=16"))
    err = capfd.readouterr().err
    assert "'A' not cached: the kernel writes it" in err
    assert "'B' not cached: no reuse" in err
    assert "'C' cached (thread-invariant) in __shared__ C_sh[16]" in err
    assert "strip-mined by 16" in err


# ---------------------------------------------------------------------------------------------
# Structure
# ---------------------------------------------------------------------------------------------
def _thread_dependent(value: SSAValue, block: tuple[int, ...], seen=None) -> bool:
    """Whether `value` may differ between the threads of a block (an independent check: any
    `threadIdx` along a dimension of size > 1, or a load, in its backward slice)."""
    seen = set() if seen is None else seen
    if value in seen:
        return False
    seen.add(value)
    owner = value.owner
    if not isinstance(owner, Operation):
        parent = owner.parent_op()
        if isinstance(parent, scf.ForOp) and value is owner.args[0]:
            return any(_thread_dependent(v, block, seen) for v in (parent.lb, parent.step))
        return not isinstance(parent, gpu.FuncOp)
    if isinstance(owner, gpu.ThreadIdOp):
        return block["xyz".index(str(owner.dimension.data))] > 1
    if isinstance(owner, (memref.LoadOp, memref.AllocaOp)):
        return True
    return any(_thread_dependent(v, block, seen) for v in owner.operands)


def assert_barriers_uniform(module: ModuleOp) -> int:
    """Every barrier runs in every thread of the block: no thread-dependent `if` or loop
    around it (a syntactic check, stricter than the pass's). Returns the number of barriers."""
    count = 0
    for kernel in kernels(module):
        assert kernel.known_block_size is not None, kernel.sym_name
        block = kernel.known_block_size.get_values()
        for op in kernel.walk():
            if not isinstance(op, gpu.BarrierOp):
                continue
            count += 1
            parent = op.parent_op()
            while parent is not kernel:
                assert parent is not None, "a barrier outside its kernel"
                if isinstance(parent, scf.IfOp):
                    assert not _thread_dependent(parent.cond, block), "barrier under a guard"
                elif isinstance(parent, scf.ForOp):
                    for bound in (parent.lb, parent.ub, parent.step):
                        assert not _thread_dependent(bound, block), "barrier in a thread loop"
                else:
                    raise AssertionError(f"barrier inside {parent.name}")
                parent = parent.parent_op()
    return count


def test_mm2_structure():
    """mm_1 -> mm_2: C is read from a 32-element tile in a loop strip-mined by 32, between two
    barriers all threads reach; B and A stay in global memory."""
    module = transformed(example("matmul.c"), pipeline())
    assert shared_arrays(module) == {"C_sh": (32,)}
    assert assert_barriers_uniform(module) == 2
    (c_load,) = global_loads(module, "C")  # the cooperative load only
    assert isinstance(c_load.parent_op(), scf.IfOp)
    tile_loop = next(op for op in module.walk() if isinstance(op, scf.ForOp)
                     and op.body.block.args[0].name_hint == "k_tile")  # fmt: skip
    assert tile_loop.step.owner.value.value.data == 32  # pyright: ignore
    (shared_read,) = [op for op in module.walk() if isinstance(op, memref.LoadOp)
                      and op.memref.name_hint == "C_sh"]  # fmt: skip
    assert isinstance(shared_read.parent_op(), scf.ForOp)  # the loop over one tile
    assert len(global_loads(module, "B")) == 1


def test_conv2d_halo_and_template_structure():
    """t = 3: the (32 + 2) x 3 window of `in` and the whole 3 x 3 template, the template loaded
    once per block before the grid-stride loop."""
    module = transformed(specialised_conv2d(3), pipeline(staged=False))
    assert shared_arrays(module) == {"in_sh": (102,), "tmpl_sh": (9,)}
    assert assert_barriers_uniform(module) == 3
    (kernel,) = kernels(module)
    top = [op for op in kernel.body.block.ops]
    grid_loop = next(op for op in top if isinstance(op, scf.ForOp))
    assert any(isinstance(op, gpu.BarrierOp) for op in top[: top.index(grid_loop)])


def test_stencil_2d_tile():
    """2D blocks of 32 x 4: a (32 + 2) x (4 + 2) tile for the four taps."""
    module = transformed(example("stencil2d.c"), pipeline("block_size=32 block_y=4", staged=False))
    assert shared_arrays(module) == {"in_sh": (204,)}
    assert assert_barriers_uniform(module) == 2
    assert len(global_loads(module, "in")) == 1


NOT_UNIT = """
void pairs(const float *in, float *restrict out, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) out[i] = in[2 * i] + in[2 * i + 1];
}
"""
WRITTEN = """
void smooth(float *a, float *restrict b, int n, int t) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int k = 0; k < t; k++) s += a[k];
    a[t + i] = s;
    b[i] = s;
  }
}
"""


@pytest.mark.parametrize(
    "source, spec, array, why",
    [
        (NOT_UNIT, pipeline(staged=False), "in", "no reuse"),
        (WRITTEN, pipeline(staged=False), "a", "the kernel writes it"),
        (example("conv2d.c"), pipeline(staged=False), "in",
         "the trip count of the loop over 'u' is not a compile-time constant"),
        (specialised_conv2d(5), pipeline(staged=False, cache="shared_budget=100"), "in",
         "over the budget of 100"),
        (example("matmul.c"), "agpu-stage-accumulations,autogpu-vanilla{block_size=32},"
         "gpu-cache-shared{remarks=true}", "C", "may alias it"),
        (example("matmul.c"), pipeline(cache="thread_invariant=false"), "C", "disabled"),
        (example("stencil2d.c"), pipeline("block_size=32 block_y=4", cache="halo=false"),
         "in", "halo caching is disabled"),
        (example("matmul.c"), pipeline(cache="arrays=B"), "C", None),
    ],
    ids=["non-unit-stride", "written", "runtime-window", "budget", "aliasing",
         "thread-invariant-off", "halo-off", "not-selected"],
)  # fmt: skip
def test_does_not_fire(source, spec, array, why, capfd):
    if "remarks" not in spec:
        spec = spec[:-1] + " remarks=true}"
    module = transformed(source, spec)
    loads = global_loads(module, array)
    assert loads
    assert not any(name.startswith(f"{array}_sh") for name in shared_arrays(module)), \
        "cached although it must not be"
    err = capfd.readouterr().err
    if why is not None:
        assert f"'{array}' not cached" in err, err
        assert why in err, err


def test_budget_chooses_a_smaller_window():
    """t = 5: the 36 x 5 window of `in` (720 bytes) does not fit 400 bytes, one row of it
    per iteration of v (144 bytes) does."""
    module = transformed(specialised_conv2d(5), pipeline(staged=False, cache="shared_budget=400"))
    assert shared_arrays(module) == {"in_sh": (36,), "tmpl_sh": (25,)}


def test_a_rewrite_failing_half_way_starts_the_kernel_over(monkeypatch, capfd):
    """Should barriers turn out impossible to make uniform after the tile was inserted, the
    kernel is started over without that group: the template is then cached, the window not,
    and the kernel is still right."""
    import autogpu.passes.gpu_cache_shared as cache_pass
    from autogpu.passes.gpu_cache_shared.uniform_control import NotUniform

    real = cache_pass.distribute_guards
    calls = []

    def failing_once(facts):
        calls.append(facts)
        if len(calls) == 1:
            raise NotUniform("injected failure")
        return real(facts)

    monkeypatch.setattr(cache_pass, "distribute_guards", failing_once)
    source = specialised_conv2d(3)
    module = parsed_c(source).clone()
    parse_pipeline(pipeline(staged=False, cache="remarks=true")).apply(make_context(), module)
    module.verify()
    assert "'in' not cached: injected failure (rewrite abandoned)" in capfd.readouterr().err
    assert shared_arrays(module) == {"tmpl_sh": (9,)}
    program = emit_cuda(module)
    cpu = CpuProgram(program.source, program.launch, threads=1, thread_order="random")
    agree_with_gcc(cpu, source, "conv2d", [conv2d(40, 5, 3, True)], seeds=(0,))


def test_template_alone_is_strip_mined_when_t_is_unknown():
    """Runtime t: the window of `in` is not cached, the template (thread-invariant) is,
    strip-mined along u."""
    module = transformed(example("conv2d.c"), pipeline(staged=False))
    assert shared_arrays(module) == {"tmpl_sh": (32,)}


# ---------------------------------------------------------------------------------------------
# Differential tests
# ---------------------------------------------------------------------------------------------
MATMUL_CASES = [matmul(67, 35, 41), matmul(64, 3, 64), matmul(1, 1, 1), matmul(33, 2, 0),
                matmul(0, 3, 2), matmul(5, 2, 100)]  # fmt: skip
JACOBI_CASES = [jacobi(9, 70), jacobi(2, 2), jacobi(3, 35), jacobi(37, 41), jacobi(66, 3)]

DIFFERENTIAL = [
    # (id, source, function, pipeline, cases, unroll)
    ("matmul", example("matmul.c"), "matmul", pipeline(), MATMUL_CASES, 1),
    ("matmul-2d", example("matmul.c"), "matmul", pipeline("block_size=32 block_y=4"),
     MATMUL_CASES, 1),
    ("matmul-tile8", example("matmul.c"), "matmul", pipeline(cache="tile=8"), MATMUL_CASES, 1),
    ("matmul-tile80", example("matmul.c"), "matmul", pipeline("block_size=16", "tile=80"),
     MATMUL_CASES, 1),
    ("matmul-unroll2", example("matmul.c"), "matmul", pipeline("block_size=16"),
     MATMUL_CASES, 2),
    ("matmul-unstaged", example("matmul.c"), "matmul", pipeline(staged=False), MATMUL_CASES, 1),
    ("matmul-then-unroll", example("matmul.c"), "matmul",
     pipeline() + ",agpu-unroll-serial{factor=4 loops=k}", MATMUL_CASES, 1),
    ("matmul-unrolled", example("matmul.c"), "matmul", STAGED + "agpu-unroll-parallel{x=2 y=2},"
     "agpu-unroll-serial{factor=4 loops=k}," + pipeline("block_size=16 block_y=4", staged=False),
     MATMUL_CASES, 1),
    ("matmul-p64", example("matmul.c"), "matmul", 'agpu-specialize{sizes="p=64"},' + pipeline(),
     [matmul(67, 35, 64), matmul(1, 1, 64), matmul(0, 2, 64)], 1),
    ("conv-t3", specialised_conv2d(3), "conv2d", pipeline(staged=False),
     [conv2d(n, m, 3, True) for n, m in ((19, 7), (40, 5), (1, 1), (0, 3), (33, 2))], 1),
    ("conv-t5-2d", specialised_conv2d(5), "conv2d", pipeline("block_size=32 block_y=4",
     staged=False), [conv2d(n, m, 5, True) for n, m in ((19, 7), (40, 5), (1, 1), (70, 9))], 1),
    ("conv-t3-unroll3", specialised_conv2d(3), "conv2d", pipeline("block_size=16", staged=False),
     [conv2d(n, m, 3, True) for n, m in ((19, 7), (50, 3), (1, 1))], 3),
    ("conv-runtime-t", example("conv2d.c"), "conv2d", pipeline(staged=False),
     [conv2d(19, 7, 3), conv2d(9, 3, 35), conv2d(1, 1, 1), conv2d(3, 3, 0)], 1),
    ("conv-max-extent", example("conv2d.c"), "conv2d", pipeline("block_size=32 block_y=2",
     "max_extent=5", staged=False), [conv2d(19, 7, 3), conv2d(40, 5, 5), conv2d(20, 3, 6),
     conv2d(1, 1, 1), conv2d(3, 3, 0)], 1),
    ("stencil-1d-block", example("stencil2d.c"), "jacobi2d", pipeline(staged=False),
     JACOBI_CASES, 1),
    ("stencil-2d", example("stencil2d.c"), "jacobi2d", pipeline("block_size=32 block_y=4",
     staged=False), JACOBI_CASES, 1),
    ("stencil-2d-unroll2", example("stencil2d.c"), "jacobi2d", pipeline(
     "block_size=16 block_y=2", staged=False), JACOBI_CASES, 2),
    ("conv-specialised", example("conv2d.c"), "conv2d", 'agpu-specialize{sizes="t=5"},'
     + pipeline("block_size=32 block_y=2", staged=False),
     [conv2d(n, m, 5) for n, m in ((19, 7), (40, 5), (1, 1))], 1),
    ("matmul-guards-then-cache", example("matmul.c"), "matmul", STAGED
     + "autogpu-vanilla{block_size=32 block_y=4},gpu-optimize-guards,"
     + CACHE % "", MATMUL_CASES, 1),
    ("stencil-cache-then-guards", example("stencil2d.c"), "jacobi2d",
     pipeline("block_size=32 block_y=4", staged=False) + ",gpu-optimize-guards",
     JACOBI_CASES, 1),
    ("pairs", NOT_UNIT, "pairs", pipeline(staged=False),
     [{"n": n, "in": 2 * n + 1, "out": n + 1} for n in (70, 1)], 1),
]  # fmt: skip


@pytest.mark.parametrize(
    "source, function, spec, cases, unroll",
    [case[1:] for case in DIFFERENTIAL],
    ids=[case[0] for case in DIFFERENTIAL],
)
def test_matches_gcc(source, function, spec, cases, unroll):
    check_against_gcc(source, function, spec, cases, unroll)


def test_fires_where_expected():
    """The differential cases above exercise the cached code, not the fallback."""
    fired = {
        name: shared_arrays(transformed(source, spec, unroll))
        for name, source, _, spec, _, unroll in DIFFERENTIAL
    }
    assert fired["matmul"] == {"C_sh": (32,)}
    # 32 k by 4 columns j; and B, shared by the 4 rows of threads: 32 i by 32 k
    assert fired["matmul-2d"] == {"C_sh": (128,), "B_sh": (1024,)}
    assert fired["matmul-tile8"] == {"C_sh": (8,)}
    assert fired["matmul-tile80"] == {"C_sh": (80,)}  # loaded in 5 rounds of 16 threads
    assert fired["matmul-unroll2"] == {"C_sh": (16,)}
    assert fired["matmul-p64"] == {"C_sh": (64,)}  # p = 64: the whole column of C, once per j
    # k unrolled by 4, i and j by 2 (a k loop each): the 4 copies in a k loop share one tile,
    # B: 4 iterations x 16 i x 4 copies, C: 4 iterations x 4 j x 4 copies
    assert fired["matmul-unrolled"] == {"B_sh": (256,), "C_sh": (64,)}
    assert fired["conv-t3"] == {"in_sh": (102,), "tmpl_sh": (9,)}
    assert fired["conv-t5-2d"] == {"in_sh": (288,), "tmpl_sh": (25,)}  # (32+4) x (4+4)
    assert fired["conv-t3-unroll3"]["in_sh"] == (150,)  # (3 x 16 + 2) x 3
    assert fired["conv-max-extent"] == {"in_sh": (216,), "tmpl_sh": (25,)}  # (32+4) x (2+4)
    assert fired["stencil-1d-block"] == {"in_sh": (102,)}  # (32 + 2) x 3
    assert fired["stencil-2d-unroll2"] == {"in_sh": (136,)}  # (2 x 16 + 2) x (2 + 2)
    assert fired["conv-specialised"] == {"in_sh": (216,), "tmpl_sh": (25,)}
    # 2D tiling of matmul: 32 k x 32 i of B, shared by the 4 rows of threads, and 32 k x 4 j
    # of C, shared by the 32 columns
    assert fired["matmul-guards-then-cache"] == {"B_sh": (1024,), "C_sh": (128,)}
    assert fired["stencil-cache-then-guards"] == {"in_sh": (204,)}
    assert fired["pairs"] == {}


NO_GPU = cuda_exec.gpu_unavailable_reason()


@pytest.mark.skipif(NO_GPU is not None, reason=f"needs a CUDA GPU: {NO_GPU}")
@pytest.mark.parametrize(
    "source, function, spec, cases, unroll",
    [case[1:] for case in DIFFERENTIAL],
    ids=[case[0] for case in DIFFERENTIAL],
)
def test_gpu_matches_gcc(source, function, spec, cases, unroll):
    """On a real GPU (nvcc without fused multiply-add): the same outputs as gcc, bit for bit,
    so barriers and shared memory behave there as on the CPU emulation."""
    program = cuda(source, spec, unroll)
    gpu_program = cuda_exec.CudaProgram(program.source, program.launch, fmad=False)
    agree_with_gcc(gpu_program, source, function, cases, seeds=(7,))


def test_a_missing_barrier_is_caught():
    """The differential test can fail: the same kernel without its barriers gives wrong
    results on the CPU emulation."""
    module = transformed(example("matmul.c"), pipeline()).clone()
    for op in list(module.walk()):
        if isinstance(op, gpu.BarrierOp):
            op.detach()
            op.erase()
    program = emit_cuda(module)
    cpu = CpuProgram(program.source, program.launch, threads=2, thread_order="random")

    def outputs_differ(actual, expected):
        assert not np.array_equal(actual[0], expected[0])

    agree_with_gcc(cpu, example("matmul.c"), "matmul", [matmul(67, 35, 41)], seeds=(0,),
                   compare=outputs_differ)


def test_nvcc_compiles():
    """Every emitted source of the differential tests, compiled by nvcc in one translation unit
    (one namespace and kernel-name suffix per source: one nvcc run instead of one per case)."""
    programs = [cuda(source, spec, unroll) for _, source, _, spec, _, unroll in DIFFERENTIAL]
    assert_compiles_with_nvcc(one_translation_unit(programs))
