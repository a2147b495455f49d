"""Fingerprints of everything the compiler emits, to prove a refactoring changed none of it.

A restructuring (moving a package, declaring an option once) must leave the emitted IR and CUDA
byte-identical. This records a SHA-256 of each of:

- every example's IR after the frontend, and its IR and CUDA after `autogpu-vanilla`;
- its CUDA under every benchmark-suite variant and a fixed sample of the tuner's default space;
- the output (stdout and stderr) of every `autogpu-opt` command in a FileCheck RUN line.

    python3 -m autogpu.testing.output_hashes > before.json      # on the old tree
    python3 -m autogpu.testing.output_hashes --compare before.json

`--compare` prints each entry that differs, is new or is gone, and exits 1 if any does.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
FILECHECK = ROOT / "filecheck_tests"
SPACE_SAMPLE_STRIDE = 7
"""Every 7th configuration of the default space (in product order): all values of every
option occur, without compiling all 288 per example."""


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _compile_outputs(example: Path, pipeline: str, options: dict[str, Any]) -> dict[str, str]:
    import autogpu
    from autogpu.diagnostics import CompileError

    try:
        kernel = autogpu.compile(example, pipeline=pipeline, warn=lambda e: None, **options)
        return {"ir": digest(kernel.ir), "cuda": digest(kernel.cuda_source)}
    except CompileError as error:
        return {"error": digest(str(error))}


SAMPLED_OPTIONS = ("block_size", "unroll_x", "unroll_y", "unroll_serial", "cache")
"""The tuned options of autogpu-optimize, in the order of the product the sample strides through
(fixed, so that hashes taken before and after a change name the same configurations)."""
UNSAMPLED_OPTIONS = {
    "array_reduction": "tuned only for loops with an array reduction, which no example has",
    "reduce_blocks": "tuned only for loops with a scalar reduction (dot.c); the sample keeps "
                     "its default, the grid of one block per tile",
    "flatten": "tuned only for nests of 4 levels or more, which no example has (its values "
               "resolve to [false], the default, for every example)",
    "split_walkers": "tuned only for outermost 1D parallel loops with a serial loop in their "
                     "body; the sample keeps its default, 0 (no split), as before the option",
}
"""Tuned options the sample leaves at their defaults, and why."""
SAMPLE_ENVIRONMENT = {"scalar_reductions": 0}
"""What the space's value expressions read: the sample is the space of a kernel without
reductions (unroll_x's [1, 2, 4]), the same for every example so that names stay fixed."""


def space_sample() -> list[dict[str, Any]]:
    from autogpu.passes.pipelines import AutogpuOptimizePipeline
    from autogpu.tuner.space import resolve_values

    space = AutogpuOptimizePipeline.TUNING_SPACE
    if set(space) - set(UNSAMPLED_OPTIONS) != set(SAMPLED_OPTIONS):
        raise SystemExit(f"autogpu-optimize tunes {', '.join(space)}: update SAMPLED_OPTIONS")
    values = {name: resolve_values(space[name], SAMPLE_ENVIRONMENT, name)
              for name in SAMPLED_OPTIONS}
    product = [dict(zip(values, combo, strict=True))
               for combo in itertools.product(*values.values())]
    return product[::SPACE_SAMPLE_STRIDE]


def compile_hashes() -> dict[str, dict[str, str]]:
    from autogpu.frontend import parse_c
    from benchmarks.suites import SUITES

    hashes: dict[str, dict[str, str]] = {}
    for example in sorted(EXAMPLES.glob("*.c")):
        module = parse_c(example.read_text(), str(example), lambda e: None)
        hashes[f"{example.name} frontend"] = {"ir": digest(str(module))}
        hashes[f"{example.name} autogpu-vanilla"] = _compile_outputs(example, "autogpu-vanilla",
                                                                     {})
        for options in space_sample():
            key = " ".join(f"{k}={v}" for k, v in options.items())
            hashes[f"{example.name} autogpu-optimize {key}"] = _compile_outputs(
                example, "autogpu-optimize", options)
    for suite, cases in SUITES.items():
        for case in cases(False):
            example = EXAMPLES / case.variant.example
            hashes[f"suite {suite} {case.variant.name}"] = _compile_outputs(
                example, case.variant.pipeline, {})
    return hashes


def run_lines(path: Path) -> list[str]:
    """The autogpu-opt commands of a lit file's RUN lines (up to the first pipe)."""
    commands: list[str] = []
    for line in path.read_text().splitlines():
        match = re.search(r"RUN:\s*(?:not\s+)?(autogpu-opt\b.*)", line)
        if not match:
            continue
        command = match[1].split("|")[0].strip()
        command = command.replace("%examples", str(EXAMPLES)).replace("%s", str(path))
        commands.append(command)
    return commands


def filecheck_hashes() -> dict[str, dict[str, str]]:
    hashes: dict[str, dict[str, str]] = {}
    for path in sorted(FILECHECK.rglob("*")):
        if path.suffix not in (".c", ".mlir") or "Output" in path.parts or "inputs" in path.parts:
            continue
        for number, command in enumerate(run_lines(path)):
            result = subprocess.run(shlex.split(command.replace("2>&1", "").replace(
                "2>/dev/null", "")), capture_output=True, text=True, cwd=ROOT, check=False)
            name = f"{path.relative_to(FILECHECK)} RUN {number}"
            stdout, stderr = (text.replace(str(ROOT), "<root>")  # a checkout's own folder
                              for text in (result.stdout, result.stderr))
            hashes[name] = {"stdout": digest(stdout), "stderr": digest(stderr),
                            "status": str(result.returncode)}
    return hashes


def compare(before: dict[str, dict[str, str]], after: dict[str, dict[str, str]]) -> list[str]:
    lines: list[str] = []
    for key in sorted(before.keys() | after.keys()):
        if key not in after:
            lines.append(f"gone:    {key}")
        elif key not in before:
            lines.append(f"new:     {key}")
        elif before[key] != after[key]:
            changed = sorted(k for k in before[key].keys() | after[key].keys()
                             if before[key].get(k) != after[key].get(k))
            lines.append(f"changed: {key} ({', '.join(changed)})")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--compare", metavar="JSON", help="compare with an earlier run")
    parser.add_argument("--no-filecheck", action="store_true", help="skip the RUN lines")
    args = parser.parse_args(argv)
    hashes = compile_hashes()
    if not args.no_filecheck:
        hashes |= filecheck_hashes()
    if args.compare is None:
        json.dump(hashes, sys.stdout, indent=1, sort_keys=True)
        print()
        return 0
    differences = compare(json.loads(Path(args.compare).read_text()), hashes)
    print("\n".join(differences) if differences else f"identical: {len(hashes)} outputs")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
