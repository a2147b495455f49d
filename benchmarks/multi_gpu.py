"""`python3 -m benchmarks.multi_gpu [--quick] [--json out.json]`: parts of a nest over one and
two GPUs of a host (issue #15): a 5-point stencil and a row-major matmul whose data exceed one
device's `memory_budget`, each run with `devices=[0]` and `devices=[0, 1]` in the same process
(`[0, 1]` only where the host has two GPUs), and with `--cluster N` also through a Dask
`LocalCluster` of N worker processes (`CudaProgram(cluster=)`: worker i on GPU i mod count).

Each configuration runs twice; the second call is timed (the caller's arrays stay page-locked
from the first, as they do for any repeated call). It reports the wall time of that call, the
speed-up of two GPUs over one (the scaling; 2.0 is perfect), and per device the parts it took,
its bytes in and out and its busy seconds (from the lane records), and the bytes moved per part.
Outputs are checked against closed forms on sampled rows.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from autogpu.numeric import is_ndarray
from benchmarks.out_of_core import MATMUL, PIPELINE, STENCIL

GIB = 1 << 30


def _stencil_args(data: int, m: int) -> tuple[list[Any], Any]:
    n = data // (16 * m)
    a = np.empty((n, m))
    a[:] = np.arange(n, dtype=np.float64)[:, None]  # in[i][j] = i: out[i][j] = i inside
    out = np.zeros((n, m))

    def correct() -> bool:
        rows = np.unique(np.r_[1:n - 1:max(1, n // 257), n - 2])
        return bool(np.all(out[rows, 1:-1] == rows[:, None])) and bool(np.all(out[0] == 0))

    return [n, m, a, out], correct


def _matmul_args(data: int, side: int) -> tuple[list[Any], Any]:
    n = data // (4 * 2 * side)
    n -= n % 128
    a = np.empty((n, side), np.float32)
    a[:] = (np.arange(n) % 3).astype(np.float32)[:, None]
    b = np.empty((side, side), np.float32)
    b[:] = (np.arange(side) % 4).astype(np.float32)[:, None]
    c = np.zeros((n, side), np.float32)

    def correct() -> bool:
        rows = np.unique(np.r_[0:n:max(1, n // 257), n - 1])
        return bool(np.all(c[rows] == (rows % 3)[:, None] * (6.0 * side / 4)))

    return [n, side, side, a, b, c], correct


def run_case(name: str, quick: bool, cluster: Any = None) -> dict[str, Any]:
    import autogpu
    from autogpu.runtime.cuda_exec import CudaProgram, device_count

    scale = 1 / 64 if quick else 1
    if name == "stencil":
        data, budget = int(64 * GIB * scale), int(16 * GIB * scale)
        kernel = autogpu.compile(STENCIL, pipeline=PIPELINE)
        function, (args, correct) = "jacobi", _stencil_args(data, 32768 if not quick else 4096)
        flops = None
    else:
        data, budget = int(24 * GIB * scale), int(16 * GIB * scale * (1 if not quick else 4))
        kernel = autogpu.compile(MATMUL, pipeline="agpu-out-of-core,autogpu-tiled")
        function, (args, correct) = "mm", _matmul_args(data, 8192 if not quick else 1024)
        flops = 2.0 * args[0] * args[1] * args[2]
    arrays = [a for a in args if is_ndarray(a)]
    report: dict[str, Any] = {"case": name, "data_GiB": sum(a.nbytes for a in arrays) / GIB,
                              "budget_GiB": budget / GIB,
                              "shape": [int(x) for x in args[:3] if not isinstance(x, np.ndarray)]}
    configurations: list[tuple[str, dict[str, Any]]] = [("1gpu", {"devices": [0]})]
    if device_count() > 1:
        configurations.append(("2gpu", {"devices": [0, 1]}))
    if cluster is not None:
        workers = len(cluster.scheduler_info()["workers"])
        configurations.append((f"cluster{workers}", {"cluster": cluster}))
    for key, where in configurations:
        program = CudaProgram(kernel.cuda_source, kernel.launch_description,
                              memory_budget=budget, **where)
        arrays[-1][:] = 0
        began = time.perf_counter()
        program.run(function, *args)
        first = time.perf_counter() - began
        arrays[-1][:] = 0
        program.timeline = [] if "cluster" not in where else None
        began = time.perf_counter()
        program.run(function, *args)
        wall = time.perf_counter() - began
        plan = program.last_plan
        events = program.timeline or [("", 0, 0.0, 0.0)]
        span = max(e for *_, e in events) - min(b for _, _, b, _ in events)
        itemsize = {a.name: args[[p.name for p in program.functions[function].params]
                                 .index(a.name)].itemsize for a in plan.spec.arrays}
        from autogpu.runtime.lanes import part_bytes

        moved = [part_bytes(p, itemsize) for p in plan.parts]
        lanes = program.last_lanes[-1] if program.last_lanes else None
        report[key] = {
            "wall_s": wall, "first_call_s": first, "span_s": span if lanes is None else None,
            "parts": len(plan.parts), "rows_per_part": plan.rows,
            "bytes_per_part_in": int(np.median([m[0] for m in moved])),
            "bytes_per_part_out": int(np.median([m[1] for m in moved])),
            "correct": correct(),
            "lanes": None if lanes is None else [
                {"device": r.device, "parts": len(r.parts), "bytes_in": r.bytes_in,
                 "bytes_out": r.bytes_out, "busy_s": r.seconds,
                 "GBps": r.bytes_per_s / 1e9} for r in lanes],
        }
        if flops:
            report[key]["TFLOPs"] = flops / wall / 1e12
        program.close()
        print(json.dumps({name: report[key]}), flush=True)
    for key, _ in configurations[1:]:
        report[f"speedup_{key}_over_1gpu"] = report["1gpu"]["wall_s"] / report[key]["wall_s"]
    return report


def _local_cluster(workers: int) -> Any:
    """A Dask LocalCluster of `workers` processes of one thread, without a dashboard."""
    from distributed import LocalCluster

    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                        dashboard_address=None)  # pyright: ignore[reportArgumentType] (None: no dashboard, as Dask documents)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1/64 of the sizes")
    parser.add_argument("--case", action="append", choices=["stencil", "matmul"])
    parser.add_argument("--cluster", type=int, metavar="N",
                        help="also run through a Dask LocalCluster of N worker processes")
    parser.add_argument("--json", help="write the reports here")
    args = parser.parse_args(argv)
    reports: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        cluster: Any = None
        if args.cluster:
            from distributed import Client

            cluster = stack.enter_context(Client(stack.enter_context(_local_cluster(args.cluster))))
        for name in args.case or ["stencil", "matmul"]:
            report = run_case(name, args.quick, cluster)
            reports.append(report)
            print(json.dumps(report), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(reports, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
