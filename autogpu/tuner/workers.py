"""Several tuners on one kernel: one worker process per GPU, sharing the cache and the study.

`--workers N` runs N tuners in this process, worker i on GPU `devices[i % len(devices)]`, each
with its own measurement process (its own CUDA context, on its own GPU) and its own compile pool
(its share of the cores); a tuner only waits for those, so threads suffice. They coordinate
through
- the SQLite cache: a worker claims a variant before compiling it, the others skip it and read
  its result when it lands (exhaustive and random walk the same order and interleave);
- for the model strategy, a shared Optuna study (`--storage`: by default a journal file next to
  the cache; `sqlite:///...` or `postgresql://...` URLs use Optuna's RDB storage), so every
  worker's sampler learns from every measurement. Several hosts tune together by pointing
  `--storage` at one PostgreSQL database: a worker does not re-measure configurations that the
  study already holds from another host, nor ones another host is measuring.

The parent shows one progress bar (polling the cache) and writes the report of all variants.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from autogpu.diagnostics import CompileError
from autogpu.tuner.cache import Cache, canonical, default_cache_path
from autogpu.tuner.measure import ENVIRONMENT
from autogpu.tuner.outputs import TuneResult, finish
from autogpu.tuner.prepared import Prepared
from autogpu.tuner.session import Evaluation, EvaluationCounter, default_jobs
from autogpu.tuner.single import device_space, open_cache, single_session
from autogpu.tuner.strategies import MODEL_STRATEGIES
from autogpu.tuner.values import DeviceInfo

if TYPE_CHECKING:
    from optuna.storages import BaseStorage
    from tqdm import tqdm

_Message = tuple[Any, ...]
"""What a worker thread tells the parent: (kind, worker index, what the kind carries...)."""


def make_storage(url: str | None) -> BaseStorage | None:
    """An Optuna storage from a URL (RDB) or a file path (journal), or None."""
    if url is None:
        return None
    import optuna

    if "://" in url:
        kwargs: dict[str, Any] = {}
        if url.startswith("sqlite"):
            kwargs = {"engine_kwargs": {"connect_args": {"timeout": 60}}}
        try:
            return optuna.storages.RDBStorage(url, **kwargs)
        except Exception as e:  # noqa: BLE001 — bad URL, missing driver, unreachable server
            raise CompileError(f"cannot open the study storage '{url}': {e}") from None
    path = url[len("journal:"):] if url.startswith("journal:") else url
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    from optuna.storages.journal import JournalFileBackend, JournalStorage

    return JournalStorage(JournalFileBackend(path))


def default_storage(cache_path: str | Path) -> str:
    return str(Path(cache_path).with_suffix(".optuna.log"))


def _worker(prepared: Prepared, index: int, cache_path: str, storage_url: str | None, jobs: int,
            stop: threading.Event, messages: queue.Queue[_Message],
            counter: EvaluationCounter) -> None:
    """One tuner (a thread: it only waits for its compile pool and its measurement process,
    which does the GPU work in a process of its own)."""
    o = prepared.options
    try:
        storage = make_storage(storage_url) if o.search.strategy in MODEL_STRATEGIES else None
        with Cache(cache_path, retry_failed=o.output.retry_failed,
                   lease_seconds=o.measurement.lease_seconds()) as cache:
            session, _context, _info, _ = single_session(
                prepared, cache, worker=index, jobs=jobs, storage=storage, stop=stop,
                counter=counter,
                on_context=lambda ctx, inf: messages.put(("context", index, ctx, inf)))
            uncached = [e for e in session.evaluations if e.stage == ENVIRONMENT]
            messages.put(("done", index, session.measured, session.stopped_by, uncached))
    except CompileError as e:
        messages.put(("error", index, e.format()))
    except BaseException as e:  # noqa: BLE001 — reported by the parent
        import traceback

        messages.put(("error", index, f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))


def run_workers(prepared: Prepared, *, out: TextIO | None = None) -> TuneResult:
    """Run `options.workers` tuners on one cache; the report covers every variant."""
    o = prepared.options
    n = o.measurement.workers
    started = time.time()
    with open_cache(o) as cache:
        cache_path = str(cache.path)
        storage_url = o.measurement.storage or default_storage(cache_path)
        if o.search.strategy in MODEL_STRATEGIES:
            make_storage(storage_url)  # fail early on a bad URL
        total_jobs = o.measurement.jobs if o.measurement.jobs is not None else default_jobs()
        jobs = max(1, total_jobs // n) if total_jobs else 0
        messages: queue.Queue[_Message] = queue.Queue()
        stop = threading.Event()
        counter = EvaluationCounter()  # one budget for all workers
        threads = [threading.Thread(target=_worker, name=f"autogpu-tune-worker-{i}",
                                    args=(prepared, i, cache_path, storage_url, jobs, stop,
                                          messages, counter), daemon=True)
                   for i in range(n)]
        for t in threads:
            t.start()
        context: str | None = None
        info: DeviceInfo | None = None
        measured = 0
        stops: list[str | None] = []
        errors: list[str] = []
        summary: list[dict[str, object]] = []
        uncached: list[Evaluation] = []  # the environment's failures: reported, not cached
        bar = _bar(min(o.search.budget or len(prepared.candidates), len(prepared.candidates)),
                   o.output.progress, out)
        try:
            finished = 0
            while finished < n:
                try:
                    message = messages.get(timeout=0.5)
                except queue.Empty:
                    _update(bar, cache, context)
                    continue
                kind = message[0]
                if kind == "context":
                    context, info = message[2], message[3]
                elif kind == "done":
                    finished += 1
                    measured += message[2]
                    stops.append(message[3])
                    uncached.extend(message[4])
                    summary.append({"worker": message[1], "measured": message[2],
                                    "stopped_by": message[3]})
                else:
                    finished += 1
                    errors.append(f"worker {message[1]}: {message[2]}")
            _update(bar, cache, context)
        except KeyboardInterrupt:
            stop.set()  # each worker finishes its measurement and releases its claims
            for t in threads:
                t.join()
            raise
        finally:
            if bar is not None:
                bar.close()
        for t in threads:
            t.join()
        if context is None:  # no worker started: each one reported why
            raise CompileError("; ".join(errors) or "no tuning worker started")
        if errors:
            print("autogpu-tune: " + "; ".join(errors), file=sys.stderr)
        space, candidates = device_space(prepared, info or {})
        wanted = {canonical(c) for c in candidates}
        evaluations: list[Evaluation] = []
        for r in cache.records(context):
            if canonical(r.params) not in wanted:
                continue
            evaluations.append(Evaluation(
                r.params, r.status, r.time_s if r.ok else None, r.stage, r.reason,
                cached=(r.finished_at or 0) < started,
                elapsed_s=max(0.0, (r.finished_at or started) - started),
                times=list(r.times), extra=dict(r.extra), digest=r.digest))
        evaluations.extend(uncached)
        stopped = ", ".join(sorted(set(s for s in stops if s))) or None
        return finish(prepared, cache, context, info or {}, space, evaluations,
                      measured=measured, stopped_by=stopped, out=out, workers=summary)


def _bar(total: int, enabled: bool, out: TextIO | None) -> tqdm[Any] | None:
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc="tuning", unit="variant", file=out or sys.stderr,
                dynamic_ncols=True)


def _update(bar: tqdm[Any] | None, cache: Cache, context: str | None) -> None:
    if bar is None or context is None:
        return
    counts = cache.counts(context)  # polled every half second: counts, not whole rows
    bar.n = min(counts.get("ok", 0) + counts.get("failed", 0), bar.total)
    best = cache.best_time(context)
    if best is not None:
        from autogpu.tuner.report import format_time

        bar.set_postfix_str(f"best {format_time(best)}")
    bar.refresh()


__all__ = ["default_cache_path", "default_storage", "make_storage", "run_workers"]
