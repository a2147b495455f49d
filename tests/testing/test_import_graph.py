"""autogpu's modules form no import cycle, and each imports on its own in a fresh interpreter
(a module that only works after another one was imported hides a cycle or a missing import)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from paths import ROOT

from autogpu.testing.import_graph import cycles, import_graph, module_names


def test_autogpu_has_no_import_cycle():
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "pkg"


def test_deferred_and_relative_imports_count_and_type_checking_ones_do_not(tmp_path: Path):
    """A cycle through an import inside a function is found and printed as a path; one through
    `if TYPE_CHECKING:` is not a cycle (it never runs)."""
    pkg = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from pkg import b\n",
        "b.py": "def f():\n    from .c import g\n",
        "c.py": "import pkg.a\n",
        "d.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import e\n",
        "e.py": "from pkg.d import x\n",
    })
    graph = import_graph(pkg)
    assert graph["pkg.b"] == {"pkg.c"}
    assert graph["pkg.d"] == set()
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.c", "pkg.a"]]


#: Run in a fresh interpreter: load the third-party libraries once, then fork a child per
#: autogpu module (named on stdin) that imports only that module; print those that failed.
_IMPORT_EACH = r"""
import os, sys, traceback
import numpy, lark, xdsl.dialects.builtin  # not autogpu's: shared by the children
for module in sys.stdin.read().split():
    pid = os.fork()
    if pid == 0:
        try:
            __import__(module)
        except BaseException:
            print(module + ": " + traceback.format_exc().strip().splitlines()[-1], flush=True)
            os._exit(1)
        os._exit(0)
    os.waitpid(pid, 0)
"""


def test_every_module_imports_alone_in_a_fresh_interpreter():
    modules = sorted(module_names())
    assert len(modules) > 50
    done = subprocess.run([sys.executable, "-c", _IMPORT_EACH], input="\n".join(modules),
                          capture_output=True, text=True, timeout=600,
                          cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "", "modules that do not import alone:\n" + done.stdout
