"""Bugs the differential fuzzer found (docs/fuzzing.md), each as the reduced program that showed
it, compiled through the pipeline that failed and compared with gcc's serial build on the
sizes that failed and a few more."""

from __future__ import annotations

import pytest
from lowered_differential import agree_with_gcc, lowered

from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.target.cuda_target import emit_cuda


def check(source: str, function: str, pipeline: str, cases: list[dict[str, int]]) -> None:
    """`function` through `pipeline` on the CPU emulation (random thread order) agrees with
    gcc on every case."""
    program = emit_cuda(lowered(source, pipeline))
    runner = CpuProgram(program.source, program.launch, threads=2, thread_order="random")
    agree_with_gcc(runner, source, function, cases)


# gpu-cache-shared's clean-up walked `if`s it had already erased with the discarded branch of an
# enclosing decided `if` (the caching of `in` under a run-time extent check, unroll_y=4):
# "ValueError: Cannot detach a toplevel operation".
ERASED_IF = """
void f(float *out, const float *in, const float *x, int n, int m) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      float acc = 0.0f;
      for (int k = 0; k < m; k++) {
        acc += x[k * n + i];
        out[(j * n + i) * (m + 1) + k] = in[(k * 8 + 3) * m + (m - 1 - k)];
      }
    }
}
"""


@pytest.mark.parametrize("unroll_y", [2, 4])
def test_cache_clean_up_skips_erased_ifs(unroll_y: int):
    cases = [{"n": n, "m": m, "out": max(n * n * (m + 1), 1), "in": max(9 * m * m, 1),
              "x": max(m * n, 1)} for n, m in ((1, 1), (7, 3), (33, 17), (5, 70))]  # fmt: skip
    check(ERASED_IF, "f", f"autogpu-optimize{{unroll_y={unroll_y} cache_max_extent=64}}", cases)


# Loop bounds computed with unsigned min, max or % were refused ("the bounds of this parallel
# loop are computed with arith.minui, which the launch description cannot express"), although
# the launch description prints them: convert-agpu-to-gpu's host ops lacked minui, maxui and
# remui, and remui (no trait in xDSL) counted as reading memory.
UNSIGNED_BOUNDS = """
void f(unsigned n, unsigned m, float *y) {
  const unsigned k = min(n, m);
#pragma omp parallel for
  for (unsigned i = 0; i < k; i++) y[i] = 1.0f;
#pragma omp parallel for
  for (unsigned i = 0; i < max(n, m) % 7; i++) y[i] += 2.0f;
}
"""


@pytest.mark.parametrize("pipeline", ["autogpu-vanilla", "autogpu-optimize"])
def test_unsigned_min_max_remainder_in_launch_sizes(pipeline: str):
    cases = [{"n": n, "m": m, "y": max(n, m, 1)} for n, m in ((0, 5), (5, 0), (9, 13), (300, 270))]
    check(UNSIGNED_BOUNDS, "f", pipeline, cases)


# agpu-stage-accumulations staged y[i] across `k` although `k`'s body also updates it beside
# the inner loop over `j`; the guard `0 < m` (the inner loop runs) then skipped the whole `k`
# loop when m = 0, losing the `-= 7` updates (fuzz seed 10167, under autogpu-optimize).
IMPERFECT_CHAIN = """
void f(float *y, int n, long m) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    for (int k = 1; k < n; ++k) {
      y[i] -= 7.0f;
      for (long j = 0; j < m; j++)
        y[i] /= 2.0f;
    }
  }
}
"""


@pytest.mark.parametrize("pipeline", ["autogpu-optimize", "autogpu-optimize{unroll_x=2}"])
def test_staging_across_an_imperfect_chain(pipeline: str):
    cases = [{"y": max(n, 1), "n": n, "m": m} for n, m in ((4, 0), (4, 1), (33, 0), (7, 3), (0, 2))]
    check(IMPERFECT_CHAIN, "f", pipeline, cases)
