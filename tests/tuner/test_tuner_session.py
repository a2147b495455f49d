"""The tuning loop on a synthetic kernel: every kind of failure is recorded and never chosen, the
cache answers re-runs, interrupted runs resume, budgets and time limits hold."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from tuner_support import (
    SyntheticCompiler,
    SyntheticMeasurer,
    synthetic_candidates,
    synthetic_cost,
)

from autogpu.tuner.cache import Cache, canonical
from autogpu.tuner.measure import Isolated, Local, Measurer
from autogpu.tuner.session import Compiler, Evaluation, Session, best
from autogpu.tuner.strategies import make_strategy

CANDIDATES = synthetic_candidates()  # 6 block sizes x 4 unrolls; optimum 128 x 4


def _run(cache: Cache, measurer: Measurer, strategy: str = "exhaustive",
         compiler: Compiler | None = None, isolate: bool = False, timeout: float = 1.0,
         candidates: list[dict[str, Any]] = CANDIDATES, **kwargs: Any) -> tuple[Session, str]:
    ctx = cache.register_context({"kernel": "synthetic"})
    proxy = Isolated(measurer, timeout) if isolate else Local(measurer)
    proxy.start()
    try:
        session = Session(make_strategy(strategy, candidates, seed=0),
                          compiler or SyntheticCompiler(), proxy, cache, ctx, **kwargs)
        session.run()
    finally:
        proxy.close()
    return session, ctx


def best_of(evaluations: Sequence[Evaluation]) -> Evaluation:
    """The fastest successful evaluation, which the run must have."""
    fastest = best(evaluations)
    assert fastest is not None, "no variant succeeded"
    return fastest


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "tune.sqlite") as c:
        yield c


def test_exhaustive_run_finds_the_optimum_and_records_everything(cache: Cache):
    session, ctx = _run(cache, SyntheticMeasurer(), jobs=0)
    assert len(session.evaluations) == len(CANDIDATES)
    assert session.stopped_by == "space exhausted"
    winner = best_of(session.evaluations)
    assert winner.params == {"block_size": 128, "unroll": 4}
    assert winner.time_s == synthetic_cost(winner.params)
    assert len(cache.records(ctx)) == len(CANDIDATES)


def test_failures_are_recorded_with_their_reason_and_never_chosen(cache: Cache):
    # 128 is the optimum's block size: make every 128 variant fail verification, so the winner
    # must come from elsewhere; 1024 x 8 fails to compile; 512 fails the resource check.
    session, ctx = _run(cache, SyntheticMeasurer(wrong=(128,)),
                        compiler=SyntheticCompiler(fail_check=(512,)), jobs=0)
    by_stage: dict[str | None, list[dict[str, Any]]] = {}
    for e in session.evaluations:
        by_stage.setdefault(e.stage, []).append(e.params)
    assert len(by_stage["verify"]) == 4
    assert all(p["block_size"] == 128 for p in by_stage["verify"])
    assert by_stage["compile"] == [{"block_size": 1024, "unroll": 8}]
    assert len(by_stage["resources"]) == 4
    assert best_of(session.evaluations).params["block_size"] != 128
    failed = [r for r in cache.records(ctx) if not r.ok]
    assert all(r.reason for r in failed)
    assert any(r.reason is not None and "too many registers" in r.reason for r in failed)


def test_hung_and_crashing_variants_time_out_and_the_run_goes_on(cache: Cache):
    measurer = SyntheticMeasurer(hang=(512,), crash=(256,))
    candidates = synthetic_candidates((128, 256, 512), (2, 4))
    session, ctx = _run(cache, measurer, isolate=True, timeout=0.5, jobs=0,
                        candidates=candidates)
    stages = {canonical(e.params): e.stage for e in session.evaluations}
    assert all(stages[canonical({"block_size": 512, "unroll": u})] == "timeout" for u in (2, 4))
    assert all(stages[canonical({"block_size": 256, "unroll": u})] == "crash" for u in (2, 4))
    hung = cache.lookup(ctx, {"block_size": 512, "unroll": 2})
    assert hung is not None
    assert hung.reason is not None
    assert "did not finish within 0.5 s" in hung.reason
    assert best_of(session.evaluations).params == {"block_size": 128, "unroll": 4}
    assert len(session.evaluations) == len(candidates)


def test_the_reference_is_computed_once_and_handed_to_restarted_processes(cache: Cache, tmp_path: Path):
    log, prepared = tmp_path / "measured.txt", tmp_path / "prepared.txt"
    measurer = SyntheticMeasurer(log=str(log), prepare_log=str(prepared), crash=(256,))
    session, _ = _run(cache, measurer, isolate=True, timeout=30, jobs=0,
                      candidates=synthetic_candidates((128, 256, 512), (4,)))
    assert [e.stage for e in session.evaluations] == [None, "crash", None]
    crashed = session.evaluations[1]
    assert crashed.reason is not None
    assert "the measurement process exited with status 3" in crashed.reason
    assert len({line.split()[0] for line in log.read_text().splitlines()}) == 2  # 2 processes
    assert len(prepared.read_text().splitlines()) == 1


def test_a_rerun_measures_nothing_already_known(cache: Cache, tmp_path: Path):
    log = tmp_path / "measured.txt"
    first, _ctx = _run(cache, SyntheticMeasurer(log=str(log), wrong=(64,)), jobs=0, budget=10)
    assert first.measured == 10
    assert first.stopped_by == "budget"
    second, _ = _run(cache, SyntheticMeasurer(log=str(log), wrong=(64,)), jobs=0)
    assert second.measured == len(CANDIDATES) - 10
    assert sum(e.cached for e in second.evaluations) == 10
    lines = log.read_text().splitlines()  # every variant measured once, failures included
    assert len(lines) == len(set(lines)) == len(CANDIDATES) - 1  # 1024 x 8 does not compile
    third, _ = _run(cache, SyntheticMeasurer(log=str(log)), jobs=0)
    assert third.measured == 0
    assert all(e.cached for e in third.evaluations)
    assert best_of(third.evaluations).params == best_of(second.evaluations).params


def test_an_interrupted_run_releases_its_claims_and_resumes(cache: Cache, tmp_path: Path):
    log = tmp_path / "measured.txt"
    with pytest.raises(KeyboardInterrupt):
        _run(cache, SyntheticMeasurer(log=str(log), interrupt_after=7), jobs=2)
    ctx = cache.register_context({"kernel": "synthetic"})
    assert cache.claimed(ctx) == []
    assert len(cache.records(ctx)) == 7
    resumed, _ = _run(cache, SyntheticMeasurer(log=str(log)), jobs=2)
    assert resumed.measured == len(CANDIDATES) - 7
    lines = log.read_text().splitlines()
    # each variant measured exactly once over both runs (1024 x 8 does not compile)
    assert len(lines) == len({line.split(" ", 1)[1] for line in lines}) == len(CANDIDATES) - 1


def test_budget_and_time_limit(cache: Cache):
    session, _ = _run(cache, SyntheticMeasurer(), strategy="random", jobs=0, budget=5)
    assert len(session.evaluations) == 5
    assert session.stopped_by == "budget"
    session, _ = _run(cache, SyntheticMeasurer(delay=0.05), strategy="random", jobs=0,
                      time_limit=0.3)
    assert session.stopped_by == "time limit"
    assert 1 <= session.measured < len(CANDIDATES)


def test_compiling_in_a_process_pool_with_the_model_strategy(cache: Cache):
    session, _ = _run(cache, SyntheticMeasurer(), strategy="model", jobs=2, budget=12,
                      start_method="fork")
    assert len(session.evaluations) == 12
    assert len({canonical(e.params) for e in session.evaluations}) == 12


def test_environment_failures_are_retried_in_a_fresh_measurement_process(cache: Cache, tmp_path: Path):
    """Out of memory (64) or the measurement process killed (256, the OOM killer) on the first
    attempt: not the variant's verdict; each is measured again in a fresh process and cached
    as ok."""
    log = tmp_path / "measured.txt"
    measurer = SyntheticMeasurer(log=str(log), out_of_memory=(64,), killed=(256,),
                                 environment_times=1)
    session, ctx = _run(cache, measurer, isolate=True, timeout=30, jobs=0,
                        candidates=synthetic_candidates((64, 128, 256), (4,)))
    assert [e.status for e in session.evaluations] == ["ok", "ok", "ok"]
    assert all(r.ok for r in cache.records(ctx))
    for block in (64, 256):
        attempts = [line.split()[0] for line in log.read_text().splitlines()
                    if f"('block_size', {block})" in line]
        assert len(attempts) == 2
        assert attempts[0] != attempts[1]


def test_a_variant_the_environment_keeps_failing_is_reported_but_never_cached(cache: Cache, tmp_path: Path):
    from autogpu.tuner.session import ENVIRONMENT_ATTEMPTS

    log = tmp_path / "measured.txt"
    candidates = synthetic_candidates((64, 128, 256), (4,))
    session, ctx = _run(cache, SyntheticMeasurer(log=str(log), killed=(256,)), isolate=True,
                        timeout=30, jobs=0, candidates=candidates)
    outcome = session.evaluations[-1]
    assert outcome.params["block_size"] == 256
    assert outcome.stage == "environment"
    assert outcome.reason is not None
    assert "crash: the measurement process crashed with signal SIGKILL" in outcome.reason
    assert f"each of {ENVIRONMENT_ATTEMPTS} attempts; not cached" in outcome.reason
    assert cache.lookup(ctx, {"block_size": 256, "unroll": 4}) is None
    assert not cache.claimed(ctx)
    assert best_of(session.evaluations).params["block_size"] == 128
    assert sum("('block_size', 256)" in line for line in log.read_text().splitlines()) == \
        ENVIRONMENT_ATTEMPTS

    again, _ = _run(cache, SyntheticMeasurer(log=str(log)), isolate=True, timeout=30, jobs=0,
                    candidates=candidates)
    assert again.measured == 1
    retried = cache.lookup(ctx, {"block_size": 256, "unroll": 4})
    assert retried is not None
    assert retried.ok


def test_a_killed_compile_worker_is_not_the_variants_verdict(cache: Cache):
    from autogpu.tuner.session import ENVIRONMENT_ATTEMPTS

    candidates = synthetic_candidates((64, 128, 512), (2, 4))
    session, ctx = _run(cache, SyntheticMeasurer(), compiler=SyntheticCompiler(die=(512,)),
                        jobs=2, start_method="fork", candidates=candidates)
    stages = {e.params["block_size"]: e.stage for e in session.evaluations}
    assert stages == {64: None, 128: None, 512: "environment"}
    failed = [e for e in session.evaluations if e.stage]
    assert len(failed) == 2
    for e in failed:
        assert e.reason is not None
        assert "compile: the compiler process died" in e.reason
        assert f"each of {ENVIRONMENT_ATTEMPTS} attempts" in e.reason
    assert {canonical(r.params) for r in cache.records(ctx)} == \
        {canonical(c) for c in candidates if c["block_size"] != 512}


def test_a_variant_submitted_after_a_worker_died_goes_to_a_fresh_pool(cache: Cache):
    """A compilation killed its worker and broke the pool before the session polled it: the
    next submission must not raise, but start a fresh pool (it raced, now and then, in the
    killed-worker test above)."""
    import concurrent.futures as cf

    from autogpu.tuner.session import _Pending  # pyright: ignore[reportPrivateUsage] (the submission step on its own)

    ctx = cache.register_context({"kernel": "synthetic"})
    session = Session(make_strategy("exhaustive", CANDIDATES), SyntheticCompiler(die=(512,)),
                      Local(SyntheticMeasurer()), cache, ctx, jobs=1, start_method="fork")
    try:
        dying = session._submit(_Pending({"block_size": 512, "unroll": 2}))  # pyright: ignore[reportPrivateUsage] (see above)
        cf.wait([dying.future], timeout=30)
        with pytest.raises(cf.process.BrokenProcessPool):
            dying.future.result()
        fine = session._submit(_Pending({"block_size": 64, "unroll": 2}))  # pyright: ignore[reportPrivateUsage] (see above)
        assert fine.future.result(timeout=30)[0] == "ok"
    finally:
        session.pool.close()
