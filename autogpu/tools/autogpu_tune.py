"""`autogpu-tune`: try the variants of a C kernel on the device and keep the fastest verified one.

    autogpu-tune examples/saxpy.c --size n=1048576 --array x=n --array y=n
    autogpu-tune examples/matmul.c --size m=1024 --size n=1024 --size p=1024 \\
        --array A=m*n --array B=m*p --array C=p*n -p autogpu-optimize --strategy model --budget 60

Bad input (flags, sizes, the space) is reported before anything runs: usage errors exit with
status 2, errors in the kernel, sizes or space with status 1, never with a traceback. An
interrupted run (Ctrl-C, SIGTERM) releases its claims and exits with 130; run it again to resume.
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autogpu.diagnostics import CompileError
from autogpu.tuner.strategies import STRATEGIES

if TYPE_CHECKING:
    from autogpu.tuner.options import TuneOptions

_ASSIGNMENT = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*=\s*(.+?)\s*$", re.S)


def _assignment(what: str):
    def parse(text: str) -> tuple[str, str]:
        m = _ASSIGNMENT.match(text)
        if not m:
            raise argparse.ArgumentTypeError(f"expected {what}, got '{text}'")
        return m.group(1), m.group(2)

    parse.__name__ = what
    return parse


def _positive_int(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'")
    return value


def _non_negative_int(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got '{text}'") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got '{text}'")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got '{text}'") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got '{text}'")
    return value


def _devices(text: str) -> list[int]:
    try:
        devices = [int(d) for d in text.split(",") if d.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected GPU indices like 0 or 0,1, got '{text}'") from None
    if not devices or any(d < 0 for d in devices):
        raise argparse.ArgumentTypeError(f"expected GPU indices like 0 or 0,1, got '{text}'")
    return devices


def _literal(text: str) -> Any:
    t = text.strip()
    if t.lower() in ("true", "false"):
        return t.lower() == "true"
    for parse in (_c_integer, float):
        try:
            return parse(t)
        except ValueError:
            pass
    return t


def _c_integer(text: str) -> int:
    """An integer as C spells it (0x.., 0o.., decimal)."""
    return int(text, 0)


def parse_values(text: str) -> Any:
    """`--set` values: a generator expression (`pow2(32, 256)`) or a comma-separated list."""
    if "(" in text or "[" in text:
        return text
    return [_literal(v) for v in text.split(",") if v.strip()]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="autogpu-tune",
        description="Tune a serial C kernel: compile its variants (every option of every pass of "
        "the pipeline over a search space), verify each against a reference, time the verified "
        "ones on the device, and keep the fastest. Results are cached, so a re-run measures "
        "nothing twice and an interrupted run resumes.",
        epilog="Generators for --set and space files: pow2(lo, hi), seq(lo, hi, step), "
        "range(...), divisors(n, lo, hi), multiples(k, lo, hi); expressions may use the sizes. "
        "See docs/tuner.md.",
    )
    p.add_argument("kernel", metavar="KERNEL.c", help="the serial C source file")
    p.add_argument("--function", metavar="NAME",
                   help="the C function to tune (needed when the file defines several)")
    p.add_argument("--size", metavar="NAME=VALUE", type=_assignment("NAME=VALUE"),
                   action="append", default=[],
                   help="value of a scalar parameter of the function (every integer parameter "
                   "needs one; floating-point ones default to a random value)")
    p.add_argument("--array", metavar="NAME=EXPR", type=_assignment("NAME=EXPR"),
                   action="append", default=[],
                   help="length in elements of an array parameter, an expression over the sizes "
                   "(e.g. A=m*n); by default the C99 extents (float A[m][n]), else the elements "
                   "the kernel indexes for the given sizes")
    p.add_argument("--input", metavar="NAME=FILE.npy", type=_assignment("NAME=FILE.npy"),
                   action="append", default=[],
                   help="load a parameter's data from a .npy file instead of random values "
                   "(uniform in [-1, 1] for floats, small integers for ints)")
    g = p.add_argument_group("search space")
    g.add_argument("-p", "--pipeline", default="autogpu-optimize", metavar="PIPELINE",
                   help="the pass pipeline whose options are tuned; options written in it "
                   "(pass{opt=v}) stay fixed (default: %(default)s)")
    g.add_argument("--specialize", metavar="NAME,...", nargs="?", const="all",
                   help="compile these sizes (alone: every integer size) into the variants "
                   "(agpu-specialize before the pipeline): constant loops unroll fully and "
                   "guards the grid makes unnecessary disappear, but the best kernel then runs "
                   "only at these sizes")
    g.add_argument("--space", metavar="FILE",
                   help="a JSON or TOML space file: [parameters] values, restrictions, [arrays], "
                   "[sizes]; it overrides the default values of the parameters it names")
    g.add_argument("--set", metavar="PARAM=VALUES", type=_assignment("PARAM=VALUES"),
                   action="append", default=[],
                   help="values of one parameter: a list (32,64,128) or a generator "
                   "(pow2(32,256)); overrides the space file")
    g.add_argument("--restrict", metavar="EXPR", action="append", default=[],
                   help="a restriction over parameters, sizes, max_threads and max_shared, "
                   "e.g. 'block_size * unroll <= 2048' or 'n %% unroll == 0' (repeatable)")
    g.add_argument("--no-default-space", action="store_true",
                   help="tune only the parameters named by --set or --space")
    g.add_argument("--list-space", action="store_true",
                   help="print the space (parameters, restrictions, valid variants) and exit")
    g.add_argument("--max-threads", type=_positive_int, metavar="N",
                   help="threads per block limit (default: the device's, 1024)")
    g.add_argument("--max-shared", type=_positive_int, metavar="BYTES",
                   help="shared memory per block limit (default: the device's, 48 KiB)")
    g = p.add_argument_group("search")
    g.add_argument("--strategy", choices=list(STRATEGIES),
                   default="exhaustive",
                   help="exhaustive (every variant, like AutoGPU), random, linear (a Bayesian "
                   "linear model of log time, Thompson sampling), model (Optuna TPE) or gp "
                   "(Optuna GP, needs PyTorch) (default: %(default)s)")
    g.add_argument("--budget", type=_positive_int, metavar="N",
                   help="stop after N evaluated variants (cached ones count)")
    g.add_argument("--time-limit", type=_positive_float, metavar="SECONDS",
                   help="stop starting new measurements after this many seconds")
    g.add_argument("--seed", type=_non_negative_int, default=0,
                   help="seed of the random and model strategies (default: %(default)s)")
    g.add_argument("--compare-strategies", action="store_true",
                   help="after the run, replay exhaustive/random/model against the complete "
                   "table and report the evaluations each needs to get within 3%% of the optimum")
    g.add_argument("--compare-seeds", type=_positive_int, default=10, metavar="N",
                   help="seeds per strategy for --compare-strategies (default: %(default)s)")
    g = p.add_argument_group("measurement")
    g.add_argument("--backend", choices=["cuda", "cpu"], default="cuda",
                   help="measure on the GPU (cuda, through pycuda) or on the CPU emulation "
                   "(cpu: wall time; for testing the tuner without a GPU) (default: %(default)s)")
    g.add_argument("--device", type=_devices, metavar="N[,N...]",
                   help="GPU index (or indices, one per worker) (default: 0)")
    g.add_argument("--workers", type=_positive_int, default=1, metavar="N",
                   help="tuners working together on one cache (one per GPU) (default: 1)")
    g.add_argument("--storage", metavar="URL",
                   help="Optuna storage shared by workers of the model strategy: "
                   "sqlite:///FILE, postgresql://... across hosts, or a journal FILE.log "
                   "(default with --workers: a journal next to the cache)")
    g.add_argument("--repetitions", type=_positive_int, default=5, metavar="N",
                   help="timed runs per variant; the median is kept (default: %(default)s)")
    g.add_argument("--warmup", type=_non_negative_int, default=1, metavar="N",
                   help="untimed runs before timing (default: %(default)s)")
    g.add_argument("--timeout", type=_positive_float, default=60.0, metavar="SECONDS",
                   help="a variant's measurement is stopped and failed after this long "
                   "(default: %(default)s)")
    g.add_argument("--compile-timeout", type=_positive_float, default=300.0, metavar="SECONDS",
                   help="a variant's compilation is stopped and failed after this long "
                   "(default: %(default)s)")
    g.add_argument("--jobs", "-j", type=_non_negative_int, metavar="N",
                   help="parallel compilations (default: all cores; 0: in this process)")
    g.add_argument("--reference", default="gcc", metavar="gcc|interpreter|PIPELINE|none",
                   help="what every variant's outputs must reproduce: gcc (the serial C compiled "
                   "by gcc; the IR interpreter where gcc is missing or rejects the source), "
                   "interpreter, a pipeline of autogpu's own (not independent), or none to skip "
                   "verification (default: %(default)s)")
    g.add_argument("--reference-backend", choices=["cuda", "cpu"],
                   help="run a pipeline reference on this backend (default: the measuring one)")
    g.add_argument("--reduction-length", metavar="EXPR",
                   help="K in the tolerance c*eps*sqrt(K): the longest serial accumulation "
                   "(default: the largest integer size)")
    g.add_argument("--tolerance-factor", type=_positive_float, default=8.0, metavar="C",
                   help="c in the tolerance c*eps*sqrt(K) (default: %(default)s)")
    g.add_argument("--memory-budget", type=_positive_int, metavar="BYTES",
                   help="device memory a function made by agpu-out-of-core runs within, in "
                   "parts where its data exceed it (default: the GPU's free memory)")
    g.add_argument("--input-seed", type=_non_negative_int, default=0, metavar="N",
                   help="seed of the random inputs (default: %(default)s)")
    g = p.add_argument_group("cache and outputs")
    g.add_argument("--cache", metavar="FILE",
                   help="the SQLite cache (default: $AUTOGPU_CACHE/tune/tune.sqlite, else "
                   "~/.cache/autogpu/tune/tune.sqlite)")
    g.add_argument("--no-cache", action="store_true",
                   help="use a fresh temporary cache (measure everything)")
    g.add_argument("--retry-failed", action="store_true",
                   help="measure again the variants the cache records as failed")
    g.add_argument("-o", "--output", metavar="OUTDIR",
                   help="where best.cu, best.json, report.json and search.png go "
                   "(default: ./tune-FUNCTION)")
    g.add_argument("--top", type=_positive_int, default=10, metavar="K",
                   help="rows of the result table (default: %(default)s)")
    g.add_argument("--no-plot", action="store_true", help="do not draw search.png")
    g.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    g = p.add_argument_group("testing-platform mode (tune inside your own host program)")
    g.add_argument("--build", metavar="CMD",
                   help="build command per variant; {cu}, {dir}, {host} and {PARAM} are "
                   "substituted (e.g. 'nvcc -O3 -o {dir}/app {host} -DBLOCK={block_size}')")
    g.add_argument("--run", metavar="CMD",
                   help="run command per variant (e.g. '{dir}/app 4096'); a non-zero exit "
                   "fails the variant")
    g.add_argument("--host-source", metavar="FILE",
                   help="your host program; a '// autogpu: time' line before the kernel launch "
                   "gets timing and error-check code inserted; {host} is the instrumented copy")
    g.add_argument("--time-regex", metavar="REGEX",
                   help="regular expression whose group 1 is the time in the program's output "
                   "(default: the line the inserted code prints, 'autogpu-time-ms: X')")
    g.add_argument("--time-unit", choices=["s", "ms", "us", "ns"], default="ms",
                   help="unit of the time read from the program (default: %(default)s)")
    g.add_argument("--time-file", metavar="FILE",
                   help="read the time from this file (relative to {dir}) instead of stdout")
    return p


def _once(pairs: list[tuple[str, str]], flag: str) -> dict[str, str]:
    """NAME=VALUE flags as a dict; a name given twice is an error, not the last one winning."""
    result: dict[str, str] = {}
    for name, value in pairs:
        if name in result:
            raise CompileError(f"{flag} {name} is given twice ({name}={result[name]} and "
                               f"{name}={value}): keep one")
        result[name] = value
    return result


def options_from_args(args: argparse.Namespace) -> TuneOptions:
    from autogpu.tuner.options import TuneOptions

    function = args.function
    output = args.output
    space: dict[str, Any] = {name: parse_values(values)
                             for name, values in _once(args.set, "--set").items()}
    cache = "none" if args.no_cache else args.cache
    devices = args.device or [0]
    return TuneOptions(
        kernel=args.kernel,
        function=function,
        pipeline=args.pipeline,
        sizes=_once(args.size, "--size"),
        specialize=args.specialize,
        arrays=_once(args.array, "--array"),
        inputs=_once(args.input, "--input"),
        space=space,
        space_file=args.space,
        restrictions=list(args.restrict),
        use_default_space=not args.no_default_space,
        strategy=args.strategy,
        budget=args.budget,
        time_limit=args.time_limit,
        backend=args.backend,
        device=devices[0],
        devices=devices,
        cache=cache,
        retry_failed=args.retry_failed,
        output_dir=output,
        jobs=args.jobs,
        workers=args.workers,
        storage=args.storage,
        seed=args.seed,
        input_seed=args.input_seed,
        warmup=args.warmup,
        repetitions=args.repetitions,
        timeout=args.timeout,
        compile_timeout=args.compile_timeout,
        reference=args.reference,
        reference_backend=args.reference_backend,
        reduction_length=args.reduction_length,
        tolerance_factor=args.tolerance_factor,
        memory_budget=args.memory_budget,
        max_threads=args.max_threads,
        max_shared=args.max_shared,
        progress=not args.quiet,
        compare=args.compare_strategies,
        compare_seeds=args.compare_seeds,
        top=args.top,
        plot=not args.no_plot,
    )


class _Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C: claims are released on the way out."""


def _on_sigterm(signum: int, frame: Any) -> None:
    raise _Terminated()


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not Path(args.kernel).is_file():
        parser.error(f"no such C file: {args.kernel}")
    host_mode = args.build is not None or args.run is not None
    if host_mode and (args.build is None or args.run is None):
        parser.error("testing-platform mode needs both --build and --run")
    if not host_mode and (args.host_source or args.time_regex or args.time_file):
        parser.error("--host-source, --time-regex and --time-file belong to testing-platform "
                     "mode: give --build and --run too")
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return _main(args, host_mode)
    except CompileError as e:  # located ones keep their file:line:col
        print(e.format() if e.location else f"{parser.prog}: {e.format()}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("autogpu-tune: interrupted; finished variants are cached, run the same command "
              "again to resume", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)


def _main(args: argparse.Namespace, host_mode: bool) -> int:
    from autogpu.api import options_text
    from autogpu.tuner import report
    from autogpu.tuner.driver import prepare, run

    options = options_from_args(args)
    if host_mode:
        from autogpu.tuner.host_program import HostProgram, host_options

        options = host_options(options, HostProgram(
            build=args.build, run=args.run, host_source=args.host_source,
            time_regex=args.time_regex, time_unit=args.time_unit, time_file=args.time_file,
            timeout=args.timeout))
    prepared = prepare(options)
    if args.list_space:
        description = prepared.space.describe()
        description["valid"] = len(prepared.candidates)
        print(json.dumps(description, indent=2, default=str))
        return 0
    if options.output.output_dir is None:
        options.output.output_dir = f"tune-{prepared.function}"
    result = run(prepared)
    print(result.table(args.top))
    if "strategies" in result.report.get("compare_strategies", {}):
        print(report.compare_table(result.report["compare_strategies"]))
    print(f"reference: {result.report['reference']['description']}")
    if result.best_params is None:
        print(f"autogpu-tune: error: no variant of {result.function} passed verification "
              f"(details in {result.files.get('report')})", file=sys.stderr)
        return 1
    best = options_text(result.best_params)
    print(f"best: {best}  {report.format_time(result.best_time_s)}  "
          f"({result.measured} measured now, {len(result.variants) - result.measured} from "
          f"the cache; stopped: {result.stopped_by}; {result.report['wall_s']:.0f} s)")
    for name in ("best_cu", "best_json", "report", "plot"):
        if name in result.files:
            print(f"  {result.files[name]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
