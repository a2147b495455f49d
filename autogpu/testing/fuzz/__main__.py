"""`python3 -m autogpu.testing.fuzz --count N [--seed S] [--keep DIR]`: the long run.

Programs are generated from seeds S, S+1, ..., checked in batches (see `runner`), and every
finding is printed (and, with --keep, written to DIR with its program) after optional
reduction. Exit status 1 when anything was found.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from autogpu.testing.fuzz.generator import generate
from autogpu.testing.fuzz.runner import Finding, Stats, batch_pipelines, check_batch


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    summary = __doc__.splitlines()[0] if __doc__ else None  # None under `python -OO`
    parser = argparse.ArgumentParser(prog="python3 -m autogpu.testing.fuzz", description=summary)
    parser.add_argument("--count", type=int, default=100, help="programs to run (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first program")
    parser.add_argument(
        "--batch", type=int, default=8, help="programs per translation unit (default 8)"
    )
    parser.add_argument("--cases", type=int, default=4, help="size cases per program")
    parser.add_argument(
        "--random-pipelines",
        type=int,
        default=2,
        help="random option sets of autogpu-optimize per batch, besides "
        "autogpu-vanilla and autogpu-optimize (default 2)",
    )
    parser.add_argument("--keep", type=Path, help="write each finding's report to this folder")
    parser.add_argument(
        "--known-issues",
        action="store_true",
        help="also generate the constructs of known, unfixed bugs (generator.KNOWN_ISSUES)",
    )
    parser.add_argument(
        "--reduce", action="store_true", help="shrink each failing program first (slower)"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    stats = Stats()
    started = time.perf_counter()
    seeds = range(args.seed, args.seed + args.count)
    for first in range(0, len(seeds), args.batch):
        batch = seeds[first : first + args.batch]
        programs = [generate(s, known_issues=args.known_issues) for s in batch]
        pipelines = batch_pipelines(random.Random(batch[0]), args.random_pipelines, programs)
        findings = check_batch(programs, pipelines, args.cases, seed=batch[0], stats=stats)
        for finding in findings:
            report(finding, args)
        print(f"seeds {batch[0]}..{batch[-1]}: {len(findings)} findings "
              f"({time.perf_counter() - started:.0f} s)", flush=True)  # fmt: skip
    print(
        f"{stats.programs} programs, {stats.runs} runs, {stats.compiles} compiles, "
        f"{len(stats.findings)} findings in {time.perf_counter() - started:.0f} s"
    )
    return 1 if stats.findings else 0


def report(finding: Finding, args: argparse.Namespace) -> None:
    if args.reduce:
        from autogpu.testing.fuzz.reduce import reduce_finding

        finding = reduce_finding(finding)
    text = finding.report()
    print(text, flush=True)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        number = len(list(args.keep.glob(f"{finding.program.name}-*")))
        (args.keep / f"{finding.program.name}-{finding.kind}-{number}.txt").write_text(text)


if __name__ == "__main__":
    sys.exit(main())
