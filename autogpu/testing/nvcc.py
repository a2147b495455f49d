"""Compile-checking CUDA sources with nvcc in tests: `assert_compiles_with_nvcc(source)`.

Every source is compiled once (`nvcc -arch=sm_90 -c`); the outcome (success, or the error log)
is cached by a hash of nvcc's version, the flags and the source, in memory and under
`$AUTOGPU_CACHE/nvcc` (default ~/.cache/autogpu/nvcc), so repeated test runs stay fast. Where
nvcc is not installed the assertion skips the test, saying so.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

DEFAULT_FLAGS = ("-arch=sm_90", "-c")


@dataclass(frozen=True)
class NvccResult:
    ok: bool
    log: str  # nvcc's diagnostics (warnings too)

    @property
    def warnings(self) -> list[str]:
        return [line for line in self.log.splitlines() if "warning" in line.lower()]


@functools.cache
def nvcc_path() -> str | None:
    found = shutil.which("nvcc")
    if found is None and Path("/usr/local/cuda/bin/nvcc").exists():
        found = "/usr/local/cuda/bin/nvcc"
    return found


@functools.cache
def _nvcc_version(nvcc: str) -> str:
    return subprocess.run([nvcc, "--version"], capture_output=True, text=True, check=False).stdout


def _cache_dir() -> Path:
    from autogpu.runtime.cpu_exec import cache_dir

    return cache_dir("nvcc")


_memory: dict[str, NvccResult] = {}


def compile_with_nvcc(source: str, flags: tuple[str, ...] = DEFAULT_FLAGS) -> NvccResult:
    """Compile `source` (a .cu file's text) with nvcc; cached. Requires nvcc (`nvcc_path()`)."""
    nvcc = nvcc_path()
    if nvcc is None:
        raise FileNotFoundError("nvcc is not installed")
    key = hashlib.sha256(
        "\0".join([_nvcc_version(nvcc), *flags, source]).encode()
    ).hexdigest()
    if key in _memory:
        return _memory[key]
    cache = _cache_dir() / f"{key}.txt"
    if cache.exists():
        status, _, log = cache.read_text().partition("\n")
        result = NvccResult(status == "ok", log)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "kernels.cu"
            path.write_text(source)
            run = subprocess.run(
                [nvcc, *flags, str(path), "-o", str(Path(tmp) / "kernels.o")],
                capture_output=True,
                text=True,
                cwd=tmp, check=False,
            )
        result = NvccResult(run.returncode == 0, (run.stdout + run.stderr).strip())
        cache.parent.mkdir(parents=True, exist_ok=True)
        temporary = cache.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(("ok" if result.ok else "error") + "\n" + result.log)
        temporary.replace(cache)  # atomic: parallel test workers may race here
    _memory[key] = result
    return result


def assert_compiles_with_nvcc(
    source: str, *, allow_warnings: bool = True, flags: tuple[str, ...] = DEFAULT_FLAGS
) -> None:
    """Fail the test with nvcc's log if `source` does not compile (or warns, when asked);
    skip it where nvcc is not installed."""
    if nvcc_path() is None:
        import pytest

        pytest.skip("nvcc is not installed: cannot compile-check the CUDA source")
    result = compile_with_nvcc(source, flags)
    numbered = "\n".join(f"{i + 1:4d}  {line}" for i, line in enumerate(source.splitlines()))
    if not result.ok:
        raise AssertionError(f"nvcc rejected the source:\n{result.log}\n--- source ---\n{numbered}")
    if not allow_warnings and result.warnings:
        raise AssertionError(f"nvcc warned:\n{result.log}\n--- source ---\n{numbered}")
