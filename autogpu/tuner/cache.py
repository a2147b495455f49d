"""The persistent tuning cache: one SQLite file, safe for several tuners at once.

A variant is identified by its *context* (kernel source hash, function, pipeline without the
tuned values, sizes, inputs, device, compiler and driver versions: everything its result depends
on) and its parameters. Each row is `claimed` (a tuner is compiling/measuring it), `ok` (verified,
with its time) or `failed` (with the stage and reason). Failures are cached like successes.

Concurrency: WAL journal, a busy timeout, and every state change inside one `BEGIN IMMEDIATE`
transaction. A tuner first *claims* a variant; another tuner that finds the claim does not measure
it. A claim is taken over when its lease has expired or when its owner is a process of this host
that no longer exists (an interrupted run), so a killed run never blocks a resume. Every
measurement is also appended to a log table, which lets tests count measurements exactly.

Faults: a file that is not a usable cache (a folder, not a database, damaged, a row that does
not parse, another schema version) is a `CacheError`, a one-line error for the user. A file that
is another program's SQLite database (not exactly this schema's tables) is never written: its
signature is checked before anything else, and again inside the first write transaction.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sqlite3
import time
import uuid
from collections.abc import Generator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from autogpu.diagnostics import CompileError
from autogpu.narrowing import is_tuple

SCHEMA_VERSION = 1
TABLES = frozenset({"meta", "contexts", "variants", "measurements"})  # the schema's signature

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS contexts (
    context TEXT PRIMARY KEY, description TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS variants (
    key TEXT PRIMARY KEY,
    context TEXT NOT NULL,
    params TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('claimed', 'ok', 'failed')),
    time_s REAL,
    times TEXT,
    stage TEXT,
    reason TEXT,
    owner TEXT,
    claimed_at REAL,
    finished_at REAL,
    digest TEXT,
    cuda_source TEXT,
    launch TEXT,
    extra TEXT);
CREATE INDEX IF NOT EXISTS variants_by_context ON variants (context, status);
CREATE TABLE IF NOT EXISTS measurements (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT NOT NULL, context TEXT NOT NULL, owner TEXT NOT NULL,
    status TEXT NOT NULL, finished REAL NOT NULL);
"""


class CacheError(CompileError):
    """The cache file cannot be used: the user gets one line saying why, and what to do."""


def canonical(value: Any) -> str:
    """Stable JSON: the same parameters always give the same key."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=_json_default)


def _json_default(value: Any) -> Any:
    if is_tuple(value):
        return list(value)
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    raise TypeError(f"cannot store {value!r} in the cache")


def digest(value: Any) -> str:
    return hashlib.sha256(canonical(value).encode()).hexdigest()


def default_cache_path() -> Path:
    """tune.sqlite in autogpu's cache folder for the tuner ($AUTOGPU_CACHE/tune, else
    ~/.cache/autogpu/tune)."""
    from autogpu.tuner.adapter import cache_folder

    return cache_folder("tune") / "tune.sqlite"


def new_owner() -> str:
    """host:pid:token, so that a dead owner on this host can be recognised."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _owner_is_dead(owner: str) -> bool:
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


@dataclass
class Record:
    """One variant's result as stored."""

    params: dict[str, Any]
    status: str
    time_s: float | None = None
    times: list[float] = field(default_factory=list[float])
    stage: str | None = None
    reason: str | None = None
    owner: str | None = None
    finished_at: float | None = None
    digest: str | None = None
    cuda_source: str | None = None
    launch: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict[str, Any])

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True)
class Claim:
    """The answer to a claim: `claimed` (ours now), `done` (a result exists) or `busy`."""

    state: str
    record: Record | None = None
    owner: str | None = None


class Cache:
    """The tuning cache in `path` (created if missing)."""

    def __init__(self, path: str | Path, owner: str | None = None, lease_seconds: float = 900.0,
                 retry_failed: bool = False):
        self.path = Path(path)
        self.owner = owner or new_owner()
        self.lease_seconds = lease_seconds
        self.retry_failed = retry_failed
        self._conn = self._connect()
        try:
            if self._check(deep=True) == "new":  # checked before anything is written
                self._create()
            with self._guard():
                self._conn.execute("PRAGMA journal_mode = WAL")
                self._conn.execute("PRAGMA synchronous = NORMAL")
        except BaseException:
            self._conn.close()
            raise

    def _create(self) -> None:
        """The schema, in a file that was empty (unless another tuner was quicker)."""
        with self._transaction() as c:
            if not self._tables():
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        c.execute(statement)
                c.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        self._check()

    def _connect(self) -> sqlite3.Connection:
        if self.path.is_dir():
            raise CacheError(f"the cache {self.path} is a folder: give a file (--cache FILE)")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(self.path), timeout=60.0, isolation_level=None,
                                   check_same_thread=False)
            conn.execute("PRAGMA busy_timeout = 60000")
        except (OSError, sqlite3.Error) as e:
            raise CacheError(f"cannot open the cache {self.path}: {e}") from None
        return conn

    def _check(self, deep: bool = False) -> str:
        """'new' (an empty file) or 'ours' (this schema), reading only; a CacheError for
        anything else. `deep` also checks every page (a truncated or damaged file)."""
        with self._guard():
            if self._conn.execute("PRAGMA page_count").fetchone()[0] == 0:
                return "new"
            tables = self._tables()
            if tables != set(TABLES):
                raise CacheError(
                    f"{self.path} is not a tuning cache but another SQLite database (tables: "
                    f"{', '.join(sorted(tables)) or 'none'}); it was left untouched: give "
                    "another --cache")
            row = self._conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is None or row[0] != str(SCHEMA_VERSION):
                raise CacheError(
                    f"the cache {self.path} has schema version {row[0] if row else 'unknown'}, "
                    f"this autogpu reads version {SCHEMA_VERSION}: give another --cache or "
                    "delete it")
            if deep:
                problems = [r[0] for r in self._conn.execute("PRAGMA quick_check")]
                if problems != ["ok"]:
                    raise sqlite3.DatabaseError(problems[0])
        return "ours"

    def _tables(self) -> set[str]:
        with self._guard():
            return {name for (name,) in self._conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")} - {"sqlite_sequence"}

    @contextmanager
    def _guard(self) -> Generator[None]:
        """SQLite's errors on this file (not a database, damaged, unreadable) as CacheError."""
        try:
            yield
        except sqlite3.DatabaseError as e:
            raise CacheError(f"the cache {self.path} is unusable ({e}): delete it or give "
                             "another --cache") from None

    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._guard():
            return self._conn.execute(sql, args).fetchall()

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Generator[sqlite3.Connection]:
        with self._guard():
            for attempt in range(50):
                try:
                    self._conn.execute("BEGIN IMMEDIATE")
                    break
                except sqlite3.OperationalError as e:
                    if "locked" not in str(e) and "busy" not in str(e):
                        raise
                    time.sleep(0.05 * (attempt + 1))
            else:
                raise CacheError(f"the cache {self.path} stayed locked by another program")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            else:
                self._conn.execute("COMMIT")

    # --- contexts ----------------------------------------------------------------------------

    def register_context(self, description: Mapping[str, Any]) -> str:
        """The context key of `description`, stored with it for humans and reports."""
        key = digest(description)[:24]
        with self._transaction() as c:
            c.execute("INSERT OR IGNORE INTO contexts VALUES (?, ?, ?)",
                      (key, canonical(description), time.time()))
        return key

    def context_description(self, context: str) -> dict[str, Any] | None:
        rows = self._read("SELECT description FROM contexts WHERE context = ?", (context,))
        return self._json(rows[0][0], f"context {context}") if rows else None

    def _json(self, text: str, what: str) -> Any:
        try:
            return json.loads(text)
        except (TypeError, ValueError):
            raise CacheError(f"the cache {self.path} is damaged: the {what} does not parse: "
                             "delete it or give another --cache") from None

    # --- variants ----------------------------------------------------------------------------

    @staticmethod
    def variant_key(context: str, params: Mapping[str, Any]) -> str:
        return digest([context, params])[:32]

    def lookup(self, context: str, params: Mapping[str, Any]) -> Record | None:
        """The finished result of a variant, or None (also None for a failure when retrying
        failures)."""
        rows = self._read("SELECT * FROM variants WHERE key = ?",
                          (self.variant_key(context, params),))
        record = self._record(rows[0]) if rows else None
        if record is None or record.status == "claimed":
            return None
        if record.status == "failed" and self.retry_failed:
            return None
        return record

    def claim(self, context: str, params: Mapping[str, Any]) -> Claim:
        """Claim a variant for measurement, unless it is done or claimed by a live tuner."""
        key = self.variant_key(context, params)
        now = time.time()
        with self._transaction() as c:
            row = c.execute("SELECT * FROM variants WHERE key = ?", (key,)).fetchone()
            if row is not None:
                record = self._record(row)
                if record.status == "ok" or (record.status == "failed" and not self.retry_failed):
                    return Claim("done", record)
                if record.status == "claimed" and record.owner != self.owner:
                    claimed_at = row[self._col("claimed_at")] or 0.0
                    alive = not _owner_is_dead(record.owner or "")
                    if now - claimed_at < self.lease_seconds and alive:
                        return Claim("busy", owner=record.owner)
            c.execute(
                "INSERT OR REPLACE INTO variants (key, context, params, status, owner, claimed_at)"
                " VALUES (?, ?, ?, 'claimed', ?, ?)",
                (key, context, canonical(params), self.owner, now),
            )
        return Claim("claimed")

    def renew(self, context: str, params: Mapping[str, Any]) -> None:
        """Extend our claim's lease (before a long measurement)."""
        with self._transaction() as c:
            c.execute("UPDATE variants SET claimed_at = ? WHERE key = ? AND owner = ? AND "
                      "status = 'claimed'", (time.time(), self.variant_key(context, params),
                                             self.owner))

    def release(self, context: str, params: Mapping[str, Any]) -> None:
        """Give up our claim without a result (interrupted, or out of budget)."""
        with self._transaction() as c:
            c.execute("DELETE FROM variants WHERE key = ? AND owner = ? AND status = 'claimed'",
                      (self.variant_key(context, params), self.owner))

    def forget(self, context: str, params: Mapping[str, Any]) -> None:
        """Remove a variant's result (it proved stale: the next run measures it again)."""
        with self._transaction() as c:
            c.execute("DELETE FROM variants WHERE key = ?", (self.variant_key(context, params),))

    def release_all(self) -> None:
        with self._transaction() as c:
            c.execute("DELETE FROM variants WHERE owner = ? AND status = 'claimed'", (self.owner,))

    def finish(self, context: str, params: Mapping[str, Any], record: Record,
               measured: bool = True) -> None:
        """Store a result (ok or failed); `measured` adds it to the measurement log."""
        if record.status not in ("ok", "failed"):
            raise ValueError(f"cannot finish a variant as '{record.status}'")
        key = self.variant_key(context, params)
        now = time.time()
        with self._transaction() as c:
            c.execute(
                "INSERT OR REPLACE INTO variants VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (key, context, canonical(params), record.status, record.time_s,
                 canonical(record.times), record.stage, record.reason, self.owner, None, now,
                 record.digest, record.cuda_source,
                 canonical(record.launch) if record.launch is not None else None,
                 canonical(record.extra)),
            )
            if measured:
                c.execute("INSERT INTO measurements (key, context, owner, status, finished) "
                          "VALUES (?,?,?,?,?)", (key, context, self.owner, record.status, now))
        record.owner, record.finished_at = self.owner, now

    def records(self, context: str) -> list[Record]:
        """Every finished variant of a context, in the order they finished."""
        rows = self._read("SELECT * FROM variants WHERE context = ? AND status != 'claimed' "
                          "ORDER BY finished_at, key", (context,))
        return [self._record(r) for r in rows]

    def claimed(self, context: str) -> list[dict[str, Any]]:
        rows = self._read("SELECT params FROM variants WHERE context = ? AND "
                          "status = 'claimed'", (context,))
        return [self._json(r[0], "parameters of a claimed variant") for r in rows]

    def counts(self, context: str) -> dict[str, int]:
        rows = self._read("SELECT status, COUNT(*) FROM variants WHERE context = ? "
                          "GROUP BY status", (context,))
        return {status: n for status, n in rows}

    def best_time(self, context: str) -> float | None:
        """The fastest verified time of a context so far (None before the first)."""
        [(best,)] = self._read("SELECT MIN(time_s) FROM variants WHERE context = ? AND "
                               "status = 'ok'", (context,))
        return best

    def measurement_log(self, context: str | None = None) -> list[tuple[str, str, str]]:
        """(variant key, owner, status) of every measurement ever made, oldest first."""
        if context is None:
            rows = self._read("SELECT key, owner, status FROM measurements ORDER BY id")
        else:
            rows = self._read("SELECT key, owner, status FROM measurements WHERE "
                              "context = ? ORDER BY id", (context,))
        return [tuple(r) for r in rows]

    # --- rows ----------------------------------------------------------------------------------

    _COLUMNS = ("key", "context", "params", "status", "time_s", "times", "stage", "reason",
                "owner", "claimed_at", "finished_at", "digest", "cuda_source", "launch", "extra")

    @classmethod
    def _col(cls, name: str) -> int:
        return cls._COLUMNS.index(name)

    def _record(self, row: tuple[Any, ...]) -> Record:
        get: dict[str, Any] = dict(zip(self._COLUMNS, row))

        def parsed(column: str, empty: Any) -> Any:
            text = get[column]
            return self._json(text, f"{column} of variant {get['key']}") if text else empty

        return Record(
            params=parsed("params", {}),
            status=get["status"],
            time_s=get["time_s"],
            times=parsed("times", []),
            stage=get["stage"],
            reason=get["reason"],
            owner=get["owner"],
            finished_at=get["finished_at"],
            digest=get["digest"],
            cuda_source=get["cuda_source"],
            launch=parsed("launch", None),
            extra=parsed("extra", {}),
        )
