"""The tuner's inputs for the small C types: random arrays of int8/uint8/int16/uint16/bool in
their ranges (bool as 0/1), and sizes range-checked against the parameter's type."""

from __future__ import annotations

import numpy as np
import pytest

import autogpu
from autogpu.diagnostics import CompileError
from autogpu.tuner.adapter import param_from_launch
from autogpu.tuner.inputs import check_sizes, make_arguments

SOURCE = """
#include <stdint.h>
void f(int n, unsigned char t, const signed char *a, const uint8_t *b, short *c,
       unsigned short *d, bool *e) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    c[i] = a[i] + b[i] + t;
    d[i] = c[i];
    e[i] = a[i] > 0;
  }
}
"""


def params():
    return [param_from_launch(p) for p in autogpu.compile(SOURCE).launch["params"]]


def test_random_inputs_of_the_small_types():
    ps = params()
    assert [p.dtype for p in ps] == ["int32", "uint8", "int8", "uint8", "int16", "uint16", "bool"]
    assert [p.ctype for p in ps] == ["int", "unsigned char", "signed char", "uint8_t", "short",
                                     "unsigned short", "_Bool"]
    sizes = check_sizes(ps, {"n": "50", "t": "7"}, "f")
    lengths = {p.name: 50 for p in ps if p.kind == "array"}
    args = make_arguments(ps, sizes, lengths, seed=3)
    assert [a.dtype for a in args] == [np.dtype(p.dtype) for p in ps]
    assert args[1] == 7
    assert set(np.unique(args[6]).tolist()) <= {False, True}
    assert args[6].dtype == bool
    assert args[2].min() >= -8
    assert args[3].max() <= 8


def test_sizes_are_range_checked_for_the_small_types():
    with pytest.raises(CompileError, match="does not fit in uint8"):
        check_sizes(params(), {"n": "5", "t": "256"}, "f")


def test_tune_takes_arrays_as_inputs():
    """`tune(inputs={"x": array})`: the array object itself (the CLI's --input takes files)."""
    from autogpu.tuner.options import TuneOptions
    from autogpu.tuner.prepared import prepare

    x = np.arange(100, dtype=np.float32)
    prepared = prepare(TuneOptions(kernel="examples/saxpy.c", sizes={"n": 100}, backend="cpu",
                                   inputs={"x": x, "a": 0.5}, cache="none"))
    np.testing.assert_array_equal(prepared.args[2], x)
    assert prepared.args[1] == np.float32(0.5)
    with pytest.raises(CompileError, match="input y: the given array has 3 elements"):
        prepare(TuneOptions(kernel="examples/saxpy.c", sizes={"n": 100}, backend="cpu",
                            inputs={"y": np.ones(3, np.float32)}, cache="none"))
