"""Index arrays in the tuner's inputs (autogpu/passes/analysis/subscript_arrays.py): integer arrays
whose values are subscripts get values that keep those accesses in bounds (distinct ones where a
parallel loop writes through them), so sparse-style kernels tune and verify against gcc; where no
range can be derived, the error says which array to supply with --input."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import autogpu
from autogpu.diagnostics import CompileError
from autogpu.frontend import parse_c
from autogpu.passes.analysis.extents import find_function
from autogpu.passes.analysis.subscript_arrays import SubscriptValues, subscript_arrays
from autogpu.tuner.driver import TunedKernel, TuneOptions, prepare

GATHER = """void gather(int n, int m, const float *x, const int *col, float *y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i] = x[col[i]] + x[col[i] + 2];
}
"""

SCATTER = """void scatter(int n, const float *x, const int *idx, float *a) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    a[idx[i]] += x[i];
}
"""

SPMV = """void spmv(int n, const int *rowptr, const int *col, const float *val, const float *x,
          float *y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int j = rowptr[i]; j < rowptr[i + 1]; j++)
      s += val[j] * x[col[j]];
    y[i] = s;
  }
}
"""


def _tune(tmp_path: Path, source: str, **options: Any) -> TunedKernel:
    settings: dict[str, Any] = dict(backend="cpu", space={"block_size": [64], "unroll_x": [1, 2],
                                          "unroll_serial": [1], "cache": [False, True]},
                    cache="none", isolate=False, jobs=0, repetitions=1, warmup=0,
                    progress=False, plot=False, output_dir=str(tmp_path / "out"))
    settings.update(options)
    return autogpu.tune(source, "autogpu-optimize", **settings)


def _values(source: str, sizes: Mapping[str, int],
            lengths: Mapping[str, int]) -> dict[str, SubscriptValues | str]:
    module = parse_c(source, "k.c", warn=lambda w: None)
    name = source.split("(")[0].split()[-1]
    function = find_function(module, name)
    assert function is not None
    return subscript_arrays(function, sizes, lengths)


def test_a_gather_tunes_and_every_variant_verifies_against_gcc(tmp_path: Path):
    kernel = _tune(tmp_path, GATHER, sizes={"n": 300, "m": 40}, arrays={"x": "m"})
    variants = kernel.tuning.variants
    assert len(variants) == 4, variants
    assert all(v["status"] == "ok" for v in variants), variants
    assert kernel.tuning.report["reference"]["kind"] == "gcc"


def test_a_scatter_through_a_permutation_tunes_race_free(tmp_path: Path):
    prepared = prepare(TuneOptions(SCATTER, sizes={"n": 200}, arrays={"a": "n + 10"},
                                   backend="cpu"))
    idx = prepared.args[2]
    assert isinstance(idx, np.ndarray), idx
    assert idx.dtype == np.int32
    assert len(set(idx.tolist())) == 200
    assert 0 <= idx.min()
    assert idx.max() < 210
    kernel = _tune(tmp_path, SCATTER, sizes={"n": 200}, arrays={"a": "n + 10"})
    assert all(v["status"] == "ok" for v in kernel.tuning.variants), kernel.tuning.variants


def test_the_range_keeps_every_affine_subscript_in_bounds():
    source = """void g(int n, int m, const float *x, const unsigned *col, float *y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i] = x[2 * col[i] + 1] - x[col[i] + m] + x[i + col[i]];
}
"""
    # 2*v + 1 <= 29, v + 7 <= 29, v + 49 <= 59 (i < 50, x has 60 elements here: v <= 10)
    values = _values(source, {"n": 50, "m": 7}, {"x": 60, "col": 50, "y": 50})
    assert values == {"col": SubscriptValues(0, 10, False, ("x",))}
    values = _values(source, {"n": 50, "m": 7}, {"x": 30, "col": 50, "y": 50})
    assert values["col"] == "no value of 'col' keeps its subscripts of 'x' within those arrays"


def test_data_arrays_are_left_alone():
    source = """void k(int n, const int *w, const float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    if (w[i] > 0) y[i] = x[i] * w[i];
}
"""
    assert _values(source, {"n": 8}, {"w": 8, "x": 8, "y": 8}) == {}


def test_values_that_bound_a_loop_must_be_supplied(tmp_path: Path):
    arrays = {"rowptr": "n + 1", "col": "3 * n", "val": "3 * n", "x": "n"}
    with pytest.raises(CompileError) as error:
        prepare(TuneOptions(SPMV, sizes={"n": 20}, arrays=arrays, backend="cpu"))
    assert error.value.message == (
        "cannot generate values for the index array 'rowptr': its values control the loop at "
        "line 6:5; give its data with --input rowptr=FILE.npy")
    rowptr = tmp_path / "rowptr.npy"
    np.save(rowptr, np.arange(0, 61, 3, dtype=np.int32))  # three entries a row
    kernel = _tune(tmp_path, SPMV, sizes={"n": 20}, arrays=arrays,
                   inputs={"rowptr": str(rowptr)})
    assert all(v["status"] == "ok" for v in kernel.tuning.variants), kernel.tuning.variants


def test_too_few_distinct_values_for_a_scatter_is_an_error():
    with pytest.raises(CompileError, match=r"a parallel loop writes through 'idx', so its 20 "
                                           r"values must differ, but only 10 keep"):
        prepare(TuneOptions(SCATTER, sizes={"n": 20}, arrays={"a": "10"}, backend="cpu"))
