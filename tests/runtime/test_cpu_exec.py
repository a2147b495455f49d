"""The CPU emulation runs CUDA source with CUDA's semantics: grids and partial blocks, barriers,
shared memory per block, __device__ globals and atomics, C's float and integer arithmetic; and it
rejects bad arguments and undefined barrier use with clear errors."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from kernel_fixtures import LAUNCH, SOURCE, array, function, launch, scalar
from paths import EXAMPLES, TESTS

from autogpu.runtime.arguments import (
    KernelArgumentError,
    KernelCompileError,
    KernelEnvironmentError,
    KernelLaunchError,
    LaunchConfig,
    LaunchDescriptionError,
    check_launch_config,
)
from autogpu.runtime.cpu_exec import CpuProgram

RNG = np.random.default_rng(1234)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("autogpu-cache")


@pytest.fixture(scope="module")
def program(cache) -> CpuProgram:
    return CpuProgram(SOURCE, LAUNCH, cache=cache, threads=2)


def with_order(program: CpuProgram, order: str, seed: int = 0) -> CpuProgram:
    """The same compiled program (from the cache) with another thread order."""
    p = CpuProgram(SOURCE, LAUNCH, cache=program.library_path.parent.parent, threads=2,
                   thread_order=order, seed=seed)
    assert not p.compiled_now
    return p


# ---------------------------------------------------------------------------------------------
# Grids
# ---------------------------------------------------------------------------------------------
def test_saxpy_partial_last_block(program):
    n = 1000  # 4 blocks of 256, the last one a quarter full
    x = RNG.standard_normal(n + 24).astype(np.float32)
    y = RNG.standard_normal(n + 24).astype(np.float32)
    expected = y.copy()
    expected[:n] = np.float32(2.5) * x[:n] + y[:n]
    program.run("saxpy", n, 2.5, x, y)
    np.testing.assert_array_equal(y, expected)  # and y[n:] untouched: the guard works


def test_named_arguments_and_call_forms(program):
    x = np.ones(10, np.float32)
    y = np.zeros(10, np.float32)
    program("saxpy", y=y, x=x, a=3, n=10)
    np.testing.assert_array_equal(y, np.full(10, 3.0, np.float32))
    program.run("saxpy", (10, 2.0), {"x": x, "y": y})  # run(name, args, named_args)
    np.testing.assert_array_equal(y, np.full(10, 5.0, np.float32))
    program.run("saxpy", [10, 1.0, x, y])
    np.testing.assert_array_equal(y, np.full(10, 6.0, np.float32))


def test_2d_grid(program):
    m, n = 37, 53  # neither a multiple of the block
    A = RNG.standard_normal((m, n)).astype(np.float32)
    out = np.zeros((m, n), np.float32)
    program.run("grid2d", m, n, A, out)
    i, j = np.indices((m, n))
    np.testing.assert_array_equal(out, A * np.float32(2) + (i * 1000 + j).astype(np.float32))


def test_3d_grid_and_block_indices(program):
    gx, gy, gz = 3, 2, 2
    bx, by, bz = 4, 3, 2
    out = np.zeros((gz, gy, gx, bz, by, bx, 4), np.int32)
    program.run("ids3d", gx, gy, gz, out)
    z, y, x, tz, ty, tx = np.indices((gz, gy, gx, bz, by, bx))
    np.testing.assert_array_equal(out[..., 0], x * 100 + tx)
    np.testing.assert_array_equal(out[..., 1], y * 100 + ty)
    np.testing.assert_array_equal(out[..., 2], z * 100 + tz)
    assert (out[..., 3] == gx * 1000000 + gy * 10000 + gz * 100 + bz).all()


def test_empty_grid_is_skipped(program):
    y = np.full(4, 7.0, np.float32)
    program.run("saxpy", 0, 1.0, np.ones(4, np.float32), y)
    assert (y == 7.0).all()


# ---------------------------------------------------------------------------------------------
# Barriers and shared memory
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("order", ["forward", "reverse", "random"])
def test_barrier_makes_block_reversal_correct_in_any_order(program, order):
    blocks = 9
    v = np.arange(blocks * 256, dtype=np.float32)
    with_order(program, order, seed=7).run("reverse", blocks, v)
    np.testing.assert_array_equal(v.reshape(blocks, 256), np.arange(blocks * 256,
                                  dtype=np.float32).reshape(blocks, 256)[:, ::-1])


def test_missing_barrier_is_visible(program):
    """Without __syncthreads the reversal reads shared memory not yet written: the emulation
    does not hide the race."""
    blocks = 4
    v = np.arange(blocks * 256, dtype=np.float32)
    program.run("reverse_racy", blocks, v)
    expected = np.arange(blocks * 256, dtype=np.float32).reshape(blocks, 256)[:, ::-1]
    assert not np.array_equal(v.reshape(blocks, 256), expected)


def test_thread_orders_expose_a_race_the_forward_order_hides(program):
    blocks = 3
    v = RNG.standard_normal(blocks * 256).astype(np.float32)
    expected = np.zeros_like(v).reshape(blocks, 256)
    expected[:, 1:] = v.reshape(blocks, 256)[:, :-1]
    out = np.zeros_like(v)
    with_order(program, "forward").run("shift_racy", blocks, v, out)
    np.testing.assert_array_equal(out.reshape(blocks, 256), expected)  # right by luck
    for racy in (program, with_order(program, "reverse")):  # the default order, and reverse
        out[:] = 0
        racy.run("shift_racy", blocks, v, out)
        assert not np.array_equal(out.reshape(blocks, 256), expected)


@pytest.mark.parametrize("threads", [32, 256, 1024])
def test_tree_sum_with_barriers_in_a_loop(program, threads):
    n = 5 * threads - 17
    x = RNG.integers(-100, 100, n).astype(np.float32)  # exact sums in float
    blocks = (n + threads - 1) // threads
    sums = np.zeros(blocks, np.float32)
    checks = np.zeros(n, np.float32)
    program.run("block_sum", n, threads, x, sums, checks)
    padded = np.zeros(blocks * threads, np.float32)
    padded[:n] = x
    np.testing.assert_array_equal(sums, padded.reshape(blocks, threads).sum(axis=1))
    i = np.arange(n)  # each thread's local array survived the barriers
    np.testing.assert_array_equal(
        checks, (x + (i % threads) * 1000.0 + (i // threads) * 1e6).astype(np.float32)
    )


def test_blocks_have_their_own_shared_memory(program):
    blocks = 16  # over 2 OS threads
    bad = np.full(blocks * 128, -1, np.int32)
    program.run("isolation", blocks, 5, bad)
    assert (bad == 0).all()


def test_dynamic_shared_memory(program):
    blocks, threads, k = 5, 96, 11
    v = RNG.standard_normal(blocks * threads).astype(np.float32)
    expected = np.roll(v.reshape(blocks, threads), -k, axis=1)
    program.run("rotate", blocks, threads, k, v)
    np.testing.assert_array_equal(v.reshape(blocks, threads), expected)


@pytest.mark.parametrize("threads", [1, 2])
def test_shared_memory_starts_poisoned_in_every_block(cache, threads):
    """Reading shared memory before writing it gives NaN (float) and -1 (int) in every block,
    not zeros in the first and leftovers in the next."""
    program = CpuProgram(SOURCE, LAUNCH, cache=cache, threads=threads)
    out = np.zeros((6, 64, 2), np.float32)
    program.run("uninitialised_shared", 6, out)
    assert np.isnan(out[..., 0]).all()
    assert (out[..., 1] == 0).all()  # -1 + 1


def test_barrier_after_an_early_return_is_an_error(program):
    with pytest.raises(KernelLaunchError, match=r"__syncthreads\(\) in divergent code") as e:
        program.run("divergent_exit", np.zeros(64, np.float32))
    assert "never reached" in str(e.value)


def test_barrier_in_a_branch_is_an_error(program):
    with pytest.raises(KernelLaunchError, match="divergent"):
        program.run("divergent_barrier", np.zeros(64, np.float32))


def test_failed_assert_fails_the_launch_and_the_program_still_works(program):
    v = np.arange(32, dtype=np.int32)
    with pytest.raises(KernelLaunchError, match=r"assertion 'v\[threadIdx.x\] < limit' failed"):
        program.run("check_below", 20, v)
    program.run("check_below", 32, v)  # passes
    test_saxpy_partial_last_block(program)


# ---------------------------------------------------------------------------------------------
# The order of blocks and threads
# ---------------------------------------------------------------------------------------------
ORDER_SOURCE = r"""
// The position at which each block ran (its thread 0 counts).
extern "C" __global__ void block_order_kernel(int* position, int* next) {
  if (threadIdx.x == 0) position[blockIdx.x] = atomicAdd(next, 1);
}

// The position at which each thread of one block ran, before and after a barrier.
extern "C" __global__ void thread_order_kernel(int* before, int* after, int* next) {
  before[threadIdx.x] = atomicAdd(next, 1);
  __syncthreads();
  after[threadIdx.x] = atomicAdd(next, 1) - (int)blockDim.x;
}

// `for (i = 1; i < n; i++) a[i] = a[i - 1] + 1;` made a parallel loop: a race between threads
// and between blocks, right by luck in the forward order only.
extern "C" __global__ void chain_kernel(int n, int* a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  if (i < n) a[i] = a[i - 1] + 1;
}
"""
ORDER_LAUNCH = {"functions": [
    function("block_order", [scalar("blocks", "int32"), array("position", "int32"),
                             array("next", "int32")],
             launch("block_order_kernel", ["blocks", "1", "1"], ["64", "1", "1"],
                    ["position", "next"])),
    function("thread_order", [scalar("threads", "int32"), array("before", "int32"),
                              array("after", "int32"), array("next", "int32")],
             launch("thread_order_kernel", ["1", "1", "1"], ["threads", "1", "1"],
                    ["before", "after", "next"])),
    function("chain", [scalar("n", "int32"), array("a", "int32")],
             launch("chain_kernel", ["(n + 126) / 128", "1", "1"], ["128", "1", "1"],
                    ["n", "a"])),
]}


def ordered(cache, **order) -> CpuProgram:
    """The order kernels on one OS thread, so that the order of the blocks is exact; `order`:
    thread_order and seed, the defaults unless given."""
    return CpuProgram(ORDER_SOURCE, ORDER_LAUNCH, cache=cache, threads=1, **order)


def blocks_in_run_order(program: CpuProgram, blocks: int = 40) -> list[int]:
    position = np.full(blocks, -1, np.int32)
    program.run("block_order", blocks, position, np.zeros(1, np.int32))
    return np.argsort(position).tolist()


def threads_in_run_order(program: CpuProgram, threads: int = 200) -> tuple[list[int], list[int]]:
    before, after = np.full(threads, -1, np.int32), np.full(threads, -1, np.int32)
    program.run("thread_order", threads, before, after, np.zeros(1, np.int32))
    return np.argsort(before).tolist(), np.argsort(after).tolist()


def test_forward_and_reverse_orders_of_blocks_and_threads(cache):
    forward = ordered(cache, thread_order="forward")
    reverse = ordered(cache, thread_order="reverse")
    assert blocks_in_run_order(forward) == list(range(40))
    assert blocks_in_run_order(reverse) == list(range(39, -1, -1))
    assert threads_in_run_order(forward) == (list(range(200)),) * 2  # before and after a barrier
    assert threads_in_run_order(reverse) == (list(range(199, -1, -1)),) * 2


def test_default_order_is_a_seeded_permutation_of_blocks_and_threads(cache):
    """The default: a permutation of the blocks, of the threads, and a new one of the threads
    after each barrier; the same on every run for a seed, another for another seed."""
    default = ordered(cache)
    assert default.thread_order == "random"
    assert default.seed == 0
    blocks = blocks_in_run_order(default)
    before, after = threads_in_run_order(default)
    for permutation, n in ((blocks, 40), (before, 200), (after, 200)):
        assert sorted(permutation) == list(range(n))
        assert permutation not in (list(range(n)), list(range(n - 1, -1, -1)))
    assert before != after
    assert blocks_in_run_order(default) == blocks  # the same program again,
    assert blocks_in_run_order(ordered(cache, seed=0)) == blocks  # and another with the seed
    assert threads_in_run_order(ordered(cache, seed=0)) == (before, after)
    assert blocks_in_run_order(ordered(cache, seed=1)) != blocks
    assert threads_in_run_order(ordered(cache, seed=1)) != (before, after)


def test_default_order_exposes_a_loop_carried_dependence_forward_hides(cache):
    n = 1000
    serial = np.arange(n, dtype=np.int32)  # a[i] = a[i - 1] + 1 from a[0] = 0
    a = np.zeros(n, np.int32)
    ordered(cache, thread_order="forward").run("chain", n, a)
    np.testing.assert_array_equal(a, serial)  # right by luck
    results = []
    for _ in range(2):
        a = np.zeros(n, np.int32)
        ordered(cache).run("chain", n, a)
        results.append(a)
    assert (results[0] != serial).sum() > n // 2
    np.testing.assert_array_equal(results[0], results[1])  # the same wrong answer every run


def test_kernel_programs_in_a_chosen_order():
    import autogpu

    kernel = autogpu.compile(os.path.join(EXAMPLES, "saxpy.c"))
    reverse = kernel.program("cpu", thread_order="reverse", seed=3)
    assert (reverse.thread_order, reverse.seed) == ("reverse", 3)
    assert kernel.program("cpu", seed=3, thread_order="reverse") is reverse
    assert kernel.program("cpu").thread_order == "random"
    y = np.ones(300, np.float32)
    reverse.run("saxpy", 300, 2.0, np.ones(300, np.float32), y)
    assert (y == 3).all()


# ---------------------------------------------------------------------------------------------
# __device__ globals and atomics
# ---------------------------------------------------------------------------------------------
def test_atomics_into_device_globals_over_three_launches(program):
    n = 3000
    values = RNG.integers(-(2**31), 2**31 - 1, n, dtype=np.int64).astype(np.int32)
    fvalues = RNG.integers(-1000, 1000, n).astype(np.float32)  # order-independent float sum
    outs = [np.zeros(1, t) for t in (np.uint64, np.float32, np.int32, np.uint32, np.int32,
                                      np.float32)]
    for _ in range(2):  # the reset launch makes a second run start afresh
        program.run("reduce", n, values, fvalues, *outs)
        total, fsum, mx, mn, count, fmx = (o[0] for o in outs)
        assert int(total) == int(values.astype(np.int64).sum()) % 2**64
        assert fsum == fvalues.sum()
        assert mx == values.max()
        assert mn == values.view(np.uint32).min()
        assert count == n
        assert fmx == fvalues.max()


# ---------------------------------------------------------------------------------------------
# C arithmetic
# ---------------------------------------------------------------------------------------------
def test_float32_arithmetic_is_float_not_double_and_not_fused(program):
    n = 2000
    a = RNG.uniform(-4, 4, n).astype(np.float32)
    b = RNG.uniform(0.5, 4, n).astype(np.float32)
    c = RNG.uniform(-4, 4, n).astype(np.float32)
    a[0], b[0], c[0] = np.float32(1 + 2**-13), np.float32(1 + 2**-13), np.float32(-1)
    outs = [np.zeros(n, np.float32) for _ in range(4)]
    program.run("floats", n, a, b, c, *outs)
    cancel, muladd, div, root = outs
    np.testing.assert_array_equal(cancel, (a + np.float32(1e8)) - np.float32(1e8))
    assert cancel[0] == 0.0  # 1.0001 vanishes next to 1e8 in float; in double it would not
    np.testing.assert_array_equal(muladd, a * b + c)
    assert muladd[0] == np.float32(2**-12)  # a fused multiply-add gives 2**-12 + 2**-26
    np.testing.assert_array_equal(div, a / b)
    np.testing.assert_array_equal(root, np.sqrt(np.abs(c)))


def test_integer_wraparound_division_and_conversions(program):
    n = 1000
    a = RNG.integers(-(2**31), 2**31 - 1, n, dtype=np.int64).astype(np.int32)
    a[:4] = [2**31 - 1, -(2**31), -7, 13]
    u = RNG.integers(0, 2**32 - 1, n, dtype=np.uint64).astype(np.uint32)
    v = RNG.integers(1, 2**32 - 1, n, dtype=np.uint64).astype(np.uint32)
    u[0], v[0] = 4294967295, 2
    outs = [np.zeros(n, t) for t in (np.int32, np.uint32, np.uint32, np.int32, np.int32,
                                      np.uint32, np.uint32, np.int32)]
    program.run("ints", n, a, u, v, *outs)
    wrap, udiv, urem, sdiv, srem, mixed, umin, smax = outs
    wide = a.astype(np.int64)
    expected_wrap = ((wide * 65537 + 2147483647 + 2**31) % 2**32 - 2**31).astype(np.int32)
    np.testing.assert_array_equal(wrap, expected_wrap)
    np.testing.assert_array_equal(udiv, u // v)
    np.testing.assert_array_equal(urem, u % v)
    truncated = np.trunc(wide / 7).astype(np.int64)  # C division truncates toward zero
    np.testing.assert_array_equal(sdiv, truncated)
    np.testing.assert_array_equal(srem, wide - truncated * 7)
    assert sdiv[2] == -1
    assert srem[2] == 0
    assert sdiv[3] == 1
    assert srem[3] == 6
    np.testing.assert_array_equal(mixed, a.view(np.uint32) // v)
    # CUDA's min(int, unsigned) compares as unsigned, like C's usual arithmetic conversions
    np.testing.assert_array_equal(umin, np.minimum(a.view(np.uint32), v))
    np.testing.assert_array_equal(smax, np.maximum(a, -5))


def test_math_functions_and_bit_casts(program):
    x = np.array([0.0, 0.25, 0.3, 2.0, 1e-30, np.nan, -0.0], np.float32)
    out = np.zeros(5 * len(x), np.float32)
    program.run("math", len(x), x, out)
    out = out.reshape(len(x), 5)
    np.testing.assert_array_equal(out[:, 0], np.sqrt(x))
    np.testing.assert_array_equal(out[:, 1], np.fmin(x, np.float32(0.5)))  # NaN-dropping
    np.testing.assert_array_equal(out[:, 2], np.fmin(x, np.float32(0.25)))
    np.testing.assert_array_equal(out[:, 3], np.fmax(x, np.float32(0.75)))
    np.testing.assert_array_equal(out[:, 4].view(np.uint32), x.view(np.uint32) ^ 0x80000000)


# ---------------------------------------------------------------------------------------------
# Argument checking
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args, named, message",
    [
        ((10, 1.0, np.ones(10, np.float32)), {}, r"missing argument\(s\) y"),
        ((10, 1.0, np.ones(10, np.float32), np.ones(10, np.float32), 3), {}, "takes 4 arguments"),
        ((10, 1.0, np.ones(10, np.float32), np.ones(10, np.float32)), {"y": 1}, "given twice"),
        ((10, 1.0), {"x": np.ones(10, np.float32), "y": np.ones(10, np.float32), "z": 1},
         "has no parameter 'z'"),
        ((10, 1.0, np.ones(10, np.float64), np.ones(10, np.float32)), {},
         r"argument 'x' of saxpy\(\) expects a float32 array \(C type const float\), got dtype"
         " float64"),
        ((10, 1.0, np.ones(20, np.float32)[::2], np.ones(10, np.float32)), {},
         "'x' of saxpy.. is not C-contiguous"),
        ((10, 1.0, [1.0] * 10, np.ones(10, np.float32)), {}, "expects a NumPy float32 array"),
        ((2**31, 1.0, np.ones(10, np.float32), np.ones(10, np.float32)), {},
         r"'n' of saxpy\(\) = 2147483648 is out of range for int32"),
        ((10.0, 1.0, np.ones(10, np.float32), np.ones(10, np.float32)), {},
         "'n' of saxpy.. expects an integer"),
        ((10, 1e39, np.ones(10, np.float32), np.ones(10, np.float32)), {},
         "'a' of saxpy.. = 1e[+]?39 is out of range for float32"),
        ((10, "2", np.ones(10, np.float32), np.ones(10, np.float32)), {},
         "'a' of saxpy.. expects a number"),
    ],
)
def test_bad_arguments_are_rejected_before_running(program, args, named, message):
    with pytest.raises(KernelArgumentError, match=message):
        program.run("saxpy", *args, **named)


def test_read_only_output_and_aliasing_are_rejected(program):
    y = np.ones(10, np.float32)
    y.flags.writeable = False
    with pytest.raises(KernelArgumentError, match=r"'y' of saxpy.. is read-only"):
        program.run("saxpy", 10, 1.0, np.ones(10, np.float32), y)
    z = np.ones(10, np.float32)
    with pytest.raises(KernelArgumentError, match=r"'x' and 'y' of saxpy.. overlap"):
        program.run("saxpy", 10, 1.0, z, z)
    with pytest.raises(KernelArgumentError, match="overlap"):
        program.run("saxpy", 5, 1.0, z[:6], z[5:])


def test_c99_array_extents_are_checked(program):
    m, n = 4, 5
    with pytest.raises(KernelArgumentError, match=r"'out' of grid2d\(\) has 19 elements, but"
                                                   r" float out\[m\]\[n\] needs 20"):
        program.run("grid2d", m, n, np.ones(20, np.float32), np.ones(19, np.float32))
    program.run("grid2d", m, n, np.ones((m, n), np.float32), np.ones(25, np.float32))  # larger: ok


def test_unknown_function(program):
    with pytest.raises(KernelArgumentError, match=r"no function 'sxpy'.*saxpy"):
        program.run("sxpy")


def test_launch_limits_are_checked(program):
    with pytest.raises(KernelLaunchError, match="2048 threads per block"):
        check_launch_config("k", LaunchConfig((1, 1, 1), (32, 32, 2), 0))
    with pytest.raises(KernelLaunchError, match="grid extents"):
        check_launch_config("k", LaunchConfig((1, 65536, 1), (32, 1, 1), 0))
    with pytest.raises(KernelLaunchError, match=r"block \(2048, 1, 1\): block extents"):
        program.run("block_sum", 10, 2048, np.ones(10, np.float32), np.ones(1, np.float32),
                    np.ones(10, np.float32))
    with pytest.raises(KernelLaunchError, match=r"launch of 'block_sum_kernel'.*divides by zero"):
        program.run("block_sum", 10, 0, np.ones(10, np.float32), np.ones(1, np.float32),
                    np.ones(10, np.float32))


# ---------------------------------------------------------------------------------------------
# The launch description against the source
# ---------------------------------------------------------------------------------------------
KERNEL = r"""extern "C" __global__ void k(int n, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (float)i;
}"""


def k_launch(n_dtype: str = "int32", kernel: str = "k", args=("n", "out")):
    return {"functions": [function(
        "f", [scalar("n", n_dtype), array("out", "float32")],
        launch(kernel, ["(n + 63) / 64", "1", "1"], ["64", "1", "1"], list(args)))]}


def test_launch_description_must_match_the_kernel_signature(cache):
    with pytest.raises(LaunchDescriptionError, match=r"argument 0 is 'n', a int64.*parameter 0"
                                                     " is int32"):
        CpuProgram(KERNEL, k_launch("int64"), cache=cache)
    with pytest.raises(LaunchDescriptionError, match="passes 1 arguments, but the kernel takes 2"):
        CpuProgram(KERNEL, k_launch(args=("out",)), cache=cache)
    with pytest.raises(LaunchDescriptionError, match="launches missing_kernel, which the CUDA"):
        CpuProgram(KERNEL, k_launch(kernel="missing_kernel"), cache=cache)
    with pytest.raises(LaunchDescriptionError, match="passes 'm', which is not a parameter"):
        CpuProgram(KERNEL, k_launch(args=("m", "out")), cache=cache)


def test_compile_errors_point_into_the_cuda_source(cache):
    source = KERNEL.replace("(float)i;", "(float)i\n}")  # a missing semicolon on line 3
    with pytest.raises(KernelCompileError, match=r"kernels\.cu:3") as e:
        CpuProgram(source, k_launch(), cache=cache)
    assert not isinstance(e.value, KernelEnvironmentError)


def test_an_undefined_function_is_a_compile_error_not_a_load_failure(cache):
    source = "__device__ float helper(int i);\n" + KERNEL.replace("(float)i", "helper(i)")
    with pytest.raises(KernelCompileError, match=r"undefined reference to .*helper") as e:
        CpuProgram(source, k_launch(), cache=cache)
    assert not isinstance(e.value, KernelEnvironmentError)


# ---------------------------------------------------------------------------------------------
# The cache
# ---------------------------------------------------------------------------------------------
def test_second_compile_of_a_source_comes_from_the_cache(tmp_path):
    source = KERNEL.replace("(float)i", "(float)i + 0.5f")
    first = CpuProgram(source, k_launch(), cache=tmp_path)
    assert first.compiled_now
    stamp = first.library_path.stat().st_mtime_ns
    second = CpuProgram(source, k_launch(), cache=tmp_path)
    assert not second.compiled_now
    assert second.library_path == first.library_path
    assert first.library_path.stat().st_mtime_ns == stamp
    assert [p.name for p in (tmp_path / "cpu").iterdir()] == [first.library_path.name]
    out = np.zeros(100, np.float32)
    second.run("f", 100, out)
    np.testing.assert_array_equal(out, np.arange(100, dtype=np.float32) + np.float32(0.5))


def test_processes_compiling_the_same_source_at_once_do_not_race(tmp_path):
    script = (
        "import os, sys; sys.path[:0] = sys.argv[2].split(os.pathsep);"
        "from test_cpu_exec import KERNEL, k_launch;"
        "from autogpu.runtime.cpu_exec import CpuProgram;"
        "import numpy as np; out = np.zeros(70, np.float32);"
        "CpuProgram(KERNEL.replace('(float)i', '(float)(3 * i)'), k_launch(),"
        " cache=sys.argv[1]).run('f', 70, out);"
        "assert (out == 3 * np.arange(70)).all()"
    )
    # this file's folder and tests/ (its support modules): the children import this file
    tests = os.pathsep.join([os.path.dirname(__file__), str(TESTS)])
    workers = [subprocess.Popen([sys.executable, "-c", script, str(tmp_path), tests])
               for _ in range(3)]
    assert [w.wait() for w in workers] == [0, 0, 0]
    assert [p.suffix for p in (tmp_path / "cpu").iterdir()] == [".so"]  # no staging files left


def test_cache_location_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOGPU_CACHE", str(tmp_path))
    program = CpuProgram(KERNEL.replace("(float)i", "(float)(2 * i)"), k_launch())
    assert program.library_path.parent == tmp_path / "cpu"


# ---------------------------------------------------------------------------------------------
# Releasing what a program holds, and failures of the machine
# ---------------------------------------------------------------------------------------------
BARRIER_KERNEL = r"""extern "C" __global__ void k(int n, float* out) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = (float)i + VARIANT;
  __syncthreads();  // every thread waits here: a fiber stack each
  if (i < n) out[i] = tile[255 - threadIdx.x];
}"""


def barrier_program(cache, variant: int, **options) -> CpuProgram:
    """A distinct library per variant; 256 threads wait at a barrier, each on its stack."""
    launch_ = {"functions": [function(
        "f", [scalar("n", "int32"), array("out", "float32")],
        launch("k", ["(n + 255) / 256", "1", "1"], ["256", "1", "1"], ["n", "out"]))]}
    return CpuProgram(BARRIER_KERNEL.replace("VARIANT", f"{variant}.0f"), launch_, cache=cache,
                      **options)


def run_barrier_program(program: CpuProgram, variant: int) -> None:
    out = np.zeros(1024, np.float32)
    program.run("f", 1024, out)
    i = np.arange(1024)
    np.testing.assert_array_equal(out, (i - i % 256 + 255 - i % 256 + variant).astype(np.float32))


def memory_maps() -> str:
    with open("/proc/self/maps") as f:
        return f.read()


def test_programs_unload_their_libraries_and_stacks(cache):
    """Loading and running many distinct programs (the tuner's variants) does not accumulate
    memory maps: each program's library and fiber stacks go when it does."""
    counts, paths = [], []
    for variant in range(6):
        program = barrier_program(cache, variant, threads=2)
        run_barrier_program(program, variant)
        paths.append(str(program.library_path))
        del program  # closed by the garbage collector
        counts.append(memory_maps().count("\n"))
    assert max(counts) - counts[0] < 64, counts  # each held 500 or more (256 stacks, 2 maps each)
    assert not any(path in memory_maps() for path in paths)


def test_launches_reuse_the_fiber_stacks_of_earlier_ones(cache):
    program = barrier_program(cache, 100, threads=1)  # one OS thread: 256 stacks per launch
    run_barrier_program(program, 100)
    maps = memory_maps().count("\n")
    for _ in range(3):
        run_barrier_program(program, 100)
    assert memory_maps().count("\n") - maps < 64  # mapping them anew: 512 more each launch


def test_closing_one_program_keeps_another_of_the_same_library(cache):
    first, second = barrier_program(cache, 100), barrier_program(cache, 100)
    assert first.library_path == second.library_path
    first.close()
    first.close()  # twice: nothing more
    with pytest.raises(KernelLaunchError, match="closed"):
        run_barrier_program(first, 100)
    run_barrier_program(second, 100)
    assert str(second.library_path) in memory_maps()
    second.close()
    assert str(second.library_path) not in memory_maps()


def test_no_memory_for_fiber_stacks_is_an_environment_failure(cache):
    huge_stacks = barrier_program(cache, 0, extra_flags=["-DAGPU_FIBER_STACK_BYTES=(1ull<<50)"])
    with pytest.raises(KernelEnvironmentError, match="cannot allocate a fiber stack") as e:
        run_barrier_program(huge_stacks, 0)
    assert isinstance(e.value, KernelLaunchError)  # what callers caught before


def test_a_library_that_cannot_be_loaded_is_an_environment_failure(cache):
    """dlopen failing for lack of address space, as it does for lack of memory maps."""
    barrier_program(cache, 200)  # compiled and cached here; the child only loads it
    script = """if True:
        import resource, sys
        import os
        sys.path[:0] = sys.argv[2].split(os.pathsep)
        from test_cpu_exec import barrier_program
        from autogpu.runtime.arguments import KernelEnvironmentError
        from autogpu.runtime import cpu_exec
        cpu_exec._compiler_identity(cpu_exec.COMPILER)
        with open("/proc/self/status") as f:
            size = next(int(l.split()[1]) for l in f if l.startswith("VmSize:")) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size + 65536, resource.RLIM_INFINITY))
        try:
            barrier_program(sys.argv[1], 200)
        except KernelEnvironmentError as e:
            print("environment:", e)
        """
    # this file's folder and tests/ (its support modules): the children import this file
    tests = os.pathsep.join([os.path.dirname(__file__), str(TESTS)])
    child = subprocess.run([sys.executable, "-c", script, str(cache), tests],
                           capture_output=True, text=True, check=False)
    assert child.returncode == 0, child.stderr
    assert child.stdout.startswith("environment: cannot load the compiled kernels"), child.stdout


@pytest.mark.parametrize("how", ["kill -9 $$", "echo 'cc1plus: out of memory allocating"
                                 " 65536 bytes' >&2; exit 1"])
def test_a_starved_compiler_is_an_environment_failure(tmp_path, how):
    compiler = tmp_path / "starved-g++"
    compiler.write_text(f"#!/bin/sh\n[ \"$1\" = --version ] && echo starved && exit 0\n{how}\n")
    compiler.chmod(0o755)
    with pytest.raises(KernelEnvironmentError, match="ran out of resources"):
        CpuProgram(KERNEL, k_launch(), cache=tmp_path, cxx=str(compiler))


# ---------------------------------------------------------------------------------------------
# The portable fiber implementation
# ---------------------------------------------------------------------------------------------
def test_ucontext_fibers_give_the_same_results(cache):
    """Non-x86-64 machines switch fibers with ucontext: the same kernels must pass with it."""
    program = CpuProgram(SOURCE, LAUNCH, cache=cache, extra_flags=["-DAGPU_FIBERS_UCONTEXT"])
    assert program.library_path != CpuProgram(SOURCE, LAUNCH, cache=cache).library_path
    test_barrier_makes_block_reversal_correct_in_any_order(program, "forward")
    test_tree_sum_with_barriers_in_a_loop(program, 256)
    test_barrier_after_an_early_return_is_an_error(program)
    test_failed_assert_fails_the_launch_and_the_program_still_works(program)


def test_source_and_header_are_packaged():
    from autogpu.runtime import cpu_exec

    assert cpu_exec.HEADER.is_file()
    assert os.path.getsize(cpu_exec.HEADER) > 0
