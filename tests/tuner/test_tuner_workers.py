"""Two tuners on one kernel (`workers=2`, the CPU backend standing in for two GPUs): they share
the cache, so together they measure every variant exactly once."""

from __future__ import annotations

from pathlib import Path

import pytest
from paths import EXAMPLES

from autogpu.tuner.cache import Cache
from autogpu.tuner.driver import TuneOptions, prepare, run

SAXPY = str(EXAMPLES / "saxpy.c")


@pytest.mark.parametrize("strategy", ["exhaustive", "model"])
def test_two_workers_share_one_cache_without_duplicated_measurements(tmp_path: Path, strategy: str):
    options = TuneOptions(SAXPY, pipeline="autogpu-vanilla", sizes={"n": 20000}, arrays={"x": "n", "y": "n"},
                          backend="cpu", space={"block_size": [32, 64, 128, 256]},
                          strategy=strategy, workers=2, jobs=2, repetitions=3,
                          cache=str(tmp_path / "tune.sqlite"), progress=False, plot=False,
                          output_dir=str(tmp_path / "out"))
    result = run(prepare(options))
    assert sorted(v["params"]["block_size"] for v in result.variants) == [32, 64, 128, 256]
    assert all(v["status"] == "ok" for v in result.variants)
    assert result.best_params == min(result.variants, key=lambda v: v["time_s"])["params"]
    workers = result.report["workers"]
    assert sorted(w["worker"] for w in workers) == [0, 1]
    assert sum(w["measured"] for w in workers) == result.measured == 4
    with Cache(tmp_path / "tune.sqlite") as cache:
        log = cache.measurement_log(result.context)
    assert len(log) == len({key for key, _, _ in log}) == 4  # each variant measured once
    if strategy == "model":  # the workers' sampler shared one study next to the cache
        assert (tmp_path / "tune.optuna.log").is_file()


def test_the_budget_is_shared_by_the_workers(tmp_path: Path):
    options = TuneOptions(SAXPY, pipeline="autogpu-vanilla", sizes={"n": 4096}, arrays={"x": "n", "y": "n"},
                          backend="cpu", space={"block_size": [32, 64, 128, 256, 512, 1024]},
                          strategy="random", budget=3, workers=2, jobs=2, repetitions=1,
                          cache=str(tmp_path / "tune.sqlite"), progress=False, plot=False)
    result = run(prepare(options))
    assert len(result.variants) == result.measured == 3
    assert result.stopped_by == "budget"
