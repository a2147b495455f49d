"""Parts over several hosts through Dask distributed (issue #15): `CpuProgram(..., cluster=)`.

Dask rather than Ray or a home-made RPC: it is pure Python (pip-installable next to autogpu,
the `cluster` extra), a `LocalCluster` of processes gives one machine the same code path as a
real cluster (`Client("tcp://scheduler:8786")`), and its futures carry NumPy arrays both ways
without copies through a serialiser of ours (docs/out-of-core.md).

Each part becomes a task: its input slices (what it reads or writes, halos included) travel to
a worker with the scalars, the arrays read whole are sent to every worker once per plan
(`scatter(broadcast=True)`), the worker runs the part's launches on its buffers (the kernels
built once per worker process, from the same source and launch description), and the rows the
part writes come back and land in the caller's arrays as each task finishes, in any order.
Parts write disjoint rows, so the order does not matter; each is written exactly once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

import numpy as np

from autogpu.runtime.arguments import BoundCall
from autogpu.runtime.lanes import LaneRecord, part_bytes
from autogpu.runtime.parts import Part, PartPlan, with_part

CONNECT_TIMEOUT_S = 10


def connect(cluster: Any) -> tuple[Any, bool]:
    """A Dask client for `cluster`: a scheduler address, a `LocalCluster` (or any cluster
    object with a scheduler) or a `Client`; and whether it is ours to close."""
    try:
        from distributed import Client
    except ImportError as e:
        raise ImportError(f"cluster= needs Dask distributed ({e}): pip install -e '.[cluster]'") \
            from None
    if isinstance(cluster, Client):
        return cluster, False
    if not isinstance(cluster, str) and not hasattr(cluster, "scheduler_address"):
        raise ValueError(f"cluster must be a scheduler address, a Dask cluster or a Client, not "
                         f"{type(cluster).__name__}")
    try:
        return Client(cluster, timeout=CONNECT_TIMEOUT_S), True
    except (OSError, TimeoutError) as e:
        raise ConnectionError(f"cannot reach the Dask scheduler at {cluster}: {e}") from None


_programs: dict[str, Any] = {}  # in a worker process: the programs it built, by content


ProgramClass = Callable[[str, Mapping[str, Any]], Any]
"""The executor a worker builds from the CUDA source and launch description (`CpuProgram`, or
`cuda_exec.cluster_worker_program` for GPU workers; passed by the caller, pickled by reference,
so this module does not import the executors that import it). It has `functions` and
`run_slices(call, whole, slices, positions)`, which runs one part's launches on host buffers."""

PartSlice = tuple[str, int, np.ndarray, "tuple[int, int] | None"]
"""One array of a part on a worker: its name, the index of its first element, the buffer of the
elements from there (the launches update it in place) and the range the part writes, if any."""


def worker_device(count: int) -> int:
    """The GPU of this worker process among the `count` it sees: a `LocalCluster` names its
    workers 0, 1, ..., so worker i takes device i mod count (several workers on one host spread
    over its GPUs); a worker with another name (`dask worker --name host-a`, or dask-cuda's
    workers, which see one GPU each) takes device 0."""
    from distributed import get_worker

    name = get_worker().name
    return name % count if isinstance(name, int) and count else 0


def _worker_program(program_class: ProgramClass, source: str, launch: Mapping[str, Any]) -> Any:
    key = hashlib.sha256((repr(program_class) + source + json.dumps(launch, sort_keys=True))
                         .encode()).hexdigest()  # a CPU and a GPU program of one source: two
    if key not in _programs:
        _programs[key] = program_class(source, launch)
    return _programs[key]


def run_part(program_class: ProgramClass, source: str, launch: Mapping[str, Any],
             function_name: str,
             scalars: Mapping[str, Any], whole: Mapping[str, np.ndarray],
             slices: Sequence[PartSlice], positions: Sequence[int]
             ) -> tuple[str, dict[str, np.ndarray]]:
    """On a worker: one part's launches (those at `positions` of the trace) on its buffers
    (`slices`: name, first element, the elements from there, the written range), the arrays
    read whole in `whole`. Returns the worker's address and the written elements per array."""
    from distributed import get_worker

    from autogpu.runtime.array_arguments import HostArray
    from autogpu.runtime.array_views import array_view

    program = _worker_program(program_class, source, launch)
    function = program.functions[function_name]
    buffers = {name: np.array(data) for name, _, data, _ in slices}  # writable, our own
    arrays: dict[str, np.ndarray] = {**whole, **buffers}
    values: dict[str, Any] = dict(scalars)
    for p in function.params:
        if p.is_array:
            array = arrays.get(p.name, np.zeros(1, np.uint8))  # an array this nest leaves alone
            view = array_view(array)
            assert view is not None  # a NumPy array always has one
            values[p.name] = HostArray(p, array, view)
    program.run_slices(BoundCall(function, values), whole,
                       [(name, first, buffers[name], out) for name, first, _, out in slices],
                       positions)
    written = {name: buffers[name][out[0] - first : out[1] - first]
               for name, first, _, out in slices if out is not None}
    return get_worker().address, written


def run_plan_on_cluster(client: Any, program_class: ProgramClass, source: str,
                        launch: Mapping[str, Any], plan: PartPlan, call: BoundCall,
                        positions: Sequence[int]) -> list[LaneRecord]:
    """Runs the plan's parts as tasks of the cluster; a `LaneRecord` per worker (its index in
    the scheduler's sorted worker addresses as `device`)."""
    from distributed import as_completed

    arrays = call.host_arrays()
    itemsize = {name: array.itemsize for name, array in arrays.items()}
    whole = {name: client.scatter(arrays[name], broadcast=True) for name in plan.resident}
    tasks: dict[Any, Part] = {}  # the cluster's futures
    for part in plan.parts:
        part_call = with_part(call, plan.spec, part.lo, part.hi)
        scalars = {p.name: part_call.values[p.name] for p in call.function.params
                   if not p.is_array}
        slices = [(s.name, s.first, arrays[s.name].reshape(-1)[s.first : s.end], s.copy_out)
                  for s in part.slices]
        future = client.submit(run_part, program_class, source, launch, call.function.name,
                               scalars, whole, slices, list(positions), pure=False)
        tasks[future] = part
    workers = sorted(client.scheduler_info()["workers"])
    records: dict[str, LaneRecord] = {}
    completed = cast(  # distributed is untyped: each future with run_part's result
        Iterable[tuple[Any, tuple[str, dict[str, np.ndarray]]]],
        as_completed(list(tasks), with_results=True))
    for future, (address, written) in completed:
        part = tasks[future]
        for name, data in written.items():
            first, end = next(s.copy_out for s in part.slices if s.name == name) or (0, 0)
            arrays[name].reshape(-1)[first:end] = data
        record = records.setdefault(address, LaneRecord(
            workers.index(address) if address in workers else len(workers)))
        copied_in, copied_out = part_bytes(part, itemsize)
        record.parts.append(part.index)
        record.bytes_in += copied_in
        record.bytes_out += copied_out
    return sorted(records.values(), key=lambda r: r.device)
