"""The legality checks accept an atomic update (or a critical section) as race-free and still
refuse the same statement without it: the dependence check's warning and error, the lowering's
scalar race check."""

from __future__ import annotations

import pytest

from autogpu.api import run_pipeline
from autogpu.diagnostics import CompileError
from autogpu.frontend import parse_c


def _loop(body: str, pragma: str) -> str:
    return f"""
void f(int n, const int *x, int *h, float *out) {{
  float s = 0;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {{
{pragma}
    {body}
  }}
  out[0] = s;
}}
"""


def _warnings(source: str) -> list[str]:
    found: list[CompileError] = []
    parse_c(source, "t.c", warn=found.append)
    return [w.message for w in found]


@pytest.mark.parametrize("pragma", ["#pragma omp atomic", "#pragma omp critical"])
def test_indirect_histogram_is_race_free_when_synchronized(pragma: str):
    assert _warnings(_loop("h[x[i]] += 1;", pragma)) == []
    (warning,) = _warnings(_loop("h[x[i]] += 1;", ""))
    assert "cannot prove" in warning


@pytest.mark.parametrize("pragma", ["#pragma omp atomic", "#pragma omp critical"])
def test_one_element_updated_by_every_iteration(pragma: str):
    assert _warnings(_loop("h[0] += x[i];", pragma)) == []
    with pytest.raises(CompileError, match="every iteration of the parallel loop"):
        parse_c(_loop("h[0] += x[i];", ""), "t.c", warn=lambda w: None)


@pytest.mark.parametrize("pragma", ["#pragma omp atomic", "#pragma omp critical"])
def test_shared_scalar(pragma: str):
    run_pipeline(parse_c(_loop("s += x[i];", pragma), "t.c"), "autogpu-vanilla")
    with pytest.raises(CompileError, match="'s' is assigned by the iterations"):
        run_pipeline(parse_c(_loop("s += x[i];", ""), "t.c"), "autogpu-vanilla")
