"""The testing tools' command lines work under `python -OO`, which strips the docstrings their
`--help` summaries are taken from (`__doc__` is None there)."""

import subprocess
import sys

import pytest
from paths import ROOT


@pytest.mark.parametrize("module", ["autogpu.testing.fuzz", "autogpu.testing.output_hashes"])
def test_help_under_optimize_2(module: str):
    run = subprocess.run([sys.executable, "-OO", "-m", module, "--help"], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("usage:")
