"""`python3 -m benchmarks.out_of_core [--quick] [--json out.json] [--timeline dir]`: data larger
than a device-memory budget, and larger than the GPU, run in parts (`agpu-out-of-core`, the
pycuda pipeline of `autogpu.runtime.pipeline`).

Each case runs in a subprocess of its own (a host that cannot hold the arrays kills only that
case). It reports the pipeline's time (from its first to its last CUDA event), the bytes copied
in and out, and the copy-in rate as a fraction of the pinned host-to-device bandwidth measured in
the same run (`cudaMemcpy` of page-locked memory; copies in are the bottleneck direction of both
kernels: saxpy copies two arrays in and one out, the stencil one in and one out on separate
copy engines). Outputs are checked against closed forms on sampled rows. The matmul case
(`examples/matmul_rows.c`, A and C in parts, B resident) is compute-bound: it reports the
pipeline's speed as a fraction of the same tiled kernel's in-core speed (data on the device),
measured in the same process, and each stage's median time per part from the timeline.
`python3 -m benchmarks.run --suite out-of-core` runs this module.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

GIB = 1 << 30
SAXPY = """
void saxpy(long n, float a, const float *restrict x, float *restrict y) {
#pragma omp parallel for
  for (long i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}
"""
STENCIL = """
void jacobi(long n, long m, const double in[n][m], double out[n][m]) {
#pragma omp parallel for collapse(2)
  for (long i = 1; i < n - 1; i++)
    for (long j = 1; j < m - 1; j++)
      out[i][j] = 0.25 * (in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1]);
}
"""
MATMUL = Path(__file__).resolve().parent.parent.joinpath("examples", "matmul_rows.c").read_text()
PIPELINE = "agpu-out-of-core,autogpu-optimize"
MATMUL_PIPELINE = "autogpu-tiled"
"""The tuned in-core matmul kernel (block tiles in `__shared__`, register tiles); in parts it
runs after `agpu-out-of-core`, in-core (the reference, timed in the same run) without it."""
MATMUL_SIDE = 8192
"""p = m: a row of A and of C is 32 KiB, and computing it takes 2 * 8192^2 flops, far longer
at the GPU's speed than copying its 64 KiB: each part's kernel hides its copies."""


BEYOND_THE_GPU = (96, 90, 84)
"""GiB of saxpy data for the case larger than the GPU, tried in turn until the host holds it."""


def cases(quick: bool) -> dict[str, dict[str, Any]]:
    """name -> kernel, total data and budget (None: the GPU's free memory)."""
    scale = 1 / 64 if quick else 1
    beyond = {f"saxpy_{size}GiB_beyond_the_gpu": {"kernel": "saxpy", "data": size * GIB * scale,
                                                  "budget": None} for size in BEYOND_THE_GPU}
    return {**beyond, **{
        "saxpy_32GiB_budget_8GiB": {"kernel": "saxpy", "data": 32 * GIB * scale,
                                    "budget": int(8 * GIB * scale)},
        "stencil_32GiB_budget_8GiB": {"kernel": "jacobi", "data": 32 * GIB * scale,
                                      "budget": int(8 * GIB * scale)},
        "matmul_12GiB_budget_8GiB": {"kernel": "matmul", "data": 12 * GIB * scale,
                                     "budget": int(8 * GIB * scale)},
    }}


def pinned_bandwidth(driver: Any, nbytes: int = GIB, repetitions: int = 5) -> dict[str, float]:
    """GB/s of cudaMemcpy between page-locked host memory and the device, each direction."""
    host = driver.pagelocked_empty(nbytes, np.uint8)
    host[:] = 1
    device = driver.mem_alloc(nbytes)
    start, end = driver.Event(), driver.Event()
    result: dict[str, float] = {}
    for direction in ("h2d", "d2h"):
        samples: list[float] = []
        for _ in range(repetitions):
            start.record()
            if direction == "h2d":
                driver.memcpy_htod(device, host)
            else:
                driver.memcpy_dtoh(host, device)
            end.record()
            end.synchronize()
            samples.append(nbytes / (end.time_since(start) / 1000) / 1e9)
        result[direction] = max(samples)
    device.free()
    return result


def run_case(name: str, quick: bool, timeline_dir: str | None) -> dict[str, Any]:
    import autogpu
    from autogpu.runtime.cuda_exec import CudaProgram, _on_device  # pyright: ignore[reportPrivateUsage]  # the program's own context for the copies

    case = cases(quick)[name]
    if case["kernel"] == "matmul":
        return run_matmul(name, case, quick, timeline_dir)
    source = SAXPY if case["kernel"] == "saxpy" else STENCIL
    kernel = autogpu.compile(source, pipeline=PIPELINE)
    program = CudaProgram(kernel.cuda_source, kernel.launch_description,
                          memory_budget=case["budget"])
    with _on_device(0) as driver:
        bandwidth = pinned_bandwidth(driver)
        free, total = driver.mem_get_info()
    began = time.perf_counter()
    if case["kernel"] == "saxpy":
        n = int(case["data"]) // 8
        x = np.full(n, 1.0, np.float32)
        y = np.full(n, 2.0, np.float32)
        args: list[Any] = [n, np.float32(3.0), x, y]
    else:
        m = 32768 if not quick else 4096
        n = int(case["data"]) // (16 * m)
        a = np.empty((n, m))
        a[:] = np.arange(n, dtype=np.float64)[:, None]  # in[i][j] = i: out[i][j] = i inside
        out = np.zeros((n, m))
        args = [n, m, a, out]
    filled = time.perf_counter() - began
    program.timeline = []
    began = time.perf_counter()
    program.run(case["kernel"], *args)
    wall = time.perf_counter() - began
    plan = program.last_plan
    result = args[3]
    if case["kernel"] == "saxpy":
        sample = result[:: max(1, n // 4099)]
        correct = bool(np.all(sample == 5.0)) and bool(result[-1] == 5.0)
    else:
        rows = np.unique(np.r_[1:n - 1:max(1, n // 257), n - 2])
        correct = bool(np.all(result[rows, 1:-1] == rows[:, None])) \
            and bool(np.all(result[0] == 0))
    itemsize = 4 if case["kernel"] == "saxpy" else 8
    bytes_in = sum(s.count for p in plan.parts for s in p.slices) * itemsize
    bytes_out = sum(s.copy_out[1] - s.copy_out[0] for p in plan.parts for s in p.slices
                    if s.copy_out) * itemsize
    events = program.timeline
    span = max(e for *_, e in events) - min(b for _, _, b, _ in events) if events else wall
    report = {
        "case": name, "data_GiB": sum(a.nbytes for a in args if isinstance(a, np.ndarray)) / GIB,
        "budget_GiB": None if case["budget"] is None else case["budget"] / GIB,
        "gpu_free_GiB": free / GIB, "gpu_total_GiB": total / GIB,
        "parts": len(plan.parts), "rows_per_part": plan.rows, "in_core": plan.in_core,
        "pipeline_s": span, "run_s": wall, "fill_s": filled,
        "in_GB": bytes_in / 1e9, "out_GB": bytes_out / 1e9,
        "in_GBps": bytes_in / span / 1e9, "out_GBps": bytes_out / span / 1e9,
        "pinned_h2d_GBps": bandwidth["h2d"], "pinned_d2h_GBps": bandwidth["d2h"],
        "fraction_of_h2d": bytes_in / span / 1e9 / bandwidth["h2d"], "correct": correct,
    }
    if timeline_dir is not None:
        save_timeline(events, timeline_dir, name, len(plan.parts))
    return report


def save_timeline(events: list[Any], timeline_dir: str, name: str, parts: int) -> None:
    """A case's part timeline as JSON and as a Gantt chart (`name.json`, `name.png`)."""
    from autogpu.runtime.pipeline import draw_timeline

    Path(timeline_dir).mkdir(parents=True, exist_ok=True)
    (Path(timeline_dir) / f"{name}.json").write_text(json.dumps(events))
    draw_timeline(events, str(Path(timeline_dir) / f"{name}.png"),
                  f"{name}: {parts} parts, 3 streams")


def stage_medians(events: list[Any]) -> dict[str, float]:
    """The median seconds of each stage (copy-in, kernel, copy-out) over the parts."""
    import statistics

    stages: dict[str, list[float]] = {}
    for stage, _, begin, end in events:
        stages.setdefault(stage, []).append(end - begin)
    return {stage: statistics.median(times) for stage, times in stages.items()}


def run_matmul(name: str, case: dict[str, Any], quick: bool,
               timeline_dir: str | None) -> dict[str, Any]:
    """C = A B with A and C in parts (B resident) against the same tiled kernel in-core, data
    on the device (its kernel time), in the same process."""
    import autogpu
    from autogpu.runtime.cuda_exec import CudaProgram, _on_device  # pyright: ignore[reportPrivateUsage]  # the program's own context for the copies

    side = MATMUL_SIDE if not quick else 1024
    n = int(case["data"]) // (4 * 2 * side)
    n -= n % 128
    with _on_device(0) as driver:
        bandwidth = pinned_bandwidth(driver)
    a = np.empty((n, side), np.float32)
    a[:] = (np.arange(n) % 3).astype(np.float32)[:, None]
    b = np.empty((side, side), np.float32)
    b[:] = (np.arange(side) % 4).astype(np.float32)[:, None]
    c = np.zeros((n, side), np.float32)
    args = [n, side, side, a, b, c]
    flops = 2.0 * n * side * side
    in_core = autogpu.compile(MATMUL, pipeline=MATMUL_PIPELINE)
    reference = CudaProgram(in_core.cuda_source, in_core.launch_description)
    timing = reference.time("mm", args, repetitions=2, warmup=1, copies=False)
    parts = autogpu.compile(MATMUL, pipeline=f"agpu-out-of-core,{MATMUL_PIPELINE}")
    program = CudaProgram(parts.cuda_source, parts.launch_description,
                          memory_budget=case["budget"])
    c[:] = 0
    began = time.perf_counter()
    program.run("mm", *args)
    first_call = time.perf_counter() - began
    program.timeline = []
    began = time.perf_counter()
    program.run("mm", *args)  # the arrays stay page-locked: this call pays no registration
    wall = time.perf_counter() - began
    events = program.timeline
    span = max(e for *_, e in events) - min(b for _, _, b, _ in events)
    plan = program.last_plan
    rows = np.unique(np.r_[0:n:max(1, n // 257), n - 1])
    expected = (rows % 3)[:, None] * (6.0 * side / 4)
    correct = bool(np.all(c[rows] == expected))
    medians = stage_medians(events)
    program.close()
    report = {
        "case": name, "data_GiB": (a.nbytes + b.nbytes + c.nbytes) / GIB,
        "budget_GiB": case["budget"] / GIB, "n": n, "m": side, "p": side,
        "parts": len(plan.parts), "rows_per_part": plan.rows, "in_core": plan.in_core,
        "pipeline_s": span, "run_s": wall, "first_run_s": first_call,
        "in_core_kernel_s": timing.kernel_s,
        "in_core_TFLOPs": flops / timing.kernel_s / 1e12, "parts_TFLOPs": flops / span / 1e12,
        "fraction_of_in_core": timing.kernel_s / span,
        "part_copy_in_s": medians.get("copy-in"), "part_kernel_s": medians.get("kernel"),
        "part_copy_out_s": medians.get("copy-out"),
        "pinned_h2d_GBps": bandwidth["h2d"], "pinned_d2h_GBps": bandwidth["d2h"],
        "correct": correct,
    }
    if timeline_dir is not None:
        save_timeline(events, timeline_dir, name, len(plan.parts))
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1/64 of the sizes")
    parser.add_argument("--case", help="run one case here (the driver runs each in a subprocess)")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--timeline", help="a folder for each case's timeline and Gantt chart")
    parser.add_argument("--timeout", type=float, default=240, help="seconds per case")
    parser.add_argument("--only", help="run the cases whose names contain this")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(sorted(cases(args.quick))))
        return 0
    if args.case:
        print(json.dumps(run_case(args.case, args.quick, args.timeline)))
        return 0
    results: list[dict[str, Any]] = []
    beyond_done = False
    for name in sorted(cases(args.quick), key=lambda n: "beyond" in n):
        if ("beyond" in name and beyond_done) or (args.only and args.only not in name):
            continue
        command = [sys.executable, "-m", "benchmarks.out_of_core", "--case", name]
        command += ["--quick"] * args.quick + (["--timeline", args.timeline] if args.timeline
                                               else [])
        try:
            done = subprocess.run(command, capture_output=True, text=True, check=False,
                                  timeout=args.timeout)
        except subprocess.TimeoutExpired:
            results.append({"case": name, "error": f"timed out after {args.timeout} s"})
            print(results[-1], flush=True)
            continue
        lines = done.stdout.strip().splitlines()
        if done.returncode == 0 and lines:
            results.append(json.loads(lines[-1]))
            beyond_done |= "beyond" in name
        else:
            results.append({"case": name, "error": f"exit {done.returncode}: "
                            f"{done.stderr.strip()[-600:]}"})
        print(json.dumps(results[-1]), flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=1))
    return 0 if all(r.get("correct") for r in results if "error" not in r) else 1


if __name__ == "__main__":
    sys.exit(main())
