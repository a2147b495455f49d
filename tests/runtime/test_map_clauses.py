"""OpenMP `map` clauses decide what the executors copy (docs/ir.md, "Data mapping"): checked on
the CPU emulation against gcc's result of the same serial C, with data on which the copy that
the map leaves out would change the result."""

from __future__ import annotations

import numpy as np
import pytest

import autogpu
from autogpu.frontend import parse_c
from autogpu.testing.gcc_reference import compile_c_reference

MAPPED = """
void mapped(int n, const float *a, float *b, float *c, float *d) {
#pragma omp target teams distribute parallel for map(to: a[0:n], c[0:n]) map(from: b[0:n]) map(alloc: d[0:n])
  for (int i = 0; i < n; i++) { d[i] = 2 * a[i]; b[i] = d[i] + c[i]; c[i] = -1; }  // c: warned
}
"""


def _inputs(n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(1)
    return [rng.uniform(-1, 1, n).astype(np.float32) for _ in range(4)]


def test_to_from_alloc_copy_only_what_the_map_says():
    n = 1000
    a, b, c, d = _inputs(n)
    gcc = [x.copy() for x in (a, b, c, d)]
    compile_c_reference(MAPPED, "mapped")(n, *gcc)
    kernel = autogpu.compile(MAPPED, warn=lambda w: None)
    ours = [x.copy() for x in (a, b, c, d)]
    kernel(n, *ours)
    np.testing.assert_array_equal(ours[1], gcc[1])  # from: copied back, gcc's values
    np.testing.assert_array_equal(ours[2], c)  # to: gcc wrote -1, the write stays on the device
    np.testing.assert_array_equal(ours[3], d)  # alloc: neither way
    assert not np.array_equal(gcc[2], c)
    assert not np.array_equal(gcc[3], d)


READ_BEFORE_WRITE = """
void accumulate(int n, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to: x[0:n]) map(from: y[0:n])
  for (int i = 0; i < n; i++) y[i] += x[i];
}
"""


def test_a_from_array_is_not_copied_in_and_reads_poison():
    """gcc adds to the caller's y; under map(from:) the device's y is uninitialised, which the
    emulation fills with 0xFF bytes (NaN), so the read-before-write shows."""
    n = 257
    x, y = np.ones(n, np.float32), np.full(n, 3.0, np.float32)
    gcc_y = y.copy()
    compile_c_reference(READ_BEFORE_WRITE, "accumulate")(n, x.copy(), gcc_y)
    assert np.all(gcc_y == 4.0)
    autogpu.compile(READ_BEFORE_WRITE)(n, x, y)
    assert np.all(np.isnan(y))


TARGET_DATA = """
void two_steps(int n, const float *a, float *tmp, float *out) {
#pragma omp target data map(to: a[0:n]) map(alloc: tmp[0:n]) map(from: out[0:n])
  {
#pragma omp target teams distribute parallel for map(tofrom: tmp[0:n])
    for (int i = 0; i < n; i++) tmp[i] = a[i] * 3;
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) out[i] = tmp[i] + 1;
  }
}
"""


def test_a_target_data_region_governs_the_maps_of_its_constructs():
    """Inside `target data`, the inner `tofrom` of tmp moves nothing (tmp is present): tmp is
    `alloc` for the function, and the caller's tmp keeps its values."""
    module = parse_c(TARGET_DATA)
    assert 'agpu.maps = {a = "to", tmp = "alloc", out = "from"}' in str(module)
    n = 100
    a, tmp, out = _inputs(n)[:3]
    gcc = [a.copy(), tmp.copy(), out.copy()]
    compile_c_reference(TARGET_DATA, "two_steps")(n, *gcc)
    ours = [a.copy(), tmp.copy(), out.copy()]
    autogpu.compile(TARGET_DATA)(n, *ours)
    np.testing.assert_array_equal(ours[2], gcc[2])
    np.testing.assert_array_equal(ours[1], tmp)
    assert not np.array_equal(gcc[1], tmp)


@pytest.mark.parametrize("source", [
    # no target: no maps, every array both ways as before
    "void f(int n, float *a, float *b) {\n#pragma omp parallel for\n"
    "  for (int i = 0; i < n; i++) b[i] = a[i];\n}",
    # a use outside the mapped construct needs the array both ways
    "void f(int n, float *a, float *b) {\n#pragma omp target teams distribute parallel for "
    "map(to: a[0:n])\n  for (int i = 0; i < n; i++) b[i] = a[i];\n"
    "#pragma omp parallel for\n  for (int i = 0; i < n; i++) a[i] = b[i] + 1;\n}",
])
def test_without_maps_every_array_goes_both_ways(source: str):
    assert "agpu.maps" not in str(parse_c(source))
    kernel = autogpu.compile(source)
    assert all("map" not in p for p in kernel.params)


def test_maps_of_several_constructs_combine():
    """`from` in one construct and `to` in another: the array goes both ways."""
    source = """
void f(int n, const float *a, float *b, float *c) {
#pragma omp target teams distribute parallel for map(to: a[0:n]) map(from: b[0:n])
  for (int i = 0; i < n; i++) b[i] = a[i];
#pragma omp target teams distribute parallel for map(to: b[0:n]) map(from: c[0:n])
  for (int i = 0; i < n; i++) c[i] = b[i] * 2;
}
"""
    assert 'agpu.maps = {a = "to", c = "from"}' in str(parse_c(source))


def test_the_tuner_verifies_only_what_the_maps_copy_back():
    """gcc's serial result writes c (mapped `to`) and d (`alloc`); the kernels' writes to them
    stay on the device, so the tuner compares b alone with the reference."""
    kernel = autogpu.tune(MAPPED, "autogpu-vanilla", sizes={"n": 300}, backend="cpu",
                          space={"block_size": [32, 64]}, cache="none", isolate=False, jobs=0,
                          repetitions=1, warmup=0, progress=False, plot=False)
    assert kernel.tuning.best_pipeline is not None
