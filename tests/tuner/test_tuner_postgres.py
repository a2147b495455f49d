"""Tuners on several hosts share their study through PostgreSQL (Optuna's RDB storage): here two
workers on one machine talk to a throwaway PostgreSQL server over TCP, exactly as workers on
other hosts would. Skips, saying why, where no PostgreSQL server binaries or no psycopg2 exist."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from paths import EXAMPLES

from autogpu.tuner.cache import Cache
from autogpu.tuner.driver import TuneOptions, prepare, run

SAXPY = str(EXAMPLES / "saxpy.c")


def _as_server_user(argv: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: run its programs as the `postgres` user then."""
    if os.geteuid() != 0:
        return argv
    return ["runuser", "-u", "postgres", "--", *argv]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """The URL of a fresh PostgreSQL database on a server started for this test."""
    pytest.importorskip("psycopg2", reason="needs psycopg2 (pip install psycopg2-binary)")
    missing = [p for p in ("initdb", "pg_ctl") if shutil.which(p) is None]
    if missing:
        pytest.skip(f"needs a PostgreSQL server: {', '.join(missing)} not on PATH")
    if os.geteuid() == 0 and (shutil.which("runuser") is None or _no_user("postgres")):
        pytest.skip("running as root needs a 'postgres' user and runuser to start PostgreSQL")
    root = Path(tempfile.mkdtemp(prefix="autogpu-pg-"))  # not under pytest's 0700 folders:
    # the server's user must reach it
    data, sockets = root / "data", root / "run"
    sockets.mkdir()
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
        shutil.chown(sockets, "postgres")
    port = _free_port()
    options = f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off"
    for argv in (["initdb", "-D", str(data), "-A", "trust", "-U", "tuner"],
                 ["pg_ctl", "-D", str(data), "-o", options, "-w", "-l", str(root / "log"), "start"]):
        done = subprocess.run(_as_server_user(argv), capture_output=True, text=True, check=False)
        if done.returncode != 0:
            shutil.rmtree(root, ignore_errors=True)
            pytest.fail(f"cannot start PostgreSQL: {' '.join(argv)}: {done.stderr or done.stdout}")
    try:
        yield f"postgresql+psycopg2://tuner@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(_as_server_user(["pg_ctl", "-D", str(data), "-m", "immediate", "stop"]),
                       capture_output=True, check=False)
        shutil.rmtree(root, ignore_errors=True)


def _no_user(name: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(name)
    except KeyError:
        return True
    return False


def test_two_workers_share_a_postgresql_study(tmp_path: Path, postgres_url: str):
    options = TuneOptions(SAXPY, pipeline="autogpu-vanilla", sizes={"n": 20000},
                          arrays={"x": "n", "y": "n"}, backend="cpu",
                          space={"block_size": [32, 64, 128, 256, 512]}, strategy="model",
                          workers=2, jobs=2, repetitions=2, storage=postgres_url,
                          cache=str(tmp_path / "tune.sqlite"), progress=False, plot=False)
    result = run(prepare(options))
    assert sorted(v["params"]["block_size"] for v in result.variants) == [32, 64, 128, 256, 512]
    assert all(v["status"] == "ok" for v in result.variants)
    assert sorted(w["worker"] for w in result.report["workers"]) == [0, 1]
    with Cache(tmp_path / "tune.sqlite") as cache:
        log = cache.measurement_log(result.context)
    assert len(log) == len({key for key, _, _ in log}) == 5  # each variant measured once

    import optuna

    (study,) = optuna.get_all_study_summaries(postgres_url)  # the workers' one shared study
    assert study.n_trials >= 5


def test_an_unreachable_study_server_is_a_clear_error(tmp_path: Path):
    pytest.importorskip("psycopg2", reason="needs psycopg2 (pip install psycopg2-binary)")
    from autogpu.diagnostics import CompileError
    from autogpu.tuner.workers import make_storage

    with pytest.raises(CompileError, match="cannot open the study storage 'postgresql"):
        make_storage(f"postgresql+psycopg2://tuner@127.0.0.1:{_free_port()}/postgres")
