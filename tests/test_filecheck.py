"""Runs the lit + FileCheck suite under pytest, one pytest item per test file, so that the
README's single test command covers both suites."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from paths import FILECHECK_TESTS

SUITE = FILECHECK_TESTS
TESTS = sorted(
    p for p in SUITE.rglob("*") if p.suffix in {".mlir", ".c"} and "inputs" not in p.parts
)


@pytest.mark.parametrize("test", TESTS, ids=[str(p.relative_to(SUITE)) for p in TESTS])
def test_filecheck(test: Path, tmp_path: Path):
    lit = shutil.which("lit")
    if shutil.which("autogpu-opt") is None or lit is None:
        pytest.fail("autogpu-opt or lit is not on PATH: install the package first (see README)")
    # lit rewrites a timing file in its exec root after each run: one per test, so that the
    # workers of `pytest -n` never read a file another is writing.
    env = {**os.environ, "AUTOGPU_LIT_EXEC_ROOT": str(tmp_path)}
    result = subprocess.run([lit, "-v", str(test)], capture_output=True, text=True, env=env, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
