"""`python3 -m benchmarks.run --suite paper [--quick] [--json out.json]`: run a named suite, print
a table and write the same results as JSON. Exit status 1 when a row FAILED, 2 for bad usage."""

from __future__ import annotations

import argparse
import fnmatch
import sys
from collections.abc import Sequence

from benchmarks.report import FAILED, format_table, to_json
from benchmarks.suites import SUITES, Case

OUT_OF_CORE = "out-of-core"
"""Data larger than a device-memory budget (benchmarks/out_of_core.py: saxpy, a stencil, a
matmul against its in-core kernel, with the pinned copy bandwidth measured in the same run)."""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python3 -m benchmarks.run",
        description="Time autogpu's kernels against cuBLAS/cupyx on the same GPU, same run.",
    )
    parser.add_argument("--suite", default="paper", choices=sorted([*SUITES, OUT_OF_CORE]),
                        help="named suite (default: paper)")
    parser.add_argument("--quick", action="store_true", help="small sizes, fewer repetitions")
    parser.add_argument("--variant", action="append", metavar="PATTERN",
                        help="run only matching variants (shell pattern: mm_cond_*); repeatable")
    parser.add_argument("--list", action="store_true", help="list the suite's cases and exit")
    parser.add_argument("--compile-only", action="store_true",
                        help="build every variant (no GPU needed): status and build time")
    parser.add_argument("--compile-timeout", type=float, default=120, metavar="SECONDS",
                        help="a variant whose build takes longer is FAILED (default 120, 0: none)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--device", default="cuda", choices=("cuda", "cpu"),
                        help="cuda (CuPy, default) or cpu (CPU emulation: correctness only)")
    parser.add_argument("--reps", type=int, help="timed repetitions (default 20, quick 5)")
    parser.add_argument("--warmup", type=int, help="untimed warm-up calls (default 3, quick 1)")
    parser.add_argument("--seed", type=int, default=0, help="input data seed")
    parser.add_argument("--gemm-peer", default="cupy", choices=("cupy", "torch"),
                        help="library calling cuBLAS SGEMM for the matmul peer (default cupy)")
    parser.add_argument("--compiler", default="nvrtc", choices=("nvrtc", "nvcc"),
                        help="how CuPy compiles our CUDA source (default nvrtc)")
    parser.add_argument("--pycuda", action="store_true",
                        help="also time each verified variant through autogpu's pycuda executor")
    parser.add_argument("--peak-tflops", type=float,
                        help="FP32 peak to use instead of SMs x clock x lanes x 2")
    parser.add_argument("--bandwidth-tbs", type=float,
                        help="bandwidth to use instead of measuring a D2D copy")
    args = parser.parse_args(argv)
    for name in ("reps", "warmup"):
        value = getattr(args, name)
        if value is not None and value < (1 if name == "reps" else 0):
            parser.error(f"--{name} must be {'positive' if name == 'reps' else 'non-negative'}")
    if args.pycuda and args.device == "cpu":
        parser.error("--pycuda times on the GPU: it needs --device cuda")
    args.reps = args.reps or (5 if args.quick else 20)
    args.warmup = args.warmup if args.warmup is not None else (1 if args.quick else 3)
    return args


def select(cases: list[Case], patterns: list[str] | None) -> list[Case]:
    """The cases whose variant matches one of `patterns`; an unmatched pattern is an error."""
    if not patterns:
        return cases
    names = sorted({c.variant.name for c in cases})
    for pattern in patterns:
        if not fnmatch.filter(names, pattern):
            raise ValueError(f"no variant matches '{pattern}'; the suite has: {', '.join(names)}")
    return [c for c in cases if any(fnmatch.fnmatchcase(c.variant.name, p) for p in patterns)]


def list_cases(cases: list[Case]) -> str:
    return "\n".join(
        f"{c.variant.name:16} {c.variant.problem.label(c.size_dict):18} {c.variant.pipeline}"
        + "".join(f"\n{'':35} else {f}" for f in c.variant.fallbacks)
        for c in cases
    )


def make_device(args: argparse.Namespace):
    from benchmarks.devices import CpuDevice, CudaDevice

    if args.device == "cpu":
        return CpuDevice()
    return CudaDevice(gemm_peer=args.gemm_peer, compiler=args.compiler,
                      copy_bytes=(256 << 20) if args.quick else (1 << 30))


def compile_only(cases: list[Case], timeout: float) -> int:
    """Build each variant once, as a run would, and say how it went: a check to make before
    spending GPU time."""
    from autogpu.diagnostics import CompileError
    from benchmarks.devices import Unavailable
    from benchmarks.roofline import Roofline
    from benchmarks.runner import Runner

    no_device = Roofline(1.0, 1.0, "not measured", "not measured")  # compiling needs none
    runner = Runner(None, warmup=0, reps=1, roofline=no_device, compile_timeout=timeout)
    failed = False
    for variant in {c.variant.name: c.variant for c in cases}.values():
        try:
            _, pipeline = runner.kernel(variant)
            status = "ok" + (" (fallback)" if pipeline != variant.pipeline else "")
        except Unavailable as e:
            status, pipeline = f"unavailable: {e}", ""
        except CompileError as e:
            status, pipeline, failed = f"FAILED: {e.message}".splitlines()[0], "", True
        print(f"{variant.name:16} {runner.build_seconds[variant.name]:6.1f} s  {status}"
              + (f"\n{'':26}{pipeline}" if pipeline else ""), flush=True)
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.suite == OUT_OF_CORE:  # its own driver: cases in subprocesses, copy bandwidth
        from benchmarks import out_of_core

        return out_of_core.main(["--quick"] * args.quick + ["--list"] * args.list
                                + (["--json", args.json] if args.json else [])
                                + (["--only", args.variant[0]] if args.variant else []))
    try:
        cases = select(SUITES[args.suite](args.quick), args.variant)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.list:
        print(list_cases(cases))
        return 0

    from benchmarks.runner import Runner

    if args.compile_only:
        return compile_only(cases, args.compile_timeout)

    try:
        device = make_device(args)
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    try:
        roofline = device.roofline(
            args.peak_tflops * 1e12 if args.peak_tflops else None,
            args.bandwidth_tbs * 1e12 if args.bandwidth_tbs else None,
        )
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    runner = Runner(device, warmup=args.warmup, reps=args.reps, seed=args.seed, roofline=roofline,
                    pycuda=args.pycuda, compile_timeout=args.compile_timeout)
    rows = runner.run(cases)

    print(f"device: {device.describe()['name']}; FP32 peak {roofline.peak_flops / 1e12:.1f} "
          f"TFLOP/s ({roofline.peak_source}); bandwidth {roofline.bandwidth / 1e12:.2f} TB/s "
          f"({roofline.bandwidth_source}); median of {args.reps} after {args.warmup} warm-up")
    print(format_table(rows))
    if args.suite == "remap":
        from benchmarks.remap import launch_overhead

        print("\n".join(launch_overhead(rows)))
    if args.json:
        header = {
            "suite": args.suite, "quick": args.quick, "device": device.describe(),
            "roofline": {"peak_gflops": roofline.peak_flops / 1e9,
                         "peak_source": roofline.peak_source,
                         "bandwidth_gbs": roofline.bandwidth / 1e9,
                         "bandwidth_source": roofline.bandwidth_source},
            "settings": {"reps": args.reps, "warmup": args.warmup, "seed": args.seed,
                         "gemm_peer": args.gemm_peer, "compiler": args.compiler,
                         "pycuda": args.pycuda},
        }
        with open(args.json, "w") as f:
            f.write(to_json(rows, **header) + "\n")
    return 1 if any(r.status == FAILED for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
