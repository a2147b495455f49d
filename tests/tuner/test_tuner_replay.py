"""A re-run of an adaptive strategy over a warm cache replays the first run's proposals, so it
compiles and measures nothing: the strategy learns results in proposal order, not in the order
the compile pool happens to finish them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tuner_support import JitteryCompiler, SyntheticMeasurer, synthetic_candidates, synthetic_cost

from autogpu.tuner.cache import Cache, canonical
from autogpu.tuner.measure import Local
from autogpu.tuner.session import Session
from autogpu.tuner.strategies import make_strategy

CANDIDATES = [{**c, "cache": flag} for c in synthetic_candidates() for flag in (False, True)]
ADAPTIVE = ("linear", "model")


def _run(path: Path, strategy: str, jitter_seed: int, compile_log: Path,
         measure_log: Path, budget: int = 24) -> Session:
    """One run of `strategy` (seed 0) over a 4-worker compile pool that finishes out of order."""
    with Cache(path) as cache:
        ctx = cache.register_context({"kernel": "synthetic"})
        proxy = Local(SyntheticMeasurer(log=str(measure_log)))
        proxy.start()
        try:
            session = Session(make_strategy(strategy, CANDIDATES, seed=0),
                              JitteryCompiler(log=str(compile_log), jitter_seed=jitter_seed),
                              proxy, cache, ctx, jobs=4, budget=budget, start_method="fork")
            session.run()
        finally:
            proxy.close()
    return session


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def _keys(session: Session) -> list[str]:
    return [canonical(c) for c in session.strategy.proposed]


@pytest.mark.parametrize("strategy", ADAPTIVE)
def test_proposals_do_not_depend_on_the_order_compilations_finish(strategy: str,
                                                                 tmp_path: Path):
    runs = [_run(tmp_path / f"{jitter}.sqlite", strategy, jitter, tmp_path / f"c{jitter}",
                 tmp_path / f"m{jitter}") for jitter in (1, 2)]
    assert [e.params for e in runs[0].evaluations] != [e.params for e in runs[1].evaluations], \
        "the jitter should make the two runs finish their compilations in different orders"
    evaluated = [sorted(canonical(e.params) for e in run.evaluations) for run in runs]
    assert evaluated[0] == evaluated[1]
    assert _keys(runs[0]) == _keys(runs[1])
    assert len(set(_keys(runs[0]))) == 24


@pytest.mark.parametrize("strategy", ADAPTIVE)
def test_a_rerun_over_a_warm_cache_compiles_and_measures_nothing(strategy: str, tmp_path: Path):
    cache, compiled, measured = tmp_path / "tune.sqlite", tmp_path / "c", tmp_path / "m"
    first = _run(cache, strategy, 1, compiled, measured)
    assert first.measured == 24
    before = (_lines(compiled), _lines(measured))
    second = _run(cache, strategy, 2, compiled, measured)
    assert (_lines(compiled), _lines(measured)) == before
    assert second.measured == 0
    assert all(e.cached for e in second.evaluations)
    assert _keys(second) == _keys(first)
    assert second.stopped_by == "budget"


@pytest.mark.parametrize("strategy", ADAPTIVE)
def test_results_told_out_of_order_are_learned_in_proposal_order(strategy: str):
    """With a window of 3, the strategy proposes the same whether each result is told at once
    (a replay from the cache) or three asks late and in reverse (a busy compile pool)."""
    def drive(late: bool) -> list[str]:
        s = make_strategy(strategy, CANDIDATES, seed=3)
        s.window = 3
        outstanding: list[dict[str, Any]] = []
        while len(s.proposed) < 30:
            config = s.ask()
            if config is None:
                assert s.waiting
                assert outstanding
            else:
                outstanding.append(config)
            if not late or len(outstanding) == 4 or config is None:
                for c in reversed(outstanding):
                    s.tell(c, synthetic_cost(c))
                outstanding.clear()
        return [canonical(c) for c in s.proposed]

    assert drive(late=False) == drive(late=True)
