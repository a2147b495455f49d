"""Checks the generator's promise that its programs have no undefined behaviour.

gcc builds the programs with AddressSanitizer and UndefinedBehaviorSanitizer (and without
`-fwrapv`, so that signed overflow is caught) and runs them on the fuzzer's own cases: an
out-of-bounds access, a signed overflow, an invalid shift, a division by zero or a float to
integer conversion out of range aborts with the sanitizer's report. ASan has to be loaded
first, so the check runs in a subprocess with libasan preloaded:

    python3 -m autogpu.testing.fuzz.sanitize --count N [--seed S]   (spawns itself)
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from autogpu.testing.c_signature import parse_c_signature
from autogpu.testing.fuzz.generator import generate
from autogpu.testing.fuzz.runner import cases_for
from autogpu.testing.gcc_reference import PRELUDE, CReference

SANITIZE_FLAGS = (
    "-O0", "-g", "-fsanitize=address,undefined,float-cast-overflow", "-fno-sanitize-recover=all",
    "-ffp-contract=off", "-fno-builtin", "-fPIC", "-shared", "-w",
)  # fmt: skip


def sanitizer_environment() -> dict[str, str]:
    libasan = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True,
                             text=True, check=True).stdout.strip()  # fmt: skip
    return dict(os.environ, LD_PRELOAD=libasan, ASAN_OPTIONS="detect_leaks=0")


def check_in_subprocess(
    seeds: range, cases: int = 4, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """Runs the check of programs `seeds` in a fresh interpreter with ASan preloaded."""
    command = [sys.executable, "-m", "autogpu.testing.fuzz.sanitize", "--child", "--seed",
               str(seeds.start), "--count", str(len(seeds)), "--cases", str(cases)]  # fmt: skip
    return subprocess.run(command, env=sanitizer_environment(), capture_output=True, text=True,
                          timeout=timeout, check=False)  # fmt: skip


def run_sanitized(seeds: range, cases: int) -> None:
    """Every program of `seeds` on its fuzzing cases under the sanitizers (aborts on UB)."""
    with tempfile.TemporaryDirectory() as work:
        for seed in seeds:
            program = generate(seed)
            text = program.source()
            source = PRELUDE + text
            c_file, library = Path(work) / f"{program.name}.c", Path(work) / f"{program.name}.so"
            c_file.write_text(source)
            subprocess.run(["gcc", *SANITIZE_FLAGS, "-o", str(library), str(c_file), "-lm"],
                           check=True)  # fmt: skip
            # the prototype is read off the program itself: the frontend refuses the prelude
            function = CReference(library, parse_c_signature(text, program.name))
            for case in cases_for(program, random.Random(seed), cases):
                print(f"{program.name} {case.sizes}", flush=True)
                function(*program.arguments(case.sizes, np.random.default_rng(case.seed)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m autogpu.testing.fuzz.sanitize")
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", type=int, default=4)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    seeds = range(args.seed, args.seed + args.count)
    if args.child:
        run_sanitized(seeds, args.cases)
        return 0
    result = check_in_subprocess(seeds, args.cases)
    print(result.stdout[-2000:], result.stderr[-4000:], sep="\n")
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
