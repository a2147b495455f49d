"""The three AutoGPU transformations chained and lowered: matmul and conv2d through
agpu-stage-accumulations, agpu-unroll-serial and agpu-dense-indexing, then autogpu-vanilla, run
by the CPU emulation of the CUDA kernels, give exactly what the interpreter gives on the
frontend's IR (the transformations' IR shapes — slots in kernels, guards, remainder loops,
unsigned trip counts — survive lowering and printing)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from pass_differential import example, module_of

import autogpu
from autogpu.interpreters import run_function
from autogpu.numeric import is_ndarray
from autogpu.testing import copy_args, random_args

PIPELINE = (
    "agpu-stage-accumulations{assume_no_alias=true},agpu-unroll-serial{factor=3},"
    "agpu-dense-indexing,autogpu-vanilla"
)


@pytest.fixture(autouse=True, scope="module")
def private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AUTOGPU_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


def conv2d(n: int, m: int, t: int) -> dict[str, int]:
    padded = max(n + t - 1, 0) * max(m + t - 1, 0)
    return {"n": n, "m": m, "t": t, "out": n * m, "in": max(padded, 1), "tmpl": max(t * t, 1)}


def matmul(m: int, n: int, p: int) -> dict[str, int]:
    return {"m": m, "n": n, "p": p, "A": m * n, "B": max(m * p, 1), "C": max(p * n, 1)}


@pytest.mark.parametrize("name, function, cases", [
    ("matmul.c", "matmul", [matmul(5, 3, 7), matmul(33, 2, 9), matmul(2, 2, 0), matmul(4, 1, 1)]),
    ("conv2d.c", "conv2d", [conv2d(6, 5, 4), conv2d(3, 3, 1), conv2d(2, 2, 0)]),
])
def test_chain_lowered_matches_interpreter(name: str, function: str, cases: list[dict[str, int]]):
    source = example(name)
    kernel = autogpu.compile(source, pipeline=PIPELINE)
    assert "_acc" in kernel.cuda_source or function == "conv2d"  # conv2d sums into a local
    before = module_of(source)
    for sizes in cases:
        args = random_args(before, sizes, seed=3, function=function)
        expected, actual = copy_args(args), copy_args(args)
        run_function(before, function, expected)
        kernel.program("cpu").run(function, *actual)
        for a, e in zip(actual, expected):
            if is_ndarray(e):
                assert np.array_equal(a.view(np.uint8), e.view(np.uint8))
