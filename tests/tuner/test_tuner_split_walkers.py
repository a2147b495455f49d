"""The tuner tries `split_walkers` only for functions with a loop agpu-split-accumulations
takes (its own predicate after staging), not for every parallel loop around a serial one."""

from __future__ import annotations

from autogpu.tuner.adapter import c_function, split_accumulations
from autogpu.tuner.driver import TuneOptions, prepare

COLUMN_SUMS = """
void colsum(int m, int n, const float *restrict A, float *restrict out) {
#pragma omp parallel for
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++)
      out[j] += A[i * n + j];
}
"""
ROW_COPIES = """
void rows(int m, int n, const float *restrict A, float *restrict B) {
#pragma omp parallel for
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      B[i * n + j] = 2 * A[i * n + j];
}
"""
LOCAL_SUMS = """
void dots(int m, int n, const float *restrict A, const float *restrict x, float *restrict y) {
#pragma omp parallel for
  for (int i = 0; i < m; i++) {
    float s = 0;
    for (int j = 0; j < n; j++)
      s += A[i * n + j] * x[j];
    y[i] = s;
  }
}
"""


def walkers(source: str) -> set[object]:
    prepared = prepare(TuneOptions(source, sizes={"m": 64, "n": 64}, backend="cpu"))
    return {c.get("split_walkers", 0) for c in prepared.candidates}


def test_only_loops_the_split_takes_get_walkers():
    assert split_accumulations(c_function(COLUMN_SUMS, "c.c", "colsum")) == 1
    assert split_accumulations(c_function(LOCAL_SUMS, "d.c", "dots")) == 1
    assert split_accumulations(c_function(ROW_COPIES, "r.c", "rows")) == 0  # a serial loop
    assert walkers(COLUMN_SUMS) == {0, 16, 32, 64}
    assert walkers(ROW_COPIES) == {0}


def test_aliasing_outputs_are_not_split_without_the_assumption():
    aliased = COLUMN_SUMS.replace("restrict ", "")
    assert split_accumulations(c_function(aliased, "c.c", "colsum"), assume_no_alias=False) == 0
    assert split_accumulations(c_function(aliased, "c.c", "colsum"), assume_no_alias=True) == 1
