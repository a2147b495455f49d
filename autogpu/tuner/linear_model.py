"""A Bayesian linear model of a variant's log time over its parameters' values, with pairwise
interactions, for the `linear` strategy (strategies.py).

Why this model: a tuning space is a product of a few discrete knobs, and a GEMM's time is
mostly a product of their effects (the register tile times the block shape times the pipeline
depth...), which is a sum in log time, plus the interactions of pairs (tm with tn, stages with
bk). Each configuration is encoded one-hot (one column per value of each parameter), the
features of a fit are those columns and the products of two columns of different parameters.
A ridge prior on the weights makes the fit well posed with fewer results than features, and
Thompson sampling (ranking the candidates by one draw from the weights' posterior, not by the
mean) explores where the model is unsure, so a wrong early guess does not trap the search.

The candidates' pairwise products are never materialised: with X the one-hot matrix (one row
per candidate, a few dozen columns) and W the weights of the pairs as a matrix, the predicted
log time is `X @ w + rowsum((X @ W) * X)`, so a space of 100,000 configurations costs a few
megabytes.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[Any]


def _key(value: Any) -> Hashable:
    return value if isinstance(value, Hashable) else repr(value)


def _solve(a: Matrix, b: Matrix) -> Matrix:
    solution: Matrix = np.linalg.solve(a, b)
    return solution


class LinearModel:
    """One-hot encoding of `candidates` and posterior draws of the weights from results."""

    def __init__(self, candidates: Sequence[Mapping[str, Any]], ridge: float = 1.0):
        names = list(candidates[0]) if candidates else []
        columns: dict[tuple[str, Hashable], int] = {}
        for c in candidates:
            for name in names:
                columns.setdefault((name, _key(c[name])), len(columns))
        self.onehot: Matrix = np.zeros((len(candidates), len(columns)))
        for row, c in enumerate(candidates):
            for name in names:
                self.onehot[row, columns[(name, _key(c[name]))]] = 1.0
        owner = [name for name, _ in columns]
        #: the pairs of columns of two different parameters (a < b)
        self.pairs: list[tuple[int, int]] = [
            (a, b) for a in range(len(owner)) for b in range(a + 1, len(owner))
            if owner[a] != owner[b]]
        self.ridge = ridge

    def features(self, rows: Sequence[int]) -> Matrix:
        """The one-hot columns and their pairwise products, for candidates `rows`."""
        x = self.onehot[list(rows)]
        if not self.pairs:
            return x
        a = np.array([p[0] for p in self.pairs])
        b = np.array([p[1] for p in self.pairs])
        return np.hstack([x, x[:, a] * x[:, b]])

    def sample(self, rows: Sequence[int], log_times: Sequence[float],
               rng: np.random.Generator) -> Matrix:
        """One draw of every candidate's predicted log time (lower is faster), from the
        posterior given the results (`log_times` of candidates `rows`).

        The draw is exact and costs one n x n solve for n results ("perturb then optimise":
        the ridge solution for noisy targets and a noisy prior mean is a posterior sample)."""
        a = self.features(rows)
        y = np.asarray(log_times, dtype=np.float64)
        y = y - y.mean()
        lam = self.ridge
        gram = a @ a.T + lam * np.eye(len(y))
        mean_fit: Matrix = a.T @ _solve(gram, y)
        residual: Matrix = y - a @ mean_fit
        noise = max(float(residual @ residual) / max(1, len(y)), 1e-4)
        width = int(a.shape[1])
        prior: Matrix = rng.standard_normal(width) * np.sqrt(noise / lam)
        target: Matrix = y + rng.standard_normal(len(y)) * np.sqrt(noise)
        weights: Matrix = prior + a.T @ _solve(gram, target - a @ prior)
        return self._predict(weights)

    def _predict(self, weights: Matrix) -> Matrix:
        x = self.onehot
        width = x.shape[1]
        linear = x @ weights[:width]
        if not self.pairs:
            return linear
        pair_weights = np.zeros((width, width))
        for (i, j), w in zip(self.pairs, weights[width:]):
            pair_weights[i, j] = w
        return linear + np.einsum("ij,ij->i", x @ pair_weights, x)
