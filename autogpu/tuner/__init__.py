"""autogpu's tuner: try the variants of a kernel on the real device and keep the fastest.

Correct by construction (every variant is verified against a reference before it is timed),
fast (compilation in parallel on all cores while the GPU measures, model-based search), and
resumable (a persistent SQLite cache shared by concurrent tuners). See docs/tuner.md.

    kernel = autogpu.tune("examples/saxpy.c", sizes={"n": 1 << 20},
                          arrays={"x": "n", "y": "n"})
"""

from autogpu.tuner.driver import TuneOptions, TuneResult, prepare, run, tune
from autogpu.tuner.space import Parameter, Restriction, Space

__all__ = ["Parameter", "Restriction", "Space", "TuneOptions", "TuneResult", "prepare", "run",
           "tune"]
