"""The persistent cache: results and failures are kept, claims keep concurrent tuners from
measuring a variant twice, dead or expired claims are taken over."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from paths import EXAMPLES
from tuner_support import claim_everything, synthetic_candidates

from autogpu.tuner.cache import Cache, Record, canonical
from autogpu.tuner.outputs import TuneResult


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "tune.sqlite") as c:
        yield c


def test_results_and_failures_are_kept_across_opens(tmp_path: Path):
    path = tmp_path / "tune.sqlite"
    with Cache(path) as c:
        ctx = c.register_context({"kernel": "k", "sizes": {"n": 1}})
        assert c.claim(ctx, {"b": 32}).state == "claimed"
        c.finish(ctx, {"b": 32}, Record({"b": 32}, "ok", 1.5e-3, [1.5e-3, 1.6e-3],
                                        cuda_source="__global__ ...", launch={"functions": []}))
        assert c.claim(ctx, {"b": 64}).state == "claimed"
        c.finish(ctx, {"b": 64}, Record({"b": 64}, "failed", stage="verify", reason="y[3] wrong"))
    with Cache(path) as c:
        assert c.register_context({"sizes": {"n": 1}, "kernel": "k"}) == ctx  # order-independent
        ok = c.lookup(ctx, {"b": 32})
        assert ok is not None
        assert ok.ok
        assert ok.time_s == 1.5e-3
        assert ok.times == [1.5e-3, 1.6e-3]
        assert ok.cuda_source == "__global__ ..."
        assert ok.launch == {"functions": []}
        bad = c.lookup(ctx, {"b": 64})
        assert bad is not None
        assert bad.status == "failed"
        assert bad.stage == "verify"
        assert bad.reason == "y[3] wrong"
        assert c.claim(ctx, {"b": 64}).state == "done"  # failures are not measured again
        assert c.lookup(ctx, {"b": 128}) is None
        assert [r.params for r in c.records(ctx)] == [{"b": 32}, {"b": 64}]
        assert c.counts(ctx) == {"ok": 1, "failed": 1}
        assert c.best_time(ctx) == 1.5e-3
        assert c.best_time("no-such-context") is None
    with Cache(path, retry_failed=True) as c:
        assert c.lookup(ctx, {"b": 64}) is None
        assert c.claim(ctx, {"b": 64}).state == "claimed"


def test_contexts_separate_results(cache: Cache):
    a = cache.register_context({"device": "A"})
    b = cache.register_context({"device": "B"})
    assert a != b
    cache.claim(a, {"b": 1})
    cache.finish(a, {"b": 1}, Record({"b": 1}, "ok", 1.0))
    assert cache.lookup(b, {"b": 1}) is None
    assert cache.context_description(b) == {"device": "B"}


def test_a_live_claim_is_busy_for_others_until_its_lease_expires(tmp_path: Path):
    path = tmp_path / "tune.sqlite"
    with Cache(path, lease_seconds=0.5) as mine, Cache(path, lease_seconds=0.5) as theirs:
        ctx = mine.register_context({"k": 1})
        assert mine.claim(ctx, {"b": 1}).state == "claimed"
        claim = theirs.claim(ctx, {"b": 1})
        assert claim.state == "busy"
        assert claim.owner == mine.owner
        time.sleep(0.6)
        assert theirs.claim(ctx, {"b": 1}).state == "claimed"  # expired: taken over
        assert mine.claim(ctx, {"b": 1}).state == "busy"


def test_the_claim_of_a_dead_process_is_taken_over_at_once(cache: Cache):
    ctx = cache.register_context({"k": 1})
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    import socket

    with Cache(cache.path, owner=f"{socket.gethostname()}:{dead}:deadbeef") as ghost:
        assert ghost.claim(ctx, {"b": 1}).state == "claimed"
    with Cache(cache.path, owner=f"otherhost:{os.getpid()}:cafe") as remote:
        assert remote.claim(ctx, {"b": 2}).state == "claimed"
    assert cache.claim(ctx, {"b": 1}).state == "claimed"  # its owner no longer exists
    assert cache.claim(ctx, {"b": 2}).state == "busy"  # another host: only the lease frees it


def test_release_gives_claims_back(cache: Cache):
    ctx = cache.register_context({"k": 1})
    for b in (1, 2, 3):
        cache.claim(ctx, {"b": b})
    cache.release(ctx, {"b": 1})
    assert sorted(c["b"] for c in cache.claimed(ctx)) == [2, 3]
    cache.release_all()
    assert cache.claimed(ctx) == []


def test_concurrent_tuners_never_measure_the_same_variant_twice(tmp_path: Path):
    path = str(tmp_path / "tune.sqlite")
    configs = synthetic_candidates()
    with Cache(path) as c:
        ctx = c.register_context({"k": "race"})
    mp = multiprocessing.get_context("fork")  # separate processes, separate connections
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    with mp.Pool(3) as pool:  # all three start together, after their imports
        counts = pool.starmap(claim_everything, [(path, ctx, configs, str(barrier), 3)] * 3)
    assert sum(1 for n in counts if n > 0) >= 2  # they really competed
    with Cache(path) as c:
        log = c.measurement_log(ctx)
        assert sum(counts) == len(configs) == len(log)
        assert len({key for key, _, _ in log}) == len(configs)
        assert {canonical(r.params) for r in c.records(ctx)} == {canonical(x) for x in configs}


SAXPY = str(EXAMPLES / "saxpy.c")


def _tune_saxpy(cache_path: str | Path, out: Path | None = None) -> TuneResult:
    import autogpu

    return autogpu.tune(SAXPY, "autogpu-vanilla", sizes={"n": 100}, backend="cpu",
                        space={"block_size": [32, 64]}, cache=str(cache_path), isolate=False,
                        jobs=0, repetitions=1, warmup=0, progress=False, plot=False,
                        output_dir=str(out) if out else None).tuning


def test_results_of_another_compiler_are_not_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The context holds a hash of autogpu's own code: code generated by another version of
    the compiler is measured again, not reused."""
    from autogpu.tuner import adapter

    path = tmp_path / "tune.sqlite"
    assert _tune_saxpy(path).measured == 2
    assert _tune_saxpy(path).measured == 0
    monkeypatch.setattr(adapter, "compiler_fingerprint", lambda: "another compiler")
    assert _tune_saxpy(path).measured == 2


def test_the_compiler_fingerprint_covers_autogpus_sources():
    from autogpu.tuner import adapter

    assert adapter.compiler_fingerprint() == adapter.compiler_fingerprint()
    assert set(adapter.COMPILER_SUFFIXES) == {".py", ".lark", ".h"}


def test_best_cu_is_verified_code_a_damaged_row_is_compiled_again(tmp_path: Path):
    """A damaged row cannot reach best.cu: cached code whose digest is not the verified one is
    not used, the winner is compiled again from its parameters and must be the code that was
    verified; a row whose code is not (a stale digest) is removed from the cache and the next
    fastest wins."""
    import json
    import sqlite3

    path, out = tmp_path / "tune.sqlite", tmp_path / "out"
    first = _tune_saxpy(path, out)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE variants SET cuda_source = 'int garbage;'")
    again = _tune_saxpy(path, out)
    assert again.measured == 0
    assert again.best_params == first.best_params
    assert "garbage" not in (out / "best.cu").read_text()
    assert "__global__" in (out / "best.cu").read_text()

    winner, other = first.best_params, next(v["params"] for v in first.variants
                                         if v["params"] != first.best_params)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE variants SET digest = '0000' WHERE params = ?",
                   (json.dumps(winner, separators=(",", ":")),))
    stale = _tune_saxpy(path, out)
    assert stale.best_params == other
    assert stale.measured == 0
    entry = next(v for v in stale.variants if v["params"] == winner)
    assert entry["status"] == "failed"
    assert entry["stage"] == "stale"
    assert "is not the code that was verified" in entry["reason"]
    assert json.loads((out / "best.json").read_text())["params"] == other
    assert _tune_saxpy(path).measured == 1  # the stale row is gone: measured again


def _cli(capsys: pytest.CaptureFixture[str], cache_path: str | Path, *more: str | Path,
         ) -> tuple[int, str]:
    from autogpu.tools.autogpu_tune import main

    code = main([SAXPY, "--size", "n=100", "-p", "autogpu-vanilla", "--backend", "cpu",
                 "--set", "block_size=32", "--cache", str(cache_path), "-q", "--no-plot",
                 "--repetitions", "1", "-j", "0", *map(str, more)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, err


def _foreign(path: Path) -> Path:
    import sqlite3

    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE users (name TEXT)")
        db.execute("INSERT INTO users VALUES ('ada')")
    return path


def _one_line_error(code: int, err: str, *phrases: str) -> None:
    assert code == 1
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("autogpu-tune: error: ")
    for phrase in phrases:
        assert phrase in err, err


def test_a_foreign_database_is_refused_and_left_byte_identical(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    path = _foreign(tmp_path / "app.db")
    before = path.read_bytes()
    code, err = _cli(capsys, path, "-o", tmp_path / "out")
    _one_line_error(code, err, "is not a tuning cache but another SQLite database (tables: "
                    "users); it was left untouched")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.db"]


@pytest.mark.parametrize("damage, phrases", [
    ("text", ["is unusable (file is not a database)"]),
    ("folder", ["is a folder: give a file"]),
    ("schema", ["has schema version 99, this autogpu reads version 1"]),
])
def test_unusable_cache_files_are_one_line_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path, damage: str,
                                                  phrases: list[str]):
    import sqlite3

    path = tmp_path / "tune.sqlite"
    if damage == "text":
        path.write_text("these are my notes, not a database\n" * 100)
    elif damage == "folder":
        path.mkdir()
    else:
        Cache(path).close()
        with sqlite3.connect(path) as db:
            db.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    _one_line_error(*_cli(capsys, path, "-o", tmp_path / "out"), *phrases)


def test_a_truncated_cache_is_a_one_line_error(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    path = tmp_path / "tune.sqlite"
    with Cache(path) as c:
        ctx = c.register_context({"k": 1})
        for b in range(200):
            c.finish(ctx, {"b": b}, Record({"b": b}, "ok", 1.0, cuda_source="x" * 2000))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    _one_line_error(*_cli(capsys, path, "-o", tmp_path / "out"), "is unusable (")


def test_a_row_that_does_not_parse_is_a_one_line_error(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    import sqlite3

    path, out = tmp_path / "tune.sqlite", tmp_path / "out"
    assert _cli(capsys, path, "-o", out)[0] == 0
    with sqlite3.connect(path) as db:
        db.execute("UPDATE variants SET extra = '{not json'")
    _one_line_error(*_cli(capsys, path, "-o", out), "is damaged: the extra of variant ",
                    "does not parse")
