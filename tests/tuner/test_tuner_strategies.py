"""Search strategies on a synthetic table with a known optimum, and the strategy comparison
(evaluations needed to come within 3% of the exhaustive optimum)."""

from __future__ import annotations

from collections.abc import Mapping
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest
from tuner_support import synthetic_candidates, synthetic_cost

from autogpu.diagnostics import CompileError
from autogpu.tuner.cache import canonical
from autogpu.tuner.strategies import (
    Strategy,
    compare_strategies,
    evaluations_to_reach,
    make_strategy,
)

CANDIDATES = [{**c, "cache": flag} for c in synthetic_candidates() for flag in (False, True)]
OPTIMUM = {"block_size": 128, "unroll": 4, "cache": True}
SMALL = [c for c in CANDIDATES if c["block_size"] in (64, 128, 256, 1024)]


def _drive(strategy: Strategy, table: Mapping[str, float | None],
           limit: int | None = None) -> list[dict[str, Any]]:
    """Ask/tell until exhausted; returns the configurations in the order asked."""
    asked: list[dict[str, Any]] = []
    while limit is None or len(asked) < limit:
        config = strategy.ask()
        if config is None:
            break
        asked.append(config)
        strategy.tell(config, table.get(canonical(config)))
    return asked


def _ask(strategy: Strategy) -> dict[str, Any]:
    """The strategy's next configuration, which it must have."""
    config = strategy.ask()
    assert config is not None, "the strategy ran out of candidates"
    return config


def _evaluations_to_reach(strategy: Strategy, table: Mapping[str, float | None],
                          target: float) -> int:
    """evaluations_to_reach, for a strategy that must reach `target` within the space."""
    n = evaluations_to_reach(strategy, table, target)
    assert n is not None, "the target was never reached"
    return n


def _table(failing: tuple[int, ...] = ()) -> dict[str, float | None]:
    return {canonical(c): (None if c["block_size"] in failing else synthetic_cost(c))
            for c in CANDIDATES}


def test_synthetic_optimum_is_where_we_say():
    assert min(CANDIDATES, key=synthetic_cost) == OPTIMUM


@pytest.mark.parametrize("name", ["exhaustive", "random", "linear", "model"])
def test_each_strategy_visits_every_candidate_once_and_finds_the_optimum(name: str):
    strategy = make_strategy(name, SMALL, seed=3)
    asked = _drive(strategy, _table(failing=(1024,)))
    keys = [canonical(c) for c in asked]
    assert len(keys) == len(set(keys)) == len(SMALL)
    assert strategy.ask() is None
    table = _table(failing=(1024,))
    succeeded = [(cost, c) for c in asked if (cost := table[canonical(c)]) is not None]
    assert min(succeeded, key=lambda pair: pair[0])[1] == OPTIMUM


def test_exhaustive_keeps_enumeration_order_and_random_shuffles_by_seed():
    assert _drive(make_strategy("exhaustive", CANDIDATES), _table()) == CANDIDATES
    a = _drive(make_strategy("random", CANDIDATES, seed=1), _table())
    b = _drive(make_strategy("random", CANDIDATES, seed=1), _table())
    c = _drive(make_strategy("random", CANDIDATES, seed=2), _table())
    assert a == b != c
    assert a != CANDIDATES


def test_several_outstanding_asks_are_all_different():
    for name in ("exhaustive", "random", "model"):
        strategy = make_strategy(name, SMALL, seed=0)
        pending = [_ask(strategy) for _ in range(5)]
        assert len({canonical(c) for c in pending}) == 5
        strategy.forget(pending[0])  # dropped without a result: asked again later
        rest = _drive(strategy, _table())
        assert canonical(pending[0]) in {canonical(c) for c in rest}


def test_model_only_proposes_valid_configurations():
    # A restricted space: not a product, so the sampler's proposals must be filtered.
    valid = [c for c in SMALL if c["block_size"] * c["unroll"] <= 256]
    strategy = make_strategy("model", valid, seed=0)
    asked = _drive(strategy, _table())
    assert {canonical(c) for c in asked} == {canonical(c) for c in valid}


def test_model_beats_exhaustive_on_a_smooth_bowl():
    """On the paper-sized space (6 block sizes x 4 unrolls x 2 flags = 48 variants) TPE reaches
    within 3% of the optimum in fewer evaluations than walking the table, on most seeds."""
    table = _table()
    target = synthetic_cost(OPTIMUM) * 1.03
    exhaustive = _evaluations_to_reach(make_strategy("exhaustive", CANDIDATES), table, target)
    model = [_evaluations_to_reach(make_strategy("model", CANDIDATES, seed=s), table, target)
             for s in range(5)]
    assert exhaustive == CANDIDATES.index(OPTIMUM) + 1
    assert sorted(model)[2] < exhaustive


def test_compare_strategies_counts_evaluations_to_within_three_percent():
    rows = [(c, _table(failing=(1024,))[canonical(c)]) for c in CANDIDATES]
    result = compare_strategies(rows, seeds=(0, 1, 2))
    assert result["optimum_s"] == pytest.approx(synthetic_cost(OPTIMUM))
    assert result["variants"] == len(CANDIDATES)
    ex = result["strategies"]["exhaustive"]
    # Exhaustive walks the table in order: the first variant within 3% of the optimum.
    first = next(i for i, (_, t) in enumerate(rows)
                 if t is not None and t <= 1.03 * result["optimum_s"])
    assert ex["evaluations"] == [first + 1]
    assert ex["median"] == first + 1
    for name in ("random", "model"):
        runs = result["strategies"][name]["evaluations"]
        assert len(runs) == 3
        assert all(1 <= r <= len(CANDIDATES) for r in runs)
        assert result["strategies"][name]["max"] == max(runs)


def test_compare_strategies_needs_a_success():
    with pytest.raises(CompileError, match="no variant succeeded"):
        compare_strategies([(CANDIDATES[0], None)])


def test_unknown_strategy():
    with pytest.raises(CompileError, match="unknown strategy 'annealing'"):
        make_strategy("annealing", CANDIDATES)


def test_gp_without_pytorch_is_a_clear_error():
    pytest.importorskip("optuna")
    if find_spec("torch") is None:
        with pytest.raises(CompileError, match="needs PyTorch"):
            make_strategy("gp", CANDIDATES)
    else:
        asked = _drive(make_strategy("gp", CANDIDATES, seed=0), _table(), limit=12)
        assert len({canonical(c) for c in asked}) == 12


@pytest.mark.parametrize("kind", ["journal", "sqlite"])
def test_model_strategies_sharing_a_study_never_repeat_each_other(tmp_path: Path, kind: str):
    """Two tuners (two hosts) on one Optuna storage: the second never proposes what the first
    measured; it takes the result from the study instead. (Optuna's RDB storage commits a lot:
    the SQLite case asks fewer variants to stay fast.)"""
    from autogpu.tuner.workers import make_storage

    url = str(tmp_path / "study.log") if kind == "journal" else f"sqlite:///{tmp_path}/study.db"
    first_n, second_n = (10, None) if kind == "journal" else (4, 4)
    table = _table()
    first = make_strategy("model", SMALL, seed=0, storage=make_storage(url), study_name="s")
    asked_first = {canonical(c) for c in _drive(first, table, limit=first_n)}
    second = make_strategy("model", SMALL, seed=1, storage=make_storage(url), study_name="s")
    asked_second = {canonical(c) for c in _drive(second, table, limit=second_n)}
    assert len(asked_first) == first_n
    assert not asked_first & asked_second
    if second_n is None:
        assert asked_first | asked_second == {canonical(c) for c in SMALL}
        assert second.ask() is None
